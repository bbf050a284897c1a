/* dldb_nvtxzpage.h - a page of the NVTX statistics views sorted by a
 * numeric column, read through the column's zone maps (db/schema.sql
 * aggr_nvtx_zones, written by dldb_nvtxzones.c): the blocks of rows in the
 * order of their bounds, best first, each read whole into a heap of the
 * page's rows, until no block left can hold one of them. Used by
 * dldb_nvtxpage.c. Internal to db/. */
#ifndef DLDB_NVTXZPAGE_H
#define DLDB_NVTXZPAGE_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_nvtxtop.h"
#include "dldb_read.h"

typedef struct dldb__zpage {
  const char *view, *col; /* the view and its column */
  int kind;               /* the kind of the view's rows: 6 or 7 */
  int64_t aggr_id;
  int64_t n;              /* the view's rows of the aggregation: row_idx 0..n-1 */
  const uint64_t *keep;   /* a bit by row_idx: the filter keeps the row; NULL: all */
} dldb__zpage;

/* Fills t (dldb__top_init'ed: k rows, a direction) with the best rows of
 * z and sorts them into page order: 1, 0 when the file has no zones for
 * the column or a row read breaks its block's bounds (read the view the
 * plain way), or a negative DL_E* with one line in err. Borrows z. */
int dldb__nvtx_zpage(dldb *db, const dldb__zpage *z, dldb__top *t, char *err, size_t errlen);

#endif
