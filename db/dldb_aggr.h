/*
 * dldb_aggr.h - derived rows (layer b): what the analysis writes, one set
 * per aggregation, on a writer of dldb_write.h.
 *
 * dldb_aggr_begin() opens an aggregation (its transaction) and returns its
 * new id; the rows below refer to it; dldb_aggr_end() commits them all, and
 * dldb_aggr_cancel() drops them, so a failed analysis leaves no partial
 * aggregation. A file written before our extension tables existed lacks
 * them: dldb_dl_has_tables() and dldb_stats_has_tables() say 0 and the
 * analysis writes none of their rows.
 *
 * Ownership: the writer, rows and their strings are borrowed for the call.
 * Errors: DL_OK or a negative DL_E* with one line in err (DL_EINVAL for a
 * row with no aggregation open).
 */
#ifndef DLDB_AGGR_H
#define DLDB_AGGR_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

typedef struct dldb_aggr_row {
  int64_t domain_id;
  int64_t iter_start, iter_stop, iter_aggregated;
  const char *key_node_name;      /* "" without a key op */
  const char *user_name, *host_name;
  const char *aggr_start;         /* "YYYY-MM-DD HH:MM:SS" UTC */
  int64_t wall_start_ns, wall_end_ns;
  int key_op_found;
  const char *tc_rules;
} dldb_aggr_row;

typedef struct dldb_summary_row {
  int64_t wall_clock_time;
  double tc_utilization, gpu_utilization;
  int64_t total_iterations, profiled_iterations, iter_start, iter_stop;
  double iter_avg, iter_std_dev;
  const char *key_node;
  double pct[7];                  /* tc, non_tc, memory, dataloader, io, cpu, other */
  int64_t kernels_gpu_time, kernels_count, using_tc_gpu_time, using_tc_count;
  int64_t memory_gpu_time, memory_count, other_gpu_time, other_count, kernel_launches;
  int64_t nodes_gpu_time[4], nodes_count[4]; /* total, using_tc, tc_eligible, other */
  /* CPU time: durations of the calls that launched the kernels (all, TC,
   * non-TC) and the memory operations, ns */
  int64_t kernels_cpu_time, using_tc_cpu_time, memory_cpu_time, other_cpu_time;
} dldb_summary_row;

typedef struct dldb_iteration_row {
  int64_t iter_value, start_time, stop_time;
  int profiled;
  double gpu_utilization;
  int64_t total_kernel_count, using_tc_kernel_count, total_gpu_time, tc_gpu_time;
  int64_t dur[7];                 /* ns per category, order of pct[] */
} dldb_iteration_row;

typedef struct dldb_op_row {
  int64_t op_idx;                 /* 0 .. 2^32 - 1, unique in the aggregation */
  const char *op_node_id, *op_node_name, *direction, *op_node_type, *data_type, *stack_trace;
  int64_t num_calls, kernel_calls;
  int tc_eligible, using_tc, is_bad_data_type;
  int64_t cpu_time, gpu_time, cpu_overhead, gpu_idle, tc_gpu_time;
  int64_t cpu_time_min, cpu_time_max, gpu_time_min, gpu_time_max;
  /* DLProf's iteration-report cells ("<N:32, C:3, H:32, W:32>; <6>"); NULL: unknown */
  const char *input_shapes, *parameters, *output_shapes;
} dldb_op_row;

typedef struct dldb_kernel_attr_row {
  int64_t iter_value, kernel_id, op_idx, api_start_ns;
  int64_t api_dur_ns;             /* the launching call's duration; < 0: unknown (NULL) */
  int uses_tc;
} dldb_kernel_attr_row;

typedef struct dldb_iter_op_row {
  int64_t iter_value, op_idx, total_count, tc_count, total_gpu_time, tc_gpu_time;
} dldb_iter_op_row;

typedef struct dldb_op_kernel_row {
  int64_t op_idx, kernel_name_id;
  int uses_tc;
  int64_t calls, gpu_time, min, max, api_time;
  int64_t api_min, api_max;       /* per launch call; < 0: unknown (NULL) */
} dldb_op_kernel_row;

typedef struct dldb_group_row {
  int64_t row_idx;
  int row_type;                   /* 1 group, 2 op */
  const char *row_full_id, *row_full_name, *row_trimmed_name;
  int64_t level, num_op_instances, num_supported_leaf_ops, num_tc_leaf_ops;
  int64_t cpu_time_sum, gpu_time_sum, cpu_overhead_sum, gpu_idle_sum;
} dldb_group_row;

/* sum/min/max for cpu_time, gpu_time, cpu_overhead, gpu_idle (in order). */
typedef struct dldb_op_type_row {
  const char *op_node_type;
  int64_t num_nodes, num_calls;
  int64_t sum[4], min[4], max[4];
} dldb_op_type_row;

typedef struct dldb_gpu_util_row {
  int32_t device_id;
  double gpu_utilization;
  int64_t kernel_time;
} dldb_gpu_util_row;

typedef struct dldb_finding_row {
  const char *rule_id, *problem, *recommendation, *javascript_function, *javascript_args;
} dldb_finding_row;

/* Starts an aggregation (opens its transaction) and returns its new id. */
int dldb_aggr_begin(dldb_writer *w, const dldb_aggr_row *a, int64_t *aggr_id, char *err,
                    size_t errlen);
int dldb_aggr_summary(dldb_writer *w, int64_t aggr_id, const dldb_summary_row *s, char *err,
                      size_t errlen);
int dldb_aggr_iteration(dldb_writer *w, int64_t aggr_id, const dldb_iteration_row *r, char *err,
                        size_t errlen);
int dldb_aggr_op(dldb_writer *w, int64_t aggr_id, const dldb_op_row *r, char *err,
                 size_t errlen);
int dldb_aggr_kernel(dldb_writer *w, int64_t aggr_id, const dldb_kernel_attr_row *r, char *err,
                     size_t errlen);
int dldb_aggr_iter_op(dldb_writer *w, int64_t aggr_id, const dldb_iter_op_row *r, char *err,
                      size_t errlen);
int dldb_aggr_op_kernel(dldb_writer *w, int64_t aggr_id, const dldb_op_kernel_row *r, char *err,
                        size_t errlen);
int dldb_aggr_group(dldb_writer *w, int64_t aggr_id, const dldb_group_row *r, char *err,
                    size_t errlen);
int dldb_aggr_op_type(dldb_writer *w, int64_t aggr_id, const dldb_op_type_row *r, char *err,
                      size_t errlen);
int dldb_aggr_gpu(dldb_writer *w, int64_t aggr_id, const dldb_gpu_util_row *r, char *err,
                  size_t errlen);
int dldb_aggr_finding(dldb_writer *w, int64_t aggr_id, int64_t seq, const dldb_finding_row *r,
                      char *err, size_t errlen);
int dldb_aggr_end(dldb_writer *w, char *err, size_t errlen);
void dldb_aggr_cancel(dldb_writer *w);

/* ---- Our extensions: view_dl_* (db/schema.sql "dl extensions") ------------ */

/* 1 if the file has the aggr_dl_* tables. */
int dldb_dl_has_tables(dldb_writer *w);
/* 1 if the file has aggr_dl_iter_names (schema 4 and newer). */
int dldb_dl_has_iter_names(dldb_writer *w);

typedef struct dldb_dl_gpu_row {
  int32_t device_id;
  int64_t wall_ns, computation_ns, communication_ns, exposed_comm_ns, memcpy_ns;
  int64_t exposed_memcpy_ns, busy_ns, kernel_busy_ns;
  double est_sm_efficiency, est_achieved_occupancy; /* %, NaN: unknown */
} dldb_dl_gpu_row;

typedef struct dldb_dl_iter_gpu_row {
  int64_t iter_value;
  int32_t device_id;
  int64_t duration_ns, kernel_busy_ns, communication_ns, exposed_comm_ns;
  double est_sm_efficiency, est_achieved_occupancy; /* %, NaN: unknown */
} dldb_dl_iter_gpu_row;

typedef struct dldb_dl_kernel_row {
  int64_t kernel_name_id, calls, gpu_time;
  int uses_tc, is_communication;
  double blocks_per_sm, est_achieved_occupancy, est_sm_efficiency; /* NaN: unknown */
} dldb_dl_kernel_row;

/* Rows of the open aggregation (between dldb_aggr_begin and _end). */
int dldb_aggr_dl_gpus(dldb_writer *w, int64_t aggr_id, const dldb_dl_gpu_row *r, size_t n,
                      char *err, size_t errlen);
int dldb_aggr_dl_iter_gpus(dldb_writer *w, int64_t aggr_id, const dldb_dl_iter_gpu_row *r,
                           size_t n, char *err, size_t errlen);
int dldb_aggr_dl_kernels(dldb_writer *w, int64_t aggr_id, const dldb_dl_kernel_row *r, size_t n,
                         char *err, size_t errlen);
/* The trace's names of iterations: names[i] is the strings id of iteration
 * i's name, or negative where it has none (no row). */
int dldb_aggr_dl_iter_names(dldb_writer *w, int64_t aggr_id, const int64_t *names, size_t n,
                            char *err, size_t errlen);

/* 1 if the file has aggr_dl_op_cpu_times (schema 6 and newer). */
int dldb_dl_has_op_cpu_times(dldb_writer *w);
/* One op's CPU time in the aggregated iterations (view_op_cpu_times). */
typedef struct dldb_op_cpu_row {
  int64_t op_idx;            /* of the op's aggr_ops row */
  int64_t calls;
  int64_t total_ns, self_ns; /* self: outside the op instances nested in its own */
} dldb_op_cpu_row;
int dldb_aggr_dl_op_cpu_times(dldb_writer *w, int64_t aggr_id, const dldb_op_cpu_row *r,
                              size_t n, char *err, size_t errlen);

/* ---- Our extensions: view_dl_stats_* (the statistics of nsys stats) ------- */

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
/* Around the open aggregation's NVTX rows (dldb_aggr_stats of kinds 6 and
 * 7 only, in key order: kind, then row_idx): in a new file whose
 * aggr_nvtx_runs is empty they are written as the table's pages
 * (dl_sqlbuild.h), several times cheaper than through SQLite; the
 * aggregation's rows before them are committed first (a new file that
 * fails is removed whole). Elsewhere, or with DLDB_WRITE=sqlite in the
 * environment (tests compare the two), SQLite inserts them. Any other use
 * of the writer ends the build as _end does. */
int dldb_aggr_nvtx_rows_begin(dldb_writer *w, char *err, size_t errlen);
int dldb_aggr_nvtx_rows_end(dldb_writer *w, char *err, size_t errlen);
/* Around the open aggregation's launches (dldb_aggr_kernel, in key order:
 * iteration, then kernel id): in a new file whose aggr_kernels is empty
 * the rows and their index by launch time are written as pages, as the
 * NVTX rows are (above); the caller then gives each row's index entry
 * (dldb_aggr_kernel_by_time) in the index's order (launch time, iteration,
 * kernel id), while dldb_aggr_kernels_paged says 1. Elsewhere SQLite
 * inserts the rows and keeps the index, and the entries are ignored. */
int dldb_aggr_kernels_begin(dldb_writer *w, char *err, size_t errlen);
int dldb_aggr_kernels_paged(const dldb_writer *w);
int dldb_aggr_kernel_by_time(dldb_writer *w, int64_t aggr_id, int64_t api_start_ns,
                             int64_t iter_value, int64_t kernel_id, char *err, size_t errlen);
int dldb_aggr_kernels_end(dldb_writer *w, char *err, size_t errlen);
int dldb_aggr_stats_api_ops(dldb_writer *w, int64_t aggr_id, const dldb_stats_api_op_row *r,
                            size_t n, char *err, size_t errlen);

#endif
