-- include: nsys_base.inc.sql
-- NVTX "cycles": ranges that cross instead of nesting, identical twins (each
-- contains the other), zero-length ranges, start/end ranges ending on
-- another thread, and a range ending before the one it started in.
INSERT INTO NVTX_EVENTS VALUES (1000000, 1050000, 59, 'aten::mm, seq = 0', 281546145665170, NULL, NULL, 0, 0, 0);
INSERT INTO NVTX_EVENTS VALUES (1000000, 1050000, 59, 'aten::mm, seq = 0', 281546145665170, NULL, NULL, 0, 0, 0);
INSERT INTO NVTX_EVENTS VALUES (1025000, 1125000, 59, 'aten::crossing', 281546145665170, NULL, NULL, 0, 0, 0);
INSERT INTO NVTX_EVENTS VALUES (1110000, 1110000, 59, 'aten::empty', 281546145665170, NULL, NULL, 0, 0, 0);
INSERT INTO NVTX_EVENTS VALUES (1000500, 1300000, 60, 'io', 281546145665170, 281546145665171, NULL, 0, 0, 0);
INSERT INTO NVTX_EVENTS VALUES (1200000, 1250000, 59, 'ProfilerStep#1', 281546145665170, NULL, NULL, 0, 0, 0);
INSERT INTO NVTX_EVENTS VALUES (1200001, 1249999, 59, 'ProfilerStep#1', 281546145665170, NULL, NULL, 0, 0, 0);
