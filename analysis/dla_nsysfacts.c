/*
 * dla_nsysfacts.c - the facts of Nsight Systems' rules (dla_opts.nsys_rules)
 * from the records of the aggregated window: synchronous and pageable
 * memory operations, synchronization calls, and per GPU its idle gaps and
 * low-utilization chunks (its work sorted a batch of time at a time).
 */
#include <stdlib.h>
#include <string.h>

#include "dla_nsysfacts.h"

/* API name classes, by name: 1 sync memcpy, 2 async memcpy, 3 sync memset,
 * 4 device/stream synchronize, 0 other. */
static int api_class(const char *name) {
  if (!name) return 0;
  int is_async = strstr(name, "Async") != NULL;
  if (!strncmp(name, "cudaMemcpy", 10) || !strncmp(name, "cuMemcpy", 8)) return is_async ? 2 : 1;
  if (!strncmp(name, "cudaMemset", 10) || !strncmp(name, "cuMemset", 8)) return is_async ? 0 : 3;
  if (!strncmp(name, "cudaDeviceSynchronize", 21) || !strncmp(name, "cudaStreamSynchronize", 21) ||
      !strncmp(name, "cuCtxSynchronize", 16) || !strncmp(name, "cuStreamSynchronize", 19))
    return 4;
  return 0;
}

typedef struct dev_iv {
  int64_t start, end;
} dev_iv;

/* By (start, end): equal intervals are indistinguishable, so the in-place
 * sort's order is any sort's. */
static int cmp_dev_iv(const void *x, const void *y) {
  const dev_iv *a = x, *b = y;
  if (a->start != b->start) return (a->start > b->start) - (a->start < b->start);
  return (a->end > b->end) - (a->end < b->end);
}

/* nsys gpu_gaps and gpu_time_util over one device's intervals, fed in
 * (start, end) order, a batch at a time. lo and hi (the first start and
 * the last end) are known before the first batch. */
typedef struct dev_scan {
  int64_t lo, hi, gaps, maxgap, reach;
  size_t seen;
  double chunk, use[DLA_NSYS_UTIL_CHUNKS];
} dev_scan;

static void dev_scan_add(dev_scan *d, const dev_iv *v, size_t n) {
  for (size_t i = 0; i < n; i++, d->seen++) {
    if (d->seen == 0) {
      d->reach = v[i].end;
    } else {
      int64_t gap = v[i].start - d->reach;
      if (gap >= DLA_NSYS_GPU_GAP_NS) d->gaps++;
      if (gap > d->maxgap) d->maxgap = gap;
      if (v[i].end > d->reach) d->reach = v[i].end;
    }
    if (d->hi <= d->lo) continue;
    int a = (int)((double)(v[i].start - d->lo) / d->chunk),
        b = (int)((double)(v[i].end - d->lo) / d->chunk);
    if (b >= DLA_NSYS_UTIL_CHUNKS) b = DLA_NSYS_UTIL_CHUNKS - 1;
    for (int k = a < 0 ? 0 : a; k <= b; k++) {
      double cs = d->lo + k * d->chunk, ce = cs + d->chunk;
      double s = (double)v[i].start > cs ? (double)v[i].start : cs;
      double e = (double)v[i].end < ce ? (double)v[i].end : ce;
      if (e > s) d->use[k] += e - s;
    }
  }
}

static void dev_scan_end(dla_facts *f, int32_t dev, const dev_scan *d) {
  if (d->seen == 0) return;
  if (d->gaps > f->gpu_gaps_n ||
      (d->gaps && d->gaps == f->gpu_gaps_n && d->maxgap > f->gpu_gap_max_ns)) {
    f->gpu_gaps_n = d->gaps;
    f->gpu_gap_max_ns = d->maxgap;
    f->gpu_gap_device = dev;
  }
  if (d->hi <= d->lo) return;
  int64_t low = 0, regions = 0;
  double minpct = 1e300;
  for (int k = 0; k < DLA_NSYS_UTIL_CHUNKS; k++) {
    double pct = 100.0 * d->use[k] / d->chunk;
    if (pct >= DLA_NSYS_LOW_UTIL_PCT) continue;
    low++;
    if (k == 0 || 100.0 * d->use[k - 1] / d->chunk >= DLA_NSYS_LOW_UTIL_PCT) regions++;
    if (pct < minpct) minpct = pct;
  }
  if (low > f->low_util_chunks) {
    f->low_util_chunks = low;
    f->low_util_regions = regions;
    f->low_util_device = dev;
    f->low_util_min_pct = minpct;
  }
}

/* GPU work item i (kernels, then memory ops) of device dev in the
 * aggregated window: its interval, or 0. */
static int dev_item(const dla_ctx *c, int32_t dev, size_t i, dev_iv *out) {
  if (i < c->nk) {
    const dla_kern *k = &c->k[i];
    if (dla__kern_device(c, k) != dev || !dla__kern_in_aggr(c, k)) return 0;
    *out = (dev_iv){k->gpu_start, dla__kern_end(c, k)};
    return 1;
  }
  const dla_mem *m = &c->m[i - c->nk];
  if (m->device != dev || !dla__in_aggr(c, m->iter)) return 0;
  *out = (dev_iv){m->start, m->end};
  return 1;
}

#define DEV_BATCH_ITEMS ((size_t)2 << 20) /* 32 MiB of intervals sorted at once (dla_tuning.h) */
#define DEV_BUCKETS 4096

/* One device's rules: its intervals sorted a batch of start times at a
 * time (batches hold consecutive starts, so the batches in turn are the
 * order of one sort of them all, which would hold every interval at the
 * analysis's peak of memory). */
static int device_rules(const dla_ctx *c, dla_facts *f, int32_t dev) {
  size_t nw = c->nk + c->nm, n = 0;
  dev_scan d = {.lo = INT64_MAX, .hi = INT64_MIN};
  int64_t last_start = INT64_MIN;
  dev_iv x;
  for (size_t i = 0; i < nw; i++)
    if (dev_item(c, dev, i, &x)) {
      n++;
      if (x.start < d.lo) d.lo = x.start;
      if (x.start > last_start) last_start = x.start;
      if (x.end > d.hi) d.hi = x.end;
    }
  if (n == 0) return DL_OK;
  d.chunk = (double)(d.hi - d.lo) / DLA_NSYS_UTIL_CHUNKS;
  int shift = 0;
  uint64_t span = dla__dist(last_start, d.lo);
  while ((span >> shift) >= DEV_BUCKETS) shift++;
  size_t nbuck = (size_t)(span >> shift) + 1;
  int64_t *cnt = calloc(nbuck + 1, sizeof *cnt);
  if (!cnt) return DL_ENOMEM;
  for (size_t i = 0; i < nw; i++)
    if (dev_item(c, dev, i, &x)) cnt[dla__dist(x.start, d.lo) >> shift]++;
  size_t *first = NULL, nbatch = 0, most = 0;
  size_t cap = c->batch_events ? c->batch_events : DEV_BATCH_ITEMS;
  int rc = dla__time_batches(cnt, nbuck, cap, &first, &nbatch, &most);
  free(cnt);
  if (rc) return rc;
  dev_iv *v = malloc((most + 1) * sizeof *v);
  dl_advise_huge(v, (most + 1) * sizeof *v);
  if (!v) {
    free(first);
    return DL_ENOMEM;
  }
  for (size_t b = 0; b < nbatch; b++) {
    size_t m = 0;
    for (size_t i = 0; i < nw; i++) {
      if (!dev_item(c, dev, i, &x)) continue;
      size_t k = (size_t)(dla__dist(x.start, d.lo) >> shift);
      if (k >= first[b] && k < first[b + 1]) v[m++] = x;
    }
    if (m > 1) dla__qsort(v, m, sizeof *v, cmp_dev_iv);
    dev_scan_add(&d, v, m);
  }
  free(v);
  free(first);
  dev_scan_end(f, dev, &d);
  return DL_OK;
}

/* Memory operations of the aggregated window that nsys's rules flag:
 * synchronous copies and memsets, async copies from or to pageable memory. */
static void mem_facts(const dla_ctx *c, dla_facts *f) {
  for (size_t i = 0; i < c->nm; i++) {
    const dla_mem *m = &c->m[i];
    if (!dla__in_aggr(c, m->iter) || m->name_key <= 0) continue;
    int cls = api_class(dldb_writer_string(c->w, m->name_key));
    int64_t dur = m->end - m->start;
    if (m->kind == 1 && cls == 1 &&
        !(m->copy_kind == 1 && m->bytes <= DLA_NSYS_MEMCPY_SYNC_HTOD_MAX)) {
      f->sync_memcpy_n++;
      f->sync_memcpy_bytes += m->bytes;
      f->sync_memcpy_ns += dur;
    } else if (m->kind == 1 && cls == 2 && (m->src_kind == 0 || m->dst_kind == 0)) {
      f->pageable_memcpy_n++;
      f->pageable_memcpy_bytes += m->bytes;
    } else if (m->kind == 2 && cls == 3 && (m->dst_kind == 1 || m->dst_kind == 4)) {
      f->sync_memset_n++;
      f->sync_memset_ns += dur;
    }
  }
}

/* Device and stream synchronization calls that start in the window. */
static int sync_facts(const dla_ctx *c, dla_facts *f) {
  dl_map cls_of;
  dl_map_init(&cls_of);
  for (size_t i = 0; i < c->na; i++) {
    const dla_api *a = &c->a[i];
    int64_t cls = dl_map_get(&cls_of, (uint64_t)a->name_id);
    if (cls < 0) {
      cls = api_class(dldb_writer_string(c->w, a->name_id));
      if (dl_map_put(&cls_of, (uint64_t)a->name_id, cls)) {
        dl_map_free(&cls_of);
        return DL_ENOMEM;
      }
    }
    if (cls != 4 || a->start < c->wall_start || a->start >= c->wall_end) continue;
    f->sync_calls_n++;
    f->sync_calls_ns += dla__api_dur(c, a);
  }
  dl_map_free(&cls_of);
  return DL_OK;
}

int dla__nsys_facts(const dla_ctx *c, dla_facts *f) {
  mem_facts(c, f);
  int rc = sync_facts(c, f);
  /* per device: gaps and low-utilization chunks */
  for (int g = 0; rc == DL_OK && g < c->ngpus; g++) rc = device_rules(c, f, c->gpu_ids[g]);
  return rc;
}
