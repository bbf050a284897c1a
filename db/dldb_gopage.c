/*
 * dldb_gopage.c - pages of view_group_ops through their stored orders
 * (db/schema.sql aggr_dl_group_orders, view_dl_group_op_orders,
 * view_dl_group_op_rows; dldb_read.h).
 *
 * The plain query sorts every row of the aggregation (or of a parent's)
 * for each page, and skips the offset's rows one by one. Our dldbs store
 * the rows of every order a page asks for (a sortable column, a direction,
 * the viewer's tie-break row_full_id), among all the rows and among each
 * parent's, DLDB_GO_CHUNK places a row: a page reads the chunks of its
 * places, then those rows by row_idx in one statement, and a count is the
 * order's n.
 * Only without a filter or column filters, and where the aggregation's
 * order was written (its chunk 0 of all its rows); everything else
 * (NVIDIA's files, older dldbs, a filter) is read the plain way. The rows
 * and their order are the plain query's (tests/server compares them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_chunks.h"
#include "dldb_read.h"

#define GO_VIEW "view_group_ops"
#define GO_ORDERS "view_dl_group_op_orders"
#define GO_ROWS "view_dl_group_op_rows"
#define GO_TIEBREAK "row_full_id"
/* view_group_ops' columns in its order (db/schema.sql), which the rows'
 * view has under the same names: a file with the orders has this schema's
 * view_group_ops. */
#define GO_COLUMNS                                                                                 \
  "aggr_id, domain_name, row_type, row_full_id, row_full_name, row_trimmed_name, level, "          \
  "num_op_instances, num_supported_leaf_ops, num_tc_leaf_ops, cpu_time_sum, gpu_time_sum, "        \
  "cpu_overhead_sum, gpu_idle_sum"

/* 1 when the orders can answer in, of GO_VIEW: the count of a whole
 * aggregation's or a parent's rows (sorted 0), or a page of them (sorted
 * 1) without a filter, sorted by a column and then by GO_TIEBREAK alone. */
static int applies(dldb *db, const dldb_query *in, int sorted) {
  if (strcmp(in->view, GO_VIEW) != 0 || in->aggr_id < 0 || in->n_eq > 0 ||
      !dldb__view_exists(db, GO_ORDERS) || !dldb__view_exists(db, GO_ROWS))
    return 0;
  if (!sorted) return 1; /* a count of all the rows: the filter plays no part */
  if (!in->sort || (in->filter && *in->filter)) return 0;
  int tb = 0;
  while (tb < DLDB_MAX_TIEBREAK && in->tiebreak[tb]) tb++;
  return tb == 0 ? strcmp(in->sort, GO_TIEBREAK) == 0
                 : tb == 1 && strcmp(in->tiebreak[0], GO_TIEBREAK) == 0;
}

/* Binds the order's key at ?1..?5 (aggr_id, column, direction, tree,
 * parent), the chunk at ?6 and the domain at ?7 when in has one. */
static void bind_key(sqlite3_stmt *st, const dldb_query *in, const char *sort, int desc, int tree,
                     int64_t chunk) {
  sqlite3_bind_int64(st, 1, in->aggr_id);
  sqlite3_bind_text(st, 2, sort, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 3, desc);
  sqlite3_bind_int(st, 4, tree);
  sqlite3_bind_text(st, 5, tree ? in->tree_parent : "", -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 6, chunk);
  if (in->domain) sqlite3_bind_text(st, 7, in->domain, -1, SQLITE_STATIC);
}

#define CHUNK_SQL(DOMAIN)                                                                          \
  "SELECT n, row_idxs FROM " GO_ORDERS " WHERE aggr_id = ?1 AND sort_column = ?2 AND "             \
  "sort_desc = ?3 AND tree = ?4 AND tree_parent = ?5 AND chunk = ?6" DOMAIN

/* Reads the row_idx list text of one chunk, "[a,b,...]", into v (at most
 * DLDB_GO_CHUNK): their number, or -1 when the text is no such list. */
static int parse_chunk(const char *t, int64_t *v) {
  int k = 0;
  if (!t || *t++ != '[') return -1;
  if (*t == ']') return t[1] ? -1 : 0;
  for (;;) {
    char *end = NULL;
    if (k == DLDB_GO_CHUNK || !((*t >= '0' && *t <= '9') || *t == '-')) return -1;
    v[k++] = strtoll(t, &end, 10);
    t = end;
    if (*t == ']') return t[1] ? -1 : k;
    if (*t++ != ',') return -1;
  }
}

/* Chunk `chunk` of the order (sort, desc) in in's scope (tree: a parent's
 * rows): *n its order's places and *k its row_idx values in v. 1, or 0
 * when it has none, or a negative DL_E*. */
static int read_chunk(dldb *db, const dldb_query *in, const char *sort, int desc, int tree,
                      int64_t chunk, int64_t *n, int64_t *v, int *k, char *err, size_t errlen) {
  const char *sql = in->domain ? CHUNK_SQL(" AND domain_name = ?7") : CHUNK_SQL("");
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EDB;
  bind_key(st, in, sort, desc, tree, chunk);
  int src = sqlite3_step(st), rc = 0;
  if (src == SQLITE_ROW) {
    *n = sqlite3_column_int64(st, 0);
    *k = parse_chunk((const char *)sqlite3_column_text(st, 1), v);
    rc = *k >= 0 ? 1
                 : dl_err(err, errlen, DL_EFORMAT, "%s: bad row of %s (%s, chunk %lld)", db->path,
                          GO_ORDERS, sort, (long long)chunk);
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
  int64_t n = 0, v[DLDB_GO_CHUNK];
  int k = 0;
  return read_chunk(db, in, sort, desc, 0, 0, &n, v, &k, err, errlen);
}

/* The order a count reads: any written one has every row of its scope. */
#define COUNT_SORT GO_TIEBREAK

int dldb__gops_count(dldb *db, const dldb_query *in, int64_t *total, char *err, size_t errlen) {
  if (!applies(db, in, 0)) return 0;
  int rc = written(db, in, COUNT_SORT, 0, err, errlen);
  if (rc <= 0) return rc;
  int64_t v[DLDB_GO_CHUNK];
  int k = 0;
  *total = 0;
  rc = read_chunk(db, in, COUNT_SORT, 0, in->tree_parent != NULL, 0, total, v, &k, err, errlen);
  return rc < 0 ? rc : 1;
}

/* A growing text of the page's row_idx values, a JSON array. */
typedef struct {
  char *s;
  size_t len, cap;
} go_text;

static int text_add(go_text *t, int64_t v) {
  if (t->len + 24 > t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 4096;
    char *p = realloc(t->s, nc);
    if (!p) return DL_ENOMEM;
    t->s = p;
    t->cap = nc;
  }
  t->len += (size_t)snprintf(t->s + t->len, t->cap - t->len, "%s%lld", t->len ? "," : "[",
                             (long long)v);
  return DL_OK;
}

/* Gives fn the rows of the row_idx values in t (a JSON array), in its
 * order: one statement, each row found by its key. */
static int give_rows(dldb *db, const dldb_query *in, const go_text *t, dldb_row_fn fn, void *ctx,
                     char *err, size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db,
                                    "SELECT " GO_COLUMNS " FROM json_each(?2) j CROSS JOIN " GO_ROWS
                                    " r WHERE r.aggr_id = ?1 AND r.row_idx = j.value ORDER BY j.key",
                                    err, errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, in->aggr_id);
  sqlite3_bind_text(st, 2, t->s, (int)t->len, SQLITE_STATIC);
  dldb_row row = {st, sqlite3_column_count(st)};
  int src, rc = DL_OK;
  while ((src = sqlite3_step(st)) == SQLITE_ROW)
    if (fn(ctx, &row) != 0) break;
  if (src != SQLITE_ROW && src != SQLITE_DONE) rc = dldb__sql_err(db, src, in->view, err, errlen);
  dldb__stmt_done(st);
  return rc;
}

int dldb__gops_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                    size_t errlen) {
  if (!applies(db, in, 1)) return 0;
  int desc = in->desc != 0, tree = in->tree_parent != NULL;
  int rc = written(db, in, in->sort, desc, err, errlen);
  if (rc <= 0) return rc;
  int64_t at = in->offset > 0 ? in->offset : 0, left = in->limit >= 0 ? in->limit : INT64_MAX;
  int64_t n = 0, v[DLDB_GO_CHUNK];
  go_text t = {0};
  for (int64_t chunk = at / DLDB_GO_CHUNK; left > 0 && rc == 1; chunk++) {
    int k = 0;
    rc = read_chunk(db, in, in->sort, desc, tree, chunk, &n, v, &k, err, errlen);
    for (int i = (int)(at - chunk * DLDB_GO_CHUNK); rc == 1 && i < k && left > 0; i++, at++, left--)
      if (text_add(&t, v[i]) != DL_OK)
        rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  }
  if (rc >= 0 && t.len) { /* rc 0: past the order's last chunk */
    t.s[t.len++] = ']';
    rc = give_rows(db, in, &t, fn, ctx, err, errlen);
  }
  free(t.s);
  return rc < 0 ? rc : 1;
}
