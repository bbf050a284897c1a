/*
 * dldb_kpage.c - pages of the kernel lists read by group (dldb_read.h).
 *
 * The groups of an aggregation's launches (view_dl_kernel_groups) come in
 * the page's order from the caller's statement; each counts `calls` rows.
 * The page's rows are those of the groups it covers: the groups before its
 * offset are skipped by their counts, and each group it covers gives its
 * places from the page's place in it on. A group's launches in launch
 * order are stored DLDB_PAIR_CHUNK places a row (DLDB__KG_SEQ: the
 * launches' keys), so the page reads the chunks of its places, then its
 * rows by those keys in one statement (DLDB__KG_ROWS): its cost is the
 * number of groups and its rows, not the aggregation's launches.
 *
 * A page of a few groups' launches in launch order or by duration merges
 * the groups' own orders of those (dldb__korder): see dldb__kpage_merged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_chunks.h"
#include "dldb_read.h"

enum { C = DLDB_PAIR_CHUNK };

static int col_of(sqlite3_stmt *st, const char *name) {
  for (int i = 0; i < sqlite3_column_count(st); i++)
    if (strcmp(sqlite3_column_name(st, i), name) == 0) return i;
  return -1;
}

/* ---- A group's order, a chunk at a time -------------------------------- */

/* One chunk of one group's order, kept for the next read. */
typedef struct kchunk {
  int64_t gid, chunk; /* in pair; chunk -1: none */
  int n;
  int64_t pair[C][2];
} kchunk;

/* Place p of group gid of the order in view chunks (aggregation aggr_id)
 * into out, through k: 1, or a negative DL_E* (a place past the stored
 * ones, a bad chunk: the file is damaged). */
static int pair_at(dldb *db, const char *chunks, int64_t aggr_id, int64_t gid, int64_t p,
                   kchunk *k, int64_t out[2], char *err, size_t errlen) {
  if (k->chunk != p / C || k->gid != gid) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT launches FROM \"%s\" WHERE aggr_id = ?1 AND group_id = ?2 AND chunk = ?3",
             chunks);
    sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
    if (!st) return DL_EDB;
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, gid);
    sqlite3_bind_int64(st, 3, p / C);
    int src = sqlite3_step(st), rc = 1;
    k->chunk = -1;
    if (src == SQLITE_ROW) {
      k->n = dldb__pairs_parse((const char *)sqlite3_column_text(st, 0), k->pair);
      if (k->n >= 0) {
        k->gid = gid;
        k->chunk = p / C;
      }
    } else if (src != SQLITE_DONE) {
      rc = dldb__sql_err(db, src, chunks, err, errlen);
    }
    dldb__stmt_done(st);
    if (rc < 0) return rc;
    if (k->chunk < 0)
      return dl_err(err, errlen, DL_EFORMAT, "%s: %s: group %lld lacks chunk %lld or it is bad",
                    db->path, chunks, (long long)gid, (long long)(p / C));
  }
  if (p % C >= k->n)
    return dl_err(err, errlen, DL_EFORMAT, "%s: %s: group %lld, chunk %lld is short", db->path,
                  chunks, (long long)gid, (long long)(p / C));
  out[0] = k->pair[p % C][0];
  out[1] = k->pair[p % C][1];
  return 1;
}

/* ---- The keys of a page's rows, and the rows ---------------------------- */

/* A JSON array of aggr_kernels keys [iter_value, kernel_id]. */
typedef struct keys {
  char *s;
  size_t len, cap;
  int64_t n;
} keys;

/* Appends key: DL_OK, or DL_ENOMEM with err set. */
static int keys_add(keys *b, const int64_t key[2], dldb *db, char *err, size_t errlen) {
  if (b->cap - b->len < 48) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    char *s = realloc(b->s, cap);
    if (!s) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    b->s = s;
    b->cap = cap;
  }
  b->s[b->len++] = b->n++ ? ',' : '[';
  b->s[b->len++] = '[';
  b->len += dldb__put_int(b->s + b->len, key[0]);
  b->s[b->len++] = ',';
  b->len += dldb__put_int(b->s + b->len, key[1]);
  b->s[b->len++] = ']';
  return DL_OK;
}

/* Closes the array ("[]" when empty). */
static int keys_end(keys *b) {
  if (b->cap - b->len < 3) {
    char *s = realloc(b->s, b->len + 3);
    if (!s) return DL_ENOMEM;
    b->s = s;
    b->cap = b->len + 3;
  }
  if (b->n == 0) b->s[b->len++] = '[';
  b->s[b->len++] = ']';
  b->s[b->len] = '\0';
  return DL_OK;
}

/* "SELECT r.cols FROM json_each(?2) j CROSS JOIN DLDB__KG_ROWS r WHERE
 * (the keys) ORDER BY ..." into buf: the rows of the keys in their order
 * (order NULL), or ordered by column order (desc) and the tie-breaks, from
 * ?4 on, ?3 of them. 0, or -1 when it does not fit or a name has a '"'. */
static int rows_sql(char *buf, size_t cap, const char *const *cols, int n, const char *order,
                    int desc, const char *const *tiebreak) {
  size_t len = (size_t)snprintf(buf, cap, "SELECT ");
  for (int i = 0; i < n && len < cap; i++) {
    if (strchr(cols[i], '"')) return -1; /* column names of our views have none */
    len += (size_t)snprintf(buf + len, cap - len, "%sr.\"%s\"", i ? ", " : "", cols[i]);
  }
  if (len < cap)
    len += (size_t)snprintf(buf + len, cap - len,
                            " FROM json_each(?2) j CROSS JOIN " DLDB__KG_ROWS " r WHERE r.aggr_id "
                            "= ?1 AND r.iter_value = j.value ->> 0 AND r.kernel_id = j.value "
                            "->> 1 ORDER BY ");
  if (!order) {
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, "j.key");
    return len < cap ? 0 : -1;
  }
  if (strchr(order, '"')) return -1;
  if (len < cap)
    len += (size_t)snprintf(buf + len, cap - len, "r.\"%s\"%s", order, desc ? " DESC" : "");
  for (int i = 0; i < DLDB_MAX_TIEBREAK && tiebreak[i] && len < cap; i++) {
    if (strchr(tiebreak[i], '"')) return -1;
    len += (size_t)snprintf(buf + len, cap - len, ", r.\"%s\"", tiebreak[i]);
  }
  if (len < cap) len += (size_t)snprintf(buf + len, cap - len, " LIMIT ?3 OFFSET ?4");
  return len < cap ? 0 : -1;
}

/* Gives fn the rows of the keys k (statement sql of rows_sql; ordered:
 * skip of them first, then at most limit): DL_OK or a negative DL_E*. */
static int rows_of(dldb *db, const char *sql, int64_t aggr_id, keys *k, int64_t limit,
                   int64_t skip, dldb_row_fn fn, void *ctx, char *err, size_t errlen) {
  if (keys_end(k)) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, aggr_id);
  sqlite3_bind_text(st, 2, k->s, (int)k->len, SQLITE_STATIC);
  if (sqlite3_bind_parameter_count(st) >= 4) { /* an ordered window */
    sqlite3_bind_int64(st, 3, limit);
    sqlite3_bind_int64(st, 4, skip);
  }
  dldb_row row = {st, sqlite3_column_count(st)};
  int src, rc = DL_OK;
  while ((src = sqlite3_step(st)) == SQLITE_ROW)
    if (fn(ctx, &row) != 0) break;
  if (src != SQLITE_ROW && src != SQLITE_DONE)
    rc = dldb__sql_err(db, src, DLDB__KG_ROWS, err, errlen);
  dldb__stmt_done(st);
  return rc;
}

/* ---- A page in the groups' order ---------------------------------------- */

int dldb__kpage_rows(dldb *db, sqlite3_stmt *groups, int64_t aggr_id, int64_t offset,
                     int64_t limit, const char *const *cols, int n, dldb_row_fn fn, void *ctx,
                     char *err, size_t errlen) {
  char sql[2048];
  int gid_col = col_of(groups, "group_id"), calls_col = col_of(groups, "calls");
  int rc = DL_OK, src = SQLITE_DONE;
  keys k = {0};
  kchunk *kc = malloc(sizeof *kc);
  if (!kc) {
    rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    goto out;
  }
  kc->chunk = -1;
  if (gid_col < 0 || calls_col < 0 || rows_sql(sql, sizeof sql, cols, n, NULL, 0, NULL)) {
    rc = dl_err(err, errlen, DL_EINVAL, "%s: the kernel groups lack a column", db->path);
    goto out;
  }
  int64_t left = limit;
  while (rc == DL_OK && left > 0 && (src = sqlite3_step(groups)) == SQLITE_ROW) {
    int64_t calls = sqlite3_column_int64(groups, calls_col);
    if (offset >= calls) { /* a group before the page */
      offset -= calls;
      continue;
    }
    int64_t gid = sqlite3_column_int64(groups, gid_col), key[2];
    for (int64_t p = offset; rc == DL_OK && p < calls && left > 0; p++, left--) {
      rc = pair_at(db, DLDB__KG_SEQ, aggr_id, gid, p, kc, key, err, errlen);
      if (rc == 1) rc = keys_add(&k, key, db, err, errlen);
    }
    offset = 0;
  }
  if (rc == DL_OK && left > 0 && src != SQLITE_DONE)
    rc = dldb__sql_err(db, src, "view_dl_kernel_groups", err, errlen);
  if (rc == DL_OK) rc = rows_of(db, sql, aggr_id, &k, -1, 0, fn, ctx, err, errlen);
out:
  dldb__stmt_done(groups);
  free(kc);
  free(k.s);
  return rc;
}

/* ---- One kernel's or op's launches in launch order or by duration, over a few groups ---- */

typedef struct kmerge {
  dldb *db;
  int64_t aggr_id;
  const dldb__korder *order;
  const int64_t *gid, *calls;
  int n;
  int rc; /* the first error, or DL_OK */
  char *err;
  size_t errlen;
  kchunk *k;   /* each group's last chunk of the order */
  kchunk *seq; /* a chunk of launch order (an order by duration's keys) */
} kmerge;

/* The value at place p of group g's order (0 on error, in m->rc). */
static int64_t value_at(kmerge *m, int g, int64_t p) {
  int64_t pair[2] = {0, 0};
  if (m->rc) return 0;
  int rc = pair_at(m->db, m->order->chunks, m->aggr_id, m->gid[g], p, &m->k[g], pair, m->err,
                   m->errlen);
  if (rc < 0) {
    m->rc = rc;
    return 0;
  }
  if (!m->order->by_seq) return pair[0];
  /* launch order: the launch's time, by its key */
  sqlite3_stmt *st = dldb__stmt_get(m->db,
                                    "SELECT kernel_timestamp FROM " DLDB__KG_TIMES " WHERE aggr_id "
                                    "= ?1 AND iter_value = ?2 AND kernel_id = ?3",
                                    m->err, m->errlen);
  if (!st) {
    m->rc = DL_EDB;
    return 0;
  }
  sqlite3_bind_int64(st, 1, m->aggr_id);
  sqlite3_bind_int64(st, 2, pair[0]);
  sqlite3_bind_int64(st, 3, pair[1]);
  int src = sqlite3_step(st);
  int64_t t = src == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  if (src == SQLITE_DONE)
    m->rc = dl_err(m->err, m->errlen, DL_EFORMAT, "%s: %s: group %lld has a launch not in %s",
                   m->db->path, DLDB__KG_SEQ, (long long)m->gid[g], DLDB__KG_TIMES);
  else if (src != SQLITE_ROW)
    m->rc = dldb__sql_err(m->db, src, DLDB__KG_TIMES, m->err, m->errlen);
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

/* The keys of the window (places first[g] to end[g] of each group's
 * order) into k: DL_OK or a negative DL_E*. */
static int window_keys(kmerge *m, const int64_t *first, const int64_t *end, keys *k) {
  for (int g = 0; g < m->n; g++)
    for (int64_t p = first[g]; p <= end[g]; p++) {
      int64_t pair[2];
      int rc = pair_at(m->db, m->order->chunks, m->aggr_id, m->gid[g], p, &m->k[g], pair, m->err,
                       m->errlen);
      if (rc == 1 && !m->order->by_seq) /* [value, place in launch order] */
        rc = pair_at(m->db, DLDB__KG_SEQ, m->aggr_id, m->gid[g], pair[1], m->seq, pair, m->err,
                     m->errlen);
      if (rc == 1) rc = keys_add(k, pair, m->db, m->err, m->errlen);
      if (rc < 0) return rc;
    }
  return DL_OK;
}

int dldb__kpage_merged(dldb *db, int64_t aggr_id, const dldb__korder *order, const int64_t *gid,
                       const int64_t *calls, int n, const dldb_query *in, const char *const *cols,
                       int ncols, dldb_row_fn fn, void *ctx, char *err, size_t errlen) {
  char sql[2048];
  if (!order->chunks || strchr(order->chunks, '"') ||
      rows_sql(sql, sizeof sql, cols, ncols, order->value, in->desc, in->tiebreak))
    return dl_err(err, errlen, DL_EINVAL, "%s: bad order of the kernel groups", db->path);
  int64_t total = 0, lo_place, hi_place;
  for (int g = 0; g < n; g++) total += calls[g];
  if (in->offset >= total || in->limit <= 0 || n == 0) return DL_OK;
  kmerge m = {db, aggr_id, order, gid, calls, n, DL_OK, err, errlen,
              calloc((size_t)n + 1, sizeof(kchunk)), NULL};
  if (!m.k) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  for (int g = 0; g <= n; g++) m.k[g].chunk = -1;
  m.seq = &m.k[n];
  int64_t last = in->offset + in->limit - 1 < total ? in->offset + in->limit - 1 : total - 1;
  lo_place = in->desc ? total - 1 - last : in->offset; /* ascending places */
  hi_place = in->desc ? total - 1 - in->offset : last;
  int64_t lo = kth_value(&m, lo_place), hi = kth_value(&m, hi_place);
  /* rows before the window in the page's order */
  int64_t after_hi = hi == INT64_MAX ? hi : hi + 1;
  int64_t before = in->desc ? total - rank_all(&m, after_hi) : rank_all(&m, lo);
  int64_t first[DLDB__KMERGE_MAX], end[DLDB__KMERGE_MAX];
  for (int g = 0; g < n; g++) {
    first[g] = rank_in(&m, g, lo, 0, calls[g]);
    end[g] = rank_in(&m, g, after_hi, 0, calls[g]) - 1;
  }
  keys k = {0};
  int rc = m.rc ? m.rc : window_keys(&m, first, end, &k);
  if (rc == DL_OK)
    rc = rows_of(db, sql, aggr_id, &k, in->limit, in->offset - before, fn, ctx, err, errlen);
  free(k.s);
  free(m.k);
  return rc;
}
