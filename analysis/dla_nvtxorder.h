/*
 * dla_nvtxorder.h - the NVTX statistics rows' name order, sorted in memory
 * (in parts spilled to a temporary file and merged when the texts exceed
 * the budget) and handed to the writer (db/dldb_write_nvtx.h) instead of
 * dldb_aggr_end's pass over `strings` in value order (analysis/ only; see
 * dla_nvtxorder.c).
 * Ownership: an order started is the caller's until dla__nvtx_order_finish,
 * which the caller calls once.
 */
#ifndef DLA_NVTXORDER_H
#define DLA_NVTXORDER_H

#include <stddef.h>
#include <stdint.h>

#include "dla_ctx.h"

/* Bytes the order may take in memory: 8 bytes a name, and a part of the
 * texts (the texts plus 32 bytes a name) that is sorted at a time; when
 * the texts exceed a part, each part is spilled and the parts merged.
 * Where 8 bytes a name (and a few KiB) exceed it, dldb_aggr_end sorts
 * them through SQLite. */
#define DLA_NVTX_ORDER_BUDGET ((size_t)256 << 20)

typedef struct dla_nvtx_order dla_nvtx_order;

/* Starts handing over the open aggregation's name order of its NVTX
 * statistics rows: key[k][r] is row r's key (name id * 2 + 1 for
 * start/end) of kind 6 (k = 0) and 7 (k = 1), n[k] rows each, as
 * written. The names' texts are read through c's writer here; they are
 * sorted, their forms found and the keys rewritten to the names' places on
 * a second thread, which touches no database: c's writer may write other
 * rows until dla__nvtx_order_finish. budget: DLA_NVTX_ORDER_BUDGET when
 * 0. *out: the order under way, which owns key[0] and key[1] (set to NULL
 * here); NULL where nothing is handed over (over the budget, short of
 * memory or of the temporary file, a name that has no text:
 * dldb_aggr_end sorts the names, DL_OK). DL_OK or an error with its line
 * in c->err. */
int dla__nvtx_order_start(dla_ctx *c, uint32_t *key[2], const int64_t n[2], size_t budget,
                          dla_nvtx_order **out);

/* Waits for the order *o and, when write is set, writes it through c's
 * writer (nothing is written otherwise: an aggregation that failed);
 * frees *o. DL_OK (also where the order was given up: dldb_aggr_end sorts
 * the names) or an error with its line in c->err. */
int dla__nvtx_order_finish(dla_ctx *c, dla_nvtx_order **o, int write);

#endif
