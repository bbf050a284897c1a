-- schema.sql - the dldb written by this project (docs/dldb.md describes it).
--
-- Two layers of base tables and one layer of views:
--   (a) raw records, written once by producers through db/dldb_write.h
--       (dlsample, the CUPTI collector, the Nsight Systems / Kineto importers);
--   (b) derived rows, one set per aggregation (aggr_id), written by analysis/;
--   (c) the 23 view_* views with DLProf 1.8's names, columns and column order:
--       the contract the viewer reads (it also reads NVIDIA's own files).
--
-- Times are INTEGER nanoseconds relative to the profile start (dl_meta
-- time_origin_ns holds the origin on the producer's clock), sizes are bytes.
-- Strings that repeat (names) are interned in `strings`; derived tables with
-- few rows keep their text inline. Views never splice values: readers bind.
-- Bump user_version (and dl_meta schema_version) on any change of a table or
-- of a view's columns or rows; a view rewritten to give the same rows faster
-- keeps it (a dldb written before still reads and aggregates the same).

PRAGMA user_version = 7;

---------------------------------------------------------------------------
-- (a) Raw records
---------------------------------------------------------------------------

-- Format marker and provenance: format = 'dlprof-dldb', schema_version,
-- producer, source, time_origin_ns, tc_rules_version, ...
CREATE TABLE dl_meta (
  key   TEXT PRIMARY KEY,
  value TEXT
) WITHOUT ROWID;

-- DLProf's version marker; we implement the 1.8 view layer.
CREATE TABLE db_version (
  id               INTEGER PRIMARY KEY,
  current_version  TEXT NOT NULL,
  original_version TEXT NOT NULL
);

-- Interned strings (kernel, API, NVTX, domain names), each text once: the
-- writer dedupes them (db/dldb_write.c), so value has no index to maintain.
CREATE TABLE strings (
  id    INTEGER PRIMARY KEY,
  value TEXT NOT NULL
);

-- One row. Named and shaped as DLProf's table so that NVIDIA's viewer
-- recognises the file (its marker check).
CREATE TABLE read_only_system_config (
  id               INTEGER PRIMARY KEY,
  is_valid         BOOLEAN NOT NULL CHECK (is_valid IN (0, 1)),
  num_gpus         TEXT NOT NULL,
  cpu_model        TEXT NOT NULL,
  driver_version   TEXT NOT NULL,
  framework        TEXT NOT NULL,
  cuda_version     TEXT NOT NULL,
  cudnn_version    TEXT NOT NULL,
  nsys_version     TEXT NOT NULL,
  dlprof_version   TEXT NOT NULL,
  dlprof_build     TEXT NOT NULL,
  profile_name     TEXT NOT NULL,
  mode_enum        INTEGER NOT NULL,
  mode_string      TEXT NOT NULL,
  original_command TEXT NOT NULL
);

CREATE TABLE gpus (
  device_id     INTEGER PRIMARY KEY,
  gpu_name      TEXT NOT NULL,
  cc_major      INTEGER NOT NULL,   -- compute capability
  cc_minor      INTEGER NOT NULL,
  sm_count      INTEGER NOT NULL,
  memory_bytes  INTEGER NOT NULL    -- total device memory, bytes (0: unknown)
);

CREATE TABLE domains (
  id      INTEGER PRIMARY KEY,
  name_id INTEGER NOT NULL UNIQUE REFERENCES strings(id)
);

CREATE TABLE threads (
  pid     INTEGER NOT NULL,
  tid     INTEGER NOT NULL,
  name_id INTEGER REFERENCES strings(id),
  PRIMARY KEY (pid, tid)
) WITHOUT ROWID;

-- NVTX ranges: kind 1 push/pop, 2 start/end, 3 mark (end_ns = start_ns).
-- end_tid differs from tid for start/end ranges ended on another thread.
-- parent_id: the enclosing range as the producer saw it (NULL: none/unknown).
-- payload_kind: 0 none, 1 integer (payload_int), 2 real (payload_real).
CREATE TABLE nvtx_ranges (
  id           INTEGER PRIMARY KEY,
  kind         INTEGER NOT NULL,
  domain_id    INTEGER NOT NULL REFERENCES domains(id),
  name_id      INTEGER NOT NULL REFERENCES strings(id),
  start_ns     INTEGER NOT NULL,
  end_ns       INTEGER NOT NULL,
  pid          INTEGER NOT NULL,
  tid          INTEGER NOT NULL,
  end_tid      INTEGER NOT NULL,
  parent_id    INTEGER,
  category     INTEGER NOT NULL DEFAULT 0,
  color        INTEGER NOT NULL DEFAULT 0,
  payload_kind INTEGER NOT NULL DEFAULT 0,
  payload_int  INTEGER,
  payload_real REAL
);

-- The Python call stack of a range where the trace records one (schema 5):
-- the PyTorch profiler's "Call stack" of an op run with with_stack=True, as
-- the trace has it ("file(line): function;...", innermost frame first).
-- No row: none recorded (Nsight Systems exports, files before schema 5).
CREATE TABLE nvtx_range_stacks (
  range_id INTEGER PRIMARY KEY REFERENCES nvtx_ranges(id),
  stack_id INTEGER NOT NULL REFERENCES strings(id)
);

-- The Python frames of a PyTorch profiler trace recorded with
-- with_stack=True: one row per python_function event ("file(line):
-- function" or "nn.Module: Name_0"), on its process and thread, times on the
-- profile's clock; python_id and parent_python_id are the trace's "Python
-- id" and "Python parent id" (NULL where it has none; ids are the trace
-- file's, unique within a process). No row: none recorded (every other
-- trace, Nsight Systems exports). Optional: files written before it lack
-- the table (db/dldb_write_pyframe.h).
CREATE TABLE dl_python_frames (
  id               INTEGER PRIMARY KEY,
  pid              INTEGER NOT NULL,
  tid              INTEGER NOT NULL,
  start_ns         INTEGER NOT NULL,
  end_ns           INTEGER NOT NULL,
  name_id          INTEGER NOT NULL REFERENCES strings(id),
  python_id        INTEGER,
  parent_python_id INTEGER
);

-- CUDA runtime (api_kind 0) and driver (1) API calls, host clock.
CREATE TABLE cuda_api_calls (
  id             INTEGER PRIMARY KEY,
  api_kind       INTEGER NOT NULL,
  name_id        INTEGER NOT NULL REFERENCES strings(id),
  start_ns       INTEGER NOT NULL,
  end_ns         INTEGER NOT NULL,
  pid            INTEGER NOT NULL,
  tid            INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL,
  return_value   INTEGER NOT NULL DEFAULT 0
);

-- Kernels; (pid, correlation_id) joins the launching API call.
CREATE TABLE kernels (
  id                   INTEGER PRIMARY KEY,
  short_name_id        INTEGER NOT NULL REFERENCES strings(id),
  long_name_id         INTEGER NOT NULL REFERENCES strings(id),
  device_id            INTEGER NOT NULL,
  context_id           INTEGER NOT NULL DEFAULT 0,
  stream_id            INTEGER NOT NULL,
  gpu_start_ns         INTEGER NOT NULL,
  gpu_end_ns           INTEGER NOT NULL,
  correlation_id       INTEGER NOT NULL,
  pid                  INTEGER NOT NULL,
  grid_x               INTEGER NOT NULL,
  grid_y               INTEGER NOT NULL,
  grid_z               INTEGER NOT NULL,
  block_x              INTEGER NOT NULL,
  block_y              INTEGER NOT NULL,
  block_z              INTEGER NOT NULL,
  registers_per_thread INTEGER NOT NULL DEFAULT 0,
  static_smem_bytes    INTEGER NOT NULL DEFAULT 0,
  dynamic_smem_bytes   INTEGER NOT NULL DEFAULT 0
);

-- copy_kind, src_kind, dst_kind: CUPTI / nsys enum values (formats.md B.4).
CREATE TABLE memcpys (
  id             INTEGER PRIMARY KEY,
  copy_kind      INTEGER NOT NULL,
  src_kind       INTEGER NOT NULL,
  dst_kind       INTEGER NOT NULL,
  bytes          INTEGER NOT NULL,
  device_id      INTEGER NOT NULL,
  stream_id      INTEGER NOT NULL,
  gpu_start_ns   INTEGER NOT NULL,
  gpu_end_ns     INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL,
  pid            INTEGER NOT NULL
);

CREATE TABLE memsets (
  id             INTEGER PRIMARY KEY,
  value          INTEGER NOT NULL,
  bytes          INTEGER NOT NULL,
  mem_kind       INTEGER NOT NULL,
  device_id      INTEGER NOT NULL,
  stream_id      INTEGER NOT NULL,
  gpu_start_ns   INTEGER NOT NULL,
  gpu_end_ns     INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL,
  pid            INTEGER NOT NULL
);

-- sync_type: 0 unknown, 1 event, 2 stream wait event, 3 stream, 4 context.
CREATE TABLE syncs (
  id             INTEGER PRIMARY KEY,
  sync_type      INTEGER NOT NULL,
  device_id      INTEGER NOT NULL,
  stream_id      INTEGER NOT NULL,
  event_id       INTEGER NOT NULL DEFAULT 0,
  start_ns       INTEGER NOT NULL,
  end_ns         INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL,
  pid            INTEGER NOT NULL
);

-- What the live collector (db/dldb_write_live.h) records besides the raw
-- records above: facts CUPTI and NVTX report that no view reads. Every file
-- has the tables; only the collector fills them. Files of schema 5 written
-- by an importer before they were declared here lack them (readers check).
-- CUDA contexts: each one's device and NULL stream.
CREATE TABLE cuda_contexts (
  context_id     INTEGER PRIMARY KEY,
  device_id      INTEGER NOT NULL,
  null_stream_id INTEGER NOT NULL
);

-- CUPTI's own overhead (CUpti_ActivityOverheadKind, CUpti_ActivityObjectKind).
CREATE TABLE cupti_overheads (
  overhead_kind INTEGER NOT NULL,
  object_kind   INTEGER NOT NULL,
  start_ns      INTEGER NOT NULL,
  end_ns        INTEGER NOT NULL
);

-- CUPTI external correlations: an API call's correlation id linked to an
-- external id of a kind (CUpti_ExternalCorrelationKind). Kind 3 (CUSTOM0):
-- the external id is the nvtx_ranges id of the range the call was made in.
CREATE TABLE cupti_external_correlations (
  correlation_id INTEGER NOT NULL,
  external_kind  INTEGER NOT NULL,
  external_id    INTEGER NOT NULL
);

-- Names of NVTX categories (nvtxDomainNameCategory), per domain.
CREATE TABLE nvtx_categories (
  domain_id INTEGER NOT NULL REFERENCES domains(id),
  category  INTEGER NOT NULL,
  name_id   INTEGER NOT NULL REFERENCES strings(id),
  PRIMARY KEY (domain_id, category)
);

---------------------------------------------------------------------------
-- (b) Derived rows, one set per aggregation
---------------------------------------------------------------------------

-- One aggregation = one domain, one key op, one inclusive iteration range.
-- aggr_start is TEXT 'YYYY-MM-DD HH:MM:SS' (UTC) in a column declared
-- INTEGER, as DLProf declares it. Rows of a failed analysis never commit.
CREATE TABLE aggregations (
  aggr_id         INTEGER PRIMARY KEY,
  domain_id       INTEGER NOT NULL REFERENCES domains(id),
  iter_start      INTEGER NOT NULL,
  iter_stop       INTEGER NOT NULL,
  iter_aggregated INTEGER NOT NULL,
  key_node_name   TEXT NOT NULL,      -- '' without a key op
  user_name       TEXT NOT NULL,
  host_name       TEXT NOT NULL,
  aggr_start      INTEGER NOT NULL,
  aggr_end        INTEGER NOT NULL DEFAULT 0,
  wall_start_ns   INTEGER NOT NULL,   -- start of iteration iter_start
  wall_end_ns     INTEGER NOT NULL,   -- stop of iteration iter_stop
  key_op_found    INTEGER NOT NULL,   -- 0/1
  tc_rules        TEXT NOT NULL       -- version of the tensor-core name patterns
);

-- Everything the dashboard shows, precomputed: one row per aggregation.
CREATE TABLE aggr_summary (
  aggr_id                 INTEGER PRIMARY KEY REFERENCES aggregations(aggr_id),
  wall_clock_time         INTEGER NOT NULL,  -- ns
  tc_utilization          REAL NOT NULL,     -- %
  gpu_utilization         REAL NOT NULL,     -- %, average over GPUs
  total_iterations        INTEGER NOT NULL,
  profiled_iterations     INTEGER NOT NULL,
  iter_start              INTEGER NOT NULL,
  iter_stop               INTEGER NOT NULL,
  iter_avg                REAL NOT NULL,     -- ns
  iter_std_dev            REAL NOT NULL,     -- ns
  key_node                TEXT NOT NULL,
  tc_duration_pct         REAL NOT NULL,
  non_tc_duration_pct     REAL NOT NULL,
  memory_duration_pct     REAL NOT NULL,
  dataloader_duration_pct REAL NOT NULL,
  io_duration_pct         REAL NOT NULL,
  cpu_duration_pct        REAL NOT NULL,
  other_duration_pct      REAL NOT NULL,
  kernels_gpu_time        INTEGER NOT NULL,  -- ns, all kernels
  kernels_count           INTEGER NOT NULL,  -- distinct kernel names
  using_tc_gpu_time       INTEGER NOT NULL,
  using_tc_count          INTEGER NOT NULL,
  memory_gpu_time         INTEGER NOT NULL,  -- memcpy + memset
  memory_count            INTEGER NOT NULL,  -- distinct memory-op names
  other_gpu_time          INTEGER NOT NULL,  -- non-TC kernels
  other_count             INTEGER NOT NULL,
  kernel_launches         INTEGER NOT NULL,
  nodes_total_gpu_time       INTEGER NOT NULL,
  nodes_total_count          INTEGER NOT NULL,
  nodes_using_tc_gpu_time    INTEGER NOT NULL,
  nodes_using_tc_count       INTEGER NOT NULL,
  nodes_tc_eligible_gpu_time INTEGER NOT NULL,
  nodes_tc_eligible_count    INTEGER NOT NULL,
  nodes_other_gpu_time       INTEGER NOT NULL,
  nodes_other_count          INTEGER NOT NULL,
  -- CPU time (ns) = durations of the API calls that launched the kernels
  -- (all, TC, non-TC) and the memory operations (view_dl_kernel_summary)
  kernels_cpu_time           INTEGER NOT NULL DEFAULT 0,
  using_tc_cpu_time          INTEGER NOT NULL DEFAULT 0,
  memory_cpu_time            INTEGER NOT NULL DEFAULT 0,
  other_cpu_time             INTEGER NOT NULL DEFAULT 0
);

-- All detected iterations; profiled = inside [iter_start, iter_stop].
-- Durations per resource category (ns) are filled for profiled ones.
CREATE TABLE aggr_iterations (
  aggr_id               INTEGER NOT NULL,
  iter_value            INTEGER NOT NULL,
  start_time            INTEGER NOT NULL,
  stop_time             INTEGER NOT NULL,
  profiled              INTEGER NOT NULL,
  gpu_utilization       REAL NOT NULL,
  total_kernel_count    INTEGER NOT NULL,
  using_tc_kernel_count INTEGER NOT NULL,
  total_gpu_time        INTEGER NOT NULL,
  tc_gpu_time           INTEGER NOT NULL,
  tc_duration           INTEGER NOT NULL,
  non_tc_duration       INTEGER NOT NULL,
  memory_duration       INTEGER NOT NULL,
  dataloader_duration   INTEGER NOT NULL,
  io_duration           INTEGER NOT NULL,
  cpu_duration          INTEGER NOT NULL,
  other_duration        INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, iter_value)
) WITHOUT ROWID;

-- Op nodes (one per op path) with metrics over their instances in the
-- aggregated iterations. op_idx is dense per aggregation.
CREATE TABLE aggr_ops (
  aggr_id          INTEGER NOT NULL,
  op_idx           INTEGER NOT NULL,
  op_node_id       TEXT NOT NULL,     -- CONV2D_1
  op_node_name     TEXT NOT NULL,     -- path
  direction        TEXT NOT NULL,     -- fprop, bprop, '' (API ops)
  op_node_type     TEXT NOT NULL,
  data_type        TEXT NOT NULL,
  stack_trace      TEXT NOT NULL,
  num_calls        INTEGER NOT NULL,
  kernel_calls     INTEGER NOT NULL,
  tc_eligible      BOOLEAN NOT NULL,
  using_tc         BOOLEAN NOT NULL,
  is_bad_data_type BOOLEAN NOT NULL,
  cpu_time         INTEGER NOT NULL,  -- sums over instances, ns
  gpu_time         INTEGER NOT NULL,
  cpu_overhead     INTEGER NOT NULL,
  gpu_idle         INTEGER NOT NULL,
  tc_gpu_time      INTEGER NOT NULL,
  cpu_time_min     INTEGER NOT NULL,  -- per instance, ns
  cpu_time_max     INTEGER NOT NULL,
  gpu_time_min     INTEGER NOT NULL,
  gpu_time_max     INTEGER NOT NULL,
  -- DLProf's iteration-report cells from the op marker's args (NULL: unknown)
  input_shapes     TEXT,              -- '<N:32, C:3, H:32, W:32>; <K:6, C:3, R:3, S:3>; <6>'
  parameters       TEXT,
  output_shapes    TEXT,
  PRIMARY KEY (aggr_id, op_idx)
) WITHOUT ROWID;
CREATE UNIQUE INDEX aggr_ops_by_id ON aggr_ops(aggr_id, op_node_id);
-- The viewer's default order of view_op_nodes (gpu_time DESC, op_node_id): a
-- page of the Ops and Kernels view reads its rows in order, without a sort.
CREATE INDEX aggr_ops_by_gpu_time ON aggr_ops(aggr_id, gpu_time DESC, op_node_id);

-- Kernel-to-op attribution, one row per kernel launch in the aggregated
-- iterations. api_start_ns = start of the launching API call, api_dur_ns
-- its duration (NULL: the call is not in the trace).
CREATE TABLE aggr_kernels (
  aggr_id      INTEGER NOT NULL,
  iter_value   INTEGER NOT NULL,
  kernel_id    INTEGER NOT NULL REFERENCES kernels(id),
  op_idx       INTEGER NOT NULL,
  uses_tc      BOOLEAN NOT NULL,
  api_start_ns INTEGER NOT NULL,
  api_dur_ns   INTEGER,
  PRIMARY KEY (aggr_id, iter_value, kernel_id)
) WITHOUT ROWID;
-- No index by op: view_iteration_op_kernels is read per iteration and op
-- (the primary key, then the iteration's rows); an op in every iteration
-- scans the aggregation's rows. Files written by earlier versions have
-- aggr_kernels_by_op ON aggr_kernels(aggr_id, op_idx, iter_value).
-- In launch order (the kernel lists' default order, kernel_timestamp): a
-- page of an aggregation's kernels in that order reads its rows, not the
-- whole aggregation, and a deep page is found by counting index entries
-- (view_dl_kernel_times). Partial, on a condition every row meets
-- (aggregation ids start at 1): only a query that states it uses the index
-- (db/dldb_query.c does), so the views' plans, and the order of a view read
-- without ORDER BY, stay as they were.
CREATE INDEX aggr_kernels_by_time ON aggr_kernels(aggr_id, api_start_ns)
  WHERE aggr_id > -1;

-- Per (aggregation, iteration, op): kernel counts and times.
CREATE TABLE aggr_iter_ops (
  aggr_id        INTEGER NOT NULL,
  iter_value     INTEGER NOT NULL,
  op_idx         INTEGER NOT NULL,
  total_count    INTEGER NOT NULL,
  tc_count       INTEGER NOT NULL,
  total_gpu_time INTEGER NOT NULL,
  tc_gpu_time    INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, iter_value, op_idx)
) WITHOUT ROWID;

-- view_iteration_ops over a whole aggregation sorted by one of these
-- columns, then by iteration: each index holds that order, so a page
-- reads its rows from the index, value by value in either direction (each
-- value's rows forwards), and stops at the page rather than sorting every
-- (iteration, op) row; only an iteration's ops of one value are sorted, by
-- op_node_id (db/dldb_iterops.c). Partial, as aggr_kernels_by_time: SQLite
-- uses them only for a query that states their condition, so a query
-- without it (an iteration's ops, a read of the whole view) reads the
-- primary key, in its order, as before.
CREATE INDEX aggr_iter_ops_by_count ON aggr_iter_ops(aggr_id, total_count, iter_value)
  WHERE aggr_id > -1;
CREATE INDEX aggr_iter_ops_by_tc_count ON aggr_iter_ops(aggr_id, tc_count, iter_value)
  WHERE aggr_id > -1;
CREATE INDEX aggr_iter_ops_by_time ON aggr_iter_ops(aggr_id, total_gpu_time, iter_value)
  WHERE aggr_id > -1;
CREATE INDEX aggr_iter_ops_by_tc_time ON aggr_iter_ops(aggr_id, tc_gpu_time, iter_value)
  WHERE aggr_id > -1;

-- Per (aggregation, op, kernel short name).
CREATE TABLE aggr_op_kernels (
  aggr_id        INTEGER NOT NULL,
  op_idx         INTEGER NOT NULL,
  kernel_name_id INTEGER NOT NULL REFERENCES strings(id),
  uses_tc        BOOLEAN NOT NULL,
  calls          INTEGER NOT NULL,
  gpu_time       INTEGER NOT NULL,
  avg            REAL NOT NULL,
  min            INTEGER NOT NULL,
  max            INTEGER NOT NULL,
  api_time       INTEGER NOT NULL,   -- sum of launch API durations, ns
  api_min        INTEGER,            -- per launch (NULL: no launch call known)
  api_max        INTEGER,
  PRIMARY KEY (aggr_id, op_idx, kernel_name_id)
) WITHOUT ROWID;

-- Scope tree: row_type 1 group (path ends with '/', root '/'), 2 op.
CREATE TABLE aggr_group_ops (
  aggr_id                INTEGER NOT NULL,
  row_idx                INTEGER NOT NULL,   -- depth-first order
  row_type               INTEGER NOT NULL,
  row_full_id            TEXT NOT NULL,
  row_full_name          TEXT NOT NULL,
  row_trimmed_name       TEXT NOT NULL,
  level                  INTEGER NOT NULL,
  num_op_instances       INTEGER NOT NULL,
  num_supported_leaf_ops INTEGER NOT NULL,
  num_tc_leaf_ops        INTEGER NOT NULL,
  cpu_time_sum           INTEGER NOT NULL,
  gpu_time_sum           INTEGER NOT NULL,
  cpu_overhead_sum       INTEGER NOT NULL,
  gpu_idle_sum           INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, row_idx)
) WITHOUT ROWID;

-- Per op type; min/max/avg are over the op nodes of the type.
CREATE TABLE aggr_op_types (
  aggr_id          INTEGER NOT NULL,
  op_node_type     TEXT NOT NULL,
  num_nodes        INTEGER NOT NULL,
  num_calls        INTEGER NOT NULL,
  cpu_time_sum     INTEGER NOT NULL,
  cpu_time_avg     REAL NOT NULL,
  cpu_time_min     INTEGER NOT NULL,
  cpu_time_max     INTEGER NOT NULL,
  gpu_time_sum     INTEGER NOT NULL,
  gpu_time_avg     REAL NOT NULL,
  gpu_time_min     INTEGER NOT NULL,
  gpu_time_max     INTEGER NOT NULL,
  cpu_overhead_sum INTEGER NOT NULL,
  cpu_overhead_avg REAL NOT NULL,
  cpu_overhead_min INTEGER NOT NULL,
  cpu_overhead_max INTEGER NOT NULL,
  gpu_idle_sum     INTEGER NOT NULL,
  gpu_idle_avg     REAL NOT NULL,
  gpu_idle_min     INTEGER NOT NULL,
  gpu_idle_max     INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, op_node_type)
) WITHOUT ROWID;

CREATE TABLE aggr_gpus (
  aggr_id         INTEGER NOT NULL,
  device_id       INTEGER NOT NULL,
  gpu_utilization REAL NOT NULL,     -- %
  kernel_time     INTEGER NOT NULL,  -- busy (union) ns within the wall
  PRIMARY KEY (aggr_id, device_id)
) WITHOUT ROWID;

-- Expert-system findings; rule_id names the row of analysis/dla_rules.c.
CREATE TABLE aggr_findings (
  aggr_id             INTEGER NOT NULL,
  seq                 INTEGER NOT NULL,
  rule_id             TEXT NOT NULL,
  problem             TEXT NOT NULL,
  recommendation      TEXT NOT NULL,
  javascript_function TEXT NOT NULL,
  javascript_args     TEXT NOT NULL,
  PRIMARY KEY (aggr_id, seq)
) WITHOUT ROWID;

---------------------------------------------------------------------------
-- (c) DLProf 1.8 views: names, columns and order as NVIDIA's; declared
-- types too, except that NVIDIA's STRING (numeric affinity) is TEXT here.
---------------------------------------------------------------------------

CREATE VIEW view_db_version AS
SELECT current_version, original_version FROM db_version;

CREATE VIEW view_system_config AS
SELECT is_valid, num_gpus, cpu_model, driver_version, framework, cuda_version,
       cudnn_version, nsys_version, dlprof_version, dlprof_build, profile_name,
       mode_string, original_command
FROM read_only_system_config;

CREATE VIEW view_gpu_names AS
SELECT gpu_name FROM gpus ORDER BY gpu_name;

CREATE VIEW view_domains AS
SELECT s.value AS domain_name
FROM domains d JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_aggregations AS
SELECT a.aggr_id, a.iter_start, a.iter_stop, a.iter_aggregated, a.key_node_name,
       a.user_name, a.host_name, a.aggr_start, a.aggr_end
FROM aggregations a;

CREATE VIEW view_performance_summary AS
SELECT a.aggr_id AS aggr_id, s.value AS domain_name, m.wall_clock_time,
       m.tc_utilization, m.gpu_utilization, m.total_iterations,
       m.profiled_iterations, m.iter_start, m.iter_stop, m.iter_avg, m.key_node
FROM aggr_summary m
JOIN aggregations a ON a.aggr_id = m.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_domain_model_gpu_utilization AS
SELECT a.aggr_id AS aggr_id, s.value AS domain_name, m.gpu_utilization
FROM aggr_summary m
JOIN aggregations a ON a.aggr_id = m.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_tc_utilization AS
SELECT a.aggr_id AS aggr_id, s.value AS domain_name, m.tc_utilization
FROM aggr_summary m
JOIN aggregations a ON a.aggr_id = m.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_resource_usage_breakdown AS
SELECT a.aggr_id AS aggr_id, s.value AS domain_name, m.tc_duration_pct,
       m.non_tc_duration_pct, m.memory_duration_pct, m.dataloader_duration_pct,
       m.io_duration_pct, m.cpu_duration_pct, m.other_duration_pct
FROM aggr_summary m
JOIN aggregations a ON a.aggr_id = m.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_kernel_summary AS
SELECT a.aggr_id AS aggr_id, s.value AS domain_name,
       (m.kernels_gpu_time + m.memory_gpu_time) AS total_gpu_time,
       (m.kernels_count + m.memory_count) AS total_count,
       m.using_tc_gpu_time, m.using_tc_count, m.memory_gpu_time, m.memory_count,
       m.other_gpu_time, m.other_count
FROM aggr_summary m
JOIN aggregations a ON a.aggr_id = m.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_op_summary AS
SELECT a.aggr_id AS aggr_id, s.value AS domain_name, m.nodes_total_gpu_time,
       m.nodes_total_count, m.nodes_using_tc_gpu_time, m.nodes_using_tc_count,
       m.nodes_tc_eligible_gpu_time, m.nodes_tc_eligible_count,
       m.nodes_other_gpu_time, m.nodes_other_count
FROM aggr_summary m
JOIN aggregations a ON a.aggr_id = m.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_gpu_devices AS
SELECT a.aggr_id AS aggr_id, s.value AS domain_name, g.device_id,
       g.gpu_name, g.cc_major AS cuda_major, g.cc_minor AS cuda_minor,
       g.sm_count, u.gpu_utilization AS device_gpu_utilization
FROM aggr_gpus u
JOIN aggregations a ON a.aggr_id = u.aggr_id
JOIN gpus g ON g.device_id = u.device_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_expert_systems AS
SELECT f.aggr_id, f.problem, f.recommendation, f.javascript_function,
       f.javascript_args
FROM aggr_findings f;

CREATE VIEW view_iterations_all AS
SELECT i.aggr_id, i.iter_value, i.start_time, i.stop_time,
       i.stop_time - i.start_time AS duration
FROM aggr_iterations i;

CREATE VIEW view_iterations_profiled AS
SELECT i.aggr_id AS aggr_id, s.value AS domain_name, i.iter_value, i.start_time,
       i.stop_time - i.start_time AS duration, i.total_kernel_count,
       i.using_tc_kernel_count, i.tc_duration, i.non_tc_duration,
       i.memory_duration, i.dataloader_duration, i.io_duration, i.cpu_duration,
       i.other_duration
FROM aggr_iterations i
JOIN aggregations a ON a.aggr_id = i.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id
WHERE i.profiled = 1;

CREATE VIEW view_op_nodes AS
SELECT o.aggr_id AS aggr_id, s.value AS domain_name, o.gpu_time, o.cpu_time,
       o.op_node_name, o.direction, o.op_node_type, o.num_calls, o.tc_eligible,
       o.using_tc, o.kernel_calls, o.is_bad_data_type, o.data_type,
       o.stack_trace, o.op_node_id
FROM aggr_ops o
JOIN aggregations a ON a.aggr_id = o.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_kernel_summaries AS
SELECT k.aggr_id AS aggr_id, s.value AS domain_name, o.op_node_id,
       n.value AS kernel_name, k.uses_tc, k.calls, k.gpu_time, k.avg, k.min, k.max
FROM aggr_op_kernels k
JOIN aggr_ops o ON o.aggr_id = k.aggr_id AND o.op_idx = k.op_idx
JOIN strings n ON n.id = k.kernel_name_id
JOIN aggregations a ON a.aggr_id = k.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_op_type_summary AS
SELECT t.aggr_id AS aggr_id, s.value AS domain_name, t.op_node_type, t.num_nodes,
       t.num_calls, t.cpu_time_sum, t.cpu_time_avg, t.cpu_time_min, t.cpu_time_max,
       t.gpu_time_sum, t.gpu_time_avg, t.gpu_time_min, t.gpu_time_max,
       t.cpu_overhead_sum, t.cpu_overhead_avg, t.cpu_overhead_min,
       t.cpu_overhead_max, t.gpu_idle_sum, t.gpu_idle_avg, t.gpu_idle_min,
       t.gpu_idle_max
FROM aggr_op_types t
JOIN aggregations a ON a.aggr_id = t.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_key_op_name AS
SELECT a.aggr_id, a.key_node_name AS key_op FROM aggregations a;

CREATE VIEW view_iteration_ops AS
SELECT io.aggr_id AS aggr_id, s.value AS domain_name, io.iter_value,
       o.op_node_name, o.direction, o.op_node_type, io.total_count, io.tc_count,
       io.total_gpu_time, io.tc_gpu_time, o.data_type, o.stack_trace, o.op_node_id
FROM aggr_iter_ops io
JOIN aggr_ops o ON o.aggr_id = io.aggr_id AND o.op_idx = io.op_idx
JOIN aggregations a ON a.aggr_id = io.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_iteration_kernels AS
SELECT ak.aggr_id AS aggr_id, s.value AS domain_name, ak.iter_value,
       o.op_node_name, n.value AS kernel_name, k.device_id,
       ak.api_start_ns AS kernel_timestamp,
       (k.gpu_end_ns - k.gpu_start_ns) AS kernel_duration, ak.uses_tc,
       k.grid_x || ', ' || k.grid_y || ', ' || k.grid_z AS grid,
       k.block_x || ', ' || k.block_y || ', ' || k.block_z AS block
FROM aggr_kernels ak
JOIN kernels k ON k.id = ak.kernel_id
JOIN strings n ON n.id = k.short_name_id
JOIN aggr_ops o ON o.aggr_id = ak.aggr_id AND o.op_idx = ak.op_idx
JOIN aggregations a ON a.aggr_id = ak.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_iteration_op_kernels AS
SELECT ak.aggr_id AS aggr_id, s.value AS domain_name, ak.iter_value,
       o.op_node_id, n.value AS kernel_name, k.device_id,
       ak.api_start_ns AS kernel_timestamp,
       (k.gpu_end_ns - k.gpu_start_ns) AS kernel_duration, ak.uses_tc,
       k.grid_x || ', ' || k.grid_y || ', ' || k.grid_z AS grid,
       k.block_x || ', ' || k.block_y || ', ' || k.block_z AS block
FROM aggr_kernels ak
JOIN kernels k ON k.id = ak.kernel_id
JOIN strings n ON n.id = k.short_name_id
JOIN aggr_ops o ON o.aggr_id = ak.aggr_id AND o.op_idx = ak.op_idx
JOIN aggregations a ON a.aggr_id = ak.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_group_ops AS
SELECT g.aggr_id AS aggr_id, s.value AS domain_name, g.row_type, g.row_full_id,
       g.row_full_name, (g.row_trimmed_name || '') AS row_trimmed_name, g.level,
       g.num_op_instances, g.num_supported_leaf_ops, g.num_tc_leaf_ops,
       g.cpu_time_sum, g.gpu_time_sum, g.cpu_overhead_sum, g.gpu_idle_sum
FROM aggr_group_ops g
JOIN aggregations a ON a.aggr_id = g.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- ---- dl extensions: our own tables and views beyond DLProf's ----
-- Readers must treat every view_dl_* as optional (NVIDIA's files lack them).

-- Per kernel, what a PyTorch profiler (Kineto) trace says about its launch.
CREATE TABLE kernel_occupancy (
  kernel_id              INTEGER PRIMARY KEY,  -- kernels.id
  blocks_per_sm          REAL,                 -- grid blocks / SM count
  est_achieved_occupancy REAL                  -- %, Kineto's estimate
);

-- Per aggregation and GPU: the GPU timeline (TraceLens's definitions:
-- computation = non-NCCL kernels + memsets, communication = NCCL kernels,
-- exposed = not overlapped with computation) inside the wall window, ns;
-- est. SM efficiency and achieved occupancy (TensorBoard plugin), 0-100.
CREATE TABLE aggr_dl_gpu (
  aggr_id                INTEGER NOT NULL,
  device_id              INTEGER NOT NULL,
  wall_ns                INTEGER NOT NULL,
  computation_ns         INTEGER NOT NULL,
  communication_ns       INTEGER NOT NULL,
  exposed_comm_ns        INTEGER NOT NULL,
  memcpy_ns              INTEGER NOT NULL,
  exposed_memcpy_ns      INTEGER NOT NULL,
  busy_ns                INTEGER NOT NULL,
  kernel_busy_ns         INTEGER NOT NULL,
  est_sm_efficiency      REAL,
  est_achieved_occupancy REAL,
  PRIMARY KEY (aggr_id, device_id)
) WITHOUT ROWID;

-- Per aggregation, iteration and GPU.
CREATE TABLE aggr_dl_iter_gpu (
  aggr_id                INTEGER NOT NULL,
  iter_value             INTEGER NOT NULL,
  device_id              INTEGER NOT NULL,
  duration_ns            INTEGER NOT NULL,
  kernel_busy_ns         INTEGER NOT NULL,
  communication_ns       INTEGER NOT NULL,
  exposed_comm_ns        INTEGER NOT NULL,
  est_sm_efficiency      REAL,
  est_achieved_occupancy REAL,
  PRIMARY KEY (aggr_id, iter_value, device_id)
) WITHOUT ROWID;

-- Per aggregation and kernel name (duration-weighted means).
CREATE TABLE aggr_dl_kernels (
  aggr_id                INTEGER NOT NULL,
  kernel_name_id         INTEGER NOT NULL REFERENCES strings(id),
  calls                  INTEGER NOT NULL,
  gpu_time               INTEGER NOT NULL,
  uses_tc                INTEGER NOT NULL,
  is_communication       INTEGER NOT NULL,
  blocks_per_sm          REAL,
  est_achieved_occupancy REAL,
  est_sm_efficiency      REAL,
  PRIMARY KEY (aggr_id, kernel_name_id)
) WITHOUT ROWID;

CREATE VIEW view_dl_communication AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.device_id, g.gpu_name,
       x.wall_ns AS wall_clock_time, x.communication_ns AS communication_time,
       x.exposed_comm_ns AS exposed_communication_time,
       CASE WHEN x.wall_ns > 0 THEN 100.0 * x.exposed_comm_ns / x.wall_ns ELSE 0.0 END
         AS exposed_communication_pct,
       CASE WHEN x.communication_ns > 0
            THEN 100.0 * (x.communication_ns - x.exposed_comm_ns) / x.communication_ns
            ELSE 0.0 END AS overlapped_communication_pct,
       x.computation_ns AS computation_time, x.memcpy_ns AS memcpy_time,
       x.exposed_memcpy_ns AS exposed_memcpy_time, x.busy_ns AS busy_time,
       (x.wall_ns - x.busy_ns) AS idle_time
FROM aggr_dl_gpu x
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id
LEFT JOIN gpus g ON g.device_id = x.device_id;

CREATE VIEW view_dl_gpu_efficiency AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.device_id, g.gpu_name,
       CASE WHEN x.wall_ns > 0 THEN 100.0 * x.kernel_busy_ns / x.wall_ns ELSE 0.0 END
         AS gpu_utilization,
       x.est_sm_efficiency, x.est_achieved_occupancy, x.kernel_busy_ns AS kernel_busy_time,
       x.wall_ns AS wall_clock_time
FROM aggr_dl_gpu x
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id
LEFT JOIN gpus g ON g.device_id = x.device_id;

CREATE VIEW view_dl_iteration_efficiency AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.iter_value, x.device_id,
       x.duration_ns AS duration,
       CASE WHEN x.duration_ns > 0 THEN 100.0 * x.kernel_busy_ns / x.duration_ns ELSE 0.0 END
         AS gpu_utilization,
       x.est_sm_efficiency, x.est_achieved_occupancy,
       x.communication_ns AS communication_time, x.exposed_comm_ns AS exposed_communication_time
FROM aggr_dl_iter_gpu x
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_dl_kernel_efficiency AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, n.value AS kernel_name, x.calls,
       x.gpu_time, CASE WHEN x.calls > 0 THEN x.gpu_time / x.calls ELSE 0 END AS avg,
       x.uses_tc, x.is_communication, x.blocks_per_sm AS mean_blocks_per_sm,
       x.est_achieved_occupancy AS mean_est_achieved_occupancy, x.est_sm_efficiency
FROM aggr_dl_kernels x
JOIN strings n ON n.id = x.kernel_name_id
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- ---- dl extensions: iteration names (schema 4) ----
-- The name an iteration has in the trace, where it has one: Kineto's
-- ProfilerStep#N spans (one iteration each), which users match to their
-- training logs. No row: the iteration is only its number (iterations cut
-- at a key op's stops, and files from before schema 4).
CREATE TABLE aggr_dl_iter_names (
  aggr_id    INTEGER NOT NULL,
  iter_value INTEGER NOT NULL,
  name_id    INTEGER NOT NULL REFERENCES strings(id),
  PRIMARY KEY (aggr_id, iter_value)
) WITHOUT ROWID;

CREATE VIEW view_dl_iteration_names AS
SELECT x.aggr_id AS aggr_id, x.iter_value, n.value AS name
FROM aggr_dl_iter_names x
JOIN strings n ON n.id = x.name_id;

-- ---- dl extensions: op CPU times (schema 6) ----
-- Each op's CPU time over its instances that start inside an aggregated
-- iteration (a ProfilerStep#N span, start to end, for PyTorch traces), as
-- PyTorch's prof.key_averages() gives it: total_cpu_time sums the instances'
-- durations, self_cpu_time the part of them outside the op instances nested
-- directly in them (an op's own nested calls, an aten:: call's, belong to
-- it and are no op instances). Self times of one thread never overlap: sums
-- over ops use them. One row per op of the aggregation; op_id is the op's
-- aggr_ops.op_idx (dense per aggregation).
CREATE TABLE aggr_dl_op_cpu_times (
  aggr_id        INTEGER NOT NULL,
  op_idx         INTEGER NOT NULL,
  calls          INTEGER NOT NULL,
  total_cpu_time INTEGER NOT NULL,
  self_cpu_time  INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, op_idx)
) WITHOUT ROWID;

CREATE VIEW view_op_cpu_times AS
SELECT x.aggr_id AS aggregation_id, x.op_idx AS op_id, o.op_node_name AS op_name,
       o.op_node_type AS op_type, o.direction, x.calls, x.total_cpu_time, x.self_cpu_time
FROM aggr_dl_op_cpu_times x
JOIN aggr_ops o ON o.aggr_id = x.aggr_id AND o.op_idx = x.op_idx;

-- ---- dl extensions: nsys-stats-style statistics ----
-- Readers must treat these as optional too (NVIDIA's files and ours of
-- earlier schema versions lack them). Source of the derived rows: analysis/dla_stats.c.

-- OS runtime library calls (an Nsight Systems export captured with -t osrt,
-- table OSRT_API), host clock.
CREATE TABLE osrt_calls (
  id           INTEGER PRIMARY KEY,
  name_id      INTEGER NOT NULL REFERENCES strings(id),
  start_ns     INTEGER NOT NULL,
  end_ns       INTEGER NOT NULL,
  pid          INTEGER NOT NULL,
  tid          INTEGER NOT NULL,
  return_value INTEGER NOT NULL DEFAULT 0,
  nesting      INTEGER NOT NULL DEFAULT 0
);

-- One row per summarised name, per aggregation and table (kind):
-- 1 CUDA API, 2 kernel (by demangled name), 3 kernel launch configuration
-- (name, grid, block), 4 memory operation, 5 OS runtime call (6 NVTX range
-- and 7 NVTX range projected onto the GPU are in aggr_nvtx_runs; schema 1
-- kept them here). Statistics of durations (ns; memory: also of bytes) over the instances in the aggregation's window; avg, med
-- and stddev (sample, n - 1) are REAL, time_pct is the row's share of the
-- kind's total (0-100). row_idx is nsys stats' order: total desc, then
-- count, then name.
CREATE TABLE aggr_stats (
  aggr_id       INTEGER NOT NULL,
  kind          INTEGER NOT NULL,
  row_idx       INTEGER NOT NULL,
  name_id       INTEGER NOT NULL DEFAULT 0, -- strings.id (0: label names the row)
  label         TEXT NOT NULL DEFAULT '',   -- memory: '[CUDA memcpy Host-to-Device]'...; NVTX: style
  short_name_id INTEGER NOT NULL DEFAULT 0, -- kernels: short name (links to DLProf's views)
  grid          TEXT NOT NULL DEFAULT '',   -- kernels: 'x, y, z' (kind 2: the commonest)
  block         TEXT NOT NULL DEFAULT '',
  configs       INTEGER NOT NULL DEFAULT 0, -- kind 2: distinct grid/block configurations
  instances     INTEGER NOT NULL,
  total         INTEGER NOT NULL,           -- ns (kind 7: projected ns)
  avg           REAL NOT NULL,
  med           REAL NOT NULL,
  min           INTEGER NOT NULL,
  max           INTEGER NOT NULL,
  stddev        REAL NOT NULL,
  time_pct      REAL NOT NULL,
  bytes_total   INTEGER NOT NULL DEFAULT 0, -- kind 4
  bytes_avg     REAL NOT NULL DEFAULT 0,
  bytes_med     REAL NOT NULL DEFAULT 0,
  bytes_min     INTEGER NOT NULL DEFAULT 0,
  bytes_max     INTEGER NOT NULL DEFAULT 0,
  bytes_stddev  REAL NOT NULL DEFAULT 0,
  range_time    INTEGER NOT NULL DEFAULT 0, -- kind 7: total CPU time of the ranges, ns
  gpu_ops       INTEGER NOT NULL DEFAULT 0, -- kind 7: GPU ops launched inside the ranges
  avg_level     REAL NOT NULL DEFAULT 0,    -- kind 7: mean nesting level (0: outermost)
  avg_children  REAL NOT NULL DEFAULT 0,    -- kind 7: mean number of direct child ranges
  PRIMARY KEY (aggr_id, kind, row_idx)
) WITHOUT ROWID;

-- The NVTX tables of aggr_stats' kinds 6 (ranges by name and style) and 7
-- (the same ranges projected onto the GPU: total etc. are of projected
-- times). A row per distinct name: millions when every range has its own
-- text (emit_nvtx's "seq = N"), nearly all of one range. So a row holds only
-- what the views cannot derive (schema 3; schema 2 kept the views' 17
-- columns in aggr_nvtx_stats, about twice SQLite's cost of such a row,
-- docs/performance.md): key is the
-- name id * 2 + 1 for start/end ranges (0: push/pop); avg and time % are
-- computed from total, instances and aggr_nvtx_totals; med, min, max and
-- stddev are NULL for one instance (total, total, total, 0). Kind 7 also
-- has the ranges' CPU time, the GPU ops launched inside them, and the sums
-- of their nesting levels (0: outermost) and of their direct children.
CREATE TABLE aggr_nvtx_runs (
  aggr_id      INTEGER NOT NULL,
  kind         INTEGER NOT NULL,           -- 6 or 7
  row_idx      INTEGER NOT NULL,
  key          INTEGER NOT NULL,           -- strings.id * 2 + (style = 'StartEnd')
  instances    INTEGER NOT NULL,
  total        INTEGER NOT NULL,           -- ns (kind 7: projected ns)
  med          REAL,                       -- NULL: instances = 1
  min          INTEGER,
  max          INTEGER,
  stddev       REAL,
  range_time   INTEGER,                    -- kind 7, ns
  gpu_ops      INTEGER,                    -- kind 7
  levels       INTEGER,                    -- kind 7
  children     INTEGER,                    -- kind 7
  PRIMARY KEY (aggr_id, kind, row_idx)
) WITHOUT ROWID;

-- The sum of total over an aggregation's rows of a kind of aggr_nvtx_runs:
-- time % is 100 * total / this.
CREATE TABLE aggr_nvtx_totals (
  aggr_id  INTEGER NOT NULL,
  kind     INTEGER NOT NULL,
  total    INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, kind)
) WITHOUT ROWID;

-- Beside aggr_nvtx_runs, for the viewer's name order and name filter of
-- an aggregation's NVTX rows (millions when every range has its own text),
-- written by dldb_aggr_end (db/dldb_nvtxidx.c) from the rows and `strings`.
-- A kind's rows in name order (BINARY, then row_idx), CHUNK (65,536) at a
-- time: chunk c holds the places c * CHUNK.. as 4-byte little-endian
-- row_idx values, bit 31 set where the name equals the name before. The
-- forms of the names: a name with each run of ASCII digits as one '0'
-- ("aten::conv2d, seq = 0, ..."); a filter without digits is in a name
-- exactly when it is in its form. aggr_nvtx_forms has a kind's forms and
-- how many of its rows have each; aggr_nvtx_row_forms a 2-byte
-- little-endian form_id per row, CHUNK rows at a time in row_idx order.
-- An aggregation whose names have more than 65,535 forms has no forms
-- rows; one with a row whose name is not in `strings` has neither (the
-- viewer then reads the views as before).
CREATE TABLE aggr_nvtx_name_order (
  aggr_id  INTEGER NOT NULL,
  kind     INTEGER NOT NULL,
  chunk    INTEGER NOT NULL,
  places   BLOB NOT NULL,
  PRIMARY KEY (aggr_id, kind, chunk)
);

CREATE TABLE aggr_nvtx_forms (
  aggr_id  INTEGER NOT NULL,
  kind     INTEGER NOT NULL,
  form_id  INTEGER NOT NULL,
  form     TEXT NOT NULL,
  rows     INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, kind, form_id)
) WITHOUT ROWID;

CREATE TABLE aggr_nvtx_row_forms (
  aggr_id  INTEGER NOT NULL,
  kind     INTEGER NOT NULL,
  chunk    INTEGER NOT NULL,
  forms    BLOB NOT NULL,
  PRIMARY KEY (aggr_id, kind, chunk)
);

-- The digit runs of the names (db/dldb_nvtxdigits.c writes them with the
-- order), for the viewer's name filters with digits: the aggregation's
-- distinct names of either kind in name order, each form's names in turn
-- (name j of a form). Rows of kind 0: per form and digit slot (the form's
-- slot-th '0', from 0), the slot-th run of the form's names j = chunk *
-- CHUNK.., `names` of them; `runs` packs them (db/dldb_nvtxdigits.h): a
-- mode byte, then 0: each run as a length nibble and 4-bit digits, whole
-- bytes a run; 1: a dictionary of such runs and a byte a name. Rows of
-- kind 6 or 7 (slot 0): where the kind's rows have some names of a form
-- but not all, bit j % 8 of byte (j % CHUNK) / 8 is set when it has name
-- j. An aggregation without these rows is filtered the plain way.
CREATE TABLE aggr_nvtx_digits (
  aggr_id  INTEGER NOT NULL,
  kind     INTEGER NOT NULL,
  form_id  INTEGER NOT NULL,
  slot     INTEGER NOT NULL,
  chunk    INTEGER NOT NULL,
  names    INTEGER NOT NULL,
  runs     BLOB NOT NULL,
  PRIMARY KEY (aggr_id, kind, form_id, slot, chunk)
);

-- Zone maps of the same rows, for the viewer's sorts by a numeric column
-- (db/dldb_nvtxzones.c writes them with the rows): per kind and column of
-- the kind's view (`col`: instances, avg, med, min, max, stddev of kind 6;
-- total_range_time, range_instances, proj_avg, proj_med, proj_min, proj_max,
-- proj_stddev, total_gpu_ops, avg_gpu_ops, avg_range_level, avg_num_child of
-- kind 7), the rows in row_idx order in blocks of block_rows; lo and hi
-- hold, per block, a bound at most its least value and one at least its
-- greatest, as 8-byte little-endian IEEE doubles. An aggregation written
-- without them (older files) is read the plain way.
CREATE TABLE aggr_nvtx_zones (
  aggr_id     INTEGER NOT NULL,
  kind        INTEGER NOT NULL,
  col         TEXT NOT NULL,
  block_rows  INTEGER NOT NULL,
  lo          BLOB NOT NULL,
  hi          BLOB NOT NULL,
  PRIMARY KEY (aggr_id, kind, col)
) WITHOUT ROWID;

-- Per aggregation, CUDA API name and op: the calls the op made (an API
-- name's row links to the ops that called it).
CREATE TABLE aggr_stats_api_ops (
  aggr_id  INTEGER NOT NULL,
  name_id  INTEGER NOT NULL REFERENCES strings(id),
  op_idx   INTEGER NOT NULL,
  calls    INTEGER NOT NULL,
  total    INTEGER NOT NULL,  -- ns
  PRIMARY KEY (aggr_id, name_id, op_idx)
) WITHOUT ROWID;

-- Names are scalar subqueries, not joins: a count or a page of a table with
-- millions of rows (an NVTX table when every range has its own text) then
-- reads only the rows it returns from `strings` (a count of 10.7 M rows: 32 s
-- with a join, 0.6 s this way). Each starts from `aggregations` (CROSS JOIN
-- keeps that order), so a kind with no row costs a seek, not a scan of every
-- row of every kind (2.4 s on that dldb for a first row of view_dl_stats_osrt).
CREATE VIEW view_dl_stats_cuda_api AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.row_idx, x.time_pct,
       x.total AS total_time, x.instances AS num_calls, x.avg, x.med, x.min, x.max,
       x.stddev, (SELECT n.value FROM strings n WHERE n.id = x.name_id) AS name
FROM aggregations a
CROSS JOIN aggr_stats x ON x.aggr_id = a.aggr_id AND x.kind = 1
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_dl_stats_kernels AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.row_idx, x.time_pct,
       x.total AS total_time, x.instances, x.avg, x.med, x.min, x.max, x.stddev,
       (SELECT n.value FROM strings n WHERE n.id = x.name_id) AS name, (SELECT k.value FROM strings k WHERE k.id = x.short_name_id) AS kernel_name, x.grid, x.block, x.configs
FROM aggregations a
CROSS JOIN aggr_stats x ON x.aggr_id = a.aggr_id AND x.kind = 2
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_dl_stats_kernel_configs AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.row_idx, x.time_pct,
       x.total AS total_time, x.instances, x.avg, x.med, x.min, x.max, x.stddev,
       x.grid, x.block, (SELECT n.value FROM strings n WHERE n.id = x.name_id) AS name, (SELECT k.value FROM strings k WHERE k.id = x.short_name_id) AS kernel_name
FROM aggregations a
CROSS JOIN aggr_stats x ON x.aggr_id = a.aggr_id AND x.kind = 3
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_dl_stats_memory AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.row_idx, x.time_pct,
       x.total AS total_time, x.instances AS count, x.avg, x.med, x.min, x.max,
       x.stddev, x.bytes_total AS total_bytes, x.bytes_avg AS avg_bytes,
       x.bytes_med AS med_bytes, x.bytes_min AS min_bytes, x.bytes_max AS max_bytes,
       x.bytes_stddev AS stddev_bytes, x.label AS name
FROM aggregations a
CROSS JOIN aggr_stats x ON x.aggr_id = a.aggr_id AND x.kind = 4
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_dl_stats_osrt AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.row_idx, x.time_pct,
       x.total AS total_time, x.instances AS num_calls, x.avg, x.med, x.min, x.max,
       x.stddev, (SELECT n.value FROM strings n WHERE n.id = x.name_id) AS name
FROM aggregations a
CROSS JOIN aggr_stats x ON x.aggr_id = a.aggr_id AND x.kind = 5
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_dl_stats_nvtx AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.row_idx,
       CASE WHEN t.total > 0 THEN 100.0 * x.total / t.total ELSE 0.0 END AS time_pct,
       x.total AS total_time, x.instances, CAST(x.total AS REAL) / x.instances AS avg,
       coalesce(x.med, CAST(x.total AS REAL)) AS med, coalesce(x.min, x.total) AS min,
       coalesce(x.max, x.total) AS max, coalesce(x.stddev, 0.0) AS stddev,
       CASE WHEN x.key & 1 THEN 'StartEnd' ELSE 'PushPop' END AS style,
       (SELECT n.value FROM strings n WHERE n.id = x.key >> 1) AS name, x.key >> 1 AS name_id
FROM aggregations a
CROSS JOIN aggr_nvtx_runs x ON x.aggr_id = a.aggr_id AND x.kind = 6
JOIN aggr_nvtx_totals t ON t.aggr_id = a.aggr_id AND t.kind = 6
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_dl_stats_nvtx_gpu_proj AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.row_idx,
       (SELECT n.value FROM strings n WHERE n.id = x.key >> 1) AS name,
       CASE WHEN x.key & 1 THEN 'StartEnd' ELSE 'PushPop' END AS style,
       x.total AS total_proj_time, x.range_time AS total_range_time,
       x.instances AS range_instances, CAST(x.total AS REAL) / x.instances AS proj_avg,
       coalesce(x.med, CAST(x.total AS REAL)) AS proj_med, coalesce(x.min, x.total) AS proj_min,
       coalesce(x.max, x.total) AS proj_max, coalesce(x.stddev, 0.0) AS proj_stddev,
       x.gpu_ops AS total_gpu_ops, CAST(x.gpu_ops AS REAL) / x.instances AS avg_gpu_ops,
       CAST(x.levels AS REAL) / x.instances AS avg_range_level,
       CAST(x.children AS REAL) / x.instances AS avg_num_child, x.key >> 1 AS name_id
FROM aggregations a
CROSS JOIN aggr_nvtx_runs x ON x.aggr_id = a.aggr_id AND x.kind = 7
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- The NVTX rows' name order and forms (aggr_nvtx_name_order above).
CREATE VIEW view_dl_nvtx_name_order AS
SELECT aggr_id, kind, chunk, places FROM aggr_nvtx_name_order;

CREATE VIEW view_dl_nvtx_forms AS
SELECT aggr_id, kind, form_id, form, rows FROM aggr_nvtx_forms;

CREATE VIEW view_dl_nvtx_row_forms AS
SELECT aggr_id, kind, chunk, forms FROM aggr_nvtx_row_forms;

CREATE VIEW view_dl_nvtx_zones AS
SELECT aggr_id, kind, col, block_rows, lo, hi FROM aggr_nvtx_zones;

CREATE VIEW view_dl_nvtx_digits AS
SELECT aggr_id, kind, form_id, slot, chunk, names, runs FROM aggr_nvtx_digits;

CREATE VIEW view_dl_stats_api_ops AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, (SELECT n.value FROM strings n WHERE n.id = x.name_id) AS name, o.op_node_id,
       o.op_node_name, o.op_node_type, x.calls, x.total AS total_time
FROM aggregations a
CROSS JOIN aggr_stats_api_ops x ON x.aggr_id = a.aggr_id
JOIN aggr_ops o ON o.aggr_id = x.aggr_id AND o.op_idx = x.op_idx
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- ---- dl extensions: supersets of DLProf's views (docs/compat.md) ----
-- view_dl_<name> has every column of view_<name>, in its order, then the
-- columns 1.8 keeps only in base tables; report/ reads it instead of
-- view_<name> when present. Where DLProf's reports keep the view's row
-- order, the rows come in DLProf's: ops by (op_node_name, op_node_id),
-- then kernel name, then launch (all bytewise). Optional for readers.

CREATE VIEW view_dl_iteration_op_kernels AS
SELECT ak.aggr_id AS aggr_id, s.value AS domain_name, ak.iter_value,
       o.op_node_id, n.value AS kernel_name, k.device_id,
       ak.api_start_ns AS kernel_timestamp,
       (k.gpu_end_ns - k.gpu_start_ns) AS kernel_duration, ak.uses_tc,
       k.grid_x || ', ' || k.grid_y || ', ' || k.grid_z AS grid,
       k.block_x || ', ' || k.block_y || ', ' || k.block_z AS block,
       o.op_node_name, o.direction, o.op_node_type, o.data_type,
       k.gpu_start_ns AS gpu_start, ak.api_dur_ns AS api_duration,
       o.input_shapes, o.parameters, o.output_shapes, l.value AS long_kernel_name
FROM aggr_kernels ak
JOIN kernels k ON k.id = ak.kernel_id
JOIN strings n ON n.id = k.short_name_id
JOIN strings l ON l.id = k.long_name_id
JOIN aggr_ops o ON o.aggr_id = ak.aggr_id AND o.op_idx = ak.op_idx
JOIN aggregations a ON a.aggr_id = ak.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id
ORDER BY o.op_node_name, o.op_node_id, n.value, k.gpu_start_ns, k.id;

-- The keys of view_iteration_kernels' and view_iteration_op_kernels' rows,
-- one row per row of theirs (the same aggr_id, domain_name, iter_value and
-- kernel_timestamp), without their joins: the viewer counts their rows and
-- finds the place of a deep page in launch order here
-- (aggr_kernels_by_time). Optional for readers.
CREATE VIEW view_dl_kernel_times AS
SELECT ak.aggr_id AS aggr_id, s.value AS domain_name, ak.iter_value,
       ak.api_start_ns AS kernel_timestamp
FROM aggr_kernels ak
JOIN aggregations a ON a.aggr_id = ak.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- Each kernel launch of an aggregation by GPU duration: the kernel lists
-- sorted by duration (kernel_duration, the column the pages sort by besides
-- launch time) find a page's rows here, then read them by launch time
-- (aggr_kernels_by_time). The launches in (duration, launch time, kernel
-- id) order, 128 places a row: chunk c's launches is a JSON array of
-- [duration, launch time] at places c * 128 .. (db/dldb_kdchunks.c),
-- written at the end of each aggregation. A rowid table: a row (about 2.5
-- KB) fits a page of it, where an index b-tree's (WITHOUT ROWID) would
-- spill each to a page of its own. Optional: files without it sort the
-- plain way.
CREATE TABLE aggr_dl_kernel_dur_chunks (
  aggr_id   INTEGER NOT NULL,
  chunk     INTEGER NOT NULL,
  launches  TEXT NOT NULL,     -- [[gpu_end_ns - gpu_start_ns, api_start_ns], ...]
  PRIMARY KEY (aggr_id, chunk)
);

-- The chunks (aggr_dl_kernel_dur_chunks above), for the viewer.
CREATE VIEW view_dl_kernel_dur_chunks AS
SELECT c.aggr_id AS aggr_id, s.value AS domain_name, c.chunk, c.launches
FROM aggr_dl_kernel_dur_chunks c
JOIN aggregations a ON a.aggr_id = c.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- The sort keys of view_iteration_kernels' and view_iteration_op_kernels'
-- rows by duration, one row per row of theirs, in duration order (each
-- chunk's launches in turn: CROSS JOIN). Optional for readers (the viewer
-- reads the chunks).
CREATE VIEW view_dl_kernel_durations AS
SELECT c.aggr_id AS aggr_id, s.value AS domain_name, json_extract(j.value, '$[0]') AS kernel_duration,
       json_extract(j.value, '$[1]') AS kernel_timestamp
FROM aggr_dl_kernel_dur_chunks c
CROSS JOIN json_each(c.launches) j
JOIN aggregations a ON a.aggr_id = c.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- Per op and kernel name, how many rows of view_iteration_kernels and
-- view_iteration_op_kernels (the aggregated iterations) they have: the
-- viewer counts the rows of a name filter, a kernel or an op as a sum here.
-- Optional for readers.
CREATE VIEW view_dl_kernel_calls AS
SELECT k.aggr_id AS aggr_id, s.value AS domain_name, o.op_node_id, o.op_node_name,
       n.value AS kernel_name, k.calls
FROM aggr_op_kernels k
JOIN aggr_ops o ON o.aggr_id = k.aggr_id AND o.op_idx = k.op_idx
JOIN strings n ON n.id = k.kernel_name_id
JOIN aggregations a ON a.aggr_id = k.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- The texts the Ops view's name filter reads (op_node_name, op_node_type,
-- op_node_id) as a trigram index: a filter of three characters or more
-- finds the ops whose texts hold each of its trigrams without reading every
-- op (docs/dldb.md "The ops' name index"). Contentless: the texts stay in
-- aggr_ops; a row's rowid is aggr_id * 2^32 + op_idx. Written at the end of
-- each aggregation. Optional: files without it filter the ops one by one.
CREATE VIRTUAL TABLE aggr_dl_op_names USING fts5(
  op_node_name, op_node_type, op_node_id, content = '', tokenize = 'trigram'
);

-- view_op_nodes' rows (the same columns and expressions) with names, for
-- WHERE names MATCH '"text"' (an FTS5 string; the value of names means
-- nothing): the ops the index finds. It ignores case as Unicode does, so it
-- can find more ops than the viewer's match (ASCII case only): the viewer
-- reads its filter's rows here and matches them as it matches any.
CREATE VIEW view_dl_op_names AS
SELECT o.aggr_id AS aggr_id, s.value AS domain_name, o.gpu_time, o.cpu_time,
       o.op_node_name, o.direction, o.op_node_type, o.num_calls, o.tc_eligible,
       o.using_tc, o.kernel_calls, o.is_bad_data_type, o.data_type,
       o.stack_trace, o.op_node_id, n.aggr_dl_op_names AS names
FROM aggr_dl_op_names n
JOIN aggr_ops o ON o.aggr_id = n.rowid >> 32 AND o.op_idx = (n.rowid & 4294967295)
JOIN aggregations a ON a.aggr_id = o.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- Per row of aggr_group_ops, its parent group's row_full_name, '' at the
-- top: the group whose name is the row's own up to its last '/' but a
-- trailing one, where the aggregation has that group (docs/api.md "Group
-- Ops as a tree"). Written whole at the end of each aggregation. Optional:
-- files without it find each row's parent in SQL.
CREATE TABLE aggr_dl_group_parents (
  aggr_id INTEGER NOT NULL,
  parent  TEXT NOT NULL,
  row_idx INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, parent, row_idx)
) WITHOUT ROWID;

-- view_group_ops' rows with their parent (tree_parent): the viewer reads
-- a group's children (parent=NAME) and the top rows (top=1, '') here.
-- Optional for readers.
CREATE VIEW view_dl_group_op_tree AS
SELECT g.aggr_id AS aggr_id, s.value AS domain_name, g.row_type, g.row_full_id,
       g.row_full_name, (g.row_trimmed_name || '') AS row_trimmed_name, g.level,
       g.num_op_instances, g.num_supported_leaf_ops, g.num_tc_leaf_ops,
       g.cpu_time_sum, g.gpu_time_sum, g.cpu_overhead_sum, g.gpu_idle_sum,
       p.parent AS tree_parent
FROM aggr_dl_group_parents p
JOIN aggr_group_ops g ON g.aggr_id = p.aggr_id AND g.row_idx = p.row_idx
JOIN aggregations a ON a.aggr_id = p.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- view_group_ops' rows in each order a page can ask for: per sortable
-- column (sort_column) and direction (sort_desc 1: descending), the rows'
-- row_idx in the order "ORDER BY sort_column [DESC], row_full_id" (the
-- viewer's tie-break; row_idx after it), among all the aggregation's rows
-- (tree 0, parent '') and among its parent's rows (tree 1, parent as in
-- aggr_dl_group_parents), 128 places a row: chunk c's row_idxs is a JSON
-- array of the row_idx at places c * 128 .., and n the order's places. A
-- page reads the rows at its places, whatever its offset. Written whole at
-- the end of each aggregation (db/dldb_gplaces.c). Optional: files without
-- it sort view_group_ops the plain way.
CREATE TABLE aggr_dl_group_orders (
  aggr_id     INTEGER NOT NULL,
  sort_column TEXT NOT NULL,
  sort_desc   INTEGER NOT NULL,
  tree        INTEGER NOT NULL,
  parent      TEXT NOT NULL,
  chunk       INTEGER NOT NULL,
  n           INTEGER NOT NULL,
  row_idxs    TEXT NOT NULL,
  PRIMARY KEY (aggr_id, sort_column, sort_desc, tree, parent, chunk)
) WITHOUT ROWID;

-- The orders' chunks (aggr_dl_group_orders above), for the viewer.
CREATE VIEW view_dl_group_op_orders AS
SELECT o.aggr_id AS aggr_id, s.value AS domain_name, o.sort_column, o.sort_desc, o.tree,
       o.parent AS tree_parent, o.chunk, o.n, o.row_idxs
FROM aggr_dl_group_orders o
JOIN aggregations a ON a.aggr_id = o.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- view_group_ops' rows (the same columns and expressions) with their
-- row_idx: the viewer reads the rows at a page's places here.
CREATE VIEW view_dl_group_op_rows AS
SELECT g.aggr_id AS aggr_id, s.value AS domain_name, g.row_type, g.row_full_id,
       g.row_full_name, (g.row_trimmed_name || '') AS row_trimmed_name, g.level,
       g.num_op_instances, g.num_supported_leaf_ops, g.num_tc_leaf_ops,
       g.cpu_time_sum, g.gpu_time_sum, g.cpu_overhead_sum, g.gpu_idle_sum, g.row_idx
FROM aggr_group_ops g
JOIN aggregations a ON a.aggr_id = g.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- view_group_ops' rows (the same columns and expressions) by order and
-- place, a row a place of each order: tree_parent is the parent of tree 1's
-- rows, '' for tree 0's. CROSS JOIN reads each chunk's places in turn, then
-- their rows by key (in the order of aggr_dl_group_orders' key and place).
-- Optional for readers (the viewer reads the two views above).
CREATE VIEW view_dl_group_op_places AS
SELECT g.aggr_id AS aggr_id, s.value AS domain_name, g.row_type, g.row_full_id,
       g.row_full_name, (g.row_trimmed_name || '') AS row_trimmed_name, g.level,
       g.num_op_instances, g.num_supported_leaf_ops, g.num_tc_leaf_ops,
       g.cpu_time_sum, g.gpu_time_sum, g.cpu_overhead_sum, g.gpu_idle_sum,
       o.sort_column, o.sort_desc, o.tree, o.parent AS tree_parent, o.chunk * 128 + j.key AS place
FROM aggr_dl_group_orders o
CROSS JOIN json_each(o.row_idxs) j
CROSS JOIN aggr_group_ops g ON g.aggr_id = o.aggr_id AND g.row_idx = j.value
JOIN aggregations a ON a.aggr_id = o.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- Per aggregation and op, how many rows of view_iteration_ops (iterations)
-- it has. Written whole at the end of each aggregation. Optional: files
-- without it count and sort view_iteration_ops the plain way.
CREATE TABLE aggr_dl_op_iters (
  aggr_id INTEGER NOT NULL,
  op_idx  INTEGER NOT NULL,
  iters   INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, op_idx)
) WITHOUT ROWID;

-- Per op with rows in view_iteration_ops, its columns there that are the
-- op's own and its number of rows (calls): the viewer counts the rows of
-- an aggregation, a name filter or an op as a sum here, and reads a page
-- sorted by an op's column value by value (the ops of one value, in
-- iteration order). Optional for readers.
CREATE VIEW view_dl_iteration_op_calls AS
SELECT c.aggr_id AS aggr_id, s.value AS domain_name, o.op_node_name, o.direction,
       o.op_node_type, o.data_type, o.stack_trace, o.op_node_id, c.iters AS calls
FROM aggr_dl_op_iters c
JOIN aggr_ops o ON o.aggr_id = c.aggr_id AND o.op_idx = c.op_idx
JOIN aggregations a ON a.aggr_id = c.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- The sort keys of view_iteration_ops' rows, one row per row of theirs,
-- without the join of the op: the viewer finds the place of a deep page of
-- a whole aggregation here, in an index of aggr_iter_ops. Optional for
-- readers.
CREATE VIEW view_dl_iteration_op_keys AS
SELECT io.aggr_id AS aggr_id, s.value AS domain_name, io.iter_value, io.total_count,
       io.tc_count, io.total_gpu_time, io.tc_gpu_time
FROM aggr_iter_ops io
JOIN aggregations a ON a.aggr_id = io.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- Marks in the orders of view_dl_iteration_op_keys: per aggregation and
-- sort column (iter_value, total_count, tc_count, total_gpu_time,
-- tc_gpu_time), the rows in ascending order of (column, iter_value, op_idx)
-- (the column's index), and at every 64th place the column's value there,
-- its iteration and dup, how many rows before the place have both. A deep
-- page finds the value at its offset, and the rows before a value, from
-- the mark before them and a walk of at most 64 + dup index entries,
-- rather than a walk from the first row. Written at the end of each
-- aggregation. Optional: files without it walk the index from the start.
CREATE TABLE aggr_dl_iter_op_marks (
  aggr_id     INTEGER NOT NULL,
  sort_column TEXT NOT NULL,
  place       INTEGER NOT NULL,
  value       INTEGER NOT NULL,
  iter_value  INTEGER NOT NULL,
  dup         INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, sort_column, place)
) WITHOUT ROWID;
CREATE INDEX aggr_dl_iter_op_marks_by_value
  ON aggr_dl_iter_op_marks(aggr_id, sort_column, value, iter_value);

-- The marks above, for the viewer.
CREATE VIEW view_dl_iteration_op_marks AS
SELECT aggr_id, sort_column, place, value, iter_value, dup FROM aggr_dl_iter_op_marks;

-- api_time_*: durations of the launching API calls (NULL: none known).
CREATE VIEW view_dl_kernel_summaries AS
SELECT k.aggr_id AS aggr_id, s.value AS domain_name, o.op_node_id,
       n.value AS kernel_name, k.uses_tc, k.calls, k.gpu_time, k.avg, k.min, k.max,
       CASE WHEN k.api_min IS NOT NULL THEN k.api_time END AS api_time_sum,
       CASE WHEN k.api_min IS NOT NULL AND k.calls > 0 THEN 1.0 * k.api_time / k.calls END
         AS api_time_avg,
       k.api_min AS api_time_min, k.api_max AS api_time_max
FROM aggr_op_kernels k
JOIN aggr_ops o ON o.aggr_id = k.aggr_id AND o.op_idx = k.op_idx
JOIN strings n ON n.id = k.kernel_name_id
JOIN aggregations a ON a.aggr_id = k.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id
ORDER BY o.op_node_name, o.op_node_id, n.value;

-- CPU time of kernels and memory operations = their launching calls' time.
CREATE VIEW view_dl_kernel_summary AS
SELECT a.aggr_id AS aggr_id, s.value AS domain_name,
       (m.kernels_gpu_time + m.memory_gpu_time) AS total_gpu_time,
       (m.kernels_count + m.memory_count) AS total_count,
       m.using_tc_gpu_time, m.using_tc_count, m.memory_gpu_time, m.memory_count,
       m.other_gpu_time, m.other_count,
       (m.kernels_cpu_time + m.memory_cpu_time) AS total_cpu_time, m.using_tc_cpu_time,
       m.memory_cpu_time, m.other_cpu_time
FROM aggr_summary m
JOIN aggregations a ON a.aggr_id = m.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- Per-instance min/max and the sums view_op_nodes lacks.
CREATE VIEW view_dl_op_nodes AS
SELECT o.aggr_id AS aggr_id, s.value AS domain_name, o.gpu_time, o.cpu_time,
       o.op_node_name, o.direction, o.op_node_type, o.num_calls, o.tc_eligible,
       o.using_tc, o.kernel_calls, o.is_bad_data_type, o.data_type,
       o.stack_trace, o.op_node_id,
       o.cpu_time_min, o.cpu_time_max, o.gpu_time_min, o.gpu_time_max,
       o.cpu_overhead AS cpu_overhead_sum, o.gpu_idle AS gpu_idle_sum
FROM aggr_ops o
JOIN aggregations a ON a.aggr_id = o.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- ---- dl extensions: ranks ----
-- Readers must treat these as optional (files of other producers and ours
-- from before lack them). Source: import/kineto.c (dl_gpu_ranks),
-- analysis/dla_ranks.c (aggr_dl_ranks, aggr_dl_collectives).

-- The rank of a distributed job each GPU belongs to: from the trace's
-- distributedInfo (rank, world_size), else the file's place in a folder of
-- per-rank traces; local_device is the device number inside its process;
-- host: the <host> of a file named <host>_<pid>.<time>.pt.trace.json, else NULL.
CREATE TABLE dl_gpu_ranks (
  device_id    INTEGER PRIMARY KEY,  -- gpus.device_id
  rank         INTEGER NOT NULL,
  local_device INTEGER NOT NULL,
  host         TEXT,
  world_size   INTEGER NOT NULL      -- 0: unknown
);

-- The arguments the PyTorch profiler records on an NCCL kernel ("Collective
-- name", "In msg nelems", "Out msg nelems", "Group size", "dtype"): sizes in
-- bytes (elements x the dtype's size), NULL where the dtype is unknown;
-- group_size 0: unknown. One row per kernel that carries them.
CREATE TABLE dl_kernel_collectives (
  kernel_id  INTEGER PRIMARY KEY,  -- kernels.id
  collective TEXT,                 -- as recorded: "allreduce", "all_gather", ...
  in_bytes   INTEGER,
  out_bytes  INTEGER,
  dtype      TEXT,                 -- as recorded: "Float", "BFloat16", ...
  group_size INTEGER NOT NULL
);

-- Per aggregation and rank (one row per GPU of a rank): the rank's GPU
-- timeline over the aggregated iterations (as aggr_dl_gpu), ns. wait_ns:
-- the exposed communication above the least exposed rank's, the time the
-- rank spends waiting for slower ranks inside collectives.
CREATE TABLE aggr_dl_ranks (
  aggr_id          INTEGER NOT NULL,
  rank             INTEGER NOT NULL,
  device_id        INTEGER NOT NULL,
  iterations       INTEGER NOT NULL,
  iter_avg_ns      INTEGER NOT NULL,
  wall_ns          INTEGER NOT NULL,
  computation_ns   INTEGER NOT NULL,
  communication_ns INTEGER NOT NULL,
  exposed_comm_ns  INTEGER NOT NULL,
  idle_ns          INTEGER NOT NULL,
  dataloader_ns    INTEGER NOT NULL,
  wait_ns          INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, rank, device_id)
) WITHOUT ROWID;
-- view_dl_rank_iterations joins a rank's iterations by device: without
-- this, each iteration row scans every rank of its aggregation.
CREATE INDEX aggr_dl_ranks_device ON aggr_dl_ranks(aggr_id, device_id);

-- Per aggregation and collective kernel name: NCCL kernels matched across
-- ranks by their order on each rank (every rank of a communicator issues
-- its collectives in the same order). start_skew: the latest start of an
-- instance minus the earliest, over its ranks; last_rank: the rank that
-- started last most often. bytes: the message size of each instance
-- (NCCL-tests' S: the larger of the input and output buffers, of the rank
-- that started last), summed over instances; NULL where the trace records
-- none for some instance. Bandwidths in bytes/s (NULL: unknown), NCCL-tests'
-- definitions: alg_bw = bytes / transfer time; bus_bw = alg_bw x 2(n-1)/n
-- for all-reduce, x (n-1)/n for all-gather, reduce-scatter and all-to-all,
-- x 1 for broadcast, reduce and send/receive, n = group_size (the
-- communicator's ranks as recorded, else the ranks matched); link_bw: the
-- GPU's link in one direction (analysis/dla_peaks.c, NVLink or PCIe).
CREATE TABLE aggr_dl_collectives (
  aggr_id           INTEGER NOT NULL,
  kernel_name_id    INTEGER NOT NULL REFERENCES strings(id),
  ranks             INTEGER NOT NULL,
  instances         INTEGER NOT NULL,   -- matched across all its ranks
  time_ns           INTEGER NOT NULL,   -- summed over ranks and instances
  avg_ns            INTEGER NOT NULL,   -- per instance and rank
  skew_avg_ns       INTEGER NOT NULL,
  skew_max_ns       INTEGER NOT NULL,
  last_rank         INTEGER NOT NULL,
  last_rank_count   INTEGER NOT NULL,
  transfer_ns       INTEGER NOT NULL,   -- summed over instances: the time of the rank
                                        -- that started last (no waiting in it)
  bytes             INTEGER,
  collective        TEXT,               -- allreduce, allgather, reduce_scatter, alltoall,
                                        -- broadcast, reduce, sendrecv; NULL: unknown
  group_size        INTEGER,
  alg_bw            REAL,
  bus_bw            REAL,
  link_bw           REAL,
  PRIMARY KEY (aggr_id, kernel_name_id)
) WITHOUT ROWID;

CREATE VIEW view_dl_ranks AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.rank, x.device_id,
       r.local_device, r.host, r.world_size, coalesce(g.gpu_name, m.gpu_name) AS gpu_name,
       x.iterations, x.iter_avg_ns AS iter_avg, x.wall_ns AS wall_clock_time,
       x.computation_ns AS compute_time, x.communication_ns AS communication_time,
       x.exposed_comm_ns AS exposed_communication_time, x.idle_ns AS idle_time,
       x.dataloader_ns AS dataloader_time, x.wait_ns AS wait_time
FROM aggr_dl_ranks x
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id
LEFT JOIN dl_gpu_ranks r ON r.device_id = x.device_id
LEFT JOIN gpus g ON g.device_id = x.device_id
LEFT JOIN dl_rank_sources m ON m.device_id = x.device_id;

-- A merge of per-rank dldbs (dlprof --database=DIR, db/dldb_merge_sum.c)
-- keeps every rank's summary and the raw records of a few ranks only (the
-- slowest, the median, the fastest, and those asked for): one row per GPU
-- of a rank, its figures from its own dldb's newest aggregation (as
-- aggr_dl_ranks, ns); source: the rank's dldb, its file name in the merged
-- folder; detail 1: its raw records are in this file. The analysis takes
-- the rows of the ranks without raw records into aggr_dl_ranks,
-- aggr_dl_iter_gpu and (with their collective kernels) aggr_dl_collectives.
-- Empty in any other file.
CREATE TABLE dl_rank_sources (
  device_id        INTEGER PRIMARY KEY,  -- rank x 100 + local_device, as dl_gpu_ranks
  rank             INTEGER NOT NULL,
  gpu_name         TEXT,
  source           TEXT NOT NULL,
  detail           INTEGER NOT NULL,
  origin_ns        INTEGER NOT NULL,      -- its own dldb's dl_meta time_origin_ns
  iterations       INTEGER NOT NULL,
  iter_avg_ns      INTEGER NOT NULL,
  wall_ns          INTEGER NOT NULL,
  computation_ns   INTEGER NOT NULL,
  communication_ns INTEGER NOT NULL,
  exposed_comm_ns  INTEGER NOT NULL,
  idle_ns          INTEGER NOT NULL,
  dataloader_ns    INTEGER NOT NULL
);

-- Per GPU of dl_rank_sources and its own aggregated iteration (as
-- aggr_dl_iter_gpu): the heatmap's cells of a rank without raw records.
CREATE TABLE dl_rank_source_iters (
  device_id        INTEGER NOT NULL,
  iter_value       INTEGER NOT NULL,
  duration_ns      INTEGER NOT NULL,
  kernel_busy_ns   INTEGER NOT NULL,
  communication_ns INTEGER NOT NULL,
  exposed_comm_ns  INTEGER NOT NULL,
  PRIMARY KEY (device_id, iter_value)
) WITHOUT ROWID;

-- Per GPU of dl_rank_sources: its collective kernels (names with "nccl")
-- in its own aggregated iterations, for the matching of collectives across
-- ranks (analysis/dla_coll.c): start_ns after its own dldb's time origin
-- (dl_rank_sources.origin_ns); bytes, group_size, collective as
-- dl_kernel_collectives (bytes: the larger buffer; NULL: not recorded).
CREATE TABLE dl_rank_source_events (
  device_id      INTEGER NOT NULL,
  kernel_name_id INTEGER NOT NULL REFERENCES strings(id),
  start_ns       INTEGER NOT NULL,
  dur_ns         INTEGER NOT NULL,
  bytes          INTEGER,
  group_size     INTEGER,
  collective     TEXT
);

CREATE VIEW view_dl_rank_sources AS
SELECT m.rank, m.device_id, m.source, m.detail
FROM dl_rank_sources m;

-- Per rank and aggregated iteration: the heatmap's cells.
CREATE VIEW view_dl_rank_iterations AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, k.rank, x.device_id, x.iter_value,
       x.duration_ns AS duration, x.kernel_busy_ns AS kernel_busy_time,
       x.communication_ns AS communication_time,
       x.exposed_comm_ns AS exposed_communication_time
FROM aggr_dl_iter_gpu x
JOIN aggr_dl_ranks k ON k.aggr_id = x.aggr_id AND k.device_id = x.device_id
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

CREATE VIEW view_dl_collectives AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, n.value AS kernel_name, x.ranks,
       x.instances, x.time_ns AS total_time, x.avg_ns AS avg, x.skew_avg_ns AS start_skew_avg,
       x.skew_max_ns AS start_skew_max, x.last_rank, x.last_rank_count,
       x.transfer_ns AS transfer_time, x.bytes, x.collective, x.group_size,
       x.alg_bw AS alg_bandwidth, x.bus_bw AS bus_bandwidth, x.link_bw AS link_bandwidth
FROM aggr_dl_collectives x
JOIN strings n ON n.id = x.kernel_name_id
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- ---- dl extensions: op shapes and perf models ----
-- One row per op node and input shapes and types (the PyTorch profiler's
-- "Input Dims", emit_nvtx's "sizes", DLProf's op markers): the instances in
-- the aggregated iterations, their GPU time (kernels and memory operations
-- they launched), and the perf model of one call (FLOPs, bytes moved;
-- docs/dldb.md "Op shapes and perf models"). NULL: no model, or no peaks
-- known for the GPU.
CREATE TABLE aggr_dl_op_shapes (
  aggr_id               INTEGER NOT NULL,
  row_idx               INTEGER NOT NULL,  -- first seen first
  op_idx                INTEGER NOT NULL,
  input_dims            TEXT NOT NULL,     -- as recorded: '[[788, 768], [768, 768], [768]]'
  input_types           TEXT NOT NULL,     -- the inputs' data type as recorded
  model                 TEXT NOT NULL,     -- 'GEMM', 'convolution', ..., 'no model'
  calls                 INTEGER NOT NULL,
  gpu_time              INTEGER NOT NULL,  -- ns, all calls
  device_id             INTEGER,
  flops                 REAL,              -- per call
  bytes                 REAL,              -- per call
  tflops_per_s          REAL,
  tb_per_s              REAL,
  arithmetic_intensity  REAL,              -- FLOP per byte
  peak_tflops_per_s     REAL,              -- the GPU's dense peak for this data type
  peak_tb_per_s         REAL,
  roofline_tflops_per_s REAL,              -- min(peak, intensity * bandwidth)
  pct_of_roofline       REAL,
  bound                 TEXT,              -- 'compute', 'memory', 'unknown GPU', 'unknown type'
  gpu_name              TEXT,              -- the GPU the peaks are of
  PRIMARY KEY (aggr_id, row_idx)
) WITHOUT ROWID;

CREATE VIEW view_dl_op_shapes AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, o.op_node_id, o.op_node_name,
       o.op_node_type, o.direction, x.input_dims, x.input_types, x.model, x.calls,
       x.flops, x.bytes, x.gpu_time,
       CASE WHEN x.calls > 0 THEN x.gpu_time / x.calls END AS gpu_time_avg,
       x.tflops_per_s, x.tb_per_s, x.arithmetic_intensity, x.peak_tflops_per_s,
       x.peak_tb_per_s, x.roofline_tflops_per_s, x.pct_of_roofline, x.bound, x.device_id,
       x.gpu_name, x.row_idx
FROM aggr_dl_op_shapes x
JOIN aggr_ops o ON o.aggr_id = x.aggr_id AND o.op_idx = x.op_idx
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- Model FLOPs per aggregated iteration (the modelled op instances that
-- start in it) and the dense peak model FLOP utilization divides by: that
-- of the data type of the rows with the most FLOPs (NULL: unknown GPU).
CREATE TABLE aggr_dl_iter_flops (
  aggr_id           INTEGER NOT NULL,
  iter_value        INTEGER NOT NULL,
  flops             REAL NOT NULL,
  peak_tflops_per_s REAL,
  PRIMARY KEY (aggr_id, iter_value)
) WITHOUT ROWID;

CREATE VIEW view_dl_iteration_flops AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, x.iter_value,
       i.stop_time - i.start_time AS duration, x.flops,
       CASE WHEN i.stop_time > i.start_time
            THEN x.flops / (i.stop_time - i.start_time) / 1000.0 END AS tflops_per_s,
       x.peak_tflops_per_s,
       CASE WHEN i.stop_time > i.start_time AND x.peak_tflops_per_s > 0
            THEN 100.0 * x.flops / (i.stop_time - i.start_time) / 1000.0 / x.peak_tflops_per_s
            END AS mfu_pct
FROM aggr_dl_iter_flops x
JOIN aggr_iterations i ON i.aggr_id = x.aggr_id AND i.iter_value = x.iter_value
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- Totals per op type of the modelled rows of view_dl_op_shapes.
CREATE VIEW view_dl_op_type_flops AS
SELECT x.aggr_id AS aggr_id, s.value AS domain_name, o.op_node_type, x.model,
       SUM(x.calls) AS calls, SUM(x.flops * x.calls) AS flops, SUM(x.bytes * x.calls) AS bytes,
       SUM(x.gpu_time) AS gpu_time,
       CASE WHEN SUM(x.gpu_time) > 0 THEN SUM(x.flops * x.calls) / SUM(x.gpu_time) / 1000.0 END
         AS tflops_per_s,
       CASE WHEN SUM(x.gpu_time) > 0 THEN SUM(x.bytes * x.calls) / SUM(x.gpu_time) / 1000.0 END
         AS tb_per_s
FROM aggr_dl_op_shapes x
JOIN aggr_ops o ON o.aggr_id = x.aggr_id AND o.op_idx = x.op_idx
JOIN aggregations a ON a.aggr_id = x.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id
WHERE x.flops IS NOT NULL
GROUP BY x.aggr_id, o.op_node_type, x.model;

---------------------------------------------------------------------------
-- The timeline: one row per event drawn, one row per track
---------------------------------------------------------------------------
-- kind: 'gpu_stream' (kernels, memcpys, memsets of one process's device and
-- stream), 'cpu_thread' (the CUDA API calls of one thread), 'cpu_ranges'
-- (the NVTX ranges and framework ops of one thread, nested), 'iterations'
-- (the iterations of the latest aggregation, as a band), 'python_thread'
-- (the Python frames of one thread, nested; category python_function). A track is one
-- (kind, pid, tid, device_id, stream_id); columns that do not apply are
-- NULL. start and dur are ns on the profile's clock. nccl = 1 marks NCCL
-- kernels. event_id: the row id of the event in its own table.
CREATE VIEW view_dl_timeline_events AS
SELECT 'gpu_stream' AS kind, k.pid AS pid, NULL AS tid, k.device_id AS device_id,
       k.stream_id AS stream_id, k.gpu_start_ns AS start, k.gpu_end_ns - k.gpu_start_ns AS dur,
       s.value AS name, 'kernel' AS category, k.id AS event_id,
       CASE WHEN s.value LIKE 'nccl%' OR s.value LIKE '%ncclKernel%' OR s.value LIKE '%ncclDevKernel%'
            THEN 1 ELSE 0 END AS nccl
FROM kernels k JOIN strings s ON s.id = k.short_name_id
UNION ALL
SELECT 'gpu_stream', m.pid, NULL, m.device_id, m.stream_id, m.gpu_start_ns,
       m.gpu_end_ns - m.gpu_start_ns,
       CASE m.copy_kind WHEN 1 THEN 'Memcpy HtoD' WHEN 2 THEN 'Memcpy DtoH'
                        WHEN 8 THEN 'Memcpy DtoD' WHEN 10 THEN 'Memcpy PtoP'
                        ELSE 'Memcpy' END,
       'memcpy', m.id, 0
FROM memcpys m
UNION ALL
SELECT 'gpu_stream', m.pid, NULL, m.device_id, m.stream_id, m.gpu_start_ns,
       m.gpu_end_ns - m.gpu_start_ns, 'Memset', 'memset', m.id, 0
FROM memsets m
UNION ALL
SELECT 'cpu_thread', c.pid, c.tid, NULL, NULL, c.start_ns, c.end_ns - c.start_ns, s.value,
       'cuda_api', c.id, 0
FROM cuda_api_calls c JOIN strings s ON s.id = c.name_id
UNION ALL
SELECT 'cpu_ranges', r.pid, r.tid, NULL, NULL, r.start_ns, r.end_ns - r.start_ns, s.value,
       'range', r.id, 0
FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id
WHERE r.kind <> 3
UNION ALL
SELECT 'iterations', NULL, NULL, NULL, NULL, i.start_time, i.stop_time - i.start_time,
       'iteration ' || i.iter_value, 'iteration', i.iter_value, 0
FROM aggr_iterations i
WHERE i.aggr_id = (SELECT MAX(aggr_id) FROM aggregations)
UNION ALL
SELECT 'python_thread', f.pid, f.tid, NULL, NULL, f.start_ns, f.end_ns - f.start_ns, s.value,
       'python_function', f.id, 0
FROM dl_python_frames f JOIN strings s ON s.id = f.name_id;

-- The tracks and their events as the analysis writes them
-- (db/dldb_tlwrite.c, from the tables above and the latest aggregation's
-- iterations): one row per track, in drawing order (track_id): the
-- iterations, GPU streams (by process, device, stream), CPU threads, their
-- ranges, their Python frames. busy_time is the union of the track's events (ns); first_start
-- and last_end bound them. bin_ns: the finest bins' length (levels of bins:
-- bin_ns << 2 (level - 1), level 1 .. levels; 0: none, few events).
CREATE TABLE dl_timeline_tracks (
  track_id    INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL,
  device_id   INTEGER,
  stream_id   INTEGER,
  pid         INTEGER,
  tid         INTEGER,
  name        TEXT NOT NULL,
  event_count INTEGER NOT NULL,
  busy_time   INTEGER NOT NULL,
  first_start INTEGER NOT NULL,
  last_end    INTEGER NOT NULL,
  nccl_count  INTEGER NOT NULL,
  bin_ns      INTEGER NOT NULL,
  levels      INTEGER NOT NULL
);

-- A track's events (level 0) and bins (levels 1 ..), DLDB_TL_BLOCK of them
-- a row in start order, packed (db/dldb_tlpack.h): start is the first
-- one's start, end the largest end in the row (ns), n how many. A window
-- reads the rows of its track and level with start < its end and end at or
-- after its start, by the index.
CREATE TABLE dl_timeline_blocks (
  track_id INTEGER NOT NULL,
  level    INTEGER NOT NULL,
  start    INTEGER NOT NULL,
  end      INTEGER NOT NULL,
  n        INTEGER NOT NULL,
  data     BLOB NOT NULL
);
CREATE INDEX dl_timeline_blocks_by_time ON dl_timeline_blocks(track_id, level, start, end);

CREATE VIEW view_dl_timeline_tracks AS
SELECT track_id, kind, device_id, stream_id, pid, tid, name, event_count, busy_time,
       first_start, last_end, nccl_count, bin_ns, levels
FROM dl_timeline_tracks;

CREATE VIEW view_dl_timeline_blocks AS
SELECT track_id, level, start, end, n, data FROM dl_timeline_blocks;

-- The texts the blocks' tags name (dldb_tlpack.h).
CREATE VIEW view_dl_timeline_names AS
SELECT id, value AS name FROM strings;

-- The details of one event the Timeline page selects (by event_id, the row
-- id in its own table), and the links between a CUDA call and the kernels
-- it launched (through the newest aggregation's aggr_kernels: the call's
-- start, the kernel's op).
CREATE VIEW view_dl_timeline_kernel_details AS
SELECT k.id AS event_id, k.pid AS pid, k.device_id AS device_id, k.stream_id AS stream_id,
       k.gpu_start_ns AS start, k.gpu_end_ns - k.gpu_start_ns AS dur, s.value AS name,
       l.value AS long_name, k.grid_x AS grid_x, k.grid_y AS grid_y, k.grid_z AS grid_z,
       k.block_x AS block_x, k.block_y AS block_y, k.block_z AS block_z,
       k.registers_per_thread AS registers_per_thread, k.static_smem_bytes AS static_smem_bytes,
       k.dynamic_smem_bytes AS dynamic_smem_bytes, k.correlation_id AS correlation_id
FROM kernels k JOIN strings s ON s.id = k.short_name_id JOIN strings l ON l.id = k.long_name_id;

CREATE VIEW view_dl_timeline_memcpy_details AS
SELECT m.id AS event_id, m.pid AS pid, m.device_id AS device_id, m.stream_id AS stream_id,
       m.gpu_start_ns AS start, m.gpu_end_ns - m.gpu_start_ns AS dur, m.bytes AS bytes,
       m.copy_kind AS copy_kind, m.src_kind AS src_kind, m.dst_kind AS dst_kind,
       m.correlation_id AS correlation_id
FROM memcpys m;

CREATE VIEW view_dl_timeline_memset_details AS
SELECT m.id AS event_id, m.pid AS pid, m.device_id AS device_id, m.stream_id AS stream_id,
       m.gpu_start_ns AS start, m.gpu_end_ns - m.gpu_start_ns AS dur, m.bytes AS bytes,
       m.value AS value, m.correlation_id AS correlation_id
FROM memsets m;

CREATE VIEW view_dl_timeline_call_details AS
SELECT c.id AS event_id, c.pid AS pid, c.tid AS tid, c.start_ns AS start,
       c.end_ns - c.start_ns AS dur, s.value AS name, c.correlation_id AS correlation_id,
       c.return_value AS return_value
FROM cuda_api_calls c JOIN strings s ON s.id = c.name_id;

CREATE VIEW view_dl_timeline_range_details AS
SELECT r.id AS event_id, r.pid AS pid, r.tid AS tid, r.start_ns AS start,
       r.end_ns - r.start_ns AS dur, s.value AS name, d.value AS domain, st.value AS call_stack
FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id
JOIN domains dm ON dm.id = r.domain_id JOIN strings d ON d.id = dm.name_id
LEFT JOIN nvtx_range_stacks k ON k.range_id = r.id LEFT JOIN strings st ON st.id = k.stack_id;

-- A Python frame: its name as the trace has it ("file(line): function"),
-- times and the trace's Python ids; its enclosing frames are read from its
-- track (db/dldb_tlpyframe.c).
CREATE VIEW view_dl_timeline_python_details AS
SELECT f.id AS event_id, f.pid AS pid, f.tid AS tid, f.start_ns AS start,
       f.end_ns - f.start_ns AS dur, s.value AS name, f.python_id AS python_id,
       f.parent_python_id AS parent_python_id
FROM dl_python_frames f JOIN strings s ON s.id = f.name_id;

CREATE VIEW view_dl_timeline_launches AS
SELECT a.aggr_id AS aggr_id, a.iter_value AS iter_value, a.kernel_id AS kernel_id,
       a.api_start_ns AS api_start, a.api_dur_ns AS api_dur, o.op_node_id AS op_node_id,
       o.op_node_name AS op_node_name, o.op_node_type AS op_node_type
FROM aggr_kernels a LEFT JOIN aggr_ops o ON o.aggr_id = a.aggr_id AND o.op_idx = a.op_idx;

CREATE VIEW view_dl_timeline_iterations AS
SELECT aggr_id, iter_value, start_time FROM aggr_iterations;

-- The rule of each expert finding (view_expert_systems' rows, in seq
-- order): the Timeline page opens a finding's evidence by its rule
-- (db/dldb_tlfocus.c).
CREATE VIEW view_dl_findings AS
SELECT aggr_id, seq, rule_id FROM aggr_findings;

-- ---- dl extensions: the kernel lists' groups (db/dldb_kgroups.c) ----
-- An aggregation's kernel launches in groups that agree on every column the
-- kernel lists sort by but launch time and duration: op, kernel name,
-- device, grid, block, tensor-core use. A page of those lists sorted by
-- such a column (and by device_id, kernel_name after it) is the groups in
-- that order, each group's launches in any order: the page's first group is
-- found by summing `calls`, and its rows are read at their place in the
-- group (aggr_dl_kernel_seq_chunks), whatever the page's depth. Written at
-- the end of each aggregation. Optional: files without them sort the plain
-- way.
CREATE TABLE aggr_dl_kernel_groups (
  aggr_id   INTEGER NOT NULL,
  group_id  INTEGER NOT NULL,   -- from 1, in the order of the groups' first launches
  op_idx    INTEGER NOT NULL,
  kernel_id INTEGER NOT NULL,   -- the group's first launch (its name, device, grid, block)
  uses_tc   BOOLEAN NOT NULL,
  calls     INTEGER NOT NULL,   -- launches in the group
  PRIMARY KEY (aggr_id, group_id)
) WITHOUT ROWID;

-- Each launch of an aggregation by group and, within the group, launch
-- order (the order of aggr_kernels_by_time), 128 places a row: chunk c of
-- a group holds its places c * 128.. as a JSON array of [iter_value,
-- kernel_id] (aggr_kernels' key). Rows are written in key order
-- (db/dldb_pchunks.c), so a scan of the rowids reads them in it too.
CREATE TABLE aggr_dl_kernel_seq_chunks (
  aggr_id  INTEGER NOT NULL,
  group_id INTEGER NOT NULL,
  chunk    INTEGER NOT NULL,
  launches TEXT NOT NULL,
  PRIMARY KEY (aggr_id, group_id, chunk)
);

-- The launch time of every 1024th launch of an aggregation in launch order
-- (place 0, 1024, ...; aggr_kernels_by_time's order): a deep page in launch
-- order starts its walk of the index there, not at the first launch.
CREATE TABLE aggr_dl_kernel_marks (
  aggr_id      INTEGER NOT NULL,
  place        INTEGER NOT NULL,
  api_start_ns INTEGER NOT NULL,
  PRIMARY KEY (aggr_id, place)
) WITHOUT ROWID;

CREATE VIEW view_dl_kernel_marks AS
SELECT m.aggr_id AS aggr_id, s.value AS domain_name, m.place, m.api_start_ns AS kernel_timestamp
FROM aggr_dl_kernel_marks m
JOIN aggregations a ON a.aggr_id = m.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- The groups, with the columns of view_iteration_kernels and
-- view_iteration_op_kernels they agree on (the same expressions).
CREATE VIEW view_dl_kernel_groups AS
SELECT g.aggr_id AS aggr_id, s.value AS domain_name, g.group_id, o.op_node_name, o.op_node_id,
       n.value AS kernel_name, k.device_id, g.uses_tc,
       k.grid_x || ', ' || k.grid_y || ', ' || k.grid_z AS grid,
       k.block_x || ', ' || k.block_y || ', ' || k.block_z AS block, g.calls
FROM aggr_dl_kernel_groups g
JOIN kernels k ON k.id = g.kernel_id
JOIN strings n ON n.id = k.short_name_id
JOIN aggr_ops o ON o.aggr_id = g.aggr_id AND o.op_idx = g.op_idx
JOIN aggregations a ON a.aggr_id = g.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- The groups' launches in launch order as stored, a chunk a row (the
-- viewer reads a page's places from them).
CREATE VIEW view_dl_kernel_seq_chunks AS
SELECT aggr_id, group_id, chunk, launches FROM aggr_dl_kernel_seq_chunks;

-- The rows of view_iteration_kernels and view_iteration_op_kernels (every
-- column of both) by aggr_kernels' key (aggr_id, iter_value, kernel_id):
-- the viewer reads a page's rows by the keys of its places.
CREATE VIEW view_dl_kernel_launch_rows AS
SELECT ak.aggr_id AS aggr_id, s.value AS domain_name, ak.iter_value, ak.kernel_id,
       o.op_node_name, o.op_node_id, n.value AS kernel_name, k.device_id,
       ak.api_start_ns AS kernel_timestamp,
       (k.gpu_end_ns - k.gpu_start_ns) AS kernel_duration, ak.uses_tc,
       k.grid_x || ', ' || k.grid_y || ', ' || k.grid_z AS grid,
       k.block_x || ', ' || k.block_y || ', ' || k.block_z AS block
FROM aggr_kernels ak
JOIN kernels k ON k.id = ak.kernel_id
JOIN strings n ON n.id = k.short_name_id
JOIN aggr_ops o ON o.aggr_id = ak.aggr_id AND o.op_idx = ak.op_idx
JOIN aggregations a ON a.aggr_id = ak.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- The launch time by the same key (view_dl_kernel_launch_rows without its
-- other joins): a page of one kernel's or op's launches in launch order
-- searches its groups' places by it.
CREATE VIEW view_dl_kernel_launch_times AS
SELECT aggr_id, iter_value, kernel_id, api_start_ns AS kernel_timestamp FROM aggr_kernels;

-- The rows of view_iteration_kernels and view_iteration_op_kernels (every
-- column of both) by group and place in the group (group_seq), each
-- chunk's places in turn (CROSS JOIN: the chunks, their places, then each
-- place's launch by aggr_kernels' key). Optional for readers (the viewer
-- reads the chunks).
CREATE VIEW view_dl_kernel_group_rows AS
SELECT q.aggr_id AS aggr_id, s.value AS domain_name, q.group_id,
       q.chunk * 128 + j.key AS group_seq, ak.iter_value, o.op_node_name, o.op_node_id,
       n.value AS kernel_name, k.device_id, ak.api_start_ns AS kernel_timestamp,
       (k.gpu_end_ns - k.gpu_start_ns) AS kernel_duration, ak.uses_tc,
       k.grid_x || ', ' || k.grid_y || ', ' || k.grid_z AS grid,
       k.block_x || ', ' || k.block_y || ', ' || k.block_z AS block
FROM aggr_dl_kernel_seq_chunks q
CROSS JOIN json_each(q.launches) j
CROSS JOIN aggr_kernels ak ON ak.aggr_id = q.aggr_id AND ak.iter_value = j.value ->> 0
  AND ak.kernel_id = j.value ->> 1
JOIN kernels k ON k.id = ak.kernel_id
JOIN strings n ON n.id = k.short_name_id
JOIN aggr_ops o ON o.aggr_id = ak.aggr_id AND o.op_idx = ak.op_idx
JOIN aggregations a ON a.aggr_id = q.aggr_id
JOIN domains d ON d.id = a.domain_id
JOIN strings s ON s.id = d.name_id;

-- The launch time at each place of each group (view_dl_kernel_group_rows
-- without its other joins).
CREATE VIEW view_dl_kernel_group_times AS
SELECT q.aggr_id AS aggr_id, q.group_id, q.chunk * 128 + j.key AS group_seq,
       ak.api_start_ns AS kernel_timestamp
FROM aggr_dl_kernel_seq_chunks q
CROSS JOIN json_each(q.launches) j
CROSS JOIN aggr_kernels ak ON ak.aggr_id = q.aggr_id AND ak.iter_value = j.value ->> 0
  AND ak.kernel_id = j.value ->> 1;

-- ---- dl extensions: each kernel group's launches by duration (db/dldb_kgdurs.c) ----
-- The launches of each group of aggr_dl_kernel_groups in duration order
-- (from 0; equal durations in launch order), 128 places a row: chunk c of
-- a group holds its places c * 128.. as a JSON array of [duration, place
-- in launch order] (the duration: kernels.gpu_end_ns - gpu_start_ns; the
-- place: its group_seq). A page of one kernel's or op's launches sorted by
-- duration finds the durations at its first and last row by a search of
-- its groups' places, whatever the page's depth. Written at the end of
-- each aggregation, after the groups, in key order. Optional: files
-- without it sort the plain way.
CREATE TABLE aggr_dl_kernel_dseq_chunks (
  aggr_id  INTEGER NOT NULL,
  group_id INTEGER NOT NULL,
  chunk    INTEGER NOT NULL,
  launches TEXT NOT NULL,
  PRIMARY KEY (aggr_id, group_id, chunk)
);

CREATE VIEW view_dl_kernel_dseq_chunks AS
SELECT aggr_id, group_id, chunk, launches FROM aggr_dl_kernel_dseq_chunks;

-- The duration at each place of each group in duration order.
CREATE VIEW view_dl_kernel_group_durs AS
SELECT aggr_id, group_id, chunk * 128 + j.key AS group_dseq, j.value ->> 0 AS kernel_duration
FROM aggr_dl_kernel_dseq_chunks CROSS JOIN json_each(launches) j;

-- The rows of view_iteration_kernels and view_iteration_op_kernels (every
-- column of both) by group and place in the group in duration order
-- (group_dseq).
CREATE VIEW view_dl_kernel_group_drows AS
SELECT d.aggr_id AS aggr_id, s.value AS domain_name, d.group_id,
       d.chunk * 128 + j.key AS group_dseq, ak.iter_value, o.op_node_name, o.op_node_id,
       n.value AS kernel_name, k.device_id, ak.api_start_ns AS kernel_timestamp,
       (k.gpu_end_ns - k.gpu_start_ns) AS kernel_duration, ak.uses_tc,
       k.grid_x || ', ' || k.grid_y || ', ' || k.grid_z AS grid,
       k.block_x || ', ' || k.block_y || ', ' || k.block_z AS block
FROM aggr_dl_kernel_dseq_chunks d
CROSS JOIN json_each(d.launches) j
CROSS JOIN aggr_dl_kernel_seq_chunks q ON q.aggr_id = d.aggr_id AND q.group_id = d.group_id
  AND q.chunk = (j.value ->> 1) / 128
CROSS JOIN aggr_kernels ak ON ak.aggr_id = d.aggr_id
  AND ak.iter_value = json_extract(q.launches, '$[' || ((j.value ->> 1) % 128) || '][0]')
  AND ak.kernel_id = json_extract(q.launches, '$[' || ((j.value ->> 1) % 128) || '][1]')
JOIN kernels k ON k.id = ak.kernel_id
JOIN strings n ON n.id = k.short_name_id
JOIN aggr_ops o ON o.aggr_id = ak.aggr_id AND o.op_idx = ak.op_idx
JOIN aggregations a ON a.aggr_id = d.aggr_id
JOIN domains d2 ON d2.id = a.domain_id
JOIN strings s ON s.id = d2.name_id;
