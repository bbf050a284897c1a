/* dldb_nvtxzones.h - zone maps of an aggregation's NVTX statistics rows
 * (db/schema.sql aggr_nvtx_zones): per block of rows in row_idx order,
 * each numeric column's least and greatest value in the view, so that a
 * page sorted by a column reads only the blocks that can hold its rows.
 * Written here from the rows as dldb_stats.c writes them (no read back),
 * read by dldb_nvtxzpage.c. Internal to db/.
 *
 * Ownership: the writer owns its dldb__zones (w->nvtx_zones), created on
 * first use and freed by dldb__zones_free when the writer closes. */
#ifndef DLDB_NVTXZONES_H
#define DLDB_NVTXZONES_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_aggr.h"
#include "dldb_write_internal.h"

typedef struct dldb__zones dldb__zones;

/* Rows a block has unless dldb__zones_block_rows says otherwise. */
enum { DLDB__ZONE_ROWS = 4096 };

/* Blocks of `rows` rows from the next aggregation on (tests use small
 * ones); rows < 1 restores the default. DL_OK or DL_ENOMEM. */
int dldb__zones_block_rows(dldb_writer *w, int rows);

/* Forgets what the open aggregation's rows added (dldb_aggr_begin). */
void dldb__zones_reset(dldb_writer *w);

/* Adds NVTX row x (kind 6 or 7) of the open aggregation. Out of memory,
 * the aggregation gets no zones (the viewer then reads the views). */
void dldb__zones_add(dldb_writer *w, const dldb_stats_row *x);

/* Writes the open aggregation's zones (w->aggr_id), where the file has the
 * table (has_table) and every row was added, then forgets them. DL_OK or
 * DL_EDB. */
int dldb__zones_put(dldb_writer *w, int has_table, char *err, size_t errlen);

void dldb__zones_free(dldb__zones **z);

#endif
