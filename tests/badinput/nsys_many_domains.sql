-- include: nsys_base.inc.sql
-- 300 NVTX domains (more than the importer keeps apart) with ranges in each,
-- and domain ids that are text or real.
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 300)
  INSERT INTO NVTX_EVENTS SELECT 900000, NULL, 75, 'domain ' || n, 281546145665170, NULL, NULL, n, 0, 0 FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 300)
  INSERT INTO NVTX_EVENTS SELECT 1000000 + n, 1000100 + n, 59, 'r' || n, 281546145665170, NULL, NULL, n, 0, 0 FROM i;
INSERT INTO NVTX_EVENTS VALUES (900000, NULL, 75, 'text id', 281546145665170, NULL, NULL, 'seven', 0, 0);
INSERT INTO NVTX_EVENTS VALUES (1000000, 1000100, 59, 'real domain', 281546145665170, NULL, NULL, 2.5, 0, 0);
