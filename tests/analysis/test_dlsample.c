/*
 * test_dlsample - dlsample end to end: its output opens, has many
 * iterations, tensor-core kernels with amp and none with fp32 (with the AMP
 * finding), memcpys, a dataloader finding, hostile names stored verbatim,
 * Group Ops orders placed as SQLite orders them, and it refuses to
 * overwrite without --force.
 * Usage: test_dlsample PATH_TO_DLSAMPLE WORK_DIR
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

static const char *dlsample, *work_dir;

static int run(const char *args, const char *out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' %s '%s/%s' > /dev/null", dlsample, args, work_dir, out);
  return system(cmd);
}

static int64_t q_int(const char *file, const char *sql) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", work_dir, file);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int64_t v = -999;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  else
    fprintf(stderr, "%s: %s: %s\n", file, sql, db ? sqlite3_errmsg(db) : "open failed");
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

/* Every place of the Group Ops orders (aggr_dl_group_orders, their JSON
 * lists read by json_each) against SQLite's own window over the same
 * order: each column ascending and descending, among all rows and among
 * each parent's; and every chunk but an order's last full, its n the
 * order's places. */
static int group_places_match(const char *file) {
  static const char *const cols[] = {
      "cpu_overhead_sum", "cpu_time_sum",     "gpu_idle_sum",           "gpu_time_sum",
      "level",            "num_op_instances", "num_supported_leaf_ops", "num_tc_leaf_ops",
      "row_full_id",      "row_full_name",    "row_trimmed_name",       "row_type"};
  int64_t rows = q_int(file, "SELECT count(*) FROM aggr_group_ops WHERE aggr_id = 1");
  int64_t parents = q_int(file, "SELECT count(*) FROM aggr_dl_group_parents WHERE aggr_id = 1");
  ASSERT(rows > 128 && parents > 3);
  ASSERT_EQ(q_int(file, "SELECT count(*) FROM aggr_dl_group_orders o WHERE json_array_length("
                        "o.row_idxs) <> min(128, o.n - o.chunk * 128) OR o.chunk * 128 >= o.n"),
            0);
  char sql[1280];
  for (size_t c = 0; c < sizeof cols / sizeof *cols; c++)
    for (int desc = 0; desc < 2; desc++)
      for (int tree = 0; tree < 2; tree++) {
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM (SELECT o.parent, o.chunk * 128 + j.key AS place, j.value "
                 "AS row_idx FROM aggr_dl_group_orders o, json_each(o.row_idxs) j WHERE "
                 "o.aggr_id = 1 AND o.sort_column = '%s' AND o.sort_desc = %d AND o.tree = %d) "
                 "pl JOIN (SELECT g.row_idx, %s AS parent, ROW_NUMBER() OVER (%s ORDER BY "
                 "g.\"%s\"%s, g.row_full_id, g.row_idx) - 1 AS place FROM %s aggr_group_ops g %s "
                 "WHERE g.aggr_id = 1) r ON r.row_idx = pl.row_idx AND r.parent = pl.parent AND "
                 "r.place = pl.place",
                 cols[c], desc, tree, tree ? "p.parent" : "''",
                 tree ? "PARTITION BY p.parent" : "", cols[c], desc ? " DESC" : "",
                 tree ? "aggr_dl_group_parents p JOIN" : "",
                 tree ? "ON g.aggr_id = p.aggr_id AND g.row_idx = p.row_idx" : "");
        if (q_int(file, sql) != (tree ? parents : rows)) {
          fprintf(stderr, "%s: the places of %s%s, tree %d, differ\n", file, cols[c],
                  desc ? " DESC" : "", tree);
          return 1;
        }
      }
  return 0;
}

static int test_amp(void) {
  ASSERT_OK(run("--iterations 12 --kernels-per-iter 120 --seed 3 --force", "amp.sqlite"));
  ASSERT_EQ(q_int("amp.sqlite", "SELECT total_iterations FROM view_performance_summary"), 13);
  ASSERT(q_int("amp.sqlite", "SELECT using_tc_count FROM view_kernel_summary") > 0);
  ASSERT(q_int("amp.sqlite", "SELECT count(*) FROM view_iteration_kernels WHERE uses_tc = 1") >
         100);
  ASSERT(q_int("amp.sqlite", "SELECT tc_utilization FROM view_performance_summary") > 50);
  ASSERT_EQ(q_int("amp.sqlite", "SELECT count(*) FROM memcpys"), 12);
  ASSERT(q_int("amp.sqlite", "SELECT memory_count FROM view_kernel_summary") >= 2);
  ASSERT_EQ(q_int("amp.sqlite", "SELECT count(*) FROM aggr_findings WHERE rule_id = "
                                "'dataloader_detector'"),
            1);
  ASSERT_EQ(q_int("amp.sqlite", "SELECT count(*) FROM aggr_findings WHERE rule_id = "
                                "'amp_detector'"),
            0);
  ASSERT_EQ(q_int("amp.sqlite", "SELECT count(*) FROM aggr_findings WHERE rule_id = "
                                "'bad_iteration_range_detector'"),
            1);
  ASSERT(q_int("amp.sqlite", "SELECT count(*) FROM view_op_nodes WHERE direction = 'bprop'") > 0);
  ASSERT(q_int("amp.sqlite", "SELECT count(*) FROM view_group_ops WHERE row_type = 1") > 3);
  ASSERT_OK(group_places_match("amp.sqlite"));
  ASSERT_EQ(q_int("amp.sqlite", "SELECT count(*) FROM read_only_system_config"), 1);
  /* deterministic: the same seed gives the same numbers */
  ASSERT_OK(run("--iterations 12 --kernels-per-iter 120 --seed 3 --force", "amp2.sqlite"));
  ASSERT_EQ(q_int("amp.sqlite", "SELECT wall_clock_time FROM view_performance_summary"),
            q_int("amp2.sqlite", "SELECT wall_clock_time FROM view_performance_summary"));
  /* no overwrite without --force */
  ASSERT(run("--iterations 2", "amp.sqlite") != 0);
  return 0;
}

static int test_fp32(void) {
  ASSERT_OK(run("--iterations 6 --kernels-per-iter 100 --precision fp32 --gpus 2 --force",
                "fp32.sqlite"));
  ASSERT_EQ(q_int("fp32.sqlite", "SELECT using_tc_count FROM view_kernel_summary"), 0);
  ASSERT_EQ(q_int("fp32.sqlite", "SELECT count(*) FROM view_iteration_kernels WHERE uses_tc = 1"),
            0);
  ASSERT_EQ(q_int("fp32.sqlite", "SELECT count(*) FROM view_expert_systems WHERE "
                                 "javascript_function = 'ShowBadDataTypeOps'"),
            1);
  ASSERT(q_int("fp32.sqlite", "SELECT count(*) FROM view_op_nodes WHERE is_bad_data_type = 1") >
         5);
  ASSERT_EQ(q_int("fp32.sqlite", "SELECT count(*) FROM view_gpu_devices"), 2);
  return 0;
}

static int test_hostile(void) {
  ASSERT_OK(run("--iterations 3 --kernels-per-iter 60 --hostile-names --force",
                "hostile.sqlite"));
  ASSERT_EQ(q_int("hostile.sqlite", "SELECT count(*) FROM view_op_nodes WHERE op_node_name LIKE "
                                    "'%<script>alert(1)</script>%' AND op_node_name LIKE "
                                    "'%javascript:%'"),
            2); /* the op and its bprop node (paired by seq, same name) */
  ASSERT_EQ(q_int("hostile.sqlite", "SELECT count(*) FROM view_op_nodes WHERE op_node_name LIKE "
                                    "'%<script>alert(1)</script>%' AND direction = 'bprop'"),
            1);
  ASSERT_EQ(q_int("hostile.sqlite", "SELECT count(DISTINCT kernel_name) FROM "
                                    "view_iteration_kernels WHERE kernel_name LIKE "
                                    "'%<img src=x onerror=alert(1)>%'"),
            1);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_dlsample DLSAMPLE WORK_DIR\n");
    return 2;
  }
  dlsample = argv[1];
  work_dir = argv[2];
  RUN(test_amp);
  RUN(test_fp32);
  RUN(test_hostile);
  TEST_DONE();
}
