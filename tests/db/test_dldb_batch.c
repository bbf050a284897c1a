/*
 * test_dldb_batch.c - db/dldb_batch: rows pushed through a batch reach the
 * table as pushed (every type, NULLs, texts of any length, full batches and
 * a remainder), a failing row reports the error and leaves the batch
 * empty, dropped rows never arrive, and a batch of a table's ids keeps
 * every id pushed, and a batch with a row template (literals, a shared
 * first cell) writes the rows a plain batch does, also when the shared
 * cell changes within a batch, and long texts write a batch before it is
 * full. A real SQLite file.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dldb_batch.h"
#include "test.h"

static const char *dir = ".";

static sqlite3 *open_db(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unlink(path);
  sqlite3 *db = NULL;
  if (sqlite3_open(path, &db) != SQLITE_OK || dldb__batch_register(db) != SQLITE_OK ||
      sqlite3_exec(db,
                   "CREATE TABLE t(id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT NOT NULL)",
                   NULL, NULL, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/* Row k's text: k copies of a letter (0 to 5,000 bytes), so the text
 * buffer grows several times within a batch. */
static void text_of(int k, char *buf) {
  int n = (k * 37) % 5001;
  memset(buf, 'a' + k % 26, (size_t)n);
  buf[n] = '\0';
}

static int test_rows_arrive_as_pushed(void) {
  sqlite3 *db = open_db("batch-rows.sqlite");
  ASSERT(db);
  dldb__batch b;
  dldb__batch_init(&b, "INSERT INTO t(i, r, s) VALUES ", 3);
  enum { N = 3 * DLDB__BATCH_ROWS + 7 };
  static char buf[5002];
  for (int k = 0; k < N; k++) {
    text_of(k, buf);
    dldb__cell row[3] = {k % 5 ? DLDB__I((int64_t)k * 1000000007) : DLDB__N, DLDB__R(k + 0.25),
                         DLDB__T(buf, -1)};
    ASSERT_EQ(dldb__batch_push(&b, db, row), SQLITE_OK);
    memset(buf, 'z', strlen(buf)); /* the batch holds its own copy */
    /* full batches are written at once; the rest waits for the flush */
    ASSERT_EQ(b.nrows, (k + 1) % DLDB__BATCH_ROWS);
  }
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  ASSERT_EQ(sqlite3_column_int(st, 0), 3 * DLDB__BATCH_ROWS);
  sqlite3_finalize(st);
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_OK);
  ASSERT_EQ(b.nrows, 0);
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT id, i, r, s FROM t ORDER BY id", -1, &st, NULL),
            SQLITE_OK);
  int k = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    text_of(k, buf);
    ASSERT_EQ(sqlite3_column_int64(st, 0), k + 1);
    if (k % 5) ASSERT_EQ(sqlite3_column_int64(st, 1), (int64_t)k * 1000000007);
    else ASSERT_EQ(sqlite3_column_type(st, 1), SQLITE_NULL);
    ASSERT(sqlite3_column_double(st, 2) == k + 0.25);
    ASSERT_EQ(sqlite3_column_bytes(st, 3), strlen(buf));
    ASSERT(strcmp((const char *)sqlite3_column_text(st, 3), buf) == 0);
    k++;
  }
  sqlite3_finalize(st);
  ASSERT_EQ(k, N);
  dldb__batch_free(&b);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK); /* every statement finalized */
  return 0;
}

static int count_rows(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  int n = -1;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return n;
}

static int test_failure_and_drop(void) {
  sqlite3 *db = open_db("batch-fail.sqlite");
  ASSERT(db);
  dldb__batch b;
  dldb__batch_init(&b, "INSERT INTO t(i, r, s) VALUES ", 3);
  /* a NULL text in a NOT NULL column, in a full batch: the statement fails
   * as a whole and the batch forgets its rows */
  for (int k = 0; k < DLDB__BATCH_ROWS - 1; k++) {
    dldb__cell row[3] = {DLDB__I(k), DLDB__R(0), DLDB__T("x", 1)};
    ASSERT_EQ(dldb__batch_push(&b, db, row), SQLITE_OK);
  }
  dldb__cell bad[3] = {DLDB__I(-1), DLDB__R(0), DLDB__N};
  ASSERT_EQ(dldb__batch_push(&b, db, bad), SQLITE_CONSTRAINT);
  ASSERT(strstr(sqlite3_errmsg(db), "NOT NULL") != NULL);
  ASSERT_EQ(b.nrows, 0);
  ASSERT_EQ(count_rows(db), 0);
  /* the same in a remainder, written by the flush */
  dldb__cell good[3] = {DLDB__I(1), DLDB__R(0), DLDB__T("y", -1)};
  ASSERT_EQ(dldb__batch_push(&b, db, good), SQLITE_OK);
  ASSERT_EQ(dldb__batch_push(&b, db, bad), SQLITE_OK); /* not written yet */
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_CONSTRAINT);
  ASSERT(strstr(sqlite3_errmsg(db), "NOT NULL") != NULL);
  ASSERT_EQ(b.nrows, 0);
  ASSERT_EQ(count_rows(db), 0);
  /* dropped rows never arrive; the batch goes on after a failure */
  ASSERT_EQ(dldb__batch_push(&b, db, good), SQLITE_OK);
  dldb__batch_drop(&b);
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_OK);
  ASSERT_EQ(count_rows(db), 0);
  ASSERT_EQ(dldb__batch_push(&b, db, good), SQLITE_OK);
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_OK);
  ASSERT_EQ(count_rows(db), 1);
  dldb__batch_free(&b);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

/* 1 if table t has exactly the ids ids[0..n-1] (in any order). */
static int has_ids(sqlite3 *db, const int64_t *ids, int n) {
  if (count_rows(db) != n) return 0;
  for (int i = 0; i < n; i++) {
    sqlite3_stmt *st = NULL;
    int found = sqlite3_prepare_v2(db, "SELECT 1 FROM t WHERE id = ?1", -1, &st, NULL) ==
                    SQLITE_OK &&
                (sqlite3_bind_int64(st, 1, ids[i]), sqlite3_step(st) == SQLITE_ROW);
    sqlite3_finalize(st);
    if (!found) return 0;
  }
  return 1;
}

/* A batch of a table's ids writes an id as NULL where SQLite would pick
 * that id itself, and every row gets the id pushed: in order, after a
 * gap, below the largest, and after a rollback (forget_ids). */
static int test_ids(void) {
  sqlite3 *db = open_db("batch-ids.sqlite");
  ASSERT(db);
  ASSERT_EQ(sqlite3_exec(db, "INSERT INTO t(id, s) VALUES (3, 'old')", NULL, NULL, NULL),
            SQLITE_OK);
  dldb__batch b;
  dldb__batch_init_ids(&b, "INSERT OR FAIL INTO t(id, i, s) VALUES ", 3, "t");
  static const int64_t pushed[] = {4, 5, 9, 10, 2, 11};
  for (int k = 0; k < 6; k++) {
    dldb__cell row[3] = {DLDB__I(pushed[k]), DLDB__I(k), DLDB__T("x", 1)};
    ASSERT_EQ(dldb__batch_push(&b, db, row), SQLITE_OK);
  }
  /* 4, 5, 10 and 11 follow the largest id: NULL; 9 and 2 do not */
  static const int null_id[] = {1, 1, 0, 1, 0, 1};
  for (int k = 0; k < 6; k++) ASSERT_EQ(b.cells[3 * k].type == DLDB__NULL, null_id[k]);
  for (int64_t id = 12; id < 12 + 2 * DLDB__BATCH_ROWS; id++) { /* full batches too */
    dldb__cell row[3] = {DLDB__I(id), DLDB__I(0), DLDB__T("y", 1)};
    ASSERT_EQ(dldb__batch_push(&b, db, row), SQLITE_OK);
  }
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_OK);
  int64_t want[8 + 2 * DLDB__BATCH_ROWS] = {3, 4, 5, 9, 10, 2, 11};
  int n = 7;
  for (int64_t id = 12; id < 12 + 2 * DLDB__BATCH_ROWS; id++) want[n++] = id;
  ASSERT(has_ids(db, want, n));
  /* rows rolled back: the largest id is read again, so an id past the
   * table's largest + 1 stays as pushed */
  int64_t next = 12 + 2 * DLDB__BATCH_ROWS;
  ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
  for (int k = 0; k < 5; k++) {
    dldb__cell row[3] = {DLDB__I(next + k), DLDB__I(0), DLDB__T("z", 1)};
    ASSERT_EQ(dldb__batch_push(&b, db, row), SQLITE_OK);
  }
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
  dldb__batch_forget_ids(&b);
  dldb__cell row[3] = {DLDB__I(next + 5), DLDB__I(0), DLDB__T("w", 1)};
  ASSERT_EQ(dldb__batch_push(&b, db, row), SQLITE_OK);
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_OK);
  want[n++] = next + 5;
  ASSERT(has_ids(db, want, n));
  dldb__batch_free(&b);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

/* Rows (g, k, 7, k * 3, NULL) of a table u(g, k, seven, v, n): g shared
 * (?1), 7 and NULL literals; g changes after 40 rows (within the second
 * batch) and after 75 (a remainder written one row a statement). */
static int test_row_template(void) {
  sqlite3 *db = open_db("batch-template.sqlite");
  ASSERT(db);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE u(g INTEGER, k INTEGER, seven INTEGER, v INTEGER, n)",
                         NULL, NULL, NULL),
            SQLITE_OK);
  dldb__batch b;
  dldb__batch_init(&b, "INSERT INTO u(g, k, seven, v, n) VALUES ", 3);
  dldb__batch_set_row(&b, "(?1,?,7,?,NULL)", 1);
  enum { N = 3 * DLDB__BATCH_ROWS - 3 };
  for (int k = 0; k < N; k++) {
    int64_t g = k < 40 ? 100 : k < 75 ? 200 : 300;
    dldb__cell row[3] = {DLDB__I(g), DLDB__I(k), DLDB__I((int64_t)k * 3)};
    ASSERT_EQ(dldb__batch_push(&b, db, row), SQLITE_OK);
  }
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT g, k, seven, v, typeof(n) FROM u ORDER BY k", -1, &st,
                               NULL),
            SQLITE_OK);
  int k = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    ASSERT_EQ(sqlite3_column_int64(st, 0), (k < 40 ? 100 : k < 75 ? 200 : 300));
    ASSERT_EQ(sqlite3_column_int64(st, 1), k);
    ASSERT_EQ(sqlite3_column_int64(st, 2), 7);
    ASSERT_EQ(sqlite3_column_int64(st, 3), (int64_t)k * 3);
    ASSERT(strcmp((const char *)sqlite3_column_text(st, 4), "null") == 0);
    k++;
  }
  sqlite3_finalize(st);
  ASSERT_EQ(k, N);
  dldb__batch_free(&b);
  ASSERT(b.row_sql != NULL && b.shared == 1); /* kept for the next use */
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

/* Rows of long texts are written before the batch holds DLDB__BATCH_ROWS:
 * once their copies pass DLDB__BATCH_TEXT bytes. */
static int test_text_bound(void) {
  sqlite3 *db = open_db("batch-text.sqlite");
  ASSERT(db);
  dldb__batch b;
  dldb__batch_init(&b, "INSERT INTO t(i, r, s) VALUES ", 3);
  enum { LEN = 100 << 10, PER = DLDB__BATCH_TEXT / (LEN + 1) + 1 };
  static char buf[LEN + 1];
  memset(buf, 'q', LEN);
  for (int k = 0; k < 2 * PER + 3; k++) {
    dldb__cell row[3] = {DLDB__I(k), DLDB__R(0), DLDB__T(buf, LEN)};
    ASSERT_EQ(dldb__batch_push(&b, db, row), SQLITE_OK);
    ASSERT_EQ(b.nrows, (k + 1) % PER);
    ASSERT(b.tlen < DLDB__BATCH_TEXT);
  }
  ASSERT_EQ(count_rows(db), 2 * PER);
  ASSERT_EQ(dldb__batch_flush(&b, db), SQLITE_OK);
  ASSERT_EQ(count_rows(db), 2 * PER + 3);
  dldb__batch_free(&b);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) dir = argv[1];
  RUN(test_rows_arrive_as_pushed);
  RUN(test_failure_and_drop);
  RUN(test_ids);
  RUN(test_row_template);
  RUN(test_text_bound);
  TEST_DONE();
}
