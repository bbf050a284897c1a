/*
 * dla_ranks.h - the ranks phase (analysis/ only): the GPUs of a distributed
 * job as ranks (dl_gpu_ranks), one row of figures per rank from the GPU
 * timeline (dla_comm.c), the collectives matched across ranks
 * (dla_coll.c), and the facts the rules read about them: the straggler,
 * the waiting it causes, and collective start skew.
 */
#ifndef DLA_RANKS_H
#define DLA_RANKS_H

#include "dla_ctx.h"

/* Runs after the facts phase: reads c->comm, fills f's ranks fields and
 * keeps its rows in c->ranks (freed by dla__ranks_free). Fewer than two
 * ranked GPUs: no facts, the rows of the one rank alone. DL_OK or an error. */
int dla__ranks_run(dla_ctx *c, dla_facts *f);

/* Writes the rows into the open aggregation (none when the file lacks the
 * tables). */
int dla__ranks_write(dla_ctx *c, int64_t aggr_id);

void dla__ranks_free(dla_ctx *c);

#endif
