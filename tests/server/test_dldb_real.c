/*
 * test_dldb_real.c - the dldb read side on real files from ../shared/traces:
 * NVIDIA DLProf 1.8 databases open (and stay byte for byte and mtime
 * unchanged), their values read back, an Nsight Systems export and a
 * truncated copy of a dldb are refused with their own words.
 * Usage: server_test_dldb_real SHARED_DIR WORKDIR (exit 77 without SHARED_DIR).
 */
#include <sys/stat.h>

#include "../test.h"
#include "dldb.h"
#include "fixture.h"

static char no_relu[4096], w_relu[4096], nsys[4096], nsys_empty[4096], workdir[4096];

typedef struct pick {
  const char *col;
  int64_t value;
  int rows;
} pick;

static int pick_fn(void *ctx, const dldb_row *row) {
  pick *p = ctx;
  for (int i = 0; i < dldb_row_count(row); i++)
    if (strcmp(dldb_row_name(row, i), p->col) == 0) p->value = dldb_row_int(row, i);
  p->rows++;
  return 0;
}

static int one_int(dldb *db, const char *view, const char *col, int64_t *out) {
  char err[512];
  pick p = {.col = col};
  dldb_query q = {.view = view, .aggr_id = 1, .domain = "default-domain", .limit = 1};
  int rc = dldb_query_rows(db, &q, pick_fn, &p, err, sizeof err);
  *out = p.value;
  return rc || p.rows != 1;
}

static int test_no_relu(void) {
  struct stat before, after;
  size_t len0 = 0, len1 = 0;
  ASSERT_OK(stat(no_relu, &before));
  char *bytes0 = fixture_read(no_relu, &len0);
  ASSERT_NOT_NULL(bytes0);
  dldb *db = NULL;
  dldb_info info;
  char err[1024] = "";
  int rc = dldb_open_ro(no_relu, &db, &info, err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  ASSERT_OK(rc);
  ASSERT_EQ(info.producer, DLDB_PRODUCER_NVIDIA);
  ASSERT_EQ(info.schema_version, 0);
  ASSERT_STR_EQ(info.current_version, "1.8.0");
  ASSERT_EQ(info.default_aggr_id, 1);
  ASSERT_STR_EQ(info.default_domain, "default-domain");
  int64_t v;
  ASSERT_OK(one_int(db, "view_performance_summary", "wall_clock_time", &v));
  ASSERT_EQ(v, 2864091540);
  ASSERT_OK(one_int(db, "view_kernel_summary", "total_gpu_time", &v));
  ASSERT_EQ(v, 352000);
  ASSERT_OK(one_int(db, "view_kernel_summary", "memory_count", &v));
  ASSERT_EQ(v, 3);
  int64_t total = 0, filtered = 0;
  dldb_query q = {.view = "view_op_nodes", .aggr_id = 1, .domain = "default-domain",
                  .filter = "conv2d", .filter_cols = {"op_node_type", NULL}};
  ASSERT_OK(dldb_query_count(db, &q, &total, &filtered, err, sizeof err));
  ASSERT_EQ(total, 32);
  ASSERT_EQ(filtered, 2); /* the two conv2d ops */
  q = (dldb_query){.view = "view_iteration_kernels", .aggr_id = 1, .domain = "default-domain"};
  ASSERT_OK(dldb_query_count(db, &q, &total, NULL, err, sizeof err));
  ASSERT_EQ(total, 51);
  dldb_close(&db);
  ASSERT_OK(stat(no_relu, &after));
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  char *bytes1 = fixture_read(no_relu, &len1);
  int same = bytes1 && len1 == len0 && memcmp(bytes0, bytes1, len0) == 0;
  free(bytes0);
  free(bytes1);
  ASSERT(same);
  return 0;
}

static int test_w_relu(void) {
  dldb *db = NULL;
  char err[1024] = "";
  ASSERT_OK(dldb_open_ro(w_relu, &db, NULL, err, sizeof err));
  int64_t total = 0;
  dldb_query q = {.view = "view_iteration_kernels", .aggr_id = 1, .domain = "default-domain"};
  ASSERT_OK(dldb_query_count(db, &q, &total, NULL, err, sizeof err));
  ASSERT_EQ(total, 59);
  dldb_close(&db);
  return 0;
}

static int expect_fail(const char *path, int rc_want, const char *want) {
  dldb *db = NULL;
  char err[1024] = "";
  int rc = dldb_open_ro(path, &db, NULL, err, sizeof err);
  ASSERT_NULL(db);
  ASSERT_EQ(rc, rc_want);
  ASSERT_CONTAINS(err, path);
  ASSERT_CONTAINS(err, want);
  return 0;
}

static int test_nsys_exports(void) {
  ASSERT_OK(expect_fail(nsys, DL_EFORMAT, "is an Nsight Systems export, not a dldb; convert it "
                                          "with dlprof --database="));
  return expect_fail(nsys_empty, DL_EFORMAT, "Nsight Systems export");
}

static int test_truncated(void) {
  char p[4200];
  struct stat st;
  snprintf(p, sizeof p, "%s/no_relu_truncated.sqlite", workdir);
  ASSERT_OK(stat(no_relu, &st));
  ASSERT_OK(fixture_copy(no_relu, p, (long)st.st_size / 2));
  return expect_fail(p, DL_ECORRUPT, "damaged or truncated");
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s SHARED_DIR WORKDIR\n", argv[0]);
    return 2;
  }
  snprintf(no_relu, sizeof no_relu, "%s/traces/dlprof/no_relu/dlprof_dldb.sqlite", argv[1]);
  snprintf(w_relu, sizeof w_relu, "%s/traces/dlprof/w_Relu/dlprof_dldb_1.sqlite", argv[1]);
  snprintf(nsys, sizeof nsys, "%s/traces/nsys/nsys2023.2_cutlass_sgemm.sqlite", argv[1]);
  snprintf(nsys_empty, sizeof nsys_empty, "%s/traces/nsys/empty_export.sqlite", argv[1]);
  snprintf(workdir, sizeof workdir, "%s", argv[2]);
  struct stat st;
  if (stat(no_relu, &st) != 0) {
    char why[4200];
    snprintf(why, sizeof why, "%s is absent (set DL_SHARED_DIR)", no_relu);
    SKIP(why);
  }
  RUN(test_no_relu);
  RUN(test_w_relu);
  RUN(test_nsys_exports);
  RUN(test_truncated);
  TEST_DONE();
}
