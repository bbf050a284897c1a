/*
 * sqlite_insert.c - what one row of a 32-row INSERT costs SQLite, for the
 * choices db/dldb_write.c makes (docs/performance.md, "What a row costs"):
 * plain INSERT against INSERT OR FAIL (no statement journal), an explicit
 * INTEGER PRIMARY KEY against NULL (SQLite picks max + 1 itself), a
 * WITHOUT ROWID table, and the NULL columns of a row bound or left out.
 * The table has aggr_nvtx_runs' 14 columns; every variant writes the same
 * rows (ids in order) with the writer's pragmas, in one transaction.
 *
 * Build and run (prints ns a row for each variant, best of --runs):
 *   cc -O2 -o /tmp/sqlite_insert bench/sqlite_insert.c -lsqlite3
 *   /tmp/sqlite_insert [rows (default 4000000)] [runs (default 3)] [dir (default /tmp)]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS_PER_STMT 32
#define NCOLS 14

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct variant {
  const char *name;
  const char *table; /* CREATE TABLE t ... */
  const char *verb;  /* INSERT or INSERT OR FAIL */
  int null_id;       /* bind the first column NULL (SQLite picks the id) */
  int ncols;         /* columns bound: NCOLS, or the first 6 (the rest left out) */
} variant;

static const char *const COLS =
    "(id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, row_idx INTEGER NOT NULL, key INTEGER NOT "
    "NULL, instances INTEGER NOT NULL, total INTEGER NOT NULL, med REAL, min INTEGER, max "
    "INTEGER, stddev REAL, range_time INTEGER, gpu_ops INTEGER, levels INTEGER, children "
    "INTEGER)";
static const char *const COLS_WR =
    "(aggr_id INTEGER NOT NULL, kind INTEGER NOT NULL, row_idx INTEGER NOT NULL, key INTEGER NOT "
    "NULL, instances INTEGER NOT NULL, total INTEGER NOT NULL, med REAL, min INTEGER, max "
    "INTEGER, stddev REAL, range_time INTEGER, gpu_ops INTEGER, levels INTEGER, children "
    "INTEGER, PRIMARY KEY (aggr_id, kind, row_idx)) WITHOUT ROWID";

/* One variant: ns a row, or -1 on an SQLite error (printed). */
static double run(const variant *v, long n, const char *dir) {
  char path[4096], sql[65536];
  snprintf(path, sizeof path, "%s/sqlite_insert.db", dir);
  remove(path);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  double ns = -1;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      NULL) != SQLITE_OK)
    goto out;
  snprintf(sql, sizeof sql,
           "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA page_size=8192; "
           "PRAGMA cache_size=-4096; CREATE TABLE t%s",
           strstr(v->table, "WITHOUT") ? COLS_WR : COLS);
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) goto out;
  static const char *const names[NCOLS] = {"", "kind", "row_idx", "key", "instances", "total",
                                           "range_time", "gpu_ops", "levels", "children",
                                           "med", "min", "max", "stddev"};
  int l = snprintf(sql, sizeof sql, "%s INTO t(%s", v->verb,
                   strstr(v->table, "WITHOUT") ? "aggr_id" : "id");
  for (int c = 1; c < v->ncols; c++)
    l += snprintf(sql + l, sizeof sql - (size_t)l, ", %s", names[c]);
  l += snprintf(sql + l, sizeof sql - (size_t)l, ") VALUES ");
  for (int r = 0; r < ROWS_PER_STMT; r++) {
    l += snprintf(sql + l, sizeof sql - (size_t)l, "%s(", r ? ", " : "");
    for (int c = 0; c < v->ncols; c++)
      l += snprintf(sql + l, sizeof sql - (size_t)l, "%s?", c ? ", " : "");
    l += snprintf(sql + l, sizeof sql - (size_t)l, ")");
  }
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) goto out;
  double t0 = now();
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) goto out;
  for (long i = 0; i < n; i += ROWS_PER_STMT) {
    for (int r = 0; r < ROWS_PER_STMT; r++) {
      long id = i + r + 1;
      int b = r * v->ncols;
      if (strstr(v->table, "WITHOUT")) sqlite3_bind_int64(st, b + 1, 1);
      else if (v->null_id) sqlite3_bind_null(st, b + 1);
      else sqlite3_bind_int64(st, b + 1, id);
      sqlite3_bind_int64(st, b + 2, 6);
      sqlite3_bind_int64(st, b + 3, id);
      sqlite3_bind_int64(st, b + 4, id * 2 + 1);
      sqlite3_bind_int64(st, b + 5, 1);
      sqlite3_bind_int64(st, b + 6, (id * 2654435761L) % 100000);
      for (int c = 6; c < v->ncols; c++) /* range_time .. children, then med .. stddev: NULL */
        if (c < 10) sqlite3_bind_int64(st, b + c + 1, id % 7);
        else sqlite3_bind_null(st, b + c + 1);
    }
    if (sqlite3_step(st) != SQLITE_DONE) goto out;
    sqlite3_reset(st);
  }
  if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) goto out;
  ns = (now() - t0) / (double)n * 1e9;
out:
  if (ns < 0) fprintf(stderr, "sqlite_insert: %s: %s\n", v->name, db ? sqlite3_errmsg(db) : "open");
  sqlite3_finalize(st);
  sqlite3_close(db);
  remove(path);
  return ns;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 4000000;
  int runs = argc > 2 ? atoi(argv[2]) : 3;
  const char *dir = argc > 3 ? argv[3] : "/tmp";
  if (n < ROWS_PER_STMT || runs < 1) {
    fprintf(stderr, "usage: sqlite_insert [rows >= %d] [runs >= 1] [dir]\n", ROWS_PER_STMT);
    return 2;
  }
  n -= n % ROWS_PER_STMT;
  static const variant vs[] = {
      {"WITHOUT ROWID, INSERT", "WITHOUT", "INSERT", 0, NCOLS},
      {"WITHOUT ROWID, INSERT OR FAIL", "WITHOUT", "INSERT OR FAIL", 0, NCOLS},
      {"WITHOUT ROWID, INSERT OR FAIL, NULLs left out", "WITHOUT", "INSERT OR FAIL", 0, 10},
      {"rowid, explicit id, INSERT", "rowid", "INSERT", 0, NCOLS},
      {"rowid, explicit id, INSERT OR FAIL", "rowid", "INSERT OR FAIL", 0, NCOLS},
      {"rowid, NULL id, INSERT OR FAIL", "rowid", "INSERT OR FAIL", 1, NCOLS},
  };
  printf("%ld rows of %d columns, %d rows an INSERT, best of %d runs\n", n, NCOLS, ROWS_PER_STMT,
         runs);
  for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
    double best = -1;
    for (int r = 0; r < runs; r++) {
      double ns = run(&vs[i], n, dir);
      if (ns < 0) return 1;
      if (best < 0 || ns < best) best = ns;
    }
    printf("%-48s %6.0f ns a row\n", vs[i].name, best);
  }
  return 0;
}
