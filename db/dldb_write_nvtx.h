/*
 * dldb_write_nvtx.h - the open aggregation's NVTX name order and name forms
 * (db/schema.sql aggr_nvtx_name_order, aggr_nvtx_forms,
 * aggr_nvtx_row_forms) from an order the caller computed in memory,
 * instead of the pass over `strings` in value order that dldb_aggr_end
 * makes otherwise (dldb_nvtxidx.c). The tables' contents are the same.
 *
 * The caller reads the texts of the names its NVTX statistics rows have
 * (dldb_aggr_nvtx_texts), sorts them and hands over, for each row, its
 * name's place in that order (dldb_aggr_nvtx_order). A caller that does
 * not (a memory budget, a name without text) leaves the order to
 * dldb_aggr_end.
 * Ownership: nothing is kept beyond the call; the writer is borrowed.
 * Errors: DL_OK or a negative DL_E* with one line in err.
 */
#ifndef DLDB_WRITE_NVTX_H
#define DLDB_WRITE_NVTX_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

/* 1 when the open aggregation's NVTX statistics rows went to
 * aggr_nvtx_runs and the file has the order and forms tables: an order
 * handed over is written; 0: there is nothing to hand over. */
int dldb_aggr_nvtx_order_wanted(dldb_writer *w);

/* The texts of the strings ids[0..n-1] (ascending, distinct): fn(ctx, i,
 * text, len) for each i in turn, text borrowed for the call (len bytes, no
 * NUL needed). fn's nonzero return ends the reads and is returned.
 * DL_ENOTFOUND when an id has no string or a value that is not text (the
 * pass over `strings` then decides). */
int dldb_aggr_nvtx_texts(dldb_writer *w, const uint32_t *ids, size_t n,
                         int (*fn)(void *ctx, size_t i, const char *text, size_t len), void *ctx,
                         char *err, size_t errlen);

/* Writes the open aggregation's name order and forms. text[0..nnames-1]
 * (len[i] bytes each) are the rows' distinct names in SQLite's BINARY
 * order (memcmp, then the shorter first); name[k][r] is the index into
 * them of the name of row r of kind 6 (k = 0) and 7 (k = 1), for every row
 * written of that kind (nrows[k]: dldb_aggr_stats' rows, row_idx 0..n-1).
 * Memory: 4 bytes a row and 7 a name besides the caller's. */
int dldb_aggr_nvtx_order(dldb_writer *w, const char *const *text, const uint32_t *len,
                         size_t nnames, const uint32_t *const name[2], const int64_t nrows[2],
                         char *err, size_t errlen);

#endif
