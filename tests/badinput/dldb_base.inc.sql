-- dldb_base.inc.sql - a small NVIDIA DLProf-style dldb (marker table,
-- version, aggregations, domains and a few views) that the dldb_*.sql
-- fixtures include and then damage.
CREATE TABLE read_only_system_config(is_valid BOOLEAN, num_gpus TEXT, cpu_model TEXT,
  mode_string TEXT, profile_name TEXT);
INSERT INTO read_only_system_config VALUES (1, '1', 'Test CPU', 'pytorch', 'bad');
CREATE VIEW view_system_config AS SELECT * FROM read_only_system_config;
CREATE TABLE db_version(current_version TEXT, original_version TEXT);
INSERT INTO db_version VALUES ('1.8.0', '1.8.0');
CREATE VIEW view_db_version AS SELECT current_version, original_version FROM db_version;
CREATE TABLE aggregations(aggr_id INTEGER, iter_start INTEGER, iter_stop INTEGER, key_node_name TEXT);
INSERT INTO aggregations VALUES (1, 0, 9, '');
CREATE VIEW view_aggregations AS SELECT * FROM aggregations;
CREATE TABLE domains(domain_name TEXT);
INSERT INTO domains VALUES ('default-domain');
CREATE VIEW view_domains AS SELECT domain_name FROM domains;
CREATE TABLE ops(aggr_id INTEGER, domain_name TEXT, gpu_time INTEGER, cpu_time INTEGER,
  op_node_name TEXT, op_node_type TEXT, op_node_id TEXT, stack_trace TEXT);
INSERT INTO ops VALUES (1, 'default-domain', 500, 10, '/net/conv2d', 'conv2d', 'CONV2D_1', 'a.py:1'),
  (1, 'default-domain', 300, 20, '/net/linear', 'linear', 'LINEAR_1', 'b.py:2');
CREATE VIEW view_op_nodes AS SELECT * FROM ops;
CREATE TABLE perf(aggr_id INTEGER, domain_name TEXT, wall_clock_time INTEGER, gpu_utilization REAL, key_node TEXT);
INSERT INTO perf VALUES (1, 'default-domain', 1000000, 0.5, '');
CREATE VIEW view_performance_summary AS SELECT * FROM perf;
