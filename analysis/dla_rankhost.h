/*
 * dla_rankhost.h - what the host of each rank of a distributed job does
 * (analysis/ only, for the ranks phase): a rank's process is the one whose
 * ranges launch its GPU's kernels (a launching call's innermost range's
 * thread); its own iteration time is the mean of its key-op ranges (one
 * per step: ProfilerStep#N) that start in the aggregated window, and its
 * data loading the union of its data-loader op ranges in the window, per
 * thread, summed over its threads.
 */
#ifndef DLA_RANKHOST_H
#define DLA_RANKHOST_H

#include <stddef.h>

#include "dla_ctx.h"
#include "dldb_ranks.h"

/* Sets iter_avg_ns (when the rank's process has key-op ranges in the
 * window: key_op_spans) and dataloader_ns of each of the n rows whose
 * process is found; the others keep theirs. DL_OK or DL_ENOMEM. */
int dla__rank_host(const dla_ctx *c, dldb_dl_rank_row *rows, size_t n);

#endif
