/*
 * dla_nvtxorder.h - the NVTX statistics rows' name order, sorted in memory
 * (in parts spilled to a temporary file and merged when the texts exceed
 * the budget) and handed to the writer (db/dldb_write_nvtx.h) instead of
 * dldb_aggr_end's pass over `strings` in value order (analysis/ only; see
 * dla_nvtxorder.c).
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

/* Hands over the open aggregation's name order of its NVTX statistics
 * rows: key[k][r] is row r's key (name id * 2 + 1 for start/end) of kind
 * 6 (k = 0) and 7 (k = 1), n[k] rows each, as written; the keys are
 * rewritten in place (to the names' places). budget: DLA_NVTX_ORDER_BUDGET
 * when 0. Over the budget, short of memory or of the temporary file, or
 * with a name that has no text, nothing is handed over (DL_OK). DL_OK or
 * an error with its line in c->err. */
int dla__nvtx_order(dla_ctx *c, uint32_t *const key[2], const int64_t n[2], size_t budget);

#endif
