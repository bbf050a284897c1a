/*
 * dla_perfmodel.h - perf models of ops: the work (FLOPs) and the bytes
 * moved by one call of an op, from its name, its input shapes and types
 * and its concrete (non-tensor) inputs, as the PyTorch profiler records
 * them. A table of op families, a row and a small function each (GEMMs,
 * convolutions, attention, elementwise, reductions, normalizations,
 * embeddings, collectives); an op of no family has "no model".
 *
 * The formulas follow TraceLens's public perf models (AMD-AGI/TraceLens,
 * TraceLens/PerfModel/perf_model.py); docs/compat.md says where ours differ.
 * Pure functions: no allocation, no I/O. Strings are borrowed.
 */
#ifndef DLA_PERFMODEL_H
#define DLA_PERFMODEL_H

#include <stddef.h>
#include <stdint.h>

#define DLA_PM_MAX_ARGS 16
#define DLA_PM_MAX_DIMS 8

/* The inputs of one call: shape of each input (nd -1: not a tensor, or a
 * list of tensors; nd 0 with scalar 1: a scalar or an empty shape []). */
typedef struct dla_pm_shapes {
  int n;
  int nd[DLA_PM_MAX_ARGS];
  int64_t d[DLA_PM_MAX_ARGS][DLA_PM_MAX_DIMS];
} dla_pm_shapes;

/* Op families (the model's row). */
typedef enum {
  DLA_PM_NONE = 0, DLA_PM_GEMM, DLA_PM_CONV, DLA_PM_SDPA, DLA_PM_ELEMWISE, DLA_PM_REDUCE,
  DLA_PM_NORM, DLA_PM_EMBED, DLA_PM_COMM
} dla_pm_family;

/* One call's model. */
typedef struct dla_pm_result {
  dla_pm_family family;
  const char *family_name;     /* "GEMM", ..., "no model" (static) */
  double flops;                /* floating-point operations per call */
  double bytes;                /* bytes moved to and from memory per call (minimum) */
  int tensor_core_math;        /* a matrix op (GEMM, conv, attention): Tensor Core eligible */
  int64_t m, n, k;             /* GEMM: the problem (batch folded into m); conv: the implicit
                                * GEMM (m = N*out spatial, n = C_out / groups, k = C_in/g * kernel) */
  int64_t batch;               /* GEMM batch (bmm, baddbmm, matmul), else 1 */
  double out_elems;            /* elements one call writes: GEMM batch*m*n, elementwise (a
                                * broadcast), softmax; 0 for the other families */
} dla_pm_result;

/* Parses "[[4, 197, 768], [768], []]" (JSON or Python's list repr) into *s.
 * 0, or -1 when text is not a list of shapes or has too many. */
int dla_pm_parse_shapes(const char *text, dla_pm_shapes *s);

/* Bytes per element of a data type: PyTorch's names ("c10::BFloat16",
 * "float", "c10::Half", "double", "c10::Float8_e4m3fn", "long int", ...)
 * and ours ("bfloat16", "float32", "float16", ...). 0: unknown. */
int dla_pm_bpe(const char *dtype);

/* Item i of a concrete-inputs list ("['', '', '[16, 16]', 'False', '1']" as
 * Python writes it, or the JSON ["", "", "[16, 16]", ...] of a trace) into
 * out (cap bytes, quotes removed). 0, or -1 when absent or empty. */
int dla_pm_concrete_item(const char *concrete, int i, char *out, size_t cap);

/* The model of one call of op `name` ("aten::addmm", "addmm", ...) with
 * these inputs; dtype: the inputs' element type (NULL or "": 2 bytes is not
 * assumed, bytes are then 0); concrete: may be NULL (attention is then
 * taken as non-causal; a convolution, whose output needs its strides and
 * padding, has no model). Returns the family, DLA_PM_NONE when no model
 * applies (unknown op, or shapes the model cannot read). */
dla_pm_family dla_perf_model(const char *name, const dla_pm_shapes *in, const char *dtype,
                             const char *concrete, dla_pm_result *out);

/* Bus bandwidth factor of an NCCL collective over nranks ranks (NCCL's
 * tests: all_reduce 2(n-1)/n, all_gather and reduce_scatter (n-1)/n,
 * broadcast, reduce and send/recv 1): bus bytes = message bytes * factor.
 * 0 for an unknown collective name. */
double dla_pm_busbw_factor(const char *name, int nranks);

#endif
