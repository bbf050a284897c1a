-- mini.dldb.sql - a tiny NVIDIA-style dldb for the viewer's unit and HTTP
-- tests: the marker table, a few views with DLProf's names, values at the
-- edges (int64 max, infinity, NULL, untyped computed columns, launch
-- dimensions that sort differently as text and as numbers) and names with
-- %, _, quotes, commas, newlines and HTML. Views absent here (group_ops, ...)
-- test view_missing.
CREATE TABLE read_only_system_config(is_valid BOOLEAN, num_gpus TEXT, cpu_model TEXT,
  mode_string TEXT, profile_name TEXT);
INSERT INTO read_only_system_config VALUES (1, '2', 'Test CPU', 'pytorch', 'mini');
CREATE VIEW view_system_config AS SELECT * FROM read_only_system_config;

CREATE TABLE db_version(current_version TEXT, original_version TEXT);
INSERT INTO db_version VALUES ('1.8.0', '1.7.0');
CREATE VIEW view_db_version AS SELECT current_version, original_version FROM db_version;

CREATE TABLE aggregations(aggr_id INTEGER, iter_start INTEGER, iter_stop INTEGER,
  key_node_name TEXT);
INSERT INTO aggregations VALUES (1, 0, 9, ''), (2, 3, 5, 'conv');
CREATE VIEW view_aggregations AS SELECT * FROM aggregations;

CREATE TABLE domains(domain_name TEXT);
INSERT INTO domains VALUES ('default-domain'), ('other domain');
CREATE VIEW view_domains AS SELECT domain_name FROM domains;

CREATE TABLE perf(aggr_id INTEGER, domain_name TEXT, wall_clock_time INTEGER,
  gpu_utilization REAL, key_node TEXT);
INSERT INTO perf VALUES (2, 'default-domain', 9223372036854775807, 0.125, 'conv'),
                        (1, 'default-domain', -9223372036854775808, 9e999, NULL);
CREATE VIEW view_performance_summary AS SELECT * FROM perf;

CREATE TABLE ops(aggr_id INTEGER, domain_name TEXT, gpu_time INTEGER, cpu_time INTEGER,
  op_node_name TEXT, op_node_type TEXT, op_node_id TEXT, stack_trace TEXT);
INSERT INTO ops VALUES
  (2, 'default-domain', 500, 10, '/net/conv2d', 'conv2d', 'CONV2D_1', 'a.py:1'),
  (2, 'default-domain', 300, 20, '/net/100%_done', 'linear', 'LINEAR_1', 'b.py:2'),
  (2, 'default-domain', 300, 30, '/net/x_y', 'linear', 'LINEAR_2', 'c.py:3'),
  (2, 'default-domain', 100, 40, '/net/"quoted", comma', 'relu', 'RELU_1', 'line1' || char(10) || 'line2'),
  (2, 'default-domain', 50, 50, '/net/<img src=x onerror=alert(1)>', 'Weird''Type', 'WEIRD_1', ''),
  (2, 'other domain', 7, 60, '/other/op', 'conv2d', 'CONV2D_9', ''),
  (1, 'default-domain', 1, 70, '/old/op', 'conv2d', 'CONV2D_1', '');
CREATE VIEW view_op_nodes AS SELECT * FROM ops;

CREATE TABLE kernels(aggr_id INTEGER, domain_name TEXT, iter_value INTEGER,
  kernel_name TEXT, device_id INTEGER, start INTEGER, stop INTEGER,
  gx INTEGER, gy INTEGER, gz INTEGER, bx INTEGER, bytes INTEGER);
INSERT INTO kernels VALUES
  (2, 'default-domain', 3, 'k_a', 0, 100, 150, 10, 1, 1, 128, 0),
  (2, 'default-domain', 3, 'k_b', 0, 200, 210, 2, 1, 1, 64, 0),
  (2, 'default-domain', 4, 'k_c', 0, 300, 400, 1, 64, 1, 256, 0),
  (2, 'default-domain', 4, 'k_d', 1, 300, 301, 1, 8, 1, 32, 0);
CREATE VIEW view_iteration_kernels AS
  SELECT aggr_id, domain_name, iter_value, kernel_name, device_id,
         start AS kernel_timestamp, (stop - start) AS kernel_duration,
         gx || ', ' || gy || ', ' || gz AS grid, bx || ', 1, 1' AS block
  FROM kernels;
