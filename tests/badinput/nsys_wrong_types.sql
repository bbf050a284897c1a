-- include: nsys_base.inc.sql
-- Times and ids of the wrong type: text, real, blob; each bad row is skipped and counted.
UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid = 1;
UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 2.5 WHERE rowid = 2;
UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = x'00ff' WHERE rowid = 3;
UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = 'main' WHERE rowid = 4;
UPDATE NVTX_EVENTS SET end = 1.5e6 WHERE rowid = 5;
UPDATE TARGET_INFO_GPU SET smCount = 'many', totalMemory = x'01';
INSERT INTO ThreadNames VALUES ('x', 'y', 'z');
