/*
 * fuzz_sql.h - SQL text to database bytes, for the harnesses whose input
 * is an SQLite database (fuzz_nsysscan, fuzz_dldbread).
 *
 * An input that does not start with SQLite's header is taken as SQL text:
 * it runs on a fresh ":memory:" database (ATTACH refused, so nothing
 * reaches the file system; a budget of virtual-machine steps, so that a
 * recursive query cannot hang the run) and what it built is serialized.
 * Mutating SQL text reaches valid, odd databases far more often than
 * mutating the bytes of a file; the file's bytes are fuzzed as well.
 *
 * fuzz_db_bytes() returns the input itself (*owned 0) or bytes that
 * sqlite3_serialize made (*owned 1: free with sqlite3_free), or NULL when
 * the SQL built nothing usable.
 */
#ifndef DL_FUZZ_SQL_H
#define DL_FUZZ_SQL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_SQL_STEPS 2000000 /* virtual-machine steps (in units of 1000) */

static int fuzz__sql_steps(void *ctx) {
  long *left = ctx;
  return --*left < 0; /* non-zero interrupts the statement */
}

static int fuzz__sql_auth(void *ctx, int action, const char *a, const char *b, const char *c,
                          const char *d) {
  (void)ctx, (void)a, (void)b, (void)c, (void)d;
  return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

static inline const unsigned char *fuzz_db_bytes(const uint8_t *data, size_t size, size_t *n,
                                                 int *owned) {
  *owned = 0;
  *n = size;
  if (size >= 16 && memcmp(data, "SQLite format 3", 16) == 0) return data;
  char *sql = malloc(size + 1);
  if (!sql) return NULL;
  memcpy(sql, data, size);
  sql[size] = '\0';
  sqlite3 *db = NULL;
  unsigned char *out = NULL;
  sqlite3_int64 len = 0;
  long left = FUZZ_SQL_STEPS / 1000;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
      SQLITE_OK) {
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 8 << 20);
    sqlite3_set_authorizer(db, fuzz__sql_auth, NULL);
    sqlite3_progress_handler(db, 1000, fuzz__sql_steps, &left);
    /* statements before an error stay: a half-built export is input too */
    (void)sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_progress_handler(db, 0, NULL, NULL);
    out = sqlite3_serialize(db, "main", &len, 0);
  }
  sqlite3_close(db);
  free(sql);
  if (!out || len <= 0) {
    sqlite3_free(out);
    return NULL;
  }
  *owned = 1;
  *n = (size_t)len;
  return out;
}

#endif
