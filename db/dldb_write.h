/*
 * dldb_write.h - writing a dldb: raw records from producers, derived rows
 * from the analysis.
 *
 * Producers (dlsample, the CUPTI collector, the Nsight Systems and Kineto
 * importers) create a writer, insert raw records as plain C structs (no CUDA
 * types), let analysis/ add one or more aggregations, and commit. A new dldb
 * is built at `<out>.tmp-XXXXXX` in the target directory with journaling and
 * syncs off (a failed build is simply deleted), inside batched transactions
 * with prepared statements; the big tables' rows go 32 to an INSERT
 * (dldb_batch.h), so an insert's error (a full disk) may be reported by a
 * later call of the writer. dldb_writer_commit() finalises it and renames it
 * into place atomically. An existing file is never touched unless `force` is
 * set, and even then only replaced by the rename of a complete new file.
 * dldb_writer_open_existing() instead appends aggregations to an existing
 * dldb in place (WAL, one transaction per aggregation).
 *
 * Times are int64 nanoseconds. Producers pass them on their own clock and
 * set `time_origin_ns` (the profile start on that clock); the writer stores
 * `t - time_origin_ns` and records the origin in dl_meta. Sizes are bytes.
 *
 * Ownership: dldb_writer_create/open_existing return a new writer, freed
 * by dldb_writer_commit() or dldb_writer_abort(), which set the pointer to
 * NULL. Every const char * argument and struct is borrowed for the call.
 * Strings returned by dldb_writer_string() are borrowed from the writer and
 * live until it is freed. A writer is used by one thread at a time.
 *
 * Errors: DL_OK or a negative DL_E*; err (if not NULL) receives one line
 * naming the function and, for SQLite errors, sqlite3_errmsg(). After a
 * failed insert the writer should be aborted.
 */
#ifndef DLDB_WRITE_H
#define DLDB_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "dl.h"

typedef struct dldb_writer dldb_writer;

/* Schema version of db/schema.sql (PRAGMA user_version). */
#define DLDB_SCHEMA_VERSION 5
/* The DLProf view layer we implement (db_version). */
#define DLDB_VIEW_VERSION "1.8.0"
/* dl_meta 'format'. */
#define DLDB_FORMAT_NAME "dlprof-dldb"

typedef struct dldb_write_opts {
  int force;               /* 1: commit may replace an existing file */
  const char *producer;    /* e.g. "dlsample 0.1.0"; NULL: "unknown" */
  const char *source;      /* what was read, e.g. a trace path; NULL: "" */
  int64_t time_origin_ns;  /* subtracted from every time passed in */
  int64_t batch_rows;      /* rows per transaction; <= 0: 100000 */
} dldb_write_opts;

/* Starts a new dldb that will become `path` on commit. Fails with DL_EEXIST
 * if path exists and opts->force is 0 (checked again at commit), DL_EIO if
 * the directory is not writable. opts may be NULL (defaults). */
int dldb_writer_create(const char *path, const dldb_write_opts *opts, dldb_writer **out,
                       char *err, size_t errlen);

/* Opens an existing dldb written by this project for appending aggregations
 * (raw inserts are refused with DL_EINVAL). Fails with DL_EFORMAT for other
 * files and DL_EVERSION for another schema version. */
int dldb_writer_open_existing(const char *path, dldb_writer **out, char *err, size_t errlen);

/* Finishes the file: commits, checkpoints, closes and (for a new file)
 * renames it onto its path, honouring `force`. Frees *w and sets it to NULL,
 * also on failure (the temporary file is then removed, any old file kept). */
int dldb_writer_commit(dldb_writer **w, char *err, size_t errlen);

/* dldb_writer_commit, calling ready(ctx, path) once the file is complete
 * and closed and before it is renamed onto its path (path: the temporary
 * file; for an existing file, the file itself): the caller writes what
 * must appear together with it. A non-zero return (a DL_* code) fails the
 * commit as any other error does; the callee said why (err untouched). */
int dldb_writer_commit_ready(dldb_writer **w, int (*ready)(void *ctx, const char *path), void *ctx,
                             char *err, size_t errlen);

/* Discards everything (removes the temporary file; for an existing file,
 * rolls back the open transaction). Frees *w, sets it to NULL. NULL-safe. */
void dldb_writer_abort(dldb_writer **w);

/* The temporary path a new file is built at (borrowed), "" when appending. */
const char *dldb_writer_tmp_path(const dldb_writer *w);

/* A second, read-only connection to w's file, for the scans
 * (dldb_scan_*) and dldb_writer_string on another thread while w is used
 * on this one (a connection serves one thread at a time). Commits w's
 * rows first: the reader sees what is committed. w must not write while
 * the reader is open (no aggregation open, none begun). Close it with
 * dldb_writer_reader_close, before w. */
int dldb_writer_reader(dldb_writer *w, dldb_writer **out, char *err, size_t errlen);
void dldb_writer_reader_close(dldb_writer **r);

/* ---- Strings ------------------------------------------------------------ */

/* Longest string the writer stores (bytes); longer ones fail with DL_EINVAL
 * (importers cut them first, see dli.h). */
#define DLDB_MAX_STRING_BYTES (1 << 20)

/* Interns s (NULL counts as "") and stores its id (> 0) in *id. Memory is
 * bounded: past a budget of cached text, new strings are deduplicated in
 * SQLite (slower, but a trace of millions of distinct NVTX texts fits). */
int dldb_writer_intern(dldb_writer *w, const char *s, int64_t *id, char *err, size_t errlen);

/* The hash the writer finds a string of n bytes by: the interning API's
 * fast path for an importer that computes it on its reading thread and
 * passes it with the string (dldb_nvtx_range.name_hash). */
uint64_t dldb_writer_hash(const char *s, size_t n);

/* Says that a string of hash h (dldb_writer_hash) will be interned some
 * rows from now, so that its lookup is ready when it comes. Only a hint:
 * it changes no result. */
void dldb_writer_will_intern(const dldb_writer *w, uint64_t h);

/* Says that the raw records are in: the caller now reads the raw tables
 * (dldb_scan_*), then writes derived rows (dldb_aggr_*), and adds no
 * strings. The writer gives back memory it kept for adding records; a
 * later dldb_writer_intern still finds every string (slower at first).
 * dldb_writer_end_reads() says the reads and derived rows are done. Both
 * may be called more than once; neither fails. */
void dldb_writer_begin_reads(dldb_writer *w);
void dldb_writer_end_reads(dldb_writer *w);

/* The string with that id, or NULL if there is none. Borrowed: strings
 * cached in memory live until the writer is freed, others are read from the
 * file into one of a few buffers that later calls reuse (the last 4 results
 * stay valid), so copy what you keep. */
const char *dldb_writer_string(dldb_writer *w, int64_t id);

/* ---- Raw records (layer a) ---------------------------------------------- */

typedef struct dldb_sysconfig {
  int num_gpus;
  const char *cpu_model, *driver_version, *framework, *cuda_version, *cudnn_version;
  const char *nsys_version, *dlprof_version, *dlprof_build, *profile_name;
  const char *mode_string;        /* "pytorch", "tensorflow2", "simple" */
  const char *original_command;
} dldb_sysconfig;

typedef struct dldb_gpu {
  int32_t device_id;
  const char *name;
  int cc_major, cc_minor;         /* compute capability */
  int sm_count;
  int64_t memory_bytes;           /* 0: unknown */
} dldb_gpu;

typedef struct dldb_thread {
  int64_t pid, tid;
  const char *name;               /* NULL: unnamed */
} dldb_thread;

enum { DLDB_NVTX_PUSHPOP = 1, DLDB_NVTX_STARTEND = 2, DLDB_NVTX_MARK = 3 };
enum { DLDB_PAYLOAD_NONE = 0, DLDB_PAYLOAD_INT = 1, DLDB_PAYLOAD_REAL = 2 };

typedef struct dldb_nvtx_range {
  int kind;                       /* DLDB_NVTX_* */
  const char *domain;             /* NULL: "default-domain" */
  const char *name;
  int64_t start_ns, end_ns;
  int64_t pid, tid, end_tid;      /* end_tid 0: same as tid */
  int64_t parent_id;              /* id returned for the enclosing range; 0: none */
  int64_t name_id;                /* > 0: an interned id used instead of name */
  uint64_t name_hash;             /* dldb_writer_hash of name, 0: not known */
  int32_t category;
  uint32_t color;                 /* ARGB */
  int payload_kind;               /* DLDB_PAYLOAD_* */
  int64_t payload_int;
  double payload_real;
} dldb_nvtx_range;

enum { DLDB_API_RUNTIME = 0, DLDB_API_DRIVER = 1 };

typedef struct dldb_api_call {
  int api_kind;                   /* DLDB_API_* */
  const char *name;               /* e.g. "cudaLaunchKernel_v7000" */
  int64_t name_id;                /* > 0: an interned id used instead of name */
  int64_t start_ns, end_ns;
  int64_t pid, tid;
  int64_t correlation_id;
  int32_t return_value;
} dldb_api_call;

typedef struct dldb_kernel {
  const char *short_name;         /* e.g. "implicit_convolve_sgemm" */
  const char *long_name;          /* demangled full name; NULL: short_name */
  int32_t device_id, context_id, stream_id;
  int64_t gpu_start_ns, gpu_end_ns;
  int64_t correlation_id, pid;
  int32_t grid[3], block[3];
  int32_t registers_per_thread;
  int32_t static_smem_bytes, dynamic_smem_bytes;
  int64_t short_name_id, long_name_id; /* > 0: interned ids used instead of the names */
} dldb_kernel;

typedef struct dldb_memcpy {
  int copy_kind, src_kind, dst_kind;   /* formats.md B.4 enums */
  int64_t bytes;
  int32_t device_id, stream_id;
  int64_t gpu_start_ns, gpu_end_ns;
  int64_t correlation_id, pid;
} dldb_memcpy;

typedef struct dldb_memset {
  int32_t value;
  int64_t bytes;
  int mem_kind;
  int32_t device_id, stream_id;
  int64_t gpu_start_ns, gpu_end_ns;
  int64_t correlation_id, pid;
} dldb_memset;

typedef struct dldb_sync {
  int sync_type;                  /* 0 unknown, 1 event, 2 wait, 3 stream, 4 context */
  int32_t device_id, stream_id;
  int64_t event_id;
  int64_t start_ns, end_ns;
  int64_t correlation_id, pid;
} dldb_sync;

/* Each insert appends one record; *id (may be NULL) receives its row id. */
int dldb_write_sysconfig(dldb_writer *w, const dldb_sysconfig *c, char *err, size_t errlen);
int dldb_write_gpu(dldb_writer *w, const dldb_gpu *g, char *err, size_t errlen);
int dldb_write_thread(dldb_writer *w, const dldb_thread *t, char *err, size_t errlen);
int dldb_write_nvtx_range(dldb_writer *w, const dldb_nvtx_range *r, int64_t *id, char *err,
                          size_t errlen);
/* The call stack recorded for range range_id (an id dldb_write_nvtx_range
 * returned), as the trace has it: stack_id > 0 (an interned id) or the text
 * stack; nothing for NULL or "". */
int dldb_write_range_stack(dldb_writer *w, int64_t range_id, const char *stack, int64_t stack_id,
                           char *err, size_t errlen);
int dldb_write_api_call(dldb_writer *w, const dldb_api_call *a, char *err, size_t errlen);
int dldb_write_kernel(dldb_writer *w, const dldb_kernel *k, char *err, size_t errlen);
int dldb_write_memcpy(dldb_writer *w, const dldb_memcpy *m, char *err, size_t errlen);
int dldb_write_memset(dldb_writer *w, const dldb_memset *m, char *err, size_t errlen);
int dldb_write_sync(dldb_writer *w, const dldb_sync *s, char *err, size_t errlen);

/* After the raw records of an import whose time_origin_ns was later than
 * some start (a trace not in time order): adds the same amount to every
 * stored time so that the earliest start is 0, and moves time_origin_ns
 * back by it. Nothing when no start is before the origin. */
int dldb_writer_rebase(dldb_writer *w, char *err, size_t errlen);

/* Sets a dl_meta key (replacing its value). */
int dldb_write_meta(dldb_writer *w, const char *key, const char *value, char *err,
                    size_t errlen);

/* Ensures the domain exists and stores its id in *id. */
int dldb_write_domain(dldb_writer *w, const char *name, int64_t *id, char *err, size_t errlen);

/* ---- Scans of raw records for the analysis ------------------------------ */

/* Callbacks return 0 to go on; non-zero stops the scan, which then returns
 * that value. Records are borrowed for the call; names are string ids
 * (dldb_writer_string). Order is by id (insertion order) unless noted. */

typedef struct dldb_scan_range {
  int64_t id, name_id, start_ns, end_ns, pid, tid;
  int kind;
  int64_t stack_id;               /* dldb_scan_range_stacks only: strings id of its stack */
} dldb_scan_range;

typedef struct dldb_scan_api {
  int64_t id, name_id, start_ns, end_ns, pid, tid, correlation_id;
} dldb_scan_api;

/* Kernels, memcpys (kind 1) and memsets (kind 2) share one record. */
typedef struct dldb_scan_gpu_op {
  int kind;                       /* 0 kernel, 1 memcpy, 2 memset */
  int64_t id, short_name_id, long_name_id;  /* 0 for memory ops */
  int64_t gpu_start_ns, gpu_end_ns, correlation_id, pid;
  int32_t device_id, copy_kind;
  int64_t bytes;                  /* memory ops; 0 for kernels */
  int32_t src_kind, dst_kind;     /* memcpys (formats.md B.4); 0 otherwise */
  int32_t mem_kind;               /* memsets; 0 otherwise */
  int32_t grid[3], block[3];      /* kernels: the launch's dimensions; 0 otherwise */
} dldb_scan_gpu_op;

typedef struct dldb_scan_gpu {
  int32_t device_id;
  const char *name;               /* gpu_name ("": unknown), valid during the call */
  int64_t memory_bytes;           /* 0: unknown */
  int32_t sm_count;               /* 0: unknown */
} dldb_scan_gpu;

/* An estimate of the rows of a raw table ("nvtx_ranges", "cuda_api_calls",
 * "kernels", "memcpys", "memsets": its largest id, cheap), 0 when unknown. */
int64_t dldb_scan_estimate(dldb_writer *w, const char *table);

/* Finds a domain by name: *id = 0 when absent. */
int dldb_scan_domain(dldb_writer *w, const char *name, int64_t *id, char *err, size_t errlen);
/* The first domain (lowest id) in *id, 0 when there is none. */
int dldb_scan_first_domain(dldb_writer *w, int64_t *id, char *err, size_t errlen);
int dldb_scan_ranges(dldb_writer *w, int64_t domain_id,
                     int (*fn)(void *ctx, const dldb_scan_range *r), void *ctx, char *err,
                     size_t errlen);
/* The ranges of the domain that have a call stack (nvtx_range_stacks; none
 * in files before schema 5), with stack_id set, in id order. */
int dldb_scan_range_stacks(dldb_writer *w, int64_t domain_id,
                           int (*fn)(void *ctx, const dldb_scan_range *r), void *ctx, char *err,
                           size_t errlen);
int dldb_scan_api_calls(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_api *a), void *ctx,
                        char *err, size_t errlen);
/* Kernels first, then memcpys, then memsets. */
int dldb_scan_gpu_ops(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_gpu_op *g), void *ctx,
                      char *err, size_t errlen);
/* Device ids of the gpus table, ascending. */
int dldb_scan_gpus(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_gpu *g), void *ctx,
                   char *err, size_t errlen);

/* ---- Derived rows (layer b), written by analysis/ ----------------------- */

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
  int64_t op_idx;
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

/* Starts an aggregation (opens its transaction) and returns its new id.
 * The rows below refer to it; dldb_aggr_end() commits them all, and
 * dldb_aggr_cancel() drops them. */
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

#endif
