/*
 * dla_optimes.h - the op CPU times phase (analysis/ only).
 */
#ifndef DLA_OPTIMES_H
#define DLA_OPTIMES_H

#include "dla_ctx.h"

/* Once the op nodes and the iterations are known: each op's CPU time
 * (c->op_total, owned by c) over its instances that start inside an
 * aggregated iteration's span, their count (c->op_calls), and its self
 * time (c->op_self): the total less the time of the op instances nested
 * directly in them, as PyTorch's key_averages() gives it; a CUDA call of no
 * op instance counts for its own op (unassociated_<api>). The self times
 * of one thread never overlap, so their sum is at most its time. */
int dla__optimes(dla_ctx *c);

#endif
