/*
 * dla_facts.h - the facts phase (analysis/ only): the dla_facts that the
 * rules read, from the context.
 */
#ifndef DLA_FACTS_H
#define DLA_FACTS_H

#include "dla_ctx.h"
#include "dla_iter.h"
#include "dla_rules.h"

/* Fills *f (zeroed first) from c, *cut (dla__iter_split) and the kernels'
 * GPU time (dla_accum). f->iter_durations points into *durations, which
 * the caller frees (also on an error). f borrows strings of c and of the
 * writer: use it while both live. DL_OK or DL_ENOMEM. */
int dla__facts_fill(const dla_ctx *c, const dla_cut *cut, int64_t kernel_gpu_time, dla_facts *f,
                    int64_t **durations);

#endif
