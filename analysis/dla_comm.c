/*
 * dla_comm.c - the GPU timeline of an aggregation: communication,
 * computation and memory copies per GPU (TraceLens's gpu_timeline
 * definitions, peers.md E), and the TensorBoard plugin's estimated SM
 * efficiency and achieved occupancy (peers.md D.2) per GPU, per iteration
 * and per kernel name.
 *
 * Classes: communication = kernels whose name contains "nccl" (any case;
 * RCCL too); computation = every other kernel and memsets; memcpy =
 * memcpys. Exposed communication = communication while no computation
 * runs on that GPU; exposed memcpy = memcpy while neither runs. All inside
 * the aggregation's wall window. Est. SM efficiency: at each instant the
 * sum over running kernels of min(blocks per SM, 1), capped at 1,
 * integrated over the window and divided by it. Est. achieved occupancy:
 * the duration-weighted mean of the trace's per-kernel estimate.
 * Kernels without launch facts (Nsight Systems imports) count as 0 blocks.
 *
 * Per iteration, each GPU's time is split at the profile's iteration
 * bounds, or at its own process's steps' in a profile of several ranks'
 * processes, whose steps drift apart (dla_ranksteps.h).
 *
 * Results live in c->comm (dla_internal.h) between dla__comm_compute and
 * dla__comm_free; dla__comm_write adds them to the open aggregation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dla_internal.h"
#include "dla_introsort.h"
#include "dla_ranksteps.h"
#include "dldb_aggr.h"
#include "dldb_scan.h"

struct dla_comm {
  dldb_dl_gpu_row *gpu;
  size_t ngpu;
  dldb_dl_iter_gpu_row *it;
  size_t nit;
  dldb_dl_kernel_row *kr;
  size_t nkr;
  int have_tables;
};

/* ---- Timeline ------------------------------------------------------------ */

enum { CL_COMP, CL_COMM, CL_MCPY };

typedef struct tev {  /* 16 bytes: a start or an end of a kernel or memory op */
  int64_t t;
  int32_t k;       /* kernel index (its facts give the SM efficiency), or
                      -1 - i for memory op i */
  int8_t cls, delta;
} tev;

/* An event's place among those of its time and delta: kernels by index,
 * then memory ops by index (the order they are listed in). */
static inline int64_t tev_pos(const tev *e) {
  return e->k >= 0 ? e->k : (int64_t)INT32_MAX + (-1 - (int64_t)e->k) + 1;
}

/* By time, ends first, then as listed: a total order, the one a stable sort
 * gives, so the sweep's sums are the same whatever the array's size. */
static inline int tev_lt(const tev *a, const tev *b) {
  if (a->t != b->t) return a->t < b->t;
  if (a->delta != b->delta) return a->delta < b->delta;
  return tev_pos(a) < tev_pos(b);
}

INTROSORT(tev_intro, tev, tev_lt)

/* The ends of the running intervals: a binary min-heap in tev_lt's order.
 * The sweep sorts only the starts (16 bytes a kernel, not 32) and takes
 * the ends from here, in the same order as one sorted array of both. */
typedef struct tev_heap {
  tev *v;
  size_t n, cap;
} tev_heap;

static int heap_push(tev_heap *h, tev e) {
  if (h->n == h->cap) {
    size_t ncap = h->cap ? 2 * h->cap : 64;
    tev *p = realloc(h->v, ncap * sizeof *p);
    if (!p) return DL_ENOMEM;
    h->v = p;
    h->cap = ncap;
  }
  size_t i = h->n++;
  while (i > 0 && tev_lt(&e, &h->v[(i - 1) / 2])) {
    h->v[i] = h->v[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->v[i] = e;
  return DL_OK;
}

static tev heap_pop(tev_heap *h) {
  tev top = h->v[0], last = h->v[--h->n];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, m = l + 1, x = i;
    const tev *best = &last;
    if (l < h->n && tev_lt(&h->v[l], best)) best = &h->v[x = l];
    if (m < h->n && tev_lt(&h->v[m], best)) best = &h->v[x = m];
    if (x == i) break;
    h->v[i] = h->v[x];
    i = x;
  }
  if (h->n) h->v[i] = last;
  return top;
}

typedef struct kfacts {
  double bpsm, occ; /* NaN: unknown */
} kfacts;

static const kfacts NO_FACTS = {NAN, NAN};

typedef struct kid {
  int64_t id;
  int32_t idx;
} kid;

static int cmp_kid(const void *x, const void *y) {
  int64_t a = ((const kid *)x)->id, b = ((const kid *)y)->id;
  return (a > b) - (a < b);
}

/* Launch facts per kernel (c->k order), from kernel_occupancy. Nsight
 * Systems imports have none: the table (and the id index that matches its
 * rows) is only built at the first row, so f stays NULL (every kernel
 * unknown) and costs nothing there. */
typedef struct occ_loader {
  dla_ctx *c;
  kid *order;       /* kernel ids and indexes, sorted by id */
  size_t pos;
  kfacts *f;
} occ_loader;

static int load_occ(void *ctx, const dldb_scan_occ *r) {
  occ_loader *l = ctx;
  const dla_ctx *c = l->c;
  if (!l->f) {
    l->f = malloc((c->nk + 1) * sizeof *l->f);
    l->order = malloc((c->nk + 1) * sizeof *l->order);
    if (!l->f || !l->order) return DL_ENOMEM;
    for (size_t i = 0; i < c->nk; i++) {
      l->f[i] = NO_FACTS;
      l->order[i] = (kid){dla__kern_id(c, &c->k[i]), (int32_t)i};
    }
    dla__qsort(l->order, c->nk, sizeof *l->order, cmp_kid);
  }
  while (l->pos < c->nk && l->order[l->pos].id < r->kernel_id) l->pos++;
  if (l->pos < c->nk && l->order[l->pos].id == r->kernel_id) {
    kfacts *f = &l->f[l->order[l->pos].idx];
    f->bpsm = r->blocks_per_sm;
    f->occ = r->est_occupancy_pct;
  }
  return 0;
}

/* The facts of kernel i: its kernel_occupancy row (kf NULL: none), else
 * blocks per SM from its grid and its GPU's SM count, the quotient Kineto
 * puts in its traces (peers.md): Nsight Systems and live profiles have no
 * occupancy rows, but grids and SM counts. */
static kfacts facts(const dla_ctx *c, const kfacts *kf, size_t i) {
  kfacts f = kf ? kf[i] : NO_FACTS;
  uint32_t blocks = c->kcfg[c->k[i].cfg].blocks;
  if (isnan(f.bpsm) && blocks > 0) {
    for (int g = 0; g < c->ngpus; g++)
      if (c->gpu_ids[g] == dla__kern_device(c, &c->k[i])) {
        if (c->gpu_sms[g] > 0) f.bpsm = (double)blocks / c->gpu_sms[g];
        break;
      }
  }
  return f;
}

static int is_comm_name(const char *s) { return s && strcasestr(s, "nccl") != NULL; }

static int clip(const dla_ctx *c, int64_t *s, int64_t *e) {
  if (*s < c->wall_start) *s = c->wall_start;
  if (*e > c->wall_end) *e = c->wall_end;
  return *e > *s;
}

static double eff_of(const kfacts *f) {
  if (isnan(f->bpsm) || f->bpsm <= 0) return 0.0;
  return f->bpsm < 1.0 ? f->bpsm : 1.0;
}

typedef struct iter_acc {
  int64_t kbusy, comm, exposed;
  double sm, occ_w, occ_d;
} iter_acc;

/* The GPU sweep sorts its starts one batch of time at a time (at most
 * COMM_BATCH_STARTS of them, 32 MiB, unless one time bucket has more):
 * the starts of a batch all come before those of the next, and the ends
 * wait in the heap across batches, so the events come in the order of one
 * sort of them all, which would hold every start at once. */
#define COMM_BATCH_STARTS ((size_t)2 << 20) /* dla_tuning.h overrides */
#define COMM_BUCKETS 4096

/* The time batches of the starts in the window: *first[b] is batch b's
 * first bucket (nbatch + 1 entries, the last nbuck), *most the largest
 * batch; a bucket is 2^shift ns. */
static int start_batches(const dla_ctx *c, int32_t dev, int shift, size_t nbuck, size_t **first,
                         size_t *nbatch, size_t *most) {
  int64_t *cnt = calloc(nbuck + 1, sizeof *cnt);
  *first = NULL;
  if (!cnt) return DL_ENOMEM;
  for (size_t i = 0; i < c->nk; i++) {
    int64_t s = c->k[i].gpu_start, e = dla__kern_end(c, &c->k[i]);
    if (dla__kern_device(c, &c->k[i]) == dev && clip(c, &s, &e))
      cnt[dla__dist(s, c->wall_start) >> shift]++;
  }
  for (size_t i = 0; i < c->nm; i++) {
    int64_t s = c->m[i].start, e = c->m[i].end;
    if (c->m[i].device == dev && clip(c, &s, &e)) cnt[dla__dist(s, c->wall_start) >> shift]++;
  }
  size_t cap = c->batch_events ? c->batch_events : COMM_BATCH_STARTS;
  int rc = dla__time_batches(cnt, nbuck, cap, first, nbatch, most);
  free(cnt);
  return rc;
}

/* GPU g's achieved occupancy, weighted by kernel time in the window
 * (*occ_w / *occ_d, and per iteration in ia); returns whether its SM
 * efficiency is known: when a kernel in the window has blocks per SM, or
 * none ran and the SM count is known (an idle GPU: 0 %); unknown when
 * kernels ran and none has a grid (a Kineto trace without launch facts:
 * not 0 %). st: the GPU's own iterations (dla_ranksteps.h). */
static int occupancy(const dla_ctx *c, int g, const kfacts *kf, const dla_steps *st,
                     iter_acc *ia, double *occ_w, double *occ_d) {
  int32_t dev = c->gpu_ids[g];
  int sm_known = 0, ran = 0;
  int32_t hint = 0;
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    if (dla__kern_device(c, k) != dev) continue;
    int64_t s = k->gpu_start, e = dla__kern_end(c, k);
    if (!clip(c, &s, &e)) continue;
    kfacts f = facts(c, kf, i);
    sm_known |= !isnan(f.bpsm);
    ran = 1;
    if (!isnan(f.occ) && dla__kern_in_aggr(c, k)) {
      *occ_w += f.occ * (double)(e - s);
      *occ_d += (double)(e - s);
      if (ia) {
        int32_t it = st->bound ? dla__steps_iter_of(st, c->niter, dla__kern_api_start(c, k))
                               : dla__kern_iter(c, k, &hint);
        ia[it].occ_w += f.occ * (double)(e - s);
        ia[it].occ_d += (double)(e - s);
      }
    }
  }
  return sm_known || (!ran && c->gpu_sms[g] > 0);
}

/* The starts on device dev in the batch [blo, bhi) (last: to the end) into
 * v, the kernels' (*nk of them) before the memory ops'; returns how many. */
static size_t batch_starts(const dla_ctx *c, int32_t dev, const int8_t *comm_k, int64_t blo,
                           int64_t bhi, int last, tev *v, size_t *nk) {
  size_t nv = 0;
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    int64_t s = k->gpu_start, e = dla__kern_end(c, k);
    if (dla__kern_device(c, k) != dev || !clip(c, &s, &e) || s < blo || (!last && s >= bhi))
      continue;
    v[nv++] = (tev){s, (int32_t)i, comm_k[i] ? CL_COMM : CL_COMP, 1};
  }
  *nk = nv;
  for (size_t i = 0; i < c->nm; i++) {
    const dla_mem *m = &c->m[i];
    int64_t s = m->start, e = m->end;
    if (m->device != dev || !clip(c, &s, &e) || s < blo || (!last && s >= bhi)) continue;
    v[nv++] = (tev){s, (int32_t)(-1 - (int64_t)i), m->kind == 1 ? CL_MCPY : CL_COMP, 1};
  }
  return nv;
}

static int tev_sorted(const tev *v, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (tev_lt(&v[i], &v[i - 1])) return 0;
  return 1;
}

/* A batch's starts v[0..n-1] in tev_lt's order. Its kernels'
 * (v[0..nk-1]) come in time order as a rule (a device runs its kernels
 * mostly in launch order): then its memory ops' (few; copies, then sets)
 * are sorted alone and merged with them, through a copy, in one pass; any
 * other array is sorted whole. */
static void starts_sort(tev *v, size_t nk, size_t n) {
  size_t m = n - nk;
  tev *t = NULL;
  if (!tev_sorted(v, nk)) {
    tev_intro(v, n, dla__sort_depth(n));
    return;
  }
  tev_intro(v + nk, m, dla__sort_depth(m));
  if (!nk || !m || !tev_lt(&v[nk], &v[nk - 1])) return; /* in order already */
  if (!(t = malloc(m * sizeof *t))) {
    tev_intro(v, n, dla__sort_depth(n));
    return;
  }
  memcpy(t, v + nk, m * sizeof *t);
  for (size_t i = nk, j = m, k = n; j > 0;) /* from the back: the larger of the two last */
    v[--k] = i > 0 && tev_lt(&t[j - 1], &v[i - 1]) ? v[--i] : t[--j];
  free(t);
}

/* One GPU: a sweep over its kernel and memory intervals, split at its
 * iterations' bounds (st's, else the profile's) in ia. */
static int sweep_gpu(dla_ctx *c, int g, const kfacts *kf, const int8_t *comm_k,
                     const dla_steps *st, dldb_dl_gpu_row *out, iter_acc *ia) {
  int32_t dev = c->gpu_ids[g];
  const int64_t *bound = st->bound ? st->bound : c->bound;
  double occ_w = 0, occ_d = 0;
  int sm_known = occupancy(c, g, kf, st, ia, &occ_w, &occ_d);
  int64_t lo = c->wall_start;
  uint64_t width = c->wall_end > lo ? dla__dist(c->wall_end, lo) : 1;
  int shift = 0;
  while (((width - 1) >> shift) >= COMM_BUCKETS) shift++;
  size_t nbuck = (size_t)((width - 1) >> shift) + 1, *first = NULL, nbatch = 0, most = 0;
  int rc = start_batches(c, dev, shift, nbuck, &first, &nbatch, &most);
  tev *v = rc ? NULL : malloc((most + 1) * sizeof *v); /* a batch's starts */
  dl_advise_huge(v, (most + 1) * sizeof *v);
  tev_heap ends = {0};
  if (!v) {
    free(first);
    return DL_ENOMEM;
  }
  int64_t cnt[3] = {0, 0, 0}, kcnt = 0, prev = c->wall_start;
  double effsum = 0, sm = 0;
  int64_t it = c->iter_start;
  memset(out, 0, sizeof *out);
  out->device_id = dev;
  out->wall_ns = c->wall_ns;
  for (size_t b = 0; rc == DL_OK && b < nbatch; b++) {
    int last = b + 1 == nbatch;
    int64_t blo = dla__at(lo, (uint64_t)first[b] << shift);
    int64_t bhi = last ? INT64_MAX : dla__at(lo, (uint64_t)first[b + 1] << shift);
    /* the batch's starts; the next of them */
    size_t nk, nv = batch_starts(c, dev, comm_k, blo, bhi, last, v, &nk), next = 0;
    starts_sort(v, nk, nv);
    for (;;) {
      /* ends before the next batch's starts are this batch's */
      int more = next < nv || (ends.n && (last || ends.v[0].t < bhi));
      if (!more && !last) break;
      tev ev = {0};
      if (more) { /* an end first at equal times (tev_lt) */
        ev = ends.n && (next == nv || tev_lt(&ends.v[0], &v[next])) ? heap_pop(&ends) : v[next++];
        if (ev.delta > 0) {
          tev end = ev;
          end.delta = -1;
          end.t = ev.k >= 0 ? dla__kern_end(c, &c->k[ev.k]) : c->m[-1 - (int64_t)ev.k].end;
          if (end.t > c->wall_end) end.t = c->wall_end; /* as clip() */
          if ((rc = heap_push(&ends, end))) break;
        }
      }
      int64_t t = more ? ev.t : c->wall_end;
      while (prev < t) { /* the stretch [prev, t), split at iteration bounds */
        int64_t stop = t;
        while (it < c->iter_stop && bound[it + 1] <= prev) it++;
        if (it < c->iter_stop && bound[it + 1] < stop) stop = bound[it + 1];
        int64_t dt = stop - prev;
        double e = effsum > 1.0 ? 1.0 : effsum < 0 ? 0 : effsum;
        int comp = cnt[CL_COMP] > 0, comm = cnt[CL_COMM] > 0, mc = cnt[CL_MCPY] > 0;
        if (comp) out->computation_ns += dt;
        if (comm) out->communication_ns += dt;
        if (mc) out->memcpy_ns += dt;
        if (comm && !comp) out->exposed_comm_ns += dt;
        if (mc && !comp && !comm) out->exposed_memcpy_ns += dt;
        if (comp || comm || mc) out->busy_ns += dt;
        if (kcnt > 0) out->kernel_busy_ns += dt;
        sm += e * (double)dt;
        if (ia) {
          iter_acc *a = &ia[it];
          if (kcnt > 0) a->kbusy += dt;
          if (comm) a->comm += dt;
          if (comm && !comp) a->exposed += dt;
          a->sm += e * (double)dt;
        }
        prev = stop;
      }
      if (!more) break;
      cnt[ev.cls] += ev.delta;
      if (ev.k >= 0) {
        kfacts f = facts(c, kf, (size_t)ev.k);
        double eff = eff_of(&f);
        kcnt += ev.delta;
        effsum += ev.delta > 0 ? eff : -eff;
        if (kcnt == 0) effsum = 0; /* no drift between busy stretches */
      }
    }
  }
  free(first);
  /* unknown (NULL) without the GPU's SM count or a kernel's blocks per SM */
  out->est_sm_efficiency = !sm_known ? NAN : out->wall_ns > 0 ? 100.0 * sm / (double)out->wall_ns : 0.0;
  out->est_achieved_occupancy = occ_d > 0 ? occ_w / occ_d : NAN;
  free(v);
  free(ends.v);
  return rc;
}

typedef struct kname_acc {
  int64_t name_id, calls, gpu;
  int tc, comm;
  double bpsm_w, bpsm_d, occ_w, occ_d, eff_w;
} kname_acc;

/* The kernel names seen, with their statistics in the window. */
typedef struct knames {
  kname_acc *v;
  size_t n, cap;
  dl_map of;                /* short name id -> index in v */
} knames;

/* The accumulator of kernel name short_id (added when new), or NULL when
 * out of memory. */
static kname_acc *kname_of(const dla_ctx *c, knames *kn, int32_t short_id) {
  int64_t v = dl_map_get(&kn->of, (uint64_t)short_id);
  if (v >= 0) return &kn->v[v];
  if (kn->n == kn->cap) {
    size_t ncap = kn->cap ? kn->cap * 2 : 256;
    kname_acc *p = realloc(kn->v, ncap * sizeof *p);
    if (!p) return NULL;
    kn->v = p;
    kn->cap = ncap;
  }
  v = (int64_t)kn->n++;
  memset(&kn->v[v], 0, sizeof kn->v[v]);
  kn->v[v].name_id = short_id;
  kn->v[v].comm = is_comm_name(dldb_writer_string(c->w, short_id));
  if (dl_map_put(&kn->of, (uint64_t)short_id, v)) return NULL;
  return &kn->v[v];
}

/* Kernel names: each kernel communication or not (comm_k), and per-name
 * statistics of the window's kernels. */
static int kernel_names(const dla_ctx *c, const kfacts *kf, knames *kn, int8_t *comm_k) {
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    kname_acc *a = kname_of(c, kn, dla__kern_short(c, k));
    if (!a) return DL_ENOMEM;
    comm_k[i] = (int8_t)a->comm;
    if (!dla__kern_in_aggr(c, k)) continue;
    double d = (double)dla__kern_dur(c, k);
    a->calls++;
    a->gpu += dla__kern_dur(c, k);
    a->tc |= dla__kern_tc(c, k);
    kfacts f = facts(c, kf, i);
    if (!isnan(f.bpsm)) {
      a->bpsm_w += f.bpsm * d;
      a->bpsm_d += d;
      a->eff_w += eff_of(&f) * d;
    }
    if (!isnan(f.occ)) {
      a->occ_w += f.occ * d;
      a->occ_d += d;
    }
  }
  return DL_OK;
}

/* The kernel name rows of the names run in the window. */
static void kernel_rows(struct dla_comm *r, const knames *kn) {
  for (size_t i = 0; i < kn->n; i++) {
    const kname_acc *a = &kn->v[i];
    if (a->calls == 0) continue;
    r->kr[r->nkr++] = (dldb_dl_kernel_row){
        .kernel_name_id = a->name_id, .calls = a->calls, .gpu_time = a->gpu, .uses_tc = a->tc,
        .is_communication = a->comm,
        .blocks_per_sm = a->bpsm_d > 0 ? a->bpsm_w / a->bpsm_d : NAN,
        .est_achieved_occupancy = a->occ_d > 0 ? a->occ_w / a->occ_d : NAN,
        .est_sm_efficiency = a->bpsm_d > 0 ? 100.0 * a->eff_w / a->bpsm_d : NAN};
  }
}

/* GPU g's timeline (sweep_gpu), its busy time and utilization into c, and
 * its rows per aggregated iteration (st: its own iterations, else the
 * profile's). gia: its niter iteration sums. */
static int gpu_rows(dla_ctx *c, struct dla_comm *r, int g, const kfacts *kf,
                    const int8_t *comm_k, const dla_steps *st, iter_acc *gia) {
  int rc = sweep_gpu(c, g, kf, comm_k, st, &r->gpu[g], gia);
  if (rc) return rc;
  r->ngpu++;
  int64_t wall = c->wall_ns;
  c->gpu_busy[g] = r->gpu[g].kernel_busy_ns;
  c->gpu_util[g] = wall > 0 ? 100.0 * (double)c->gpu_busy[g] / (double)wall : 0.0;
  int has_occ = !isnan(r->gpu[g].est_achieved_occupancy);
  int has_sm = !isnan(r->gpu[g].est_sm_efficiency);
  for (int64_t i = c->iter_start; i <= c->iter_stop; i++) {
    int64_t d = st->bound ? st->end[i] - st->bound[i] : dla__iter_dur(c, i);
    const iter_acc *a = &gia[i];
    r->it[r->nit++] = (dldb_dl_iter_gpu_row){
        .iter_value = i, .device_id = c->gpu_ids[g], .duration_ns = d,
        .kernel_busy_ns = a->kbusy, .communication_ns = a->comm, .exposed_comm_ns = a->exposed,
        .est_sm_efficiency = !has_sm ? NAN : d > 0 ? 100.0 * a->sm / (double)d : 0.0,
        .est_achieved_occupancy = has_occ && a->occ_d > 0 ? a->occ_w / a->occ_d : NAN};
  }
  return DL_OK;
}

int dla__comm_compute(dla_ctx *c) {
  struct dla_comm *r = calloc(1, sizeof *r);
  int8_t *comm_k = calloc(c->nk + 1, 1);
  occ_loader ol = {.c = c};
  int64_t ni = c->iter_stop - c->iter_start + 1;
  iter_acc *ia = calloc((size_t)c->niter * (size_t)(c->ngpus ? c->ngpus : 1), sizeof *ia);
  knames kn = {0};
  dl_map_init(&kn.of);
  dla_steps *st = calloc((size_t)c->ngpus + 1, sizeof *st);
  int rc = DL_OK;
  c->comm = r;
  if (!r || !comm_k || !ia || !st) {
    rc = DL_ENOMEM;
    goto out;
  }
  r->have_tables = dldb_dl_has_tables(c->w);
  if ((rc = dldb_scan_kernel_occupancy(c->w, load_occ, &ol, c->err, c->errlen))) goto out;
  free(ol.order); /* only the scan matches ids */
  ol.order = NULL;
  if ((rc = kernel_names(c, ol.f, &kn, comm_k))) goto out;
  r->kr = calloc(kn.n + 1, sizeof *r->kr);
  r->gpu = calloc((size_t)c->ngpus + 1, sizeof *r->gpu);
  r->it = calloc((size_t)(ni * c->ngpus) + 1, sizeof *r->it);
  if (!r->kr || !r->gpu || !r->it) {
    rc = DL_ENOMEM;
    goto out;
  }
  kernel_rows(r, &kn);
  rc = dla__gpu_steps(c, st);
  for (int g = 0; rc == DL_OK && g < c->ngpus; g++)
    rc = gpu_rows(c, r, g, ol.f, comm_k, &st[g], ia + (size_t)g * (size_t)c->niter);
out:
  if (st) dla__gpu_steps_free(st, c->ngpus);
  free(st);
  dl_map_free(&kn.of);
  free(kn.v);
  free(ol.f);
  free(ol.order);
  free(comm_k);
  free(ia);
  return rc;
}

void dla__comm_facts(const dla_ctx *c, dla_facts *f) {
  const struct dla_comm *r = c->comm;
  f->exposed_comm_pct = 0;
  f->exposed_comm_device = -1;
  f->gpu_activity = (int64_t)(c->nk + c->nm);
  f->n_cpu_ranges = (int64_t)c->nr;
  if (!r) return;
  for (size_t i = 0; i < r->ngpu; i++) {
    const dldb_dl_gpu_row *g = &r->gpu[i];
    f->comm_ns += g->communication_ns;
    f->exposed_comm_ns += g->exposed_comm_ns;
    double pct = g->wall_ns > 0 ? 100.0 * (double)g->exposed_comm_ns / (double)g->wall_ns : 0;
    if (g->communication_ns > 0 && pct > f->exposed_comm_pct) {
      f->exposed_comm_pct = pct;
      f->exposed_comm_device = g->device_id;
    }
  }
}

int dla__comm_write(dla_ctx *c, int64_t aggr_id) {
  const struct dla_comm *r = c->comm;
  if (!r || !r->have_tables) return DL_OK;
  int rc = dldb_aggr_dl_gpus(c->w, aggr_id, r->gpu, r->ngpu, c->err, c->errlen);
  if (!rc) rc = dldb_aggr_dl_iter_gpus(c->w, aggr_id, r->it, r->nit, c->err, c->errlen);
  if (!rc) rc = dldb_aggr_dl_kernels(c->w, aggr_id, r->kr, r->nkr, c->err, c->errlen);
  return rc;
}

const dldb_dl_gpu_row *dla__comm_gpus(const dla_ctx *c, size_t *n) {
  *n = c->comm ? c->comm->ngpu : 0;
  return c->comm ? c->comm->gpu : NULL;
}

void dla__comm_free(dla_ctx *c) {
  struct dla_comm *r = c->comm;
  if (!r) return;
  free(r->gpu);
  free(r->it);
  free(r->kr);
  free(r);
  c->comm = NULL;
}
