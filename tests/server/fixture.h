/*
 * fixture.h - small helpers for the server tests: build an SQLite file from
 * SQL text, write or copy files in the test's work folder. Header-only
 * (static functions), used by the test programs of tests/server/.
 */
#ifndef DL_TEST_FIXTURE_H
#define DL_TEST_FIXTURE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a whole file; returns a new NUL-terminated buffer (free()) or NULL. */
static inline char *fixture_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  if (buf && len) *len = (size_t)n;
  return buf;
}

static inline int fixture_write(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* Creates db_path anew from the SQL in sql_file (NULL: none), then extra (NULL: none). */
static inline int fixture_make(const char *db_path, const char *sql_file, const char *extra) {
  sqlite3 *db = NULL;
  char *sql = sql_file ? fixture_read(sql_file, NULL) : NULL;
  char *msg = NULL;
  unlink(db_path);
  int rc = (sql_file && !sql) ? -1 : 0;
  if (!rc && sqlite3_open(db_path, &db) != SQLITE_OK) rc = -1;
  if (!rc && sql && sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) rc = -1;
  if (!rc && extra && sqlite3_exec(db, extra, NULL, NULL, &msg) != SQLITE_OK) rc = -1;
  if (msg) fprintf(stderr, "fixture %s: %s\n", db_path, msg);
  sqlite3_free(msg);
  sqlite3_close(db);
  free(sql);
  return rc;
}

/* Copies the first n bytes of src to dst (n < 0: all of it). */
static inline int fixture_copy(const char *src, const char *dst, long n) {
  size_t len = 0;
  char *buf = fixture_read(src, &len);
  if (!buf) return -1;
  int rc = fixture_write(dst, buf, n >= 0 && (size_t)n < len ? (size_t)n : len);
  free(buf);
  return rc;
}

#endif
