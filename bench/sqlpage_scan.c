/*
 * sqlpage_scan.c - common/dl_sqlpage.c's scan of an Nsight Systems
 * export's three big tables (kernels, CUDA API calls, NVTX ranges) with
 * the columns the importer reads (import/nsys.c), the page cache warm.
 * Prints each table's best of 3 scans, its seconds and ns a row, and a sum
 * of the values read (equal across builds of the scan); fails when a scan
 * does not start or ends early. docs/performance.md quotes it.
 * Build and run: bench/sqlpage_scan.sh [KERNELS] [BUILD_DIR]
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dl_sqlpage.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct table {
  const char *name;
  const char *const *cols;
  int ncols;
  uint32_t text_cols;
} table;

static const char *const kernel_cols[] = {
    "start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
    "demangledName", "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
    "registersPerThread", "staticSharedMemory", "dynamicSharedMemory"};
static const char *const api_cols[] = {"start",  "end",    "eventClass", "globalTid",
                                       "correlationId", "nameId", "returnValue"};
static const char *const nvtx_cols[] = {"start",        "end",      "eventType", "text",
                                        "textId",       "globalTid", "endGlobalTid", "domainId",
                                        "category",     "color"};
static const table tables[] = {
    {"CUPTI_ACTIVITY_KIND_KERNEL", kernel_cols, 18, 0},
    {"CUPTI_ACTIVITY_KIND_RUNTIME", api_cols, 7, 0},
    {"NVTX_EVENTS", nvtx_cols, 10, 1u << 3},
};

/* One scan of t: its rows into *rows, a sum of its values into *sum;
 * seconds, or -1. */
static double scan(sqlite3 *db, const table *t, long *rows, unsigned long *sum) {
  char sql[1024];
  int k = snprintf(sql, sizeof sql, "SELECT ");
  for (int i = 0; i < t->ncols; i++)
    k += snprintf(sql + k, sizeof sql - (size_t)k, "%s%s", i ? ", " : "", t->cols[i]);
  snprintf(sql + k, sizeof sql - (size_t)k, " FROM %s", t->name);
  sqlite3_stmt *st = NULL;
  dl_sqlpage *p = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
      dl_sqlpage_open(db, st, t->name, t->cols, t->ncols, t->text_cols, NULL, 0, &p) != 0) {
    sqlite3_finalize(st);
    return -1;
  }
  dl_sqlpage_val v[32];
  double t0 = now();
  int s;
  *rows = 0;
  *sum = 0;
  while ((s = dl_sqlpage_next(p, v)) == SQLITE_ROW) {
    ++*rows;
    for (int i = 0; i < t->ncols; i++) *sum += (unsigned long)v[i].i + v[i].n;
  }
  double dt = now() - t0;
  dl_sqlpage_close(&p);
  sqlite3_finalize(st);
  return s == SQLITE_DONE ? dt : -1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: sqlpage_scan EXPORT\n");
    return 2;
  }
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    fprintf(stderr, "sqlpage_scan: %s: cannot open\n", argv[1]);
    return 1;
  }
  int rc = 0;
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    double best = -1;
    long rows = 0;
    unsigned long sum = 0;
    for (int r = 0; r < 3; r++) {
      double dt = scan(db, &tables[i], &rows, &sum);
      if (dt < 0) {
        fprintf(stderr, "sqlpage_scan: %s: %s: the scan failed\n", argv[1], tables[i].name);
        rc = 1;
        break;
      }
      if (best < 0 || dt < best) best = dt;
    }
    if (best >= 0)
      printf("%-28s %9ld rows  %.3f s  %5.1f ns a row  sum %lu\n", tables[i].name, rows, best,
             best * 1e9 / (double)rows, sum);
  }
  sqlite3_close(db);
  return rc;
}
