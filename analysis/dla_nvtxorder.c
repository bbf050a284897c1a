/*
 * dla_nvtxorder.c - the name order of the NVTX statistics rows (see
 * dla_nvtxorder.h).
 *
 * The rows' distinct name ids come from a bitmap; their texts are read in
 * id order (one pass over `strings`) into parts (dla_nvtxparts.h: one part
 * sorted in memory when they fit, else parts sorted and spilled to a
 * temporary file, then merged) that hand the names on in text order.
 * Names with equal texts share a place; the places and each distinct
 * text, in order, go to the writer (dldb_write_nvtx.h). The texts are
 * read on the caller's thread; the merge, the forms and the keys' places
 * on a second one, while the caller's writer writes other rows; the
 * order is written when the caller finishes it.
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

/* An order under way (dla_nvtxorder.h). */
struct dla_nvtx_order {
  uint32_t *key[2]; /* the rows' keys (owned), then their names' places */
  int64_t n[2];
  names x;
  uint64_t *bits;
  uint32_t *before;
  dldb_nvtx_names *o;
  pthread_t th;
  int started; /* th runs */
  int rc;      /* the thread's */
  char err[512];
};

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
  dldb_nvtx_names *o;
  uint32_t *place; /* by name index */
  size_t g;        /* places given */
  char *err;
  size_t errlen;
} placer;

static int put_name(void *ctx, uint32_t i, const char *t, size_t len, int same) {
  placer *p = ctx;
  if (!same) {
    int rc = dldb_aggr_nvtx_names_add(p->o, p->g++, t, len, p->err, p->errlen);
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

/* The second thread: places the names as the parts hand them on in order
 * (their forms found by the hand-over), then rewrites each row's key to
 * its name's place (each table's on a thread of its own: random reads, 21
 * M rows at 10 M). No database is read or written. */
static void *place_names(void *arg) {
  dla_nvtx_order *a = arg;
  placer p = {.o = a->o, .place = malloc((a->x.n + 1) * sizeof *p.place), .err = a->err,
              .errlen = sizeof a->err};
  int rc = p.place ? dla__nvtx_parts_emit(&a->x.parts, put_name, &p) : DL_ENOMEM;
  if (rc == DL_OK) {
    remap m[2];
    for (int k = 0; k < 2; k++)
      m[k] = (remap){.key = a->key[k], .n = a->n[k], .bits = a->bits, .before = a->before,
                     .place = p.place};
    pthread_t th;
    int started = pthread_create(&th, NULL, remap_keys, &m[1]) == 0;
    remap_keys(&m[0]);
    if (started) pthread_join(th, NULL);
    else remap_keys(&m[1]); /* no thread: in turn */
  }
  free(p.place);
  dla__nvtx_parts_free(&a->x.parts); /* the texts' memory back before the writes */
  a->rc = rc;
  return NULL;
}

static void order_free(dla_nvtx_order *a) {
  dldb_aggr_nvtx_names_free(&a->o);
  dla__nvtx_parts_free(&a->x.parts);
  free(a->x.id);
  free(a->bits);
  free(a->before);
  free(a->key[0]);
  free(a->key[1]);
  free(a);
}

/* Where the order is given up and dldb_aggr_end sorts the names. */
static int given_up(int rc) {
  return rc == OVER_BUDGET || rc == DL_ENOTFOUND || rc == DL_ENOMEM || rc == DL_EIO;
}

int dla__nvtx_order_start(dla_ctx *c, uint32_t *key[2], const int64_t n[2], size_t budget,
                          dla_nvtx_order **out) {
  *out = NULL;
  if ((!n[0] && !n[1]) || !dldb_aggr_nvtx_order_wanted(c->w)) return DL_OK;
  dla_nvtx_order *a = calloc(1, sizeof *a);
  if (!a) return DL_OK; /* dldb_aggr_end sorts them */
  for (int k = 0; k < 2; k++) {
    a->key[k] = key[k];
    a->n[k] = n[k];
  }
  if (!budget) budget = DLA_NVTX_ORDER_BUDGET;
  names *x = &a->x;
  int rc = name_bits(key, n, x, &a->bits, &a->before);
  if (rc == DL_OK && x->n * FIXED + MIN_PART > budget) rc = OVER_BUDGET;
  size_t room = rc == DL_OK ? budget - x->n * FIXED : 0;
  dla__nvtx_parts_init(&x->parts, room > UINT32_MAX ? UINT32_MAX : room, x->n); /* offsets: 4 B */
  if (rc == DL_OK) rc = name_ids(a->bits, x);
  if (rc == DL_OK)
    rc = dldb_aggr_nvtx_texts(c->w, x->id, x->n, dla__nvtx_parts_add, &x->parts, c->err,
                              c->errlen);
  free(x->id);
  x->id = NULL;
  if (rc == DL_OK) rc = dldb_aggr_nvtx_names_open(c->w, x->n, &a->o, c->err, c->errlen);
  if (rc == DL_OK) {
    a->started = pthread_create(&a->th, NULL, place_names, a) == 0;
    if (!a->started) place_names(a); /* no thread: here */
  }
  if (rc != DL_OK) {
    a->key[0] = a->key[1] = NULL; /* still the caller's */
    order_free(a);
    return given_up(rc) ? DL_OK : rc;
  }
  key[0] = key[1] = NULL; /* the order's */
  *out = a;
  return DL_OK;
}

int dla__nvtx_order_finish(dla_ctx *c, dla_nvtx_order **o, int write) {
  dla_nvtx_order *a = *o;
  if (!a) return DL_OK;
  *o = NULL;
  if (a->started) pthread_join(a->th, NULL);
  int rc = write ? a->rc : DL_OK;
  if (given_up(rc)) rc = DL_OK; /* dldb_aggr_end sorts them */
  else if (rc != DL_OK) dl_err(c->err, c->errlen, rc, "%s", a->err);
  else if (write && a->rc == DL_OK) /* its failures are the aggregation's: rows may be written */
    rc = dldb_aggr_nvtx_names_write(a->o, (const uint32_t *const *)a->key, a->n, c->err,
                                    c->errlen);
  order_free(a);
  return rc;
}
