-- include: nsys_base.inc.sql
-- Rows of NULLs in every table: skipped and counted, names fall back to "".
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start) VALUES (NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start) VALUES (NULL);
INSERT INTO NVTX_EVENTS (eventType) VALUES (59);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start) VALUES (NULL);
INSERT INTO StringIds VALUES (77, NULL);
UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = NULL, shortName = NULL WHERE rowid = 2;
UPDATE NVTX_EVENTS SET text = NULL, textId = 999 WHERE rowid = 3;
