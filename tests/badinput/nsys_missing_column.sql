-- include: nsys_base.inc.sql
-- A required column (the kernel end time) is missing: the export is unusable.
ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN end;
