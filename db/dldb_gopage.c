/*
 * dldb_gopage.c - pages of view_group_ops through their stored places
 * (db/schema.sql aggr_dl_group_places, view_dl_group_op_places;
 * dldb_read.h).
 *
 * The plain query sorts every row of the aggregation (or of a parent's)
 * for each page, and skips the offset's rows one by one. Our dldbs store
 * each row's place in every order a page asks for (a sortable column, a
 * direction, the viewer's tie-break row_full_id), among all the rows and
 * among each parent's: a page is then the rows from its offset's place on,
 * one range of the primary key, and a count is the last place + 1. Only
 * without a filter or column filters, and where the aggregation's order
 * was written (place 0 of all its rows there); everything else (NVIDIA's
 * files, older dldbs, a filter) is read the plain way. The rows and their
 * order are the plain query's (tests/server compares them).
 */
#include <string.h>

#include "dldb_read.h"

#define GO_VIEW "view_group_ops"
#define GO_PLACES "view_dl_group_op_places"
#define GO_TIEBREAK "row_full_id"
/* view_group_ops' columns in its order (db/schema.sql), which the places'
 * view has under the same names: a file with the places has this schema's
 * view_group_ops. */
#define GO_COLUMNS                                                                                 \
  "aggr_id, domain_name, row_type, row_full_id, row_full_name, row_trimmed_name, level, "          \
  "num_op_instances, num_supported_leaf_ops, num_tc_leaf_ops, cpu_time_sum, gpu_time_sum, "        \
  "cpu_overhead_sum, gpu_idle_sum"

/* 1 when the places can answer in, of GO_VIEW: the count of a whole
 * aggregation's or a parent's rows (sorted 0), or a page of them (sorted
 * 1) without a filter, sorted by a column and then by GO_TIEBREAK alone. */
static int applies(dldb *db, const dldb_query *in, int sorted) {
  if (strcmp(in->view, GO_VIEW) != 0 || in->aggr_id < 0 || in->n_eq > 0 ||
      !dldb__view_exists(db, GO_PLACES))
    return 0;
  if (!sorted) return 1; /* a count of all the rows: the filter plays no part */
  if (!in->sort || (in->filter && *in->filter)) return 0;
  int tb = 0;
  while (tb < DLDB_MAX_TIEBREAK && in->tiebreak[tb]) tb++;
  return tb == 0 ? strcmp(in->sort, GO_TIEBREAK) == 0
                 : tb == 1 && strcmp(in->tiebreak[0], GO_TIEBREAK) == 0;
}

/* Binds the order's key at ?1..?5 (aggr_id, column, direction, tree,
 * parent) and the domain at ?6 when in has one. */
static void bind_key(sqlite3_stmt *st, const dldb_query *in, const char *sort, int desc, int tree) {
  sqlite3_bind_int64(st, 1, in->aggr_id);
  sqlite3_bind_text(st, 2, sort, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 3, desc);
  sqlite3_bind_int(st, 4, tree);
  sqlite3_bind_text(st, 5, tree ? in->tree_parent : "", -1, SQLITE_STATIC);
  if (in->domain) sqlite3_bind_text(st, 6, in->domain, -1, SQLITE_STATIC);
}

#define KEY_COND                                                                                   \
  "aggr_id = ?1 AND sort_column = ?2 AND sort_desc = ?3 AND tree = ?4 AND tree_parent = ?5"
/* A page: the order's rows from place ?7 on, ?8 of them. */
#define ROWS_SQL(DOMAIN)                                                                           \
  "SELECT " GO_COLUMNS " FROM " GO_PLACES " WHERE " KEY_COND DOMAIN                                \
  " AND place >= ?7 ORDER BY place LIMIT ?8"

/* The last place + 1 of the order (sort, desc) in in's scope (tree: a
 * parent's rows) into *n: 1, or 0 when it has none, or a negative DL_E*. */
static int places(dldb *db, const dldb_query *in, const char *sort, int desc, int tree, int64_t *n,
                  char *err, size_t errlen) {
  const char *sql = in->domain ? "SELECT place + 1 FROM " GO_PLACES " WHERE " KEY_COND
                                 " AND domain_name = ?6 ORDER BY place DESC LIMIT 1"
                               : "SELECT place + 1 FROM " GO_PLACES " WHERE " KEY_COND
                                 " ORDER BY place DESC LIMIT 1";
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EDB;
  bind_key(st, in, sort, desc, tree);
  int src = sqlite3_step(st), rc = 0;
  if (src == SQLITE_ROW) {
    *n = sqlite3_column_int64(st, 0);
    rc = 1;
  } else if (src != SQLITE_DONE) {
    rc = dldb__sql_err(db, src, in->view, err, errlen);
  }
  dldb__stmt_done(st);
  return rc;
}

/* 1 when the aggregation's order (sort, desc) was written, 0 when not, or
 * a negative DL_E*. */
static int written(dldb *db, const dldb_query *in, const char *sort, int desc, char *err,
                   size_t errlen) {
  int64_t n = 0;
  return places(db, in, sort, desc, 0, &n, err, errlen);
}

/* The order a count reads: any written one has every row of its scope. */
#define COUNT_SORT GO_TIEBREAK

int dldb__gops_count(dldb *db, const dldb_query *in, int64_t *total, char *err, size_t errlen) {
  if (!applies(db, in, 0)) return 0;
  int rc = written(db, in, COUNT_SORT, 0, err, errlen);
  if (rc <= 0) return rc;
  *total = 0;
  rc = places(db, in, COUNT_SORT, 0, in->tree_parent != NULL, total, err, errlen);
  return rc < 0 ? rc : 1;
}

int dldb__gops_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                    size_t errlen) {
  if (!applies(db, in, 1)) return 0;
  int rc = written(db, in, in->sort, in->desc != 0, err, errlen);
  if (rc <= 0) return rc;
  const char *sql = in->domain ? ROWS_SQL(" AND domain_name = ?6") : ROWS_SQL("");
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EDB;
  bind_key(st, in, in->sort, in->desc != 0, in->tree_parent != NULL);
  sqlite3_bind_int64(st, 7, in->offset > 0 ? in->offset : 0);
  sqlite3_bind_int64(st, 8, in->limit >= 0 ? in->limit : -1);
  dldb_row row = {st, sqlite3_column_count(st)};
  int src;
  while ((src = sqlite3_step(st)) == SQLITE_ROW)
    if (fn(ctx, &row) != 0) break;
  rc = 1;
  if (src != SQLITE_ROW && src != SQLITE_DONE) rc = dldb__sql_err(db, src, in->view, err, errlen);
  dldb__stmt_done(st);
  return rc;
}
