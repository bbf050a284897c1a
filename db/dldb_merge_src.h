/*
 * dldb_merge_src.h - the ranks a merge of per-rank dldbs kept as summaries
 * only (dl_rank_sources, detail 0; dldb_merge_sum.h writes them), as the
 * analysis of the merged file reads them: their rank rows, their
 * collective kernels, and their iterations copied into an open
 * aggregation. Files without the tables have no such ranks. Every function
 * borrows the writer.
 */
#ifndef DLDB_MERGE_SRC_H
#define DLDB_MERGE_SRC_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_ranks.h"
#include "dldb_write.h"

/* Calls fn for the row of every rank without raw records, by device id
 * (wait_ns 0). A non-zero return of fn stops the scan and is returned. */
int dldb_scan_rank_sources(dldb_writer *w, int (*fn)(void *ctx, const dldb_dl_rank_row *r),
                           void *ctx, char *err, size_t errlen);

/* One collective kernel of those ranks (dl_rank_source_events): start on
 * the merged file's clock; bytes, group_size < 0 and collective NULL: not
 * recorded (borrowed for the call). */
typedef struct dldb_src_event {
  int32_t device_id;
  int64_t kernel_name_id, start_ns, dur_ns, bytes;
  int32_t group_size;
  const char *collective;
} dldb_src_event;

int dldb_scan_rank_source_events(dldb_writer *w, int (*fn)(void *ctx, const dldb_src_event *e),
                                 void *ctx, char *err, size_t errlen);

/* Copies those ranks' iterations into aggr_dl_iter_gpu of the open
 * aggregation aggr_id. */
int dldb_aggr_rank_source_iters(dldb_writer *w, int64_t aggr_id, char *err, size_t errlen);

#endif
