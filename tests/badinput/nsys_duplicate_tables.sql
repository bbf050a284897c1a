-- include: nsys_base.inc.sql
-- Views and tables where tables are expected, and a kernel table that is a
-- view over garbage: must not crash (an error or skipped rows).
DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;
CREATE VIEW CUPTI_ACTIVITY_KIND_MEMSET AS SELECT 'a' AS start, 'b' AS end;
DROP TABLE ThreadNames;
CREATE TABLE ThreadNames (nameId TEXT);
