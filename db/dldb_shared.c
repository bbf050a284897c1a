/*
 * dldb_shared.c - what the read handles of one file share (dldb_read.h):
 * the cache of list counts, the last bitset a reader kept (dldb__memo_*),
 * and the state of the SQL functions it registers on each connection
 * (dldb_dim3, dldb_strmatch, dldb_strrank).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_read.h"

typedef struct dldb__count {
  char *key;            /* owned: SQL text and bound values; NULL: free slot */
  int64_t value;
} dldb__count;

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
  char *memo_key;            /* dldb__memo_*: the kept bitset's key; NULL: none (mu) */
  uint64_t *memo_bits;
  size_t memo_words;
  int64_t memo_value;
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
  free(m->memo_key);
  free(m->memo_bits);
  for (int i = 0; i < DLDB__COUNT_CACHE; i++) free(m->counts[i].key);
  free(m);
}

int dldb__memo_get(dldb__shared *m, const char *key, uint64_t *bits, size_t nwords,
                   int64_t *value) {
  if (!m) return 0;
  pthread_mutex_lock(&m->mu);
  int hit = m->memo_key && m->memo_words == nwords && strcmp(m->memo_key, key) == 0;
  if (hit) {
    memcpy(bits, m->memo_bits, nwords * sizeof *bits);
    *value = m->memo_value;
  }
  pthread_mutex_unlock(&m->mu);
  return hit;
}

void dldb__memo_put(dldb__shared *m, const char *key, const uint64_t *bits, size_t nwords,
                    int64_t value) {
  if (!m) return;
  char *k = strdup(key);
  uint64_t *b = malloc(nwords * sizeof *b);
  if (!k || !b) {
    free(k);
    free(b);
    return;
  }
  memcpy(b, bits, nwords * sizeof *b);
  pthread_mutex_lock(&m->mu);
  char *old_key = m->memo_key;
  uint64_t *old_bits = m->memo_bits;
  m->memo_key = k;
  m->memo_bits = b;
  m->memo_words = nwords;
  m->memo_value = value;
  pthread_mutex_unlock(&m->mu);
  free(old_key);
  free(old_bits);
}

int dldb__count_get(dldb__shared *m, const char *key, int64_t *value) {
  int hit = 0;
  pthread_mutex_lock(&m->mu);
  for (int i = 0; i < DLDB__COUNT_CACHE && !hit; i++)
    if (m->counts[i].key && strcmp(m->counts[i].key, key) == 0) {
      *value = m->counts[i].value;
      hit = 1;
    }
  pthread_mutex_unlock(&m->mu);
  return hit;
}

void dldb__count_put(dldb__shared *m, char *key, int64_t value) {
  pthread_mutex_lock(&m->mu); /* another thread may have counted it too: same value */
  dldb__count *slot = &m->counts[m->next_count];
  m->next_count = (m->next_count + 1) % DLDB__COUNT_CACHE;
  free(slot->key);
  slot->key = key;
  slot->value = value;
  pthread_mutex_unlock(&m->mu);
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

int dldb__strmatch_any(dldb__shared *m, sqlite3 *sql, const char *pattern) {
  strbits *b = NULL;
  int rc = strbits_get(m, sql, pattern, &b);
  if (rc != SQLITE_OK) return -rc;
  int any = 0;
  for (int64_t i = 0; i < (b->nbits + 7) / 8 && !any; i++) any = b->bits[i] != 0;
  free(b);
  return any;
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
