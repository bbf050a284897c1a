/*
 * dla_rules_perf.h - the perf rules over the op shapes' facts (rows of the
 * rule table in dla_rules.c): an attention computed by parts that a fused
 * kernel would replace, elementwise chains that a fusion would merge, and
 * GEMMs too small to fill the GPU. Each finding quotes what was measured,
 * the limit, and the time per iteration the fix would save; the largest
 * savings first, those under DLA_TC_MIN_SAVED_PCT of the mean iteration
 * left out. Reads only the facts; nothing allocates.
 */
#ifndef DLA_RULES_PERF_H
#define DLA_RULES_PERF_H

#include <stddef.h>

#include "dla_rules.h"

/* Time per iteration (ns) a fused attention kernel saves: the chain's time
 * less the fused kernel's, taken as the two products' time now (the same
 * FLOPs at the same speed) and never under its bytes (the SDPA model's)
 * at the memory bandwidth. 0 when nothing is saved. */
double dla_attn_saved_ns(const dla_attn_fact *a);

/* Time per iteration (ns) fusing an elementwise chain saves: the
 * intermediate results written and read back, 2 * (ops - 1) * elements *
 * bytes per element, at the memory bandwidth; never more than the chain's
 * time. */
double dla_fuse_saved_ns(const dla_fuse_fact *u);

/* Time per iteration (ns) batching a small GEMM's calls saves: its time
 * less that of the same FLOPs and bytes at DLA_SMALL_GEMM_BATCHED_PCT of
 * the roofline. 0 when nothing is saved or a peak is unknown. */
double dla_small_gemm_saved_ns(const dla_small_gemm_fact *g);

size_t dla__rule_unfused_attention(const dla_facts *f, dla_finding *o, size_t cap);
size_t dla__rule_elementwise_fusion(const dla_facts *f, dla_finding *o, size_t cap);
size_t dla__rule_small_gemms(const dla_facts *f, dla_finding *o, size_t cap);

#endif
