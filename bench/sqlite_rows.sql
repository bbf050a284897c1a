-- SQLite's own cost of a row of aggr_nvtx_stats (17 columns, WITHOUT ROWID,
-- as schema 2 of db/schema.sql had it), the same columns in a rowid table, 6
-- columns, and (table d) schema 3's aggr_nvtx_runs with a kind 6 row of one
-- range (NULL med, min, max, stddev and kind 7 columns):
-- 2 M generated rows each, no binding. docs/performance.md quotes it.
-- Run: rm -f /tmp/rows.sqlite && sqlite3 /tmp/rows.sqlite < bench/sqlite_rows.sql
PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536; PRAGMA page_size=8192;
CREATE TABLE a (aggr_id INTEGER NOT NULL, kind INTEGER NOT NULL, row_idx INTEGER NOT NULL, name_id INTEGER NOT NULL, style TEXT NOT NULL, instances INTEGER NOT NULL, total INTEGER NOT NULL, avg REAL NOT NULL, med REAL NOT NULL, min INTEGER NOT NULL, max INTEGER NOT NULL, stddev REAL NOT NULL, time_pct REAL NOT NULL, range_time INTEGER NOT NULL DEFAULT 0, gpu_ops INTEGER NOT NULL DEFAULT 0, avg_level REAL NOT NULL DEFAULT 0, avg_children REAL NOT NULL DEFAULT 0, PRIMARY KEY (aggr_id, kind, row_idx)) WITHOUT ROWID;
CREATE TABLE b (id INTEGER PRIMARY KEY, aggr_id INTEGER NOT NULL, kind INTEGER NOT NULL, row_idx INTEGER NOT NULL, name_id INTEGER NOT NULL, style TEXT NOT NULL, instances INTEGER NOT NULL, total INTEGER NOT NULL, avg REAL NOT NULL, med REAL NOT NULL, min INTEGER NOT NULL, max INTEGER NOT NULL, stddev REAL NOT NULL, time_pct REAL NOT NULL, range_time INTEGER NOT NULL DEFAULT 0, gpu_ops INTEGER NOT NULL DEFAULT 0, avg_level REAL NOT NULL DEFAULT 0, avg_children REAL NOT NULL DEFAULT 0);
CREATE TABLE c (aggr_id INTEGER NOT NULL, kind INTEGER NOT NULL, row_idx INTEGER NOT NULL, name_id INTEGER NOT NULL, instances INTEGER NOT NULL, total INTEGER NOT NULL, PRIMARY KEY (aggr_id, kind, row_idx)) WITHOUT ROWID;
CREATE TABLE d (aggr_id INTEGER NOT NULL, kind INTEGER NOT NULL, row_idx INTEGER NOT NULL, key INTEGER NOT NULL, instances INTEGER NOT NULL, total INTEGER NOT NULL, med REAL, min INTEGER, max INTEGER, stddev REAL, range_time INTEGER, gpu_ops INTEGER, levels INTEGER, children INTEGER, PRIMARY KEY (aggr_id, kind, row_idx)) WITHOUT ROWID;
.timer on
BEGIN;
INSERT INTO a SELECT 1, 6, value, value+100, 'PushPop', 1, 5000000-value, 5000000.0-value, 5000000.0-value, 5000000-value, 5000000-value, 0.0, 0.00001, 0, 0, 0.0, 0.0 FROM generate_series(1, 2000000);
COMMIT;
BEGIN;
INSERT INTO b SELECT NULL, 1, 6, value, value+100, 'PushPop', 1, 5000000-value, 5000000.0-value, 5000000.0-value, 5000000-value, 5000000-value, 0.0, 0.00001, 0, 0, 0.0, 0.0 FROM generate_series(1, 2000000);
COMMIT;
BEGIN;
INSERT INTO c SELECT 1, 6, value, value+100, 1, 5000000-value FROM generate_series(1, 2000000);
COMMIT;
BEGIN;
INSERT INTO d SELECT 1, 6, value, 2 * (value+100), 1, 5000000-value, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM generate_series(1, 2000000);
COMMIT;
