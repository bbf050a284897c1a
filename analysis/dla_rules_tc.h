/*
 * dla_rules_tc.h - the Tensor Core rule over dla_facts.tc (a row of the
 * rule table in dla_rules.c): a GEMM or convolution that could use Tensor
 * Cores and ran none, with the reason (float32 without TF32; float16 or
 * bfloat16 with a dimension not a multiple of 8, and the padded shape),
 * the measured speed, the limits and the time per iteration a fix would
 * save; the largest savings first. Reads only the facts.
 */
#ifndef DLA_RULES_TC_H
#define DLA_RULES_TC_H

#include <stddef.h>

#include "dla_rules.h"

/* The estimated time per iteration (ns) a fix saves: the measured time
 * less the time on Tensor Cores, taken at the same share of the Tensor
 * Core peak as it now reaches of the CUDA-core peak (measured *
 * peak_now / peak_tc), and never under the time its bytes take at the
 * memory bandwidth. 0 when a peak is unknown. */
double dla_tc_saved_ns(const dla_tc_fact *t);

size_t dla__rule_tensor_core_shapes(const dla_facts *f, dla_finding *o, size_t cap);

#endif
