/*
 * dldb_kpage.c - pages of the kernel lists read by group (dldb_read.h).
 *
 * The groups of an aggregation's launches (view_dl_kernel_groups) come in
 * the page's order from the caller's statement; each counts `calls` rows.
 * The page's rows are those of the groups it covers: the groups before its
 * offset are skipped by their counts, and each group it covers gives the
 * rows at its places from the page's place in it on
 * (view_dl_kernel_group_rows, a seek of its primary key), so a page costs
 * the number of groups and its rows, not the aggregation's launches.
 *
 * A page of a few groups' launches in launch order or by duration merges
 * the groups' own orders of those (dldb__korder): see dldb__kpage_merged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_read.h"

#define KPAGE_ROWS "view_dl_kernel_group_rows"

static int col_of(sqlite3_stmt *st, const char *name) {
  for (int i = 0; i < sqlite3_column_count(st); i++)
    if (strcmp(sqlite3_column_name(st, i), name) == 0) return i;
  return -1;
}

/* "SELECT cols FROM view_dl_kernel_group_rows WHERE ... ORDER BY group_seq
 * LIMIT ?4" into buf: 0, or -1 when it does not fit. */
static int segment_sql(char *buf, size_t cap, const char *const *cols, int n) {
  size_t len = (size_t)snprintf(buf, cap, "SELECT ");
  for (int i = 0; i < n && len < cap; i++) {
    if (strchr(cols[i], '"')) return -1; /* column names of our views have none */
    len += (size_t)snprintf(buf + len, cap - len, "%s\"%s\"", i ? ", " : "", cols[i]);
  }
  if (len < cap)
    len += (size_t)snprintf(buf + len, cap - len,
                            " FROM " KPAGE_ROWS " WHERE aggr_id = ?1 AND group_id = ?2 AND "
                            "group_seq >= ?3 ORDER BY group_seq LIMIT ?4");
  return len < cap ? 0 : -1;
}

/* Gives fn the rows of group gid from place from on, at most *left of them;
 * *left drops by the rows given, and is 0 when fn stopped the page. */
static int segment(dldb *db, sqlite3_stmt *st, int64_t aggr_id, int64_t gid, int64_t from,
                   int64_t *left, dldb_row_fn fn, void *ctx, char *err, size_t errlen) {
  sqlite3_bind_int64(st, 1, aggr_id);
  sqlite3_bind_int64(st, 2, gid);
  sqlite3_bind_int64(st, 3, from);
  sqlite3_bind_int64(st, 4, *left);
  dldb_row row = {st, sqlite3_column_count(st)};
  int src, rc = DL_OK;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    (*left)--;
    if (fn(ctx, &row) != 0) {
      *left = 0;
      break;
    }
  }
  if (src != SQLITE_ROW && src != SQLITE_DONE) rc = dldb__sql_err(db, src, KPAGE_ROWS, err, errlen);
  dldb__stmt_done(st);
  return rc;
}

int dldb__kpage_rows(dldb *db, sqlite3_stmt *groups, int64_t aggr_id, int64_t offset,
                     int64_t limit, const char *const *cols, int n, dldb_row_fn fn, void *ctx,
                     char *err, size_t errlen) {
  char sql[2048];
  int gid_col = col_of(groups, "group_id"), calls_col = col_of(groups, "calls");
  int rc = DL_OK, src = SQLITE_DONE;
  if (gid_col < 0 || calls_col < 0 || segment_sql(sql, sizeof sql, cols, n)) {
    rc = dl_err(err, errlen, DL_EINVAL, "%s: the kernel groups lack a column", db->path);
    goto out;
  }
  int64_t left = limit;
  while (left > 0 && (src = sqlite3_step(groups)) == SQLITE_ROW) {
    int64_t calls = sqlite3_column_int64(groups, calls_col);
    if (offset >= calls) { /* a group before the page */
      offset -= calls;
      continue;
    }
    sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
    if (!st) {
      rc = DL_EDB;
      goto out;
    }
    rc = segment(db, st, aggr_id, sqlite3_column_int64(groups, gid_col), offset, &left, fn, ctx,
                 err, errlen);
    if (rc) goto out;
    offset = 0;
  }
  if (left > 0 && src != SQLITE_DONE) rc = dldb__sql_err(db, src, "view_dl_kernel_groups", err, errlen);
out:
  dldb__stmt_done(groups);
  return rc;
}

/* ---- One kernel's or op's launches in launch order or by duration, over a few groups ---- */

typedef struct kmerge {
  dldb *db;
  int64_t aggr_id;
  const int64_t *gid, *calls;
  int n;
  int rc; /* the first error, or DL_OK */
  char *err;
  size_t errlen;
  char at_sql[256]; /* the value at one place of one group */
} kmerge;

/* The value at place seq of group g (0 on error, in m->rc). */
static int64_t value_at(kmerge *m, int g, int64_t seq) {
  sqlite3_stmt *st = dldb__stmt_get(m->db, m->at_sql, m->err, m->errlen);
  if (!st) {
    m->rc = m->rc ? m->rc : DL_EDB;
    return 0;
  }
  sqlite3_bind_int64(st, 1, m->aggr_id);
  sqlite3_bind_int64(st, 2, m->gid[g]);
  sqlite3_bind_int64(st, 3, seq);
  int src = sqlite3_step(st);
  int64_t t = src == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  if (src != SQLITE_ROW && !m->rc) m->rc = dldb__sql_err(m->db, src, m->at_sql, m->err, m->errlen);
  dldb__stmt_done(st);
  return t;
}

/* The launches of group g before value t: the first place at t or later
 * (a group's places are in the order's value order), known to be in
 * [lo, hi]. */
static int64_t rank_in(kmerge *m, int g, int64_t t, int64_t lo, int64_t hi) {
  while (lo < hi && !m->rc) {
    int64_t mid = lo + (hi - lo) / 2;
    if (value_at(m, g, mid) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int64_t rank_all(kmerge *m, int64_t t) {
  int64_t r = 0;
  for (int g = 0; g < m->n; g++) r += rank_in(m, g, t, 0, m->calls[g]);
  return r;
}

/* The value of the launch at place k of all groups in the value's order:
 * the least t with more than k launches at t or before, by a search of the
 * values; each group's place of the time searched stays within what the
 * earlier steps left it (lo_g, hi_g), so most steps probe few places. */
static int64_t kth_value(kmerge *m, int64_t k) {
  int64_t lo = INT64_MAX, hi = INT64_MIN, lo_g[DLDB__KMERGE_MAX], hi_g[DLDB__KMERGE_MAX];
  int64_t r_g[DLDB__KMERGE_MAX];
  for (int g = 0; g < m->n; g++) {
    lo_g[g] = 0;
    hi_g[g] = m->calls[g];
    if (m->calls[g] <= 0) continue;
    int64_t a = value_at(m, g, 0), b = value_at(m, g, m->calls[g] - 1);
    lo = a < lo ? a : lo;
    hi = b > hi ? b : hi;
  }
  while (lo < hi && !m->rc) {
    int64_t mid = lo + (hi - lo) / 2, r = 0;
    for (int g = 0; g < m->n; g++) r += r_g[g] = rank_in(m, g, mid + 1, lo_g[g], hi_g[g]);
    int left = r > k; /* the answer is at mid or before */
    for (int g = 0; g < m->n; g++) {
      if (left) hi_g[g] = r_g[g];
      else lo_g[g] = r_g[g];
    }
    if (left) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/* The page's window: the rows of the groups with values from lo to hi
 * (their places from rank_in(lo) to before rank_in(hi + 1)), in the
 * page's order. One SELECT a group, joined by UNION ALL, so that each
 * reads its range by the primary key: with the ranges ORed in one WHERE,
 * SQLite reads every row of the aggregation once there are a few. */
static int window_sql(char *buf, size_t cap, const dldb__korder *o, const char *const *cols,
                      int ncols, int ngroups, int desc, const char *const *tiebreak) {
  size_t len = 0;
  for (int g = 0; g < ngroups && len < cap; g++) {
    len += (size_t)snprintf(buf + len, cap - len, "%sSELECT ", g ? " UNION ALL " : "");
    for (int i = 0; i < ncols && len < cap; i++)
      len += (size_t)snprintf(buf + len, cap - len, "%s\"%s\"", i ? ", " : "", cols[i]);
    if (len < cap)
      len += (size_t)snprintf(buf + len, cap - len,
                              " FROM \"%s\" WHERE aggr_id = ?1 AND group_id = ?%d AND \"%s\" "
                              "BETWEEN ?%d AND ?%d",
                              o->rows, 4 + 3 * g, o->place, 5 + 3 * g, 6 + 3 * g);
  }
  if (len < cap)
    len += (size_t)snprintf(buf + len, cap - len, " ORDER BY \"%s\"%s", o->value,
                            desc ? " DESC" : "");
  for (int i = 0; tiebreak[i] && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, ", \"%s\"", tiebreak[i]);
  if (len < cap) len += (size_t)snprintf(buf + len, cap - len, " LIMIT ?2 OFFSET ?3");
  return len < cap ? 0 : -1;
}

/* Gives fn the rows of the window (places first[g] to end[g] of each
 * group of m) in the page's order, from the skip-th on. */
static int window_rows(kmerge *m, const dldb__korder *order, const int64_t *first,
                       const int64_t *end, const dldb_query *in, int64_t skip,
                       const char *const *cols, int ncols, dldb_row_fn fn, void *ctx) {
  size_t per = 256 + strlen(order->rows) + strlen(order->place);
  for (int i = 0; i < ncols; i++) per += strlen(cols[i]) + 4;
  size_t cap = 1024 + (size_t)m->n * per;
  char *sql = malloc(cap);
  if (!sql) return dl_err(m->err, m->errlen, DL_ENOMEM, "%s: out of memory", m->db->path);
  int rc = DL_OK;
  sqlite3_stmt *st = NULL;
  if (window_sql(sql, cap, order, cols, ncols, m->n, in->desc, in->tiebreak))
    rc = dl_err(m->err, m->errlen, DL_EINVAL, "%s: the page's query is too long", m->db->path);
  else if (!(st = dldb__stmt_get(m->db, sql, m->err, m->errlen)))
    rc = DL_EDB;
  free(sql);
  if (rc) return rc;
  sqlite3_bind_int64(st, 1, m->aggr_id);
  sqlite3_bind_int64(st, 2, in->limit);
  sqlite3_bind_int64(st, 3, skip);
  for (int g = 0; g < m->n; g++) {
    sqlite3_bind_int64(st, 4 + 3 * g, m->gid[g]);
    sqlite3_bind_int64(st, 5 + 3 * g, first[g]);
    sqlite3_bind_int64(st, 6 + 3 * g, end[g]);
  }
  dldb_row row = {st, sqlite3_column_count(st)};
  int src;
  while ((src = sqlite3_step(st)) == SQLITE_ROW)
    if (fn(ctx, &row) != 0) break;
  if (src != SQLITE_ROW && src != SQLITE_DONE)
    rc = dldb__sql_err(m->db, src, order->rows, m->err, m->errlen);
  dldb__stmt_done(st);
  return rc;
}

/* 1 when every name of order can stand in double quotes as it is. */
static int order_names_ok(const dldb__korder *o) {
  const char *names[] = {o->values, o->rows, o->place, o->value};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!names[i] || strchr(names[i], '"')) return 0;
  return 1;
}

int dldb__kpage_merged(dldb *db, int64_t aggr_id, const dldb__korder *order, const int64_t *gid,
                       const int64_t *calls, int n, const dldb_query *in, const char *const *cols,
                       int ncols, dldb_row_fn fn, void *ctx, char *err, size_t errlen) {
  kmerge m = {db, aggr_id, gid, calls, n, DL_OK, err, errlen, ""};
  if (!order_names_ok(order) ||
      (size_t)snprintf(m.at_sql, sizeof m.at_sql,
                       "SELECT \"%s\" FROM \"%s\" WHERE aggr_id = ?1 AND group_id = ?2 AND "
                       "\"%s\" = ?3",
                       order->value, order->values, order->place) >= sizeof m.at_sql)
    return dl_err(err, errlen, DL_EINVAL, "%s: bad order of the kernel groups", db->path);
  int64_t total = 0, lo_place, hi_place;
  for (int g = 0; g < n; g++) total += calls[g];
  if (in->offset >= total || in->limit <= 0 || n == 0) return DL_OK;
  int64_t last = in->offset + in->limit - 1 < total ? in->offset + in->limit - 1 : total - 1;
  lo_place = in->desc ? total - 1 - last : in->offset; /* ascending places */
  hi_place = in->desc ? total - 1 - in->offset : last;
  int64_t lo = kth_value(&m, lo_place), hi = kth_value(&m, hi_place);
  /* rows before the window in the page's order */
  int64_t after_hi = hi == INT64_MAX ? hi : hi + 1;
  int64_t before = in->desc ? total - rank_all(&m, after_hi) : rank_all(&m, lo);
  if (m.rc) return m.rc;
  for (int i = 0; i < ncols; i++)
    if (strchr(cols[i], '"')) return dl_err(err, errlen, DL_EINVAL, "bad column name");
  for (int i = 0; i < DLDB_MAX_TIEBREAK && in->tiebreak[i]; i++)
    if (strchr(in->tiebreak[i], '"')) return dl_err(err, errlen, DL_EINVAL, "bad column name");
  int64_t first[DLDB__KMERGE_MAX], end[DLDB__KMERGE_MAX];
  for (int g = 0; g < n; g++) {
    first[g] = rank_in(&m, g, lo, 0, calls[g]);
    end[g] = rank_in(&m, g, after_hi, 0, calls[g]) - 1;
  }
  if (m.rc) return m.rc;
  return window_rows(&m, order, first, end, in, in->offset - before, cols, ncols, fn, ctx);
}
