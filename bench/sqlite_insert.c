/*
 * sqlite_insert.c - what one row of a multi-row INSERT costs SQLite, for
 * the choices db/dldb_write.c makes (docs/performance.md, "Helpers"):
 * plain INSERT against INSERT OR FAIL (no statement journal), an explicit
 * INTEGER PRIMARY KEY against NULL (SQLite picks max + 1 itself), a
 * WITHOUT ROWID table, the NULL columns of a row bound or left out, and
 * the writer's own batch (db/dldb_batch.c: DLDB__BATCH_ROWS rows an
 * INSERT ... SELECT from its dldb_rows table, nothing bound per cell).
 * The table has aggr_nvtx_runs' 14 columns; every variant writes the same
 * rows (ids in order) with the writer's pragmas, in one transaction.
 *
 * Build and run (prints ns a row for each variant, best of --runs):
 *   cc -O2 -Idb -o /tmp/sqlite_insert bench/sqlite_insert.c db/dldb_batch.c -lsqlite3
 *   /tmp/sqlite_insert [rows (default 4000000)] [runs (default 3)] [dir (default /tmp)]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dldb_batch.h"

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
  int batch;         /* through a dldb__batch rather than 32-row VALUES */
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

/* Row id's cells (the variant's columns). */
static void row_of(const variant *v, long id, dldb__cell *c) {
  if (strstr(v->table, "WITHOUT")) c[0] = DLDB__I(1);
  else if (v->null_id) c[0] = DLDB__N;
  else c[0] = DLDB__I(id);
  c[1] = DLDB__I(6);
  c[2] = DLDB__I(id);
  c[3] = DLDB__I(id * 2 + 1);
  c[4] = DLDB__I(1);
  c[5] = DLDB__I((id * 2654435761L) % 100000);
  for (int k = 6; k < v->ncols; k++) /* range_time .. children, then med .. stddev: NULL */
    c[k] = k < 10 ? DLDB__I(id % 7) : DLDB__N;
}

/* The rows through a batch, its INSERT's head in sql (ids from 1). */
static int run_batch(const variant *v, long n, sqlite3 *db, const char *head) {
  dldb__batch b;
  dldb__batch_init(&b, head, v->ncols);
  dldb__cell c[NCOLS];
  int rc = SQLITE_OK;
  for (long id = 1; id <= n && rc == SQLITE_OK; id++) {
    row_of(v, id, c);
    rc = dldb__batch_push(&b, db, c);
  }
  if (rc == SQLITE_OK) rc = dldb__batch_flush(&b, db);
  dldb__batch_free(&b);
  return rc;
}

/* One variant: ns a row, or -1 on an SQLite error (printed). */
static double run(const variant *v, long n, const char *dir) {
  char path[4096], sql[65536];
  snprintf(path, sizeof path, "%s/sqlite_insert.db", dir);
  remove(path);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  double ns = -1;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      NULL) != SQLITE_OK ||
      dldb__batch_register(db) != SQLITE_OK)
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
  if (v->batch) {
    double t0 = now();
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
        run_batch(v, n, db, sql) != SQLITE_OK ||
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
      goto out;
    ns = (now() - t0) / (double)n * 1e9;
    goto out;
  }
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
      dldb__cell c[NCOLS];
      row_of(v, i + r + 1, c);
      for (int k = 0; k < v->ncols; k++) {
        int at = r * v->ncols + k + 1;
        if (c[k].type == DLDB__INT) sqlite3_bind_int64(st, at, c[k].v.i);
        else sqlite3_bind_null(st, at);
      }
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
      {"WITHOUT ROWID, INSERT", "WITHOUT", "INSERT", 0, NCOLS, 0},
      {"WITHOUT ROWID, INSERT OR FAIL", "WITHOUT", "INSERT OR FAIL", 0, NCOLS, 0},
      {"WITHOUT ROWID, INSERT OR FAIL, NULLs left out", "WITHOUT", "INSERT OR FAIL", 0, 10, 0},
      {"rowid, explicit id, INSERT", "rowid", "INSERT", 0, NCOLS, 0},
      {"rowid, explicit id, INSERT OR FAIL", "rowid", "INSERT OR FAIL", 0, NCOLS, 0},
      {"rowid, NULL id, INSERT OR FAIL", "rowid", "INSERT OR FAIL", 1, NCOLS, 0},
      {"WITHOUT ROWID, INSERT OR FAIL, dldb batch", "WITHOUT", "INSERT OR FAIL", 0, NCOLS, 1},
      {"rowid, NULL id, INSERT OR FAIL, dldb batch", "rowid", "INSERT OR FAIL", 1, NCOLS, 1},
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
