/*
 * dla_tc.h - tensor-core usage from kernel names, and tensor-core
 * eligibility from op types (formats.md F).
 *
 * Name matching is a heuristic that goes stale with new GPUs: the patterns
 * are a versioned data table (DLA_TC_RULES_VERSION, recorded per
 * aggregation and in dl_meta) pinned by tests/analysis.
 */
#ifndef DLA_TC_H
#define DLA_TC_H

/* Changes with any change to the patterns in dla_tc.c. dla-tc-2: AMD matrix
 * cores (Tensile MI<m>x<n>x<k>, CK xdl, mfma); "fbgemm" and "convert" are no
 * GEMM words; quantize/convert/elementwise low-precision kernels not TC. */
#define DLA_TC_RULES_VERSION "dla-tc-2"

typedef enum dla_tc_class {
  DLA_TC_NOT_GEMM = 0,     /* no GEMM-like pattern: elementwise, reductions... */
  DLA_TC_USES = 1,         /* a tensor-core marker matched */
  DLA_TC_CUDA_CORE = 2,    /* a CUDA-core GEMM marker (sgemm, simt, winograd...) */
  DLA_TC_GEMM_UNKNOWN = 3, /* GEMM-like but no marker either way */
} dla_tc_class;

/* Classifies a kernel name (preferably the demangled long name; borrowed).
 * Case-insensitive; the first matching step of the table wins. */
dla_tc_class dla_tc_classify(const char *kernel_name);

/* 1 if the class counts as "uses tensor cores", else 0. */
int dla_tc_uses(dla_tc_class c);

/* 1 if an op type (e.g. "conv2d", "aten::linear", "AddmmBackward0",
 * "MatMul") is eligible to use tensor cores, else 0. Borrows op_type. */
int dla_tc_op_eligible(const char *op_type);

#endif
