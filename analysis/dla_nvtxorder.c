/*
 * dla_nvtxorder.c - the name order of the NVTX statistics rows (see
 * dla_nvtxorder.h).
 *
 * The rows' distinct name ids come from a bitmap; their texts are read in
 * id order (one pass over `strings`) into a part of the budget's size.
 * When every text fits in the part, it is sorted (dla_nvtxsort.h) and the
 * names placed in memory; otherwise each full part is sorted and spilled
 * to a temporary file (dla_nvtxspill.h) and the parts are merged at the
 * end. Names with equal texts share a place; the places and each distinct
 * text, in order, go to the writer (dldb_write_nvtx.h).
 * Memory: 4 bytes a name for its id while the texts are read, then 4 for
 * its place and 2 for its form (FIXED a name bounds them); the part, its
 * texts and PER_NAME bytes a name (its text's place and its sort entry);
 * the merge's buffers. The budget bounds all of it; a bit per string id
 * besides.
 */
#include "dla_nvtxorder.h"

#include <stdlib.h>
#include <string.h>

#include "dla_internal.h"
#include "dla_nvtxsort.h"
#include "dla_nvtxspill.h"
#include "dldb_write_nvtx.h"

enum { OVER_BUDGET = 1, FIXED = 8, PER_NAME = 32, MIN_PART = 4096 };

typedef struct span {
  uint32_t off, len;
} span;

typedef struct names {
  uint32_t *id;  /* distinct name ids, ascending */
  size_t n;
  size_t nwords; /* of the bitmap of ids */
  size_t room;   /* bytes a part may take: its texts and PER_NAME a name */
  char *text;    /* the part's texts, one after the other */
  size_t used, cap;
  span *at;      /* the part's names: indices first.. first + count - 1 */
  size_t first, count, atcap;
  dla_nvtx_spill *spill;
} names;

/* The part's names sorted by text (*out, count of them). */
static int part_sorted(const names *x, dla_nvtx_ent **out) {
  dla_nvtx_ent *v = malloc((x->count + 1) * sizeof *v);
  *out = v;
  if (!v) return DL_ENOMEM;
  for (size_t j = 0; j < x->count; j++)
    v[j] = (dla_nvtx_ent){.i = (uint32_t)(x->first + j), .off = x->at[j].off, .len = x->at[j].len};
  return dla__nvtx_sort(v, x->count, x->text);
}

/* Sorts the part, spills it and starts the next. */
static int spill_part(names *x) {
  dla_nvtx_ent *v = NULL;
  int rc = part_sorted(x, &v);
  if (rc == DL_OK) rc = dla__nvtx_spill_part(&x->spill, v, x->count, x->text);
  free(v);
  x->first += x->count;
  x->count = x->used = 0;
  return rc;
}

static int add_text(void *ctx, size_t i, const char *t, size_t len) {
  names *x = ctx;
  (void)i; /* first + count: the texts come in index order */
  if (x->used + len + (x->count + 1) * PER_NAME > x->room) {
    if (!x->count) return OVER_BUDGET; /* one name over a part */
    int rc = spill_part(x);
    if (rc) return rc;
  }
  if (!x->text || x->used + len > x->cap) { /* a block even for empty names */
    size_t nc = x->cap ? x->cap : 1 << 20;
    while (nc < x->used + len) nc *= 2;
    if (nc > x->room) nc = x->room;
    char *p = realloc(x->text, nc);
    if (!p) return DL_ENOMEM;
    x->text = p;
    x->cap = nc;
  }
  if (x->count == x->atcap && dl_grow((void **)&x->at, &x->atcap, x->count + 1, sizeof *x->at))
    return DL_ENOMEM;
  memcpy(x->text + x->used, t, len);
  x->at[x->count++] = (span){(uint32_t)x->used, (uint32_t)len};
  x->used += len;
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

/* The ids of the bitmap, ascending, into x->id. */
static int name_ids(const uint64_t *bits, names *x) {
  x->id = malloc((x->n + 1) * sizeof *x->id);
  if (!x->id) return DL_ENOMEM;
  for (size_t w = 0, i = 0; w < x->nwords; w++)
    for (uint64_t b = bits[w]; b; b &= b - 1)
      x->id[i++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
  return DL_OK;
}

/* Gives the names their places as they come in order. */
typedef struct placer {
  dla_ctx *c;
  dldb_nvtx_names *o;
  uint32_t *place; /* by name index */
  size_t g;        /* places given */
} placer;

static int put_name(void *ctx, uint32_t i, const char *t, size_t len, int same) {
  placer *p = ctx;
  if (!same) {
    int rc = dldb_aggr_nvtx_names_add(p->o, p->g++, t, len, p->c->err, p->c->errlen);
    if (rc) return rc;
  }
  p->place[i] = (uint32_t)(p->g - 1);
  return DL_OK;
}

/* The names in order to p: the one part sorted in memory, or the parts
 * spilled (the last one too) and merged. */
static int place_names(names *x, placer *p) {
  int rc = DL_OK;
  if (!x->spill) {
    dla_nvtx_ent *v = NULL;
    rc = part_sorted(x, &v);
    for (size_t j = 0; rc == DL_OK && j < x->count; j++) {
      const char *t = x->text + v[j].off;
      int same = j && v[j].len == v[j - 1].len && memcmp(t, x->text + v[j - 1].off, v[j].len) == 0;
      rc = put_name(p, v[j].i, t, v[j].len, same);
    }
    free(v);
    return rc;
  }
  if (x->count) rc = spill_part(x);
  free(x->text); /* the merge's buffers instead */
  free(x->at);
  x->text = NULL;
  x->at = NULL;
  if (rc == DL_OK) rc = dla__nvtx_spill_merge(x->spill, x->room, put_name, p);
  return rc;
}

/* Places the names, rewrites each row's key to its name's place and hands
 * the order over (*written: the writer was called). */
static int handover(dla_ctx *c, uint32_t *const key[2], const int64_t n[2], names *x,
                    const uint64_t *bits, const uint32_t *before, int *written) {
  placer p = {.c = c, .place = malloc((x->n + 1) * sizeof *p.place)};
  int rc = p.place ? dldb_aggr_nvtx_names_open(c->w, x->n, &p.o, c->err, c->errlen) : DL_ENOMEM;
  if (rc == DL_OK) rc = place_names(x, &p);
  for (int k = 0; rc == DL_OK && k < 2; k++) /* each row's name's place */
    for (int64_t r = 0; r < n[k]; r++) {
      uint32_t id = key[k][r] >> 1;
      uint64_t below = bits[id / 64] & ((1ull << (id % 64)) - 1);
      key[k][r] = p.place[before[id / 64] + (uint32_t)__builtin_popcountll(below)];
    }
  free(p.place);
  if (rc == DL_OK) {
    *written = 1; /* its failures are the aggregation's: rows may be written */
    rc = dldb_aggr_nvtx_names_write(p.o, (const uint32_t *const *)key, n, c->err, c->errlen);
  }
  dldb_aggr_nvtx_names_free(&p.o);
  return rc;
}

int dla__nvtx_order(dla_ctx *c, uint32_t *const key[2], const int64_t n[2], size_t budget) {
  if ((!n[0] && !n[1]) || !dldb_aggr_nvtx_order_wanted(c->w)) return DL_OK;
  names x = {0};
  if (!budget) budget = DLA_NVTX_ORDER_BUDGET;
  uint64_t *bits = NULL;
  uint32_t *before = NULL;
  int rc = name_bits(key, n, &x, &bits, &before);
  if (rc == DL_OK && x.n * FIXED + MIN_PART > budget) rc = OVER_BUDGET;
  if (rc == DL_OK) {
    x.room = budget - x.n * FIXED;
    if (x.room > UINT32_MAX) x.room = UINT32_MAX; /* offsets are 4 bytes */
    rc = name_ids(bits, &x);
  }
  if (rc == DL_OK) rc = dldb_aggr_nvtx_texts(c->w, x.id, x.n, add_text, &x, c->err, c->errlen);
  free(x.id);
  x.id = NULL;
  int written = 0;
  if (rc == DL_OK) rc = handover(c, key, n, &x, bits, before, &written);
  if (!written && (rc == OVER_BUDGET || rc == DL_ENOTFOUND || rc == DL_ENOMEM || rc == DL_EIO))
    rc = DL_OK; /* dldb_aggr_end sorts them */
  dla__nvtx_spill_close(&x.spill);
  free(bits);
  free(before);
  free(x.text);
  free(x.at);
  return rc;
}
