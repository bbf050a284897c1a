/*
 * nsysopts.h - DLProf's --nsys_options / --nsys_opts: the Nsight Systems
 * command-line options DLProf passed to `nsys profile`. dlprof does not
 * run Nsight Systems (its collector records CUDA activity and NVTX ranges
 * itself), so what has a counterpart maps to it and the rest is named as
 * ignored, with the reason, in one line for the user.
 *
 * Maps: -t/--trace (cuda, nvtx: recorded; cublas, cudnn: their kernels are
 * recorded as CUDA kernels), -s/--sample none (the collector never samples),
 * -y/--delay and -d/--duration (seconds, as dlprof's own --delay and
 * --duration), -c/--capture-range cudaProfilerApi or none (as
 * --nsys_profile_range). Everything else is ignored.
 * Owns nothing: the string is borrowed, the result is the caller's.
 */
#ifndef DLPROF_NSYSOPTS_H
#define DLPROF_NSYSOPTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct dlprof_nsysopts {
  int64_t delay_s, duration_s; /* -1: not given */
  int profile_range;           /* -1: not given; 0 or 1 */
  char ignored[1024];          /* "" or what is ignored and why, for one line */
} dlprof_nsysopts;

/* Parses s (options separated by spaces; `-x v`, `-x=v`, `--name=v` and
 * `--name v`) into out. Returns 0, or -1 with one line in err for a value
 * that cannot be used (a delay that is not a number of seconds). */
int dlprof_nsysopts_parse(const char *s, dlprof_nsysopts *out, char *err, size_t errlen);

#endif
