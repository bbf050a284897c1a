/*
 * dla_accum.c - the op, kernel and iteration figures of the aggregated
 * iterations: per op instance (CPU time, overhead, GPU time and idle, from
 * its grouped GPU work), then one pass over the kernels (per op, per
 * iteration, per (iteration, op) and (op, kernel name)) and one over the
 * memory ops.
 */
#include <stdlib.h>
#include <string.h>

#include "dla_accum.h"

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

/* API calls outside every instance are instances of their own op: all of
 * their CPU time is API time (overhead 0). */
static void own_call_figures(dla_ctx *c) {
  for (size_t j = 0; j < c->nown; j++) {
    const dla_api *a = &c->a[c->own[j].call];
    if (!dla__in_window(c, a->start)) continue;
    dla_op *op = &c->ops[c->own[j].op];
    op_add_cpu(op, dla__api_dur(c, a));
    if (op->gpu_min == INT64_MAX) op->gpu_min = op->gpu_max = 0;
  }
}

/* An op that runs a tensor-core kernel is eligible for tensor cores,
 * whatever its type says (eligibility by type is a prediction, a TC kernel
 * is proof). Else TC utilization, TC kernel time over the kernel time of
 * eligible ops, left out the TC time of ops of other types: a CUTLASS run
 * with every compute kernel on tensor cores read 0.0 %. A profile without
 * GPU activity (no kernel, memcpy or memset) ran on the CPU: tensor cores
 * do not apply, and no op is eligible. */
static void tc_eligible_ops(dla_ctx *c) {
  if (c->nk == 0 && c->nm == 0)
    for (size_t i = 0; i < c->nops; i++) c->ops[i].eligible = 0;
  for (size_t i = 0; i < c->nk; i++)
    if (dla__kern_tc(c, &c->k[i]) && dla__kern_in_aggr(c, &c->k[i]))
      c->ops[dla__kern_op(c, &c->k[i])].eligible = 1;
}

/* The (iteration, op) accumulator of kernel figures; NULL: out of memory. */
static inline dla_iter_op_acc *iter_op_of(dla_accum *s, int32_t it, int32_t op_idx) {
  uint64_t key = ((uint64_t)it << 32) | (uint32_t)op_idx;
  int64_t v = dl_map_get(&s->io_map, key);
  if (v < 0) {
    if (DLA_GROW(s->io, s->nio, s->iocap)) return NULL;
    v = (int64_t)s->nio++;
    memset(&s->io[v], 0, sizeof s->io[v]);
    s->io[v].iter = it;
    s->io[v].op = op_idx;
    if (dl_map_put(&s->io_map, key, v)) return NULL;
  }
  return &s->io[v];
}

/* The (op, kernel name) accumulator; NULL: out of memory. */
static inline dla_op_kernel_acc *op_kernel_of(dla_accum *s, int32_t op_idx, int32_t short_id) {
  uint64_t key = ((uint64_t)(uint32_t)op_idx << 32) | (uint32_t)short_id;
  int64_t v = dl_map_get(&s->ok_map, key);
  if (v < 0) {
    if (DLA_GROW(s->ok, s->nok, s->okcap)) return NULL;
    v = (int64_t)s->nok++;
    memset(&s->ok[v], 0, sizeof s->ok[v]);
    s->ok[v].op = op_idx;
    s->ok[v].name_id = short_id;
    s->ok[v].min = INT64_MAX;
    s->ok[v].api_min = INT64_MAX;
    if (dl_map_put(&s->ok_map, key, v)) return NULL;
  }
  return &s->ok[v];
}

/* Kernel k of aggregated iteration it into its op, its iteration, and the
 * (iteration, op), (op, kernel name) and kernel name sums. */
static inline int add_kernel(dla_ctx *c, dla_accum *s, const dla_kern *k, int32_t it) {
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
  dla_iter_op_acc *io = iter_op_of(s, it, op_idx);
  if (!io) return DL_ENOMEM;
  io->total++;
  io->gpu += dur;
  if (dla__kern_tc(c, k)) {
    io->tc++;
    io->tc_gpu += dur;
  }
  int32_t short_id = dla__kern_short(c, k);
  dla_op_kernel_acc *ok = op_kernel_of(s, op_idx, short_id);
  if (!ok) return DL_ENOMEM;
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
  int64_t flags = dl_map_get(&s->names, (uint64_t)short_id);
  int64_t nf = (flags < 0 ? 0 : flags) | 1 | (dla__kern_tc(c, k) ? 2 : 4);
  if (nf != flags && dl_map_put(&s->names, (uint64_t)short_id, nf)) return DL_ENOMEM;
  if (op->eligible) {
    s->elig_gpu += dur;
    if (dla__kern_tc(c, k)) s->elig_tc_gpu += dur;
  }
  return DL_OK;
}

/* The kernels of the aggregated iterations, and the distinct kernel names. */
static int kernel_figures(dla_ctx *c, dla_accum *s) {
  int32_t hint = 0;
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    int32_t it = dla__kern_iter(c, k, &hint);
    if (!dla__in_aggr(c, it)) continue;
    int rc = add_kernel(c, s, k, it);
    if (rc) return rc;
  }
  for (size_t i = 0; i < s->names.cap; i++) {
    int64_t f = s->names.vals[i];
    if (f < 0) continue;
    s->name_count++;
    s->tc_name_count += (f & 2) != 0;
    s->other_name_count += (f & 4) != 0;
  }
  return DL_OK;
}

/* Memory ops: each one's iteration, and the window's time and distinct
 * names (up to 64). */
static void mem_figures(dla_ctx *c, dla_accum *s) {
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
}

/* Each op's bad-data-type flag, and its minima and calls made definite. */
static void finish_ops(dla_ctx *c) {
  for (size_t i = 0; i < c->nops; i++) {
    dla_op *op = &c->ops[i];
    op->bad = op->eligible && !op->using_tc && op->kernel_calls > 0 &&
              strcmp(op->data_type, "float32") == 0;
    if (op->cpu_min == INT64_MAX) op->cpu_min = 0;
    if (op->gpu_min == INT64_MAX) op->gpu_min = 0;
    if (op->num_calls == 0 && op->kernel_calls > 0) op->num_calls = 1;
  }
}

int dla__accum_run(dla_ctx *c, dla_accum *s) {
  size_t ni = (size_t)c->niter;
  s->it_kcount = calloc(ni, sizeof(int64_t));
  s->it_tccount = calloc(ni, sizeof(int64_t));
  s->it_gpu = calloc(ni, sizeof(int64_t));
  s->it_tcgpu = calloc(ni, sizeof(int64_t));
  if (!s->it_kcount || !s->it_tccount || !s->it_gpu || !s->it_tcgpu) return DL_ENOMEM;
  int rc = instance_figures(c);
  if (rc) return rc;
  own_call_figures(c);
  tc_eligible_ops(c);
  if ((rc = kernel_figures(c, s))) return rc;
  mem_figures(c, s);
  finish_ops(c);
  return DL_OK;
}

void dla__accum_free(dla_accum *s) {
  free(s->io);
  free(s->ok);
  dl_map_free(&s->io_map);
  dl_map_free(&s->ok_map);
  dl_map_free(&s->names);
  free(s->it_kcount);
  free(s->it_tccount);
  free(s->it_gpu);
  free(s->it_tcgpu);
  memset(s, 0, sizeof *s);
}
