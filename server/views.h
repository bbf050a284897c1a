/*
 * views.h - the dldb views the API serves (DLProf's 23 and ours), as one table.
 *
 * Each row says how GET /api/v1/<name> answers: one object or a paged list,
 * whether aggr_id / domain select rows, the default order and the columns
 * that break ties (so pages are stable), and which feature of the page needs
 * the view (for the view_missing message). Static data; no ownership.
 */
#ifndef DLV_VIEWS_H
#define DLV_VIEWS_H

#include "dldb.h"

typedef enum dlv_shape { DLV_OBJECT = 1, DLV_LIST = 2 } dlv_shape;

enum {
  DLV_PER_AGGR = 1,   /* aggr_id selects rows (the view has an aggr_id column) */
  DLV_PER_DOMAIN = 2, /* domain selects rows (the view has a domain_name column) */
  DLV_PER_AGGREGATION_ID = 4, /* aggr_id selects rows of the view's aggregation_id column */
  DLV_TREE = 8,       /* a tree of names: parent / top select a group's children (dldb_query) */
};

typedef struct dlv_view {
  const char *name;       /* endpoint: /api/v1/<name> */
  const char *sql_view;   /* the dldb view, e.g. "view_op_nodes" */
  dlv_shape shape;
  unsigned scope;         /* DLV_PER_* bits */
  const char *sort;       /* default sort column; NULL: the view's own order */
  int desc;               /* default direction of sort */
  const char *tiebreak[DLDB_MAX_TIEBREAK]; /* NULL-terminated */
  const char *feature;    /* "the Group Ops view", for view_missing */
} dlv_view;

#define DLV_VIEW_COUNT 46 /* DLProf's 23 + our 23 extensions (optional: dlv_view_optional) */

/* The table, in docs/api.md order. */
extern const dlv_view dlv_views[DLV_VIEW_COUNT];

/* Columns `filter` searches, where the view has them (docs/api.md). */
extern const char *const dlv_filter_columns[DLDB_MAX_FILTER_COLS];

/* 1 for our own extensions (view_dl_*, view_op_cpu_times), which DLProf's
 * files lack (not "missing"). */
int dlv_view_optional(const dlv_view *v);

/* The row for endpoint name, or NULL. */
const dlv_view *dlv_view_find(const char *name);

#endif
