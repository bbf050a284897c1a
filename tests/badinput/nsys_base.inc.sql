-- nsys_base.inc.sql - a small valid Nsight Systems export (schema 3.x
-- names) that the nsys_*.sql fixtures include and then damage: 6 kernel
-- launches (API row + kernel row) on one thread of pid 4242, each inside an
-- NVTX push/pop range, a memcpy, a memset and a sync.
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (0, ''), (1, 'cudaLaunchKernel_v7000'), (2, 'volta_h884gemm_64x64'),
  (3, 'void volta_h884gemm_64x64<float>(int)'), (4, 'python'), (5, 'aten::mm');
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2'), ('EXPORT_PRODUCT_VERSION', '2024.5.1.113');
CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, computeMajor INTEGER, computeMinor INTEGER, smCount INTEGER, totalMemory INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA A100', 8, 0, 108, 85899345920);
CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (4, 0, 281546145665170);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid,
  demangledName, shortName, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId, returnValue);
CREATE TABLE NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, textId, domainId, category, color);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, streamId, correlationId, globalPid, bytes, value, memKind);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, streamId, correlationId, globalPid, syncType, eventId);
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 5)
  INSERT INTO NVTX_EVENTS SELECT 1000000 + n * 100000, 1050000 + n * 100000, 59, 'aten::mm, seq = ' || n,
    281546145665170, NULL, NULL, 0, 0, 0 FROM i;
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 5)
  INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1001000 + n * 100000, 1006000 + n * 100000, 0,
    281546145665170, n + 1, 1, 0 FROM i;
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 5)
  INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1020000 + n * 100000, 1040000 + n * 100000, 0, 1, 7, n + 1,
    281546145660928, 3, 2, 128, 1, 1, 32, 1, 1, 32, 0, 0 FROM i;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1900000, 1910000, 0, 7, 100, 281546145660928, 4096, 1, 0, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1920000, 1921000, 0, 7, 101, 281546145660928, 64, 0, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1930000, 1940000, 0, 7, 102, 281546145660928, 3, 0);
