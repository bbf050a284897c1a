/*
 * dla_write_durs.c - the aggregation's kernel launches by GPU duration
 * (aggr_dl_kernel_durs), sorted in memory on a second thread while the
 * other writers write, then written in key order (dldb_write_durs.h), so
 * that SQLite appends them rather than sorting the aggregation's rows.
 *
 * A launch is 16 bytes while sorted: its call's start, its duration and its
 * kernel's index. Kernels are in kernels.id order (dla_ctx.h), so the index
 * orders them as their ids do. Durations of DLA_LONG or more (over 4.3 s)
 * sort after every other, among themselves by their full duration. Where
 * the analysis's durations are not the table's (a kernel that ends before
 * it starts is 0 here), or its ids do not ascend, the writer's own sorted
 * statement fills the table instead (dldb_aggr_end).
 */
#include <pthread.h>
#include <stdlib.h>

#include "dla_introsort.h"
#include "dla_write_durs.h"
#include "dldb_write_durs.h"

typedef struct kdur {
  int64_t start;
  uint32_t dur; /* DLA_LONG: the kernel's full duration is in c->klong */
  uint32_t idx;
} kdur;

static inline int kdur_lt(const kdur *a, const kdur *b) {
  if (a->dur != b->dur) return a->dur < b->dur;
  if (a->start != b->start) return a->start < b->start;
  return a->idx < b->idx;
}
INTROSORT(kdur_sort, kdur, kdur_lt)

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

/* 1 when the analysis's records give the table's rows exactly. */
static int exact(const dla_ctx *c) {
  if (c->kdur_clamped || c->nk > UINT32_MAX) return 0;
  if (c->kid)
    for (size_t i = 1; i < c->nk; i++)
      if (c->kid[i] <= c->kid[i - 1]) return 0;
  return 1;
}

/* Gathers the aggregated launches (those w_kernels writes) and sorts them. */
static int gather(dla_durs *d) {
  const dla_ctx *c = d->c;
  size_t n = 0;
  int32_t hint = 0;
  kdur *v = malloc((c->nk ? c->nk : 1) * sizeof *v);
  if (!v) return DL_ENOMEM;
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    if (!dla__in_aggr(c, dla__kern_iter(c, k, &hint))) continue;
    v[n++] = (kdur){.start = dla__kern_api_start(c, k), .dur = k->dur, .idx = (uint32_t)i};
  }
  kdur_sort(v, n, dla__sort_depth(n));
  d->v = v;
  d->n = n;
  return DL_OK;
}

static void *gather_main(void *arg) {
  dla_durs *d = arg;
  d->rc = gather(d);
  return NULL;
}

void dla__durs_start(dla_ctx *c, dla_durs *d) {
  *d = (dla_durs){.c = c};
  if (!exact(c)) return;
  d->wanted = 1;
  d->threaded = pthread_create(&d->thread, NULL, gather_main, d) == 0;
}

/* The launches of DLA_LONG (v[from..n-1]) by their full duration. */
static int write_long(dla_durs *d, size_t from, int64_t aggr_id) {
  dla_ctx *c = d->c;
  size_t m = d->n - from;
  klong *l = malloc((m ? m : 1) * sizeof *l);
  if (!l) return DL_ENOMEM;
  for (size_t i = 0; i < m; i++) {
    uint32_t idx = d->v[from + i].idx;
    l[i] = (klong){.dur = dla__kern_dur(c, &c->k[idx]), .start = d->v[from + i].start,
                   .idx = idx};
  }
  klong_sort(l, m, dla__sort_depth(m));
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < m; i++)
    rc = dldb_aggr_kernel_dur(c->w, aggr_id, l[i].dur, l[i].start,
                              dla__kern_id(c, &c->k[l[i].idx]), c->err, c->errlen);
  free(l);
  return rc;
}

int dla__durs_write(dla_durs *d, int64_t aggr_id) {
  dla_ctx *c = d->c;
  if (!d->wanted) return DL_OK;
  if (d->threaded) pthread_join(d->thread, NULL);
  else d->rc = gather(d);
  d->threaded = 0;
  int rc = d->rc;
  if (rc) return dl_err(c->err, c->errlen, rc, "dla_aggregate: kernel durations: out of memory");
  if (!dldb_aggr_kernel_durs_begin(c->w)) return DL_OK;
  size_t i = 0;
  for (; rc == DL_OK && i < d->n && d->v[i].dur != DLA_LONG; i++) {
    const dla_kern *k = &c->k[d->v[i].idx];
    rc = dldb_aggr_kernel_dur(c->w, aggr_id, d->v[i].dur, d->v[i].start, dla__kern_id(c, k),
                              c->err, c->errlen);
  }
  if (rc == DL_OK && i < d->n) rc = write_long(d, i, aggr_id);
  return rc;
}

void dla__durs_free(dla_durs *d) {
  if (d->threaded) pthread_join(d->thread, NULL);
  d->threaded = 0;
  free(d->v);
  d->v = NULL;
  d->n = 0;
}
