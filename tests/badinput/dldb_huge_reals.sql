-- include: dldb_base.inc.sql
-- Integer columns holding REALs that are no int64: an infinite wall clock
-- time (the summary report converted it to an integer: undefined behaviour,
-- found by fuzz_dldb), infinite and out-of-range op times, NaN-free.
UPDATE perf SET wall_clock_time = 9e999;
INSERT INTO ops VALUES (1, 'default-domain', 9e999, -9e999, '/net/inf', 'inf', 'INF_1', ''),
  (1, 'default-domain', 1e19, -1e19, '/net/huge', 'huge', 'HUGE_1', ''),
  (1, 'default-domain', 9223372036854775807.0, 2.5, '/net/edge', 'edge', 'EDGE_1', '');
