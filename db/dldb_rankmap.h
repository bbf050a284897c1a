/*
 * dldb_rankmap.h - the Ranks page's heatmap read whole: every ranked GPU's
 * aggregated iterations (aggr_dl_iter_gpu joined to aggr_dl_ranks) of one
 * aggregation in one pass of the primary key, for an answer in one request
 * instead of pages of view_dl_rank_iterations.
 *
 * Ownership: borrows the handle; the cell passed to fn is valid during the
 * call only.
 */
#ifndef DLDB_RANKMAP_H
#define DLDB_RANKMAP_H

#include <stdint.h>

#include "dldb.h"

typedef struct dldb_rank_cell {
  int64_t iter_value, device_id, duration_ns, exposed_comm_ns;
} dldb_rank_cell;

/* Calls fn for every cell of aggregation aggr_id, by iteration then
 * device. DL_ENOTFOUND when the file has no ranks tables; fn's non-zero
 * return stops the reading and is returned. */
int dldb_rank_heatmap(dldb *db, int64_t aggr_id, int (*fn)(void *ctx, const dldb_rank_cell *c),
                      void *ctx, char *err, size_t errlen);

#endif
