/*
 * dla_rules.h - expert systems: a static table of rules over the analysis
 * results (no SQL, no JSON). The rules read only a dla_facts, never the
 * analysis's context. Each rule quotes what it measured and its threshold.
 * Thresholds are the named constants below. Nothing here allocates: the
 * facts are borrowed, the findings written into the caller's array.
 */
#ifndef DLA_RULES_H
#define DLA_RULES_H

#include <stddef.h>
#include <stdint.h>

#define DLA_MAX_GPUS 1024 /* the GPUs (ranks) one aggregation tells apart */

/* A GEMM or convolution (op and input shapes) that could use Tensor Cores
 * and ran none (dla_shapes.c): what the Tensor Core rule reads. */
#define DLA_MAX_TC_FACTS 16
enum { DLA_TC_FP32 = 1, /* float32 on a GPU with a faster Tensor Core type */
       DLA_TC_ALIGN = 2 /* float16/bfloat16 with M, N or K not a multiple of 8 */ };
typedef struct dla_tc_fact {
  const char *op_name, *dims, *dtype; /* borrowed */
  const char *fix_type;        /* "TF32", "FP16 (AMP)": what the fix runs in (static) */
  const char *gpu_name;        /* the GPU the peaks are of (static) */
  int reason;                  /* DLA_TC_* */
  int64_t m, n, k;             /* the GEMM (a convolution's implicit GEMM) */
  double calls_per_iter, gpu_ns_per_iter; /* mean per aggregated iteration */
  double flops, bytes;         /* per call */
  double peak_now, peak_tc;    /* FLOP/s: CUDA cores in its type; Tensor Cores in fix_type */
  double mem_bw;               /* bytes/s */
} dla_tc_fact;

/* The perf findings' facts (dla_perffacts.c, from the op shapes); the
 * rules that read them: dla_rules_perf.h. Strings are borrowed. */
#define DLA_MAX_PERF_FACTS 8

/* An attention computed by parts: a batched product (the scores), the
 * elementwise ops and softmax on the scores, a product with the values,
 * one after another on one thread. */
typedef struct dla_attn_fact {
  const char *qk_name, *pv_name; /* the two products' op names */
  const char *dims;            /* the softmax's input dims */
  const char *dtype, *gpu_name;
  int64_t batch, nq, nkv, d, dv; /* batch (* heads), query and key lengths, head dims */
  int n_ops;                   /* ops of the chain, the products included */
  double per_iter;             /* occurrences per aggregated iteration */
  double chain_ns, gemm_ns;    /* per occurrence: the chain's GPU time; its two products' */
  double sdpa_bytes;           /* a fused kernel's bytes per occurrence (the SDPA model) */
  double mem_bw;               /* bytes/s */
} dla_attn_fact;

/* Elementwise ops one after another on one thread, each on the output
 * size of the one before: a fused kernel would not write and read back
 * the intermediate results. */
typedef struct dla_fuse_fact {
  char ops[160];               /* "aten::mul -> aten::add -> aten::relu" (cut to fit) */
  const char *dims, *dtype, *gpu_name; /* the first op's */
  int n_ops;
  int bpe;                     /* bytes per element */
  double elems;                /* elements of each intermediate result */
  double per_iter;             /* occurrences per aggregated iteration */
  double chain_ns;             /* the chain's GPU time per occurrence */
  double mem_bw;               /* bytes/s */
} dla_fuse_fact;

/* A GEMM (op and shapes) too small to fill the GPU, far below its
 * roofline, called several times per iteration. */
typedef struct dla_small_gemm_fact {
  const char *op_name, *dims, *dtype, *gpu_name;
  int64_t m, n, k, batch;
  int64_t tiles;               /* output tiles of DLA_GEMM_TILE x DLA_GEMM_TILE, all batches */
  int32_t sms;                 /* the GPU's SMs (compute units) */
  double calls_per_iter, gpu_ns_per_iter; /* mean per aggregated iteration */
  double flops, bytes;         /* per call */
  double peak_flops, mem_bw;   /* FLOP/s of its type, bytes/s */
  double pct_of_roofline;
} dla_small_gemm_fact;

/* What the rules read; filled by the facts phase (dla_facts.c). */
typedef struct dla_facts {
  const char *key_op;          /* as asked; "" when none */
  int key_op_found;
  int64_t total_iterations;
  int64_t iter_start, iter_stop;
  const int64_t *iter_durations; /* ns, one per aggregated iteration (borrowed) */
  int64_t n_iter_durations;
  double pct[7];               /* tc, non_tc, memory, dataloader, io, cpu, other (%) */
  double gpu_utilization;      /* %, average over GPUs */
  int n_gpus;
  int amd_gpus;                /* 1: every GPU the profile lists is AMD's (no DALI there) */
  int32_t gpu_ids[DLA_MAX_GPUS];
  double gpu_util[DLA_MAX_GPUS];
  int64_t gpu_kernels[DLA_MAX_GPUS]; /* kernels run in the aggregated iterations */
  int64_t bad_data_type_ops;   /* TC-eligible, float32, no TC kernel */
  int64_t bad_data_type_gpu_time; /* ns */
  int64_t kernel_gpu_time;     /* ns, all kernels */
  /* the model (dla_facts.c) */
  const char *mode;            /* "pytorch", "simple", "tensorflow2"...; NULL: pytorch */
  int64_t n_ranges, n_emit_ranges, n_dlprof_ops, n_dali_ops, n_conv_ops;
  int model_emit_nvtx, model_cudnn_benchmark; /* model_config mark: 1/0, -1 unknown */
  int64_t gpu_mem_total, gpu_mem_used;        /* bytes; 0: unknown */
  /* Nsight Systems rules (run when nsys_rules), aggregated window */
  int nsys_rules;
  int64_t sync_memcpy_n, sync_memcpy_bytes, sync_memcpy_ns;  /* exempt: HtoD <= 64 KB */
  int64_t sync_memset_n, sync_memset_ns;                     /* on pinned/managed memory */
  int64_t pageable_memcpy_n, pageable_memcpy_bytes;          /* async API, pageable side */
  int64_t sync_calls_n, sync_calls_ns;                       /* device/stream synchronize */
  int64_t gpu_gaps_n, gpu_gap_max_ns;                        /* idle gaps >= threshold */
  int32_t gpu_gap_device;
  int64_t low_util_chunks, low_util_regions;                 /* chunks below threshold */
  int32_t low_util_device;
  double low_util_min_pct;
  /* GPU timeline (dla_comm.c) */
  double exposed_comm_pct;     /* max over GPUs: NCCL time not overlapped with compute / wall */
  int32_t exposed_comm_device; /* that GPU, -1: none */
  int64_t comm_ns, exposed_comm_ns; /* summed over GPUs */
  int64_t gpu_activity;        /* kernels + memcpys + memsets in the profile */
  /* a cut-off last step left out of the default aggregation (dla_iter.c) */
  int cut_last_step;
  int64_t cut_step_ns, step_median_ns; /* its length; the median of the others */
  const char *cut_step_name;   /* the trace's name of it ("ProfilerStep#2"), "" none */
  int64_t n_cpu_ranges;        /* ranges (op instances, annotations) in the profile */
  /* ranks of a distributed job (dla_ranks.c); all 0 when fewer than two */
  int n_ranks;
  int64_t straggler_excess_ns; /* its own time (wall - exposed comm) above the median rank's;
                                  0: no straggler */
  int32_t straggler_rank;
  int straggler_cause;         /* DLA_CAUSE_* */
  int64_t straggler_cause_ns;  /* the excess of that cause over its median */
  int64_t straggler_median_ns; /* the median rank's own time */
  int64_t straggler_lost_ns;   /* the other ranks' waiting, summed */
  int64_t rank_iterations;     /* aggregated iterations the figures span */
  double unexplained_comm_pct; /* exposed communication no rank waits in (at most the
                                  collectives' transfer time), % of wall, on the GPU of
                                  the most exposed communication */
  int32_t unexplained_comm_device;
  int unexplained_known;       /* 1: collectives were matched across ranks */
  char skew_kernel[160];       /* the collective of the largest start skew not started last
                                  by the straggler; "" none */
  int64_t skew_avg_ns, skew_max_ns, skew_instances, skew_last_count, skew_dur_avg_ns;
  int32_t skew_last_rank;
  int64_t skew_ranks;
  char bw_kernel[160];         /* the collective of the most transfer time whose bus
                                  bandwidth is far below its link's; "" none */
  const char *bw_collective;   /* its kind ("allreduce"; static), NULL unknown */
  int64_t bw_instances, bw_ranks, bw_avg_bytes;
  double bw_alg_bps, bw_bus_bps, bw_link_bps; /* bytes/s */
  /* GEMMs and convolutions without Tensor Cores, most GPU time first (dla_shapes.c) */
  dla_tc_fact tc[DLA_MAX_TC_FACTS];
  int n_tc;
  /* the perf findings' facts, in the order found (dla_perffacts.c) */
  dla_attn_fact attn[DLA_MAX_PERF_FACTS];
  int n_attn;
  dla_fuse_fact fuse[DLA_MAX_PERF_FACTS];
  int n_fuse;
  dla_small_gemm_fact small_gemm[DLA_MAX_PERF_FACTS];
  int n_small_gemm;
} dla_facts;

enum { DLA_CAUSE_COMPUTE, DLA_CAUSE_IDLE, DLA_CAUSE_DATALOADER };

typedef struct dla_finding {
  const char *rule_id;         /* static */
  char problem[512];
  char recommendation[512];
  char js_function[64];
  char js_args[128];
} dla_finding;

/* Thresholds (docs/dldb.md "Expert rules"). DLProf's own are not public. */
#define DLA_UNDERUTILIZED_GPU_PCT 50.0 /* average GPU kernel share below this */
#define DLA_DATALOADER_PCT 10.0        /* dataloader share of wall time above this */
#define DLA_ITER_CV_PCT 10.0           /* iteration-time std dev / mean above this */
#define DLA_CUT_STEP_PCT 10.0          /* a last step shorter than this share of the median
                                          step, with no GPU work, was cut off by the end of
                                          profiling (PyTorch profiler traces) */
#define DLA_STEADY_TOL_PCT 20.0        /* a steady iteration is within this of the median */
#define DLA_MIN_ITERS_FOR_RANGE 3      /* need this many aggregated iterations */
#define DLA_TC_MIN_SAVED_PCT 1.0       /* a Tensor Core fix saves this share of the mean
                                          iteration time, or more */
#define DLA_TC_MAX_FINDINGS 3          /* Tensor Core findings, the largest savings */
#define DLA_PERF_MAX_FINDINGS 3        /* per perf rule (attention, fusion, small GEMMs) */
#define DLA_GEMM_TILE 128              /* a GEMM kernel's output tile (rows and columns) */
#define DLA_SMALL_GEMM_PCT 25.0        /* a GEMM of fewer tiles than SMs below this share
                                          of its roofline is small */
#define DLA_SMALL_GEMM_BATCHED_PCT 50.0 /* the share of the roofline a batched GEMM is
                                          taken to reach */
#define DLA_FUSE_MAX_OPS 16            /* the longest elementwise chain told apart */
#define DLA_ATTN_MAX_BETWEEN 3         /* elementwise ops between a product and softmax */
#define DLA_GPU_MEM_LOW_PCT 50.0       /* GPU memory used below this share */
#define DLA_BATCH_FACTOR_MAX 4         /* DLProf's advice: "by 4x" */
#define DLA_GPU_IMBALANCE_PCT 20.0     /* busiest vs idlest GPU: busy-time difference */
#define DLA_GPU_IMBALANCE_MIN_PCT 5.0  /* ... when the busiest GPU is at least this busy */
#define DLA_NSYS_MEMCPY_SYNC_HTOD_MAX 65536 /* nsys: HtoD copies of 64 KB or less exempt */
#define DLA_NSYS_GPU_GAP_NS 500000000LL /* nsys gpu_gaps: gap=500 ms */
#define DLA_NSYS_LOW_UTIL_PCT 50.0     /* nsys gpu_time_util: threshold=50 */
#define DLA_NSYS_UTIL_CHUNKS 30        /* nsys gpu_time_util: chunks=30 */
#define DLA_STRAGGLER_PCT 5.0          /* a rank's own time above the median rank's, % of its
                                          wall: a straggler */
#define DLA_SKEW_PCT 20.0              /* a collective's mean start skew, % of its mean time */
#define DLA_SKEW_MIN_NS 50000LL        /* ... and at least this (50 us) */
#define DLA_BUSBW_PCT 25.0             /* a collective's bus bandwidth, % of its GPU's link */
#define DLA_BUSBW_MIN_BYTES (1LL << 20) /* ... for messages of at least this (1 MiB) */

/* Runs every rule in table order; writes up to cap findings to out and
 * returns how many were written. */
size_t dla_rules_run(const dla_facts *f, dla_finding *out, size_t cap);

/* The number of rules and the id of rule i (for tests and docs). */
size_t dla_rules_count(void);
const char *dla_rules_id(size_t i);

#endif
