/*
 * dldb_rankmap.h - the Ranks page's heatmap read whole: every ranked GPU's
 * aggregated iterations (aggr_dl_iter_gpu, the GPUs of aggr_dl_ranks) of
 * one aggregation in one pass of the primary key, for an answer in one
 * request instead of pages of view_dl_rank_iterations: cell by cell, or as
 * a grid of GPUs by iterations.
 *
 * Ownership: borrows the handle; the cell passed to fn is valid during the
 * call only; a dldb_rank_grid owns its arrays (dldb_rank_grid_free).
 */
#ifndef DLDB_RANKMAP_H
#define DLDB_RANKMAP_H

#include <stddef.h>
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

/* The same cells as a grid: devs ranked GPUs (device ids ascending) by
 * iters iterations (every iteration value some ranked GPU has, ascending);
 * cell d * iters + i holds GPU d's iteration i, has[cell] 0 where that GPU
 * has no such iteration (its duration and exposed time then 0). */
typedef struct dldb_rank_grid {
  size_t devs, iters;
  int64_t *device_ids;      /* devs */
  int64_t *iter_values;     /* iters */
  int64_t *duration_ns;     /* devs x iters */
  int64_t *exposed_comm_ns; /* devs x iters */
  unsigned char *has;       /* devs x iters */
} dldb_rank_grid;

/* Fills g (zeroed first) with aggregation aggr_id's grid. DL_ENOTFOUND
 * when the file has no ranks tables, DL_ENOMEM; g is empty on error. */
int dldb_rank_heatmap_grid(dldb *db, int64_t aggr_id, dldb_rank_grid *g, char *err, size_t errlen);

void dldb_rank_grid_free(dldb_rank_grid *g);

#endif
