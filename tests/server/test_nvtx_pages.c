/*
 * test_nvtx_pages.c - the NVTX statistics views read through their stored
 * name order and name forms (db/dldb_nvtxidx.c writes them at the end of an
 * aggregation, db/dldb_nvtxpage.c reads them): a dldb written here through
 * the writer (two aggregations of a few thousand rows: names with digit
 * runs, case, %, _, non-ASCII bytes, equal names of both styles), then
 * every page and count of a grid of filters, orders, directions, offsets
 * and limits against a reference computed here from the names. The stored
 * order must decode to the reference, and pages must come from it (a name
 * changed in the file after writing is still found by its old text). The
 * pages sorted by a numeric column come from zone maps of small blocks (7
 * and 64 rows, ties across their ends): with every name renamed in a copy,
 * each is still found and sorted by its old text; a copy without the zones
 * (an older file) gives the same pages the plain way. Filters with digits
 * (a run at the start, the end, inside, digits only, several runs) come
 * from the names' digit runs (db/dldb_nvtxdmatch.c), so the renamed copy
 * still finds them by the old texts; a copy without the runs gives the
 * same pages the plain way.
 * Usage: server_test_nvtx_pages WORKDIR
 */
#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "dldb.h"
#include "dldb_aggr.h"
#include "dldb_nvtxzones.h"
#include "dldb_scan.h"
#include "dldb_write.h"

static const char *workdir;

enum { MAXROWS = 6000, MAXNAMES = 4000 };

typedef struct row {
  int64_t row_idx;
  int name;      /* index into names */
  int startend;
  dldb_stat t;   /* as written */
  int64_t gpu_ops, children, levels, range_time;
} row;

static char *names[MAXNAMES];
static int64_t name_ids[MAXNAMES];
static int nnames;

/* Per aggregation and kind: its rows, row_idx 0..n-1. */
typedef struct table {
  int64_t aggr_id;
  int kind;
  row rows[MAXROWS];
  int n;
  int64_t sum; /* of the totals */
} table;

static table tables[4];

static uint64_t rng = 88172645463325252ull;
static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)rng;
}

/* Names: emit_nvtx-like texts with numbers, and odd ones. */
static int make_names(void) {
  static const char *const ops[] = {"aten::conv2d", "ReluBackward0", "aten::relu_",
                                    "CudnnConvolutionBackward0", "aten::linear", "ATEN::CONV"};
  static const char *const odd[] = {"100%_done", "x_y", "back\\slash", "\xc3\x89lan conv",
                                    "relu", "conv", "", "seq 1", "a", "A", "z9", "z10", "z",
                                    "Z", "conv2", "conv10", "qq", "QQ", "qqb", "qqa", "aqq",
                                    "qq_z", "Qq\xc3\x89", "qq "};
  for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) names[nnames++] = strdup(odd[i]);
  while (nnames < MAXNAMES) {
    char buf[160];
    unsigned op = next() % 6, seq = next() % 100000, a = next() % 300, b = next() % 7;
    if (next() % 4 == 0)
      snprintf(buf, sizeof buf, "%s, op_id = %u, sizes = [[%u, %u]]", ops[op], seq, a, b);
    else
      snprintf(buf, sizeof buf, "%s, seq = %u, op_id = %u, sizes = [[%u, %u, 3]]", ops[op], seq,
               seq * 2 + 1, a, b);
    int dup = 0;
    for (int i = 0; i < nnames && !dup; i++) dup = strcmp(names[i], buf) == 0;
    if (!dup) names[nnames++] = strdup(buf);
  }
  return 0;
}

/* A table of n rows over the names: each name once, some twice (both
 * styles), in a random row_idx order. */
static void make_table(table *t, int64_t aggr_id, int kind, int n) {
  t->aggr_id = aggr_id;
  t->kind = kind;
  t->n = 0;
  for (int i = 0; i < nnames && t->n < n; i++) {
    if (next() % 5 == 0) continue; /* not every name in every table */
    int se = (int)(next() % 2);
    t->rows[t->n++] = (row){.name = i, .startend = se};
    if (next() % 6 == 0 && t->n < n) t->rows[t->n++] = (row){.name = i, .startend = !se};
  }
  for (int i = t->n - 1; i > 0; i--) { /* shuffle, then number */
    int j = (int)(next() % (uint32_t)(i + 1));
    row x = t->rows[i];
    t->rows[i] = t->rows[j];
    t->rows[j] = x;
  }
  for (int i = 0; i < t->n; i++) t->rows[i].row_idx = i;
}

/* Statistics as the analysis writes them: rows in total order,
 * descending, with runs of equal totals; durations at least 0, so every
 * statistic is at most the total; some rows of many instances, whose avg,
 * med, min and max are far below their total. */
static void make_stats(table *t) {
  int64_t total = 20000 + 40 * (int64_t)t->n;
  t->sum = 0;
  for (int i = 0; i < t->n; i++) {
    row *r = &t->rows[i];
    if (next() % 3) total -= (int64_t)(next() % 9); /* ties: about a third */
    int64_t n = next() % 4 == 0 ? 2 + (int64_t)(next() % 40) : 1;
    if (n == 1) {
      r->t = (dldb_stat){.n = 1, .total = total, .min = total, .max = total,
                         .avg = (double)total, .med = (double)total, .stddev = 0};
    } else { /* n - 1 equal durations a and the rest in one */
      int64_t a = total / (n + (int64_t)(next() % 5)), b = total - a * (n - 1);
      double avg = (double)total / (double)n;
      double var = ((double)(n - 1) * ((double)a - avg) * ((double)a - avg) +
                    ((double)b - avg) * ((double)b - avg)) / (double)(n - 1);
      r->t = (dldb_stat){.n = n, .total = total, .min = a < b ? a : b, .max = a < b ? b : a,
                         .avg = avg, .med = (double)a, .stddev = var > 0 ? sqrt(var) : 0};
    }
    r->gpu_ops = (int64_t)(next() % 50);
    r->children = (int64_t)(next() % 7);
    r->levels = (int64_t)(next() % 5);
    t->sum += total;
  }
}

static int write_table(dldb_writer *w, table *t) {
  char err[256];
  make_stats(t);
  for (int i = 0; i < t->n; i++) {
    row *r = &t->rows[i];
    r->range_time = r->t.total * 2 + (int64_t)(next() % 1000);
    dldb_stats_row s = {.kind = t->kind, .row_idx = r->row_idx, .name_id = name_ids[r->name],
                        .label = r->startend ? "StartEnd" : "PushPop", .t = r->t,
                        .range_time = r->range_time, .gpu_ops = r->gpu_ops, .level_sum = r->levels, .child_sum = r->children};
    ASSERT_OK(dldb_aggr_stats(w, t->aggr_id, &s, 1, err, sizeof err));
  }
  return 0;
}

static int write_file(const char *path) {
  char err[256];
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  for (int i = 0; i < nnames; i++)
    ASSERT_OK(dldb_writer_intern(w, names[i], &name_ids[i], err, sizeof err));
  dldb_writer_begin_reads(w);
  int64_t dom = 0;
  ASSERT_OK(dldb_scan_first_domain(w, &dom, err, sizeof err));
  for (int a = 0; a < 2; a++) {
    dldb_aggr_row ar = {.domain_id = dom, .key_node_name = "", .user_name = "u",
                        .host_name = "h", .aggr_start = "2026-01-01 00:00:00", .tc_rules = "t"};
    int64_t aggr = 0;
    /* zone maps of small blocks: values tie across their ends */
    ASSERT_OK(dldb__zones_block_rows(w, a ? 64 : 7));
    ASSERT_OK(dldb_aggr_begin(w, &ar, &aggr, err, sizeof err));
    make_table(&tables[2 * a], aggr, DLDB_STATS_NVTX, a ? 1500 : MAXROWS);
    make_table(&tables[2 * a + 1], aggr, DLDB_STATS_NVTX_GPU_PROJ, a ? 700 : 3000);
    ASSERT_OK(write_table(w, &tables[2 * a]));
    ASSERT_OK(write_table(w, &tables[2 * a + 1]));
    ASSERT_OK(dldb_aggr_end(w, err, sizeof err));
  }
  dldb_writer_end_reads(w);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  return 0;
}

/* ---- The reference ------------------------------------------------------- */

static void lower(const char *s, char *out, size_t len) {
  size_t i = 0;
  for (; s[i] && i + 1 < len; i++) out[i] = (char)tolower((unsigned char)s[i]);
  out[i] = '\0';
}

/* 1 when the lower-cased filter lf is in name i (ASCII case folded, as
 * the view's filter does). */
static int matches(int i, const char *lf) {
  static char *low[MAXNAMES];
  if (!lf || !*lf) return 1;
  if (!low[i]) {
    low[i] = malloc(strlen(names[i]) + 1);
    if (!low[i]) return 0;
    lower(names[i], low[i], strlen(names[i]) + 1);
  }
  return strstr(low[i], lf) != NULL;
}

/* BINARY order: bytes, then the shorter first. */
static int name_cmp(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;
  int c = memcmp(a, b, n);
  return c ? c : (la > lb) - (la < lb);
}

/* The view's value of the numeric column col for r (a row of t), as the
 * view computes it (db/schema.sql); 0 when col is not one. */
static int col_value(const table *t, const row *r, const char *col, long double *v) {
  const dldb_stat *x = &r->t;
  int one = x->n == 1;
  const char *c = strncmp(col, "proj_", 5) == 0 ? col + 5 : col;
  if (strcmp(c, "time_pct") == 0) *v = t->sum > 0 ? 100.0 * (double)x->total / (double)t->sum : 0.0;
  else if (strcmp(c, "total_time") == 0 || strcmp(c, "total_proj_time") == 0) *v = x->total;
  else if (strcmp(c, "instances") == 0 || strcmp(c, "range_instances") == 0) *v = x->n;
  else if (strcmp(c, "avg") == 0) *v = (double)x->total / (double)x->n;
  else if (strcmp(c, "med") == 0) *v = one ? (double)x->total : x->med;
  else if (strcmp(c, "min") == 0) *v = one ? x->total : x->min;
  else if (strcmp(c, "max") == 0) *v = one ? x->total : x->max;
  else if (strcmp(c, "stddev") == 0) *v = one ? 0.0 : x->stddev;
  else if (strcmp(c, "total_range_time") == 0) *v = r->range_time;
  else if (strcmp(c, "total_gpu_ops") == 0) *v = r->gpu_ops;
  else if (strcmp(c, "avg_gpu_ops") == 0) *v = (double)r->gpu_ops / (double)x->n;
  else if (strcmp(c, "avg_num_child") == 0) *v = (double)r->children / (double)x->n;
  else if (strcmp(c, "avg_range_level") == 0) *v = (double)r->levels / (double)x->n;
  else return 0;
  return 1;
}

static const table *sort_table;
static const char *sort_col;
static int sort_desc, sort_numeric;
static long double sort_vals[MAXROWS]; /* by index into sort_table's rows */
static int cmp_rows(const void *x, const void *y) {
  int i = *(const int *)x, j = *(const int *)y;
  const row *a = &sort_table->rows[i], *b = &sort_table->rows[j];
  int c = 0;
  if (strcmp(sort_col, "name") == 0) c = name_cmp(names[a->name], names[b->name]);
  else if (sort_numeric) c = (sort_vals[i] > sort_vals[j]) - (sort_vals[i] < sort_vals[j]);
  else c = (a->row_idx > b->row_idx) - (a->row_idx < b->row_idx); /* row_idx */
  if (c) return sort_desc ? -c : c;
  return (a->row_idx > b->row_idx) - (a->row_idx < b->row_idx); /* ties: row_idx ascending */
}

/* The row_idx values of the page (sorted by sort: row_idx, name or a
 * numeric column), as "a,b,c", and the filtered count. */
static void reference(const table *t, const char *f, const char *sort, int desc, int64_t offset,
                      int64_t limit, char *out, size_t len, int64_t *count) {
  static int idx[MAXROWS];
  char lf[256];
  lower(f ? f : "", lf, sizeof lf);
  int n = 0;
  for (int i = 0; i < t->n; i++)
    if (matches(t->rows[i].name, lf)) idx[n++] = i;
  sort_table = t;
  sort_col = sort;
  sort_desc = desc;
  sort_numeric = 1;
  for (int i = 0; i < t->n && sort_numeric; i++)
    sort_numeric = col_value(t, &t->rows[i], sort, &sort_vals[i]);
  qsort(idx, (size_t)n, sizeof *idx, cmp_rows);
  *count = n;
  out[0] = '\0';
  for (int64_t i = offset; i < n && i < offset + limit; i++)
    snprintf(out + strlen(out), len - strlen(out), "%s%lld", i > offset ? "," : "",
             (long long)t->rows[idx[i]].row_idx);
}

/* ---- The answers --------------------------------------------------------- */

typedef struct got {
  char s[65536];
  int n;
} got;

static int collect(void *ctx, const dldb_row *r) {
  got *g = ctx;
  for (int i = 0; i < dldb_row_count(r); i++)
    if (strcmp(dldb_row_name(r, i), "row_idx") == 0) {
      size_t l = strlen(g->s);
      snprintf(g->s + l, sizeof g->s - l, "%s%lld", g->n++ ? "," : "",
               (long long)dldb_row_int(r, i));
    }
  return 0;
}

static const char *view_of(int kind) {
  return kind == DLDB_STATS_NVTX ? "view_dl_stats_nvtx" : "view_dl_stats_nvtx_gpu_proj";
}

static int check(dldb *db, const table *t, const char *f, const char *sort, int desc,
                 int64_t offset, int64_t limit) {
  static char want[65536];
  static got g;
  char err[512] = "";
  int64_t count = -1, total = -1, filtered = -1;
  reference(t, f, sort, desc, offset, limit, want, sizeof want, &count);
  dldb_query q = {.view = view_of(t->kind), .aggr_id = t->aggr_id, .filter = f,
                  .filter_cols = {"op_node_name", "name", NULL},
                  .sort = sort, .desc = desc, .tiebreak = {"row_idx"},
                  .offset = offset, .limit = limit};
  memset(&g, 0, sizeof g);
  int rc = dldb_query_count(db, &q, &total, &filtered, err, sizeof err);
  if (!rc) rc = dldb_query_rows(db, &q, collect, &g, err, sizeof err);
  if (rc || total != t->n || filtered != count || strcmp(g.s, want) != 0) {
    fprintf(stderr,
            "%s aggr %lld filter '%s' %s %s offset %lld limit %lld: rc %d %s\n"
            "  total %lld (want %d), filtered %lld (want %lld)\n  got  %.300s\n  want %.300s\n",
            q.view, (long long)t->aggr_id, f ? f : "", q.sort, desc ? "desc" : "asc",
            (long long)offset, (long long)limit, rc, err, (long long)total, t->n,
            (long long)filtered, (long long)count, g.s, want);
    return 1;
  }
  return 0;
}

/* The stored order of t, decoded, equals the reference name order. */
static int stored_order(sqlite3 *s, const table *t) {
  static int idx[MAXROWS];
  for (int i = 0; i < t->n; i++) idx[i] = i;
  sort_table = t;
  sort_col = "name";
  sort_desc = 0;
  sort_numeric = 0;
  qsort(idx, (size_t)t->n, sizeof *idx, cmp_rows);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(s, "SELECT places FROM view_dl_nvtx_name_order WHERE aggr_id = ?1 "
                                  "AND kind = ?2 ORDER BY chunk", -1, &st, NULL),
            SQLITE_OK);
  sqlite3_bind_int64(st, 1, t->aggr_id);
  sqlite3_bind_int(st, 2, t->kind);
  int p = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *b = sqlite3_column_blob(st, 0);
    int n = sqlite3_column_bytes(st, 0) / 4;
    for (int i = 0; i < n; i++, p++) {
      uint32_t v = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
                   (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
      ASSERT(p < t->n);
      ASSERT_EQ((int64_t)(v & 0x7fffffffu), t->rows[idx[p]].row_idx);
      int tie = p > 0 && name_cmp(names[t->rows[idx[p]].name], names[t->rows[idx[p - 1]].name]) == 0;
      ASSERT_EQ((int)(v >> 31), tie);
    }
  }
  sqlite3_finalize(st);
  ASSERT_EQ(p, t->n);
  return 0;
}

/* Sorted by a numeric column too, the pages come from the stored forms: a
 * name renamed in the file is found by its old text in each order and
 * direction, where the plain query, reading today's names, finds none. */
static int renamed_sorted(const char *path) {
  static const char *const olds[] = {"x_y", "back\\slash"};
  static const char *const by[] = {"time_pct", "total_time", "instances", "avg", "med",
                                   "min", "max", "stddev"};
  char err[512];
  sqlite3 *s = NULL;
  ASSERT_EQ(sqlite3_open(path, &s), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(s, "UPDATE strings SET value = 'renamed ' || id WHERE value = ?1",
                               -1, &st, NULL),
            SQLITE_OK);
  for (size_t i = 0; i < sizeof olds / sizeof *olds; i++) {
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, olds[i], -1, SQLITE_STATIC);
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    ASSERT_EQ(sqlite3_changes(s), 1);
  }
  sqlite3_finalize(st);
  sqlite3_close(s);
  dldb *db = NULL;
  ASSERT_OK(dldb_open_ro(path, &db, NULL, err, sizeof err));
  int found = 0;
  for (size_t i = 0; i < sizeof olds / sizeof *olds; i++)
    for (size_t b = 0; b < sizeof by / sizeof *by; b++)
      for (int desc = 0; desc < 2; desc++) {
        static char want[256];
        int64_t count = 0;
        reference(&tables[0], olds[i], by[b], desc, 0, 50, want, sizeof want, &count);
        found += count > 0;
        ASSERT_OK(check(db, &tables[0], olds[i], by[b], desc, 0, 50));
      }
  ASSERT(found > 0); /* tables[0] has one of the names */
  dldb_close(&db);
  return 0;
}

static const char *const sorts6[] = {"row_idx", "name", "time_pct", "total_time", "instances",
                                     "avg", "med", "min", "max", "stddev", NULL};
static const char *const sorts7[] = {"row_idx", "name", "total_proj_time", "total_range_time",
                                     "range_instances", "proj_avg", "proj_med", "proj_min",
                                     "proj_max", "proj_stddev", "total_gpu_ops", "avg_gpu_ops",
                                     "avg_range_level", "avg_num_child", NULL};

/* A copy of the file at path as name (in workdir) into out, after sql. */
static int copy_file(const char *path, const char *name, const char *sql, char *out,
                     size_t len) {
  char q[4200];
  snprintf(out, len, "%s/%s", workdir, name);
  unlink(out);
  snprintf(q, sizeof q, "VACUUM INTO '%s'", out);
  sqlite3 *s = NULL;
  ASSERT_EQ(sqlite3_open(path, &s), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(s, q, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(s);
  ASSERT_EQ(sqlite3_open(out, &s), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(s);
  return 0;
}

/* Every numeric column of each table, both directions, a few filters and
 * pages, on the file at path. */
static int numeric_grid(const char *path, const char *const *filters, size_t nf) {
  static const int64_t pages[][2] = {{0, 1}, {0, 50}, {37, 50}, {41, 1000}};
  char err[512];
  dldb *db = NULL;
  ASSERT_OK(dldb_open_ro(path, &db, NULL, err, sizeof err));
  for (int t = 0; t < 4; t++) {
    const char *const *sorts = tables[t].kind == DLDB_STATS_NVTX ? sorts6 : sorts7;
    for (size_t f = 0; f < nf; f++)
      for (int k = 2; sorts[k]; k++)
        for (int desc = 0; desc < 2; desc++)
          for (size_t p = 0; p < sizeof pages / sizeof *pages; p++)
            ASSERT_OK(check(db, &tables[t], filters[f], sorts[k], desc, pages[p][0], pages[p][1]));
  }
  dldb_close(&db);
  return 0;
}

/* Every name renamed in a copy of the file: each numeric order, in both
 * directions, still finds and sorts the rows by the texts they had when
 * written, so none of these pages is the plain query's. */
static int all_renamed(const char *path) {
  static const char *const filters[] = {"conv", "z", "qq", "seq = 1", "= 1, op", "12"};
  char copy[4096];
  ASSERT_OK(copy_file(path, "nvtx_pages_renamed.dldb",
                      "UPDATE strings SET value = 'renamed ' || id WHERE id IN (SELECT key >> 1 "
                      "FROM aggr_nvtx_runs)",
                      copy, sizeof copy));
  return numeric_grid(copy, filters, sizeof filters / sizeof *filters);
}

/* A file without zone maps (written before them): the same pages, read
 * from the views or by the walks in row_idx order. */
static int no_zones(const char *path) {
  static const char *const filters[] = {NULL, "conv", "qq"};
  char copy[4096];
  ASSERT_OK(copy_file(path, "nvtx_pages_nozones.dldb",
                      "DROP VIEW view_dl_nvtx_zones; DROP TABLE aggr_nvtx_zones", copy,
                      sizeof copy));
  return numeric_grid(copy, filters, sizeof filters / sizeof *filters);
}

/* A file without the names' digit runs (written before them): filters
 * with digits (a run at the start, the end, inside, digits only) give the
 * same pages, read the plain way. */
static int no_digits(const char *path) {
  static const char *const filters[] = {"seq = 1", "2]", "= 1, op", "12", "1, op_id = 3"};
  static const int64_t pages[][2] = {{0, 50}, {37, 1000}};
  char copy[4096], err[512];
  ASSERT_OK(copy_file(path, "nvtx_pages_nodigits.dldb",
                      "DROP VIEW view_dl_nvtx_digits; DROP TABLE aggr_nvtx_digits", copy,
                      sizeof copy));
  dldb *db = NULL;
  ASSERT_OK(dldb_open_ro(copy, &db, NULL, err, sizeof err));
  for (int t = 0; t < 4; t++)
    for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
      for (int k = 0; k < 3; k++) /* row_idx, name, an average */
        for (int desc = 0; desc < 2; desc++)
          for (size_t p = 0; p < sizeof pages / sizeof *pages; p++) {
            const char *by = k < 2 ? sorts6[k] : t % 2 ? "proj_avg" : "avg";
            ASSERT_OK(check(db, &tables[t], filters[f], by, desc, pages[p][0], pages[p][1]));
          }
  dldb_close(&db);
  return 0;
}

static int test_pages(void) {
  char path[4096], err[512];
  snprintf(path, sizeof path, "%s/nvtx_pages.dldb", workdir);
  ASSERT_OK(make_names());
  ASSERT_OK(write_file(path));
  ASSERT_OK(all_renamed(path));
  ASSERT_OK(no_zones(path));
  ASSERT_OK(no_digits(path));
  sqlite3 *s = NULL;
  ASSERT_EQ(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  for (int i = 0; i < 4; i++) ASSERT_OK(stored_order(s, &tables[i]));
  sqlite3_close(s);
  dldb *db = NULL;
  ASSERT_OK(dldb_open_ro(path, &db, NULL, err, sizeof err));
  static const char *const filters[] = {NULL,     "conv", "CONV",       "relu", "xyzzy",
                                        "_",      "%",    "\\",         "\xc3\x89lan",
                                        "seq = ", "z",    ", op_id = ", "= 1",  "seq = 1",
                                        "z1",     "2]",   "qq",   "= 1, op",    "12",
                                        "0",      ", 3]]", "1, op_id = 3"};
  /* every sortable column of each view: sorts6, sorts7 */
  static const int64_t offsets[] = {0, 37, 5999};
  static const int64_t limits[] = {1, 50, 1000};
  /* by name and row_idx every filter, offset and limit; by a numeric
   * column the filters that the forms answer and some that they do not,
   * and a page of each size */
  static const uint32_t numeric_filters = 1u << 0 | 1u << 1 | 1u << 4 | 1u << 5 | 1u << 11 |
                                          1u << 13 | 1u << 14 | 1u << 16 | 1u << 18 | 1u << 21;
  static const int64_t pages[][2] = {{0, 1}, {0, 50}, {37, 50}, {37, 1000}, {5999, 50}};
  for (int t = 0; t < 4; t++) {
    const char *const *sorts = tables[t].kind == DLDB_STATS_NVTX ? sorts6 : sorts7;
    for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
      for (int k = 0; sorts[k]; k++)
        for (int desc = 0; desc < 2; desc++) {
          if (k < 2) {
            for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
              for (size_t l = 0; l < sizeof limits / sizeof *limits; l++)
                ASSERT_OK(check(db, &tables[t], filters[f], sorts[k], desc, offsets[o], limits[l]));
          } else if (numeric_filters >> f & 1) {
            for (size_t p = 0; p < sizeof pages / sizeof *pages; p++)
              ASSERT_OK(check(db, &tables[t], filters[f], sorts[k], desc, pages[p][0], pages[p][1]));
          }
        }
  }
  dldb_close(&db);
  /* The pages come from the stored order and forms: a name renamed in the
   * file is still found, and sorted, by the text it had when written. */
  const table *t = &tables[0];
  int64_t id = name_ids[t->rows[0].name];
  ASSERT_EQ(sqlite3_open(path, &s), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(s, "UPDATE strings SET value = 'renamed' WHERE id = ?1", -1, &st,
                               NULL),
            SQLITE_OK);
  sqlite3_bind_int64(st, 1, id);
  ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  sqlite3_close(s);
  ASSERT_OK(dldb_open_ro(path, &db, NULL, err, sizeof err));
  char old[256];
  snprintf(old, sizeof old, "%s", names[t->rows[0].name]);
  got g = {0};
  dldb_query q = {.view = "view_dl_stats_nvtx", .aggr_id = t->aggr_id, .filter = "renamed",
                  .filter_cols = {"name", NULL}, .sort = "row_idx", .tiebreak = {"row_idx"},
                  .limit = 10};
  int64_t total = 0, filtered = -1;
  ASSERT_OK(dldb_query_count(db, &q, &total, &filtered, err, sizeof err));
  ASSERT_EQ(filtered, 0);
  ASSERT_OK(dldb_query_rows(db, &q, collect, &g, err, sizeof err));
  ASSERT_STR_EQ(g.s, "");
  dldb_close(&db);
  ASSERT_OK(renamed_sorted(path));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: server_test_nvtx_pages WORKDIR\n");
    return 2;
  }
  workdir = argv[1];
  RUN(test_pages);
  TEST_DONE();
}
