/*
 * core.h - the injected collector's process-wide state: configuration from
 * the environment dlprof sets, the writer, the clock, the recording window,
 * the one-time notice, and the flush at exit, on SIGINT/SIGTERM and on a
 * crash signal.
 *
 * Environment (set by `dlprof APP`, cli/profile.c):
 *   DLPROF_COLLECTOR_STORE     the live store (db/dldb_write_live.h); required
 *   DLPROF_COLLECTOR_DELAY_MS  start recording this long after start-up
 *   DLPROF_COLLECTOR_DURATION_MS  stop recording after this long
 *   DLPROF_COLLECTOR_START_NS  CLOCK_REALTIME ns at the launch: the delay
 *                              and duration count from it (else from start-up)
 *   DLPROF_COLLECTOR_RANGE     "cudaProfilerApi": record only between
 *                              cudaProfilerStart and cudaProfilerStop
 *   DLPROF_COLLECTOR_VERBOSE   "1": a line on stderr at each step of the
 *                              CUPTI life cycle, with its counts
 *
 * Contract with the host application: nothing here exits, and a failure
 * (no store, SQLite, memory, CUPTI) prints one line starting with
 * "dlprof:" on stderr and turns collection off; the application goes on.
 * Only the process that first claims the store records (a lock file);
 * forked children never record.
 */
#ifndef DLC_CORE_H
#define DLC_CORE_H

#include <stdatomic.h>
#include <stdint.h>

#include "strtab.h"
#include "writer.h"

/* Idempotent and thread-safe. Returns 1 when collecting, 0 when off. */
int dlc_core_init(void);

/* 1 while collecting (cheap: one relaxed load). */
int dlc_core_active(void);

/* Turns collection off and prints "dlprof: <msg>" once per process (the
 * first notice wins; later ones are dropped). */
void dlc_core_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "dlprof: <msg>" once per flag (an informational line that does
 * not turn collection off). */
void dlc_core_note(atomic_int *once, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "dlprof: collector: <msg>" when DLPROF_COLLECTOR_VERBOSE is 1. */
void dlc_core_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Now on CUPTI's clock, ns. */
int64_t dlc_now_ns(void);
/* Sets the offset added to CLOCK_REALTIME to get CUPTI's clock. */
void dlc_core_set_clock_offset(int64_t ns);

/* 1 if an event at t (dlc_now_ns) is inside the recording window. */
int dlc_core_recording(int64_t t_ns);
/* The window [from, to] in ns on CUPTI's clock. */
void dlc_core_window(int64_t *from_ns, int64_t *to_ns);
/* cudaProfilerStart (1) / Stop (0): opens or closes the window in
 * profile-range mode; a stop also asks for a flush. */
void dlc_core_profiler_api(int start);
/* 1 in profile-range mode (DLPROF_COLLECTOR_RANGE=cudaProfilerApi). */
int dlc_core_range_mode(void);

/* The next NVTX range id (> 0). */
uint64_t dlc_core_next_id(void);
int64_t dlc_core_pid(void);

/* Borrowed; NULL when off. */
dlc_writer *dlc_core_writer(void);
dlc_strtab *dlc_core_names(void);

/* Producers the final flush must reach (set once, before any flush). */
void dlc_core_set_nvtx_source(void (*drain)(void *ctx, dlc_writer *w));
void dlc_core_set_cupti_final(void (*flush)(void));

/* External correlation per NVTX push/pop, installed by the CUPTI part
 * when activity tracing works; NULL otherwise. */
extern void (*_Atomic dlc_extcorr_push)(uint64_t id);
extern void (*_Atomic dlc_extcorr_pop)(void);

/* Asks the writer for a round and a commit now (cudaProfilerStop). */
void dlc_core_flush(void);

/* Stops everything and closes the store (atexit does it). */
void dlc_core_shutdown(void);

#endif
