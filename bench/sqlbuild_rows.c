/*
 * sqlbuild_rows.c - what a row costs common/dl_sqlbuild.c's caller: the
 * CPU time of the thread that gives the rows (encoding the record, its
 * cell, the pages; not the set's writer thread, nor making the values:
 * blocks of rows are made, then given, and only the giving is timed), in
 * ns a row, for tables shaped like the big ones of a 10 M-kernel dldb:
 * `kernels` (a rowid table of 19 integer columns), `aggr_nvtx_runs`
 * (WITHOUT ROWID, 14 columns, two REAL and several NULL), `strings` (an
 * integer key and a ~100-byte text) and an index of 4 integers. Each run
 * writes a fresh file past the page cache, as the dldb's derived tables
 * are (docs/performance.md, "A built table's rows").
 *
 * Build and run (prints ns a row for each table, the best of RUNS runs):
 *   cc -O2 -Icommon -o /tmp/sqlbuild_rows bench/sqlbuild_rows.c \
 *      common/dl_sqlbuild.c common/dl_sqlpage.c common/dl_direct.c common/dl.c \
 *      -lsqlite3 -lpthread -lm
 *   /tmp/sqlbuild_rows [rows (default 2000000)] [runs (default 3)] [dir (default /tmp)]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dl_sqlbuild.h"

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Fills row r's values; v has room for every column. */
typedef void (*fill_fn)(int64_t r, dl_sqlpage_val *v, char *text);

static dl_sqlpage_val I(int64_t i) { return (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = i}; }
static dl_sqlpage_val N(void) { return (dl_sqlpage_val){.type = SQLITE_NULL}; }
static dl_sqlpage_val R(double d) { return (dl_sqlpage_val){.type = SQLITE_FLOAT, .d = d}; }

static void fill_kernels(int64_t r, dl_sqlpage_val *v, char *text) {
  (void)text;
  int64_t t = 517790929670 + r * 3000;
  const dl_sqlpage_val row[19] = {
      I(r + 1), I(10710011 + r % 40), I(10710011 + r % 40), I(0), I(1), I(7), I(t),
      I(t + 1000 + r % 777), I(5015002 + r), I(31337), I(784), I(1), I(1), I(256), I(1),
      I(1), I(168), I(0), I(49152)};
  memcpy(v, row, sizeof row);
}

static void fill_runs(int64_t r, dl_sqlpage_val *v, char *text) {
  (void)text;
  int one = r % 3 == 0;
  const dl_sqlpage_val row[14] = {
      I(1), I(6), I(r), I(r * 2 + 1), I(one ? 1 : 4), I(12000 + r % 9000),
      one ? N() : R(3000.5), I(2900), I(3100), one ? N() : R(12.25),
      (r & 1) ? I(11000) : N(), (r & 1) ? I(3) : N(), (r & 1) ? I(2) : N(), (r & 1) ? I(5) : N()};
  memcpy(v, row, sizeof row);
}

static void fill_strings(int64_t r, dl_sqlpage_val *v, char *text) {
  int n = snprintf(text, 160,
                   "aten::conv2d, seq = %lld, op_id = %lld, sizes = [[64, 256, 56, 56], "
                   "[64, 256, 1, 1]], input_op_ids = [%lld]",
                   (long long)r / 2, (long long)r, (long long)r - 2);
  v[0] = I(r + 1);
  v[1] = (dl_sqlpage_val){.type = SQLITE_TEXT, .s = text, .n = n < 160 ? n : 159};
}

static void fill_index(int64_t r, dl_sqlpage_val *v, char *text) {
  (void)text;
  v[0] = I(1);
  v[1] = I(517790929670 + r * 3000);
  v[2] = I(r / 1000);
  v[3] = I(r + 1);
}

typedef struct shape {
  const char *name;
  const char *sql; /* creates the table (and the index) */
  const char *build; /* the table or index built */
  int index, ncols;
  fill_fn fill;
} shape;

static const shape shapes[] = {
    {"kernels (rowid, 19 integers)",
     "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL, "
     "c INTEGER NOT NULL, d INTEGER NOT NULL, e INTEGER NOT NULL, f INTEGER NOT NULL, "
     "g INTEGER NOT NULL, h INTEGER NOT NULL, i INTEGER NOT NULL, j INTEGER NOT NULL, "
     "k INTEGER NOT NULL, l INTEGER NOT NULL, m INTEGER NOT NULL, n INTEGER NOT NULL, "
     "o INTEGER NOT NULL, p INTEGER NOT NULL DEFAULT 0, q INTEGER NOT NULL DEFAULT 0, "
     "r INTEGER NOT NULL DEFAULT 0)",
     "t", 0, 19, fill_kernels},
    {"aggr_nvtx_runs (WITHOUT ROWID, 14)",
     "CREATE TABLE t (aggr_id INTEGER NOT NULL, kind INTEGER NOT NULL, row_idx INTEGER "
     "NOT NULL, key INTEGER NOT NULL, instances INTEGER NOT NULL, total INTEGER NOT NULL, "
     "med REAL, min INTEGER, max INTEGER, stddev REAL, range_time INTEGER, gpu_ops INTEGER, "
     "levels INTEGER, children INTEGER, PRIMARY KEY (aggr_id, kind, row_idx)) WITHOUT ROWID",
     "t", 0, 14, fill_runs},
    {"strings (rowid, ~100-byte text)",
     "CREATE TABLE t (id INTEGER PRIMARY KEY, value TEXT NOT NULL)", "t", 0, 2, fill_strings},
    {"index of 4 integers",
     "CREATE TABLE t (a INTEGER, b INTEGER, c INTEGER, d INTEGER, PRIMARY KEY (a, c, d)) "
     "WITHOUT ROWID; CREATE INDEX t_by_b ON t(a, b)",
     "t_by_b", 1, 4, fill_index},
};

/* One run: ns a row on this thread, or -1 on an error (printed). */
static double run(const shape *s, int64_t rows, const char *path) {
  unlink(path);
  sqlite3 *db = NULL;
  dl_sqlbuild_set *set = NULL;
  dl_sqlbuild *b = NULL;
  double ns = -1;
  if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, s->sql, NULL, NULL, NULL) ||
      dl_sqlbuild_begin(db, &set)) {
    fprintf(stderr, "sqlbuild_rows: %s: %s\n", path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return -1;
  }
  dl_sqlbuild_uncached(set);
  int rc = s->index ? dl_sqlbuild_add_index(set, s->build, s->ncols, &b)
                    : dl_sqlbuild_add(set, s->build, s->ncols, &b);
  enum { BLOCK = 4096 };
  static dl_sqlpage_val v[BLOCK][32];
  static char text[BLOCK][160];
  double spent = 0;
  for (int64_t r0 = 0; rc == 0 && r0 < rows; r0 += BLOCK) {
    int64_t n = rows - r0 < BLOCK ? rows - r0 : BLOCK;
    for (int64_t j = 0; j < n; j++) s->fill(r0 + j, v[j], text[j]);
    double t0 = cpu_now();
    for (int64_t j = 0; rc == 0 && j < n; j++) rc = dl_sqlbuild_row(b, v[j]);
    spent += cpu_now() - t0;
  }
  if (dl_sqlbuild_end(&set, rc == 0) == 0 && rc == 0) ns = spent * 1e9 / (double)rows;
  else fprintf(stderr, "sqlbuild_rows: %s: the build failed (%d)\n", s->name, rc);
  sqlite3_close(db);
  unlink(path);
  return ns;
}

int main(int argc, char **argv) {
  int64_t rows = argc > 1 ? atoll(argv[1]) : 2000000;
  int runs = argc > 2 ? atoi(argv[2]) : 3;
  const char *dir = argc > 3 ? argv[3] : "/tmp";
  if (rows < 1 || runs < 1) {
    fprintf(stderr, "usage: sqlbuild_rows [rows >= 1] [runs >= 1] [dir]\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/sqlbuild_rows.%d.sqlite", dir, (int)getpid());
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    double best = -1;
    for (int i = 0; i < runs; i++) {
      double ns = run(&shapes[k], rows, path);
      if (ns < 0) return 1;
      if (best < 0 || ns < best) best = ns;
    }
    printf("%-38s %7.1f ns a row (best of %d, %lld rows)\n", shapes[k].name, best, runs,
           (long long)rows);
  }
  return 0;
}
