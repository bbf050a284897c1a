/*
 * test_sql.h - one integer from a query, for the C tests that read a dldb
 * through their own sqlite3 handle.
 */
#ifndef DL_TEST_SQL_H
#define DL_TEST_SQL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

/* The first column of sql's first row as an integer (NULL: 0); -999, and
 * the statement and SQLite's message on stderr, when it has no row or
 * fails. */
static inline int64_t q_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  int64_t v = -999;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  else
    fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return v;
}

#endif
