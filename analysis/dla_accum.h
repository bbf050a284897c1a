/*
 * dla_accum.h - the accumulate phase (analysis/ only): op figures into
 * c->ops, and the sums below, which the writer reads.
 */
#ifndef DLA_ACCUM_H
#define DLA_ACCUM_H

#include "dla_ctx.h"

typedef struct dla_iter_op_acc {   /* kernels of one op in one iteration */
  int64_t iter, op, total, tc, gpu, tc_gpu;
} dla_iter_op_acc;

typedef struct dla_op_kernel_acc { /* launches of one kernel name by one op */
  int64_t op, name_id, calls, gpu, min, max, api;
  int64_t api_min, api_max;  /* launch call durations; api_min INT64_MAX: none known */
  int tc;
} dla_op_kernel_acc;

/* The aggregated iterations' sums (times in ns). Zeroed by the caller
 * before dla__accum_run; owns its arrays: dla__accum_free. */
typedef struct dla_accum {
  dla_iter_op_acc *io; size_t nio, iocap;
  dla_op_kernel_acc *ok; size_t nok, okcap;
  dl_map io_map, ok_map, names;
  int64_t *it_kcount, *it_tccount, *it_gpu, *it_tcgpu; /* per iteration (niter) */
  int64_t kernel_gpu, tc_gpu, mem_gpu, launches;
  int64_t kernel_api, tc_api, mem_api; /* launching calls' durations (CPU time) */
  int64_t name_count, tc_name_count, other_name_count, mem_name_count;
  int64_t elig_gpu, elig_tc_gpu;
} dla_accum;

/* Once the iterations are split: fills the figures of c->ops (and each
 * memory op's iteration) and *s. */
int dla__accum_run(dla_ctx *c, dla_accum *s);
/* Frees what s owns and zeroes it. */
void dla__accum_free(dla_accum *s);

#endif
