/*
 * ctest_util.h - helpers for the collector tests: one-value SQLite
 * queries on a finished store, and running a program with extra
 * environment and a wait with a timeout.
 */
#ifndef DLC_CTEST_UTIL_H
#define DLC_CTEST_UTIL_H

#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The first column of the first row of sql as an integer (-999 on error). */
static inline int64_t q_int(const char *db, const char *sql) {
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  int64_t v = -999;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  else
    fprintf(stderr, "query failed: %s: %s\n", sql, h ? sqlite3_errmsg(h) : "?");
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

/* Same as text, copied into a static buffer ("" when NULL, "<error>"). */
static inline const char *q_text(const char *db, const char *sql) {
  static char buf[1024];
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  snprintf(buf, sizeof buf, "<error>");
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(buf, sizeof buf, "%s", t ? (const char *)t : "");
  } else {
    fprintf(stderr, "query failed: %s: %s\n", sql, h ? sqlite3_errmsg(h) : "?");
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return buf;
}

/* Starts argv with NAME=VALUE pairs from env (NULL-ended) added and
 * stderr sent to err_path (NULL: inherited). Returns the pid. */
static inline pid_t spawn(char *const argv[], const char *const env[], const char *err_path) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  for (int i = 0; env && env[i]; i += 2) setenv(env[i], env[i + 1], 1);
  if (err_path) {
    FILE *f = freopen(err_path, "w", stderr);
    (void)f;
  }
  execv(argv[0], argv);
  _exit(126);
}

/* Waits for pid up to timeout_ms; returns the raw wait status, or -1
 * (after killing it) on timeout. */
static inline int wait_for(pid_t pid, int timeout_ms) {
  int ws = 0;
  for (int waited = 0; waited <= timeout_ms; waited += 10) {
    pid_t r = waitpid(pid, &ws, WNOHANG);
    if (r == pid) return ws;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &ws, 0);
  return -1;
}

/* Waits up to timeout_ms for path to exist. */
static inline int wait_file(const char *path, int timeout_ms) {
  struct stat sb;
  for (int waited = 0; waited <= timeout_ms; waited += 10) {
    if (stat(path, &sb) == 0) return 0;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  return -1;
}

static inline char *slurp(const char *path) {
  static char buf[16384];
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = '\0';
  if (f) fclose(f);
  return buf;
}

#endif
