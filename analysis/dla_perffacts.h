/*
 * dla_perffacts.h - the perf rules' facts from the op shapes (part of the
 * op shapes phase, dla_shapes.c). Over the op instances of the aggregated
 * iterations, in thread and start order:
 *   - attention by parts: a batched product (the scores), elementwise ops
 *     and softmax on the scores, then a product of the probabilities with
 *     the values (at most DLA_ATTN_MAX_BETWEEN other ops on each side of
 *     softmax), matched by their shapes;
 *   - elementwise chains: elementwise ops one after another, each writing
 *     as many elements of the same type as the one before (taken to feed
 *     each other), outside an attention chain.
 * Over the rows: GEMMs of fewer output tiles than the GPU's SMs, below
 * DLA_SMALL_GEMM_PCT of their roofline, called twice or more per
 * iteration. Only rows on a GPU of known peaks count.
 *
 * The facts borrow the rows' strings (c->shapes): use them while the rows
 * live.
 */
#ifndef DLA_PERFFACTS_H
#define DLA_PERFFACTS_H

#include <stdint.h>

#include "dla_ctx.h"
#include "dla_rules.h"
#include "dla_shapes.h"

/* Fills c->shapes's attn and fuse facts (the largest savings kept), from
 * row_of[i], the row of range i (-1: none). DL_OK or DL_ENOMEM. */
int dla__perffacts_chains(dla_ctx *c, const int32_t *row_of);

/* The small GEMMs of c->shapes into f->small_gemm (the largest savings
 * kept); niter: the aggregated iterations. */
void dla__perffacts_small_gemms(const dla_ctx *c, double niter, dla_facts *f);

#endif
