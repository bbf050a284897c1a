/* dldb_nvtxpage.c - counts and pages of the NVTX statistics views
 * (view_dl_stats_nvtx, view_dl_stats_nvtx_gpu_proj: a row per distinct
 * range text, millions of them) read through their name order and name
 * forms (db/schema.sql aggr_nvtx_name_order; dldb_nvtxidx.c writes them):
 * the filtered count is a sum over the forms the filter is in, a page in
 * row_idx or name order a walk of the stored order (or, for a filter that
 * keeps few rows, those rows sorted by name), a page sorted by a time
 * column a walk of the rows in row_idx order that stops early (below),
 * each row of the page then read from the view by its row_idx (or the
 * blocks of rows that can hold the page, from zone maps). Used by
 * dldb_query.c for one aggregation without column filters, a name filter
 * (one with ASCII digits through the names' digit runs, dldb_nvtxdmatch.c,
 * where the file has them) and ties on row_idx; anything else, and files
 * without the tables, read the views as before. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_nvtxdmatch.h"
#include "dldb_nvtxidx.h"
#include "dldb_nvtxzpage.h"
#include "dldb_read.h"

enum { CHUNK = DLDB_NVTX_CHUNK, NFORMS = 65536 };

/* The largest page read this way: a download of every row reads the view. */
#define PAGE_MAX 100000

typedef struct nvview {
  const char *view;
  int kind;
} nvview;

static const nvview nvviews[] = {
    {"view_dl_stats_nvtx", 6},
    {"view_dl_stats_nvtx_gpu_proj", 7},
};

typedef struct nvq {
  dldb *db;
  const dldb_query *in;
  const nvview *v;
  int64_t n;          /* the aggregation's rows of the view */
  uint8_t *match;     /* NFORMS: 1 where the filter is in the form; NULL: no filter */
  int64_t matched;    /* rows of matching forms */
  uint64_t *keep;     /* a bit by row_idx: its form matches (once read) */
  uint32_t *order;    /* the name order chunk `chunk` holds, 0..n - 1 places */
  int64_t chunk, chunk_n;
  char *err;
  size_t errlen;
} nvq;

static int sqlerr(nvq *q, int src) { return dldb__sql_err(q->db, src, q->in->view, q->err, q->errlen); }

/* The single integer of sql with ?1 = aggr_id, ?2 = kind (text: view). 1,
 * 0 without a row, or a negative DL_E*. */
static int one(nvq *q, const char *sql, int64_t *out) {
  sqlite3_stmt *st = dldb__stmt_get(q->db, sql, q->err, q->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, q->in->aggr_id);
  sqlite3_bind_int(st, 2, q->v->kind);
  int src = sqlite3_step(st), rc = 0;
  if (src == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
    *out = sqlite3_column_int64(st, 0);
    rc = 1;
  } else if (src != SQLITE_ROW && src != SQLITE_DONE) {
    rc = sqlerr(q, src);
  }
  dldb__stmt_done(st);
  return rc;
}

/* 1 when sql (?1, ?2 bound to a and b) has a row, 0 when not. */
static int has_row(dldb *db, const char *sql, const char *a, const char *b) {
  sqlite3_stmt *st = dldb__stmt_get(db, sql, NULL, 0);
  if (!st) return 0;
  sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
  if (b) sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
  int found = sqlite3_step(st) == SQLITE_ROW;
  dldb__stmt_done(st);
  return found;
}

static int has_view(dldb *db, const char *view) {
  return has_row(db, "SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?1", view, NULL);
}

static int has_column(dldb *db, const char *view, const char *col) {
  return has_row(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", view, col);
}

static int has_digit(const char *f) {
  for (const char *p = f; *p; p++)
    if (*p >= '0' && *p <= '9') return 1;
  return 0;
}

/* 1 when in's filter is a name filter the forms answer: of the view's
 * filter columns only `name`, and no ASCII digit unless the file has the
 * names' digit runs. */
static int form_filter(dldb *db, const dldb_query *in) {
  if (has_digit(in->filter) && !has_view(db, "view_dl_nvtx_digits")) return 0;
  int name = 0;
  for (int i = 0; i < DLDB_MAX_FILTER_COLS && in->filter_cols[i]; i++)
    if (has_column(db, in->view, in->filter_cols[i])) {
      if (strcmp(in->filter_cols[i], "name") != 0) return 0;
      name = 1;
    }
  return name;
}

/* The aggregation's domain is in->domain (or none is asked): 1, 0, or a
 * negative DL_E*. */
static int same_domain(nvq *q) {
  if (!q->in->domain) return 1;
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT domain_name FROM %s WHERE aggr_id = ?1 LIMIT 1", q->v->view);
  sqlite3_stmt *st = dldb__stmt_get(q->db, sql, q->err, q->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, q->in->aggr_id);
  int src = sqlite3_step(st), rc = 0;
  if (src == SQLITE_ROW) {
    const char *d = (const char *)sqlite3_column_text(st, 0);
    rc = d && strcmp(d, q->in->domain) == 0;
  } else if (src != SQLITE_DONE) {
    rc = sqlerr(q, src);
  }
  dldb__stmt_done(st);
  return rc;
}

/* The forms the lower-cased filter f is in, and their rows: 1 when every
 * row has a form, 0 when the aggregation has none (too many), or a
 * negative DL_E*. */
static int match_forms(nvq *q, const char *f) {
  sqlite3_stmt *st = dldb__stmt_get(
      q->db, "SELECT form_id, form, rows FROM view_dl_nvtx_forms WHERE aggr_id = ?1 AND kind = ?2",
      q->err, q->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, q->in->aggr_id);
  sqlite3_bind_int(st, 2, q->v->kind);
  size_t fl = strlen(f);
  char *low = NULL;
  size_t cap = 0;
  int64_t all = 0;
  int src, rc = DL_OK;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0), rows = sqlite3_column_int64(st, 2);
    const char *t = (const char *)sqlite3_column_text(st, 1);
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    if (id < 0 || id >= NFORMS || !t) continue;
    all += rows;
    if (n + 1 > cap) {
      char *p = realloc(low, n + 1);
      if (!p) {
        rc = dl_err(q->err, q->errlen, DL_ENOMEM, "%s: out of memory", q->db->path);
        break;
      }
      low = p;
      cap = n + 1;
    }
    for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)t[i]);
    low[n] = '\0';
    if (fl <= n && memmem(low, n, f, fl)) {
      q->match[id] = 1;
      q->matched += rows;
    }
  }
  if (rc == DL_OK && src != SQLITE_DONE) rc = sqlerr(q, src);
  dldb__stmt_done(st);
  free(low);
  return rc ? rc : all == q->n && all > 0;
}

/* The rows the lower-cased filter f (with digits) keeps, into q->keep: 1,
 * 0 when the file's digit runs cannot answer it, or a negative DL_E*. */
static int match_digits(nvq *q, const char *f) {
  q->keep = calloc((size_t)(q->n / 64 + 1), sizeof *q->keep);
  if (!q->keep) return dl_err(q->err, q->errlen, DL_ENOMEM, "%s: out of memory", q->db->path);
  dldb__dmatch m = {.aggr_id = q->in->aggr_id, .kind = q->v->kind, .n = q->n, .f = f,
                    .keep = q->keep};
  int rc = dldb__nvtx_dmatch(q->db, &m, q->err, q->errlen);
  q->matched = m.matched;
  return rc;
}

/* Sets q up for in: 1 when in is read here, 0 when not, or a negative
 * DL_E*. */
static int setup(nvq *q, dldb *db, const dldb_query *in, char *err, size_t errlen) {
  memset(q, 0, sizeof *q);
  q->db = db;
  q->in = in;
  q->err = err;
  q->errlen = errlen;
  q->chunk = -1;
  for (size_t i = 0; i < sizeof nvviews / sizeof *nvviews; i++)
    if (strcmp(nvviews[i].view, in->view) == 0) q->v = &nvviews[i];
  int filtered = in->filter && *in->filter;
  if (!q->v || in->aggr_id < 0 || in->n_eq > 0 || in->tree_parent ||
      !has_view(db, "view_dl_nvtx_name_order") || !has_view(db, "view_dl_nvtx_forms") ||
      !has_view(db, in->view) || (filtered && !form_filter(db, in)))
    return 0;
  int rc = same_domain(q);
  if (rc <= 0) return rc;
  char sql[160];
  snprintf(sql, sizeof sql,
           "SELECT row_idx + 1 FROM %s WHERE aggr_id = ?1 ORDER BY row_idx DESC LIMIT 1",
           q->v->view);
  int64_t placed = 0;
  if ((rc = one(q, sql, &q->n)) <= 0) return rc;
  rc = one(q, "SELECT sum(length(places)) / 4 FROM view_dl_nvtx_name_order WHERE aggr_id = ?1 "
              "AND kind = ?2", &placed);
  if (rc <= 0 || placed != q->n) return rc < 0 ? rc : 0; /* none, or not of these rows */
  if (!filtered) return 1;
  char *f = strdup(in->filter);
  q->match = calloc(NFORMS, 1);
  if (!f || !q->match) {
    free(f);
    return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  }
  for (char *p = f; *p; p++) *p = (char)tolower((unsigned char)*p);
  rc = has_digit(f) ? match_digits(q, f) : match_forms(q, f);
  free(f);
  return rc;
}

static void done(nvq *q) {
  free(q->match);
  free(q->keep);
  free(q->order);
}

/* Reads blob `col` of chunk c of view into a new buffer (*n bytes). */
static int read_chunk(nvq *q, const char *sql, int64_t c, uint8_t **out, int64_t *n) {
  *out = NULL;
  *n = 0;
  sqlite3_stmt *st = dldb__stmt_get(q->db, sql, q->err, q->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, q->in->aggr_id);
  sqlite3_bind_int(st, 2, q->v->kind);
  sqlite3_bind_int64(st, 3, c);
  int src = sqlite3_step(st), rc = DL_OK;
  if (src == SQLITE_ROW) {
    int bytes = sqlite3_column_bytes(st, 0);
    const void *b = sqlite3_column_blob(st, 0);
    *out = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!*out) rc = dl_err(q->err, q->errlen, DL_ENOMEM, "%s: out of memory", q->db->path);
    else if (bytes > 0) memcpy(*out, b, (size_t)bytes);
    *n = bytes;
  } else {
    rc = src == SQLITE_DONE ? dl_err(q->err, q->errlen, DL_EFORMAT, "%s: %s lacks a chunk",
                                     q->db->path, q->in->view)
                            : sqlerr(q, src);
  }
  dldb__stmt_done(st);
  return rc;
}

/* The row_idx and tie flag at name place p (0..n-1) into *v. */
static int place(nvq *q, int64_t p, uint32_t *v) {
  int64_t c = p / CHUNK;
  if (c != q->chunk) {
    uint8_t *b = NULL;
    int64_t bytes = 0;
    int rc = read_chunk(q, "SELECT places FROM view_dl_nvtx_name_order WHERE aggr_id = ?1 AND "
                           "kind = ?2 AND chunk = ?3", c, &b, &bytes);
    if (rc) return rc;
    free(q->order);
    q->order = malloc((size_t)(bytes / 4 + 1) * sizeof *q->order);
    if (!q->order) {
      free(b);
      q->chunk = -1;
      return dl_err(q->err, q->errlen, DL_ENOMEM, "%s: out of memory", q->db->path);
    }
    for (int64_t i = 0; i < bytes / 4; i++)
      q->order[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
                    (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
    free(b);
    q->chunk = c;
    q->chunk_n = bytes / 4;
  }
  int64_t i = p - c * CHUNK;
  if (i >= q->chunk_n)
    return dl_err(q->err, q->errlen, DL_EFORMAT, "%s: %s: a short chunk", q->db->path,
                  q->in->view);
  *v = q->order[i];
  return DL_OK;
}

/* A walk of the rows in name order: ascending, places cur, cur + 1, ...;
 * descending (equal names then by row_idx ascending, as the view's query
 * orders them), the groups of equal names from the last down, each one's
 * places bp..be ascending, then the group that ends at cur. */
typedef struct walk {
  int desc;
  int64_t cur, bp, be;
} walk;

/* Starts w at the d-th row of the order (d < q->n). */
static int walk_start(nvq *q, walk *w, int desc, int64_t d) {
  *w = (walk){.desc = desc, .cur = d, .bp = 1, .be = 0};
  if (!desc) return DL_OK;
  int64_t at = q->n - 1 - d, s = at, e = at; /* the group of equal names at `at` */
  uint32_t v = 0;
  int rc;
  while ((rc = place(q, s, &v)) == DL_OK && (v >> 31) && s > 0) s--;
  while (rc == DL_OK && e + 1 < q->n && (rc = place(q, e + 1, &v)) == DL_OK && (v >> 31)) e++;
  w->bp = s + (d - (q->n - 1 - e)); /* its rows from the d-th on */
  w->be = e;
  w->cur = s - 1;
  return rc;
}

/* The next row of w into *row: 1, 0 past the last, or a negative DL_E*. */
static int walk_next(nvq *q, walk *w, int64_t *row) {
  uint32_t v = 0;
  int rc;
  if (!w->desc) {
    if (w->cur >= q->n) return 0;
    if ((rc = place(q, w->cur++, &v))) return rc;
  } else {
    if (w->bp > w->be) {
      if (w->cur < 0) return 0;
      int64_t s = w->cur;
      while ((rc = place(q, s, &v)) == DL_OK && (v >> 31) && s > 0) s--;
      if (rc) return rc;
      w->bp = s;
      w->be = w->cur;
      w->cur = s - 1;
    }
    if ((rc = place(q, w->bp++, &v))) return rc;
  }
  *row = (int64_t)(v & 0x7fffffffu);
  return 1;
}

/* Which rows the filter keeps, from every row's form: a bit a row (a walk
 * in name order tests rows in no order, and bits stay in the caches where
 * 2-byte form ids would not). */
static int load_forms(nvq *q) {
  if (q->keep) return DL_OK; /* read already (a filter with digits) */
  q->keep = calloc((size_t)(q->n / 64 + 1), sizeof *q->keep);
  if (!q->keep) return dl_err(q->err, q->errlen, DL_ENOMEM, "%s: out of memory", q->db->path);
  for (int64_t c = 0; c * CHUNK < q->n; c++) {
    uint8_t *b = NULL;
    int64_t bytes = 0;
    int rc = read_chunk(q, "SELECT forms FROM view_dl_nvtx_row_forms WHERE aggr_id = ?1 AND "
                           "kind = ?2 AND chunk = ?3", c, &b, &bytes);
    if (rc) return rc;
    int64_t want = q->n - c * CHUNK < CHUNK ? q->n - c * CHUNK : CHUNK;
    if (bytes != 2 * want) {
      free(b);
      return dl_err(q->err, q->errlen, DL_EFORMAT, "%s: %s: a short forms chunk", q->db->path,
                    q->in->view);
    }
    for (int64_t i = 0, r = c * CHUNK; i < want; i++, r++)
      if (q->match[b[2 * i] | b[2 * i + 1] << 8]) q->keep[r / 64] |= 1ull << (r % 64);
    free(b);
  }
  return DL_OK;
}

static int kept(const nvq *q, int64_t row) { return (int)(q->keep[row / 64] >> (row % 64) & 1); }

/* Gives fn the view's row row_idx: 1 when fn stops, 0, or a negative DL_E*. */
static int emit(nvq *q, int64_t row_idx, dldb_row_fn fn, void *ctx) {
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE aggr_id = ?1 AND row_idx = ?2", q->v->view);
  sqlite3_stmt *st = dldb__stmt_get(q->db, sql, q->err, q->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, q->in->aggr_id);
  sqlite3_bind_int64(st, 2, row_idx);
  int src = sqlite3_step(st), rc = 0;
  if (src == SQLITE_ROW) {
    dldb_row row = {st, sqlite3_column_count(st)};
    rc = fn(ctx, &row) != 0;
  } else {
    rc = src == SQLITE_DONE ? dl_err(q->err, q->errlen, DL_EFORMAT, "%s: %s has no row %lld",
                                     q->db->path, q->in->view, (long long)row_idx)
                            : sqlerr(q, src);
  }
  dldb__stmt_done(st);
  return rc;
}

/* A filter that keeps at most FEW rows, and at most one in FEW_PART, has
 * its page by name sorted here from the rows' names (a seek each) rather
 * than found in a walk of every place. */
enum { FEW = 4096, FEW_PART = 128 };

typedef struct named {
  char *name;
  int len;
  int64_t row;
} named;

/* BINARY: the bytes, then the shorter first. */
static int name_cmp(const named *x, const named *y) {
  int n = x->len < y->len ? x->len : y->len, c = memcmp(x->name, y->name, (size_t)n);
  return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* By name (ascending, descending), equal names by row_idx ascending. */
static int cmp_named_asc(const void *a, const void *b) {
  const named *x = a, *y = b;
  int c = name_cmp(x, y);
  return c ? c : (x->row > y->row) - (x->row < y->row);
}

static int cmp_named_desc(const void *a, const void *b) {
  const named *x = a, *y = b;
  int c = name_cmp(y, x);
  return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* The page by name of the few rows the filter keeps (q->keep). */
static int few_by_name(nvq *q, int desc, dldb_row_fn fn, void *ctx) {
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT name FROM %s WHERE aggr_id = ?1 AND row_idx = ?2",
           q->v->view);
  named *v = calloc((size_t)q->matched + 1, sizeof *v);
  sqlite3_stmt *st = v ? dldb__stmt_get(q->db, sql, q->err, q->errlen) : NULL;
  int64_t n = 0;
  int rc = !v ? dl_err(q->err, q->errlen, DL_ENOMEM, "%s: out of memory", q->db->path)
           : !st ? DL_EDB : DL_OK;
  for (int64_t r = 0; rc == DL_OK && r < q->n && n < q->matched; r++) {
    if (!kept(q, r)) continue;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, q->in->aggr_id);
    sqlite3_bind_int64(st, 2, r);
    int src = sqlite3_step(st);
    if (src != SQLITE_ROW) {
      rc = src == SQLITE_DONE ? dl_err(q->err, q->errlen, DL_EFORMAT, "%s: %s has no row %lld",
                                       q->db->path, q->in->view, (long long)r)
                              : sqlerr(q, src);
      break;
    }
    int len = sqlite3_column_bytes(st, 0);
    const void *t = sqlite3_column_blob(st, 0);
    v[n] = (named){.name = malloc((size_t)len + 1), .len = len, .row = r};
    if (!v[n].name) rc = dl_err(q->err, q->errlen, DL_ENOMEM, "%s: out of memory", q->db->path);
    else if (len > 0) memcpy(v[n].name, t, (size_t)len);
    n++;
  }
  if (st) dldb__stmt_done(st);
  if (rc == DL_OK) {
    qsort(v, (size_t)n, sizeof *v, desc ? cmp_named_desc : cmp_named_asc);
    int64_t skip = q->in->offset > 0 ? q->in->offset : 0;
    for (int64_t i = skip; i < n && i < skip + q->in->limit; i++) {
      int e = emit(q, v[i].row, fn, ctx);
      if (e) {
        rc = e < 0 ? e : DL_OK;
        break;
      }
    }
  }
  for (int64_t i = 0; v && i < n; i++) free(v[i].name);
  free(v);
  return rc;
}

/* The page: the rows in row_idx or name order (desc: descending) that
 * match, from the offset on. */
static int page(nvq *q, int by_name, int desc, dldb_row_fn fn, void *ctx) {
  const dldb_query *in = q->in;
  int64_t skip = in->offset > 0 ? in->offset : 0, left = in->limit;
  int rc = DL_OK;
  if (q->match && !q->matched) return DL_OK;
  if (q->match && (rc = load_forms(q))) return rc;
  if (q->match && by_name && q->matched <= FEW && q->matched * FEW_PART <= q->n)
    return few_by_name(q, desc, fn, ctx);
  /* unfiltered: straight to the offset */
  int64_t i = q->match ? 0 : skip;
  if (!q->match) skip = 0;
  walk w = {0};
  if (i >= q->n || (by_name && (rc = walk_start(q, &w, desc, i)))) return rc;
  for (; left > 0 && rc == DL_OK; i++) {
    int64_t row = desc ? q->n - 1 - i : i;
    int got = by_name ? walk_next(q, &w, &row) : 1;
    if (got <= 0) {
      rc = got;
      break;
    }
    if (!by_name && i >= q->n) break;
    if (row < 0 || row >= q->n) {
      rc = dl_err(q->err, q->errlen, DL_EFORMAT, "%s: %s: a bad name order", q->db->path, in->view);
      break;
    }
    if (q->match && !kept(q, row)) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    left--;
    rc = emit(q, row, fn, ctx);
    if (rc == 1) return DL_OK;
  }
  return rc < 0 ? rc : DL_OK;
}

/* ---- Sorted by a numeric column -------------------------------------------
 *
 * The analysis numbers a kind's rows in total time order, descending
 * (analysis/dla_stats.c; the server's sort by total time relies on it too),
 * and every time it records is at least 0 (dla_ranges.c clamps a range's
 * end to its start). So a column that is a non-decreasing function of the
 * total (time %, total time) is in row_idx order, and one that is at most
 * the total (avg, med, min, max and stddev of a row's durations) is below
 * the total of the row being read and of every row after it. A page in such
 * an order keeps the best offset + limit rows of a walk of the rows in
 * row_idx order (descending: upwards, ascending: downwards, the order's
 * best first) and stops where no later row can be among them; each row read
 * is checked against these rules, and a file that breaks one is read the
 * plain way. Where the file has zone maps (dldb_nvtxzpage.c), they serve
 * every column but time % and total time, in both directions, and the
 * columns no rule bounds (instances, GPU ops, ...). */
enum { EXACT, BELOW, NONE }; /* a column's rule: f(total), at most total, neither */

typedef struct numcol {
  const char *view, *col, *total;
  int rule;
} numcol;

static const numcol numcols[] = {
    {"view_dl_stats_nvtx", "time_pct", "total_time", EXACT},
    {"view_dl_stats_nvtx", "total_time", "total_time", EXACT},
    {"view_dl_stats_nvtx", "instances", "total_time", NONE},
    {"view_dl_stats_nvtx", "avg", "total_time", BELOW},
    {"view_dl_stats_nvtx", "med", "total_time", BELOW},
    {"view_dl_stats_nvtx", "min", "total_time", BELOW},
    {"view_dl_stats_nvtx", "max", "total_time", BELOW},
    {"view_dl_stats_nvtx", "stddev", "total_time", BELOW},
    {"view_dl_stats_nvtx_gpu_proj", "total_proj_time", "total_proj_time", EXACT},
    {"view_dl_stats_nvtx_gpu_proj", "total_range_time", "total_proj_time", NONE},
    {"view_dl_stats_nvtx_gpu_proj", "range_instances", "total_proj_time", NONE},
    {"view_dl_stats_nvtx_gpu_proj", "proj_avg", "total_proj_time", BELOW},
    {"view_dl_stats_nvtx_gpu_proj", "proj_med", "total_proj_time", BELOW},
    {"view_dl_stats_nvtx_gpu_proj", "proj_min", "total_proj_time", BELOW},
    {"view_dl_stats_nvtx_gpu_proj", "proj_max", "total_proj_time", BELOW},
    {"view_dl_stats_nvtx_gpu_proj", "proj_stddev", "total_proj_time", BELOW},
    {"view_dl_stats_nvtx_gpu_proj", "total_gpu_ops", "total_proj_time", NONE},
    {"view_dl_stats_nvtx_gpu_proj", "avg_gpu_ops", "total_proj_time", NONE},
    {"view_dl_stats_nvtx_gpu_proj", "avg_range_level", "total_proj_time", NONE},
    {"view_dl_stats_nvtx_gpu_proj", "avg_num_child", "total_proj_time", NONE},
};

static const numcol *numcol_of(const dldb_query *in) {
  for (size_t i = 0; in->sort && i < sizeof numcols / sizeof *numcols; i++)
    if (strcmp(numcols[i].view, in->view) == 0 && strcmp(numcols[i].col, in->sort) == 0)
      return &numcols[i];
  return NULL;
}

/* The most rows a page keeps (offset + limit) this way: deeper pages read
 * the view. */
#define TOP_MAX 1000000

static long double value_of(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_INTEGER ? (long double)sqlite3_column_int64(st, i)
                                                      : (long double)sqlite3_column_double(st, i);
}

/* The next row of a walk (upwards when up) from row `at` that the filter
 * keeps; -1 past the end. */
static int64_t next_match(const nvq *q, int64_t at, int up) {
  while (at >= 0 && at < q->n && q->match && !kept(q, at)) at += up ? 1 : -1;
  return at >= 0 && at < q->n ? at : -1;
}

/* Walks the rows in row_idx order (upwards when up) into t, by the column
 * c: one statement stepped from row to row, started again at the next
 * matching row where that is more than JUMP rows on (a seek costs about
 * as much as stepping over that many rows). The walk stops where neither
 * the row's bound nor any row after it can enter the full heap:
 * descending (a walk upwards), their values are at most the bound, and one
 * equal to the worst kept loses on row_idx; ascending (a walk downwards,
 * of a column equal to its bound), their values are at least the bound,
 * and one equal to the worst kept would win on row_idx. A walk that has
 * read more than READ_MAX rows, and 8 a row of the page, without an end
 * in sight gives up: the page's last rows tie with the rows to come
 * (stddev 0, say), where SQLite's sort of every row costs less. 1 when the
 * walk kept the rules, 0 when a row broke one or it gave up, or a negative
 * DL_E*. */
static int top_walk(nvq *q, const numcol *c, dldb__top *t, int up) {
  enum { JUMP = 8, READ_MAX = 1 << 16 };
  int64_t read = 0, read_max = 8 * t->k > READ_MAX ? 8 * t->k : READ_MAX;
  char sql[320];
  snprintf(sql, sizeof sql,
           "SELECT row_idx, \"%s\", \"%s\" FROM %s WHERE aggr_id = ?1 AND row_idx %s ?2 "
           "ORDER BY row_idx%s",
           c->total, c->col, q->v->view, up ? ">=" : "<=", up ? "" : " DESC");
  sqlite3_stmt *st = dldb__stmt_get(q->db, sql, q->err, q->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, q->in->aggr_id);
  int64_t step = up ? 1 : -1, want = next_match(q, up ? 0 : q->n - 1, up), at = -1;
  long double last = 0;
  int rc = 1, src = SQLITE_DONE, any = 0, exact = c->rule == EXACT;
  while (want >= 0) {
    if (at < 0 || (want - at) * step > JUMP) { /* (re)start at want */
      sqlite3_reset(st);
      sqlite3_bind_int64(st, 2, want);
      at = want - step;
    }
    if (++read > read_max) {
      rc = 0;
      break;
    }
    if ((src = sqlite3_step(st)) != SQLITE_ROW) break;
    int64_t row = sqlite3_column_int64(st, 0), total = sqlite3_column_int64(st, 1);
    long double x = value_of(st, 2), b = exact ? x : (long double)total;
    /* the rules: the rows in turn, totals at least 0, values at most the
     * total, the bound non-increasing upwards */
    if (row != at + step || total < 0 || (!exact && x > (long double)total) ||
        (any && (up ? b > last : b < last))) {
      rc = 0;
      break;
    }
    any = 1;
    last = b;
    at = row;
    if (row != want) continue; /* stepped over */
    if (dldb__top_beaten(t, b, up ? row : 0)) break;
    dldb__top_add(t, (dldb__trow){x, row});
    want = next_match(q, row + step, up);
  }
  if (rc == 1 && src != SQLITE_ROW && src != SQLITE_DONE) rc = sqlerr(q, src);
  dldb__stmt_done(st);
  if (rc == 1) dldb__top_sort(t);
  return rc;
}

/* The rows of q by the column c into t, sorted: 1, 0 when read the plain
 * way, or a negative DL_E*. The column's zone maps where the file has
 * them; else a walk in row_idx order where a rule bounds the rows to come
 * (descending: at most their total; ascending: equal to their bound). */
static int top_rows(nvq *q, const numcol *c, dldb__top *t) {
  if (c->rule != EXACT) {
    dldb__zpage z = {.view = q->v->view, .col = c->col, .kind = q->v->kind,
                     .aggr_id = q->in->aggr_id, .n = q->n, .keep = q->keep};
    int rc = dldb__nvtx_zpage(q->db, &z, t, q->err, q->errlen);
    if (rc) return rc;
    t->n = 0;
  }
  if (c->rule == NONE || (c->rule == BELOW && !t->desc)) return 0;
  return top_walk(q, c, t, t->desc);
}

/* The page of q sorted by the column c: 1 when read, 0 when it is read the
 * plain way (an order the rules do not give, too deep a page, a file that
 * breaks a rule), or a negative DL_E*. */
static int top_page(nvq *q, const numcol *c, dldb_row_fn fn, void *ctx) {
  const dldb_query *in = q->in;
  int64_t skip = in->offset > 0 ? in->offset : 0;
  if (c->rule == EXACT && in->desc) { /* row_idx order itself */
    int rc = page(q, 0, 0, fn, ctx);
    return rc ? rc : 1;
  }
  if (skip + in->limit > TOP_MAX) return 0;
  if ((q->match && !q->matched) || in->limit == 0) return 1;
  int rc = q->match ? load_forms(q) : DL_OK;
  if (rc) return rc;
  int64_t k = skip + in->limit;
  if (k > (q->match ? q->matched : q->n)) k = q->match ? q->matched : q->n;
  dldb__top t;
  if (dldb__top_init(&t, k, in->desc))
    return dl_err(q->err, q->errlen, DL_ENOMEM, "%s: out of memory", q->db->path);
  rc = top_rows(q, c, &t);
  for (int64_t i = skip; rc == 1 && i < t.n; i++) {
    int e = emit(q, t.h[i].row, fn, ctx);
    if (e) {
      rc = e < 0 ? e : 1;
      break;
    }
  }
  dldb__top_free(&t);
  return rc;
}

int dldb__nvtx_count(dldb *db, const dldb_query *in, int64_t *filtered, char *err,
                     size_t errlen) {
  if (!in->filter || !*in->filter) return 0;
  nvq q; /* a filter with digits: the file keeps its bits for the page (dldb_nvtxdmatch.c) */
  int rc = setup(&q, db, in, err, errlen);
  if (rc == 1) *filtered = q.matched;
  done(&q);
  return rc;
}

int dldb__nvtx_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                    size_t errlen) {
  int filtered = in->filter && *in->filter;
  int by_name = in->sort && strcmp(in->sort, "name") == 0;
  const numcol *c = numcol_of(in);
  if (!in->sort || (!by_name && !c && strcmp(in->sort, "row_idx") != 0) ||
      (!filtered && !by_name && !c) || in->limit < 0 || in->limit > PAGE_MAX)
    return 0;
  for (int i = 0; i < DLDB_MAX_TIEBREAK && in->tiebreak[i]; i++)
    if (i > 0 || strcmp(in->tiebreak[i], "row_idx") != 0) return 0;
  nvq q;
  int rc = setup(&q, db, in, err, errlen);
  if (rc == 1 && c) rc = top_page(&q, c, fn, ctx);
  else if (rc == 1 && (rc = page(&q, by_name, in->desc, fn, ctx)) == DL_OK) rc = 1;
  done(&q);
  return rc;
}
