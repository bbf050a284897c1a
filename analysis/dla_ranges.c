/*
 * dla_ranges.c - the first phases: the NVTX domain, then its ranges loaded
 * into c->r (streaming scans into compact records, on two threads), their
 * threads into c->thr, and the ranges sorted by (thread id, start, outer
 * first), the order every later phase reads them in.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_pipe.h"
#include "dla_ranges.h"
#include "dldb_scan.h"

/* The range loader: progress, c->r's capacity, and the threads seen. */
typedef struct loader {
  dla_tick t;
  size_t rcap;
  size_t thrcap;
  dl_map thr_of;            /* hash of (pid, tid) -> c->thr index, while ranges load */
  int32_t last_th;           /* the thread of the range loaded last, -1: none */
} loader;

static int resolve_domain(dla_ctx *c) {
  const char *want = c->o->domain ? c->o->domain : "default-domain";
  int rc = dldb_scan_domain(c->w, want, &c->domain_id, c->err, c->errlen);
  if (rc) return rc;
  if (!c->domain_id && !c->o->domain &&
      (rc = dldb_scan_first_domain(c->w, &c->domain_id, c->err, c->errlen)))
    return rc;
  if (!c->domain_id)
    return dl_err(c->err, c->errlen, DL_ENOTFOUND, "dla_aggregate: no domain %s", want);
  return DL_OK;
}


static uint64_t thread_hash(int64_t pid, int64_t tid) {
  return ((uint64_t)pid * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)tid * 0xC2B2AE3D27D4EB4Full);
}

/* The index in c->thr of thread (pid, tid), added when new (in the order
 * of first sight; dla__order_threads sorts them once all are loaded). */
static int thread_index(loader *l, int64_t pid, int64_t tid, int32_t *out) {
  dla_ctx *c = l->t.c;
  if (l->last_th >= 0 && c->thr[l->last_th].pid == pid && c->thr[l->last_th].tid == tid) {
    *out = l->last_th;
    return DL_OK;
  }
  uint64_t h = thread_hash(pid, tid);
  for (;;) {
    int64_t v = dl_map_get(&l->thr_of, h);
    if (v < 0) break;
    if (c->thr[v].pid == pid && c->thr[v].tid == tid) {
      *out = l->last_th = (int32_t)v;
      return DL_OK;
    }
    h = h * 0x9E3779B97F4A7C15ull + 1; /* another thread with that hash */
  }
  if (c->nthr >= DLA_MAX_THREADS)
    return dl_err(c->err, c->errlen, DL_EINVAL,
                  "dla_aggregate: NVTX ranges on more than %d threads", DLA_MAX_THREADS);
  if (DLA_GROW(c->thr, c->nthr, l->thrcap) || dl_map_put(&l->thr_of, h, (int64_t)c->nthr))
    return DL_ENOMEM;
  c->thr[c->nthr] = (dla_thread){.pid = pid, .tid = tid};
  *out = l->last_th = (int32_t)c->nthr++;
  return DL_OK;
}

static int cmp_thread(const void *x, const void *y) { return dla__thread_cmp(x, y); }

/* Puts c->thr in (tid, pid) order, ranks the thread ids and renumbers the
 * ranges' threads. */
static int order_threads(dla_ctx *c) {
  size_t n = c->nthr;
  typedef struct { dla_thread t; uint32_t old; } keyed;
  keyed *v = malloc((n + 1) * sizeof *v);
  uint32_t *rank = malloc((n + 1) * sizeof *rank);
  if (!v || !rank) {
    free(v);
    free(rank);
    return DL_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) v[i] = (keyed){c->thr[i], (uint32_t)i};
  qsort(v, n, sizeof *v, cmp_thread); /* (tid, pid) are distinct: the order is total */
  c->ntk = 0;
  for (size_t i = 0; i < n; i++) {
    c->thr[i] = v[i].t;
    if (i && v[i].t.tid != v[i - 1].t.tid) c->ntk++;
    c->thr[i].tk = c->ntk;
    rank[v[i].old] = (uint32_t)i;
  }
  if (n) c->ntk++;
  for (size_t i = 0; i < c->nr; i++) dla__range_set_th(&c->r[i], rank[dla__range_th(&c->r[i])]);
  free(v);
  free(rank);
  return DL_OK;
}

static int load_range(void *ctx, const dldb_scan_range *s) {
  loader *l = ctx;
  dla_ctx *c = l->t.c;
  dla__tick(&l->t);
  if (DLA_GROW(c->r, c->nr, l->rcap)) return DL_ENOMEM;
  if (s->name_id < 0 || s->name_id > INT32_MAX)
    return dl_err(c->err, c->errlen, DL_ECORRUPT, "dla_aggregate: NVTX range %lld has string id %lld",
                  (long long)s->id, (long long)s->name_id);
  int32_t th = 0;
  int rc = thread_index(l, s->pid, s->tid, &th);
  if (rc) return rc;
  dla_range *r = &c->r[c->nr++];
  memset(r, 0, sizeof *r);
  r->start = s->start_ns;
  r->end = s->end_ns < s->start_ns ? s->start_ns : s->end_ns;
  dla__range_set_th(r, (uint32_t)th);
  r->name_id = (int32_t)s->name_id;
  r->style = s->kind >= DLDB_NVTX_PUSHPOP && s->kind <= DLDB_NVTX_MARK ? (uint32_t)s->kind : 0;
  return 0;
}

/* The ranges are read on a second thread (SQLite's stepping and decoding
 * of 10 M rows is most of their loading) and loaded, in order, on this one
 * (dl_pipe.h): the scan has the writer's connection to itself meanwhile,
 * load_range touches none of it. A batch is 1 MiB of ranges: a hand-off
 * can wake the other thread, which on a VM costs more than the copy. */
enum { RANGE_BATCH = 16384 };
typedef struct range_scan {
  dldb_writer *w;
  int64_t domain_id;
  dl_pipe *p;
  dldb_scan_range *b; /* the batch being filled, n rows of it */
  size_t n;
  char err[256];      /* the scan's error message (the consumer owns c->err) */
} range_scan;

static int range_put(void *ctx, const dldb_scan_range *r) {
  range_scan *s = ctx;
  if (!s->b && !(s->b = dl_pipe_claim(s->p))) return DL_EDB; /* the consumer failed */
  s->b[s->n++] = *r;
  if (s->n < RANGE_BATCH) return DL_OK;
  s->b = NULL;
  size_t n = s->n;
  s->n = 0;
  return dl_pipe_publish(s->p, n);
}

static int ranges_produce(void *ctx, dl_pipe *p) {
  range_scan *s = ctx;
  s->p = p;
  int rc = dldb_scan_ranges(s->w, s->domain_id, range_put, s, s->err, sizeof s->err);
  if (rc == DL_OK && s->n) rc = dl_pipe_publish(p, s->n);
  return rc;
}

static int ranges_consume(void *ctx, void *batch, size_t n) {
  const dldb_scan_range *r = batch;
  int rc = DL_OK;
  for (size_t i = 0; i < n && rc == DL_OK; i++) rc = load_range(ctx, &r[i]);
  return rc;
}

/* dldb_scan_ranges(w, domain_id, load_range, l) on two threads. */
static int load_ranges(dla_ctx *c, loader *l) {
  range_scan s = {.w = c->w, .domain_id = c->domain_id};
  int rc = dl_pipe_run(RANGE_BATCH * sizeof(dldb_scan_range), 4, ranges_produce, &s,
                        ranges_consume, l);
  if (rc && s.err[0] && !(c->err && c->errlen && c->err[0])) /* the scan's own error */
    dl_err(c->err, c->errlen, rc, "%s", s.err);
  return rc;
}

/* The order of a thread's ranges: start ascending, end descending. */
static int cmp_time(const void *x, const void *y) {
  const dla_range *a = x, *b = y;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return (a->end < b->end) - (a->end > b->end);
}

/* Groups the ranges by thread id, each group in its ranges' order, in
 * place: the largest group (at 10 M ranges nearly all of them, a training
 * loop's main thread) moves within the array, the others through a copy of
 * their own, so no second array of all the ranges is made and touched.
 * at[0..ntk] (zeroed) become the groups' bounds: thread id t's from at[t]
 * to at[t + 1]. DL_OK or DL_ENOMEM. */
static int group_by_thread(dla_ctx *c, size_t *at) {
  dla_range *r = c->r;
  size_t n = c->nr, big = 0;
  for (size_t i = 0; i < n; i++) at[dla__range_tk(c, &r[i]) + 1]++;
  for (size_t t = 1; t < c->ntk; t++)
    if (at[t + 1] > at[big + 1]) big = t;
  for (size_t t = 0; t < c->ntk; t++) at[t + 1] += at[t];
  size_t rest = n - (at[big + 1] - at[big]);
  dla_range *side = malloc((rest + 1) * sizeof *side);
  if (!side) return DL_ENOMEM;
  /* the others into side, by thread id: group t from at[t] there, less
   * the big group's size for the groups after it */
  size_t *to = malloc((c->ntk + 1) * sizeof *to);
  if (!to) {
    free(side);
    return DL_ENOMEM;
  }
  for (size_t t = 0; t < c->ntk; t++) to[t] = at[t] - (t > big ? at[big + 1] - at[big] : 0);
  for (size_t i = 0; i < n; i++) {
    uint32_t t = dla__range_tk(c, &r[i]);
    if (t != big) side[to[t]++] = r[i];
  }
  free(to);
  /* the big group to [at[big], at[big + 1]): its j-th range, at i, goes to
   * at[big] + j, which is i + at[big] - (others before i): a shift that
   * only falls as i grows. Those shifted left go first, front to back (to
   * places of others or of their own group already moved), then those
   * shifted right, back to front. */
  size_t base = at[big], j = 0, split = n, splitj = 0;
  for (size_t i = 0; i < n; i++) {
    if (dla__range_tk(c, &r[i]) != big) continue;
    if (base + j < i) {
      if (split == n) split = i, splitj = j;
      r[base + j] = r[i];
    }
    j++;
  }
  /* those shifted right are all before the first one's place that went
   * left (base + splitj), where others' places now hold moved ones */
  size_t end = split == n ? n : base + splitj;
  j = split == n ? j : splitj;
  for (size_t i = end; j > 0 && i-- > 0;)
    if (dla__range_tk(c, &r[i]) == big) r[base + --j] = r[i];
  memcpy(r, side, base * sizeof *r); /* the groups before the big one, then those after */
  memcpy(r + at[big + 1], side + base, (rest - base) * sizeof *r);
  free(side);
  return DL_OK;
}

/* Sorts the ranges by (thread id, start, outer first). They come in id
 * order, which is about time order with the threads interleaved (at 10 M
 * ranges a sort of the whole array took a third of loading them, part of
 * it in the introsort's heapsort fallback), while each thread's ranges are
 * usually in order already. So they are grouped by thread id first, in
 * their order (group_by_thread), and a group is sorted only when it is out
 * of order. */
int dla__ranges_sort(dla_ctx *c) {
  size_t n = c->nr, k = 1;
  while (k < n && dla__range_cmp_key(c, &c->r[k - 1], dla__range_tk(c, &c->r[k]), c->r[k].start,
                          c->r[k].end) <= 0)
    k++;
  if (k >= n) return DL_OK; /* already sorted */
  size_t *at = calloc((size_t)c->ntk + 1, sizeof *at);
  if (!at || group_by_thread(c, at)) {
    free(at);
    return DL_ENOMEM;
  }
  for (size_t t = 0, b = 0; t < c->ntk; t++) { /* at[t + 1]: the end of thread id t's group */
    dla_range *v = c->r + b;
    size_t m = at[t + 1] - b, i = 1;
    while (i < m && cmp_time(&v[i - 1], &v[i]) <= 0) i++;
    if (i < m) dla__qsort(v, m, sizeof *v, cmp_time);
    b = at[t + 1];
  }
  free(at);
  return DL_OK;
}

int dla__ranges_domain(dla_ctx *c) {
  int rc = resolve_domain(c);
  if (rc) return rc;
  dldb_writer_begin_reads(c->w); /* raw records read, then derived rows written */
  return DL_OK;
}

/* A PyTorch profiler trace whose clock counts whole microseconds (the
 * autograd profiler's, Kineto's of 2021): every range starts and ends on
 * one. Its rounding lets a child end up to 1 us after its parent. */
static int whole_microseconds(const dla_ctx *c) {
  if (!c->o->key_op_spans || c->nr == 0) return 0;
  for (size_t i = 0; i < c->nr; i++)
    if (c->r[i].start % 1000 != 0 || c->r[i].end % 1000 != 0) return 0;
  return 1;
}

int dla__ranges_load(dla_ctx *c) {
  loader l = {.t = {.c = c}, .last_th = -1};
  int rc = dla__tick_start(&l.t, "loading NVTX ranges", "nvtx_ranges", (void **)&c->r, &l.rcap,
                           sizeof *c->r, 0);
  if (rc) return rc;
  dl_map_init(&l.thr_of);
  if (c->err && c->errlen) c->err[0] = '\0';
  rc = load_ranges(c, &l);
  dl_map_free(&l.thr_of);
  if (rc || (rc = order_threads(c))) return rc;
  dla__progress(c, l.t.what, l.t.n, l.t.n);
  if (c->nr > INT32_MAX) /* ranges are indexed in int32 */
    return dl_err(c->err, c->errlen, DL_EINVAL, "dla_aggregate: more than %d NVTX ranges",
                  INT32_MAX);
  dla__progress(c, "building op nodes", 0, (int64_t)c->nr);
  rc = dla__ranges_sort(c);
  c->nest_tol = rc == DL_OK && whole_microseconds(c) ? 1000 : 0;
  return rc;
}
