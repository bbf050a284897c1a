/*
 * dldb_stats.h - writing and scanning the tables behind our nsys-stats-style
 * statistics (issue 8; db/schema.sql "nsys-stats-style statistics",
 * docs/dldb.md): the osrt_calls raw table (OS runtime calls, from Nsight
 * Systems' OSRT_API) and the aggr_stats / aggr_nvtx_stats / aggr_stats_api_ops
 * derived tables behind the view_dl_stats_* views.
 *
 * A dldb written before these tables existed lacks them: scans then see no
 * rows, dldb_stats_has_tables() says 0 and the analysis writes nothing.
 *
 * Ownership: dldb_osrt_writer_open returns a new handle bound to the writer
 * (borrowed; it must outlive the handle); free it with
 * dldb_osrt_writer_close(), which sets the pointer to NULL, before the
 * writer is committed or aborted. Rows, strings and callbacks' records are
 * borrowed for the call. Errors: DL_OK or a negative DL_E* with one line in
 * err.
 */
#ifndef DLDB_STATS_H
#define DLDB_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

/* ---- Raw: OS runtime calls ---------------------------------------------- */

typedef struct dldb_osrt_writer dldb_osrt_writer;

typedef struct dldb_osrt_call {
  int64_t name_id;              /* interned name (dldb_writer_intern), > 0 */
  int64_t start_ns, end_ns;     /* producer clock (the writer subtracts its origin) */
  int64_t pid, tid;
  int64_t return_value;
  int32_t nesting;              /* 0: outermost */
} dldb_osrt_call;

/* DL_EINVAL on a writer opened on an existing dldb (raw records are not
 * added there), DL_ENOTFOUND when the file has no osrt_calls table. */
int dldb_osrt_writer_open(dldb_writer *w, dldb_osrt_writer **out, char *err, size_t errlen);
/* Appends one call; rows are committed in the writer's batches. */
int dldb_osrt_write(dldb_osrt_writer *o, const dldb_osrt_call *c, char *err, size_t errlen);
void dldb_osrt_writer_close(dldb_osrt_writer **o);

typedef struct dldb_scan_osrt {
  int64_t name_id, start_ns, end_ns, pid, tid;
} dldb_scan_osrt;

/* Every OS runtime call, by id; fn returns 0 to go on. */
int dldb_scan_osrt_calls(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_osrt *r),
                         void *ctx, char *err, size_t errlen);

/* ---- Derived rows --------------------------------------------------------- */

/* 1 if the file has the aggr_stats tables. */
int dldb_stats_has_tables(dldb_writer *w);

enum {
  DLDB_STATS_CUDA_API = 1,
  DLDB_STATS_KERNEL = 2,
  DLDB_STATS_KERNEL_CONFIG = 3,
  DLDB_STATS_MEMORY = 4,
  DLDB_STATS_OSRT = 5,
  DLDB_STATS_NVTX = 6,
  DLDB_STATS_NVTX_GPU_PROJ = 7,
};

/* Statistics of a sample: count, sum, mean, median, min, max, sample
 * standard deviation (n - 1; 0 for one value). */
typedef struct dldb_stat {
  int64_t n, total, min, max;
  double avg, med, stddev;
} dldb_stat;

typedef struct dldb_stats_row {
  int kind;                       /* DLDB_STATS_* */
  int64_t row_idx;
  int64_t name_id;                /* strings id; 0: label names the row */
  const char *label;              /* NULL: "" */
  int64_t short_name_id;          /* kernels */
  const char *grid, *block;       /* kernels: "x, y, z"; NULL: "" */
  int64_t configs;
  dldb_stat t;                    /* durations, ns */
  double time_pct;
  dldb_stat b;                    /* memory: bytes */
  int64_t range_time, gpu_ops;    /* kind 7 */
  int64_t level_sum, child_sum;   /* kind 7: sums over the instances of
                                     nesting levels and direct children */
} dldb_stats_row;

typedef struct dldb_stats_api_op_row {
  int64_t name_id, op_idx, calls, total;
} dldb_stats_api_op_row;

/* Rows of the open aggregation (between dldb_aggr_begin and _end). The NVTX
 * kinds (6, 7) go to aggr_nvtx_runs (their totals to aggr_nvtx_totals at
 * dldb_aggr_end), or to the file's older layout: aggr_nvtx_stats (schema
 * 2), aggr_stats (schema 1). A kind's rows have distinct row_idx; their
 * time_pct must be 100 * total / the sum of their totals, which is what
 * schema 3 views compute. */
int dldb_aggr_stats(dldb_writer *w, int64_t aggr_id, const dldb_stats_row *r, size_t n,
                    char *err, size_t errlen);
int dldb_aggr_stats_api_ops(dldb_writer *w, int64_t aggr_id, const dldb_stats_api_op_row *r,
                            size_t n, char *err, size_t errlen);

#endif
