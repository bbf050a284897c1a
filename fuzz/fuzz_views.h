/*
 * fuzz_views.h - the viewer's queries over an open dldb, shared by
 * fuzz_dldb (a file) and fuzz_dldbread (in memory): for every view the
 * catalog holds, a count and a page (a name filter, a sort, an
 * exact-match filter on a column picked by the input's size, an offset),
 * every cell read back as text, integer, real and type.
 */
#ifndef DL_FUZZ_VIEWS_H
#define DL_FUZZ_VIEWS_H

#include <stdint.h>
#include <string.h>

#include "catalog.h"
#include "dldb.h"
#include "fuzz_common.h"
#include "views.h"

static int fuzz__on_row(void *ctx, const dldb_row *row) {
  size_t *sum = ctx;
  for (int i = 0; i < dldb_row_count(row); i++) {
    *sum += strlen(dldb_row_name(row, i)) + strlen(dldb_row_text(row, i));
    (void)dldb_row_int(row, i);
    (void)dldb_row_real(row, i);
    (void)dldb_row_type(row, i);
  }
  return 0;
}

static inline void fuzz_query_views(dldb *db, dlv_catalog *cat, const dldb_info *pinfo,
                                    size_t size) {
  char err[1024];
  const dldb_info info = *pinfo;
  size_t sum = 0;
  for (int i = 0; i < DLV_VIEW_COUNT; i++) {
    const dlv_view *v = &dlv_views[i];
    const dlv_viewcat *vc = dlv_catalog_view(cat, v);
    if (!vc->present) continue;
    dldb_query q = {.view = v->sql_view,
                    .aggr_id = (v->scope & DLV_PER_AGGR) ? info.default_aggr_id : -1,
                    .domain = (v->scope & DLV_PER_DOMAIN) ? info.default_domain : NULL,
                    .sort = v->sort, .desc = v->desc, .limit = 5};
    for (int k = 0; k < DLDB_MAX_TIEBREAK && v->tiebreak[k]; k++) q.tiebreak[k] = v->tiebreak[k];
    for (int k = 0; k < DLDB_MAX_FILTER_COLS && dlv_filter_columns[k]; k++)
      q.filter_cols[k] = dlv_filter_columns[k];
    if (v->shape == DLV_LIST) {
      int64_t total = 0, filtered = 0;
      q.filter = (size & 1) ? "a%_" : "conv";
      if (dldb_query_count(db, &q, &total, &filtered, err, sizeof err) != DL_OK) fuzz_one_line(err);
      if (vc->n > 0) { /* sort by, and match on, a column picked by the input */
        int c = (int)(size % (size_t)vc->n);
        q.sort = vc->names[c];
        q.n_eq = 1;
        q.eq[0].column = vc->names[c];
        q.eq[0].value = vc->types[c] == DLDB_COL_TEXT ? "x" : "1";
        if (dldb_query_rows(db, &q, fuzz__on_row, &sum, err, sizeof err) != DL_OK) fuzz_one_line(err);
        q.n_eq = 0;
        q.sort = v->sort;
      }
      q.filter = NULL;
      q.offset = 2;
    }
    if (dldb_query_rows(db, &q, fuzz__on_row, &sum, err, sizeof err) != DL_OK) fuzz_one_line(err);
  }
  (void)sum;
}

#endif
