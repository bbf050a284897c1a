/*
 * dldb_merge_sum.h - the summary side of a merge of per-rank dldbs: each
 * rank's figures read from its own dldb (its newest aggregation's
 * aggr_dl_ranks row, its iterations and its collectives) with a
 * connection of its own, several files at once, and written into the
 * merged file's dl_rank_sources tables; the choice of the ranks whose raw
 * records the merge copies (dldb_merge.h) as well.
 *
 * Ownership: dldb_merge_read_all owns the summaries it hands to its
 * callback (valid during the call only); every other function borrows its
 * arguments.
 */
#ifndef DLDB_MERGE_SUM_H
#define DLDB_MERGE_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_ranks.h"
#include "dldb_write.h"

typedef struct dldb_rank_iter {
  int64_t iter_value, duration_ns, kernel_busy_ns, communication_ns, exposed_comm_ns;
} dldb_rank_iter;

/* One collective kernel: start after the source's origin; bytes < 0 and
 * group_size < 0: not recorded; collective NULL: not recorded. */
typedef struct dldb_rank_event {
  char *kernel_name, *collective;
  int64_t start_ns, dur_ns, bytes;
  int32_t group_size;
} dldb_rank_event;

/* One source dldb. has_row 0: it holds no single rank's row (no
 * aggregation, or several GPUs): only its raw records can be merged. */
typedef struct dldb_rank_sum {
  int64_t origin_ns;        /* dl_meta time_origin_ns */
  int has_row;
  dldb_gpu_rank gpu;        /* device_id as merged: rank x 100 + local_device */
  char *gpu_name;           /* NULL: unknown */
  dldb_dl_rank_row row;     /* device_id as gpu's; wait_ns 0 */
  dldb_rank_iter *it;
  size_t nit;
  dldb_rank_event *ev;
  size_t nev;
} dldb_rank_sum;

/* Reads the dldbs paths[0..n) (each rank's row, iterations and collective
 * kernels: dldb_merge_sum.c) with up to nthreads connections at once and
 * calls fn(ctx, i, summary) for i = 0, 1, ... in order on the calling
 * thread. A file that is not a dldb of this project: DL_EFORMAT; fn's
 * non-zero return stops the reading and is returned. */
int dldb_merge_read_all(const char *const *paths, size_t n, int nthreads,
                        int (*fn)(void *ctx, size_t i, const dldb_rank_sum *s), void *ctx,
                        char *err, size_t errlen);

/* Writes s (from source, named by its file name) into w's dl_rank_sources
 * tables, detail 0. A rank already written: DL_EFORMAT. */
int dldb_merge_sum_write(dldb_writer *w, const dldb_rank_sum *s, const char *source, char *err,
                         size_t errlen);

/* After the summaries: the rank of GPU device_id is merged with its raw
 * records (detail 1). */
int dldb_merge_sum_detail(dldb_writer *w, int32_t device_id, char *err, size_t errlen);

/* Sets the merged file's time origin (before any raw record is merged). */
int dldb_merge_set_origin(dldb_writer *w, int64_t origin_ns, char *err, size_t errlen);

/* One rank of the choice: own_ns is its wall time less exposed
 * communication (what the straggler rule compares). */
typedef struct dldb_rank_pick {
  int32_t rank;
  int64_t own_ns;
} dldb_rank_pick;

/* Marks detail[i] = 1 for the slowest, the median and the fastest of
 * v[0..n) by own time (ties: by rank) and for every rank of asked[0..na);
 * detail[] is not cleared first. DL_OK or DL_ENOMEM. */
int dldb_merge_pick_detail(const dldb_rank_pick *v, size_t n, const int32_t *asked, size_t na,
                           unsigned char *detail);

#endif
