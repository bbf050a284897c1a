-- A small Nsight Systems export (schema 3.x names): every table the
-- importer reads, a few rows each, NVTX domains and odd values.
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (0, ''), (1, 'cudaLaunchKernel_v7000'), (2, 'volta_h884gemm_64x64'),
  (3, 'void volta_h884gemm_64x64<float>(int)'), (4, 'python'), (5, 'aten::mm'), (6, 'cudaMemcpyAsync_v3020');
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2'), ('EXPORT_PRODUCT_VERSION', '2024.5.1.113');
CREATE TABLE TARGET_INFO_SYSTEM_ENV (name TEXT, value TEXT);
INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES ('CpuDescription', 'Test CPU'), ('NvDriverVersion', '5154304'), ('CudaDriverVersion', '11070');
CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, computeMajor INTEGER, computeMinor INTEGER, smCount INTEGER, totalMemory INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA A100', 8, 0, 108, 85899345920), (1, NULL, 'x', 0, -1, NULL);
CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (4, 0, 281543696187400), (99, 0, 281543696187401);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid,
  demangledName, shortName, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1020000, 1040000, 0, 1, 7, 1, 281543696187392, 3, 2, 128, 1, 1, 32, 1, 1, 32, 0, 0),
  (1120000, 1140000, 0, 1, 7, 2, 281543696187392, 3, 2, 128, 1, 1, 32, 1, 1, 32, 0, 0),
  (1220000, 1210000, 0, 1, 7, 3, 281543696187392, 3, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId, returnValue);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1001000, 1006000, 0, 281543696187400, 1, 1, 0),
  (1101000, 1106000, 0, 281543696187400, 2, 1, 0), (1201000, 1206000, 1, 281543696187400, 3, 6, 0),
  (1301000, 1306000, 67, 281543696187400, 3, 6, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1250000, 1260000, 0, 7, 3, 281543696187392, 4096, 1, 0, 2);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, streamId, correlationId, globalPid, bytes, value, memKind);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1270000, 1271000, 0, 7, 4, 281543696187392, 64, 0, 2);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, streamId, correlationId, globalPid, syncType, eventId);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1280000, 1290000, 0, 7, 5, 281543696187392, 3, 0);
CREATE TABLE NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, textId, domainId, category, color);
INSERT INTO NVTX_EVENTS VALUES (900000, NULL, 75, 'my domain', 281543696187400, NULL, NULL, 3, 0, 0),
  (1000000, 1300000, 59, 'ProfilerStep#1', 281543696187400, NULL, NULL, 0, 0, 0),
  (1000500, 1050000, 59, NULL, 281543696187400, NULL, 5, 0, 0, 4278190335),
  (1100500, 1150000, 59, 'aten::mm, seq = 1', 281543696187400, NULL, NULL, 0, 0, 0),
  (1100600, 1150000, 60, 'io', 281543696187400, 281543696187401, NULL, 3, 1, 0),
  (1100700, NULL, 34, 'mark', 281543696187400, NULL, NULL, 0, 0, 0);
CREATE TABLE SystemInfo (gpuCount, driverVersion, cudaVersion, cudnnVersion, framework, nsysVersion, cpuModel);
INSERT INTO SystemInfo VALUES (1, '515.43.04', '11.7', '8.4', 'pytorch 1.10', '2022.1.3', 'cpu');
