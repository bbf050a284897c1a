/*
 * meter.h - dlprof's progress on stderr, fed by the pipeline's progress
 * callback (dlp_opts.progress): a bar redrawn in place (at most 10 times a
 * second) on a terminal, otherwise plain lines (a phase's start and end,
 * and every 5 s between), nothing when off. With detail, each phase's end
 * is followed by what it took: wall time, CPU time, and the peak RSS so far.
 *
 * Ownership: the caller owns the meter (no globals); everything is borrowed.
 */
#ifndef DLPROF_METER_H
#define DLPROF_METER_H

#include <stdint.h>

typedef struct dlprof_meter {
  int on, tty, open;    /* open: a bar is drawn and its line not ended */
  int detail, timed;    /* detail: print each phase's cost; timed: this phase's is printed */
  char what[64];
  int last_tenth;
  double last_draw;
  double t0, cpu0;      /* the phase's start: wall and CPU seconds */
} dlprof_meter;

/* The progress callback (ctx: a dlprof_meter). */
void dlprof_meter_cb(void *ctx, const char *what, int64_t done, int64_t total);

/* Ends a drawn bar's line, so that other output starts on a new one. */
void dlprof_meter_end(dlprof_meter *m);

/* Wall and CPU seconds now, for dlprof_meter_cost. */
double dlprof_now_s(void);
double dlprof_cpu_s(void);

/* "dlprof: WHAT: took 1.23 s (2.01 s CPU), peak RSS 345 MiB" from t0, cpu0. */
void dlprof_meter_cost(const char *what, double t0, double cpu0);

#endif
