/*
 * import_kineto.h - dlprof --database=TRACE for PyTorch profiler (Kineto)
 * JSON traces (a file, gzip or plain, or a directory of per-rank traces):
 * import (import/dli_kineto.h), aggregate with ProfilerStep#N as the
 * iterations unless --key_op says otherwise, and commit the dldb. The
 * caller writes the reports. Everything is borrowed.
 */
#ifndef DLPROF_IMPORT_KINETO_H
#define DLPROF_IMPORT_KINETO_H

#include <stdint.h>

typedef struct dlprof_kineto_args {
  const char *database;      /* the trace file or directory */
  const char *dbpath;        /* the dldb to create */
  const char *mode, *profile_name, *command;
  const char *key_op;        /* NULL: "ProfilerStep#" (one iteration per step) */
  int64_t iter_start, iter_stop;
  int force;
  int verbose;               /* 1: print what was read */
  int warn;                  /* 1: print what was odd (a truncated file, ...) */
  /* NULL, or called with the finished dldb before it is renamed into place
   * (dldb_writer_commit_ready); *aggr_id is set by then */
  int (*ready)(void *ctx, const char *path);
  void *ready_ctx;
  /* NULL, or the import's and the aggregation's progress (dli_opts, dla_opts) */
  void (*progress)(void *ctx, const char *what, int64_t done, int64_t total);
  void *progress_ctx;
} dlprof_kineto_args;

/* Returns 0 and sets *aggr_id, or prints one "dlprof: ..." line on stderr
 * (unless ready failed: it said why) and returns 1 (nothing is left
 * behind). */
int dlprof_import_kineto(const dlprof_kineto_args *a, int64_t *aggr_id);

#endif
