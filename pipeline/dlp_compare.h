/*
 * dlp_compare.h - dlprof --compare_to=BASE --database=RUN: two runs
 * compared (db/dldb_compare.h) into <profile_name>_compare.csv (and .json)
 * in the output folder, with what a short verdict and a CI gate need.
 *
 * Each input is a dldb (ours or NVIDIA's: its newest aggregation is
 * compared as it is) or anything dlp_run reads, which is first imported
 * with o's mode, key op and iteration range into a temporary dldb in a
 * temporary folder under o->output_path, removed before returning. The
 * outputs are written to temporary files beside their destinations and
 * renamed into place when complete; existing ones are refused without
 * o->force.
 *
 * Never prints; the imports report through o's callbacks. Options and
 * strings are borrowed for the call.
 */
#ifndef DLP_COMPARE_H
#define DLP_COMPARE_H

#include <limits.h>
#include <stdint.h>

#include "dlp.h"

#define DLP_COMPARE_TOP 3 /* the changes of each kind the result names */

/* One changed kernel or op: a row of dl_compare_kernels or dl_compare_ops. */
typedef struct dlp_compare_change {
  char name[512];             /* kernel name, or op name (type, direction) */
  char status[16];            /* added, removed, changed */
  int64_t base_calls, calls;
  int64_t base_gpu_time_ns, gpu_time_ns;
} dlp_compare_change;

typedef struct dlp_compare_result {
  int64_t base_iterations, iterations;
  double base_mean_ns, mean_ns;       /* NAN: no iterations */
  double diff_pct;                    /* (mean - base mean) in % of the base mean; NAN: none */
  int has_ci;                         /* 1: both sides have >= 2 iterations */
  double ci_low_pct, ci_high_pct;     /* 95 % Welch interval of diff_pct */
  int n_kernels, n_ops;               /* entries used in kernels, ops */
  dlp_compare_change kernels[DLP_COMPARE_TOP], ops[DLP_COMPARE_TOP];
  int64_t kernels_by_status[4], ops_by_status[4]; /* added, removed, changed, same */
  char notes[4096];                   /* what differs, one a line ("" when nothing) */
  char findings_appeared[4096], findings_gone[4096]; /* one a line */
  char outputs[2][PATH_MAX];          /* the files written ("" when not) */
} dlp_compare_result;

/* Compares base (the base run) with o->input (the new run) and writes the
 * comparison in o->csv and o->json formats. DL_OK and *res filled, or a
 * negative DL_E* with one line in err naming the file. */
int dlp_compare(const dlp_opts *o, const char *base, dlp_compare_result *res, char *err,
                size_t errlen);

/* 1 when the run's mean iteration time is more than pct percent above the
 * base's with 95 % confidence (the interval's lower bound above pct). */
int dlp_compare_regressed(const dlp_compare_result *res, double pct);

#endif
