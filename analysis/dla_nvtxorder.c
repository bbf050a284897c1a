/*
 * dla_nvtxorder.c - the name order of the NVTX statistics rows, in memory
 * (see dla_nvtxorder.h).
 *
 * The rows' distinct name ids come from a bitmap; their texts are read in
 * id order into one block; the names are sorted by a multikey sort: each
 * name carries 8 bytes of its text from a depth (big-endian, so integer
 * order is memcmp order) and how much of it is left there, a range of
 * names is sorted by that, and each run of equal names that go on is
 * sorted again 8 bytes deeper (a stack of ranges, not recursion). Names
 * with equal texts share a place. SQLite's BINARY order is memcmp, then
 * the shorter first: a name that ends inside the 8 bytes pads them with
 * 0 and has less left, so it sorts before every longer one it begins.
 * Memory: the texts plus 48 bytes a name (DLA_NVTX_ORDER_BUDGET bounds
 * both), a bit per string id.
 */
#include "dla_nvtxorder.h"

#include <stdlib.h>
#include <string.h>

#include "dla_internal.h"
#include "dla_introsort.h"
#include "dldb_write_nvtx.h"

enum { OVER_BUDGET = 1, PER_NAME = 48 };

/* A name in the sort: 8 bytes of text from the range's depth, the bytes
 * left from there (at most 9: 9 means more than 8), its index and its
 * text's place (so that a load touches only the text). */
typedef struct ent {
  uint64_t k;
  uint32_t left, i;
  uint32_t off, len;
} ent;

static inline int ent_lt(const ent *a, const ent *b) {
  return a->k < b->k || (a->k == b->k && a->left < b->left);
}

INTROSORT(ent_intro, ent, ent_lt)

typedef struct names {
  uint32_t *id;     /* distinct name ids, ascending */
  size_t n;
  char *text;       /* the texts, one after the other */
  size_t used, cap, budget;
  uint32_t *off, *len; /* by index into id */
  size_t nwords;       /* of the bitmap of ids */
} names;

static int add_text(void *ctx, size_t i, const char *t, size_t len) {
  names *x = ctx;
  if (x->used + len > x->budget) return OVER_BUDGET;
  if (!x->text || x->used + len > x->cap) { /* a block even for empty names */
    size_t nc = x->cap ? x->cap : 1 << 20;
    while (nc < x->used + len) nc *= 2;
    if (nc > x->budget) nc = x->budget;
    char *p = realloc(x->text, nc);
    if (!p) return DL_ENOMEM;
    x->text = p;
    x->cap = nc;
  }
  memcpy(x->text + x->used, t, len);
  x->off[i] = (uint32_t)x->used;
  x->len[i] = (uint32_t)len;
  x->used += len;
  return DL_OK;
}

/* e's 8 bytes of text from depth d. */
static void ent_load(ent *e, const names *x, size_t d) {
  const uint8_t *t = (const uint8_t *)x->text + e->off;
  size_t len = e->len, left = len > d ? len - d : 0;
  uint64_t k = 0;
  for (size_t j = 0; j < 8; j++) k = k << 8 | (j < left ? t[d + j] : 0);
  e->k = k;
  e->left = left > 8 ? 9 : (uint32_t)left;
}

typedef struct range {
  size_t lo, hi, depth;
} range;

/* Sorts v[0..n-1] by text: the multikey sort over a stack of ranges. */
static int sort_names(ent *v, size_t n, const names *x) {
  size_t cap = 64, top = 0;
  range *st = malloc(cap * sizeof *st);
  if (!st) return DL_ENOMEM;
  st[top++] = (range){0, n, 0};
  while (top) {
    range r = st[--top];
    for (size_t i = r.lo; i < r.hi; i++) ent_load(&v[i], x, r.depth);
    ent_intro(v + r.lo, r.hi - r.lo, dla__sort_depth(r.hi - r.lo));
    for (size_t i = r.lo; i < r.hi;) {
      size_t j = i + 1;
      while (j < r.hi && v[j].k == v[i].k && v[j].left == v[i].left) j++;
      if (j - i > 1 && v[i].left > 8) { /* equal so far and longer: deeper */
        if (top == cap) {
          range *p = realloc(st, 2 * cap * sizeof *st);
          if (!p) {
            free(st);
            return DL_ENOMEM;
          }
          st = p;
          cap *= 2;
        }
        st[top++] = (range){i, j, r.depth + 8};
      }
      i = j;
    }
  }
  free(st);
  return DL_OK;
}

/* The rows' distinct name ids in a bitmap: word w has the ids 64 w..;
 * before[w]: the ids set in the words before; x->n: how many. */
static int name_bits(uint32_t *const key[2], const int64_t n[2], names *x, uint64_t **bits,
                     uint32_t **before) {
  uint32_t most = 0;
  for (int k = 0; k < 2; k++)
    for (int64_t r = 0; r < n[k]; r++)
      if (key[k][r] >> 1 > most) most = key[k][r] >> 1;
  size_t nwords = (size_t)most / 64 + 1, total = 0;
  *bits = calloc(nwords, sizeof **bits);
  *before = malloc(nwords * sizeof **before);
  if (!*bits || !*before) return DL_ENOMEM;
  for (int k = 0; k < 2; k++)
    for (int64_t r = 0; r < n[k]; r++) {
      uint32_t id = key[k][r] >> 1;
      (*bits)[id / 64] |= 1ull << (id % 64);
    }
  for (size_t w = 0; w < nwords; w++) {
    (*before)[w] = (uint32_t)total;
    total += (size_t)__builtin_popcountll((*bits)[w]);
  }
  x->n = total;
  x->nwords = nwords;
  return DL_OK;
}

/* The ids of the bitmap, ascending, into x->id (and room for their texts'
 * places). */
static int name_ids(const uint64_t *bits, names *x) {
  x->id = malloc((x->n + 1) * sizeof *x->id);
  x->off = malloc((x->n + 1) * sizeof *x->off);
  x->len = malloc((x->n + 1) * sizeof *x->len);
  if (!x->id || !x->off || !x->len) return DL_ENOMEM;
  for (size_t w = 0, i = 0; w < x->nwords; w++)
    for (uint64_t b = bits[w]; b; b &= b - 1)
      x->id[i++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
  return DL_OK;
}

/* After the sort: place[i] of each name index, the distinct texts in
 * order (their first name's). */
static int places_of(const ent *v, const names *x, uint32_t *place, const char ***text,
                     uint32_t **len, size_t *ng) {
  size_t g = 0;
  *text = malloc((x->n + 1) * sizeof **text);
  *len = malloc((x->n + 1) * sizeof **len);
  if (!*text || !*len) return DL_ENOMEM;
  for (size_t j = 0; j < x->n; j++) {
    uint32_t i = v[j].i;
    const char *t = x->text + v[j].off;
    if (g == 0 || v[j].len != (*len)[g - 1] || memcmp(t, (*text)[g - 1], v[j].len) != 0) {
      (*text)[g] = t;
      (*len)[g++] = v[j].len;
    }
    place[i] = (uint32_t)(g - 1);
  }
  *ng = g;
  return DL_OK;
}

/* Sorts the names, gives each row its name's place and hands the order
 * over (*written: the writer was called). */
static int handover(dla_ctx *c, uint32_t *const key[2], const int64_t n[2], names *x,
                    const uint64_t *bits, const uint32_t *before, int *written) {
  ent *v = malloc((x->n + 1) * sizeof *v);
  if (!v) return DL_ENOMEM;
  for (size_t i = 0; i < x->n; i++) v[i] = (ent){.i = (uint32_t)i, .off = x->off[i], .len = x->len[i]};
  free(x->off); /* in the entries now */
  free(x->len);
  x->off = x->len = NULL;
  int rc = sort_names(v, x->n, x);
  uint32_t *place = rc == DL_OK ? malloc((x->n + 1) * sizeof *place) : NULL;
  const char **text = NULL;
  uint32_t *len = NULL;
  size_t ng = 0;
  if (rc == DL_OK && !place) rc = DL_ENOMEM;
  if (rc == DL_OK) rc = places_of(v, x, place, &text, &len, &ng);
  free(v);
  for (int k = 0; rc == DL_OK && k < 2; k++) /* each row's name's place */
    for (int64_t r = 0; r < n[k]; r++) {
      uint32_t id = key[k][r] >> 1;
      uint64_t below = bits[id / 64] & ((1ull << (id % 64)) - 1);
      key[k][r] = place[before[id / 64] + (uint32_t)__builtin_popcountll(below)];
    }
  free(place);
  if (rc == DL_OK) {
    *written = 1; /* its failures are the aggregation's: rows may be written */
    rc = dldb_aggr_nvtx_order(c->w, (const char *const *)text, len, ng,
                              (const uint32_t *const *)key, n, c->err, c->errlen);
  }
  free(text);
  free(len);
  return rc;
}

int dla__nvtx_order(dla_ctx *c, uint32_t *const key[2], const int64_t n[2], size_t budget) {
  if ((!n[0] && !n[1]) || !dldb_aggr_nvtx_order_wanted(c->w)) return DL_OK;
  names x = {.budget = budget ? budget : DLA_NVTX_ORDER_BUDGET};
  if (x.budget > UINT32_MAX) x.budget = UINT32_MAX; /* offsets are 4 bytes */
  uint64_t *bits = NULL;
  uint32_t *before = NULL;
  int rc = name_bits(key, n, &x, &bits, &before);
  if (rc == DL_OK && x.n * PER_NAME >= x.budget) rc = OVER_BUDGET;
  if (rc == DL_OK) rc = name_ids(bits, &x);
  if (rc == DL_OK) {
    x.budget -= x.n * PER_NAME;
    rc = dldb_aggr_nvtx_texts(c->w, x.id, x.n, add_text, &x, c->err, c->errlen);
  }
  free(x.id);
  x.id = NULL;
  int written = 0;
  if (rc == DL_OK) rc = handover(c, key, n, &x, bits, before, &written);
  if (!written && (rc == OVER_BUDGET || rc == DL_ENOTFOUND || rc == DL_ENOMEM))
    rc = DL_OK; /* dldb_aggr_end sorts them */
  free(bits);
  free(before);
  free(x.text);
  free(x.off);
  free(x.len);
  return rc;
}
