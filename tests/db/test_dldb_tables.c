/*
 * test_dldb_tables - every table, index and view the code creates is
 * declared in db/schema.sql: the schema run on its own, a file written by
 * an importer's writer (raw records, OS runtime calls, occupancy), that
 * file after an aggregation, and a live store (side tables filled,
 * finished, then aggregated) all have exactly the same set.
 *
 * Usage: test_dldb_tables SCHEMA_SQL WORK_DIR
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dldb_aggr.h"
#include "dldb_scan.h"
#include "dldb_write.h"
#include "dldb_write_live.h"
#include "test.h"

static const char *schema_path, *work_dir;
static char schema_set[16384]; /* what schema.sql declares */

static void path_in(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", work_dir, name);
}

/* "type name" of every table, index and view but SQLite's own, sorted,
 * one a line, into buf. 0 on success. */
static int objects_of(sqlite3 *db, char *buf, size_t n) {
  sqlite3_stmt *st = NULL;
  size_t used = 0;
  buf[0] = '\0';
  if (sqlite3_prepare_v2(db,
                         "SELECT type || ' ' || name FROM sqlite_master WHERE type IN "
                         "('table', 'index', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                         "ORDER BY 1",
                         -1, &st, NULL) != SQLITE_OK)
    return 1;
  while (sqlite3_step(st) == SQLITE_ROW) {
    int w = snprintf(buf + used, n - used, "%s\n", (const char *)sqlite3_column_text(st, 0));
    if (w < 0 || (size_t)w >= n - used) break;
    used += (size_t)w;
  }
  return sqlite3_finalize(st) != SQLITE_OK;
}

static int file_objects(const char *path, char *buf, size_t n) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
           objects_of(db, buf, n);
  sqlite3_close(db);
  return rc;
}

static int load_schema(void) {
  FILE *f = fopen(schema_path, "rb");
  ASSERT_NOT_NULL(f);
  static char sql[1 << 20];
  size_t n = fread(sql, 1, sizeof sql - 1, f);
  fclose(f);
  ASSERT(n > 0 && n < sizeof sql - 1);
  sql[n] = '\0';
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  ASSERT_OK(objects_of(db, schema_set, sizeof schema_set));
  sqlite3_close(db);
  /* the side tables of the live store are among them */
  ASSERT_NOT_NULL(strstr(schema_set, "table cupti_external_correlations\n"));
  ASSERT_NOT_NULL(strstr(schema_set, "view view_op_nodes\n"));
  return 0;
}

/* One aggregation with a row in the derived tables of every kind. */
static int aggregate_rows(dldb_writer *w) {
  char err[256];
  int64_t dom = 0, aggr = 0, kname = 0;
  ASSERT_OK(dldb_scan_first_domain(w, &dom, err, sizeof err));
  ASSERT_OK(dldb_writer_intern(w, "k1", &kname, err, sizeof err));
  dldb_aggr_row a = {.domain_id = dom, .key_node_name = "", .user_name = "u", .host_name = "h",
                     .aggr_start = "2026-01-01 00:00:00", .tc_rules = "t"};
  ASSERT_OK(dldb_aggr_begin(w, &a, &aggr, err, sizeof err));
  dldb_summary_row s = {.key_node = ""};
  ASSERT_OK(dldb_aggr_summary(w, aggr, &s, err, sizeof err));
  dldb_iteration_row it = {.profiled = 1};
  ASSERT_OK(dldb_aggr_iteration(w, aggr, &it, err, sizeof err));
  dldb_op_row op = {.op_node_id = "1", .op_node_name = "op", .direction = "fprop",
                    .op_node_type = "t", .data_type = "float32", .stack_trace = ""};
  ASSERT_OK(dldb_aggr_op(w, aggr, &op, err, sizeof err));
  dldb_kernel_attr_row ka = {.kernel_id = 1, .api_dur_ns = -1};
  ASSERT_OK(dldb_aggr_kernel(w, aggr, &ka, err, sizeof err));
  dldb_iter_op_row io = {0};
  ASSERT_OK(dldb_aggr_iter_op(w, aggr, &io, err, sizeof err));
  dldb_op_kernel_row ok = {.kernel_name_id = kname, .api_min = -1, .api_max = -1};
  ASSERT_OK(dldb_aggr_op_kernel(w, aggr, &ok, err, sizeof err));
  dldb_group_row g = {.row_type = 2, .row_full_id = "1", .row_full_name = "op",
                      .row_trimmed_name = "op"};
  ASSERT_OK(dldb_aggr_group(w, aggr, &g, err, sizeof err));
  dldb_op_type_row ot = {.op_node_type = "t"};
  ASSERT_OK(dldb_aggr_op_type(w, aggr, &ot, err, sizeof err));
  dldb_gpu_util_row gu = {0};
  ASSERT_OK(dldb_aggr_gpu(w, aggr, &gu, err, sizeof err));
  dldb_finding_row f = {.rule_id = "r", .problem = "p", .recommendation = "r",
                        .javascript_function = "", .javascript_args = ""};
  ASSERT_OK(dldb_aggr_finding(w, aggr, 0, &f, err, sizeof err));
  dldb_dl_gpu_row dg = {.est_sm_efficiency = NAN, .est_achieved_occupancy = NAN};
  ASSERT_OK(dldb_aggr_dl_gpus(w, aggr, &dg, 1, err, sizeof err));
  dldb_dl_iter_gpu_row dig = {.est_sm_efficiency = NAN, .est_achieved_occupancy = NAN};
  ASSERT_OK(dldb_aggr_dl_iter_gpus(w, aggr, &dig, 1, err, sizeof err));
  dldb_dl_kernel_row dk = {.kernel_name_id = kname, .blocks_per_sm = NAN,
                           .est_achieved_occupancy = NAN, .est_sm_efficiency = NAN};
  ASSERT_OK(dldb_aggr_dl_kernels(w, aggr, &dk, 1, err, sizeof err));
  int64_t name = kname;
  ASSERT_OK(dldb_aggr_dl_iter_names(w, aggr, &name, 1, err, sizeof err));
  dldb_stats_row sr[2] = {{.kind = DLDB_STATS_KERNEL, .name_id = kname, .t.n = 1},
                          {.kind = DLDB_STATS_NVTX, .name_id = kname, .t.n = 1}};
  ASSERT_OK(dldb_aggr_stats(w, aggr, sr, 2, err, sizeof err));
  dldb_stats_api_op_row ao = {.name_id = kname};
  ASSERT_OK(dldb_aggr_stats_api_ops(w, aggr, &ao, 1, err, sizeof err));
  ASSERT_OK(dldb_aggr_end(w, err, sizeof err));
  return 0;
}

static int aggregate(const char *path) {
  char err[256];
  dldb_writer *w = NULL;
  ASSERT_OK(dldb_writer_open_existing(path, &w, err, sizeof err));
  dldb_writer_begin_reads(w);
  if (aggregate_rows(w)) {
    dldb_writer_abort(&w);
    return 1;
  }
  dldb_writer_end_reads(w);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  return 0;
}

/* An importer's file: raw records of every kind, then an aggregation. */
static int test_import_path(void) {
  char path[1024], err[256];
  static char got[sizeof schema_set];
  path_in(path, sizeof path, "tables_import.sqlite");
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  dldb_sysconfig c = {.num_gpus = 1, .mode_string = "simple"};
  ASSERT_OK(dldb_write_sysconfig(w, &c, err, sizeof err));
  dldb_gpu g = {.name = "GPU"};
  ASSERT_OK(dldb_write_gpu(w, &g, err, sizeof err));
  dldb_thread t = {.pid = 1, .tid = 2, .name = "main"};
  ASSERT_OK(dldb_write_thread(w, &t, err, sizeof err));
  int64_t rid = 0, sid = 0;
  dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = "op", .start_ns = 1, .end_ns = 9,
                       .pid = 1, .tid = 2};
  ASSERT_OK(dldb_write_nvtx_range(w, &r, &rid, err, sizeof err));
  ASSERT_OK(dldb_write_range_stack(w, rid, "f(1): g", 0, err, sizeof err));
  dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = 2, .end_ns = 3, .pid = 1, .tid = 2,
                     .correlation_id = 1};
  ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
  dldb_kernel k = {.short_name = "k1", .gpu_start_ns = 4, .gpu_end_ns = 5, .correlation_id = 1,
                   .pid = 1, .grid = {1, 1, 1}, .block = {1, 1, 1}};
  ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  dldb_occ_writer *occ = NULL;
  ASSERT_OK(dldb_occ_writer_open(w, &occ, err, sizeof err));
  ASSERT_OK(dldb_occ_write(occ, 1.0, 50.0, err, sizeof err));
  dldb_occ_writer_close(&occ);
  dldb_memcpy m = {.bytes = 8, .gpu_start_ns = 5, .gpu_end_ns = 6};
  ASSERT_OK(dldb_write_memcpy(w, &m, err, sizeof err));
  dldb_memset ms = {.bytes = 8, .gpu_start_ns = 6, .gpu_end_ns = 7};
  ASSERT_OK(dldb_write_memset(w, &ms, err, sizeof err));
  dldb_sync sy = {.start_ns = 7, .end_ns = 8};
  ASSERT_OK(dldb_write_sync(w, &sy, err, sizeof err));
  ASSERT_OK(dldb_writer_intern(w, "read", &sid, err, sizeof err));
  dldb_osrt_writer *os = NULL;
  ASSERT_OK(dldb_osrt_writer_open(w, &os, err, sizeof err));
  dldb_osrt_call oc = {.name_id = sid, .start_ns = 1, .end_ns = 2, .pid = 1, .tid = 2};
  ASSERT_OK(dldb_osrt_write(os, &oc, err, sizeof err));
  dldb_osrt_writer_close(&os);
  ASSERT_OK(dldb_write_meta(w, "k", "v", err, sizeof err));
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  ASSERT_OK(file_objects(path, got, sizeof got));
  ASSERT_STR_EQ(got, schema_set);
  if (aggregate(path)) return 1;
  ASSERT_OK(file_objects(path, got, sizeof got));
  ASSERT_STR_EQ(got, schema_set);
  unlink(path);
  return 0;
}

/* The live collector's store: created, filled (side tables too), closed,
 * finished, then aggregated. */
static int test_live_path(void) {
  char path[1024], final[1024], err[256];
  static char got[sizeof schema_set];
  path_in(path, sizeof path, "tables_live.sqlite.part");
  path_in(final, sizeof final, "tables_live.sqlite");
  unlink(path);
  unlink(final);
  dldb_write_opts o = {.producer = "test"};
  dldb_sysconfig c = {.num_gpus = 1, .mode_string = "simple"};
  ASSERT_OK(dldb_live_create(path, &o, &c, err, sizeof err));
  dldb_live *l = NULL;
  int64_t first = 0, name = 0;
  ASSERT_OK(dldb_live_open(path, &l, &first, err, sizeof err));
  dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = "op", .start_ns = 1, .end_ns = 9,
                       .pid = 1, .tid = 2};
  ASSERT_OK(dldb_live_nvtx_range(l, first, &r, err, sizeof err));
  ASSERT_OK(dldb_writer_intern(dldb_live_writer(l), "k1", &name, err, sizeof err));
  dldb_kernel k = {.short_name_id = name, .long_name_id = name, .gpu_start_ns = 4,
                   .gpu_end_ns = 5, .correlation_id = 1, .pid = 1};
  ASSERT_OK(dldb_live_kernel(l, &k, err, sizeof err));
  dldb_api_call a = {.name_id = name, .start_ns = 2, .end_ns = 3, .pid = 1, .tid = 2,
                     .correlation_id = 1};
  ASSERT_OK(dldb_live_api_call(l, &a, err, sizeof err));
  ASSERT_OK(dldb_live_context(l, 1, 0, 7, err, sizeof err));
  ASSERT_OK(dldb_live_overhead(l, 1, 1, 1, 2, err, sizeof err));
  ASSERT_OK(dldb_live_external_correlation(l, 1, 3, first, err, sizeof err));
  ASSERT_OK(dldb_live_category(l, NULL, 1, "cat", err, sizeof err));
  ASSERT_OK(dldb_live_close(&l, err, sizeof err));
  ASSERT_OK(dldb_live_finish(path, final, 0, err, sizeof err));
  ASSERT_OK(file_objects(final, got, sizeof got));
  ASSERT_STR_EQ(got, schema_set);
  if (aggregate(final)) return 1;
  ASSERT_OK(file_objects(final, got, sizeof got));
  ASSERT_STR_EQ(got, schema_set);
  unlink(final);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_dldb_tables SCHEMA_SQL WORK_DIR\n");
    return 2;
  }
  schema_path = argv[1];
  work_dir = argv[2];
  if (load_schema()) return 1;
  RUN(test_import_path);
  RUN(test_live_path);
  TEST_DONE();
}
