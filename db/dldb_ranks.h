/*
 * dldb_ranks.h - the ranks of a distributed job in a dldb: the raw
 * dl_gpu_ranks rows (written by importers, read by the analysis) and the
 * derived aggr_dl_ranks and aggr_dl_collectives rows (written by the
 * analysis inside an open aggregation). Files without these tables (other
 * producers, older files) are read as having no ranks, and their derived
 * rows are skipped. Every function borrows the writer.
 */
#ifndef DLDB_RANKS_H
#define DLDB_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

/* One GPU's rank. host: borrowed, NULL when unknown. */
typedef struct dldb_gpu_rank {
  int32_t device_id;   /* gpus.device_id */
  int32_t rank, local_device;
  int32_t world_size;  /* 0: unknown */
  const char *host;
} dldb_gpu_rank;

/* Writes (or replaces) the rank row of a GPU. DL_OK when the file has no
 * dl_gpu_ranks table (nothing written). */
int dldb_write_gpu_rank(dldb_writer *w, const dldb_gpu_rank *r, char *err, size_t errlen);

/* Calls fn for every rank row, by device id; host is valid during the call
 * only. A non-zero return of fn stops the scan and is returned. */
int dldb_scan_gpu_ranks(dldb_writer *w, int (*fn)(void *ctx, const dldb_gpu_rank *r), void *ctx,
                        char *err, size_t errlen);

/* The arguments the PyTorch profiler records on an NCCL kernel ("Collective
 * name", "In msg nelems", "Out msg nelems", "Group size", "dtype"). Sizes
 * in bytes (elements x the dtype's size), < 0: unknown; group_size 0:
 * unknown; strings borrowed, NULL: unknown. */
typedef struct dldb_kernel_coll {
  int64_t kernel_id;   /* kernels.id (set by the scan; the writer takes the last kernel) */
  const char *collective, *dtype;
  int64_t in_bytes, out_bytes;
  int32_t group_size;
} dldb_kernel_coll;

/* Records c for the kernel written last (dldb_write_kernel). DL_OK when the
 * file has no dl_kernel_collectives table (nothing written). */
int dldb_write_kernel_coll(dldb_writer *w, const dldb_kernel_coll *c, char *err, size_t errlen);

/* Calls fn for every row, by kernel id; strings valid during the call only.
 * A non-zero return of fn stops the scan and is returned. */
int dldb_scan_kernel_colls(dldb_writer *w, int (*fn)(void *ctx, const dldb_kernel_coll *c),
                           void *ctx, char *err, size_t errlen);

/* 1 when the file has the derived tables of ranks. */
int dldb_ranks_has_tables(dldb_writer *w);

typedef struct dldb_dl_rank_row {
  int32_t rank, device_id;
  int64_t iterations;
  int64_t iter_avg_ns, wall_ns, computation_ns, communication_ns, exposed_comm_ns;
  int64_t idle_ns, dataloader_ns, wait_ns;
} dldb_dl_rank_row;

typedef struct dldb_dl_collective_row {
  int64_t kernel_name_id;
  int64_t ranks, instances, time_ns, avg_ns, skew_avg_ns, skew_max_ns;
  int32_t last_rank;
  int64_t last_rank_count;
  int64_t transfer_ns; /* summed over instances: the last starter's time in it */
  int64_t bytes; /* summed over instances (the last starter's message, NCCL-tests' S);
                    < 0: unknown (NULL) */
  const char *collective;   /* "allreduce", "allgather", ... (static); NULL: unknown */
  int64_t group_size;       /* ranks of its communicator; 0: unknown */
  double alg_bw_bps, bus_bw_bps; /* bytes / transfer time, and NCCL-tests' bus bandwidth,
                                    bytes/s; NAN: unknown */
  double link_bw_bps;       /* the GPU's link, one direction, bytes/s; NAN: unknown */
} dldb_dl_collective_row;

/* Rows of the open aggregation (between dldb_aggr_begin and _end). */
int dldb_aggr_dl_ranks(dldb_writer *w, int64_t aggr_id, const dldb_dl_rank_row *r, size_t n,
                       char *err, size_t errlen);
int dldb_aggr_dl_collectives(dldb_writer *w, int64_t aggr_id, const dldb_dl_collective_row *r,
                             size_t n, char *err, size_t errlen);

#endif
