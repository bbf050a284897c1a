/*
 * dldb_scan.h - raw records read back for the analysis: the read side of
 * the writer (dldb_write.h).
 *
 * The analysis scans a writer's raw tables (a new file's, one opened with
 * dldb_writer_open_existing, or a second connection from
 * dldb_writer_reader) in one pass each, then writes derived rows
 * (dldb_aggr.h). A scan first writes the rows the writer still holds in
 * its batches, so it sees every record inserted before it.
 *
 * A new file's writer keeps the NVTX ranges, CUDA API calls and kernels
 * written through it in memory up to a budget (dldb_write_opts
 * scan_mem_bytes): their scans read them there while they are the table's
 * rows, with the same records in the same order (dldb_rawmem.h).
 *
 * Callbacks return 0 to go on; non-zero stops the scan, which then returns
 * that value. Records are borrowed for the call; names are string ids
 * (dldb_writer_string). Order is by id (insertion order) unless noted.
 * Tables that a file written before them lacks (range stacks, occupancy,
 * OS runtime calls, external correlations) scan as empty.
 *
 * Ownership: the writer is borrowed for the call. Errors: DL_OK or a
 * negative DL_E* with one line in err.
 */
#ifndef DLDB_SCAN_H
#define DLDB_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

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

/* The analysis has read the raw rows it scans once: a new file's writer
 * frees the rows it kept in memory for those scans (later scans read the
 * file). Readers of w (dldb_writer_reader) must not be scanning. */
void dldb_scan_done(dldb_writer *w);

/* An estimate of the rows of a raw table ("nvtx_ranges", "cuda_api_calls",
 * "kernels", "memcpys", "memsets", "dl_python_frames": its largest rowid,
 * cheap), 0 when unknown or the file lacks the table. */
int64_t dldb_scan_estimate(dldb_writer *w, const char *table);

/* Finds a domain by name: *id = 0 when absent. */
int dldb_scan_domain(dldb_writer *w, const char *name, int64_t *id, char *err, size_t errlen);
/* The first domain (lowest id) in *id, 0 when there is none. */
int dldb_scan_first_domain(dldb_writer *w, int64_t *id, char *err, size_t errlen);
/* Calls fn with every domain, in id order, and whether it has push/pop or
 * start/end ranges (always 1 when the file has one domain: not scanned);
 * fn's nonzero return ends the scan and is returned. name is borrowed for
 * the call. */
int dldb_scan_domains(dldb_writer *w, int (*fn)(void *ctx, int64_t id, const char *name,
                                                int has_ranges),
                      void *ctx, char *err, size_t errlen);
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

/* ---- Our extensions -------------------------------------------------------- */

typedef struct dldb_scan_occ {
  int64_t kernel_id;
  double blocks_per_sm, est_occupancy_pct; /* NaN: unknown */
} dldb_scan_occ;

/* Every kernel_occupancy row; fn returns 0 to go on. */
int dldb_scan_kernel_occupancy(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_occ *r),
                               void *ctx, char *err, size_t errlen);

typedef struct dldb_scan_osrt {
  int64_t name_id, start_ns, end_ns, pid, tid;
} dldb_scan_osrt;

/* Every OS runtime call, by id; fn returns 0 to go on. */
int dldb_scan_osrt_calls(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_osrt *r),
                         void *ctx, char *err, size_t errlen);

/* One exact link from a CUDA API call to the NVTX range it was made in:
 * a row of cupti_external_correlations of kind CUSTOM0 (3), whose external
 * id is the range's id (the live collector pushes it per NVTX push),
 * joined with that range. Times as stored (relative to the time origin). */
typedef struct dldb_scan_extcorr {
  int64_t correlation_id;      /* the API call's (per process) */
  int64_t range_id, pid, tid, start_ns, end_ns; /* the range's */
} dldb_scan_extcorr;

/* Scans the links whose range is a push/pop or start/end range of
 * domain_id, ordered by correlation id; none (DL_OK) when the file has no
 * such table (other producers, older files). */
int dldb_scan_extcorrs(dldb_writer *w, int64_t domain_id,
                       int (*fn)(void *ctx, const dldb_scan_extcorr *e), void *ctx, char *err,
                       size_t errlen);

#endif
