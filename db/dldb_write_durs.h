/*
 * dldb_write_durs.h - the open aggregation's kernel launches by GPU
 * duration (db/schema.sql aggr_dl_kernel_dur_chunks) from rows the caller
 * has sorted in memory, so that the writer need not sort the
 * aggregation's rows itself.
 *
 * A caller that does not write them leaves them to dldb_aggr_end, which
 * reads them from aggr_kernels and kernels with one sorted statement.
 * Ownership: nothing is kept beyond the call; the writer is borrowed.
 */
#ifndef DLDB_WRITE_DURS_H
#define DLDB_WRITE_DURS_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

/* 1 when the file has the table: the caller then writes every row of the
 * open aggregation through dldb_aggr_kernel_dur (dldb_aggr_end no longer
 * does); 0 when it has not (nothing to write). */
int dldb_aggr_kernel_durs_begin(dldb_writer *w);

/* One row: the launch of kernel_id at api_start_ns that ran dur_ns on the
 * GPU (gpu_end_ns - gpu_start_ns of its kernels row). Rows come in
 * ascending (dur_ns, api_start_ns, kernel_id) order, one per row of the
 * aggregation's aggr_kernels. DL_OK, or an error with one line in err. */
int dldb_aggr_kernel_dur(dldb_writer *w, int64_t aggr_id, int64_t dur_ns, int64_t api_start_ns,
                         int64_t kernel_id, char *err, size_t errlen);

#endif
