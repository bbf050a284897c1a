/*
 * dldb_gplaces.c - the open aggregation's Group Ops orders (db/schema.sql
 * aggr_dl_group_orders): the aggr_group_ops rows in every order a page of
 * view_group_ops can ask for, among all the rows and among each parent's
 * (aggr_dl_group_parents), so that the viewer reads any page from the
 * rows at its places (dldb_gopage.c).
 *
 * The written rows are read once and each ascending order is sorted here,
 * by SQLite's rules for comparing values (NULL, then numbers, then text by
 * bytes, then blobs), rather than by one window-function statement an
 * order, which reads and sorts the rows again each time; each descending
 * order is made from its ascending one. The orders go in in primary-key
 * order, DLDB_GO_CHUNK places a row.
 * Ownership: nothing kept; the writer is borrowed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_chunks.h"
#include "dldb_write_internal.h"

/* view_group_ops' sortable columns (all but aggr_id and domain_name), in
 * BINARY order: the rows then append to the table's b-tree. */
static const char *const sort_cols[] = {
    "cpu_overhead_sum", "cpu_time_sum",     "gpu_idle_sum",           "gpu_time_sum",
    "level",            "num_op_instances", "num_supported_leaf_ops", "num_tc_leaf_ops",
    "row_full_id",      "row_full_name",    "row_trimmed_name",       "row_type",
};
#define NCOLS (sizeof sort_cols / sizeof *sort_cols)
#define COL_FULL_ID 8 /* sort_cols' row_full_id: the viewer's tie-break */

/* One stored value; text and blobs point into the rows' arena (off until
 * the arena stops growing). */
typedef struct {
  int type; /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL */
  int64_t i;
  double d;
  size_t off, n;
  const char *s;
} gp_val;

typedef struct {
  int64_t row_idx;
  gp_val v[NCOLS];
} gp_row;

/* A row in one order: its sort value, its tie-break, its parent (tree 1). */
typedef struct {
  const gp_row *r;
  const gp_val *key;
  const gp_val *parent; /* NULL in tree 0 */
  int desc;
} gp_ent;

/* A row of aggr_dl_group_parents: the parent, the index of its row in rows. */
typedef struct {
  gp_val v;
  size_t row;
} gp_par;

typedef struct {
  gp_row *rows;
  size_t n, cap;
  gp_par *parents; /* aggr_dl_group_parents' rows */
  size_t np, pcap;
  char *arena;
  size_t used, acap;
} gp_set;

static int cmp_num(double a, double b) { return a < b ? -1 : a > b; }

static int type_rank(int t) {
  return t == SQLITE_NULL ? 0 : t == SQLITE_TEXT ? 2 : t == SQLITE_BLOB ? 3 : 1;
}

/* SQLite's comparison of two values under BINARY. */
static int cmp_val(const gp_val *a, const gp_val *b) {
  int ra = type_rank(a->type), rb = type_rank(b->type);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (ra == 0) return 0;
  if (ra == 1) {
    if (a->type == SQLITE_INTEGER && b->type == SQLITE_INTEGER)
      return (a->i > b->i) - (a->i < b->i);
    double x = a->type == SQLITE_INTEGER ? (double)a->i : a->d;
    double y = b->type == SQLITE_INTEGER ? (double)b->i : b->d;
    return cmp_num(x, y);
  }
  size_t n = a->n < b->n ? a->n : b->n;
  int c = n ? memcmp(a->s, b->s, n) : 0;
  return c ? c : (a->n > b->n) - (a->n < b->n);
}

/* The order "ORDER BY [parent,] col [DESC], row_full_id, row_idx". */
static int cmp_ent(const void *pa, const void *pb) {
  const gp_ent *a = pa, *b = pb;
  int c = a->parent ? cmp_val(a->parent, b->parent) : 0;
  if (c) return c;
  if ((c = cmp_val(a->key, b->key))) return a->desc ? -c : c;
  if ((c = cmp_val(&a->r->v[COL_FULL_ID], &b->r->v[COL_FULL_ID]))) return c;
  return (a->r->row_idx > b->r->row_idx) - (a->r->row_idx < b->r->row_idx);
}

/* Reads column i of st into *v, its bytes appended to s's arena. */
static int get_val(gp_set *s, sqlite3_stmt *st, int i, gp_val *v) {
  memset(v, 0, sizeof *v);
  v->type = sqlite3_column_type(st, i);
  if (v->type == SQLITE_INTEGER) v->i = sqlite3_column_int64(st, i);
  else if (v->type == SQLITE_FLOAT) v->d = sqlite3_column_double(st, i);
  if (v->type != SQLITE_TEXT && v->type != SQLITE_BLOB) return DL_OK;
  const void *p = v->type == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, i)
                                         : sqlite3_column_blob(st, i);
  v->n = (size_t)sqlite3_column_bytes(st, i);
  if (s->used + v->n > s->acap) {
    size_t nc = s->acap ? s->acap : 4096;
    while (nc < s->used + v->n) nc *= 2;
    char *a = realloc(s->arena, nc);
    if (!a) return DL_ENOMEM;
    s->arena = a;
    s->acap = nc;
  }
  if (v->n) memcpy(s->arena + s->used, p, v->n);
  v->off = s->used;
  s->used += v->n;
  return DL_OK;
}

static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return DL_OK;
  size_t nc = *cap ? *cap * 2 : 256;
  void *q = realloc(*p, nc * size);
  if (!q) return DL_ENOMEM;
  *p = q;
  *cap = nc;
  return DL_OK;
}

static int prepare(dldb_writer *w, const char *sql, sqlite3_stmt **st, char *err, size_t errlen) {
  if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) == SQLITE_OK) return DL_OK;
  return dl_err(err, errlen, DL_EDB, "dldb_aggr_end: group ops' orders: %s", dldb__errmsg(w));
}

/* The aggregation's group ops, by row_idx. */
static int read_rows(dldb_writer *w, gp_set *s, char *err, size_t errlen) {
  char sql[512];
  int k = snprintf(sql, sizeof sql, "SELECT row_idx");
  for (size_t c = 0; c < NCOLS; c++)
    k += snprintf(sql + k, sizeof sql - (size_t)k, ", \"%s\"", sort_cols[c]);
  snprintf(sql + k, sizeof sql - (size_t)k,
           " FROM aggr_group_ops WHERE aggr_id = ?1 ORDER BY row_idx");
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, sql, &st, err, errlen), step = SQLITE_DONE;
  if (rc == DL_OK) sqlite3_bind_int64(st, 1, w->aggr_id);
  while (rc == DL_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
    if ((rc = grow((void **)&s->rows, &s->cap, s->n + 1, sizeof *s->rows))) break;
    gp_row *r = &s->rows[s->n++];
    r->row_idx = sqlite3_column_int64(st, 0);
    for (size_t c = 0; rc == DL_OK && c < NCOLS; c++) rc = get_val(s, st, (int)c + 1, &r->v[c]);
  }
  if (rc == DL_OK && step != SQLITE_DONE)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: group ops' orders: %s", dldb__errmsg(w));
  sqlite3_finalize(st);
  return rc;
}

/* The row of row_idx x in s (by binary search), or s->n. */
static size_t find_row(const gp_set *s, int64_t x) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->rows[mid].row_idx < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->n && s->rows[lo].row_idx == x ? lo : s->n;
}

/* The aggregation's parent rows whose group op exists (the old join). */
static int read_parents(dldb_writer *w, gp_set *s, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, "SELECT parent, row_idx FROM aggr_dl_group_parents WHERE aggr_id = ?1", &st,
                   err, errlen);
  int step = SQLITE_DONE;
  if (rc == DL_OK) sqlite3_bind_int64(st, 1, w->aggr_id);
  while (rc == DL_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
    size_t r = find_row(s, sqlite3_column_int64(st, 1));
    if (r == s->n) continue;
    if ((rc = grow((void **)&s->parents, &s->pcap, s->np + 1, sizeof *s->parents))) break;
    s->parents[s->np].row = r;
    rc = get_val(s, st, 0, &s->parents[s->np++].v);
  }
  if (rc == DL_OK && step != SQLITE_DONE)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: group ops' orders: %s", dldb__errmsg(w));
  sqlite3_finalize(st);
  return rc;
}

/* Points every text at the arena, now that it is whole ("" without one:
 * a NULL pointer would bind as NULL). */
static void fix_texts(gp_set *s) {
  for (size_t i = 0; i < s->n; i++)
    for (size_t c = 0; c < NCOLS; c++)
      s->rows[i].v[c].s = s->arena ? s->arena + s->rows[i].v[c].off : "";
  for (size_t i = 0; i < s->np; i++)
    s->parents[i].v.s = s->arena ? s->arena + s->parents[i].v.off : "";
}

static void bind_val(sqlite3_stmt *st, int i, const gp_val *v) {
  switch (v->type) {
  case SQLITE_INTEGER: sqlite3_bind_int64(st, i, v->i); break;
  case SQLITE_FLOAT: sqlite3_bind_double(st, i, v->d); break;
  case SQLITE_TEXT: sqlite3_bind_text(st, i, v->s, (int)v->n, SQLITE_STATIC); break;
  case SQLITE_BLOB: sqlite3_bind_blob(st, i, v->s, (int)v->n, SQLITE_STATIC); break;
  default: sqlite3_bind_null(st, i);
  }
}

/* An order's places go in DLDB_GO_CHUNK to a row (aggr_dl_group_orders):
 * the row_idx values as a JSON array, so that SQL reads them too
 * (json_each; view_dl_group_op_places). */
typedef struct {
  sqlite3_stmt *st;
  dldb_writer *w;
  char *err;
  size_t errlen;
} gp_ins;

static int prepare_ins(dldb_writer *w, sqlite3_stmt **st, char *err, size_t errlen) {
  return prepare(w,
                 "INSERT INTO aggr_dl_group_orders(aggr_id, sort_column, sort_desc, tree, parent, "
                 "chunk, n, row_idxs) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                 st, err, errlen);
}

/* Inserts the places of e[0..n-1], one parent's run (or all, tree 0). */
static int put_run(gp_ins *in, size_t col, int desc, int tree, const gp_ent *e, size_t n) {
  static const gp_val top = {SQLITE_TEXT, 0, 0, 0, 0, ""};
  const gp_val *parent = tree ? e[0].parent : &top;
  char text[DLDB_GO_CHUNK * 21 + 3]; /* "[" and up to 20 digits and "," each, "]" */
  sqlite3_stmt *st = in->st;
  for (size_t i = 0, chunk = 0; i < n; chunk++) {
    size_t len = 0, end = n - i > DLDB_GO_CHUNK ? i + DLDB_GO_CHUNK : n;
    text[len++] = '[';
    for (size_t first = i; i < end; i++) {
      if (i > first) text[len++] = ',';
      len += dldb__put_int(text + len, e[i].r->row_idx);
    }
    text[len++] = ']';
    sqlite3_bind_int64(st, 1, in->w->aggr_id);
    sqlite3_bind_text(st, 2, sort_cols[col], -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, desc);
    sqlite3_bind_int(st, 4, tree);
    bind_val(st, 5, parent);
    sqlite3_bind_int64(st, 6, (int64_t)chunk);
    sqlite3_bind_int64(st, 7, (int64_t)n);
    sqlite3_bind_text(st, 8, text, (int)len, SQLITE_STATIC);
    int s = sqlite3_step(st);
    sqlite3_reset(st);
    if (s != SQLITE_DONE)
      return dl_err(in->err, in->errlen, DL_EDB, "dldb_aggr_end: group ops' orders: %s",
                    dldb__errmsg(in->w));
  }
  return DL_OK;
}

/* Inserts the places of the sorted e[0..n-1]: numbered from 0 in each
 * parent's run (tree 1), or across all (tree 0). */
static int write_order(gp_ins *in, size_t col, int desc, int tree, const gp_ent *e, size_t n) {
  int rc = DL_OK;
  for (size_t i = 0, run = 0; rc == DL_OK && i < n; i++)
    if (i + 1 == n || (tree && cmp_val(e[i].parent, e[i + 1].parent))) {
      rc = put_run(in, col, desc, tree, e + run, i + 1 - run);
      run = i + 1;
    }
  return rc;
}

/* The descending order d from the ascending a[0..n-1] of one column, no
 * sort: in each parent's run, its runs of equal values last first, each
 * in its own order (the tie-break, row_full_id then row_idx, ascends in
 * both orders). */
static void descending(const gp_ent *a, gp_ent *d, size_t n, int tree) {
  for (size_t i = 0, out = 0; i < n;) {
    size_t j = i + 1; /* the parent's run: [i, j) */
    while (j < n && !(tree && cmp_val(a[j - 1].parent, a[j].parent))) j++;
    for (size_t hi = j; hi > i;) {
      size_t lo = hi - 1;
      while (lo > i && cmp_val(a[lo - 1].key, a[lo].key) == 0) lo--;
      for (size_t k = lo; k < hi; k++, out++) {
        d[out] = a[k];
        d[out].desc = 1;
      }
      hi = lo;
    }
    i = j;
  }
}

/* Every order of every column, in the table's key order: a column's two
 * ascending orders (all rows, then by parent) sorted, its descending ones
 * made from them. */
static int write_all(dldb_writer *w, const gp_set *s, char *err, size_t errlen) {
  size_t cap = s->n > s->np ? s->n : s->np;
  gp_ent *asc[2] = {malloc((s->n ? s->n : 1) * sizeof **asc),
                    malloc((s->np ? s->np : 1) * sizeof **asc)};
  gp_ent *d = malloc((cap ? cap : 1) * sizeof *d);
  gp_ins in = {NULL, w, err, errlen};
  int rc = asc[0] && asc[1] && d ? DL_OK
                                 : dl_err(err, errlen, DL_ENOMEM, "dldb_aggr_end: out of memory");
  if (rc == DL_OK) rc = prepare_ins(w, &in.st, err, errlen);
  for (size_t c = 0; rc == DL_OK && c < NCOLS; c++) {
    for (int tree = 0; rc == DL_OK && tree < 2; tree++) {
      size_t n = tree ? s->np : s->n;
      gp_ent *e = asc[tree];
      for (size_t i = 0; i < n; i++) {
        const gp_row *r = &s->rows[tree ? s->parents[i].row : i];
        e[i] = (gp_ent){r, &r->v[c], tree ? &s->parents[i].v : NULL, 0};
      }
      qsort(e, n, sizeof *e, cmp_ent);
      rc = write_order(&in, c, 0, tree, e, n);
    }
    for (int tree = 0; rc == DL_OK && tree < 2; tree++) {
      size_t n = tree ? s->np : s->n;
      descending(asc[tree], d, n, tree);
      rc = write_order(&in, c, 1, tree, d, n);
    }
  }
  sqlite3_finalize(in.st);
  free(asc[0]);
  free(asc[1]);
  free(d);
  return rc;
}

int dldb__group_places(dldb_writer *w, char *err, size_t errlen) {
  if (!dldb__has_table(w, "aggr_dl_group_orders") || !dldb__has_table(w, "aggr_dl_group_parents"))
    return DL_OK;
  gp_set s = {0};
  int rc = read_rows(w, &s, err, errlen);
  if (rc == DL_OK) rc = read_parents(w, &s, err, errlen);
  if (rc == DL_ENOMEM) rc = dl_err(err, errlen, DL_ENOMEM, "dldb_aggr_end: out of memory");
  if (rc == DL_OK) {
    fix_texts(&s);
    rc = write_all(w, &s, err, errlen);
  }
  free(s.rows);
  free(s.parents);
  free(s.arena);
  return rc;
}
