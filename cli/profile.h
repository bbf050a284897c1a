/*
 * profile.h - `dlprof [options] APP [ARGS...]`: runs the application with
 * the collector injected and leaves its raw dldb for the usual analysis.
 */
#ifndef DLPROF_PROFILE_H
#define DLPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct dlprof_profile_opts {
  const char *output_path, *profile_name, *mode, *command;
  int force;
  int verbose;             /* 1: progress lines on stderr; 2: the collector's too */
  int64_t delay_s;         /* -y/--delay: start recording after this long */
  int64_t duration_s;      /* -d/--duration: record this long (0: to the end) */
  int profiler_range;      /* 1: only between cudaProfilerStart and Stop */
} dlprof_profile_opts;

/* Runs argv[0..argc) with CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH
 * pointing at libdlprof_collector, waits for it (SIGINT reaches the
 * application, SIGTERM is forwarded), and moves the recorded store to
 * `<output_path>/<profile_name>_dldb.sqlite`, whose path goes to
 * dldb_path. *app_status receives the application's exit status (128 +
 * signal when killed; 127 when it could not be run). Prints what it did
 * and, when no GPU activity was recorded, says so; points at the PyTorch
 * profiler traces the application wrote (pttraces.h). Returns
 * DLPROF_PROFILE_OK when a dldb with raw records is ready,
 * DLPROF_PROFILE_EMPTY when nothing was recorded (one line says why; no
 * dldb is written and an existing one is kept), DLPROF_PROFILE_FAILED
 * after one "dlprof: ..." error. */
enum { DLPROF_PROFILE_OK = 0, DLPROF_PROFILE_FAILED = 1, DLPROF_PROFILE_EMPTY = 2 };
int dlprof_profile_app(const dlprof_profile_opts *o, int argc, char **argv, char *dldb_path,
                       size_t len, int *app_status);

#endif
