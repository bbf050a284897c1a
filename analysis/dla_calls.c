/*
 * dla_calls.c - the CUDA API calls (dla_internal.h "dla_calls.c").
 *
 * Calls are read once, in id order, into compact records (c->a, dla_api:
 * no thread, process or correlation id), each attributed as it is read:
 *   - to the innermost NVTX range enclosing its start on its thread, as a
 *     sweep over the thread's sorted ranges and sorted calls with a stack
 *     of open ranges found it (the stack popped while its top ended before
 *     the next range or call starts);
 *   - to the range an external correlation links it to, when there is one
 *     (dla_extcorr.h: the collector's exact links win);
 *   - to its own unassociated_<api> op when that range is in no op
 *     instance (or there is none): decided by dla__calls_ops, once the op
 *     nodes are built, so that the calls can load while they are (only
 *     a range's times, thread, process and name are read before).
 * The (pid, correlation id) -> call index that joins GPU work to its
 * launching call is built as the calls come.
 *
 * Attribution without sorting the calls. c->r is sorted by (tid, start,
 * end desc). The sweep's stack, right after it pushed range x, is x's
 * parent chain, where parent(x) is the first range up the chain of the
 * range pushed before x that has not ended before x starts. When a call
 * at t arrives, the stack is the chain of L = the last range of its
 * thread with start <= t, cut at the first range that has not ended
 * before t (what the stack pops for the call itself only removes ranges
 * that later pushes would pop too). So parent() is computed once, and
 * each call finds L from a per-thread cursor (calls come in about time
 * order per thread: O(1) amortized; a call back in time binary-searches)
 * and walks up from there.
 */
#include <stdlib.h>
#include <string.h>

#include "dla_extcorr.h"
#include "dla_internal.h"
#include "dldb_scan.h"

/* ---- (pid, correlation id) -> call ---------------------------------------- */

/* CUPTI numbers the calls of a process densely from 1: a table of int32 per
 * process (4 bytes a call), grown as ids come, replaces a hash map (32
 * bytes a call) unless the ids turn out sparse or there are many
 * processes. Later calls win over earlier ones with the same key. */
enum { CORR_PIDS = 16 };
/* Tables hold ids in [0, CORR_MAX) (CUPTI's are 32-bit), which keeps the
 * index arithmetic far from overflow; any other id moves all to the map. */
#define CORR_MAX ((int64_t)1 << 40)

struct dla_corr {
  int use_map, np;
  dl_map map;
  int64_t pid[CORR_PIDS], lo[CORR_PIDS]; /* idx[p][j]: the call with id lo + j, -1 */
  size_t len[CORR_PIDS], count;
  int32_t *idx[CORR_PIDS];
};

static uint64_t corr_key(int64_t pid, int64_t corr) {
  return ((uint64_t)pid << 40) ^ ((uint64_t)corr & ((1ull << 40) - 1));
}

void dla__corr_free(dla_corr **px) {
  dla_corr *x = *px;
  if (!x) return;
  dl_map_free(&x->map);
  for (int i = 0; i < x->np; i++) free(x->idx[i]);
  free(x);
  *px = NULL;
}

/* Moves the tables into the hash map. */
static int corr_to_map(dla_corr *x) {
  for (int p = 0; p < x->np; p++) {
    for (size_t j = 0; j < x->len[p]; j++)
      if (x->idx[p][j] >= 0 &&
          dl_map_put(&x->map, corr_key(x->pid[p], x->lo[p] + (int64_t)j), x->idx[p][j]))
        return DL_ENOMEM;
    free(x->idx[p]);
    x->idx[p] = NULL;
  }
  x->np = 0;
  x->use_map = 1;
  return DL_OK;
}

/* Makes table p cover ids lo .. hi (growing by at least half its length
 * at the side that grows, so that ids coming in any order cost O(1)
 * amortized); switches to the map when the table would be mostly holes. */
static int corr_cover(dla_corr *x, int p, int64_t lo, int64_t hi) {
  if (lo > x->lo[p]) lo = x->lo[p];
  if (x->len[p] && hi < x->lo[p] + (int64_t)x->len[p] - 1) hi = x->lo[p] + (int64_t)x->len[p] - 1;
  int64_t grow = (int64_t)x->len[p] / 2;
  if (x->len[p] && lo < x->lo[p]) lo = lo < x->lo[p] - grow ? lo : x->lo[p] - grow;
  if (x->len[p] && hi > x->lo[p] + (int64_t)x->len[p] - 1)
    hi = hi > x->lo[p] + (int64_t)x->len[p] - 1 + grow ? hi : x->lo[p] + (int64_t)x->len[p] - 1 + grow;
  uint64_t span = (uint64_t)(hi - lo) + 1; /* lo > -2^31, hi < 2^41: no overflow */
  if (span > 4 * (uint64_t)x->count + 65536 || span > INT32_MAX) return corr_to_map(x);
  int32_t *t = malloc((size_t)span * sizeof *t);
  dl_advise_huge(t, (size_t)span * sizeof *t);
  if (!t) return DL_ENOMEM;
  memset(t, 0xff, (size_t)span * sizeof *t); /* -1 */
  if (x->len[p])
    memcpy(t + (x->lo[p] - lo), x->idx[p], x->len[p] * sizeof *t);
  free(x->idx[p]);
  x->idx[p] = t;
  x->lo[p] = lo;
  x->len[p] = (size_t)span;
  return DL_OK;
}

static int corr_put(dla_corr *x, int64_t pid, int64_t corr, int32_t call) {
  x->count++;
  int p = 0, rc;
  if (!x->use_map) {
    while (p < x->np && x->pid[p] != pid) p++;
    if ((p == CORR_PIDS || corr < 0 || corr >= CORR_MAX) && (rc = corr_to_map(x))) return rc;
  }
  if (!x->use_map && p == x->np) { /* a new process */
    x->pid[p] = pid;
    x->lo[p] = corr;
    x->len[p] = 0;
    x->idx[p] = NULL;
    x->np++;
  }
  if (!x->use_map && (corr < x->lo[p] || corr >= x->lo[p] + (int64_t)x->len[p]) &&
      (rc = corr_cover(x, p, corr, corr)))
    return rc;
  if (x->use_map) return dl_map_put(&x->map, corr_key(pid, corr), call) ? DL_ENOMEM : DL_OK;
  x->idx[p][corr - x->lo[p]] = call;
  return DL_OK;
}

int32_t dla__corr_get(const dla_corr *x, int64_t pid, int64_t corr) {
  if (!x) return -1;
  if (x->use_map) return (int32_t)dl_map_get(&x->map, corr_key(pid, corr));
  if (corr < 0 || corr >= CORR_MAX) return -1; /* such ids would have made the map */
  for (int p = 0; p < x->np; p++)
    if (x->pid[p] == pid) {
      if (corr < x->lo[p] || (uint64_t)(corr - x->lo[p]) >= x->len[p]) return -1;
      return x->idx[p][corr - x->lo[p]];
    }
  return -1;
}

/* ---- Attribution ------------------------------------------------------------ */

typedef struct thread_run {
  size_t b, e;      /* its ranges: c->r[b .. e - 1] */
  size_t cur;       /* the last range with start <= last_t, b - 1 (as e): none */
  int64_t last_t;
} thread_run;

typedef struct unassoc {
  int64_t tid, start;
  int32_t call;
} unassoc;

/* Calls outside every op instance get their ops in (tid, start) order. */
struct dla_calls_pending {
  unassoc *v;
  size_t n, cap;
};

static int pending_add(dla_calls_pending *p, int64_t tid, int64_t start, int32_t call) {
  if (DLA_GROW(p->v, p->n, p->cap)) return DL_ENOMEM;
  p->v[p->n++] = (unassoc){tid, start, call};
  return DL_OK;
}

typedef struct call_loader {
  dla_ctx *c;
  size_t acap;
  int32_t *parent;  /* per range (see the top of the file) */
  thread_run *runs;
  dl_map run_of;   /* tid -> index in runs */
  dla_links *links; /* external correlations, NULL: none */
  dla_corr *corr;
  dla_calls_pending *un; /* calls that may be outside every instance (see load_call) */
  int64_t n, total; /* progress */
} call_loader;

static int build_runs(call_loader *l) {
  const dla_ctx *c = l->c;
  size_t nruns = 0;
  for (size_t i = 0; i < c->nr; i++)
    nruns += i == 0 || dla__range_tk(c, &c->r[i]) != dla__range_tk(c, &c->r[i - 1]);
  l->parent = malloc((c->nr + 1) * sizeof *l->parent);
  dl_advise_huge(l->parent, (c->nr + 1) * sizeof *l->parent);
  l->runs = malloc((nruns + 1) * sizeof *l->runs);
  if (!l->parent || !l->runs) return DL_ENOMEM;
  size_t k = 0;
  for (size_t i = 0; i < c->nr; i++) {
    if (i == 0 || dla__range_tk(c, &c->r[i]) != dla__range_tk(c, &c->r[i - 1])) {
      if (dl_map_put(&l->run_of, (uint64_t)dla__range_tid(c, &c->r[i]), (int64_t)k))
        return DL_ENOMEM;
      l->runs[k++] = (thread_run){.b = i, .e = i, .cur = SIZE_MAX, .last_t = INT64_MIN};
      l->parent[i] = -1;
    } else {
      int32_t x = (int32_t)(i - 1); /* the chain of the range pushed before */
      while (x >= 0 && c->r[x].end < c->r[i].start) x = l->parent[x];
      l->parent[i] = x;
    }
    l->runs[k - 1].e = i + 1;
  }
  return DL_OK;
}

/* The innermost range of tid enclosing t, -1: none. */
static int32_t innermost(call_loader *l, int64_t tid, int64_t t) {
  const dla_range *r = l->c->r;
  int64_t k = dl_map_get(&l->run_of, (uint64_t)tid);
  if (k < 0) return -1;
  thread_run *run = &l->runs[k];
  size_t cur = run->cur;
  if (cur == SIZE_MAX || t < run->last_t) { /* first call, or back in time: search */
    size_t lo = run->b, hi = run->e;        /* the first range with start > t */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (r[mid].start <= t) lo = mid + 1;
      else hi = mid;
    }
    cur = lo > run->b ? lo - 1 : SIZE_MAX;
  } else {
    while (cur + 1 < run->e && r[cur + 1].start <= t) cur++;
  }
  run->cur = cur;
  run->last_t = t;
  if (cur == SIZE_MAX) return -1;
  int32_t x = (int32_t)cur;
  while (x >= 0 && r[x].end < t) x = l->parent[x];
  return x;
}

static int load_call(void *ctx, const dldb_scan_api *s) {
  call_loader *l = ctx;
  dla_ctx *c = l->c;
  if (++l->n % 65536 == 0) dla__progress(c, "loading CUDA API calls", l->n, l->total);
  if (s->name_id < 0 || s->name_id > INT32_MAX)
    return dl_err(c->err, c->errlen, DL_ECORRUPT, "dla_aggregate: API call %lld has string id %lld",
                  (long long)s->id, (long long)s->name_id);
  if (c->na >= INT32_MAX) /* kernels index calls in int32 */
    return dl_err(c->err, c->errlen, DL_EINVAL, "dla_aggregate: more than %d API calls",
                  INT32_MAX);
  if (c->na == l->acap) {
    size_t ncap = l->acap ? l->acap * 2 : 1024;
    dla_api *p = realloc(c->a, ncap * sizeof *p);
    if (!p) return DL_ENOMEM;
    dl_advise_huge(p, ncap * sizeof *p);
    c->a = p;
    l->acap = ncap;
  }
  int32_t call = (int32_t)c->na;
  dla_api *a = &c->a[c->na++];
  a->start = s->start_ns;
  int64_t dur = s->end_ns < s->start_ns
                    ? 0
                    : (int64_t)((uint64_t)s->end_ns - (uint64_t)s->start_ns);
  uint32_t d32;
  if (dla__put_dur(&d32, dur, call, &c->along, &c->nalong, &c->alongcap)) return DL_ENOMEM;
  a->dur = d32;
  a->name_id = (int32_t)s->name_id;
  a->range = innermost(l, s->tid, a->start);
  int linked = 0;
  if (l->links) { /* exact links (collector) win */
    int32_t x = dla__extcorr_range(c, l->links, s->correlation_id, s->pid, s->tid);
    if (x >= 0) a->range = x;
    linked = x >= 0;
  }
  /* Whether the call is outside every instance needs the op nodes: the
   * calls whose thread their range does not tell are kept (in call order)
   * for dla__calls_ops; it finds the others' thread from their range. */
  if ((a->range < 0 || linked) && pending_add(l->un, s->tid, a->start, call)) return DL_ENOMEM;
  return corr_put(l->corr, s->pid, s->correlation_id, call);
}

static int cmp_unassoc(const void *x, const void *y) {
  const unassoc *a = x, *b = y;
  if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return (a->call > b->call) - (a->call < b->call);
}

static int cmp_own(const void *x, const void *y) {
  const dla_own *a = x, *b = y;
  return (a->call > b->call) - (a->call < b->call);
}

int dla__load_calls(dla_ctx *c, dla_corr **out, dla_calls_pending **pending) {
  call_loader l = {.c = c};
  dl_map_init(&l.run_of);
  *out = NULL;
  *pending = NULL;
  l.corr = calloc(1, sizeof *l.corr);
  l.un = calloc(1, sizeof *l.un);
  int rc = l.corr && l.un ? DL_OK : DL_ENOMEM;
  if (rc == DL_OK) dl_map_init(&l.corr->map);
  if (rc == DL_OK) rc = build_runs(&l);
  if (rc == DL_OK) rc = dla__extcorr_load(c, &l.links);
  l.total = dldb_scan_estimate(c->w, "cuda_api_calls");
  dla__progress(c, "loading CUDA API calls", 0, l.total);
  if (rc == DL_OK && l.total > 0 && l.total < INT32_MAX) { /* sized once: ids are dense */
    if (!(c->a = malloc((size_t)l.total * sizeof *c->a))) rc = DL_ENOMEM;
    else l.acap = (size_t)l.total;
    dl_advise_huge(c->a, l.acap * sizeof *c->a);
  }
  if (rc == DL_OK) rc = dldb_scan_api_calls(c->w, load_call, &l, c->err, c->errlen);
  dla__progress(c, "loading CUDA API calls", l.n, l.n);
  free(l.parent);
  free(l.runs);
  dl_map_free(&l.run_of);
  dla__extcorr_free(&l.links);
  if (rc == DL_OK) {
    *out = l.corr;
    *pending = l.un;
  } else {
    dla__corr_free(&l.corr);
    dla__calls_pending_free(&l.un);
  }
  return rc;
}

int dla__calls_ops(dla_ctx *c, dla_calls_pending **pending) {
  dla_calls_pending *p = *pending;
  int rc = DL_OK;
  /* the calls outside every instance: of those not kept, the ones whose
   * range (on their thread) is in none; of those kept, the ones with no
   * range or a range in none */
  size_t kept = p->n, k = 0;
  for (size_t i = 0, j = 0; rc == DL_OK && i < c->na; i++) {
    if (j < kept && p->v[j].call == (int32_t)i) { /* kept: decided below */
      j++;
      continue;
    }
    const dla_api *a = &c->a[i];
    if (a->range >= 0 && c->r[a->range].inst < 0)
      rc = pending_add(p, dla__range_tid(c, &c->r[a->range]), a->start, (int32_t)i);
  }
  for (size_t i = 0; rc == DL_OK && i < kept; i++) {
    const dla_api *a = &c->a[p->v[i].call];
    if (a->range < 0 || c->r[a->range].inst < 0) p->v[k++] = p->v[i];
  }
  if (rc == DL_OK && p->n > kept) memmove(p->v + k, p->v + kept, (p->n - kept) * sizeof *p->v);
  if (rc == DL_OK) p->n = k + (p->n - kept);
  /* each call outside every op instance becomes its own op, in the order
   * of (thread, start) as before the calls were streamed */
  if (rc == DL_OK) dla__qsort(p->v, p->n, sizeof *p->v, cmp_unassoc);
  if (rc == DL_OK && p->n && !(c->own = malloc(p->n * sizeof *c->own))) rc = DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < p->n; i++) {
    const dla_api *a = &c->a[p->v[i].call];
    c->own[i].call = p->v[i].call;
    rc = dla__op_for_call(c, a->name_id, p->v[i].call, a->start, &c->own[i].op);
    if (rc == DL_OK) c->nown++;
  }
  if (rc == DL_OK) dla__qsort(c->own, c->nown, sizeof *c->own, cmp_own);
  dla__calls_pending_free(pending);
  return rc;
}

void dla__calls_pending_free(dla_calls_pending **p) {
  if (!*p) return;
  free((*p)->v);
  free(*p);
  *p = NULL;
}
