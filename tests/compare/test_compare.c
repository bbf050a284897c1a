/*
 * test_compare.c - db/dldb_compare_stats.h (iteration statistics, Student's
 * t quantile, Welch's interval) and db/dldb_compare.h on NVIDIA's two
 * dldbs from ${DL_SHARED_DIR}/traces/dlprof: the comparison handle queried
 * like views (counts, sorting, paging, filters), and its errors.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dldb.h"
#include "dldb_compare.h"
#include "dldb_compare_stats.h"
#include "test.h"

static const char *shared;

static int test_t_quantile(void) {
  /* Student's t, 0.975 quantile, from the printed tables */
  static const struct { double df, t; } tab[] = {
      {1, 12.7062}, {2, 4.3027}, {3, 3.1824}, {5, 2.5706}, {10, 2.2281}, {30, 2.0423},
      {120, 1.9799}, {1000, 1.9623}};
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
    ASSERT_NEAR(dldb_cstat_t_quantile(0.975, tab[i].df), tab[i].t, 5e-4);
  ASSERT_NEAR(dldb_cstat_t_quantile(0.5, 7), 0, 1e-9);
  ASSERT_NEAR(dldb_cstat_t_quantile(0.95, 10), 1.8125, 5e-4);
  return 0;
}

static int test_describe(void) {
  const int64_t v[] = {4, 1, 3, 2};
  dldb_cstat s;
  ASSERT_OK(dldb_cstat_describe(v, 4, &s));
  ASSERT_EQ(s.n, 4);
  ASSERT_NEAR(s.mean_ns, 2.5, 1e-12);
  ASSERT_NEAR(s.median_ns, 2.5, 1e-12);
  ASSERT_NEAR(s.sd_ns, sqrt(5.0 / 3.0), 1e-12);
  ASSERT_EQ(v[0], 4); /* not reordered */
  ASSERT_OK(dldb_cstat_describe(v, 3, &s));
  ASSERT_NEAR(s.median_ns, 3, 1e-12);
  ASSERT_OK(dldb_cstat_describe(v, 1, &s));
  ASSERT_NEAR(s.sd_ns, 0, 0);
  return 0;
}

static int test_welch(void) {
  const int64_t b[] = {10, 12, 14}, r[] = {20, 22, 24, 26};
  dldb_cstat sb, sr;
  double d, lo, hi, df;
  ASSERT_OK(dldb_cstat_describe(b, 3, &sb));
  ASSERT_OK(dldb_cstat_describe(r, 4, &sr));
  ASSERT_EQ(dldb_cstat_welch(&sb, &sr, &d, &lo, &hi, &df), 1);
  ASSERT_NEAR(d, 11, 1e-12);
  /* vb = 4/3, vr = (20/3)/4 = 5/3: se = sqrt(3); df = 9 / ((16/9)/2 + (25/9)/3) */
  ASSERT_NEAR(df, 9.0 / (8.0 / 9.0 + 25.0 / 27.0), 1e-9);
  double t = dldb_cstat_t_quantile(0.975, df);
  ASSERT(t > 2.5706 && t < 2.7764); /* between the table's df 5 and df 4 */
  ASSERT_NEAR(lo, 11 - t * sqrt(3.0), 1e-9);
  ASSERT_NEAR(hi, 11 + t * sqrt(3.0), 1e-9);
  /* no spread: the interval is the difference itself */
  const int64_t c[] = {5, 5}, e[] = {7, 7, 7};
  ASSERT_OK(dldb_cstat_describe(c, 2, &sb));
  ASSERT_OK(dldb_cstat_describe(e, 3, &sr));
  ASSERT_EQ(dldb_cstat_welch(&sb, &sr, &d, &lo, &hi, &df), 1);
  ASSERT(lo == 2 && hi == 2 && df == 3);
  /* one iteration: no interval */
  ASSERT_OK(dldb_cstat_describe(c, 1, &sb));
  ASSERT_EQ(dldb_cstat_welch(&sb, &sr, &d, &lo, &hi, &df), 0);
  ASSERT(isnan(lo) && isnan(hi) && d == 2);
  return 0;
}

typedef struct seen {
  int n;
  char first[256], status[16];
  int64_t sum_calls;
} seen;

static int on_row(void *ctx, const dldb_row *row) {
  seen *s = ctx;
  for (int i = 0; i < dldb_row_count(row); i++) {
    const char *n = dldb_row_name(row, i);
    if (!strcmp(n, "kernel_name") && s->n == 0)
      snprintf(s->first, sizeof s->first, "%s", dldb_row_text(row, i));
    if (!strcmp(n, "status") && s->n == 0)
      snprintf(s->status, sizeof s->status, "%s", dldb_row_text(row, i));
    if (!strcmp(n, "calls")) s->sum_calls += dldb_row_int(row, i);
  }
  s->n++;
  return 0;
}

static int test_handle_queries(void) {
  char base[1024], run[1024], err[512] = "";
  snprintf(base, sizeof base, "%s/traces/dlprof/w_Relu/dlprof_dldb_1.sqlite", shared);
  snprintf(run, sizeof run, "%s/traces/dlprof/no_relu/dlprof_dldb.sqlite", shared);
  dldb *c = NULL;
  ASSERT_OK(dldb_compare_files(base, run, NULL, &c, err, sizeof err));
  int64_t total = 0, filtered = 0;
  dldb_query q = {.view = "dl_compare_kernels", .aggr_id = -1, .limit = -1};
  ASSERT_OK(dldb_query_count(c, &q, &total, &filtered, err, sizeof err));
  ASSERT(total > 10);
  /* sorted by name, one page of 5 from the 3rd */
  seen all = {0}, page = {0}, relu = {0}, removed = {0};
  ASSERT_OK(dldb_query_rows(c, &q, on_row, &all, err, sizeof err));
  ASSERT_EQ(all.n, total);
  q.sort = "kernel_name";
  q.offset = 2;
  q.limit = 5;
  ASSERT_OK(dldb_query_rows(c, &q, on_row, &page, err, sizeof err));
  ASSERT_EQ(page.n, 5);
  ASSERT(strcmp(page.first, all.first) != 0 || total < 3);
  /* a filter on the name, and an exact status */
  dldb_query f = {.view = "dl_compare_kernels", .aggr_id = -1, .limit = -1, .filter = "RELU",
                  .filter_cols = {"kernel_name", NULL}};
  ASSERT_OK(dldb_query_count(c, &f, &total, &filtered, err, sizeof err));
  ASSERT(filtered > 0 && filtered < total);
  ASSERT_OK(dldb_query_rows(c, &f, on_row, &relu, err, sizeof err));
  ASSERT_EQ(relu.n, filtered);
  dldb_query e = {.view = "dl_compare_kernels", .aggr_id = -1, .limit = -1, .n_eq = 1,
                  .eq = {{"status", "removed"}}};
  ASSERT_OK(dldb_query_rows(c, &e, on_row, &removed, err, sizeof err));
  ASSERT(removed.n > 0);
  ASSERT_STR_EQ(removed.status, "removed");
  ASSERT_EQ(removed.sum_calls, 0); /* removed: no calls in the run */
  /* the summary: one row; the tables are there, the attached files are not */
  dldb_query s = {.view = "dl_compare_summary", .aggr_id = -1, .limit = -1};
  ASSERT_OK(dldb_query_count(c, &s, &total, &filtered, err, sizeof err));
  ASSERT_EQ(total, 1);
  ASSERT(dldb_has_view(c, "dl_compare_ops"));
  ASSERT(dldb_has_view(c, "dl_compare_iterations"));
  ASSERT(!dldb_has_view(c, "view_kernel_summaries"));
  dldb_close(&c);
  ASSERT_NULL(c);
  return 0;
}

static int test_errors(void) {
  char run[1024], err[512] = "";
  snprintf(run, sizeof run, "%s/traces/dlprof/no_relu/dlprof_dldb.sqlite", shared);
  dldb *c = (dldb *)1;
  ASSERT_EQ(dldb_compare_files("/nonexistent/x.sqlite", run, NULL, &c, err, sizeof err),
            DL_ENOTFOUND);
  ASSERT_NULL(c);
  ASSERT_CONTAINS(err, "/nonexistent/x.sqlite");
  ASSERT(!strchr(err, '\n'));
  return 0;
}

int main(int argc, char **argv) {
  char dir[1024];
  shared = argc > 1 ? argv[1] : "";
  RUN(test_t_quantile);
  RUN(test_describe);
  RUN(test_welch);
  snprintf(dir, sizeof dir, "%s/traces/dlprof", shared);
  if (access(dir, R_OK) != 0) {
    if (test__failed) TEST_DONE();
    printf("SKIP: %s not found (the shared traces)\n", dir);
    return 77;
  }
  RUN(test_handle_queries);
  RUN(test_errors);
  TEST_DONE();
}
