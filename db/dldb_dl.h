/*
 * dldb_dl.h - writing and scanning our own dldb extensions (the
 * kernel_occupancy raw table and the aggr_dl_* derived tables behind the
 * view_dl_* views; db/schema.sql "dl extensions", docs/dldb.md).
 *
 * A dldb written before these tables existed lacks them: scans then see no
 * rows, and dldb_dl_has_tables() says 0 so the analysis writes nothing.
 *
 * Ownership: dldb_occ_writer_open returns a new handle bound to the writer
 * (borrowed; it must outlive the handle); free it with
 * dldb_occ_writer_close(), which sets the pointer to NULL, before the
 * writer is committed or aborted. Rows and callbacks' records are borrowed.
 * Errors: DL_OK or a negative DL_E* with one line in err.
 */
#ifndef DLDB_DL_H
#define DLDB_DL_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

typedef struct dldb_occ_writer dldb_occ_writer;

int dldb_occ_writer_open(dldb_writer *w, dldb_occ_writer **out, char *err, size_t errlen);
/* Attaches launch facts to the kernel written last (dldb_write_kernel).
 * NaN stands for unknown (stored as NULL). */
int dldb_occ_write(dldb_occ_writer *o, double blocks_per_sm, double est_occupancy_pct,
                   char *err, size_t errlen);
void dldb_occ_writer_close(dldb_occ_writer **o);

typedef struct dldb_scan_occ {
  int64_t kernel_id;
  double blocks_per_sm, est_occupancy_pct; /* NaN: unknown */
} dldb_scan_occ;

/* Every kernel_occupancy row; fn returns 0 to go on. */
int dldb_scan_kernel_occupancy(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_occ *r),
                               void *ctx, char *err, size_t errlen);

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

#endif
