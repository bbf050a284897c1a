/*
 * dldb_query.c - bounded, parameterised queries on a dldb's views.
 *
 * A dldb_query becomes one SELECT on one view (see dldb.h for its shape).
 * Column names come only from the view's own column list (PRAGMA
 * table_info, cached per handle) and are quoted; every value is bound.
 * Statements are prepared once per handle and SQL text and reused; counts
 * are cached per query and shared by the handles of one file (dldb__shared),
 * since the file does not change while the viewer serves it. Column types:
 * the declared type when there is one
 * (INT/BOOL -> integer, REAL/FLOA/DOUB -> real, TEXT/CHAR/CLOB/STRING -> text),
 * else the storage class of the view's first row (NVIDIA's views declare no
 * type for computed columns such as kernel_duration or grid).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_read.h"

/* ---- Statement cache ----------------------------------------------------- */

sqlite3_stmt *dldb__stmt_get(dldb *db, const char *sql, char *err, size_t errlen) {
  dldb__stmt *victim = &db->stmts[0];
  for (int i = 0; i < DLDB__STMT_CACHE; i++) {
    dldb__stmt *s = &db->stmts[i];
    if (s->sql && strcmp(s->sql, sql) == 0) {
      s->last_use = ++db->use_clock;
      return s->stmt;
    }
    if (!s->sql || (victim->sql && s->last_use < victim->last_use)) victim = s;
  }
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
  if (rc != SQLITE_OK) {
    dldb__sql_err(db, rc, "prepare", err, errlen);
    return NULL;
  }
  char *copy = strdup(sql);
  if (!copy) {
    sqlite3_finalize(st);
    dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    return NULL;
  }
  sqlite3_finalize(victim->stmt);
  free(victim->sql);
  victim->sql = copy;
  victim->stmt = st;
  victim->last_use = ++db->use_clock;
  return st;
}

void dldb__stmt_done(sqlite3_stmt *stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
}

void dldb__caches_free(dldb *db) {
  for (int i = 0; i < DLDB__STMT_CACHE; i++) {
    sqlite3_finalize(db->stmts[i].stmt);
    free(db->stmts[i].sql);
    db->stmts[i].sql = NULL;
    db->stmts[i].stmt = NULL;
  }
  for (int i = 0; i < db->n_views; i++) {
    dldb__viewcols *v = &db->views[i];
    for (int c = 0; c < v->n; c++) free(v->names[c]);
    free(v->names);
    free(v->types);
    free(v->view);
  }
  free(db->views);
  db->views = NULL;
  db->n_views = 0;
}

/* ---- dldb_dim3(): numeric order of "x, y, z" ------------------------------ */

/* x < 2^31 and y, z <= 65535 for CUDA launches, so x<<32 | y<<16 | z is
 * exact and orders by x, then y, then z. Text that is not a dim3 stays. */
static void dim3_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  int64_t d[3] = {0, 0, 0};
  int n = 0;
  while (s && n < 3) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v < 0) break;
    d[n++] = v;
    s = end;
    while (*s == ',' || *s == ' ') s++;
    if (!*s) break;
  }
  if (n == 0 || (s && *s)) {
    sqlite3_result_value(ctx, argv[0]);
    return;
  }
  if (d[0] > INT32_MAX) d[0] = INT32_MAX;
  if (d[1] > 0xffff) d[1] = 0xffff;
  if (d[2] > 0xffff) d[2] = 0xffff;
  sqlite3_result_int64(ctx, d[0] << 32 | d[1] << 16 | d[2]);
}

/* ---- dldb_strmatch(): the name filter through the strings table --------- */

/* A view whose name is a string of `strings` looked up per row (millions of
 * NVTX rows when every range has its own text) also has that id as
 * name_id. Filtering on instr(lower(name), f) looks up every row's string,
 * at random: 47 s at 10.7 M rows. dldb_strmatch(name_id, f) reads `strings`
 * once in id order instead, keeps the ids whose value contains f as a
 * bitset (one bit a string), and answers each row from it: the same rows,
 * since LIKE folds ASCII case as lower() does, and the file does not change
 * while it is open. The handles of one file share the last pattern's
 * bitset (dldb__shared); a statement works on its own copy, kept as SQLite
 * auxiliary data of the pattern argument. */
typedef struct strbits {
  int64_t nbits;
  uint8_t bits[];
} strbits;

typedef struct strranks { /* see dldb_strrank() below */
  int64_t n;
  int32_t rank[];         /* by id: the value's place in value order; -1: NULL, none */
} strranks;

/* What the handles of one file share (dldb_open_again). A bitset takes
 * seconds to build: it has its own mutex, so that counts of other requests
 * do not wait for it. */
struct dldb__shared {
  pthread_mutex_t mu;        /* refs, counts, next_count */
  int refs;
  dldb__count counts[DLDB__COUNT_CACHE]; /* list counts */
  int next_count;            /* round-robin replacement slot */
  pthread_mutex_t match_mu;  /* pattern, bits */
  char *pattern;             /* dldb_strmatch: the lower-cased filter of bits; NULL: none */
  strbits *bits;
  pthread_mutex_t rank_mu;   /* serialises building ranks */
  _Atomic(strranks *) ranks; /* dldb_strrank: set once, then only read */
};

dldb__shared *dldb__shared_new(void) {
  dldb__shared *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  if (pthread_mutex_init(&m->mu, NULL) != 0) {
    free(m);
    return NULL;
  }
  if (pthread_mutex_init(&m->match_mu, NULL) != 0) {
    pthread_mutex_destroy(&m->mu);
    free(m);
    return NULL;
  }
  if (pthread_mutex_init(&m->rank_mu, NULL) != 0) {
    pthread_mutex_destroy(&m->mu);
    pthread_mutex_destroy(&m->match_mu);
    free(m);
    return NULL;
  }
  atomic_init(&m->ranks, NULL);
  m->refs = 1;
  return m;
}

dldb__shared *dldb__shared_ref(dldb__shared *m) {
  if (!m) return NULL;
  pthread_mutex_lock(&m->mu);
  m->refs++;
  pthread_mutex_unlock(&m->mu);
  return m;
}

void dldb__shared_unref(dldb__shared *m) {
  if (!m) return;
  pthread_mutex_lock(&m->mu);
  int last = --m->refs == 0;
  pthread_mutex_unlock(&m->mu);
  if (!last) return;
  pthread_mutex_destroy(&m->mu);
  pthread_mutex_destroy(&m->match_mu);
  pthread_mutex_destroy(&m->rank_mu);
  free(atomic_load(&m->ranks));
  free(m->pattern);
  free(m->bits);
  for (int i = 0; i < DLDB__COUNT_CACHE; i++) free(m->counts[i].key);
  free(m);
}

/* *n = 1 + the largest id of `strings` (ids are 1.. in the files we write,
 * the only ones with name_id); SQLITE_TOOBIG past limit. */
static int strings_span(sqlite3 *sql, int64_t limit, int64_t *n) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql, "SELECT max(id) FROM strings", -1, &st, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t max = sqlite3_column_int64(st, 0);
    *n = max > 0 ? max + 1 : 1;
    rc = max >= limit ? SQLITE_TOOBIG : SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

/* The bitset of pattern, read through sql; SQLITE_OK or an error code. */
static int strbits_build(sqlite3 *sql, const char *pattern, strbits **out) {
  *out = NULL;
  size_t n = strlen(pattern);
  char *like = malloc(2 * n + 3);
  if (!like) return SQLITE_NOMEM;
  char *o = like; /* %pattern% with %, _ and \ escaped */
  *o++ = '%';
  for (const char *p = pattern; *p; p++) {
    if (*p == '%' || *p == '_' || *p == '\\') *o++ = '\\';
    *o++ = *p;
  }
  *o++ = '%';
  *o = '\0';
  strbits *b = NULL;
  sqlite3_stmt *st = NULL;
  int64_t nbits = 0;
  int rc = strings_span(sql, (int64_t)1 << 36, &nbits); /* 8 GB of bits: not ours */
  if (rc == SQLITE_OK) {
    if ((b = calloc(1, sizeof *b + (size_t)(nbits + 7) / 8)) != NULL) b->nbits = nbits;
    else rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(sql, "SELECT id FROM strings WHERE value LIKE ?1 ESCAPE '\\'", -1, &st,
                            NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, like, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int64_t id = sqlite3_column_int64(st, 0);
      if (id >= 0 && id < b->nbits) b->bits[id >> 3] |= (uint8_t)(1u << (id & 7));
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  free(like);
  if (rc == SQLITE_OK) *out = b;
  else free(b);
  return rc;
}

/* A copy of pattern's bitset, built through sql when the shared one is of
 * another pattern; SQLITE_OK or an error code. */
static int strbits_get(dldb__shared *m, sqlite3 *sql, const char *pattern, strbits **out) {
  *out = NULL;
  int rc = SQLITE_OK;
  pthread_mutex_lock(&m->match_mu);
  if (!m->pattern || strcmp(m->pattern, pattern) != 0) {
    strbits *b = NULL;
    char *copy = strdup(pattern);
    rc = copy ? strbits_build(sql, pattern, &b) : SQLITE_NOMEM;
    if (rc == SQLITE_OK) {
      free(m->pattern);
      free(m->bits);
      m->pattern = copy;
      m->bits = b;
    } else {
      free(copy);
    }
  }
  if (rc == SQLITE_OK) {
    size_t size = sizeof *m->bits + (size_t)(m->bits->nbits + 7) / 8;
    if ((*out = malloc(size)) != NULL) memcpy(*out, m->bits, size);
    else rc = SQLITE_NOMEM;
  }
  pthread_mutex_unlock(&m->match_mu);
  return rc;
}

static void strmatch_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *pattern = (const char *)sqlite3_value_text(argv[1]);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || !pattern) {
    sqlite3_result_null(ctx); /* as instr(lower(NULL), f) > 0 */
    return;
  }
  strbits *b = sqlite3_get_auxdata(ctx, 1);
  if (!b) {
    int rc = strbits_get(sqlite3_user_data(ctx), sqlite3_context_db_handle(ctx), pattern, &b);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
    sqlite3_set_auxdata(ctx, 1, b, free); /* frees b at once when it cannot keep it */
    b = sqlite3_get_auxdata(ctx, 1);
    if (!b) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  int64_t id = sqlite3_value_int64(argv[0]);
  sqlite3_result_int(ctx, id >= 0 && id < b->nbits && (b->bits[id >> 3] >> (id & 7) & 1));
}

/* ---- dldb_strrank(): the name order through the strings table ---------- */

/* Sorting such a view by name looks up every row's string too (47 s at
 * 10.7 M rows). dldb_strrank(name_id) is the place of the id's value among
 * all values of `strings` in their BINARY order (what ORDER BY name uses),
 * equal values sharing a place, NULL for a NULL value or a missing id (as
 * the name is then NULL): ordering by it orders by name. The places are
 * read once per file, by SQLite's own sort of `strings` (11 s and 14 MB at
 * 10.7 M strings, in temporary files), and kept: 4 bytes a string. */
static int ranks_build(sqlite3 *sql, strranks **out) {
  *out = NULL;
  strranks *r = NULL;
  sqlite3_stmt *st = NULL;
  int64_t n = 0;
  int rc = strings_span(sql, INT32_MAX, &n); /* places are int32 */
  if (rc == SQLITE_OK) {
    if ((r = malloc(sizeof *r + (size_t)n * sizeof r->rank[0])) != NULL) r->n = n;
    else rc = SQLITE_NOMEM;
    for (int64_t i = 0; r && i < n; i++) r->rank[i] = -1;
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(sql, "SELECT id, value FROM strings WHERE value IS NOT NULL "
                                 "ORDER BY value", -1, &st, NULL);
  char *prev = NULL;
  int prev_len = -1;
  int32_t place = -1;
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    const void *v = sqlite3_column_blob(st, 1);
    int len = sqlite3_column_bytes(st, 1);
    if (len != prev_len || (len > 0 && memcmp(v, prev, (size_t)len) != 0)) {
      place++;
      char *p = realloc(prev, (size_t)len + 1);
      if (!p) {
        rc = SQLITE_NOMEM;
        break;
      }
      prev = p;
      if (len > 0) memcpy(prev, v, (size_t)len);
      prev_len = len;
    }
    if (id >= 0 && id < r->n) r->rank[id] = place;
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  free(prev);
  if (rc == SQLITE_OK) *out = r;
  else free(r);
  return rc;
}

static void strrank_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  dldb__shared *m = sqlite3_user_data(ctx);
  strranks *r = atomic_load_explicit(&m->ranks, memory_order_acquire);
  if (!r) {
    int rc = SQLITE_OK;
    pthread_mutex_lock(&m->rank_mu);
    r = atomic_load_explicit(&m->ranks, memory_order_acquire);
    if (!r && (rc = ranks_build(sqlite3_context_db_handle(ctx), &r)) == SQLITE_OK)
      atomic_store_explicit(&m->ranks, r, memory_order_release);
    pthread_mutex_unlock(&m->rank_mu);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  int64_t id = sqlite3_value_int64(argv[0]);
  if (id < 0 || id >= r->n || r->rank[id] < 0) sqlite3_result_null(ctx);
  else sqlite3_result_int(ctx, r->rank[id]);
}

int dldb__register_functions(sqlite3 *sql, dldb__shared *m) {
  int rc = sqlite3_create_function(sql, "dldb_dim3", 1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                   dim3_fn, NULL, NULL);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_create_function(sql, "dldb_strmatch", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, m,
                               strmatch_fn, NULL, NULL);
  if (rc != SQLITE_OK) return rc;
  return sqlite3_create_function(sql, "dldb_strrank", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, m,
                                 strrank_fn, NULL, NULL);
}

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

enum { MAX_BOUND = 4 + DLDB_MAX_EQ };
enum { Q_ROWS, Q_COUNT_TOTAL, Q_COUNT_FILTERED };

typedef struct built {
  sbuf sql;
  bound b[MAX_BOUND];
  int nb;
  char *filter_lc; /* owned: the lower-cased filter */
} built;

static void built_free(built *q) {
  free(q->sql.s);
  free(q->filter_lc);
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

static int build(dldb *db, const dldb_query *in, int mode, built *q, char *err, size_t errlen) {
  dldb__viewcols *v = NULL;
  memset(q, 0, sizeof *q);
  int n = dldb_view_columns(db, in->view, NULL, NULL);
  if (n < 0)
    return n == DL_ENOTFOUND ? dl_err(err, errlen, DL_ENOTFOUND, "%s has no %s", db->path, in->view)
                             : dl_err(err, errlen, n, "%s: cannot read the columns of %s",
                                      db->path, in->view);
  v = find_view(db, in->view);
  if (in->n_eq > 0) {
    int rc = ensure_types(db, v, err, errlen);
    if (rc) return rc;
  }
  int first = 1;
  sb_add(&q->sql, mode == Q_ROWS ? "SELECT * FROM " : "SELECT count(*) FROM ");
  sb_ident(&q->sql, in->view);
  if (in->aggr_id >= 0 && col_index(v, "aggr_id") >= 0) {
    sb_where(q, &first);
    sb_add(&q->sql, "aggr_id = ?%d", q->nb + 1);
    q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = in->aggr_id};
  }
  if (in->domain && col_index(v, "domain_name") >= 0) {
    sb_where(q, &first);
    sb_add(&q->sql, "domain_name = ?%d", q->nb + 1);
    q->b[q->nb++] = (bound){.type = DLDB_COL_TEXT, .s = in->domain};
  }
  for (int i = 0; i < in->n_eq && i < DLDB_MAX_EQ; i++) {
    int c = col_index(v, in->eq[i].column);
    if (c < 0)
      return dl_err(err, errlen, DL_EINVAL, "%s has no column %s", in->view,
                    in->eq[i].column ? in->eq[i].column : "(null)");
    sb_where(q, &first);
    sb_ident(&q->sql, v->names[c]);
    sb_add(&q->sql, " = ");
    int rc = bind_value(q, v->types[c], v->names[c], in->eq[i].value ? in->eq[i].value : "", err,
                        errlen);
    if (rc) return rc;
  }
  if (mode != Q_COUNT_TOTAL && in->filter && *in->filter) {
    q->filter_lc = strdup(in->filter);
    if (!q->filter_lc) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    for (char *p = q->filter_lc; *p; p++) *p = (char)tolower((unsigned char)*p);
    q->b[q->nb++] = (bound){.type = DLDB_COL_TEXT, .s = q->filter_lc};
    sb_where(q, &first);
    sb_add(&q->sql, "(");
    int terms = 0;
    for (int i = 0; i < DLDB_MAX_FILTER_COLS && in->filter_cols[i]; i++) {
      int c = col_index(v, in->filter_cols[i]);
      if (c < 0) continue;
      sb_add(&q->sql, "%s", terms++ ? " OR " : "");
      if (strcmp(v->names[c], "name") == 0 && col_index(v, "name_id") >= 0) {
        sb_add(&q->sql, "dldb_strmatch(\"name_id\", ?%d)", q->nb); /* name is that string */
        continue;
      }
      sb_add(&q->sql, "instr(lower(");
      sb_ident(&q->sql, v->names[c]);
      sb_add(&q->sql, "), ?%d) > 0", q->nb);
    }
    sb_add(&q->sql, terms ? ")" : "0)"); /* no name column: nothing matches */
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
      sb_add(&q->sql, dim3 ? "dldb_dim3(" : "");
      sb_ident(&q->sql, v->names[c]);
      sb_add(&q->sql, "%s%s", dim3 ? ")" : "", i == 0 && in->desc ? " DESC" : "");
    }
    if (in->limit >= 0 || in->offset > 0) {
      sb_add(&q->sql, " LIMIT ?%d OFFSET ?%d", q->nb + 1, q->nb + 2);
      q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = in->limit >= 0 ? in->limit : -1};
      q->b[q->nb++] = (bound){.type = DLDB_COL_INTEGER, .i = in->offset > 0 ? in->offset : 0};
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

static int run_count(dldb *db, const dldb_query *in, int mode, int64_t *out, char *err,
                     size_t errlen) {
  built q;
  char *key = NULL;
  int rc = build(db, in, mode, &q, err, errlen);
  if (rc) goto out;
  key = count_key(&q);
  if (!key) {
    rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    goto out;
  }
  dldb__shared *sh = db->shared;
  int hit = 0;
  pthread_mutex_lock(&sh->mu);
  for (int i = 0; i < DLDB__COUNT_CACHE && !hit; i++)
    if (sh->counts[i].key && strcmp(sh->counts[i].key, key) == 0) {
      *out = sh->counts[i].value;
      hit = 1;
    }
  pthread_mutex_unlock(&sh->mu);
  if (hit) goto out;
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
  pthread_mutex_lock(&sh->mu); /* another thread may have counted it too: same value */
  dldb__count *slot = &sh->counts[sh->next_count];
  sh->next_count = (sh->next_count + 1) % DLDB__COUNT_CACHE;
  free(slot->key);
  slot->key = key;
  slot->value = *out;
  key = NULL;
  pthread_mutex_unlock(&sh->mu);
out:
  free(key);
  built_free(&q);
  return rc;
}

int dldb_query_count(dldb *db, const dldb_query *q, int64_t *total, int64_t *filtered, char *err,
                     size_t errlen) {
  int rc = run_count(db, q, Q_COUNT_TOTAL, total, err, errlen);
  if (rc || !filtered) return rc;
  if (!q->filter || !*q->filter) {
    *filtered = *total;
    return DL_OK;
  }
  return run_count(db, q, Q_COUNT_FILTERED, filtered, err, errlen);
}

/* ---- Rows ---------------------------------------------------------------- */

struct dldb_row {
  sqlite3_stmt *st;
  int n;
};

int dldb_query_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                    size_t errlen) {
  built q;
  int rc = build(db, in, Q_ROWS, &q, err, errlen);
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
