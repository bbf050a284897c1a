/*
 * dla_aggregate.c - raw records -> one aggregation (see dla.h).
 *
 * Pipeline: load ranges (streaming scans into flat arrays of compact
 * records) and sort them by (thread, start); build op nodes
 * (dla_pytorch.c); read the API calls, each attributed to its innermost
 * range as it comes (dla_calls.c); join kernels and memory ops to their
 * call through the (pid, correlation id) index; split iterations at the key
 * op's stop times; accumulate op, kernel and iteration statistics in one
 * pass over the kernels; sweep time for the breakdown (dla_sweep.c); run
 * the rules; write everything in one transaction.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "dla_internal.h"
#include "dla_pipe.h"
#include "dldb_dl.h"
#include "dla_opname.h"
#include "dla_tc.h"

void dla_opts_init(dla_opts *o) {
  memset(o, 0, sizeof *o);
  o->iter_start = -1;
  o->iter_stop = -1;
}

/* ---- Loading ---------------------------------------------------------------- */

typedef struct loader {
  dla_ctx *c;
  size_t rcap;
  int64_t n, total;          /* progress: records read, estimate */
  const char *what;
  size_t thrcap;
  dla_map thr_of;            /* hash of (pid, tid) -> c->thr index, while ranges load */
  int32_t last_th;           /* the thread of the range loaded last, -1: none */
} loader;

/* Starts a loading phase: reports it and sizes *arr for the estimated rows
 * (the largest id: exact for files we wrote), so that the arrays do not
 * double past what they need. */
static int load_phase(loader *l, const char *what, const char *table, void **arr, size_t *cap,
                      size_t elem, int64_t more) {
  l->n = 0;
  l->what = what;
  int64_t rows = dldb_scan_estimate(l->c->w, table);
  l->total = rows + more; /* more: rows of other tables the phase reads too */
  dla__progress(l->c, what, 0, l->total);
  if (arr && *cap < (size_t)rows && rows < ((int64_t)1 << 34)) {
    void *p = realloc(*arr, (size_t)rows * elem);
    if (!p) return DL_ENOMEM;
    dl_advise_huge(p, (size_t)rows * elem);
    *arr = p;
    *cap = (size_t)rows;
  }
  return DL_OK;
}

static void load_tick(loader *l) {
  if (++l->n % 65536 == 0) dla__progress(l->c, l->what, l->n, l->total);
}

static uint64_t thread_hash(int64_t pid, int64_t tid) {
  return ((uint64_t)pid * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)tid * 0xC2B2AE3D27D4EB4Full);
}

/* The index in c->thr of thread (pid, tid), added when new (in the order
 * of first sight; dla__order_threads sorts them once all are loaded). */
static int thread_index(loader *l, int64_t pid, int64_t tid, int32_t *out) {
  dla_ctx *c = l->c;
  if (l->last_th >= 0 && c->thr[l->last_th].pid == pid && c->thr[l->last_th].tid == tid) {
    *out = l->last_th;
    return DL_OK;
  }
  uint64_t h = thread_hash(pid, tid);
  for (;;) {
    int64_t v = dla_map_get(&l->thr_of, h);
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
  if (DLA_GROW(c->thr, c->nthr, l->thrcap) || dla_map_put(&l->thr_of, h, (int64_t)c->nthr))
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
  dla_ctx *c = l->c;
  load_tick(l);
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
 * (dla_pipe.h): the scan has the writer's connection to itself meanwhile,
 * load_range touches none of it. */
enum { RANGE_BATCH = 4096 };
typedef struct range_scan {
  dldb_writer *w;
  int64_t domain_id;
  dla_pipe *p;
  dldb_scan_range *b; /* the batch being filled, n rows of it */
  size_t n;
  char err[256];      /* the scan's error message (the consumer owns c->err) */
} range_scan;

static int range_put(void *ctx, const dldb_scan_range *r) {
  range_scan *s = ctx;
  if (!s->b && !(s->b = dla_pipe_claim(s->p))) return DL_EDB; /* the consumer failed */
  s->b[s->n++] = *r;
  if (s->n < RANGE_BATCH) return DL_OK;
  s->b = NULL;
  size_t n = s->n;
  s->n = 0;
  return dla_pipe_publish(s->p, n);
}

static int ranges_produce(void *ctx, dla_pipe *p) {
  range_scan *s = ctx;
  s->p = p;
  int rc = dldb_scan_ranges(s->w, s->domain_id, range_put, s, s->err, sizeof s->err);
  if (rc == DL_OK && s->n) rc = dla_pipe_publish(p, s->n);
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
  int rc = dla_pipe_run(RANGE_BATCH * sizeof(dldb_scan_range), 4, ranges_produce, &s,
                        ranges_consume, l);
  if (rc && s.err[0] && !(c->err && c->errlen && c->err[0])) /* the scan's own error */
    dl_err(c->err, c->errlen, rc, "%s", s.err);
  return rc;
}

typedef struct gpu_loader {
  dla_ctx *c;
  const dla_corr *corr;
  dla_map *tc_cache;
  dla_map *cfg_of;           /* hash of a launch configuration -> c->kcfg index */
  int rc;
  loader *l;                 /* progress */
} gpu_loader;

static uint64_t kcfg_hash(const dldb_scan_gpu_op *g) {
  uint64_t h = (uint64_t)g->long_name_id * 0x9E3779B97F4A7C15ull ^ (uint64_t)g->short_name_id;
  h = (h ^ (uint32_t)g->device_id) * 0x100000001B3ull;
  for (int i = 0; i < 3; i++) {
    h = (h ^ (uint32_t)g->grid[i]) * 0x100000001B3ull;
    h = (h ^ (uint32_t)g->block[i]) * 0x100000001B3ull;
  }
  return h;
}

/* The grid's blocks (0: a dimension is not positive), at most UINT32_MAX. */
static uint32_t grid_blocks(const int32_t *grid) {
  uint64_t n = 1;
  for (int i = 0; i < 3; i++) {
    if (grid[i] <= 0) return 0;
    if (n > UINT32_MAX / (uint64_t)grid[i]) return UINT32_MAX;
    n *= (uint64_t)grid[i];
  }
  return (uint32_t)n;
}

/* The index in c->kcfg of kernel g's launch configuration (added when new). */
static int kcfg_index(gpu_loader *l, const dldb_scan_gpu_op *g, int32_t *out) {
  dla_ctx *c = l->c;
  uint64_t h = kcfg_hash(g);
  for (;;) {
    int64_t v = dla_map_get(l->cfg_of, h);
    if (v < 0) break;
    const dla_kcfg *k = &c->kcfg[v];
    if (k->long_id == g->long_name_id && k->short_id == g->short_name_id &&
        k->device == g->device_id &&
        !memcmp(k->grid, g->grid, sizeof k->grid) && !memcmp(k->block, g->block, sizeof k->block)) {
      *out = (int32_t)v;
      return DL_OK;
    }
    h = h * 0x9E3779B97F4A7C15ull + 1; /* another configuration with that hash */
  }
  if (c->nkcfg >= INT32_MAX || DLA_GROW(c->kcfg, c->nkcfg, c->kcfgcap)) return DL_ENOMEM;
  dla_kcfg *k = &c->kcfg[c->nkcfg];
  k->long_id = (int32_t)g->long_name_id;
  k->short_id = (int32_t)g->short_name_id;
  memcpy(k->grid, g->grid, sizeof k->grid);
  memcpy(k->block, g->block, sizeof k->block);
  k->blocks = grid_blocks(g->grid);
  k->device = (int16_t)g->device_id;
  int64_t tc = dla_map_get(l->tc_cache, (uint64_t)g->long_name_id);
  if (tc < 0) {
    tc = dla_tc_uses(dla_tc_classify(dldb_writer_string(c->w, g->long_name_id)));
    if (dla_map_put(l->tc_cache, (uint64_t)g->long_name_id, tc)) return DL_ENOMEM;
  }
  k->tc = (int8_t)tc;
  if (dla_map_put(l->cfg_of, h, (int64_t)c->nkcfg)) return DL_ENOMEM;
  *out = (int32_t)c->nkcfg++;
  return DL_OK;
}

/* The op instance and op of GPU work launched by call ai (-1: not found):
 * the instance owning the call's innermost range, else the call itself
 * (dla__call_inst); work of no known call goes to the shared unknown op. */
static int gpu_owner(dla_ctx *c, int64_t ai, int64_t gpu_start, int32_t *inst, int32_t *op) {
  *inst = dla__call_inst(c, (int32_t)ai);
  if (*inst >= 0) {
    *op = (size_t)*inst < c->nr ? c->r[*inst].op : dla__call_own_op(c, (int32_t)ai);
    return DL_OK;
  }
  return dla__op_for_call(c, ai >= 0 ? c->a[ai].name_id : 0, -1, gpu_start, op);
}

static int load_gpu_op(void *ctx, const dldb_scan_gpu_op *g) {
  gpu_loader *l = ctx;
  dla_ctx *c = l->c;
  load_tick(l->l);
  int64_t ai = dla__corr_get(l->corr, g->pid, g->correlation_id);
  const dla_api *a = ai >= 0 ? &c->a[ai] : NULL;
  if (g->kind != 0) {
    if (DLA_GROW(c->m, c->nm, c->mcap)) return DL_ENOMEM;
    dla_mem *m = &c->m[c->nm++];
    m->start = g->gpu_start_ns;
    m->end = g->gpu_end_ns < g->gpu_start_ns ? g->gpu_start_ns : g->gpu_end_ns;
    m->device = g->device_id;
    m->name_key = a ? a->name_id : g->kind == 1 ? -1 - g->copy_kind : -100;
    m->iter = 0;
    m->bytes = g->bytes;
    m->api_dur = a ? dla__api_dur(c, a) : 0;
    m->kind = (int8_t)g->kind;
    m->copy_kind = (int8_t)g->copy_kind;
    m->src_kind = (int8_t)g->src_kind;
    m->dst_kind = (int8_t)(g->kind == 2 ? g->mem_kind : g->dst_kind);
    m->range = a ? a->range : -1;
    m->api = (int32_t)ai;
    m->inst = m->op = -1; /* gpu_owners */
    return DL_OK;
  }
  if (g->id < 0 || g->id > INT32_MAX || g->short_name_id < 0 || g->short_name_id > INT32_MAX ||
      g->long_name_id < 0 || g->long_name_id > INT32_MAX || g->device_id < INT16_MIN ||
      g->device_id > INT16_MAX)
    return dl_err(c->err, c->errlen, DL_ECORRUPT,
                  "dla_aggregate: kernel %lld has string ids %lld and %lld, device %d",
                  (long long)g->id, (long long)g->short_name_id, (long long)g->long_name_id,
                  (int)g->device_id);
  if (DLA_GROW(c->k, c->nk, c->kcap)) return DL_ENOMEM;
  if (c->nk == 0) c->kid0 = g->id;
  if (!c->kid && g->id != c->kid0 + (int64_t)c->nk) { /* not dense: every id kept from here */
    c->kidcap = c->kcap;
    if (!(c->kid = malloc(c->kidcap * sizeof *c->kid))) return DL_ENOMEM;
    for (size_t j = 0; j < c->nk; j++) c->kid[j] = (int32_t)(c->kid0 + (int64_t)j);
  }
  if (c->kid) {
    if (DLA_GROW(c->kid, c->nk, c->kidcap)) return DL_ENOMEM;
    c->kid[c->nk] = (int32_t)g->id;
  }
  dla_kern *k = &c->k[c->nk];
  int32_t cfg;
  uint32_t dur;
  if (kcfg_index(l, g, &cfg)) return DL_ENOMEM;
  int64_t d = g->gpu_end_ns < g->gpu_start_ns
                  ? 0
                  : (int64_t)((uint64_t)g->gpu_end_ns - (uint64_t)g->gpu_start_ns);
  if (dla__put_dur(&dur, d, (int32_t)c->nk, &c->klong, &c->nklong, &c->klongcap)) return DL_ENOMEM;
  c->nk++;
  k->cfg = cfg;
  k->dur = dur;
  k->gpu_start = g->gpu_start_ns;
  k->api = (int32_t)ai;
  return DL_OK;
}

/* The op of each kernel and the op instance and op of each memory op, in
 * that order (ops of GPU work of no known call are made as they come). */
static int gpu_owners(dla_ctx *c) {
  int rc = DL_OK;
  int32_t inst, op = -1;
  c->nocall_op = -1;
  for (size_t i = 0; rc == DL_OK && i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    if (k->api >= 0 && dla__call_op(c, k->api) >= 0) continue; /* dla__kern_op derives it */
    rc = gpu_owner(c, k->api, k->gpu_start, &inst, &op);
    c->nocall_op = op; /* one op for them all (dla__op_for_call's key "\002-1") */
  }
  for (size_t i = 0; rc == DL_OK && i < c->nm; i++)
    rc = gpu_owner(c, c->m[i].api, c->m[i].start, &c->m[i].inst, &c->m[i].op);
  return rc;
}

/* The order of a thread's ranges: start ascending, end descending. */
static int cmp_time(const void *x, const void *y) {
  const dla_range *a = x, *b = y;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return (a->end < b->end) - (a->end > b->end);
}

/* Sorts the ranges by (thread id, start, outer first). They come in id
 * order, which is about time order with the threads interleaved (at 10 M
 * ranges a sort of the whole array took a third of loading them, part of
 * it in the introsort's heapsort fallback), while each thread's ranges are
 * usually in order already. So they are grouped by thread id first, in
 * their order (a stable scatter into a new array), and a group is sorted
 * only when it is out of order. *cap: the array's capacity (the copy's is
 * nr). */
static int sort_ranges(dla_ctx *c, size_t *cap) {
  size_t n = c->nr, k = 1;
  while (k < n && dla__range_cmp_key(c, &c->r[k - 1], dla__range_tk(c, &c->r[k]), c->r[k].start,
                          c->r[k].end) <= 0)
    k++;
  if (k >= n) return DL_OK; /* already sorted */
  size_t *at = calloc((size_t)c->ntk + 1, sizeof *at); /* by thread id: first, then next slot */
  dla_range *out = at ? malloc(n * sizeof *out) : NULL;
  dl_advise_huge(out, n * sizeof *out);
  if (!out) {
    free(at);
    return DL_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) at[dla__range_tk(c, &c->r[i]) + 1]++;
  for (size_t t = 0; t < c->ntk; t++) at[t + 1] += at[t];
  for (size_t i = 0; i < n; i++) out[at[dla__range_tk(c, &c->r[i])]++] = c->r[i];
  free(c->r);
  c->r = out;
  *cap = n;
  for (size_t t = 0, b = 0; t < c->ntk; t++) { /* at[t]: the end of thread id t's group */
    dla_range *v = out + b;
    size_t m = at[t] - b, i = 1;
    while (i < m && cmp_time(&v[i - 1], &v[i]) <= 0) i++;
    if (i < m) dla__qsort(v, m, sizeof *v, cmp_time);
    b = at[t];
  }
  free(at);
  return DL_OK;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Iteration boundaries from the key op's stop times (N stops: N + 1
 * iterations), or one iteration over the whole profile. */
static int split_iterations(dla_ctx *c, int64_t pstart, int64_t pend) {
  const char *key = c->o->key_op ? c->o->key_op : dla_default_key_op(c->o->mode);
  if (key && !*key) key = NULL;
  if (key && c->o->key_op_spans) /* Kineto: one iteration per ProfilerStep#N */
    return dla__split_spans(c, pstart, pend);
  char *is_key = calloc(c->nops + 1, 1);
  if (!is_key) return DL_ENOMEM;
  if (key)
    for (size_t i = 0; i < c->nops; i++)
      is_key[i] = strcmp(c->ops[i].path, key) == 0 || strcmp(c->ops[i].type, key) == 0 ||
                  dla_opname_key_match(key, c->ops[i].path);
  size_t n = 0;
#define IS_KEY(x) ((x)->inst >= 0 && &c->r[(x)->inst] == (x) && (x)->op >= 0 && is_key[(x)->op])
  for (size_t i = 0; key && i < c->nr; i++) n += IS_KEY(&c->r[i]);
  c->bound = malloc((n + 2) * sizeof *c->bound);
  if (!c->bound) {
    free(is_key);
    return DL_ENOMEM;
  }
  c->bound[0] = pstart;
  size_t j = 1;
  for (size_t i = 0; key && i < c->nr; i++)
    if (IS_KEY(&c->r[i])) c->bound[j++] = c->r[i].end;
#undef IS_KEY
  free(is_key);
  dla__qsort(c->bound + 1, n, sizeof *c->bound, cmp_i64);
  c->bound[n + 1] = pend > c->bound[n] ? pend : c->bound[n];
  c->niter = (int64_t)n + 1;
  c->key_op_found = key && n > 0;
  return DL_OK;
}

/* A PyTorch profiler trace often ends inside a step: the profiler stops
 * right after the last step() call began the next ProfilerStep#N span. Its
 * iteration (the last) is a cut-off step when it is shorter than
 * DLA_CUT_STEP_PCT of the median of the others and no GPU work runs or is
 * launched in it. 1 with its length and that median, else 0. */
static int cut_off_last_step(const dla_ctx *c, int64_t *len, int64_t *median) {
  int64_t n = c->niter;
  if (!c->o->key_op_spans || !c->key_op_found || n < 2) return 0;
  int64_t from = c->bound[n - 1];
  *len = c->bound[n] - from;
  for (size_t i = 0; i < c->nk; i++)
    if (dla__kern_end(c, &c->k[i]) > from || dla__kern_api_start(c, &c->k[i]) >= from) return 0;
  for (size_t i = 0; i < c->nm; i++)
    if (c->m[i].end > from) return 0;
  int64_t *d = malloc((size_t)(n - 1) * sizeof *d);
  if (!d) return 0; /* no memory: no finding, the range as asked */
  for (int64_t i = 0; i < n - 1; i++) d[i] = c->bound[i + 1] - c->bound[i];
  dla__qsort(d, (size_t)(n - 1), sizeof *d, cmp_i64);
  *median = d[(n - 1) / 2];
  free(d);
  return (double)*len < (double)*median * DLA_CUT_STEP_PCT / 100.0;
}

/* ---- Statistics ---------------------------------------------------------------- */

typedef struct iter_op_acc {
  int64_t iter, op, total, tc, gpu, tc_gpu;
} iter_op_acc;

typedef struct op_kernel_acc {
  int64_t op, name_id, calls, gpu, min, max, api;
  int64_t api_min, api_max;  /* launch call durations; api_min INT64_MAX: none known */
  int tc;
} op_kernel_acc;

typedef struct stats {
  iter_op_acc *io; size_t nio, iocap;
  op_kernel_acc *ok; size_t nok, okcap;
  dla_map io_map, ok_map, names;
  int64_t *it_kcount, *it_tccount, *it_gpu, *it_tcgpu;
  int64_t kernel_gpu, tc_gpu, mem_gpu, launches;
  int64_t kernel_api, tc_api, mem_api; /* launching calls' durations (CPU time) */
  int64_t name_count, tc_name_count, other_name_count, mem_name_count;
  int64_t elig_gpu, elig_tc_gpu;
} stats;

static void stats_free(stats *s) {
  free(s->io);
  free(s->ok);
  dla_map_free(&s->io_map);
  dla_map_free(&s->ok_map);
  dla_map_free(&s->names);
  free(s->it_kcount);
  free(s->it_tccount);
  free(s->it_gpu);
  free(s->it_tcgpu);
}

typedef struct gpu_iv {
  int64_t start, end;
} gpu_iv;

static int cmp_iv(const void *x, const void *y) {
  const gpu_iv *a = x, *b = y;
  return (a->start > b->start) - (a->start < b->start);
}

/* Work grouped by op instance with a counting sort (instances: ranges
 * 0..nr-1, then the calls outside every instance, nr + their index in
 * c->own): first[inst] .. first[inst + 1] index order[], which lists
 * kernels (w < nk) and memory ops (nk + index). */
typedef struct inst_work {
  uint32_t *first, *order;
  gpu_iv *iv;
  size_t ivcap;
} inst_work;

static void inst_work_free(inst_work *w) {
  free(w->first);
  free(w->order);
  free(w->iv);
}

/* The instance slot of dla__call_inst's instance inst (>= 0). */
static size_t inst_slot(const dla_ctx *c, int32_t inst) {
  if ((size_t)inst < c->nr) return (size_t)inst;
  return c->nr + dla__own_index(c, (int32_t)((size_t)inst - c->nr));
}

static int inst_work_build(const dla_ctx *c, inst_work *w) {
  size_t ninst = c->nr + c->nown, nw = c->nk + c->nm;
  memset(w, 0, sizeof *w);
  w->first = calloc(ninst + 2, sizeof *w->first);
  w->order = malloc((nw + 1) * sizeof *w->order);
  dl_advise_huge(w->first, (ninst + 2) * sizeof *w->first);
  dl_advise_huge(w->order, (nw + 1) * sizeof *w->order);
  w->ivcap = 64;
  w->iv = malloc(w->ivcap * sizeof *w->iv);
  if (!w->first || !w->order || !w->iv) return DL_ENOMEM;
  for (size_t i = 0; i < nw; i++) {
    int32_t inst = i < c->nk ? dla__call_inst(c, c->k[i].api) : c->m[i - c->nk].inst;
    if (inst >= 0) w->first[inst_slot(c, inst) + 2]++;
  }
  for (size_t i = 2; i < ninst + 2; i++) w->first[i] += w->first[i - 1];
  for (size_t i = 0; i < nw; i++) {
    int32_t inst = i < c->nk ? dla__call_inst(c, c->k[i].api) : c->m[i - c->nk].inst;
    if (inst >= 0) w->order[w->first[inst_slot(c, inst) + 1]++] = (uint32_t)i;
  }
  return DL_OK;
}

/* GPU time of instance inst = the union of its kernels', memcpys' and
 * memsets' intervals (*busy; 0 without work); *first_start and *last_end
 * span them (INT64_MAX, INT64_MIN without work). */
static int inst_gpu(const dla_ctx *c, inst_work *w, size_t inst, int64_t *busy,
                    int64_t *first_start, int64_t *last_end) {
  size_t lo = w->first[inst], hi = w->first[inst + 1], n = 0;
  *busy = 0;
  *first_start = INT64_MAX;
  *last_end = INT64_MIN;
  if (lo == hi) return DL_OK;
  if (hi - lo > w->ivcap) {
    gpu_iv *nv = realloc(w->iv, (hi - lo) * sizeof *nv);
    if (!nv) return DL_ENOMEM;
    w->iv = nv;
    w->ivcap = hi - lo;
  }
  gpu_iv *iv = w->iv;
  for (size_t j = lo; j < hi; j++, n++) {
    uint32_t x = w->order[j];
    if (x < c->nk) iv[n] = (gpu_iv){c->k[x].gpu_start, dla__kern_end(c, &c->k[x])};
    else iv[n] = (gpu_iv){c->m[x - c->nk].start, c->m[x - c->nk].end};
  }
  dla__qsort(iv, n, sizeof *iv, cmp_iv);
  int64_t b = 0, cs = iv[0].start, ce = iv[0].end, last = iv[0].end;
  for (size_t j = 1; j < n; j++) {
    if (iv[j].end > last) last = iv[j].end;
    if (iv[j].start > ce) {
      b += ce - cs;
      cs = iv[j].start;
      ce = iv[j].end;
    } else if (iv[j].end > ce) {
      ce = iv[j].end;
    }
  }
  *busy = b + (ce - cs);
  *first_start = iv[0].start;
  *last_end = last;
  return DL_OK;
}

/* One instance's figures into its op's sums, minima and maxima. */
static void op_add_gpu(dla_op *op, int64_t gpu, int64_t idle) {
  op->idle += idle > 0 ? idle : 0;
  op->gpu += gpu;
  if (gpu < op->gpu_min) op->gpu_min = gpu;
  if (gpu > op->gpu_max) op->gpu_max = gpu;
}

static void op_add_cpu(dla_op *op, int64_t dur) {
  op->num_calls++;
  op->cpu += dur;
  if (dur < op->cpu_min) op->cpu_min = dur;
  if (dur > op->cpu_max) op->cpu_max = dur;
}

/* An op instance in the window: range i owns its calls and is of an op. */
static int window_instance(const dla_ctx *c, size_t i) {
  const dla_range *r = &c->r[i];
  return r->inst == (int32_t)i && r->op >= 0 && dla__in_window(c, r->start);
}

/* Op figures from the op instances of the aggregated iterations. A range
 * instance: CPU time = the range, CPU overhead = CPU time not spent in the
 * CUDA API calls attributed to it, GPU time = the union of its GPU work,
 * GPU idle = first start to last end of that work minus the union. An
 * unassociated call's GPU figures go straight to its op (its CPU figures
 * follow in accumulate). The per-instance figures are used at once, not
 * kept: no per-range accumulators survive this function. Sums, minima and
 * maxima, in two passes (GPU figures from the instances' grouped GPU work,
 * then CPU figures from their API time), so that the two arrays are not
 * held at once. */
static int instance_figures(dla_ctx *c) {
  inst_work w;
  int rc = inst_work_build(c, &w);
  for (size_t i = 0; rc == DL_OK && i < c->nr; i++) {
    if (!window_instance(c, i)) continue;
    int64_t gpu, first_k, last_k;
    if ((rc = inst_gpu(c, &w, i, &gpu, &first_k, &last_k))) break;
    dla_op *op = &c->ops[c->r[i].op];
    op_add_gpu(op, gpu, first_k != INT64_MAX ? (last_k - first_k) - gpu : 0);
  }
  for (size_t j = 0; rc == DL_OK && j < c->nown; j++) {
    const dla_api *a = &c->a[c->own[j].call];
    if (w.first[c->nr + j] == w.first[c->nr + j + 1]) continue; /* no GPU work */
    if (!dla__in_window(c, a->start)) continue;
    int64_t busy, first_k, last_k;
    if ((rc = inst_gpu(c, &w, c->nr + j, &busy, &first_k, &last_k))) break;
    op_add_gpu(&c->ops[c->own[j].op], busy, (last_k - first_k) - busy); /* idle >= 0 */
  }
  inst_work_free(&w);
  if (rc) return rc;
  int64_t *api = calloc(c->nr + 1, sizeof *api); /* per range instance: API time */
  dl_advise_huge(api, (c->nr + 1) * sizeof *api);
  if (!api) return DL_ENOMEM;
  for (size_t i = 0; i < c->na; i++) {
    const dla_api *a = &c->a[i];
    if (a->range >= 0 && c->r[a->range].inst >= 0) api[c->r[a->range].inst] += dla__api_dur(c, a);
  }
  for (size_t i = 0; i < c->nr; i++) {
    if (!window_instance(c, i)) continue;
    const dla_range *r = &c->r[i];
    dla_op *op = &c->ops[r->op];
    int64_t dur = r->end - r->start;
    int64_t ovh = dur - api[i];
    op_add_cpu(op, dur);
    op->overhead += ovh > 0 ? ovh : 0;
  }
  free(api);
  return DL_OK;
}

static int accumulate(dla_ctx *c, stats *s) {
  size_t ni = (size_t)c->niter;
  s->it_kcount = calloc(ni, sizeof(int64_t));
  s->it_tccount = calloc(ni, sizeof(int64_t));
  s->it_gpu = calloc(ni, sizeof(int64_t));
  s->it_tcgpu = calloc(ni, sizeof(int64_t));
  if (!s->it_kcount || !s->it_tccount || !s->it_gpu || !s->it_tcgpu) return DL_ENOMEM;
  int rc = instance_figures(c);
  if (rc) return rc;
  /* API calls outside every instance are instances of their own op: all
   * of their CPU time is API time (overhead 0) */
  for (size_t j = 0; j < c->nown; j++) {
    const dla_api *a = &c->a[c->own[j].call];
    if (!dla__in_window(c, a->start)) continue;
    dla_op *op = &c->ops[c->own[j].op];
    op_add_cpu(op, dla__api_dur(c, a));
    if (op->gpu_min == INT64_MAX) op->gpu_min = op->gpu_max = 0;
  }
  /* An op that runs a tensor-core kernel is eligible for tensor cores,
   * whatever its type says (eligibility by type is a prediction, a TC
   * kernel is proof). Else TC utilization, TC kernel time over the kernel
   * time of eligible ops, left out the TC time of ops of other types: a
   * CUTLASS run with every compute kernel on tensor cores read 0.0 %. */
  for (size_t i = 0; i < c->nk; i++)
    if (dla__kern_tc(c, &c->k[i]) && dla__kern_in_aggr(c, &c->k[i]))
      c->ops[dla__kern_op(c, &c->k[i])].eligible = 1;
  /* kernels in the aggregated iterations */
  int32_t hint = 0;
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    int32_t it = dla__kern_iter(c, k, &hint);
    if (!dla__in_aggr(c, it)) continue;
    int32_t op_idx = dla__kern_op(c, k);
    int64_t dur = dla__kern_dur(c, k);
    dla_op *op = &c->ops[op_idx];
    op->kernel_calls++;
    if (dla__kern_tc(c, k)) {
      op->tc_gpu += dur;
      op->using_tc = 1;
    }
    s->launches++;
    s->kernel_gpu += dur;
    if (dla__kern_tc(c, k)) s->tc_gpu += dur;
    s->it_kcount[it]++;
    s->it_gpu[it] += dur;
    if (dla__kern_tc(c, k)) {
      s->it_tccount[it]++;
      s->it_tcgpu[it] += dur;
    }
    uint64_t key = ((uint64_t)it << 32) | (uint32_t)op_idx;
    int64_t v = dla_map_get(&s->io_map, key);
    if (v < 0) {
      if (DLA_GROW(s->io, s->nio, s->iocap)) return DL_ENOMEM;
      v = (int64_t)s->nio++;
      memset(&s->io[v], 0, sizeof s->io[v]);
      s->io[v].iter = it;
      s->io[v].op = op_idx;
      if (dla_map_put(&s->io_map, key, v)) return DL_ENOMEM;
    }
    s->io[v].total++;
    s->io[v].gpu += dur;
    if (dla__kern_tc(c, k)) {
      s->io[v].tc++;
      s->io[v].tc_gpu += dur;
    }
    int32_t short_id = dla__kern_short(c, k);
    key = ((uint64_t)(uint32_t)op_idx << 32) | (uint32_t)short_id;
    v = dla_map_get(&s->ok_map, key);
    if (v < 0) {
      if (DLA_GROW(s->ok, s->nok, s->okcap)) return DL_ENOMEM;
      v = (int64_t)s->nok++;
      memset(&s->ok[v], 0, sizeof s->ok[v]);
      s->ok[v].op = op_idx;
      s->ok[v].name_id = short_id;
      s->ok[v].min = INT64_MAX;
      s->ok[v].api_min = INT64_MAX;
      if (dla_map_put(&s->ok_map, key, v)) return DL_ENOMEM;
    }
    op_kernel_acc *ok = &s->ok[v];
    ok->calls++;
    ok->gpu += dur;
    int64_t api_dur = dla__kern_api_dur(c, k);
    if (api_dur >= 0) {
      ok->api += api_dur;
      if (api_dur < ok->api_min) ok->api_min = api_dur;
      if (api_dur > ok->api_max) ok->api_max = api_dur;
      s->kernel_api += api_dur;
      if (dla__kern_tc(c, k)) s->tc_api += api_dur;
    }
    ok->tc |= dla__kern_tc(c, k);
    if (dur < ok->min) ok->min = dur;
    if (dur > ok->max) ok->max = dur;
    /* distinct kernel names: bit 1 seen, 2 seen as TC, 4 seen as non-TC */
    int64_t flags = dla_map_get(&s->names, (uint64_t)short_id);
    int64_t nf = (flags < 0 ? 0 : flags) | 1 | (dla__kern_tc(c, k) ? 2 : 4);
    if (nf != flags && dla_map_put(&s->names, (uint64_t)short_id, nf)) return DL_ENOMEM;
    if (op->eligible) {
      s->elig_gpu += dur;
      if (dla__kern_tc(c, k)) s->elig_tc_gpu += dur;
    }
  }
  for (size_t i = 0; i < s->names.cap; i++) {
    int64_t f = s->names.vals[i];
    if (f < 0) continue;
    s->name_count++;
    s->tc_name_count += (f & 2) != 0;
    s->other_name_count += (f & 4) != 0;
  }
  /* memory ops: time and distinct names */
  int64_t seen[64];
  size_t nseen = 0;
  for (size_t i = 0; i < c->nm; i++) {
    dla_mem *m = &c->m[i];
    m->iter = dla__iter_of(c, m->start);
    if (!dla__in_aggr(c, m->iter)) continue;
    s->mem_gpu += m->end - m->start;
    s->mem_api += m->api_dur;
    size_t j = 0;
    while (j < nseen && seen[j] != m->name_key) j++;
    if (j == nseen && nseen < 64) seen[nseen++] = m->name_key;
  }
  s->mem_name_count = (int64_t)nseen;
  for (size_t i = 0; i < c->nops; i++) {
    dla_op *op = &c->ops[i];
    op->bad = op->eligible && !op->using_tc && op->kernel_calls > 0 &&
              strcmp(op->data_type, "float32") == 0;
    if (op->cpu_min == INT64_MAX) op->cpu_min = 0;
    if (op->gpu_min == INT64_MAX) op->gpu_min = 0;
    if (op->num_calls == 0 && op->kernel_calls > 0) op->num_calls = 1;
  }
  return DL_OK;
}

typedef struct op_order {
  int64_t first_start, idx;
} op_order;

static int cmp_first(const void *x, const void *y) {
  const op_order *a = x, *b = y;
  if (a->first_start != b->first_start) return a->first_start < b->first_start ? -1 : 1;
  return (a->idx > b->idx) - (a->idx < b->idx);
}

/* op_node_id: upper-cased type + per-type counter, over all ops in the
 * order of their first instance (DLProf: CUDA_1 .. CUDA_11 in time order;
 * stable across aggregations of one file). */
static int assign_node_ids(dla_ctx *c) {
  dla_smap counters;
  dla_smap_init(&counters);
  char **prefixes = calloc(c->nops + 1, sizeof *prefixes);
  op_order *order = malloc((c->nops + 1) * sizeof *order);
  int rc = prefixes && order ? DL_OK : DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < c->nops; i++)
    order[i] = (op_order){c->ops[i].first_start, (int64_t)i};
  if (rc == DL_OK) dla__qsort(order, c->nops, sizeof *order, cmp_first);
  for (size_t j = 0; rc == DL_OK && j < c->nops; j++) {
    size_t i = (size_t)order[j].idx;
    size_t n = strlen(c->ops[i].type) + 1;
    prefixes[i] = malloc(n);
    c->ops[i].node_id = malloc(n + 24);
    if (!prefixes[i] || !c->ops[i].node_id) {
      rc = DL_ENOMEM;
      break;
    }
    dla_opname_id_prefix(c->ops[i].type, prefixes[i], n);
    int64_t cnt = dla_smap_get(&counters, prefixes[i]);
    cnt = cnt < 0 ? 1 : cnt + 1;
    if (dla_smap_put(&counters, prefixes[i], cnt)) rc = DL_ENOMEM;
    snprintf(c->ops[i].node_id, n + 24, "%s_%lld", prefixes[i], (long long)cnt);
  }
  for (size_t i = 0; prefixes && i < c->nops; i++) free(prefixes[i]);
  free(prefixes);
  free(order);
  dla_smap_free(&counters);
  return rc;
}

static int op_included(const dla_op *op) { return op->num_calls > 0 || op->kernel_calls > 0; }

/* ---- Output ------------------------------------------------------------------ */

/* Writes the aggregation in one transaction. Frees c->k and c->a once
 * their rows are written (the NVTX statistics come last). */
static int write_all(dla_ctx *c, stats *s, const dla_facts *f, const dla_finding *fd,
                     size_t nfd, int64_t *aggr_id_out) {
  char *err = c->err;
  size_t errlen = c->errlen;
  char now[32], host[256] = "";
  const char *aggr_start = c->o->aggr_start;
  if (!aggr_start) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S", &tm);
    aggr_start = now;
  }
  const char *hostname = c->o->host_name;
  if (!hostname) {
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    hostname = host;
  }
  const char *user = c->o->user_name ? c->o->user_name : getenv("USER");
  const char *key = c->o->key_op ? c->o->key_op : dla_default_key_op(c->o->mode);
  if (!key) key = "";
  const char *key_name = c->key_op_found ? key : "";
  dldb_aggr_row ar = {
      .domain_id = c->domain_id, .iter_start = c->iter_start, .iter_stop = c->iter_stop,
      .iter_aggregated = c->iter_stop - c->iter_start + 1, .key_node_name = key_name,
      .user_name = user ? user : "", .host_name = hostname, .aggr_start = aggr_start,
      .wall_start_ns = c->wall_start, .wall_end_ns = c->wall_end,
      .key_op_found = c->key_op_found, .tc_rules = DLA_TC_RULES_VERSION,
  };
  int64_t aggr_id = 0;
  dla_nvtx_proj *nvtx = NULL;
  int rc = dldb_aggr_begin(c->w, &ar, &aggr_id, err, errlen);
  if (rc) return rc;
  if ((rc = dldb_write_meta(c->w, "tc_rules_version", DLA_TC_RULES_VERSION, err, errlen)))
    goto out;
  /* The statistics of calls, kernels and memory first: grouping their
   * values beside the ranges, calls and kernels is the most memory they
   * take, and SQLite's page cache is still nearly empty (its pages stay
   * dirty, so held, until the commit). They have few rows. */
  dla__progress(c, "writing statistics", 0, 1);
#ifdef __GLIBC__
  malloc_trim(0); /* what the analysis's smaller transients freed stays resident otherwise */
#endif
  if ((rc = dla__stats_write(c, aggr_id))) goto out;
  dla__progress(c, "writing statistics", 1, 1);
  dla__progress(c, "writing the aggregation", 0, (int64_t)c->nk);

  int64_t wall = c->wall_end - c->wall_start;
  dldb_summary_row sr = {
      .wall_clock_time = wall,
      .tc_utilization = s->elig_gpu > 0 ? 100.0 * (double)s->elig_tc_gpu / (double)s->elig_gpu
                                        : 0.0,
      .gpu_utilization = f->gpu_utilization,
      .total_iterations = c->niter, .profiled_iterations = c->iter_stop - c->iter_start + 1,
      .iter_start = c->iter_start, .iter_stop = c->iter_stop,
      .key_node = key_name,
      .kernels_gpu_time = s->kernel_gpu, .kernels_count = s->name_count,
      .using_tc_gpu_time = s->tc_gpu, .using_tc_count = s->tc_name_count,
      .memory_gpu_time = s->mem_gpu, .memory_count = s->mem_name_count,
      .other_gpu_time = s->kernel_gpu - s->tc_gpu, .other_count = s->other_name_count,
      .kernel_launches = s->launches,
      .kernels_cpu_time = s->kernel_api, .using_tc_cpu_time = s->tc_api,
      .memory_cpu_time = s->mem_api, .other_cpu_time = s->kernel_api - s->tc_api,
  };
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < f->n_iter_durations; i++) sum += (double)f->iter_durations[i];
  sr.iter_avg = f->n_iter_durations ? sum / (double)f->n_iter_durations : 0.0;
  for (int64_t i = 0; i < f->n_iter_durations; i++) {
    double d = (double)f->iter_durations[i] - sr.iter_avg;
    sq += d * d;
  }
  sr.iter_std_dev = f->n_iter_durations ? sqrt(sq / (double)f->n_iter_durations) : 0.0;
  for (int k = 0; k < DLA_NCAT; k++) sr.pct[k] = f->pct[k];
  for (size_t i = 0; i < c->nops; i++) {
    const dla_op *op = &c->ops[i];
    if (!op_included(op)) continue;
    sr.nodes_gpu_time[0] += op->gpu;
    sr.nodes_count[0]++;
    if (op->using_tc) {
      sr.nodes_gpu_time[1] += op->gpu;
      sr.nodes_count[1]++;
    }
    if (op->eligible) {
      sr.nodes_gpu_time[2] += op->gpu;
      sr.nodes_count[2]++;
    } else {
      sr.nodes_gpu_time[3] += op->gpu;
      sr.nodes_count[3]++;
    }
  }
  if ((rc = dldb_aggr_summary(c->w, aggr_id, &sr, err, errlen))) goto out;

  for (int64_t i = 0; i < c->niter; i++) {
    int prof = dla__in_aggr(c, (int32_t)i);
    dldb_iteration_row ir = {
        .iter_value = i, .start_time = c->bound[i], .stop_time = c->bound[i + 1],
        .profiled = prof, .total_kernel_count = s->it_kcount[i],
        .using_tc_kernel_count = s->it_tccount[i], .total_gpu_time = s->it_gpu[i],
        .tc_gpu_time = s->it_tcgpu[i],
    };
    int64_t d = c->bound[i + 1] - c->bound[i];
    if (prof) {
      for (int k = 0; k < DLA_NCAT; k++) ir.dur[k] = c->iter_cat[i * DLA_NCAT + k];
      ir.gpu_utilization =
          d > 0 ? 100.0 * (double)(ir.dur[DLA_CAT_TC] + ir.dur[DLA_CAT_NON_TC]) / (double)d : 0;
    }
    if ((rc = dldb_aggr_iteration(c->w, aggr_id, &ir, err, errlen))) goto out;
  }
  if (c->iter_name && dldb_dl_has_iter_names(c->w) &&
      (rc = dldb_aggr_dl_iter_names(c->w, aggr_id, c->iter_name, (size_t)c->niter, err, errlen)))
    goto out;

  for (size_t i = 0; i < c->nops; i++) {
    const dla_op *op = &c->ops[i];
    if (!op_included(op)) continue;
    dldb_op_row orow = {
        .op_idx = (int64_t)i, .op_node_id = op->node_id, .op_node_name = op->path,
        .direction = op->direction, .op_node_type = op->type, .data_type = op->data_type,
        .stack_trace = op->stack, .num_calls = op->num_calls, .kernel_calls = op->kernel_calls,
        .tc_eligible = op->eligible, .using_tc = op->using_tc, .is_bad_data_type = op->bad,
        .cpu_time = op->cpu, .gpu_time = op->gpu, .cpu_overhead = op->overhead,
        .gpu_idle = op->idle, .tc_gpu_time = op->tc_gpu, .cpu_time_min = op->cpu_min,
        .cpu_time_max = op->cpu_max, .gpu_time_min = op->gpu_min, .gpu_time_max = op->gpu_max,
        .input_shapes = op->in_shapes, .parameters = op->params, .output_shapes = op->out_shapes,
    };
    if ((rc = dldb_aggr_op(c->w, aggr_id, &orow, err, errlen))) goto out;
  }

  int32_t hint = 0;
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    int32_t it = dla__kern_iter(c, k, &hint);
    if (!dla__in_aggr(c, it)) continue;
    dldb_kernel_attr_row kr = {.iter_value = it, .kernel_id = dla__kern_id(c, k),
                               .op_idx = dla__kern_op(c, k),
                               .api_start_ns = dla__kern_api_start(c, k),
                               .api_dur_ns = dla__kern_api_dur(c, k),
                               .uses_tc = dla__kern_tc(c, k)};
    if ((rc = dldb_aggr_kernel(c->w, aggr_id, &kr, err, errlen))) goto out;
    if ((i + 1) % 65536 == 0) dla__progress(c, "writing the aggregation", (int64_t)i + 1, (int64_t)c->nk);
  }
  for (size_t i = 0; i < s->nio; i++) {
    const iter_op_acc *a = &s->io[i];
    dldb_iter_op_row r = {.iter_value = a->iter, .op_idx = a->op, .total_count = a->total,
                          .tc_count = a->tc, .total_gpu_time = a->gpu, .tc_gpu_time = a->tc_gpu};
    if ((rc = dldb_aggr_iter_op(c->w, aggr_id, &r, err, errlen))) goto out;
  }
  for (size_t i = 0; i < s->nok; i++) {
    const op_kernel_acc *a = &s->ok[i];
    dldb_op_kernel_row r = {.op_idx = a->op, .kernel_name_id = a->name_id, .uses_tc = a->tc,
                            .calls = a->calls, .gpu_time = a->gpu, .min = a->min,
                            .max = a->max, .api_time = a->api,
                            .api_min = a->api_min == INT64_MAX ? -1 : a->api_min,
                            .api_max = a->api_min == INT64_MAX ? -1 : a->api_max};
    if ((rc = dldb_aggr_op_kernel(c->w, aggr_id, &r, err, errlen))) goto out;
  }
  if ((rc = dla__write_groups(c, aggr_id))) goto out;
  if ((rc = dla__write_op_types(c, aggr_id))) goto out;
  if ((rc = dla__comm_write(c, aggr_id))) goto out;
  for (int g = 0; g < c->ngpus; g++) {
    dldb_gpu_util_row r = {.device_id = c->gpu_ids[g], .gpu_utilization = c->gpu_util[g],
                           .kernel_time = c->gpu_busy[g]};
    if ((rc = dldb_aggr_gpu(c->w, aggr_id, &r, err, errlen))) goto out;
  }
  for (size_t i = 0; i < nfd; i++) {
    dldb_finding_row r = {.rule_id = fd[i].rule_id, .problem = fd[i].problem,
                          .recommendation = fd[i].recommendation,
                          .javascript_function = fd[i].js_function,
                          .javascript_args = fd[i].js_args};
    if ((rc = dldb_aggr_finding(c->w, aggr_id, (int64_t)i + 1, &r, err, errlen))) goto out;
  }
  /* the aggregation's rows end here (each phase ends before the next
   * starts: --verbosity=detailed times them) */
  dla__progress(c, "writing the aggregation", (int64_t)c->nk, (int64_t)c->nk);
  dla__progress(c, "writing NVTX statistics", 0, 1);
  /* Every row that needs the calls is written: the kernels shrink, in
   * place, to what the GPU projection reads of them and of their calls (12
   * bytes a kernel back), the calls go, then the kernels, before the NVTX
   * statistics. */
  size_t nk = c->nk;
  dla_kspan *ks = (dla_kspan *)(void *)c->k;
  for (size_t i = 0; i < nk; i++) { /* span i is written at or before kernel i, once read */
    const dla_kern *k = &c->k[i];
    dla_kspan x = {.start = k->gpu_start, .end = dla__kern_end(c, k),
                   .range = dla__kern_range(c, k)};
    memcpy(&ks[i], &x, sizeof x);
  }
  if (nk) {
    dla_kspan *p = realloc(ks, nk * sizeof *ks);
    if (p) ks = p;
  }
  free(c->kid);
  free(c->klong);
  c->k = NULL;
  c->kid = NULL;
  c->klong = NULL;
  c->nk = c->kcap = c->kidcap = c->nklong = c->klongcap = 0;
  free(c->a);
  free(c->along);
  c->a = NULL;
  c->along = NULL;
  c->na = c->nalong = c->alongcap = 0;
  rc = dla__stats_project(c, ks, nk, &nvtx);
  free(ks);
  if (rc) goto out;
  if ((rc = dla__stats_write_nvtx(c, aggr_id, &nvtx))) goto out;
  dla__progress(c, "writing NVTX statistics", 1, 1);
  /* the first aggregation of a file builds the index of kernels by op here */
  dla__progress(c, "committing the aggregation", 0, 1);
  rc = dldb_aggr_end(c->w, err, errlen);
  if (rc == DL_OK) dla__progress(c, "committing the aggregation", 1, 1);
out:
  dla__stats_nvtx_free(&nvtx);
  if (rc) dldb_aggr_cancel(c->w);
  else if (aggr_id_out) *aggr_id_out = aggr_id;
  return rc;
}

/* ---- Loading the calls and kernels beside op building ------------------------------ */

/* The API calls, kernels and memory ops load (dla__load_calls,
 * dldb_scan_gpu_ops) into a copy of the context whose writer is a second
 * connection (dldb_writer_reader) and whose progress goes nowhere, on a
 * thread of their own, while dla__build_nodes runs on the caller's: they
 * read only the ranges' times, threads, processes and names, which op
 * building does not write; what needs the op nodes waits for them
 * (dla__calls_ops, gpu_owners). */
typedef struct loads {
  dla_ctx *c;             /* where they load: &own */
  dla_ctx own;
  dla_opts opts;          /* the caller's, without progress */
  dldb_writer *reader;
  dla_corr *corr;
  dla_calls_pending *pending;
  pthread_t thread;
  int rc;
  char err[512];
} loads;

static int loads_run(loads *ld) {
  dla_ctx *c = ld->c;
  loader l = {.c = c};
  dla_map tc_cache, cfg_of;
  dla_map_init(&tc_cache);
  dla_map_init(&cfg_of);
  int rc = dla__load_calls(c, &ld->corr, &ld->pending);
  gpu_loader gl = {.c = c, .corr = ld->corr, .tc_cache = &tc_cache, .cfg_of = &cfg_of, .l = &l};
  if (rc == DL_OK)
    rc = load_phase(&l, "loading kernels", "kernels", (void **)&c->k, &c->kcap, sizeof *c->k,
                    dldb_scan_estimate(c->w, "memcpys") + dldb_scan_estimate(c->w, "memsets"));
  if (rc == DL_OK) rc = dldb_scan_gpu_ops(c->w, load_gpu_op, &gl, c->err, c->errlen);
  dla__corr_free(&ld->corr); /* the GPU work has its calls: 4 bytes a call back */
  dla_map_free(&cfg_of);
  dla_map_free(&tc_cache);
  return rc;
}

static void *loads_main(void *arg) {
  loads *ld = arg;
  ld->rc = loads_run(ld);
  return NULL;
}

/* Sets ld up to load into a copy of c that reads through w and reports
 * no progress; errors go to ld->err. */
static void loads_init(dla_ctx *c, loads *ld, dldb_writer *w) {
  ld->opts = *c->o;
  ld->opts.progress = NULL;
  ld->own = *c;
  ld->own.w = w;
  ld->own.o = &ld->opts;
  ld->own.err = ld->err;
  ld->own.errlen = sizeof ld->err;
  ld->c = &ld->own;
}

/* 1 when the loads run on their thread (loads_finish joins it), 0 when
 * they are to run after op building (no second connection or thread). */
static int loads_start(dla_ctx *c, loads *ld) {
  memset(ld, 0, sizeof *ld);
  if (dldb_writer_reader(c->w, &ld->reader, ld->err, sizeof ld->err) != DL_OK) return 0;
  loads_init(c, ld, ld->reader);
  if (pthread_create(&ld->thread, NULL, loads_main, ld) != 0) {
    dldb_writer_reader_close(&ld->reader);
    return 0;
  }
  return 1;
}

/* Waits for the loads (or, not threaded, runs them here) and moves what
 * they loaded into c; their error, if any, with its message in ld->err. */
static int loads_finish(dla_ctx *c, loads *ld, int threaded) {
  if (threaded) {
    pthread_join(ld->thread, NULL);
    dldb_writer_reader_close(&ld->reader);
  } else {
    memset(ld, 0, sizeof *ld);
    loads_init(c, ld, c->w);
    ld->rc = loads_run(ld);
  }
  dla_ctx *x = &ld->own;
  c->a = x->a, c->na = x->na;
  c->along = x->along, c->nalong = x->nalong, c->alongcap = x->alongcap;
  c->k = x->k, c->nk = x->nk, c->kcap = x->kcap;
  c->kid = x->kid, c->kidcap = x->kidcap, c->kid0 = x->kid0;
  c->klong = x->klong, c->nklong = x->nklong, c->klongcap = x->klongcap;
  c->kcfg = x->kcfg, c->nkcfg = x->nkcfg, c->kcfgcap = x->kcfgcap;
  c->m = x->m, c->nm = x->nm, c->mcap = x->mcap;
  return ld->rc; /* its message in ld->err */
}

/* ---- Entry point ---------------------------------------------------------------- */

/* An AMD GPU by its name: ROCm's "AMD Instinct MI300X", "AMD Radeon Graphics" (an MI250's
 * Kineto name), "Radeon PRO W7900". */
static int gpu_is_amd(const char *name) {
  return strncasecmp(name, "AMD ", 4) == 0 || strcasestr(name, "radeon") != NULL ||
         strcasestr(name, "instinct") != NULL;
}

static int load_gpu_id(void *ctx, const dldb_scan_gpu *g) {
  dla_ctx *c = ctx;
  c->ngpus_listed++;
  c->ngpus_amd += gpu_is_amd(g->name);
  if (c->ngpus < DLA_MAX_GPUS) {
    c->gpu_mem[c->ngpus] = g->memory_bytes;
    c->gpu_sms[c->ngpus] = g->sm_count > 0 ? g->sm_count : 0;
    c->gpu_ids[c->ngpus++] = g->device_id;
  }
  return 0;
}

/* The devices of kernels that the gpus table lacks, in the order of their
 * first kernel (the configurations are in the order of their first launch). */
static void add_kernel_devices(dla_ctx *c) {
  for (size_t i = 0; i < c->nkcfg; i++) {
    int g = 0;
    while (g < c->ngpus && c->gpu_ids[g] != c->kcfg[i].device) g++;
    if (g == c->ngpus && c->ngpus < DLA_MAX_GPUS) c->gpu_ids[c->ngpus++] = c->kcfg[i].device;
  }
}

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

static void profile_span(const dla_ctx *c, int64_t *pstart, int64_t *pend) {
  int64_t lo = 0, hi = 0;
  for (size_t i = 0; i < c->nr; i++) {
    if (c->r[i].start < lo) lo = c->r[i].start;
    if (c->r[i].end > hi) hi = c->r[i].end;
  }
  for (size_t i = 0; i < c->na; i++) {
    if (c->a[i].start < lo) lo = c->a[i].start;
    if (dla__api_end(c, &c->a[i]) > hi) hi = dla__api_end(c, &c->a[i]);
  }
  for (size_t i = 0; i < c->nk; i++) {
    if (c->k[i].gpu_start < lo) lo = c->k[i].gpu_start;
    if (dla__kern_end(c, &c->k[i]) > hi) hi = dla__kern_end(c, &c->k[i]);
  }
  for (size_t i = 0; i < c->nm; i++) {
    if (c->m[i].start < lo) lo = c->m[i].start;
    if (c->m[i].end > hi) hi = c->m[i].end;
  }
  *pstart = lo;
  *pend = hi;
}

#define MAX_FINDINGS 64

int dla_aggregate(dldb_writer *w, const dla_opts *opts, int64_t *aggr_id, char *err,
                  size_t errlen) {
  dla_opts defaults;
  dla_opts_init(&defaults);
  dla_ctx c;
  memset(&c, 0, sizeof c);
  c.w = w;
  c.o = opts ? opts : &defaults;
  c.err = err;
  c.errlen = errlen;
  dla_smap_init(&c.op_by_path);
  stats s;
  memset(&s, 0, sizeof s);
  dla_finding *findings = NULL;
  int64_t *durations = NULL;
  int rc;

  if ((rc = resolve_domain(&c))) goto out;
  dldb_writer_strings_idle(w); /* the analysis adds no strings: 8 bytes each back */
  dldb_writer_cache_for(w, 1); /* reads in order: SQLite's 64 MiB cache back, until write_all */
  loader l = {.c = &c, .last_th = -1};
  if ((rc = load_phase(&l, "loading NVTX ranges", "nvtx_ranges", (void **)&c.r, &l.rcap,
                       sizeof *c.r, 0)))
    goto out;
  dla_map_init(&l.thr_of);
  if (err && errlen) err[0] = '\0';
  rc = load_ranges(&c, &l);
  dla_map_free(&l.thr_of);
  if (rc || (rc = order_threads(&c))) goto out;
  dla__progress(&c, l.what, l.n, l.n);
  if (c.nr > INT32_MAX) { /* ranges are indexed in int32 */
    rc = dl_err(err, errlen, DL_EINVAL, "dla_aggregate: more than %d NVTX ranges", INT32_MAX);
    goto out;
  }
  dla__progress(&c, "building op nodes", 0, (int64_t)c.nr);
  if ((rc = sort_ranges(&c, &l.rcap))) goto out;
  /* the calls and kernels load on a second thread, through a second
   * connection, while the op nodes are built on this one */
  loads ld;
  int threaded = loads_start(&c, &ld);
  rc = dla__build_nodes(&c);
  dla__progress(&c, "building op nodes", (int64_t)c.nr, (int64_t)c.nr);
  dla__progress(&c, "loading CUDA API calls", 0, dldb_scan_estimate(w, "cuda_api_calls"));
  if (threaded || rc == DL_OK) {
    int lrc = loads_finish(&c, &ld, threaded);
    if (rc == DL_OK && lrc) rc = dl_err(err, errlen, lrc, "%s", ld.err);
  }
  if (rc == DL_OK) rc = dla__calls_ops(&c, &ld.pending);
  dla__calls_pending_free(&ld.pending);
  if (rc) goto out;
  dla__progress(&c, "loading CUDA API calls", (int64_t)c.na, (int64_t)c.na);
  dla__progress(&c, "loading kernels", 0, (int64_t)(c.nk + c.nm));
  if ((rc = gpu_owners(&c))) goto out;
  dla__progress(&c, "loading kernels", (int64_t)(c.nk + c.nm), (int64_t)(c.nk + c.nm));
#ifdef __GLIBC__
  malloc_trim(0); /* what the loading thread freed stays in its arena otherwise */
#endif
  if ((rc = dldb_scan_gpus(w, load_gpu_id, &c, err, errlen))) goto out;
  add_kernel_devices(&c);

  /* iterations, per-op figures, the time sweep, the GPU timeline, the rules */
  dla__progress(&c, "analysing the timeline", 0, 1);
  int64_t pstart, pend;
  profile_span(&c, &pstart, &pend);
  if ((rc = split_iterations(&c, pstart, pend))) goto out;
  c.iter_start = c.o->iter_start < 0 ? 0 : c.o->iter_start;
  c.iter_stop = c.o->iter_stop < 0 || c.o->iter_stop >= c.niter ? c.niter - 1 : c.o->iter_stop;
  int64_t cut_len = 0, step_median = 0;
  int cut_last = c.o->iter_stop < 0 && cut_off_last_step(&c, &cut_len, &step_median) &&
                 c.iter_start <= c.niter - 2;
  if (cut_last) c.iter_stop = c.niter - 2; /* left out unless asked for */
  if (c.iter_start > c.iter_stop) {
    char stop[32] = "the last";
    if (c.o->iter_stop >= 0) snprintf(stop, sizeof stop, "%lld", (long long)c.o->iter_stop);
    rc = dl_err(err, errlen, DL_EINVAL,
                "dla_aggregate: no iterations %lld to %s: the profile has %lld (0 to %lld)",
                (long long)(c.o->iter_start < 0 ? 0 : c.o->iter_start), stop,
                (long long)c.niter, (long long)c.niter - 1);
    goto out;
  }
  c.wall_start = c.bound[c.iter_start];
  c.wall_end = c.bound[c.iter_stop + 1];

  if ((rc = accumulate(&c, &s))) goto out;
  if ((rc = assign_node_ids(&c))) goto out;
  if ((rc = dla__sweep(&c))) goto out;
  if ((rc = dla__comm_compute(&c))) goto out;

  dla_facts f;
  memset(&f, 0, sizeof f);
  f.key_op = c.o->key_op ? c.o->key_op : dla_default_key_op(c.o->mode);
  if (!f.key_op) f.key_op = "";
  f.key_op_found = c.key_op_found;
  f.total_iterations = c.niter;
  f.iter_start = c.iter_start;
  f.iter_stop = c.iter_stop;
  f.cut_last_step = cut_last;
  f.cut_step_ns = cut_len;
  f.step_median_ns = step_median;
  f.cut_step_name = cut_last && c.iter_name && c.iter_name[c.niter - 1] > 0
                        ? dldb_writer_string(c.w, c.iter_name[c.niter - 1])
                        : "";
  f.n_iter_durations = c.iter_stop - c.iter_start + 1;
  durations = malloc((size_t)f.n_iter_durations * sizeof *durations);
  findings = calloc(MAX_FINDINGS, sizeof *findings);
  if (!durations || !findings) {
    rc = DL_ENOMEM;
    goto out;
  }
  for (int64_t i = 0; i < f.n_iter_durations; i++)
    durations[i] = c.bound[c.iter_start + i + 1] - c.bound[c.iter_start + i];
  f.iter_durations = durations;
  int64_t wall = c.wall_end - c.wall_start;
  for (int k = 0; k < DLA_NCAT; k++)
    f.pct[k] = wall > 0 ? 100.0 * (double)c.cat_total[k] / (double)wall : 0.0;
  if (wall <= 0) f.pct[DLA_CAT_OTHER] = 100.0;
  f.n_gpus = c.ngpus;
  f.amd_gpus = c.ngpus_listed > 0 && c.ngpus_amd == c.ngpus_listed;
  double util = 0;
  for (int g = 0; g < c.ngpus; g++) {
    f.gpu_ids[g] = c.gpu_ids[g];
    f.gpu_util[g] = c.gpu_util[g];
    f.gpu_kernels[g] = c.gpu_kernels[g];
    util += c.gpu_util[g];
  }
  f.gpu_utilization = c.ngpus ? util / c.ngpus : 0.0;
  for (size_t i = 0; i < c.nops; i++) {
    if (!c.ops[i].bad) continue;
    f.bad_data_type_ops++;
    f.bad_data_type_gpu_time += c.ops[i].gpu;
  }
  f.kernel_gpu_time = s.kernel_gpu;
  if ((rc = dla__rule_facts(&c, &f))) goto out;
  dla__comm_facts(&c, &f);
  size_t nfd = dla_rules_run(&f, findings, MAX_FINDINGS);
  dla__progress(&c, "analysing the timeline", 1, 1);
  /* write_all keeps the reading cache: its rows are appended in key order, and
   * a 64 MiB cache wrote them no faster (docs/performance.md) */
  rc = write_all(&c, &s, &f, findings, nfd, aggr_id);
out:
  dldb_writer_cache_for(w, 0);
  if (rc == DL_ENOMEM) dl_err(err, errlen, rc, "dla_aggregate: out of memory");
  free(findings);
  free(durations);
  stats_free(&s);
  dla_smap_free(&c.op_by_path);
  for (size_t i = 0; i < c.nops; i++) {
    free(c.ops[i].key);
    free(c.ops[i].stack);
    free(c.ops[i].path);
    free(c.ops[i].type);
    free(c.ops[i].node_id);
    free(c.ops[i].in_shapes);
    free(c.ops[i].params);
    free(c.ops[i].out_shapes);
  }
  free(c.ops);
  free(c.r);
  free(c.thr);
  free(c.a);
  free(c.along);
  free(c.klong);
  free(c.own);
  free(c.k);
  free(c.kid);
  free(c.kcfg);
  free(c.m);
  free(c.bound);
  free(c.iter_name);
  free(c.iter_cat);
  dla__comm_free(&c);
  return rc;
}
