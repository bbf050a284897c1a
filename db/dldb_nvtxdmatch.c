/* dldb_nvtxdmatch.c - a name filter with digits from the names' forms and
 * digit runs (see dldb_nvtxdmatch.h). Only the forms the filter's form is
 * in are read further: the runs of the slots its places there need, the
 * kind's bitset of those forms' names where it lacks some, and then every
 * row's form and the name order, which give each row its name's index
 * within its form (the rows in name order meet each form's names in
 * turn). */
#include "dldb_nvtxdmatch.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_nvtxdigits.h"
#include "dldb_nvtxidx.h"

enum { CHUNK = DLDB_NVTX_CHUNK, NFORMS = 65536 };

/* How a run of the filter meets the name's run of its slot. */
enum { EQUAL, PREFIX, SUFFIX, INSIDE };

typedef struct frun {
  const char *d; /* its digits, in the filter */
  size_t len;
  int how;
  uint64_t bits;  /* len <= 15: its digits as 4-bit nibbles, the first highest */
} frun;

/* A form the filter's form is in: where, and which of its names match. */
typedef struct cand {
  int form;
  int *at;         /* the slot of the filter's first run, per place */
  int nat;
  int64_t names;   /* the form's names */
  uint64_t *match; /* by name index within the form */
  uint64_t *has;   /* the kind's names of the form; NULL: all */
  int64_t next;    /* the walk: the next name index */
} cand;

typedef struct dm {
  dldb *db;
  dldb__dmatch *m;
  char *form;      /* the filter's form */
  size_t flen, first0; /* its length, and where its first '0' is */
  frun *run;
  int nrun;
  cand *c;
  int nc;
  int32_t *cand_of; /* by form id: index into c, -1 */
  char *digits;    /* a run being read */
  char *err;
  size_t errlen;
} dm;

static int oom(dm *x) {
  return dl_err(x->err, x->errlen, DL_ENOMEM, "%s: out of memory", x->db->path);
}

static int sqlerr(dm *x, int src) {
  return dldb__sql_err(x->db, src, "NVTX digit runs", x->err, x->errlen);
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The filter's form and runs. */
static int parse(dm *x) {
  const char *f = x->m->f;
  size_t n = strlen(f);
  x->form = malloc(n + 1);
  x->run = calloc(n + 1, sizeof *x->run);
  if (!x->form || !x->run) return oom(x);
  for (size_t i = 0; i < n;) {
    if (!is_digit(f[i])) {
      x->form[x->flen++] = f[i++];
      continue;
    }
    size_t b = i;
    while (i < n && is_digit(f[i])) i++;
    if (!x->nrun) x->first0 = x->flen;
    int start = b == 0, end = i == n;
    frun *u = &x->run[x->nrun++];
    *u = (frun){f + b, i - b, start ? (end ? INSIDE : SUFFIX) : end ? PREFIX : EQUAL, 0};
    for (size_t k = b; k < i && u->len <= 15; k++) u->bits = u->bits << 4 | (uint64_t)(f[k] - '0');
    x->form[x->flen++] = '0';
  }
  x->form[x->flen] = '\0';
  return DL_OK;
}

/* Adds form id's place with the filter's first run at slot s. */
static int add_place(dm *x, int id, int s) {
  if (x->cand_of[id] < 0) {
    cand *c = realloc(x->c, (size_t)(x->nc + 1) * sizeof *c);
    if (!c) return oom(x);
    x->c = c;
    x->c[x->nc] = (cand){.form = id};
    x->cand_of[id] = x->nc++;
  }
  cand *c = &x->c[x->cand_of[id]];
  int *at = realloc(c->at, (size_t)(c->nat + 1) * sizeof *at);
  if (!at) return oom(x);
  c->at = at;
  c->at[c->nat++] = s;
  return DL_OK;
}

/* The places of the filter's form in form id's text t (n bytes). */
static int places_in(dm *x, int id, const char *t, size_t n, char *low) {
  for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)t[i]);
  int rc = DL_OK;
  for (size_t at = 0; rc == DL_OK && at + x->flen <= n; at++) {
    const char *p = memmem(low + at, n - at, x->form, x->flen);
    if (!p) break;
    at = (size_t)(p - low);
    int s = 0; /* the '0's before the filter's first run */
    for (size_t i = 0; i < at + x->first0; i++) s += low[i] == '0';
    rc = add_place(x, id, s);
  }
  return rc;
}

/* The forms the filter's form is in: 1, 0 when not every row has a form,
 * or a negative DL_E*. */
static int find_forms(dm *x) {
  sqlite3_stmt *st = dldb__stmt_get(
      x->db, "SELECT form_id, form, rows FROM view_dl_nvtx_forms WHERE aggr_id = ?1 AND kind = ?2",
      x->err, x->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, x->m->aggr_id);
  sqlite3_bind_int(st, 2, x->m->kind);
  char *low = NULL;
  size_t cap = 0;
  int64_t all = 0;
  int src, rc = DL_OK;
  while (rc == DL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    const char *t = (const char *)sqlite3_column_text(st, 1);
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    if (id < 0 || id >= NFORMS || !t) continue;
    all += sqlite3_column_int64(st, 2);
    if (n + 1 > cap) {
      char *p = realloc(low, n + 1);
      if (!p) {
        rc = oom(x);
        break;
      }
      low = p;
      cap = n + 1;
    }
    rc = places_in(x, (int)id, t, n, low);
  }
  if (rc == DL_OK && src != SQLITE_DONE) rc = sqlerr(x, src);
  dldb__stmt_done(st);
  free(low);
  return rc ? rc : all == x->m->n && all > 0;
}

/* 1 when run r (len digits) meets the filter's run u as it must. */
static int meets(const frun *u, const char *r, size_t len) {
  if (len < u->len) return 0;
  switch (u->how) {
  case EQUAL: return len == u->len && memcmp(r, u->d, len) == 0;
  case PREFIX: return memcmp(r, u->d, u->len) == 0;
  case SUFFIX: return memcmp(r + len - u->len, u->d, u->len) == 0;
  default: return memmem(r, len, u->d, u->len) != NULL;
  }
}

/* 1 when the run whose digits start at nibble k of p (len of them) meets
 * u: its digits read where they are, each test ending at the first digit
 * that differs. */
static int meets_packed(const frun *u, const uint8_t *p, size_t k, size_t len) {
  size_t n = u->len;
  if (len < n || (u->how == EQUAL && len != n)) return 0;
  if (len <= 15 && k == 1) { /* the run in one word: a shift and a mask a place */
    size_t nb = (len + 2) / 2;
    uint64_t v = 0, mask = n < 16 ? (1ull << (4 * n)) - 1 : ~0ull;
    for (size_t i = 0; i < nb; i++) v = v << 8 | p[i];
    v = v >> (4 * (2 * nb - 1 - len)) & ((1ull << (4 * len)) - 1);
    if (u->how == PREFIX || u->how == EQUAL) return v >> (4 * (len - n)) == u->bits;
    if (u->how == SUFFIX) return (v & mask) == u->bits;
    for (size_t s = 0; s + n <= len; s++)
      if ((v >> (4 * s) & mask) == u->bits) return 1;
    return 0;
  }
  if (u->how == SUFFIX) k += len - n;
  size_t starts = u->how == INSIDE ? len - n + 1 : 1;
  for (size_t s = 0; s < starts; s++) {
    size_t i = 0;
    while (i < n && dldb__digits_nibble(p, k + s + i) == (unsigned)(u->d[i] - '0')) i++;
    if (i == n) return 1;
  }
  return 0;
}

static int bit(const uint64_t *b, int64_t j) { return (int)(b[j / 64] >> (j % 64) & 1); }
static void clear(uint64_t *b, int64_t j) { b[j / 64] &= ~(1ull << (j % 64)); }

/* The bits [from, to) of b: any set (any), or cleared (!any). */
static int range(uint64_t *b, int64_t from, int64_t to, int any) {
  for (int64_t j = from; j < to;) {
    uint64_t mask = ~0ull << (j % 64);
    if (to - (j - j % 64) < 64) mask &= ~0ull >> (64 - (to - (j - j % 64)));
    if (any && (b[j / 64] & mask)) return 1;
    if (!any) b[j / 64] &= ~mask;
    j += 64 - j % 64;
  }
  return 0;
}

/* Clears in tmp names base..base + m - 1 whose run in blob b (bytes) does
 * not meet u: 1, or 0 when the blob is not well formed. */
static int test_blob(dm *x, const frun *u, const uint8_t *b, size_t bytes, int64_t base,
                     int64_t m, uint64_t *tmp) {
  const uint8_t *p = b + 1, *end = b + bytes;
  size_t len = 0;
  if (bytes < 1) return 0;
  if (b[0] == DLDB__DIGITS_RUNS) {
    for (int64_t j = 0; j < m; j++) {
      const uint8_t *run = p;
      size_t first = 0;
      if (!(p = dldb__digits_run(p, end, &first, &len))) return 0;
      if (bit(tmp, base + j) && !meets_packed(u, run, first, len)) clear(tmp, base + j);
    }
    return p == end;
  }
  if (b[0] != DLDB__DIGITS_DICT || bytes < 2) return 0;
  int nd = b[1] + 1;
  uint8_t ok[256];
  p = b + 2;
  for (int i = 0; i < nd; i++) {
    if (!(p = dldb__digits_unpack(p, end, x->digits, &len))) return 0;
    ok[i] = (uint8_t)meets(u, x->digits, len);
  }
  int oks = 0;
  for (int i = 0; i < nd; i++) oks += ok[i];
  if (nd > 1 && end - p != m) return 0;
  if (oks == 0) range(tmp, base, base + m, 0); /* none of its runs: no name */
  for (int64_t j = 0; oks && oks < nd && j < m; j++)
    if (p[j] >= nd || !ok[p[j]]) clear(tmp, base + j);
  return nd > 1 || p == end;
}

/* Clears in tmp the names of c whose run of slot s does not meet u: 1, 0
 * when the runs are not there or not well formed, or a negative DL_E*. */
static int test_slot(dm *x, const cand *c, int s, const frun *u, uint64_t *tmp) {
  sqlite3_stmt *st = dldb__stmt_get(x->db, "SELECT names, runs FROM view_dl_nvtx_digits WHERE "
                                    "aggr_id = ?1 AND kind = 0 AND form_id = ?2 AND slot = ?3 "
                                    "ORDER BY chunk", x->err, x->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, x->m->aggr_id);
  sqlite3_bind_int(st, 2, c->form);
  sqlite3_bind_int(st, 3, s);
  int64_t base = 0;
  int src, rc = 1;
  while (rc == 1 && (src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t m = sqlite3_column_int64(st, 0);
    if (m <= 0 || m > CHUNK || base + m > c->names) {
      rc = 0;
      break;
    }
    if (!range(tmp, base, base + m, 1)) { /* no name left to test: the blob stays unread */
      base += m;
      continue;
    }
    const uint8_t *b = sqlite3_column_blob(st, 1);
    size_t bytes = (size_t)sqlite3_column_bytes(st, 1);
    rc = b ? test_blob(x, u, b, bytes, base, m, tmp) : 0;
    base += m;
  }
  if (rc == 1 && src != SQLITE_DONE) rc = sqlerr(x, src);
  if (rc == 1 && base != c->names) rc = 0;
  dldb__stmt_done(st);
  return rc;
}

/* The names of c that match: at each place, those not yet matched that
 * meet every run. 1, 0, or a negative DL_E* (as test_slot). */
static int match_form(dm *x, cand *c) {
  size_t words = (size_t)(c->names / 64 + 1);
  c->match = calloc(words, sizeof *c->match);
  uint64_t *tmp = malloc(words * sizeof *tmp);
  int rc = c->match && tmp ? 1 : oom(x);
  for (int a = 0; rc == 1 && a < c->nat; a++) {
    for (size_t w = 0; w < words; w++) tmp[w] = ~c->match[w];
    for (int i = 0; rc == 1 && i < x->nrun; i++)
      rc = test_slot(x, c, c->at[a] + i, &x->run[i], tmp);
    for (size_t w = 0; rc == 1 && w < words; w++) c->match[w] |= tmp[w];
  }
  free(tmp);
  return rc;
}

/* c's name count and the kind's bitset of them (where it lacks some): 1,
 * 0 when there are no runs, or a negative DL_E*. */
static int load_names(dm *x, cand *c) {
  sqlite3_stmt *st = dldb__stmt_get(x->db, "SELECT kind, chunk, names, runs FROM "
                                    "view_dl_nvtx_digits WHERE aggr_id = ?1 AND kind IN (0, ?2) "
                                    "AND form_id = ?3 AND slot = 0 ORDER BY kind, chunk",
                                    x->err, x->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, x->m->aggr_id);
  sqlite3_bind_int(st, 2, x->m->kind);
  sqlite3_bind_int(st, 3, c->form);
  int src, rc = 1;
  while (rc == 1 && (src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t chunk = sqlite3_column_int64(st, 1), m = sqlite3_column_int64(st, 2);
    if (sqlite3_column_int(st, 0) == 0) {
      c->names += m;
      continue;
    }
    const uint8_t *b = sqlite3_column_blob(st, 3);
    int64_t bytes = sqlite3_column_bytes(st, 3);
    if (!c->has && !(c->has = calloc((size_t)(c->names / 64 + 1), sizeof *c->has))) {
      rc = oom(x);
      break;
    }
    if (chunk < 0 || m <= 0 || chunk * CHUNK + m > c->names || bytes * 8 < m || !b) {
      rc = 0;
      break;
    }
    for (int64_t j = 0, h = chunk * CHUNK; j < m; j++, h++)
      if (b[j / 8] >> (j % 8) & 1) c->has[h / 64] |= 1ull << (h % 64);
  }
  if (rc == 1 && src != SQLITE_DONE) rc = sqlerr(x, src);
  dldb__stmt_done(st);
  return rc == 1 && c->names > 0 ? 1 : rc < 0 ? rc : 0;
}

/* Reads every blob of sql (?1 aggr_id, ?2 kind) in order into fn: 1, 0
 * when fn says the blobs do not fit, or a negative DL_E*. */
static int each_blob(dm *x, const char *sql, int (*fn)(dm *x, void *ctx, const uint8_t *b,
                                                       int64_t bytes), void *ctx) {
  sqlite3_stmt *st = dldb__stmt_get(x->db, sql, x->err, x->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, x->m->aggr_id);
  sqlite3_bind_int(st, 2, x->m->kind);
  int src, rc = 1;
  while (rc == 1 && (src = sqlite3_step(st)) == SQLITE_ROW) {
    const uint8_t *b = sqlite3_column_blob(st, 0);
    rc = fn(x, ctx, b, sqlite3_column_bytes(st, 0));
  }
  if (rc == 1 && src != SQLITE_DONE) rc = sqlerr(x, src);
  dldb__stmt_done(st);
  return rc;
}

typedef struct rowforms {
  uint16_t *form; /* by row_idx */
  int64_t n;
} rowforms;

static int put_forms(dm *x, void *ctx, const uint8_t *b, int64_t bytes) {
  rowforms *r = ctx;
  if (bytes % 2 || r->n + bytes / 2 > x->m->n) return 0;
  for (int64_t i = 0; i < bytes / 2; i++)
    r->form[r->n++] = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
  return 1;
}

typedef struct walk {
  const uint16_t *form;
  int64_t p;  /* places seen */
  int kept;   /* the current name is kept */
} walk;

/* The next name index of c that the kind has: -1 when none is left. */
static int64_t next_name(cand *c) {
  while (c->next < c->names && c->has && !bit(c->has, c->next)) c->next++;
  return c->next < c->names ? c->next++ : -1;
}

static uint32_t place_at(const uint8_t *b, int64_t i) {
  return (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
         (uint32_t)b[4 * i + 3] << 24;
}

static int put_places(dm *x, void *ctx, const uint8_t *b, int64_t bytes) {
  walk *w = ctx;
  if (bytes % 4 || w->p + bytes / 4 > x->m->n) return 0;
  enum { AHEAD = 16 }; /* rows are at random: their forms are asked for early */
  for (int64_t i = 0; i < bytes / 4; i++, w->p++) {
    if (i + AHEAD < bytes / 4) {
      uint32_t a = place_at(b, i + AHEAD) & 0x7fffffffu;
      if (a < x->m->n) __builtin_prefetch(&w->form[a]);
    }
    uint32_t v = place_at(b, i);
    int64_t row = v & 0x7fffffffu;
    if (row >= x->m->n) return 0;
    if (!(v >> 31) || w->p == 0) { /* a new name */
      int32_t ci = x->cand_of[w->form[row]];
      w->kept = 0;
      if (ci >= 0) {
        int64_t j = next_name(&x->c[ci]);
        if (j < 0) return 0;
        w->kept = bit(x->c[ci].match, j);
      }
    }
    if (w->kept) {
      x->m->keep[row / 64] |= 1ull << (row % 64);
      x->m->matched++;
    }
  }
  return 1;
}

/* Every row's form, then the walk of the name order: 1, 0, or a DL_E*. */
static int walk_rows(dm *x) {
  rowforms r = {.form = malloc((size_t)(x->m->n + 1) * sizeof *r.form)};
  if (!r.form) return oom(x);
  int rc = each_blob(x, "SELECT forms FROM view_dl_nvtx_row_forms WHERE aggr_id = ?1 AND kind = ?2 "
                        "ORDER BY chunk", put_forms, &r);
  walk w = {.form = r.form};
  if (rc == 1 && r.n != x->m->n) rc = 0;
  if (rc == 1)
    rc = each_blob(x, "SELECT places FROM view_dl_nvtx_name_order WHERE aggr_id = ?1 AND "
                      "kind = ?2 ORDER BY chunk", put_places, &w);
  if (rc == 1 && w.p != x->m->n) rc = 0;
  for (int i = 0; rc == 1 && i < x->nc; i++) /* each form's names met, all of them */
    if (next_name(&x->c[i]) >= 0) rc = 0;
  free(r.form);
  return rc;
}

static int dmatch(dldb *db, dldb__dmatch *m, char *err, size_t errlen) {
  dm x = {.db = db, .m = m, .err = err, .errlen = errlen};
  m->matched = 0;
  x.cand_of = malloc(NFORMS * sizeof *x.cand_of);
  x.digits = malloc(DLDB__DIGITS_RUN_MAX);
  int rc = x.cand_of && x.digits ? parse(&x) : oom(&x);
  if (rc == DL_OK) {
    memset(x.cand_of, 0xff, NFORMS * sizeof *x.cand_of);
    rc = x.nrun ? find_forms(&x) : 0;
  }
  for (int i = 0; rc == 1 && i < x.nc; i++) rc = load_names(&x, &x.c[i]);
  for (int i = 0; rc == 1 && i < x.nc; i++) rc = match_form(&x, &x.c[i]);
  if (rc == 1 && x.nc) rc = walk_rows(&x);
  if (rc != 1) { /* nothing kept */
    memset(m->keep, 0, (size_t)(m->n / 64 + 1) * sizeof *m->keep);
    m->matched = 0;
  }
  for (int i = 0; i < x.nc; i++) {
    free(x.c[i].at);
    free(x.c[i].match);
    free(x.c[i].has);
  }
  free(x.c);
  free(x.cand_of);
  free(x.digits);
  free(x.form);
  free(x.run);
  return rc;
}

/* A page asks for the filter's count, then for its rows, each through
 * here: the file's handles keep the last answer (dldb__memo_*), so the
 * second reads nothing again. */
int dldb__nvtx_dmatch(dldb *db, dldb__dmatch *m, char *err, size_t errlen) {
  size_t words = (size_t)(m->n / 64 + 1), klen = strlen(m->f) + 64;
  char *key = malloc(klen);
  if (!key) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  snprintf(key, klen, "nvtx digits %lld %d %lld %s", (long long)m->aggr_id, m->kind,
           (long long)m->n, m->f);
  int rc = 1;
  if (!dldb__memo_get(db->shared, key, m->keep, words, &m->matched)) {
    rc = dmatch(db, m, err, errlen);
    if (rc == 1) dldb__memo_put(db->shared, key, m->keep, words, m->matched);
  }
  free(key);
  return rc;
}
