/*
 * test_sql.h - one integer from a query, tables of two files compared row
 * by row and PRAGMA integrity_check, for the C tests that read a dldb
 * through their own sqlite3 handle.
 */
#ifndef DL_TEST_SQL_H
#define DL_TEST_SQL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* Every table of db's main schema whose name is LIKE pattern (ESCAPE '\\')
 * against the table of the same name in the attached schema other, row by
 * row both ways (EXCEPT): how many tables were compared, or -1 (the
 * table's name on stderr) where one differs. */
static inline int same_tables(sqlite3 *db, const char *other, const char *pattern) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name "
                             "LIKE ?1 ESCAPE '\\' ORDER BY name",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
  int tables = 0;
  while (tables >= 0 && sqlite3_step(st) == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(st, 0);
    for (int way = 0; way < 2 && tables >= 0; way++) {
      char *sql = sqlite3_mprintf("SELECT count(*) FROM (SELECT * FROM %s.\"%w\" EXCEPT SELECT * "
                                  "FROM %s.\"%w\")",
                                  way ? other : "main", t, way ? "main" : other, t);
      if (!sql || q_int(db, sql) != 0) {
        fprintf(stderr, "%s differs\n", t);
        tables = -1;
      }
      sqlite3_free(sql);
    }
    if (tables >= 0) tables++;
  }
  sqlite3_finalize(st);
  return tables;
}

/* 1 when PRAGMA schema.integrity_check says "ok" (its first line on
 * stderr otherwise). */
static inline int integrity_ok(sqlite3 *db, const char *schema) {
  char *sql = sqlite3_mprintf("PRAGMA \"%w\".integrity_check", schema);
  sqlite3_stmt *st = NULL;
  int ok = 0;
  if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    const char *r = (const char *)sqlite3_column_text(st, 0);
    ok = r && !strcmp(r, "ok");
    if (!ok) fprintf(stderr, "integrity_check: %s\n", r ? r : "");
  }
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return ok;
}

#endif
