/*
 * dla_sweep.c - resource breakdown and GPU utilization by sweeping time.
 *
 * Every interval (kernels, memory ops, NVTX ranges merged per thread and
 * category first: range_unions) is clipped to the wall window, and to one
 * batch of it at a time (see SWEEP_BATCH_EVENTS), and turned into two events
 * packed in one int64: (time - batch start) << 4 | category << 1 | is_end.
 * After a sort, one pass keeps a counter per
 * category; each stretch of time goes to the highest-priority category
 * that is active (TC kernels > other kernels > memory > dataloader > I/O >
 * CPU (op ranges) > other), split at iteration boundaries. The parts thus
 * sum to the wall time exactly (the iterations' spans: c->wall_ns). Per-GPU busy time, the union of that GPU's
 * kernel intervals, comes from the GPU timeline (dla_comm.c).
 */
#include <stdlib.h>
#include <string.h>

#include "dla_internal.h"

/* The sweep's events are made and swept one batch of time at a time: every
 * interval is clipped to the batch, so each batch holds only the events of
 * the intervals that reach into it, and the array is a batch's, not the
 * whole window's (two int64 per kernel and merged range interval, at the
 * analysis's peak of memory). Coverage is the same:
 * an interval cut at a batch's edge ends there and starts again at the
 * next one's, and the sweep's sums are of time. */
#define SWEEP_BATCH_EVENTS ((size_t)8 << 20) /* 64 MiB of events a batch (dla_tuning.h) */
#define SWEEP_BUCKETS 4096                   /* time buckets the batches are made of */

typedef struct events {
  int64_t *v;         /* NULL: count events per bucket (cnt) instead */
  size_t n;
  int64_t lo, hi;     /* the window intervals are clipped to; keys are relative to lo */
  int shift;          /* counting: bucket of t = (t - lo) >> shift */
  int64_t *cnt;       /* counting: 2 per interval and bucket it reaches, as differences */
} events;

static void add_interval(events *e, int64_t s, int64_t t, int cat) {
  if (s < e->lo) s = e->lo;
  if (t > e->hi) t = e->hi;
  if (t <= s) return;
  if (!e->v) { /* the buckets of [s, t): those of s to t - 1 */
    e->cnt[(s - e->lo) >> e->shift] += 2;
    e->cnt[((t - 1 - e->lo) >> e->shift) + 1] -= 2;
    return;
  }
  e->v[e->n++] = ((s - e->lo) << 4) | (cat << 1);
  e->v[e->n++] = ((t - e->lo) << 4) | (cat << 1) | 1;
}

/* Kernels per GPU in the aggregated iterations (their busy time is the GPU
 * timeline's, dla__comm_compute). */
static void count_gpu_kernels(dla_ctx *c) {
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    if (dla__kern_in_aggr(c, k))
      for (int g = 0; g < c->ngpus; g++)
        if (c->gpu_ids[g] == dla__kern_device(c, k)) c->gpu_kernels[g]++;
  }
}

static int range_cat(const dla_ctx *c, const dla_range *r) {
  return r->op >= 0 && c->ops[r->op].dataloader ? DLA_CAT_DATALOADER : DLA_CAT_CPU;
}

/* The NVTX ranges' intervals as few events: only whether a category is
 * active at each instant matters to the sweep, so on each thread the
 * ranges of one category (sorted by start: c->r's order) are merged into
 * their union first; nested ranges (most of them) then add no events.
 * Intervals that touch merge too: the sweep never saw a gap there either.
 * e NULL: counts the merged intervals; else adds them to e. */
static size_t range_unions(const dla_ctx *c, events *e) {
  size_t n = 0;
  for (size_t i = 0; i < c->nr;) {
    uint32_t tk = dla__range_tk(c, &c->r[i]);
    int64_t cs[2] = {0, 0}, ce[2] = {0, 0}; /* the open union per category, ce > cs */
    int open[2] = {0, 0};
    for (; i < c->nr && dla__range_tk(c, &c->r[i]) == tk; i++) {
      const dla_range *r = &c->r[i];
      if (r->end <= r->start) continue; /* empty: adds nothing */
      int cat = range_cat(c, r), j = cat == DLA_CAT_CPU;
      if (open[j] && r->start <= ce[j]) {
        if (r->end > ce[j]) ce[j] = r->end;
        continue;
      }
      if (open[j]) {
        if (e) add_interval(e, cs[j], ce[j], cat);
        n++;
      }
      open[j] = 1;
      cs[j] = r->start;
      ce[j] = r->end;
    }
    for (int j = 0; j < 2; j++)
      if (open[j]) {
        if (e) add_interval(e, cs[j], ce[j], j ? DLA_CAT_CPU : DLA_CAT_DATALOADER);
        n++;
      }
  }
  return n;
}

/* Every interval of the sweep (kernels, memory ops, merged ranges) into e. */
static void add_all(const dla_ctx *c, events *e) {
  for (size_t i = 0; i < c->nk; i++)
    add_interval(e, c->k[i].gpu_start, dla__kern_end(c, &c->k[i]),
                 dla__kern_tc(c, &c->k[i]) ? DLA_CAT_TC : DLA_CAT_NON_TC);
  for (size_t i = 0; i < c->nm; i++) add_interval(e, c->m[i].start, c->m[i].end, DLA_CAT_MEMORY);
  range_unions(c, e);
}

/* The sweep's state between batches: its time and iteration (no interval
 * is active at a batch's start: those that reach into it start there). */
typedef struct sweep_at {
  int64_t prev, it;
} sweep_at;

/* The stretch [at->prev, t) of category cur, inside iteration at->it: to
 * it and the totals up to the end of its span; time between two spans
 * (dla_spans.c) counts nowhere. */
static void put_time(dla_ctx *c, sweep_at *at, int64_t t, int cur) {
  int64_t stop = dla__iter_end(c, at->it), upto = t < stop ? t : stop;
  if (upto > at->prev) {
    c->iter_cat[at->it * DLA_NCAT + cur] += upto - at->prev;
    c->cat_total[cur] += upto - at->prev;
  }
  at->prev = t;
}

/* Sweeps the sorted events of one batch (keys relative to e->lo) up to
 * time stop: each stretch goes to the highest-priority active category. */
static void sweep_batch(dla_ctx *c, const events *e, int64_t stop, sweep_at *at) {
  int64_t active[DLA_NCAT] = {0};
  int cur = DLA_CAT_OTHER;
  for (size_t i = 0; i <= e->n; i++) {
    int64_t t = i < e->n ? (e->v[i] >> 4) + e->lo : stop;
    while (at->it < c->iter_stop && c->bound[at->it + 1] <= t) {
      int64_t b = c->bound[at->it + 1];
      if (b > at->prev) put_time(c, at, b, cur);
      at->it++;
    }
    if (t > at->prev) put_time(c, at, t, cur);
    if (i == e->n) break;
    int cat = (int)((e->v[i] >> 1) & 7);
    active[cat] += (e->v[i] & 1) ? -1 : 1;
    cur = DLA_CAT_OTHER;
    for (int k = 0; k < DLA_CAT_OTHER; k++)
      if (active[k] > 0) {
        cur = k;
        break;
      }
  }
}

int dla__sweep(dla_ctx *c) {
  int64_t lo = c->wall_start, hi = c->wall_end;
  /* keys hold time << 4: an absurd span (over 2^59 ns, 18 years) is cut there */
  if (hi > lo && (uint64_t)hi - (uint64_t)lo > (uint64_t)(INT64_MAX >> 4)) hi = lo + (INT64_MAX >> 4);
  c->iter_cat = calloc((size_t)c->niter * DLA_NCAT, sizeof *c->iter_cat);
  if (!c->iter_cat) return DL_ENOMEM;
  sweep_at at = {.prev = c->wall_start, .it = c->iter_start};
  if (hi <= lo) { /* no time: nothing to place */
    events none = {.lo = lo, .hi = lo};
    sweep_batch(c, &none, c->wall_end, &at);
    count_gpu_kernels(c);
    return DL_OK;
  }
  /* events per time bucket (a power of two of ns wide), then batches of
   * whole buckets holding at most SWEEP_BATCH_EVENTS (a bucket with more
   * is a batch of its own) */
  int shift = 0;
  while (((hi - 1 - lo) >> shift) >= SWEEP_BUCKETS) shift++;
  size_t nbuck = (size_t)((hi - 1 - lo) >> shift) + 1;
  events e = {.lo = lo, .hi = hi, .shift = shift, .cnt = calloc(nbuck + 1, sizeof(int64_t))};
  if (!e.cnt) return DL_ENOMEM;
  add_all(c, &e);
  for (size_t b = 1; b <= nbuck; b++) e.cnt[b] += e.cnt[b - 1]; /* differences to counts */
  size_t *first = NULL, nbatch = 0, most = 0;
  int rc = dla__time_batches(e.cnt, nbuck,
                             c->batch_events ? c->batch_events
                                                      : SWEEP_BATCH_EVENTS,
                             &first, &nbatch, &most);
  free(e.cnt);
  e.cnt = NULL;
  if (rc) return rc;
  e.v = malloc((most + 1) * sizeof *e.v);
  dl_advise_huge(e.v, (most + 1) * sizeof *e.v);
  if (!e.v) {
    free(first);
    return DL_ENOMEM;
  }
  for (size_t i = 0; i < nbatch; i++) {
    e.lo = lo + ((int64_t)first[i] << shift);
    e.hi = i + 1 < nbatch ? lo + ((int64_t)first[i + 1] << shift) : hi;
    e.n = 0;
    add_all(c, &e);
    dla__sort_keys(e.v, e.n);
    sweep_batch(c, &e, i + 1 < nbatch ? e.hi : c->wall_end, &at);
  }
  free(e.v);
  free(first);
  count_gpu_kernels(c);
  return DL_OK;
}
