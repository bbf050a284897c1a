/*
 * dldb_aggr_shapes.h - derived rows of the op shapes and perf models
 * (aggr_dl_op_shapes, read through view_dl_op_shapes; docs/dldb.md), written
 * by the analysis into the open aggregation (dldb_aggr.h). Strings are
 * borrowed for the call.
 */
#ifndef DLDB_AGGR_SHAPES_H
#define DLDB_AGGR_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

/* One op and input shapes; NaN reals and NULL strings are written NULL. */
typedef struct dldb_dl_op_shape_row {
  int64_t row_idx, op_idx;
  const char *input_dims, *input_types;
  const char *model;                 /* the model's family, "no model" */
  int64_t calls, gpu_time;           /* gpu_time: ns, all calls */
  int32_t device_id;                 /* -1: no GPU work seen */
  double flops, bytes;               /* per call */
  double tflops_per_s, tb_per_s, intensity; /* achieved; intensity: FLOP per byte */
  double peak_tflops, peak_tb_per_s, roofline_tflops_per_s, pct_of_roofline;
  const char *bound;                 /* "compute", "memory", "unknown GPU", "unknown type" */
  const char *gpu_name;              /* the GPU the peaks are of */
} dldb_dl_op_shape_row;

/* 1 if the file has aggr_dl_op_shapes (schema written by this version). */
int dldb_dl_has_op_shapes(dldb_writer *w);

/* Model FLOPs of iterations first_iter, first_iter + 1, ... (n of them),
 * and the peak (TFLOP/s, NaN: unknown) model FLOP utilization divides by. */
int dldb_aggr_dl_iter_flops(dldb_writer *w, int64_t aggr_id, int64_t first_iter,
                            const double *flops, size_t n, double peak_tflops, char *err,
                            size_t errlen);

int dldb_aggr_dl_op_shapes(dldb_writer *w, int64_t aggr_id, const dldb_dl_op_shape_row *r,
                           size_t n, char *err, size_t errlen);

#endif
