/*
 * dldb_query.c - bounded, parameterised queries on a dldb's views.
 *
 * A dldb_query becomes one SELECT on one view (see dldb.h for its shape).
 * Column names come only from the view's own column list (PRAGMA
 * table_info, cached per handle) and are quoted; every value is bound.
 * Statements are prepared once per handle and SQL text and reused
 * (dldb_handle.c); counts are cached per query and shared by the handles of
 * one file (dldb_shared.c), since the file does not change while the viewer
 * serves it. Column types:
 * the declared type when there is one
 * (INT/BOOL -> integer, REAL/FLOA/DOUB -> real, TEXT/CHAR/CLOB/STRING -> text),
 * else the storage class of the view's first row (NVIDIA's views declare no
 * type for computed columns such as kernel_duration or grid).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_read.h"

/* ---- A growing SQL text -------------------------------------------------- */

typedef struct sbuf {
  char *s;
  size_t len, cap;
  int oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = 1;
      return;
    }
    if (b->s && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = (b->cap ? b->cap : 256) * 2 + (size_t)n;
    char *ns = realloc(b->s, cap);
    if (!ns) {
      b->oom = 1;
      return;
    }
    b->s = ns;
    b->cap = cap;
  }
}

/* An identifier in double quotes (names come from the view, but quote anyway). */
static void sb_ident(sbuf *b, const char *name) {
  sb_add(b, "\"");
  for (const char *p = name; *p; p++) sb_add(b, *p == '"' ? "\"\"" : "%c", *p);
  sb_add(b, "\"");
}

/* ---- View columns -------------------------------------------------------- */

static dldb_coltype declared_type(const char *decl) {
  char up[32];
  size_t i = 0;
  for (; decl && decl[i] && i < sizeof up - 1; i++) up[i] = (char)toupper((unsigned char)decl[i]);
  up[i] = '\0';
  if (!up[0]) return 0;
  if (strstr(up, "INT") || strstr(up, "BOOL")) return DLDB_COL_INTEGER;
  if (strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB")) return DLDB_COL_REAL;
  if (strstr(up, "TEXT") || strstr(up, "CHAR") || strstr(up, "CLOB") || strstr(up, "STRING"))
    return DLDB_COL_TEXT;
  return DLDB_COL_INTEGER; /* NUMERIC and the like */
}

/* Fills the types of untyped columns from the storage class of row one. */
static int sample_types(dldb *db, dldb__viewcols *v, char *err, size_t errlen) {
  sbuf b = {0};
  sqlite3_stmt *st = NULL;
  int rc = DL_OK, any = 0;
  sb_add(&b, "SELECT ");
  for (int c = 0; c < v->n; c++) {
    if (v->types[c]) continue;
    sb_add(&b, "%stypeof(", any++ ? ", " : "");
    sb_ident(&b, v->names[c]);
    sb_add(&b, ")");
  }
  if (!any) goto out;
  sb_add(&b, " FROM ");
  sb_ident(&b, v->view);
  sb_add(&b, " LIMIT 1");
  if (b.oom) {
    rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    goto out;
  }
  int src = sqlite3_prepare_v2(db->sql, b.s, -1, &st, NULL);
  if (src == SQLITE_OK) src = sqlite3_step(st);
  if (src != SQLITE_ROW && src != SQLITE_DONE) {
    rc = dldb__sql_err(db, src, v->view, err, errlen);
    goto out;
  }
  for (int c = 0, k = 0; c < v->n; c++) {
    if (v->types[c]) continue;
    const char *t = src == SQLITE_ROW ? (const char *)sqlite3_column_text(st, k++) : NULL;
    v->types[c] = t && strcmp(t, "text") == 0   ? DLDB_COL_TEXT
                  : t && strcmp(t, "real") == 0 ? DLDB_COL_REAL
                                                : DLDB_COL_INTEGER;
  }
out:
  sqlite3_finalize(st);
  free(b.s);
  return rc;
}

/* Reads the columns of view into a new cache entry. */
static int load_columns(dldb *db, const char *view, dldb__viewcols **out, char *err,
                        size_t errlen) {
  dldb__viewcols *nv = realloc(db->views, (size_t)(db->n_views + 1) * sizeof *nv);
  if (!nv) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  db->views = nv;
  dldb__viewcols *v = &nv[db->n_views];
  memset(v, 0, sizeof *v);
  v->view = strdup(view);
  if (!v->view) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  db->n_views++;
  sqlite3_stmt *st =
      dldb__stmt_get(db, "SELECT name, type FROM pragma_table_info(?1)", err, errlen);
  if (!st) return DL_EDB;
  int rc = DL_OK, src;
  sqlite3_bind_text(st, 1, view, -1, SQLITE_STATIC);
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    char **names = realloc(v->names, (size_t)(v->n + 1) * sizeof *names);
    dldb_coltype *types = names ? realloc(v->types, (size_t)(v->n + 1) * sizeof *types) : NULL;
    if (names) v->names = names;
    if (types) v->types = types;
    const char *name = (const char *)sqlite3_column_text(st, 0);
    char *copy = names && types ? strdup(name ? name : "") : NULL;
    if (!copy) {
      rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
      break;
    }
    v->names[v->n] = copy;
    v->types[v->n] = declared_type((const char *)sqlite3_column_text(st, 1));
    v->n++;
  }
  if (!rc && src != SQLITE_DONE) rc = dldb__sql_err(db, src, view, err, errlen);
  dldb__stmt_done(st);
  *out = v;
  return rc;
}

/* The types of v's untyped columns, sampled once, when first needed: the
 * sample reads a row of the view, which costs a whole sort for a view with
 * an ORDER BY (seconds on a big dldb), so a presence check does not take it. */
static int ensure_types(dldb *db, dldb__viewcols *v, char *err, size_t errlen) {
  if (v->sampled || v->n == 0) return DL_OK;
  v->sampled = 1;
  return sample_types(db, v, err, errlen);
}

/* Empties an entry whose columns could not be read (it then reads as missing). */
static void viewcols_forget(dldb__viewcols *v) {
  for (int c = 0; c < v->n; c++) free(v->names[c]);
  v->n = 0;
}

static dldb__viewcols *find_view(dldb *db, const char *view) {
  for (int i = 0; i < db->n_views; i++)
    if (strcmp(db->views[i].view, view) == 0) return &db->views[i];
  return NULL;
}

int dldb_view_columns(dldb *db, const char *view, const char *const **names,
                      const dldb_coltype **types) {
  dldb__viewcols *v = find_view(db, view);
  if (!v) {
    int rc = load_columns(db, view, &v, NULL, 0);
    if (rc) {
      if (v) viewcols_forget(v); /* remembered as unreadable */
      return rc;
    }
  }
  if (v->n == 0) return DL_ENOTFOUND;
  if (types) {
    int rc = ensure_types(db, v, NULL, 0);
    if (rc) {
      viewcols_forget(v); /* unreadable: it reads as missing, as before */
      return rc;
    }
  }
  if (names) *names = (const char *const *)v->names;
  if (types) *types = v->types;
  return v->n;
}

int dldb_has_view(dldb *db, const char *view) { return dldb_view_columns(db, view, NULL, NULL) > 0; }

static int col_index(const dldb__viewcols *v, const char *name) {
  for (int c = 0; name && c < v->n; c++)
    if (strcmp(v->names[c], name) == 0) return c;
  return -1;
}

/* ---- Building one query -------------------------------------------------- */

typedef struct bound {
  int type; /* DLDB_COL_* */
  int64_t i;
  double d;
  const char *s;
} bound;

enum { MAX_BOUND = 8 + DLDB_MAX_EQ };
/* What a built statement selects: the rows; count(*) without or with the
 * filter; the sum of `calls` without or with it (a view whose rows each
 * stand for `calls` rows of the queried view); the sort column of the row
 * at the offset (the seek of a deep page); the count, without the filter,
 * as 1 + the last row_idx (a view whose row_idx is 0..n-1, dense_views). */
enum { Q_ROWS, Q_COUNT_TOTAL, Q_COUNT_FILTERED, Q_SUM_TOTAL, Q_SUM_FILTERED, Q_SEEK, Q_COUNT_LAST };

/* Where a statement reads and what it adds to the query's conditions: from
 * (NULL: the queried view) has the queried view's constrained columns; with
 * range_op, "range_col range_op range_value" is one more condition; offset
 * >= 0 replaces the query's. */
typedef struct plan {
  const char *from;
  const char *range_col, *range_op;
  int64_t range_value;
  int64_t offset;
  int indexed;         /* 1: states the condition of the partial indexes (time, iteration ops) */
  /* within: a key view; the rows whose sort column is in [lo, hi], found
   * there and read by `at` (a column of both); or, with within_json, by
   * the `at` values of that JSON array */
  const char *within, *at, *within_json;
  int64_t lo, hi;
  /* 1: the domain and column filters are stated as always true to SQLite's
   * planner (likelihood() 1.0; they still filter), so that it reads the
   * rows in the order's index and stops at the page, as for a whole
   * aggregation, rather than sorting every row that meets them */
  int likely_eq;
  /* 1: the order's terms as +column, which no index serves: SQLite sorts
   * the rows the conditions find (an iteration's, by the primary key)
   * rather than walking an order's index over every row to find them */
  int sort_found;
  /* a name index (from, with the queried view's columns): its column that
   * MATCH reads; the filter's rows are those it finds, each matched too */
  const char *match;
} plan;

/* The condition of db/schema.sql's partial index aggr_kernels_by_time, as
 * its text (a condition on aggr_id, so that a range on the time column is
 * the index's bound): SQLite uses the index only for a query that states
 * it. */
#define DLDB__TIME_INDEX_COND "\"aggr_id\" > -1"

typedef struct built {
  sbuf sql;
  bound b[MAX_BOUND];
  int nb;
  char *filter_lc; /* owned: the lower-cased filter */
  char *match;     /* owned: the filter as the name index's query */
} built;

static void built_free(built *q) {
  free(q->sql.s);
  free(q->filter_lc);
  free(q->match);
}

static int bind_value(built *q, dldb_coltype type, const char *column, const char *value,
                      char *err, size_t errlen) {
  bound *b = &q->b[q->nb];
  char *end = NULL;
  b->type = type;
  b->s = value;
  errno = 0;
  if (type == DLDB_COL_INTEGER) {
    b->i = strtoll(value, &end, 10);
    if (!*value || *end || errno)
      return dl_err(err, errlen, DL_EINVAL, "%s must be an integer", column);
  } else if (type == DLDB_COL_REAL) {
    b->d = strtod(value, &end);
    if (!*value || *end || errno || !isfinite(b->d))
      return dl_err(err, errlen, DL_EINVAL, "%s must be a number", column);
  }
  sb_add(&q->sql, "?%d", ++q->nb);
  return DL_OK;
}

static void sb_where(built *q, int *first) {
  sb_add(&q->sql, *first ? " WHERE " : " AND ");
  *first = 0;
}

/* The rows of in whose sort column is in [pl->lo, pl->hi]: those of the
 * key view's rows in that range, by their `at` column (its index), and of
 * those the ones in the range (`at` need not be unique). */
static void sb_within(built *q, int *first, const dldb_query *in, const plan *pl) {
  int lo = q->nb + 1, hi = q->nb + 2, aggr = q->nb + 3;
  q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = pl->lo};
  q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = pl->hi};
  sb_where(q, first);
  sb_ident(&q->sql, in->sort);
  sb_add(&q->sql, " BETWEEN ?%d AND ?%d AND ", lo, hi);
  sb_ident(&q->sql, pl->at);
  if (pl->within_json) {
    q->b[q->nb++] = (bound){.type = DLDB_COL_TEXT, .s = pl->within_json};
    sb_add(&q->sql, " IN (SELECT value FROM json_each(?%d))", q->nb);
    return;
  }
  q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = in->aggr_id};
  sb_add(&q->sql, " IN (SELECT ");
  sb_ident(&q->sql, pl->at);
  sb_add(&q->sql, " FROM ");
  sb_ident(&q->sql, pl->within);
  sb_add(&q->sql, " WHERE \"aggr_id\" = ?%d AND ", aggr);
  sb_ident(&q->sql, in->sort);
  sb_add(&q->sql, " BETWEEN ?%d AND ?%d)", lo, hi);
}

static int cols_err(dldb *db, const char *view, int n, char *err, size_t errlen) {
  if (n == DL_ENOTFOUND) return dl_err(err, errlen, DL_ENOTFOUND, "%s has no %s", db->path, view);
  return dl_err(err, errlen, n, "%s: cannot read the columns of %s", db->path, view);
}

/* The columns of views a and b (b NULL: a's) into *va and *vb, read once
 * per handle. Both are read before either is looked up: reading one may
 * move the handle's entries. */
static int view_cols(dldb *db, const char *a, const char *b, dldb__viewcols **va,
                     dldb__viewcols **vb, char *err, size_t errlen) {
  int n = dldb_view_columns(db, a, NULL, NULL);
  if (n < 0) return cols_err(db, a, n, err, errlen);
  if (b && (n = dldb_view_columns(db, b, NULL, NULL)) < 0) return cols_err(db, b, n, err, errlen);
  *va = find_view(db, a);
  *vb = b ? find_view(db, b) : *va;
  return DL_OK;
}

static void sb_head(built *q, int mode, const char *sort) {
  if (mode == Q_ROWS) sb_add(&q->sql, "SELECT * FROM ");
  else if (mode == Q_SUM_TOTAL || mode == Q_SUM_FILTERED)
    sb_add(&q->sql, "SELECT coalesce(sum(\"calls\"), 0) FROM ");
  else if (mode == Q_SEEK) {
    sb_add(&q->sql, "SELECT ");
    sb_ident(&q->sql, sort);
    sb_add(&q->sql, " FROM ");
  } else if (mode == Q_COUNT_LAST) {
    sb_add(&q->sql, "SELECT coalesce((SELECT \"row_idx\" + 1 FROM ");
  } else sb_add(&q->sql, "SELECT count(*) FROM ");
}

/* The terms of the name filter (bound at ?fb) on the filter's columns of
 * v, of table qual (NULL: unqualified): "(a OR b ...)", "0)" when v has
 * none (nothing matches). name_id: the name is that string of `strings`. */
static void sb_match(built *q, const dldb_query *in, const dldb__viewcols *v,
                     const dldb__viewcols *f, const char *qual, int fb) {
  sb_add(&q->sql, "(");
  int terms = 0;
  for (int i = 0; i < DLDB_MAX_FILTER_COLS && in->filter_cols[i]; i++) {
    int c = col_index(v, in->filter_cols[i]);
    if (c < 0) continue;
    sb_add(&q->sql, "%s", terms++ ? " OR " : "");
    int by_id = strcmp(v->names[c], "name") == 0 && col_index(f, "name_id") >= 0;
    sb_add(&q->sql, by_id ? "dldb_strmatch(" : "instr(lower(");
    if (qual) {
      sb_ident(&q->sql, qual);
      sb_add(&q->sql, ".");
    }
    sb_ident(&q->sql, by_id ? "name_id" : v->names[c]);
    sb_add(&q->sql, by_id ? ", ?%d)" : "), ?%d) > 0", fb);
  }
  sb_add(&q->sql, terms ? ")" : "0)");
}

/* ---- A tree of names (view_group_ops) -------------------------------------
 * A row's parent is the group (row_type 1) whose row_full_name is the row's
 * own up to its last '/' but a trailing one ("/a/b/" and "/a/c" are in
 * "/a/"; "/" and "x" are at the top). rtrim(s, replace(s, '/', '')) is s up
 * to its last '/' (trimming every character but '/' from its end). A row
 * whose parent is no group of the aggregation is at the top too. */

#define DLDB__TREE_NAME "row_full_name"
/* A tree view's stored parent (DLDB__TREE_VIEW): the parent's name, '' at the top. */
#define DLDB__TREE_PARENT "tree_parent"

/* The parent name of table qual's row, as SQL. */
static void sb_parent(built *q, const char *qual) {
  sbuf *b = &q->sql;
  for (int i = 0; i < 2; i++) { /* rtrim(S, replace(S, '/', '')) */
    sb_add(b, i ? ", replace(" : "rtrim(");
    sb_add(b, "CASE WHEN substr(");
    sb_ident(b, qual);
    sb_add(b, ".\"" DLDB__TREE_NAME "\", -1) = '/' THEN substr(");
    sb_ident(b, qual);
    sb_add(b, ".\"" DLDB__TREE_NAME "\", 1, length(");
    sb_ident(b, qual);
    sb_add(b, ".\"" DLDB__TREE_NAME "\") - 1) ELSE ");
    sb_ident(b, qual);
    sb_add(b, ".\"" DLDB__TREE_NAME "\" END");
  }
  sb_add(b, ", '/', ''))");
}

/* " FROM view AS dldb_t WHERE <the rows of the query's aggregation and
 * domain, bound at ?ab and ?db (0: none)>" */
static void sb_same_scope(built *q, const char *view, int ab, int db) {
  sb_add(&q->sql, " FROM ");
  sb_ident(&q->sql, view);
  sb_add(&q->sql, " AS dldb_t WHERE 1");
  if (ab) sb_add(&q->sql, " AND dldb_t.aggr_id = ?%d", ab);
  if (db) sb_add(&q->sql, " AND dldb_t.domain_name = ?%d", db);
}

/* The condition: the rows under in->tree_parent ("": at the top); stored:
 * the view has each row's parent (DLDB__TREE_PARENT). */
static void sb_tree(built *q, int *first, const dldb_query *in, const char *view, int ab, int db,
                    int stored) {
  sb_where(q, first);
  if (stored) {
    q->b[q->nb++] = (bound){.type = DLDB_COL_TEXT, .s = in->tree_parent};
    sb_add(&q->sql, "\"" DLDB__TREE_PARENT "\" = ?%d", q->nb);
    return;
  }
  if (*in->tree_parent) {
    q->b[q->nb++] = (bound){.type = DLDB_COL_TEXT, .s = in->tree_parent};
    sb_parent(q, view);
    sb_add(&q->sql, " = ?%d", q->nb);
    return;
  }
  /* a parent '' (none) or no group's name ('' is none: the test once) */
  sb_parent(q, view);
  sb_add(&q->sql, " NOT IN (SELECT dldb_t.\"" DLDB__TREE_NAME "\"");
  sb_same_scope(q, view, ab, db);
  sb_add(&q->sql, " AND dldb_t.\"row_type\" = 1 AND dldb_t.\"" DLDB__TREE_NAME "\" <> '')");
}

/* The filter of a tree: a row matches, or it is a group with a matching
 * row below it (so that the way down to each match stays). */
static void sb_tree_match(built *q, const dldb_query *in, const dldb__viewcols *v, const char *view,
                          int ab, int db, int fb) {
  sb_add(&q->sql, "(");
  sb_match(q, in, v, v, view, fb);
  sb_add(&q->sql, " OR (");
  sb_ident(&q->sql, view);
  sb_add(&q->sql, ".\"row_type\" = 1 AND EXISTS (SELECT 1");
  sb_same_scope(q, view, ab, db);
  sb_add(&q->sql, " AND length(dldb_t.\"" DLDB__TREE_NAME "\") > length(");
  sb_ident(&q->sql, view);
  sb_add(&q->sql, ".\"" DLDB__TREE_NAME "\") AND substr(dldb_t.\"" DLDB__TREE_NAME "\", 1, length(");
  sb_ident(&q->sql, view);
  sb_add(&q->sql, ".\"" DLDB__TREE_NAME "\")) = ");
  sb_ident(&q->sql, view);
  sb_add(&q->sql, ".\"" DLDB__TREE_NAME "\" AND ");
  sb_match(q, in, v, v, "dldb_t", fb);
  sb_add(&q->sql, ")))");
}

static int build(dldb *db, const dldb_query *in, int mode, const plan *pl, built *q, char *err,
                 size_t errlen) {
  memset(q, 0, sizeof *q);
  /* v: the columns of the queried view, which pick the filter's columns;
   * f: those of the view read (pl->from), which has every column used */
  dldb__viewcols *v = NULL, *f = NULL;
  int vrc = view_cols(db, in->view, pl ? pl->from : NULL, &v, &f, err, errlen);
  if (vrc) return vrc;
  if (in->n_eq > 0) {
    int rc = ensure_types(db, f, err, errlen);
    if (rc) return rc;
  }
  int first = 1, ab = 0, db_b = 0; /* ab, db_b: where aggr_id and domain are bound */
  int tree = in->tree_parent && col_index(f, DLDB__TREE_NAME) >= 0 && col_index(f, "row_type") >= 0;
  if (in->tree_parent && !tree)
    return dl_err(err, errlen, DL_EINVAL, "%s is no tree of names", f->view);
  int filtered = mode == Q_ROWS || mode == Q_COUNT_FILTERED || mode == Q_SUM_FILTERED;
  /* rows found by within: read in `at` order (its index), then sorted */
  int nested = mode == Q_ROWS && pl && (pl->within || pl->within_json);
  if (nested) sb_add(&q->sql, "SELECT * FROM (");
  if (mode == Q_ROWS && f != v && (col_index(f, DLDB__TREE_PARENT) >= 0 || (pl && pl->match))) {
    sb_add(&q->sql, "SELECT "); /* the rows as the queried view has them */
    for (int c = 0; c < v->n; c++) {
      sb_add(&q->sql, c ? ", " : "");
      sb_ident(&q->sql, v->names[c]);
    }
    sb_add(&q->sql, " FROM ");
  } else sb_head(q, mode, in->sort);
  sb_ident(&q->sql, f->view);
  if (in->aggr_id >= 0 && col_index(f, "aggr_id") >= 0) {
    sb_where(q, &first);
    sb_add(&q->sql, "aggr_id = ?%d", q->nb + 1);
    q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = in->aggr_id};
    ab = q->nb;
  }
  if (in->domain && col_index(f, "domain_name") >= 0) {
    sb_where(q, &first);
    sb_add(&q->sql, pl && pl->likely_eq ? "likelihood(domain_name = ?%d, 1.0)" : "domain_name = ?%d",
           q->nb + 1);
    q->b[q->nb++] = (bound){.type = DLDB_COL_TEXT, .s = in->domain};
    db_b = q->nb;
  }
  for (int i = 0; i < in->n_eq && i < DLDB_MAX_EQ; i++) {
    int c = col_index(f, in->eq[i].column);
    if (c < 0)
      return dl_err(err, errlen, DL_EINVAL, "%s has no column %s", f->view,
                    in->eq[i].column ? in->eq[i].column : "(null)");
    sb_where(q, &first);
    if (pl && pl->likely_eq) sb_add(&q->sql, "likelihood(");
    sb_ident(&q->sql, f->names[c]);
    sb_add(&q->sql, " = ");
    int rc = bind_value(q, f->types[c], f->names[c], in->eq[i].value ? in->eq[i].value : "", err,
                        errlen);
    if (rc) return rc;
    if (pl && pl->likely_eq) sb_add(&q->sql, ", 1.0)");
  }
  if (pl && pl->indexed) {
    sb_where(q, &first);
    sb_add(&q->sql, DLDB__TIME_INDEX_COND);
  }
  if (pl && (pl->within || pl->within_json)) sb_within(q, &first, in, pl);
  if (pl && pl->range_op) {
    sb_where(q, &first);
    sb_ident(&q->sql, pl->range_col);
    sb_add(&q->sql, " %s ?%d", pl->range_op, q->nb + 1);
    q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = pl->range_value};
  }
  if (tree) sb_tree(q, &first, in, f->view, ab, db_b, col_index(f, DLDB__TREE_PARENT) >= 0);
  if (filtered && pl && pl->match && in->filter && *in->filter) {
    if (!(q->match = dldb__nameidx_string(in->filter)))
      return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    q->b[q->nb++] = (bound){.type = DLDB_COL_TEXT, .s = q->match};
    sb_where(q, &first);
    sb_ident(&q->sql, pl->match);
    sb_add(&q->sql, " MATCH ?%d", q->nb);
  }
  if (filtered && in->filter && *in->filter) {
    q->filter_lc = strdup(in->filter);
    if (!q->filter_lc) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    for (char *p = q->filter_lc; *p; p++) *p = (char)tolower((unsigned char)*p);
    q->b[q->nb++] = (bound){.type = DLDB_COL_TEXT, .s = q->filter_lc};
    sb_where(q, &first);
    if (tree) sb_tree_match(q, in, v, f->view, ab, db_b, q->nb);
    else sb_match(q, in, v, f, NULL, q->nb);
  }
  int64_t offset = pl && pl->offset >= 0 ? pl->offset : in->offset;
  if (mode == Q_COUNT_LAST) sb_add(&q->sql, " ORDER BY \"row_idx\" DESC LIMIT 1), 0)");
  if (mode == Q_SEEK) { /* the sort column alone, in its index's order */
    sb_add(&q->sql, " ORDER BY ");
    sb_ident(&q->sql, in->sort);
    sb_add(&q->sql, "%s LIMIT 1 OFFSET ?%d", in->desc ? " DESC" : "", q->nb + 1);
    q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = offset};
  }
  if (nested) {
    sb_add(&q->sql, " ORDER BY ");
    sb_ident(&q->sql, pl->at);
    sb_add(&q->sql, " LIMIT -1)"); /* a limit: not flattened into the outer query */
  }
  if (mode == Q_ROWS) {
    int terms = 0;
    const char *order[1 + DLDB_MAX_TIEBREAK] = {in->sort};
    for (int i = 0; i < DLDB_MAX_TIEBREAK && in->tiebreak[i]; i++) order[i + 1] = in->tiebreak[i];
    for (int i = 0; i < 1 + DLDB_MAX_TIEBREAK; i++) {
      if (!order[i]) continue;
      int c = col_index(v, order[i]);
      if (c < 0) return dl_err(err, errlen, DL_EINVAL, "%s has no column %s", in->view, order[i]);
      int dim3 = strcmp(v->names[c], "grid") == 0 || strcmp(v->names[c], "block") == 0;
      sb_add(&q->sql, terms++ ? ", " : " ORDER BY ");
      if (strcmp(v->names[c], "name") == 0 && col_index(v, "name_id") >= 0) {
        sb_add(&q->sql, "dldb_strrank(\"name_id\")%s", i == 0 && in->desc ? " DESC" : "");
        continue; /* the order of name: see dldb_strrank() */
      }
      sb_add(&q->sql, dim3 ? "dldb_dim3(" : pl && pl->sort_found ? "+" : "");
      sb_ident(&q->sql, v->names[c]);
      sb_add(&q->sql, "%s%s", dim3 ? ")" : "", i == 0 && in->desc ? " DESC" : "");
    }
    if (in->limit >= 0 || offset > 0) {
      sb_add(&q->sql, " LIMIT ?%d OFFSET ?%d", q->nb + 1, q->nb + 2);
      q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = in->limit >= 0 ? in->limit : -1};
      q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = offset > 0 ? offset : 0};
    }
  }
  if (q->sql.oom) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  return DL_OK;
}

static void bind_all(sqlite3_stmt *st, const built *q) {
  for (int i = 0; i < q->nb; i++) {
    const bound *b = &q->b[i];
    if (b->type == DLDB_COL_INTEGER) sqlite3_bind_int64(st, i + 1, b->i);
    else if (b->type == DLDB_COL_REAL) sqlite3_bind_double(st, i + 1, b->d);
    else sqlite3_bind_text(st, i + 1, b->s, -1, SQLITE_STATIC);
  }
}

/* The count cache key: SQL text, then each bound value. */
static char *count_key(const built *q) {
  sbuf k = {0};
  sb_add(&k, "%s", q->sql.s);
  for (int i = 0; i < q->nb; i++) {
    const bound *b = &q->b[i];
    if (b->type == DLDB_COL_INTEGER) sb_add(&k, "\x1f%lld", (long long)b->i);
    else if (b->type == DLDB_COL_REAL) sb_add(&k, "\x1f%.17g", b->d);
    else sb_add(&k, "\x1f%s", b->s);
  }
  if (k.oom) {
    free(k.s);
    return NULL;
  }
  return k.s;
}

/* ---- Cheaper reads of the big kernel views -------------------------------
 * view_iteration_kernels and view_iteration_op_kernels have a row per kernel
 * launch of the aggregation, each through a 7-way join: counting them or
 * skipping to a deep page that way costs the whole aggregation. Our dldbs
 * have, beside them, a view of their rows' keys (one row per row, with the
 * index of the launch order) and a view of their rows per op and kernel
 * name (`calls`); a query whose conditions those views can evaluate reads
 * them instead, with the same result (tests/server compare them with the
 * plain query). Files without them (NVIDIA's, older dlprof's) read the big
 * view as before. */

typedef struct keyview {
  const char *view;   /* the big view */
  const char *keys;   /* one row per row of view, ordered by `order` through an index */
  const char *order;  /* a column of both */
  const char *calls;  /* per op and kernel name: `calls` rows of view */
} keyview;

static const keyview keyviews[] = {
    {"view_iteration_kernels", "view_dl_kernel_times", "kernel_timestamp", "view_dl_kernel_calls"},
    {"view_iteration_op_kernels", "view_dl_kernel_times", "kernel_timestamp",
     "view_dl_kernel_calls"},
};

/* A deep page seeks its place from this offset on. */
enum { SEEK_MIN_OFFSET = 1000 };

static const keyview *keyview_of(const char *view) {
  for (size_t i = 0; i < sizeof keyviews / sizeof *keyviews; i++)
    if (strcmp(keyviews[i].view, view) == 0) return &keyviews[i];
  return NULL;
}

/* 1 when target exists and has every column in's conditions name: its
 * column filters and, with_filter, the filter's columns in in->view. */
static int evaluates(dldb *db, const dldb_query *in, const char *target, int with_filter) {
  dldb__viewcols *t = NULL, *v = NULL;
  if (!target || view_cols(db, in->view, target, &v, &t, NULL, 0) || t->n == 0) return 0;
  for (int i = 0; i < in->n_eq; i++)
    if (col_index(t, in->eq[i].column) < 0) return 0;
  if (with_filter && in->filter && *in->filter)
    for (int i = 0; i < DLDB_MAX_FILTER_COLS && in->filter_cols[i]; i++)
      if (col_index(v, in->filter_cols[i]) >= 0 &&
          (col_index(t, in->filter_cols[i]) < 0 || strcmp(in->filter_cols[i], "name") == 0))
        return 0;
  return 1;
}

/* Our views whose row_idx numbers an aggregation's rows 0..n-1 (the
 * NVTX statistics: analysis/dla_stats.c writes them so, a row per distinct
 * range text, millions of them), which the primary key holds in that order:
 * their count is 1 + the last row_idx, one seek rather than a walk. */
static const char *const dense_views[] = {"view_dl_stats_nvtx", "view_dl_stats_nvtx_gpu_proj"};

static int dense(const char *view) {
  for (size_t i = 0; i < sizeof dense_views / sizeof *dense_views; i++)
    if (strcmp(dense_views[i], view) == 0) return 1;
  return 0;
}

/* Views whose rows of one iteration a key finds (ours: aggr_iter_ops's
 * primary key starts (aggr_id, iter_value)): an iteration's ops, as many
 * as the model has, are sorted faster than an order's index over the
 * whole aggregation finds them. */
static const char *const iter_keyed_views[] = {"view_iteration_ops"};

static int iter_keyed(const dldb_query *in) {
  int iter = 0;
  for (int i = 0; i < in->n_eq; i++)
    iter |= in->eq[i].column && strcmp(in->eq[i].column, "iter_value") == 0;
  for (size_t i = 0; iter && i < sizeof iter_keyed_views / sizeof *iter_keyed_views; i++)
    if (strcmp(iter_keyed_views[i], in->view) == 0) return 1;
  return 0;
}

/* Views whose rows are counted as a sum of `calls` in another view (one
 * row per op that stands for its rows), where that one has the columns of
 * the count's conditions. */
static const struct {
  const char *view, *calls;
} sumviews[] = {
    {"view_iteration_ops", DLDB__ITEROPS_CALLS},
};

static const char *sumview_of(const char *view) {
  for (size_t i = 0; i < sizeof sumviews / sizeof *sumviews; i++)
    if (strcmp(sumviews[i].view, view) == 0) return sumviews[i].calls;
  return NULL;
}

static int one_int64(dldb *db, const dldb_query *in, int mode, const plan *pl, int64_t *out,
                     char *err, size_t errlen);

/* 1 when view (a view of ours beside in's) has a row of in's aggregation:
 * an aggregation written by a writer without it (into a file with it) has
 * none. */
static int has_rows(dldb *db, const dldb_query *in, const char *view) {
  dldb_query all = *in;
  all.n_eq = 0;
  all.filter = NULL;
  all.sort = "aggr_id"; /* any row of the aggregation: the primary key's first */
  int64_t aggr = 0;
  plan pl = {.from = view, .offset = 0};
  return one_int64(db, &all, Q_SEEK, &pl, &aggr, NULL, 0) == 1;
}

/* Trees of names (view_group_ops) beside which our dldbs store each row's
 * parent (DLDB__TREE_PARENT): a page of a group's children (or the top
 * rows) reads them there, rather than the parent of every row in SQL. */
static const struct {
  const char *view, *tree;
} treeviews[] = {
    {"view_group_ops", "view_dl_group_op_tree"},
};

/* The view to read in's tree page from: the stored parents' view where the
 * aggregation has them, else NULL (the queried view). */
static const char *tree_from(dldb *db, const dldb_query *in) {
  for (size_t i = 0; in->tree_parent && i < sizeof treeviews / sizeof *treeviews; i++)
    if (strcmp(treeviews[i].view, in->view) == 0 && dldb_has_view(db, treeviews[i].tree) &&
        has_rows(db, in, treeviews[i].tree))
      return treeviews[i].tree;
  return NULL;
}

/* Reads in's filter through the queried view's name index (dldb_nameidx.c)
 * where the file has one that answers it and that has every column of the
 * view: sets pl->from and pl->match, unless pl already reads elsewhere. */
static void name_plan(dldb *db, const dldb_query *in, plan *pl) {
  dldb__viewcols *v = NULL, *x = NULL;
  if (pl->from || pl->within || pl->within_json || pl->range_op || pl->indexed ||
      in->tree_parent || !in->filter || !*in->filter ||
      view_cols(db, in->view, NULL, &v, &v, NULL, 0))
    return;
  const char *cols[DLDB_MAX_FILTER_COLS];
  int n = 0;
  for (int i = 0; i < DLDB_MAX_FILTER_COLS && in->filter_cols[i]; i++)
    if (col_index(v, in->filter_cols[i]) >= 0) cols[n++] = in->filter_cols[i];
  const dldb__nameidx *ix = dldb__nameidx_for(db, in->view, cols, n, in->filter);
  if (!ix || view_cols(db, in->view, ix->index, &v, &x, NULL, 0) || col_index(x, ix->match) < 0)
    return;
  for (int c = 0; c < v->n; c++)
    if (col_index(x, v->names[c]) < 0) return;
  pl->from = ix->index;
  pl->match = ix->match;
}

/* How to count in's rows (mode Q_COUNT_*): the statement's mode and view. */
static void count_plan(dldb *db, const dldb_query *in, int *mode, plan *pl) {
  const keyview *k = keyview_of(in->view);
  const char *sum = sumview_of(in->view);
  int filtered = *mode == Q_COUNT_FILTERED;
  *pl = (plan){.offset = -1};
  if (!filtered && in->aggr_id >= 0 && in->n_eq == 0 && !in->tree_parent && dense(in->view))
    *mode = Q_COUNT_LAST; /* one aggregation's rows: numbered 0..n-1 */
  if (sum && !in->tree_parent && evaluates(db, in, sum, filtered) && has_rows(db, in, sum)) {
    pl->from = sum;
    *mode = filtered ? Q_SUM_FILTERED : Q_SUM_TOTAL;
  }
  if (in->tree_parent) pl->from = tree_from(db, in);
  /* a sum per op and kernel name where it can say (not of an iteration):
   * it costs the ops and names, not the launches */
  if (k && evaluates(db, in, k->calls, filtered)) {
    pl->from = k->calls;
    *mode = filtered ? Q_SUM_FILTERED : Q_SUM_TOTAL;
  } else if (k && !filtered && evaluates(db, in, k->keys, 0)) {
    pl->from = k->keys;
    pl->indexed = in->n_eq == 0; /* else the key of the column filter */
  }
  if (filtered) name_plan(db, in, pl);
}

static int run_count(dldb *db, const dldb_query *in, int mode, int64_t *out, char *err,
                     size_t errlen) {
  built q;
  char *key = NULL;
  plan pl;
  count_plan(db, in, &mode, &pl);
  int rc = build(db, in, mode, &pl, &q, err, errlen);
  if (rc) goto out;
  key = count_key(&q);
  if (!key) {
    rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    goto out;
  }
  if (dldb__count_get(db->shared, key, out)) goto out;
  sqlite3_stmt *st = dldb__stmt_get(db, q.sql.s, err, errlen);
  if (!st) {
    rc = DL_EDB;
    goto out;
  }
  bind_all(st, &q);
  int src = sqlite3_step(st);
  if (src == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
  else rc = dldb__sql_err(db, src, in->view, err, errlen);
  dldb__stmt_done(st);
  if (rc) goto out;
  dldb__count_put(db->shared, key, *out); /* takes key */
  key = NULL;
out:
  free(key);
  built_free(&q);
  return rc;
}

/* 1 when in's filter can match no row: every filter column of its view is
 * a name that is a string of `strings` (name_id) and no string contains the
 * filter (dldb_strmatch's bitset, read once and shared); else 0, or a
 * negative DL_E*. Spares the walk of every row that finds none. */
static int matches_nothing(dldb *db, const dldb_query *in, char *err, size_t errlen) {
  if (!in->filter || !*in->filter) return 0;
  dldb__viewcols *v = NULL;
  if (view_cols(db, in->view, NULL, &v, &v, err, errlen)) return 0; /* build() says why */
  int names = 0;
  for (int i = 0; i < DLDB_MAX_FILTER_COLS && in->filter_cols[i]; i++) {
    int c = col_index(v, in->filter_cols[i]);
    if (c < 0) continue;
    if (strcmp(v->names[c], "name") != 0 || col_index(v, "name_id") < 0) return 0;
    names++;
  }
  if (!names) return 0;
  char *lc = strdup(in->filter);
  if (!lc) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  for (char *p = lc; *p; p++) *p = (char)tolower((unsigned char)*p);
  int any = dldb__strmatch_any(db->shared, db->sql, lc);
  free(lc);
  if (any < 0) return dldb__sql_err(db, -any, in->view, err, errlen);
  return !any;
}

int dldb_query_count(dldb *db, const dldb_query *q, int64_t *total, int64_t *filtered, char *err,
                     size_t errlen) {
  int rc = dldb__gops_count(db, q, total, err, errlen);
  rc = rc == 0 ? run_count(db, q, Q_COUNT_TOTAL, total, err, errlen) : rc < 0 ? rc : DL_OK;
  if (rc || !filtered) return rc;
  if (!q->filter || !*q->filter) {
    *filtered = *total;
    return DL_OK;
  }
  rc = dldb__nvtx_count(db, q, filtered, err, errlen);
  if (rc) return rc < 0 ? rc : DL_OK;
  int none = matches_nothing(db, q, err, errlen);
  if (none < 0) return none;
  if (none) {
    *filtered = 0;
    return DL_OK;
  }
  return run_count(db, q, Q_COUNT_FILTERED, filtered, err, errlen);
}

/* ---- Rows ---------------------------------------------------------------- */

/* The one int64 value of statement mode on plan pl into *out: 1 with a
 * value, 0 without a row, or a negative DL_E*. */
static int one_int64(dldb *db, const dldb_query *in, int mode, const plan *pl, int64_t *out,
                     char *err, size_t errlen) {
  built q;
  int rc = build(db, in, mode, pl, &q, err, errlen);
  if (rc) goto out;
  sqlite3_stmt *st = dldb__stmt_get(db, q.sql.s, err, errlen);
  if (!st) {
    rc = DL_EDB;
    goto out;
  }
  bind_all(st, &q);
  int src = sqlite3_step(st);
  if (src == SQLITE_ROW) {
    *out = sqlite3_column_int64(st, 0);
    rc = 1;
  } else if (src != SQLITE_DONE) {
    rc = dldb__sql_err(db, src, in->view, err, errlen);
  }
  dldb__stmt_done(st);
out:
  built_free(&q);
  return rc;
}

/* The kernel lists' groups (db/schema.sql, dldb_kpage.c). */
#define KG_GROUPS "view_dl_kernel_groups"

/* The launch time of every KG_MARK_EVERY-th launch (db/schema.sql). */
#define KG_MARKS "view_dl_kernel_marks"
enum { KG_MARK_EVERY = 1024 };

/* The launch time of the row at in's offset in launch order (in: the whole
 * aggregation, no filter): the walk of the index from the mark at or before
 * its place, where no launch before the mark shares the mark's time. 1 with
 * *v, 0 past the rows, 2 when there is no such mark (walk from the first
 * launch), or a negative DL_E*. */
static int time_at_place(dldb *db, const dldb_query *in, int64_t *v, char *err, size_t errlen) {
  const keyview *k = keyview_of(in->view);
  int64_t total = 0, at = 0, same = 0;
  if (!k || !dldb_has_view(db, KG_MARKS)) return 2;
  int rc = run_count(db, in, Q_COUNT_TOTAL, &total, err, errlen);
  if (rc) return rc;
  if (in->offset >= total) return 0;
  int64_t place = in->desc ? total - 1 - in->offset : in->offset; /* ascending */
  int64_t mark = place - place % KG_MARK_EVERY;
  dldb_query asc = *in;
  asc.desc = 0;
  plan pm = {.from = KG_MARKS, .range_col = "place", .range_op = "=", .range_value = mark,
             .offset = 0};
  if ((rc = one_int64(db, &asc, Q_SEEK, &pm, &at, err, errlen)) <= 0) return rc < 0 ? rc : 2;
  plan ps = {.from = k->keys, .range_col = k->order, .range_op = "=", .range_value = at,
             .offset = -1, .indexed = 1};
  if ((rc = one_int64(db, &asc, Q_COUNT_TOTAL, &ps, &same, err, errlen)) < 0) return rc;
  if (same != 1) return 2;
  plan pw = {.from = k->keys, .range_col = k->order, .range_op = ">=", .range_value = at,
             .offset = place - mark, .indexed = 1};
  rc = one_int64(db, &asc, Q_SEEK, &pw, v, err, errlen);
  return rc == 0 ? 2 : rc;
}

/* How to read a deep page of in (of the whole aggregation) in its keys'
 * order: the rows from the sort value v of the row at the offset on (the
 * index entries before it counted, not its rows joined), skipping the rows
 * before it that share v. 1 with *pl
 * set, 0 when in is not such a page, 2 when the offset is past the rows, or
 * a negative DL_E*. */
static int seek_plan(dldb *db, const dldb_query *in, plan *pl, char *err, size_t errlen) {
  const keyview *k = keyview_of(in->view);
  /* a column filter (an iteration, say) has the rows in another index: read
   * them the plain way */
  if (!k || !in->sort || strcmp(in->sort, k->order) != 0 || in->offset < SEEK_MIN_OFFSET ||
      in->n_eq > 0 || (in->filter && *in->filter) || !evaluates(db, in, k->keys, 0))
    return 0;
  int64_t v = 0, before = 0;
  plan seek = {.from = k->keys, .offset = in->offset, .indexed = 1};
  int rc = time_at_place(db, in, &v, err, errlen);
  if (rc == 2) rc = one_int64(db, in, Q_SEEK, &seek, &v, err, errlen); /* the walk */
  if (rc <= 0) return rc < 0 ? rc : 2;
  /* the rows before v: the offset itself when v is the only row of its
   * value (launch times are, as a rule: an index seek), else counted */
  int64_t at_v = 0;
  plan same = {.from = k->keys, .range_col = k->order, .range_op = "=", .range_value = v,
               .offset = -1, .indexed = 1};
  rc = one_int64(db, in, Q_COUNT_TOTAL, &same, &at_v, err, errlen);
  if (rc < 0) return rc;
  plan count = {.from = k->keys, .range_col = k->order, .range_op = in->desc ? ">" : "<",
                .range_value = v, .offset = -1, .indexed = 1};
  before = in->offset;
  if (at_v != 1 && (rc = one_int64(db, in, Q_COUNT_TOTAL, &count, &before, err, errlen)) < 0)
    return rc;
  *pl = (plan){.range_col = k->order, .range_op = in->desc ? "<=" : ">=", .range_value = v,
               .offset = in->offset - before, .indexed = 1};
  return 1;
}

/* Sort columns with a key view of their own, in which an aggregation's rows
 * are in that column's order (its primary key; ours: chunks): the page's
 * range of values is found there, and its rows read by launch time. */
typedef struct sortkey {
  const char *view, *sort, *keys, *at;
  const char *chunks; /* where ours keep the keys, a chunk of places a row
                         (dldb_kdpage.c); keys is then read only there */
} sortkey;

static const sortkey sortkeys[] = {
    {"view_iteration_kernels", "kernel_duration", "view_dl_kernel_durations", "kernel_timestamp",
     "view_dl_kernel_dur_chunks"},
    {"view_iteration_op_kernels", "kernel_duration", "view_dl_kernel_durations",
     "kernel_timestamp", "view_dl_kernel_dur_chunks"},
};

static const sortkey *sortkey_of(const dldb_query *in) {
  for (size_t i = 0; i < sizeof sortkeys / sizeof *sortkeys; i++)
    if (strcmp(sortkeys[i].view, in->view) == 0 && strcmp(sortkeys[i].sort, in->sort) == 0)
      return &sortkeys[i];
  return NULL;
}

/* How to read a page of in (a whole aggregation sorted by a column of
 * sortkeys): the values v at the page's first row and w at its last, the
 * rows before v counted, then the rows with values from v to w, ordered as
 * the plain query orders them, from the offset less those before v. Returns
 * as seek_plan. */
static int sorted_plan(dldb *db, const dldb_query *in, plan *pl, char *err, size_t errlen) {
  const sortkey *s = in->sort ? sortkey_of(in) : NULL;
  if (!s || in->aggr_id < 0 || in->limit <= 0 || in->n_eq > 0 || (in->filter && *in->filter) ||
      !evaluates(db, in, s->keys, 0))
    return 0;
  if (s->chunks && dldb_has_view(db, s->chunks)) { /* ours: the stored chunks, or plain */
    int64_t lo = 0, hi = 0, before = 0;
    char *times = NULL;
    int rc = dldb__kdurs_window(db, in, &lo, &hi, &before, &times, err, errlen);
    if (rc == 1)
      *pl = (plan){.offset = in->offset - before, .indexed = 1, .at = s->at,
                   .within_json = times, .lo = lo, .hi = hi};
    else free(times);
    return rc;
  }
  int64_t v = 0, w = 0, before = 0;
  plan seek = {.from = s->keys, .offset = in->offset};
  int rc = one_int64(db, in, Q_SEEK, &seek, &v, err, errlen);
  if (rc == 0) { /* past the end; or no keys (an aggregation written without them): plain */
    seek.offset = 0;
    rc = one_int64(db, in, Q_SEEK, &seek, &v, err, errlen);
    return rc < 0 ? rc : rc == 1 ? 2 : 0;
  }
  if (rc < 0) return rc;
  seek.offset = in->offset + in->limit - 1;
  rc = one_int64(db, in, Q_SEEK, &seek, &w, err, errlen);
  if (rc < 0) return rc;
  if (rc == 0) w = in->desc ? INT64_MIN : INT64_MAX; /* the page reaches the end */
  plan count = {.from = s->keys, .range_col = s->sort, .range_op = in->desc ? ">" : "<",
                .range_value = v, .offset = -1};
  if ((rc = one_int64(db, in, Q_COUNT_TOTAL, &count, &before, err, errlen)) < 0) return rc;
  *pl = (plan){.offset = in->offset - before, .indexed = 1, .within = s->keys, .at = s->at,
               .lo = in->desc ? w : v, .hi = in->desc ? v : w};
  return 1;
}

/* 1 when a page of in is read by group (dldb_kpage.c): a big kernel view of
 * one aggregation, sorted by a column the groups share and then by such
 * columns, its conditions on their columns, every column of the view in
 * the rows by key; the file has the groups' launch order and the chunks
 * of the page's order (chunks). */
static int by_group_in(dldb *db, const dldb_query *in, const char *chunks) {
  if (!keyview_of(in->view) || in->aggr_id < 0 || in->limit <= 0 || !in->sort ||
      !dldb_has_view(db, DLDB__KG_ROWS) || !dldb_has_view(db, DLDB__KG_SEQ) ||
      !dldb_has_view(db, DLDB__KG_TIMES) || !dldb_has_view(db, chunks) ||
      !evaluates(db, in, KG_GROUPS, 1))
    return 0;
  dldb__viewcols *v = find_view(db, in->view), *g = find_view(db, KG_GROUPS);
  dldb__viewcols *r = find_view(db, DLDB__KG_ROWS);
  if (!v || !g || !r || col_index(v, in->sort) < 0) return 0;
  for (int i = 0; i < DLDB_MAX_TIEBREAK && in->tiebreak[i]; i++)
    if (col_index(g, in->tiebreak[i]) < 0) return 0;
  for (int c = 0; c < v->n; c++)
    if (col_index(r, v->names[c]) < 0) return 0;
  return 1;
}

static int by_group(dldb *db, const dldb_query *in) { return by_group_in(db, in, DLDB__KG_SEQ); }

/* 1 when the aggregation of in has kernel groups (an older writer's has
 * none: read the plain way), 0 when not, or a negative DL_E*. */
static int has_groups(dldb *db, const dldb_query *in, char *err, size_t errlen) {
  dldb_query all = *in;
  all.n_eq = 0;
  all.filter = NULL;
  int64_t groups = 0;
  plan pl = {.from = KG_GROUPS, .offset = -1};
  int rc = one_int64(db, &all, Q_COUNT_TOTAL, &pl, &groups, err, errlen);
  return rc < 0 ? rc : rc == 1 && groups > 0;
}

/* The orders of each group's launches a page of a few groups merges
 * (dldb_kpage.c): by launch time (the groups' own places) and by duration
 * (db/schema.sql aggr_dl_kernel_dseq_chunks). */
static const dldb__korder korders[] = {
    {DLDB__KG_SEQ, "kernel_timestamp", 1},
    {"view_dl_kernel_dseq_chunks", "kernel_duration", 0},
};

static const dldb__korder *korder_of(const char *sort) {
  for (size_t i = 0; sort && i < sizeof korders / sizeof *korders; i++)
    if (strcmp(korders[i].value, sort) == 0) return &korders[i];
  return NULL;
}

/* 1 when the aggregation of in has rows in order's chunks (one written
 * before it had them has none), 0 when not, or a negative DL_E*. */
static int has_order(dldb *db, const dldb_query *in, const dldb__korder *order, char *err,
                     size_t errlen) {
  dldb_query all = *in;
  all.n_eq = 0;
  all.filter = NULL;
  all.sort = "aggr_id"; /* any row of the aggregation: the primary key's first */
  int64_t aggr = 0;
  plan pl = {.from = order->chunks, .offset = 0};
  int rc = one_int64(db, &all, Q_SEEK, &pl, &aggr, err, errlen);
  return rc < 0 ? rc : rc == 1;
}

static int walk_is_short(dldb *db, const dldb_query *in, const keyview *k,
                         const dldb_query *whole, int64_t max_rows);
enum { KMERGE_PROBES = 320 };

/* A page of one kernel's or op's launches (filtered by name or not) in
 * launch order or by duration, or of a whole aggregation filtered by name
 * by duration, where they are in at most DLDB__KMERGE_MAX groups
 * (dldb_kpage.c): 1 when read, 0 when not, or a negative DL_E*. */
static int merged_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                       size_t errlen) {
  const keyview *k = keyview_of(in->view);
  const dldb__korder *order = korder_of(in->sort);
  dldb_query whole = *in;
  whole.n_eq = 0;
  int by_time = k && order && strcmp(order->value, k->order) == 0;
  /* in launch order, a filter of the whole aggregation, or a walk of the
   * launches shorter than the search (walk_is_short): the walk of the time
   * index; by duration, the whole aggregation unfiltered: sorted_plan */
  if (!k || !order || (in->n_eq == 0 && (by_time || !in->filter || !*in->filter)) ||
      !by_group_in(db, in, order->chunks))
    return 0;
  int rc = has_groups(db, in, err, errlen);
  if (rc > 0 && !by_time) rc = has_order(db, in, order, err, errlen);
  if (rc <= 0) return rc;
  dldb_query list = *in; /* the groups of the page's conditions, any order */
  list.sort = NULL;
  list.tiebreak[0] = NULL;
  list.offset = 0;
  list.limit = DLDB__KMERGE_MAX + 1;
  plan pl = {.from = KG_GROUPS, .offset = 0};
  built q;
  int64_t gid[DLDB__KMERGE_MAX], calls[DLDB__KMERGE_MAX];
  int n = 0;
  rc = build(db, &list, Q_ROWS, &pl, &q, err, errlen);
  sqlite3_stmt *st = rc ? NULL : dldb__stmt_get(db, q.sql.s, err, errlen);
  if (!rc && !st) rc = DL_EDB;
  if (!rc) {
    bind_all(st, &q);
    int src, cg = -1, cc = -1;
    for (int i = 0; i < sqlite3_column_count(st); i++) {
      if (strcmp(sqlite3_column_name(st, i), "group_id") == 0) cg = i;
      if (strcmp(sqlite3_column_name(st, i), "calls") == 0) cc = i;
    }
    while (cg >= 0 && cc >= 0 && (src = sqlite3_step(st)) == SQLITE_ROW && n <= DLDB__KMERGE_MAX) {
      if (n == DLDB__KMERGE_MAX) {
        n++; /* too many: the plain way */
        break;
      }
      gid[n] = sqlite3_column_int64(st, cg);
      calls[n++] = sqlite3_column_int64(st, cc);
    }
    dldb__stmt_done(st);
  }
  built_free(&q);
  /* the search probes about KMERGE_PROBES places a group */
  if (rc || n > DLDB__KMERGE_MAX ||
      (by_time && walk_is_short(db, in, k, &whole, (int64_t)KMERGE_PROBES * n)))
    return rc;
  dldb__viewcols *v = find_view(db, in->view);
  rc = dldb__kpage_merged(db, in->aggr_id, order, gid, calls, n, in, (const char *const *)v->names,
                          v->n, fn, ctx, err, errlen);
  return rc ? rc : 1;
}

/* A page of in read by group where by_group() says so and the aggregation
 * has groups: 1 when read (fn had its rows), 0 when not, or a negative
 * DL_E*. */
static int group_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                      size_t errlen) {
  dldb__viewcols *g = by_group(db, in) ? find_view(db, KG_GROUPS) : NULL;
  if (!g || col_index(g, in->sort) < 0) return 0;
  int rc = has_groups(db, in, err, errlen);
  if (rc <= 0) return rc;
  dldb_query list = *in; /* every group of the page's conditions, in its order */
  list.offset = 0;
  list.limit = -1;
  plan pl = {.from = KG_GROUPS, .offset = 0};
  built q;
  rc = build(db, &list, Q_ROWS, &pl, &q, err, errlen);
  sqlite3_stmt *st = rc ? NULL : dldb__stmt_get(db, q.sql.s, err, errlen);
  if (!rc && !st) rc = DL_EDB;
  if (!rc) {
    bind_all(st, &q);
    dldb__viewcols *v = find_view(db, in->view);
    rc = dldb__kpage_rows(db, st, in->aggr_id, in->offset, in->limit,
                          (const char *const *)v->names, v->n, fn, ctx, err, errlen);
  }
  built_free(&q);
  return rc ? rc : 1;
}

/* A page of a kernel's or an op's rows in launch order walks the
 * aggregation's launches in that order until it has them: about (offset +
 * limit) * all / matching rows, each joined. Past this many the plain query
 * (every matching row, sorted) costs less. */
enum { WALK_MAX_ROWS = 32768 };

/* 1 when the walk for in (with column filters, launch order) reads at most
 * max_rows rows: the rows of its scope and filter and those of the whole
 * aggregation are sums of view_dl_kernel_calls. */
static int walk_is_short(dldb *db, const dldb_query *in, const keyview *k,
                         const dldb_query *whole, int64_t max_rows) {
  int64_t match = 0, all = 0;
  plan calls = {.from = k->calls, .offset = -1};
  int filtered = in->filter && *in->filter;
  if (!evaluates(db, in, k->calls, 1) ||
      one_int64(db, in, filtered ? Q_SUM_FILTERED : Q_SUM_TOTAL, &calls, &match, NULL, 0) != 1 ||
      one_int64(db, whole, Q_SUM_TOTAL, &calls, &all, NULL, 0) != 1 || match <= 0)
    return 0;
  double rows = ((double)(in->offset > 0 ? in->offset : 0) + (double)in->limit) * (double)all;
  return in->limit > 0 && rows <= (double)max_rows * (double)match;
}

int dldb_query_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                    size_t errlen) {
  built q;
  plan pl = {.offset = -1};
  int rc = dldb__nvtx_rows(db, in, fn, ctx, err, errlen);
  if (rc == 0) rc = matches_nothing(db, in, err, errlen);
  if (rc) return rc < 0 ? rc : DL_OK;
  rc = group_rows(db, in, fn, ctx, err, errlen);
  if (rc == 0) rc = merged_rows(db, in, fn, ctx, err, errlen);
  if (rc == 0) rc = dldb__gops_rows(db, in, fn, ctx, err, errlen);
  if (rc == 0) rc = dldb__iterops_rows(db, in, fn, ctx, err, errlen);
  if (rc != 0) return rc < 0 ? rc : DL_OK;
  rc = seek_plan(db, in, &pl, err, errlen);
  if (rc == 0) rc = sorted_plan(db, in, &pl, err, errlen);
  if (rc < 0 || rc == 2) return rc < 0 ? rc : DL_OK;
  const keyview *k = keyview_of(in->view);
  dldb_query whole = *in; /* the file has the index when it has the key view */
  whole.n_eq = 0;
  if (rc == 0 && k && in->sort && strcmp(in->sort, k->order) == 0 &&
      evaluates(db, &whole, k->keys, 0)) {
    /* the aggregation's rows in launch order, from the index; with column
     * filters (a kernel, an op) too, but for an iteration, whose rows the
     * primary key finds */
    int iter = 0;
    for (int i = 0; i < in->n_eq; i++)
      iter |= !in->eq[i].column || strcmp(in->eq[i].column, "iter_value") == 0;
    int walk = !iter && (in->n_eq == 0 || walk_is_short(db, in, k, &whole, WALK_MAX_ROWS));
    pl.indexed = walk;
    pl.likely_eq = walk && in->n_eq > 0;
  }
  /* a whole aggregation of view_iteration_ops: its order's index, where
   * the file has it (dldb_iterops.c) */
  if (rc == 0 && in->n_eq == 0 && strcmp(in->view, "view_iteration_ops") == 0 &&
      dldb_has_view(db, DLDB__ITEROPS_KEYS))
    pl.indexed = 1;
  if (rc == 0 && in->tree_parent) pl.from = tree_from(db, in);
  if (rc == 0 && !pl.indexed && iter_keyed(in)) pl.sort_found = 1;
  if (rc == 0) name_plan(db, in, &pl);
  rc = build(db, in, Q_ROWS, &pl, &q, err, errlen);
  if (rc) goto out;
  sqlite3_stmt *st = dldb__stmt_get(db, q.sql.s, err, errlen);
  if (!st) {
    rc = DL_EDB;
    goto out;
  }
  bind_all(st, &q);
  dldb_row row = {st, sqlite3_column_count(st)};
  int src;
  while ((src = sqlite3_step(st)) == SQLITE_ROW)
    if (fn(ctx, &row) != 0) break;
  if (src != SQLITE_ROW && src != SQLITE_DONE) rc = dldb__sql_err(db, src, in->view, err, errlen);
  dldb__stmt_done(st);
out:
  built_free(&q);
  free((char *)pl.within_json); /* sorted_plan's */
  return rc;
}

int dldb_row_count(const dldb_row *row) { return row->n; }

const char *dldb_row_name(const dldb_row *row, int i) { return sqlite3_column_name(row->st, i); }

int dldb_row_type(const dldb_row *row, int i) {
  switch (sqlite3_column_type(row->st, i)) {
  case SQLITE_INTEGER: return DLDB_COL_INTEGER;
  case SQLITE_FLOAT: return DLDB_COL_REAL;
  case SQLITE_NULL: return 0;
  default: return DLDB_COL_TEXT;
  }
}

int64_t dldb_row_int(const dldb_row *row, int i) { return sqlite3_column_int64(row->st, i); }

double dldb_row_real(const dldb_row *row, int i) { return sqlite3_column_double(row->st, i); }

const char *dldb_row_text(const dldb_row *row, int i) {
  const char *t = (const char *)sqlite3_column_text(row->st, i);
  return t ? t : "";
}

/* ---- Aggregations and domains -------------------------------------------- */

static int exists(dldb *db, const char *sql, int64_t id, const char *text) {
  sqlite3_stmt *st = dldb__stmt_get(db, sql, NULL, 0);
  if (!st) return DL_EDB;
  if (text) sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
  else sqlite3_bind_int64(st, 1, id);
  int src = sqlite3_step(st);
  int rc = src == SQLITE_ROW ? 1 : src == SQLITE_DONE ? 0 : dldb__sql_err(db, src, "", NULL, 0);
  dldb__stmt_done(st);
  return rc;
}

int dldb_aggr_exists(dldb *db, int64_t aggr_id) {
  return exists(db, "SELECT 1 FROM view_aggregations WHERE aggr_id = ?1 LIMIT 1", aggr_id, NULL);
}

int dldb_domain_exists(dldb *db, const char *domain) {
  return exists(db, "SELECT 1 FROM view_domains WHERE domain_name = ?1 LIMIT 1", 0, domain);
}
