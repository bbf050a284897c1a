/*
 * dla_iter.h - the iterations phase (analysis/ only).
 */
#ifndef DLA_ITER_H
#define DLA_ITER_H

#include "dla_ctx.h"

/* A cut-off last step (a trace that ends inside a step): left out of the
 * default window. */
typedef struct dla_cut {
  int last;                  /* 1: the last iteration is one, and left out */
  int64_t len, median;       /* ns: its length; the median of the other steps */
} dla_cut;

/* Once the op nodes, calls and GPU work are loaded: sets c->bound, c->niter
 * (and c->iter_name, c->key_op_found), the aggregated window (c->iter_start,
 * iter_stop, wall_start, wall_end) and *cut. DL_EINVAL: an empty window. */
int dla__iter_split(dla_ctx *c, dla_cut *cut);

#endif
