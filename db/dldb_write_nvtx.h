/*
 * dldb_write_nvtx.h - the open aggregation's NVTX name order and name forms
 * (db/schema.sql aggr_nvtx_name_order, aggr_nvtx_forms,
 * aggr_nvtx_row_forms) from an order the caller computed in memory,
 * instead of the pass over `strings` in value order that dldb_aggr_end
 * makes otherwise (dldb_nvtxidx.c). The tables' contents are the same.
 *
 * The caller reads the texts of the names its NVTX statistics rows have
 * (dldb_aggr_nvtx_texts), sorts them, hands the distinct names over in
 * order (dldb_aggr_nvtx_names_add) and then, for each row, its name's
 * place in that order (dldb_aggr_nvtx_names_write). A caller that does
 * not (a memory budget, a name without text) leaves the order to
 * dldb_aggr_end.
 * Ownership: a dldb_nvtx_names is the caller's (free it with
 * dldb_aggr_nvtx_names_free); it borrows the writer; texts are borrowed
 * for the call.
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

/* The open aggregation's names in order, handed over one at a time, then
 * its rows' names: the forms are found as the names come, the tables are
 * written by dldb_aggr_nvtx_names_write (nothing before it). The hand-over
 * reads and writes no database, so dldb_aggr_nvtx_names_add may run on
 * another thread while the writer writes other rows; open and write run
 * on the writer's thread. */
typedef struct dldb_nvtx_names dldb_nvtx_names;

/* A new hand-over of at most nnames names; free with
 * dldb_aggr_nvtx_names_free. DL_EINVAL when there is nothing to hand
 * over (dldb_aggr_nvtx_order_wanted), DL_ENOMEM. */
int dldb_aggr_nvtx_names_open(dldb_writer *w, size_t nnames, dldb_nvtx_names **out, char *err,
                              size_t errlen);

/* Name g (< nnames; g ascending over the calls) is text (len bytes,
 * borrowed for the call): the names are the rows' distinct names in
 * SQLite's BINARY order (memcmp, then the shorter first), and every name
 * handed over is some row's (a place not handed over is a name no row
 * has). DL_OK or DL_ENOMEM (nothing written). */
int dldb_aggr_nvtx_names_add(dldb_nvtx_names *o, size_t g, const char *text, size_t len,
                             char *err, size_t errlen);

/* Writes the order and forms: name[k][r] is the place (g) of the name of
 * row r of kind 6 (k = 0) and 7 (k = 1), for every row written of that
 * kind (nrows[k]: dldb_aggr_stats' rows, row_idx 0..n-1). Memory: 4 bytes
 * a row and a name besides the caller's and what the hand-over holds: 2
 * bytes a name and the names' digit runs, packed (a few bytes a name). */
int dldb_aggr_nvtx_names_write(dldb_nvtx_names *o, const uint32_t *const name[2],
                               const int64_t nrows[2], char *err, size_t errlen);

void dldb_aggr_nvtx_names_free(dldb_nvtx_names **o);

#endif
