/* dldb_nvtxidx.h - the name order and name forms of the NVTX statistics
 * (db/schema.sql aggr_nvtx_name_order, aggr_nvtx_forms,
 * aggr_nvtx_row_forms): written by dldb_nvtxidx.c (or from a caller's order,
 * dldb_nvtxorder.c), read by dldb_nvtxpage.c.
 * Internal to db/. */
#ifndef DLDB_NVTXIDX_H
#define DLDB_NVTXIDX_H

#include <stddef.h>

#include "dldb_write.h"

/* Places (4 bytes each) of a name order chunk, rows (2 bytes each) of a
 * forms chunk. */
#define DLDB_NVTX_CHUNK 65536

/* Writes the name order and forms of the aggregation just committed
 * (w->aggr_id; its NVTX rows in aggr_nvtx_runs) in a transaction of its
 * own, where the file has their tables and the caller did not hand them
 * over (dldb_write_nvtx.h); nothing for an aggregation with a
 * row whose name is not in `strings`, nor when memory runs out (both read
 * the views as before). DL_OK or a negative DL_E* with one line in err
 * (nothing of it written). */
int dldb__nvtx_index(dldb_writer *w, char *err, size_t errlen);

#endif
