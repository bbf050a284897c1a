/*
 * dla_shapes.h - the op shapes phase: groups the op instances by op and
 * input shapes and types (from the instance's text: the PyTorch
 * profiler's and emit_nvtx's "sizes = [[...]]", "dtype = ..."), sums
 * their GPU time (kernels and memory operations they launched, in the
 * aggregated iterations), applies the perf models (dla_perfmodel.h) and
 * the GPU peaks (dla_peaks.h): FLOPs and bytes per call, achieved TFLOP/s
 * and TB/s, arithmetic intensity, roofline and bound. Rows go to
 * aggr_dl_op_shapes (view_dl_op_shapes).
 *
 * Ownership: dla__shapes_ahead or dla__shapes_run makes c->shapes;
 * dla__shapes_free frees it (and joins the grouping's thread first).
 */
#ifndef DLA_SHAPES_H
#define DLA_SHAPES_H

#include <stdint.h>

#include "dla_ctx.h"
#include "dla_perfmodel.h"
#include "dla_rules.h"

/* One op and input shapes. */
typedef struct dla_shape_row {
  int32_t op;                  /* index into c->ops */
  char *dims;                  /* the input dims as recorded (owned) */
  char *key;                   /* op, dims and dtype: the grouping key (owned) */
  char *name;                  /* the op's name in the text ("aten::linear") (owned) */
  char dtype[32];              /* the inputs' type as recorded ("": unknown) */
  int64_t calls, gpu_time;     /* instances in the aggregated iterations; ns, all calls */
  int64_t tc_gpu_time;         /* ns of it in Tensor Core kernels */
  int32_t device;              /* the GPU of its kernels (-1: none seen) */
  int32_t sms;                 /* that GPU's SMs (0: unknown) */
  dla_pm_result pm;            /* the model of one call */
  /* with a model and GPU time: achieved and the GPU's limits (NaN: unknown) */
  double tflops_per_s, tb_per_s, intensity; /* FLOP per byte */
  double peak_tflops, peak_tb_per_s, roofline_tflops_per_s, pct_of_roofline;
  const char *bound;           /* "compute", "memory", "unknown GPU", "unknown type"; NULL: no
                                * model */
  const char *gpu_name;        /* the peaks' GPU name (static), NULL: unknown GPU */
  const struct dla_peak *peak; /* its GPU's peaks (static), NULL: unknown GPU */
} dla_shape_row;

typedef struct dla_shapes {
  dla_shape_row *v;
  size_t n, cap;
  /* model FLOPs per aggregated iteration (iter_flops[i - c->iter_start]), and the peak
   * they are measured against: the dense peak of the rows with the most FLOPs' type */
  double *iter_flops;
  int64_t n_iter_flops;
  double mfu_peak_tflops;      /* NaN: unknown GPU */
  /* attention by parts and elementwise chains (dla_perffacts.c), largest savings first;
   * they borrow the rows' strings */
  dla_attn_fact attn[DLA_MAX_PERF_FACTS];
  int n_attn;
  dla_fuse_fact fuse[DLA_MAX_PERF_FACTS];
  int n_fuse;
} dla_shapes;

/* Starts grouping the op instances by their texts' shapes on a thread of
 * its own (the iterations known), which reads the texts through the
 * writer: c->w is the thread's, and NULL here, until dla__shapes_run (or
 * dla__shapes_free) joins it, so the phases between use no writer. Without
 * a thread, dla__shapes_run groups them. DL_OK or DL_ENOMEM. */
int dla__shapes_ahead(dla_ctx *c);
/* Fills c->shapes (calls, kernels and memory operations still loaded). */
int dla__shapes_run(dla_ctx *c);
/* Writes c->shapes' rows into the open aggregation (when the file has the
 * table). */
int dla__shapes_write(dla_ctx *c, int64_t aggr_id);
void dla__shapes_free(dla_ctx *c);
/* The GEMMs and convolutions that ran no Tensor Core kernel on a GPU of
 * known peaks, most GPU time first, into f->tc (the Tensor Core rule's
 * facts), and the perf rules' facts (dla_perffacts.h) into f->attn, fuse
 * and small_gemm; f borrows the rows' strings. */
void dla__shapes_facts(const dla_ctx *c, dla_facts *f);

#endif
