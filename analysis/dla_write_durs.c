/*
 * dla_write_durs.c - the aggregation's kernel launches by GPU duration
 * (dla_write_durs.h): sorted in memory (in place, a radix sort on the
 * key's bytes), then written in that order through dldb_write_durs.h, so
 * that the writer need not sort the aggregation's rows itself.
 *
 * Kernels are in kernels.id order (dla_ctx.h), so a launch's index orders
 * it as its id does. Durations of DLA_LONG or more (over 4.3 s) sort after
 * every other, among themselves by their full duration. Where the
 * analysis's durations are not the table's (a kernel that ends before it
 * starts is 0 here), or its ids do not ascend, the writer's own sorted
 * statement fills the table instead (dldb_aggr_end).
 */
#include <stdlib.h>
#include <string.h>

#include "dla_introsort.h"
#include "dla_radixsort.h"
#include "dla_write_durs.h"
#include "dldb_write_durs.h"

static inline int kdur_lt(const dla_kdur *a, const dla_kdur *b) {
  if (a->dur != b->dur) return a->dur < b->dur;
  if (a->start != b->start) return a->start < b->start;
  return a->idx < b->idx;
}
INTROSORT(kdur_sort, dla_kdur, kdur_lt)

/* Byte b of a launch's sort key: its duration, launch time and kernel
 * index, 16 bytes, the most significant first (the time's sign bit
 * flipped, so that unsigned order is its order). */
static inline unsigned kdur_byte(const dla_kdur *e, int b) {
  if (b < 4) return e->dur >> (24 - 8 * b) & 255;
  if (b < 12) {
    uint64_t t = (uint64_t)e->start ^ UINT64_C(1) << 63;
    return (unsigned)(t >> (56 - 8 * (b - 4)) & 255);
  }
  return e->idx >> (24 - 8 * (b - 12)) & 255;
}

static void kdur_small(dla_kdur *v, size_t n) { kdur_sort(v, n, dla__sort_depth(n)); }

/* As kdur_lt orders them: a radix sort on the key's 16 bytes. */
RADIXSORT(kdur_radix, dla_kdur, kdur_byte, 16, kdur_small)

/* The long ones (DLA_LONG, at the end) by their full duration: few. */
typedef struct klong {
  int64_t dur, start;
  uint32_t idx;
} klong;

static inline int klong_lt(const klong *a, const klong *b) {
  if (a->dur != b->dur) return a->dur < b->dur;
  if (a->start != b->start) return a->start < b->start;
  return a->idx < b->idx;
}
INTROSORT(klong_sort, klong, klong_lt)

int dla__durs_fit(const dla_ctx *c) {
  if (c->kdur_clamped || c->nk > UINT32_MAX) return 0;
  if (c->kid)
    for (size_t i = 1; i < c->nk; i++)
      if (c->kid[i] <= c->kid[i - 1]) return 0;
  /* launch j takes call j's place once kernel i has read its call: every
   * later kernel's call must lie past them */
  size_t j = 0;
  int32_t hint = 0;
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    if (k->api >= 0 && (uint64_t)k->api * sizeof(dla_api) < (uint64_t)j * sizeof(dla_kdur))
      return 0;
    if (dla__in_aggr(c, dla__kern_iter(c, k, &hint))) j++;
  }
  return (uint64_t)j * sizeof(dla_kdur) <= (uint64_t)c->na * sizeof(dla_api);
}

/* The launches of DLA_LONG (v[0..m-1]) by their full duration. */
static int write_long(dla_ctx *c, const dla_kdur *v, size_t m, const dla_kspan *ks,
                      int64_t aggr_id) {
  klong *l = malloc((m ? m : 1) * sizeof *l);
  if (!l) return dl_err(c->err, c->errlen, DL_ENOMEM, "dla_aggregate: out of memory");
  for (size_t i = 0; i < m; i++) {
    dla_kspan s;
    memcpy(&s, &ks[v[i].idx], sizeof s);
    l[i] = (klong){.dur = s.end - s.start, .start = v[i].start, .idx = v[i].idx};
  }
  klong_sort(l, m, dla__sort_depth(m));
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < m; i++)
    rc = dldb_aggr_kernel_dur(c->w, aggr_id, l[i].dur, l[i].start,
                              c->kid ? c->kid[l[i].idx] : c->kid0 + (int64_t)l[i].idx, c->err,
                              c->errlen);
  free(l);
  return rc;
}

int dla__durs_write(dla_ctx *c, dla_kdur *v, size_t n, const dla_kspan *ks, int64_t aggr_id) {
  kdur_radix(v, n, 0);
  if (!dldb_aggr_kernel_durs_begin(c->w)) return DL_OK;
  int rc = DL_OK;
  size_t i = 0;
  for (; rc == DL_OK && i < n && v[i].dur != DLA_LONG; i++)
    rc = dldb_aggr_kernel_dur(c->w, aggr_id, v[i].dur, v[i].start,
                              c->kid ? c->kid[v[i].idx] : c->kid0 + (int64_t)v[i].idx, c->err,
                              c->errlen);
  if (rc == DL_OK && i < n) rc = write_long(c, v + i, n - i, ks, aggr_id);
  return rc;
}
