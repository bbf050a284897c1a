/*
 * dla_coll.h - collectives across ranks (analysis/ only): the NCCL kernels
 * of each rank in the aggregated window, matched by name and order (every
 * rank of a communicator issues its collectives in the same order), with
 * their time per rank and the skew of their starts.
 */
#ifndef DLA_COLL_H
#define DLA_COLL_H

#include "dla_ctx.h"
#include "dldb_ranks.h"

/* One row per collective kernel name run on every one of the nrank ranks'
 * devices (dev[r] is rank r's device id, rank[r] its rank). Returns a new
 * array in *rows (*n rows; free()), by kernel name id. DL_OK or DL_ENOMEM. */
int dla__coll_match(const dla_ctx *c, const int32_t *dev, const int32_t *rank, size_t nrank,
                    dldb_dl_collective_row **rows, size_t *n);

#endif
