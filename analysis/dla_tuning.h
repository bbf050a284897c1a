/*
 * dla_tuning.h - internal knobs of the analysis that change how it works,
 * never what it writes (analysis/ and its tests only; not in dla.h).
 */
#ifndef DLA_TUNING_H
#define DLA_TUNING_H

#include <stddef.h>

#include "dla.h"

typedef struct dla_tuning {
  /* Events the time sweeps hold at once (they sweep the window a batch of
   * time at a time): the breakdown's events (dla_sweep.c), the GPU
   * timeline's starts (dla_comm.c) and the Nsight Systems rules' intervals
   * (dla_nsysfacts.c). 0: each one's default. Same results for any value:
   * tests set it small to cut many batches. */
  size_t sweep_batch_events;
  /* 1: the writer builds the timeline's tracks itself, a kind at a time,
   * rather than a second thread ahead of it (dla_tlahead.c). Same rows. */
  int timeline_inline;
  /* Bytes the NVTX statistics' name order may take in memory
   * (dla_nvtxorder.h); past it dldb_aggr_end sorts the names through
   * SQLite. 0: DLA_NVTX_ORDER_BUDGET. Same tables for any value: tests set
   * it small to take the other path. */
  size_t nvtx_order_budget;
  /* Launches a kernel group needs for its duration order to be sorted on
   * a second thread while its launch sequence is written
   * (dla_write_kgroups.c). 0: the default. Same rows for any value: tests
   * set it to 1 to take the thread for every group. */
  size_t kgroup_thread_min;
} dla_tuning;

/* Memory the timeline's tracks may take when built ahead, beside the
 * analysis (dla_tlahead.c): past it they are built after it, a kind at a
 * time (dldb_timeline_build's budget). */
#define DLA_TL_AHEAD_BYTES ((size_t)160 << 20)

/* dla_aggregate with tuning t (borrowed; NULL: the defaults). */
int dla__aggregate_tuned(dldb_writer *w, const dla_opts *o, const dla_tuning *t,
                         int64_t *aggr_id, char *err, size_t errlen);

#endif
