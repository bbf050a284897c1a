/*
 * dldb_iterops.c - pages of view_iteration_ops over a whole aggregation
 * (dldb_read.h).
 *
 * The view has a row per (iteration, op) of the aggregation; the plain
 * query sorts them all for each page. Our dldbs have, beside it, the ops'
 * row counts (DLDB__ITEROPS_CALLS) and the rows' sort keys
 * (DLDB__ITEROPS_KEYS) in an index per sorted column of the row
 * (db/schema.sql's partial aggr_iter_ops_by_*), so that:
 *   - a page past every matching row is empty without a read;
 *   - sorted by a column of the op (name, type, id...), the page's rows are
 *     those of a few values of that column: the values in order with their
 *     rows (a sum per op), the ones before the page skipped by their sums,
 *     and each value's rows read in iteration order (its own query);
 *   - sorted by a column of the (iteration, op) row, either direction, no
 *     filter: the value at its offset and the place there found from the
 *     marks of that column's order (DLDB__ITEROPS_MARKS: a walk of its
 *     index from the mark before the place, keys only, no join), or where
 *     there are none by a walk of the index from the first row; then its
 *     rows value by value (by_row_value).
 * Every other query (an iteration's ops, a filter with a row column's
 * order, NVIDIA's files, an aggregation without counts) is read the plain
 * way. The rows and their order are the plain query's
 * (tests/server/iterops.test.mjs).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_read.h"

#define ITEROPS_VIEW "view_iteration_ops"

/* The row columns the keys view has in an index (iter_value: the primary key). */
static const char *const key_cols[] = {"iter_value",     "total_count", "tc_count",
                                       "total_gpu_time", "tc_gpu_time"};

static int is_key_col(const char *c) {
  for (size_t i = 0; i < sizeof key_cols / sizeof *key_cols; i++)
    if (strcmp(key_cols[i], c) == 0) return 1;
  return 0;
}

/* 1 when view has column c. */
static int has_col(dldb *db, const char *view, const char *c) {
  const char *const *names = NULL;
  int n = dldb_view_columns(db, view, &names, NULL);
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], c) == 0) return 1;
  return 0;
}

/* Passes rows on to the caller's fn, counting them. */
typedef struct relay {
  dldb_row_fn fn;
  void *ctx;
  int64_t rows;
  int stopped; /* fn asked to stop */
} relay;

static int relay_fn(void *ctx, const dldb_row *row) {
  relay *r = ctx;
  r->rows++;
  if (r->fn(r->ctx, row) != 0) {
    r->stopped = 1;
    return 1;
  }
  return 0;
}

/* ---- By a column of the op ------------------------------------------------ */

typedef struct value_rows {
  char *value; /* owned */
  int64_t rows;
} value_rows;

/* The filter's terms on DLDB__ITEROPS_CALLS (bound at ?3) into sql: 0, or
 * -1 when a filter column of the view is not there (read the plain way). */
static int filter_sql(dldb *db, const dldb_query *in, char *sql, size_t cap, size_t *len) {
  int terms = 0;
  for (int i = 0; i < DLDB_MAX_FILTER_COLS && in->filter_cols[i]; i++) {
    const char *c = in->filter_cols[i];
    if (!has_col(db, ITEROPS_VIEW, c)) continue;
    if (!has_col(db, DLDB__ITEROPS_CALLS, c) || strchr(c, '"')) return -1;
    *len += (size_t)snprintf(sql + *len, *len < cap ? cap - *len : 0,
                             "%sinstr(lower(\"%s\"), ?3) > 0", terms++ ? " OR " : " AND (", c);
  }
  *len += (size_t)snprintf(sql + *len, *len < cap ? cap - *len : 0, terms ? ")" : " AND 0");
  return 0;
}

/* The values of column c among the ops of in's rows, in in's order, each
 * with its rows, into a new array *out (*n entries; free with
 * values_free). 1 when read, 0 when the query cannot be made so, or a
 * negative DL_E*. */
static int op_values(dldb *db, const dldb_query *in, const char *c, value_rows **out, int *n,
                     char *err, size_t errlen) {
  char sql[2048];
  size_t len = (size_t)snprintf(sql, sizeof sql,
                                "SELECT \"%s\", sum(calls) FROM " DLDB__ITEROPS_CALLS
                                " WHERE aggr_id = ?1%s",
                                c, in->domain ? " AND domain_name = ?2" : "");
  char *lc = NULL;
  if (in->filter && *in->filter) {
    if (filter_sql(db, in, sql, sizeof sql, &len)) return 0;
    if (!(lc = strdup(in->filter))) return dl_err(err, errlen, DL_ENOMEM, "out of memory");
    for (char *p = lc; *p; p++) *p = (char)tolower((unsigned char)*p);
  }
  len += (size_t)snprintf(sql + len, len < sizeof sql ? sizeof sql - len : 0,
                          " GROUP BY 1 ORDER BY 1%s", in->desc ? " DESC" : "");
  if (len >= sizeof sql) {
    free(lc);
    return 0;
  }
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) {
    free(lc);
    return DL_EDB;
  }
  sqlite3_bind_int64(st, 1, in->aggr_id);
  if (in->domain) sqlite3_bind_text(st, 2, in->domain, -1, SQLITE_STATIC);
  if (lc) sqlite3_bind_text(st, 3, lc, -1, SQLITE_STATIC);
  int rc = 1, src;
  *out = NULL;
  *n = 0;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    value_rows *g = realloc(*out, (size_t)(*n + 1) * sizeof *g);
    const char *v = (const char *)sqlite3_column_text(st, 0);
    char *copy = g ? strdup(v ? v : "") : NULL;
    if (g) *out = g;
    if (!copy) {
      rc = dl_err(err, errlen, DL_ENOMEM, "out of memory");
      break;
    }
    (*out)[(*n)++] = (value_rows){copy, sqlite3_column_int64(st, 1)};
  }
  if (rc == 1 && src != SQLITE_DONE) rc = dldb__sql_err(db, src, DLDB__ITEROPS_CALLS, err, errlen);
  dldb__stmt_done(st);
  free(lc);
  return rc;
}

static void values_free(value_rows *g, int n) {
  for (int i = 0; i < n; i++) free(g[i].value);
  free(g);
}

/* A page sorted by op column c: the values before the page skipped by
 * their rows, each value the page covers read on its own (its rows in
 * iteration order, then by op_node_id). 1, 0 or a negative DL_E*. */
static int by_op_value(dldb *db, const dldb_query *in, const char *c, dldb_row_fn fn, void *ctx,
                       char *err, size_t errlen) {
  value_rows *g = NULL;
  int n = 0;
  int rc = op_values(db, in, c, &g, &n, err, errlen);
  if (rc <= 0) return rc;
  int64_t skip = in->offset, left = in->limit;
  relay r = {fn, ctx, 0, 0};
  for (int i = 0; i < n && left > 0 && !r.stopped; i++) {
    if (skip >= g[i].rows) {
      skip -= g[i].rows;
      continue;
    }
    dldb_query one = *in; /* the rows of one value: a column filter, so read plainly */
    one.n_eq = 1;
    one.eq[0].column = c;
    one.eq[0].value = g[i].value;
    one.sort = "iter_value";
    one.desc = 0;
    memset(one.tiebreak, 0, sizeof one.tiebreak);
    one.tiebreak[0] = "op_node_id";
    one.offset = skip;
    one.limit = left;
    r.rows = 0;
    if ((rc = dldb_query_rows(db, &one, relay_fn, &r, err, errlen)) != DL_OK) break;
    left -= r.rows;
    skip = 0;
  }
  values_free(g, n);
  return rc ? rc : 1;
}

/* ---- By a column of the row ----------------------------------------------- */

/* The first nout int64 columns of sql's first row (?1 aggregation, ?2
 * domain, then vals) into out: 1, 0 without a row, or a negative DL_E*. */
static int row_values(dldb *db, const dldb_query *in, const char *sql, const int64_t *vals,
                      int nv, int64_t *out, int nout, char *err, size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, in->aggr_id);
  if (in->domain) sqlite3_bind_text(st, 2, in->domain, -1, SQLITE_STATIC);
  for (int i = 0; i < nv; i++) sqlite3_bind_int64(st, 3 + i, vals[i]);
  int src = sqlite3_step(st), rc = 0;
  if (src == SQLITE_ROW) {
    for (int i = 0; i < nout; i++) out[i] = sqlite3_column_int64(st, i);
    rc = 1;
  } else if (src != SQLITE_DONE) {
    rc = dldb__sql_err(db, src, DLDB__ITEROPS_KEYS, err, errlen);
  }
  dldb__stmt_done(st);
  return rc;
}

/* One int64 of sql (as row_values) into *out. */
static int one_value(dldb *db, const dldb_query *in, const char *sql, const int64_t *vals, int nv,
                     int64_t *out, char *err, size_t errlen) {
  return row_values(db, in, sql, vals, nv, out, 1, err, errlen);
}

/* Gives fn the rows of sql (?1 aggregation, ?2 domain, then vals). */
static int read_rows(dldb *db, const dldb_query *in, const char *sql, const int64_t *vals, int nv,
                     relay *r, char *err, size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, in->aggr_id);
  if (in->domain) sqlite3_bind_text(st, 2, in->domain, -1, SQLITE_STATIC);
  for (int i = 0; i < nv; i++) sqlite3_bind_int64(st, 3 + i, vals[i]);
  dldb_row row = {st, sqlite3_column_count(st)};
  int src, rc = DL_OK;
  while ((src = sqlite3_step(st)) == SQLITE_ROW)
    if (relay_fn(r, &row) != 0) break;
  if (src != SQLITE_ROW && src != SQLITE_DONE) rc = dldb__sql_err(db, src, ITEROPS_VIEW, err, errlen);
  dldb__stmt_done(st);
  return rc;
}

/* The SQL of a page by row column c (see by_row_value). */
typedef struct walk_sql {
  char first[512];  /* the value at place ?3 */
  char from[512];   /* the value at place ?4 from value ?3's first row on */
  char before[512]; /* the rows before value ?3 */
  char iter[512];   /* the iteration at place ?4 among value ?3's rows */
  char at[512];     /* value ?3's rows before iteration ?4 */
  char rows[512];   /* value ?3's rows from iteration ?4 on: ?5 limit, ?6 offset */
  char mid[512];    /* the rows past value ?3, before value ?4: ?5 limit */
  char tail[512];   /* the rows past value ?3: ?4 limit */
} walk_sql;

/* The keys view's rows of aggregation ?1 in an index of a row column, and
 * the domain's condition (%s). */
#define WHERE " WHERE aggr_id = ?1 AND " DLDB__ITEROPS_INDEX_COND "%s"

static void walk_sql_make(walk_sql *w, const dldb_query *in, const char *c) {
  const char *dom = in->domain ? " AND domain_name = ?2" : "";
  const char *dir = in->desc ? " DESC" : "", *past = in->desc ? "<" : ">";
  const char *ahead = in->desc ? ">" : "<";
  snprintf(w->first, sizeof w->first,
           "SELECT \"%s\" FROM " DLDB__ITEROPS_KEYS WHERE " ORDER BY \"%s\"%s LIMIT 1 OFFSET ?3", c,
           dom, c, dir);
  snprintf(w->from, sizeof w->from,
           "SELECT \"%s\" FROM " DLDB__ITEROPS_KEYS WHERE " AND \"%s\" %s= ?3 ORDER BY \"%s\"%s "
           "LIMIT 1 OFFSET ?4",
           c, dom, c, past, c, dir);
  snprintf(w->before, sizeof w->before,
           "SELECT count(*) FROM " DLDB__ITEROPS_KEYS WHERE " AND \"%s\" %s ?3", dom, c, ahead);
  snprintf(w->iter, sizeof w->iter,
           "SELECT iter_value FROM " DLDB__ITEROPS_KEYS WHERE
           " AND \"%s\" = ?3 ORDER BY iter_value LIMIT 1 OFFSET ?4",
           dom, c);
  snprintf(w->at, sizeof w->at,
           "SELECT count(*) FROM " DLDB__ITEROPS_KEYS WHERE " AND \"%s\" = ?3 AND iter_value < ?4",
           dom, c);
  snprintf(w->rows, sizeof w->rows,
           "SELECT * FROM " ITEROPS_VIEW WHERE " AND likelihood(\"%s\" = ?3, 0.001) AND iter_value "
           ">= ?4 ORDER BY iter_value, op_node_id LIMIT ?5 OFFSET ?6",
           dom, c);
  snprintf(w->mid, sizeof w->mid,
           "SELECT * FROM " ITEROPS_VIEW WHERE " AND \"%s\" %s ?3 AND \"%s\" %s ?4 ORDER BY "
           "\"%s\"%s, iter_value, op_node_id LIMIT ?5",
           dom, c, past, c, ahead, c, dir);
  snprintf(w->tail, sizeof w->tail,
           "SELECT * FROM " ITEROPS_VIEW WHERE
           " AND \"%s\" %s ?3 ORDER BY \"%s\"%s, iter_value, op_node_id LIMIT ?4",
           dom, c, past, c, dir);
}

/* Where a page sorted by a row column starts: the value v at its offset,
 * the rows before v in the page's order (before), the offset's place k
 * among v's rows, and there the iteration i and v's rows before it (at). */
typedef struct page_at {
  int64_t v, before, k, i, at;
} page_at;

/* page_at by walks of c's index from the first row: 1, 0 past the rows,
 * or a negative DL_E*. */
static int start_by_walk(dldb *db, const dldb_query *in, const walk_sql *w, page_at *p, char *err,
                         size_t errlen) {
  *p = (page_at){.i = INT64_MIN};
  int rc = one_value(db, in, w->first, &in->offset, 1, &p->v, err, errlen);
  if (rc <= 0) return rc;
  if (in->offset > 0 && (rc = one_value(db, in, w->before, &p->v, 1, &p->before, err, errlen)) < 0)
    return rc;
  p->k = in->offset - p->before;
  if (p->k > 0) {
    int64_t vk[2] = {p->v, p->k}, vi[2] = {p->v, 0};
    if ((rc = one_value(db, in, w->iter, vk, 2, &p->i, err, errlen)) <= 0) return rc;
    vi[1] = p->i;
    if ((rc = one_value(db, in, w->at, vi, 2, &p->at, err, errlen)) < 0) return rc;
  }
  return 1;
}

/* The SQL of places found from the marks of column c's ascending order
 * (db/schema.sql aggr_dl_iter_op_marks: rows in (c, iter_value, op_idx)
 * order). A (value, iteration) pair's rows are consecutive there. */
typedef struct mark_sql {
  char at[384];    /* the mark at or before place ?3: the first place of its
                      value and iteration, the value, the iteration */
  char below[384]; /* the same of the last mark below (value ?3, iteration ?4) */
  char key[512];   /* the value and iteration ?5 places from (?3, ?4)'s first row */
  char count[512]; /* the rows from (?3, ?4)'s first on, below (?5, ?6) */
} mark_sql;

static void mark_sql_make(mark_sql *m, const dldb_query *in, const char *c) {
  const char *dom = in->domain ? " AND domain_name = ?2" : "";
  char order[96]; /* the index's order (iter_value's: the primary key) */
  if (strcmp(c, "iter_value") == 0) snprintf(order, sizeof order, "iter_value");
  else snprintf(order, sizeof order, "\"%s\", iter_value", c);
  snprintf(m->at, sizeof m->at,
           "SELECT place - dup, value, iter_value FROM " DLDB__ITEROPS_MARKS
           " WHERE aggr_id = ?1 AND sort_column = '%s' AND place <= ?3 ORDER BY place DESC "
           "LIMIT 1",
           c);
  snprintf(m->below, sizeof m->below,
           "SELECT place - dup, value, iter_value FROM " DLDB__ITEROPS_MARKS
           " WHERE aggr_id = ?1 AND sort_column = '%s' AND (value, iter_value) < (?3, ?4) "
           "ORDER BY value DESC, iter_value DESC, place DESC LIMIT 1",
           c);
  snprintf(m->key, sizeof m->key,
           "SELECT \"%s\", iter_value FROM " DLDB__ITEROPS_KEYS WHERE
           " AND (\"%s\", iter_value) >= (?3, ?4) ORDER BY %s LIMIT 1 OFFSET ?5",
           c, dom, c, order);
  snprintf(m->count, sizeof m->count,
           "SELECT count(*) FROM " DLDB__ITEROPS_KEYS WHERE
           " AND (\"%s\", iter_value) >= (?3, ?4) AND (\"%s\", iter_value) < (?5, ?6)",
           dom, c, c);
#undef WHERE
}

/* The value and iteration at place p of the ascending order: the mark at
 * or before it, then a walk from its value and iteration's first row. 1, 0
 * past the rows, or a negative DL_E*. */
static int mark_key(dldb *db, const dldb_query *in, const mark_sql *m, int64_t p, int64_t *v,
                    int64_t *i, char *err, size_t errlen) {
  int64_t mk[3] = {0}, out[2] = {0};
  int rc = row_values(db, in, m->at, &p, 1, mk, 3, err, errlen);
  if (rc <= 0) return rc;
  int64_t walk[3] = {mk[1], mk[2], p - mk[0]};
  if ((rc = row_values(db, in, m->key, walk, 3, out, 2, err, errlen)) <= 0) return rc;
  *v = out[0];
  *i = out[1];
  return 1;
}

/* The rows below (value v, iteration i) in the ascending order into *n: the
 * last mark below it, then the rows from its value and iteration's first
 * on (none below the first row, a mark). 1 or a negative DL_E*. */
static int mark_below(dldb *db, const dldb_query *in, const mark_sql *m, int64_t v, int64_t i,
                      int64_t *n, char *err, size_t errlen) {
  int64_t vi[2] = {v, i}, mk[3] = {0}, more = 0;
  int rc = row_values(db, in, m->below, vi, 2, mk, 3, err, errlen);
  *n = 0;
  if (rc <= 0) return rc < 0 ? rc : 1;
  int64_t span[4] = {mk[1], mk[2], v, i};
  if ((rc = one_value(db, in, m->count, span, 4, &more, err, errlen)) < 0) return rc;
  *n = mk[0] + more;
  return 1;
}

/* page_at from the marks, of n rows: the place of the offset in the
 * ascending order (descending: its mirror, whose value is the same), the
 * rows below v, and those up to v (the rows before it, descending). */
static int start_by_marks(dldb *db, const dldb_query *in, const mark_sql *m, int64_t n,
                          page_at *p, char *err, size_t errlen) {
  int64_t o = in->offset, first = 0, upto = n, i = 0;
  *p = (page_at){.i = INT64_MIN};
  int rc = mark_key(db, in, m, in->desc ? n - 1 - o : o, &p->v, &i, err, errlen);
  if (rc <= 0) return rc;
  if ((rc = mark_below(db, in, m, p->v, INT64_MIN, &first, err, errlen)) < 0) return rc;
  if (in->desc && p->v < INT64_MAX &&
      (rc = mark_below(db, in, m, p->v + 1, INT64_MIN, &upto, err, errlen)) < 0)
    return rc;
  p->before = in->desc ? n - upto : first;
  p->k = o - p->before;
  if (p->k > 0) { /* v's rows are by iteration in either order */
    int64_t v = 0, below = 0;
    if ((rc = mark_key(db, in, m, first + p->k, &v, &p->i, err, errlen)) <= 0) return rc;
    if ((rc = mark_below(db, in, m, p->v, p->i, &below, err, errlen)) < 0) return rc;
    p->at = below - first;
  }
  return 1;
}

/* 1 when the aggregation has marks of c's order (the file has them, and
 * the aggregation was written with them). */
static int has_marks(dldb *db, const dldb_query *in, const mark_sql *m) {
  int64_t p = 0, mk[3] = {0};
  return dldb__view_exists(db, DLDB__ITEROPS_MARKS) == 1 &&
         row_values(db, in, m->at, &p, 1, mk, 3, NULL, 0) == 1;
}

/* A page sorted by row column c (then by iteration and op_node_id), from
 * db/schema.sql's index of c (aggr_iter_ops_by_*), whose entries hold a
 * value's rows in iteration order: the value v at the page's offset and
 * the rows before it, the place of the offset among v's rows (the
 * iteration there and v's rows before it), and v's rows from there on;
 * then the value w at the page's last place, the rows between v and w
 * (every one of them on the page: sorted, they cost the page) and w's
 * first rows. The places are found from the marks of c's order where the
 * aggregation has them (walks of at most a mark's interval and one
 * iteration's rows), else by walks of the index from the first row. A
 * value's rows are stated as few to SQLite's planner (likelihood()), which
 * would otherwise walk the primary key from the iteration on. n: the
 * aggregation's rows. 1 or a negative DL_E*. */
static int by_row_value(dldb *db, const dldb_query *in, const char *c, int64_t n, dldb_row_fn fn,
                        void *ctx, char *err, size_t errlen) {
  walk_sql w;
  mark_sql m;
  page_at p;
  walk_sql_make(&w, in, c);
  mark_sql_make(&m, in, c);
  int marks = has_marks(db, in, &m);
  int rc = marks ? start_by_marks(db, in, &m, n, &p, err, errlen)
                 : start_by_walk(db, in, &w, &p, err, errlen);
  if (rc <= 0) return rc < 0 ? rc : 1; /* past the rows */
  relay r = {fn, ctx, 0, 0};
  int64_t first[4] = {p.v, p.i, in->limit, p.k - p.at}, end = 0, i = 0;
  if ((rc = read_rows(db, in, w.rows, first, 4, &r, err, errlen)) || r.stopped ||
      r.rows >= in->limit)
    return rc ? rc : 1;
  /* the value at the page's last place, the page's order */
  int64_t last = in->offset + in->limit - 1, from[2] = {p.v, p.k + in->limit - 1};
  if (!marks) rc = one_value(db, in, w.from, from, 2, &end, err, errlen); /* from v's first row */
  else if (last < n)
    rc = mark_key(db, in, &m, in->desc ? n - 1 - last : last, &end, &i, err, errlen);
  else rc = 0;
  if (rc < 0) return rc;
  if (rc == 0) { /* the page reaches the last row */
    int64_t tail[2] = {p.v, in->limit - r.rows};
    rc = read_rows(db, in, w.tail, tail, 2, &r, err, errlen);
    return rc ? rc : 1;
  }
  if (end == p.v) return 1; /* v's rows fill the page: read above */
  int64_t mid[3] = {p.v, end, in->limit - r.rows};
  if ((rc = read_rows(db, in, w.mid, mid, 3, &r, err, errlen)) || r.stopped ||
      r.rows >= in->limit)
    return rc ? rc : 1;
  int64_t lastv[4] = {end, INT64_MIN, in->limit - r.rows, 0};
  rc = read_rows(db, in, w.rows, lastv, 4, &r, err, errlen);
  return rc ? rc : 1;
}

/* ---- Which way --------------------------------------------------------- */

int dldb__iterops_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                       size_t errlen) {
  if (strcmp(in->view, ITEROPS_VIEW) != 0 || in->aggr_id < 0 || in->n_eq > 0 ||
      in->tree_parent || in->limit <= 0 || in->offset < 0 || !in->sort ||
      strchr(in->sort, '"') || !in->tiebreak[0] || strcmp(in->tiebreak[0], "iter_value") != 0 ||
      !in->tiebreak[1] || strcmp(in->tiebreak[1], "op_node_id") != 0 || in->tiebreak[2] ||
      !dldb_has_view(db, DLDB__ITEROPS_CALLS) || !dldb_has_view(db, DLDB__ITEROPS_KEYS))
    return 0;
  int64_t total = 0, filtered = 0, any = 0;
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT aggr_id FROM " DLDB__ITEROPS_CALLS " WHERE aggr_id = ?1%s LIMIT 1",
           in->domain ? " AND domain_name = ?2" : "");
  int rc = one_value(db, in, sql, NULL, 0, &any, err, errlen);
  if (rc <= 0) return rc; /* none: an aggregation written without the counts */
  rc = dldb_query_count(db, in, &total, &filtered, err, errlen);
  if (rc) return rc;
  if (in->offset >= filtered) return 1; /* past every matching row: none */
  int filter = in->filter && *in->filter;
  if (has_col(db, DLDB__ITEROPS_CALLS, in->sort) && has_col(db, ITEROPS_VIEW, in->sort))
    return by_op_value(db, in, in->sort, fn, ctx, err, errlen);
  if (!filter && is_key_col(in->sort) && has_col(db, DLDB__ITEROPS_KEYS, in->sort))
    return by_row_value(db, in, in->sort, total, fn, ctx, err, errlen);
  return 0;
}
