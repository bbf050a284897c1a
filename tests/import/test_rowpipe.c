/*
 * test_rowpipe.c - the row pipe (import/rowpipe.h) against stepping the same
 * statement directly, on a real SQLite table: every type, text and NULL,
 * many batches, a consumer that stops early, a statement that fails in
 * the middle of its rows, hashes of texts and the look ahead.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"
#include "rowpipe.h"
#include "test.h"

static sqlite3 *db;

/* Enough rows for the ring of batches to wrap 3 times, and a part batch. */
enum { NROWS = RP_BATCH_ROWS * RP_BATCHES * 3 + 17 };

static int make_table(void) {
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  char sql[1024];
  snprintf(sql, sizeof sql, "%s%d%s",
           "CREATE TABLE t(i, f, s, n);"
           "WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM k WHERE x < ",
           NROWS,
           ") INSERT INTO t SELECT x, CASE x % 3 WHEN 0 THEN x * 0.5 WHEN 1 "
           " THEN 'txt' || x ELSE x END, CASE WHEN x % 5 = 0 THEN NULL "
           " WHEN x % 7 = 0 THEN 42 ELSE printf('name %d %s', x, "
           " substr(hex(zeroblob(x % 300)), 1, x % 300)) END, "
           " CASE WHEN x % 2 = 0 THEN x * 1.0 ELSE NULL END FROM k");
  ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  return 0;
}

/* Reads every row through the pipe and compares it with stepping a second
 * statement directly. */
static int test_same_rows(void) {
  const char *sql = "SELECT i, f, s, n FROM t ORDER BY i";
  sqlite3_stmt *a = NULL, *b = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &a, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &b, NULL), SQLITE_OK);
  rowpipe *p = NULL;
  ASSERT_OK(rowpipe_open(a, 1u << 2, NULL, &p)); /* s as text */
  const rp_cell *c;
  int rc = 0, rows = 0, texts = 0;
  while ((c = rowpipe_next(p, &rc))) {
    ASSERT_EQ(sqlite3_step(b), SQLITE_ROW);
    for (int i = 0; i < 4; i++) {
      ASSERT_EQ(c[i].type, sqlite3_column_type(b, i));
      ASSERT_EQ(c[i].i, sqlite3_column_int64(b, i));
      if (c[i].type == SQLITE_FLOAT) ASSERT(c[i].d == sqlite3_column_double(b, i));
    }
    const unsigned char *t = sqlite3_column_text(b, 2);
    ASSERT_NOT_NULL(c[2].s);
    ASSERT_STR_EQ(c[2].s, t ? (const char *)t : "");
    texts += t != NULL;
    ASSERT_NULL(c[0].s); /* not a text column */
    rows++;
  }
  ASSERT_EQ(rc, SQLITE_DONE);
  ASSERT_EQ(sqlite3_step(b), SQLITE_DONE);
  ASSERT_EQ(rows, NROWS);
  ASSERT(texts > NROWS * 7 / 10); /* s is NULL for a fifth */
  ASSERT_NULL(rowpipe_next(p, &rc)); /* stays at the end */
  ASSERT_EQ(rc, SQLITE_DONE);
  rowpipe_close(&p);
  ASSERT_NULL(p);
  sqlite3_finalize(a);
  sqlite3_finalize(b);
  return 0;
}

/* Closing after a few rows stops the reader; the statement can then be
 * reset and read again. */
static int test_early_close(void) {
  sqlite3_stmt *a = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT i FROM t ORDER BY i", -1, &a, NULL), SQLITE_OK);
  for (int round = 0; round < 3; round++) {
    rowpipe *p = NULL;
    ASSERT_OK(rowpipe_open(a, 0, NULL, &p));
    int rc = 0;
    for (int k = 1; k <= 5 + round * RP_BATCH_ROWS; k++) {
      const rp_cell *c = rowpipe_next(p, &rc);
      ASSERT_NOT_NULL(c);
      ASSERT_EQ(c[0].i, k);
    }
    rowpipe_close(&p);
    sqlite3_reset(a);
  }
  sqlite3_finalize(a);
  return 0;
}

/* A statement that fails after thousands of rows: the rows before come,
 * then NULL with the statement's error. */
static int test_step_error(void) {
  sqlite3_stmt *a = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT CASE WHEN i > 5000 THEN abs(-9223372036854775807 - 1) "
                               "ELSE i END FROM t", /* rowid order, computed row by row */
                               -1, &a, NULL),
            SQLITE_OK);
  rowpipe *p = NULL;
  ASSERT_OK(rowpipe_open(a, 1u, NULL, &p));
  int rc = 0, rows = 0;
  const rp_cell *c;
  while ((c = rowpipe_next(p, &rc))) {
    ASSERT_EQ(c[0].i, rows + 1);
    rows++;
  }
  ASSERT_EQ(rows, 5000);
  ASSERT_EQ(rc, SQLITE_ERROR);
  rowpipe_close(&p);
  sqlite3_finalize(a);
  return 0;
}

/* A test hash: the length and the bytes, so that a text cut at a NUL or
 * hashed over other bytes gives another value. */
static uint64_t len_hash(const char *s, size_t n) {
  uint64_t h = n + 1;
  for (size_t i = 0; i < n; i++) h = h * 31 + (unsigned char)s[i];
  return h;
}

/* With a hash, each text cell carries hash(text up to its first NUL),
 * other cells 0; rowpipe_peek(p, k) is the row that the k-th next call
 * returns while it is in the batch already read, else NULL. */
static int test_hash_and_peek(void) {
  sqlite3_stmt *a = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT i, CASE WHEN i = 3 THEN 'ab' || char(0) || 'cd' ELSE s END "
                               "FROM t ORDER BY i",
                               -1, &a, NULL),
            SQLITE_OK);
  rowpipe *p = NULL;
  ASSERT_OK(rowpipe_open(a, 1u << 1, len_hash, &p));
  ASSERT_NULL(rowpipe_peek(p, 1)); /* nothing returned yet */
  const rp_cell *c, *ahead[RP_BATCH_ROWS + 1] = {NULL};
  int rc = 0, rows = 0, peeked = 0;
  while ((c = rowpipe_next(p, &rc))) {
    rows++;
    ASSERT_EQ(c[0].i, rows);
    ASSERT_EQ(c[0].h, 0);
    ASSERT_EQ(c[1].h, len_hash(c[1].s, strlen(c[1].s)));
    if (rows == 3) ASSERT_STR_EQ(c[1].s, "ab");
    if (ahead[rows % (RP_BATCH_ROWS + 1)]) { /* what a peek said this row would be */
      ASSERT_EQ(ahead[rows % (RP_BATCH_ROWS + 1)][0].i, rows);
      ahead[rows % (RP_BATCH_ROWS + 1)] = NULL;
      peeked++;
    }
    for (int k = 1; k <= 16; k *= 4) {
      const rp_cell *x = rowpipe_peek(p, k);
      int in_batch = (rows - 1) % RP_BATCH_ROWS + k < RP_BATCH_ROWS && rows + k <= NROWS;
      ASSERT_EQ(x != NULL, in_batch);
      if (x) ASSERT_EQ(x[0].i, rows + k);
    }
    ahead[(rows + 1) % (RP_BATCH_ROWS + 1)] = rowpipe_peek(p, 1);
  }
  ASSERT_EQ(rc, SQLITE_DONE);
  ASSERT_EQ(rows, NROWS);
  ASSERT_EQ(peeked, NROWS - (NROWS + RP_BATCH_ROWS - 1) / RP_BATCH_ROWS); /* all but firsts */
  ASSERT_NULL(rowpipe_peek(p, 1)); /* at the end */
  rowpipe_close(&p);
  sqlite3_finalize(a);
  return 0;
}

/* More columns than a pipe carries is refused. */
static int test_too_many_columns(void) {
  char sql[1024] = "SELECT 1";
  for (int i = 1; i <= RP_MAX_COLS; i++) strcat(sql, ", 1");
  sqlite3_stmt *a = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &a, NULL), SQLITE_OK);
  rowpipe *p = NULL;
  ASSERT_EQ(rowpipe_open(a, 0, NULL, &p), DL_EINVAL);
  ASSERT_NULL(p);
  sqlite3_finalize(a);
  return 0;
}

int main(void) {
  if (make_table()) return 1;
  RUN(test_same_rows);
  RUN(test_early_close);
  RUN(test_step_error);
  RUN(test_hash_and_peek);
  RUN(test_too_many_columns);
  sqlite3_close(db);
  TEST_DONE();
}
