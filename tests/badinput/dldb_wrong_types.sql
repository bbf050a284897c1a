-- include: dldb_base.inc.sql
-- Servable, but every value is odd: text in numeric columns, int64 edges,
-- NaN-ish reals, NULLs, invalid UTF-8, a 1 MB name, HTML and script names,
-- an aggregation id that is text, and a domain with a newline.
INSERT INTO aggregations VALUES ('two', NULL, 'x', NULL), (9223372036854775807, -1, -9223372036854775808, x'ff00');
INSERT INTO domains VALUES ('line' || char(10) || 'break'), (NULL), (CAST(x'c0af' AS TEXT));
INSERT INTO ops VALUES (1, 'default-domain', 'slow', x'01', CAST(x'ff6e616d65' AS TEXT), NULL, NULL, NULL),
  (1, 'default-domain', 9223372036854775807, -9223372036854775808, '<script>alert(1)</script>', 'javascript:alert(2)', '"q"', ''),
  (1, 'default-domain', 1e308, -1e308, hex(zeroblob(500000)), 'big', 'BIG_1', ''),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE perf SET wall_clock_time = 'long', gpu_utilization = 9e999;
UPDATE read_only_system_config SET num_gpus = 'many', mode_string = x'00';
