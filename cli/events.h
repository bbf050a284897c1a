/*
 * events.h - what dlprof says while the pipeline runs: its events
 * (pipeline/dlp.h) as "dlprof: ..." lines on stderr, by verbosity, and
 * the signal clean-up started when the run begins to make temporary files.
 *
 * Ownership: the caller owns the dlprof_events; the meter and the signal
 * clean-up it points to are borrowed and must outlive the run.
 */
#ifndef DLPROF_EVENTS_H
#define DLPROF_EVENTS_H

#include "dlp.h"
#include "meter.h"
#include "sigclean.h"

enum { DLPROF_V_QUIET, DLPROF_V_MINIMAL, DLPROF_V_NORMAL, DLPROF_V_DETAILED,
       DLPROF_V_DIAGNOSTIC };

typedef struct dlprof_events {
  int verbosity;          /* DLPROF_V_* */
  dlprof_meter *meter;    /* its bar is ended before a line */
  dlprof_sigclean *sig;   /* watches the run's temporaries (DLP_EV_TEMPS) */
} dlprof_events;

/* dlp_opts.event (ctx: a dlprof_events). */
void dlprof_event_cb(void *ctx, const dlp_event *e);

#endif
