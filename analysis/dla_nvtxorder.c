/*
 * dla_nvtxorder.c - the name order of the NVTX statistics rows (see
 * dla_nvtxorder.h).
 *
 * The rows' distinct name ids come from a bitmap; their texts are read in
 * id order (one pass over `strings`) into parts (dla_nvtxparts.h: one part
 * sorted in memory when they fit, else parts sorted and spilled to a
 * temporary file, then merged) that hand the names on in text order.
 * Names with equal texts share a place; the places and each distinct
 * text, in order, go to the writer (dldb_write_nvtx.h).
 * Memory: 4 bytes a name for its id while the texts are read, then 4 for
 * its place and 2 for its form (FIXED a name bounds them), and the parts'
 * room: the budget bounds both; a bit per string id besides.
 */
#include "dla_nvtxorder.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dla_internal.h"
#include "dla_nvtxparts.h"
#include "dldb_write_nvtx.h"

enum { OVER_BUDGET = DLA_NVTX_PARTS_OVER, FIXED = 8, MIN_PART = 4096 };

typedef struct names {
  uint32_t *id;  /* distinct name ids, ascending */
  size_t n;
  size_t nwords; /* of the bitmap of ids */
  dla_nvtx_parts parts;
} names;

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

/* Rewrites the keys key[0..n-1] (name id * 2 + style) to their names'
 * places: the name's index is its id's rank among the bitmap's ids. */
typedef struct remap {
  uint32_t *key;
  int64_t n;
  const uint64_t *bits;
  const uint32_t *before, *place;
} remap;

static void *remap_keys(void *arg) {
  const remap *m = arg;
  for (int64_t r = 0; r < m->n; r++) {
    uint32_t id = m->key[r] >> 1;
    uint64_t below = m->bits[id / 64] & ((1ull << (id % 64)) - 1);
    m->key[r] = m->place[m->before[id / 64] + (uint32_t)__builtin_popcountll(below)];
  }
  return NULL;
}

/* Places the names, rewrites each row's key to its name's place (each
 * table's on a thread of its own: random reads, 21 M rows at 10 M) and
 * hands the order over (*written: the writer was called). */
static int handover(dla_ctx *c, uint32_t *const key[2], const int64_t n[2], names *x,
                    const uint64_t *bits, const uint32_t *before, int *written) {
  placer p = {.c = c, .place = malloc((x->n + 1) * sizeof *p.place)};
  int rc = p.place ? dldb_aggr_nvtx_names_open(c->w, x->n, &p.o, c->err, c->errlen) : DL_ENOMEM;
  if (rc == DL_OK) rc = dla__nvtx_parts_emit(&x->parts, put_name, &p);
  if (rc == DL_OK) { /* each row's name's place */
    remap m[2];
    for (int k = 0; k < 2; k++)
      m[k] = (remap){.key = key[k], .n = n[k], .bits = bits, .before = before, .place = p.place};
    pthread_t th;
    int started = pthread_create(&th, NULL, remap_keys, &m[1]) == 0;
    remap_keys(&m[0]);
    if (started) pthread_join(th, NULL);
    else remap_keys(&m[1]); /* no thread: in turn */
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
  size_t room = rc == DL_OK ? budget - x.n * FIXED : 0;
  dla__nvtx_parts_init(&x.parts, room > UINT32_MAX ? UINT32_MAX : room, x.n); /* offsets: 4 B */
  if (rc == DL_OK) rc = name_ids(bits, &x);
  if (rc == DL_OK)
    rc = dldb_aggr_nvtx_texts(c->w, x.id, x.n, dla__nvtx_parts_add, &x.parts, c->err, c->errlen);
  free(x.id);
  x.id = NULL;
  int written = 0;
  if (rc == DL_OK) rc = handover(c, key, n, &x, bits, before, &written);
  if (!written && (rc == OVER_BUDGET || rc == DL_ENOTFOUND || rc == DL_ENOMEM || rc == DL_EIO))
    rc = DL_OK; /* dldb_aggr_end sorts them */
  dla__nvtx_parts_free(&x.parts);
  free(bits);
  free(before);
  return rc;
}
