-- include: nsys_base.inc.sql
-- Grown to a few dozen pages; cases.txt cuts the built file in half.
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 2000)
  INSERT INTO NVTX_EVENTS SELECT 3000000 + n * 1000, 3000500 + n * 1000, 59, 'aten::add, seq = ' || n,
    281546145665170, NULL, NULL, 0, 0, 0 FROM i;
