/*
 * dla_perffacts.c - the perf rules' facts from the op shapes (see
 * dla_perffacts.h): chains over the instances, small GEMMs over the rows.
 */
#include "dla_perffacts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_map.h"
#include "dla_internal.h"
#include "dla_peaks.h"
#include "dla_rules_perf.h"

/* One op instance of the aggregated iterations: its row (-1: no shapes)
 * and thread. */
typedef struct inst {
  int32_t row;
  uint32_t th;
} inst;

/* Distinct attention chains (products and softmax rows) told apart. */
#define ATTN_CANDS 64

typedef struct attn_cand {
  int32_t g1, s, g2; /* rows: scores product, softmax, values product */
  int n_ops;
  int64_t count;
  double chain_ns; /* summed over the occurrences */
} attn_cand;

typedef struct fuse_cand {
  int32_t rows[DLA_FUSE_MAX_OPS];
  int n;
  int64_t count;
} fuse_cand;

typedef struct walk {
  const dla_shapes *s;
  const inst *v;
  size_t n;
  uint8_t *used; /* instances inside an attention chain */
  attn_cand attn[ATTN_CANDS];
  int n_attn;
  fuse_cand *fuse;
  size_t n_fuse, cap_fuse;
  dl_map fuse_by_key;
} walk;

static const dla_shape_row *row_at(const walk *w, size_t i) {
  return w->v[i].row >= 0 ? &w->s->v[w->v[i].row] : NULL;
}

/* Mean GPU time of one call of a row (0: none). */
static double call_ns(const dla_shape_row *r) {
  return r && r->calls > 0 ? (double)r->gpu_time / (double)r->calls : 0;
}

static int is_family(const dla_shape_row *r, dla_pm_family f) { return r && r->pm.family == f; }

/* The instances in the window, in the ranges' (thread, start) order. */
static inst *list_insts(const dla_ctx *c, const int32_t *row_of, size_t *n) {
  size_t m = 0;
  for (size_t i = 0; i < c->nr; i++) {
    const dla_range *r = &c->r[i];
    m += r->role == DLA_ROLE_INST && r->op >= 0 && dla__in_window(c, r->start);
  }
  inst *v = malloc((m ? m : 1) * sizeof *v);
  if (!v) return NULL;
  *n = 0;
  for (size_t i = 0; i < c->nr; i++) {
    const dla_range *r = &c->r[i];
    if (r->role != DLA_ROLE_INST || r->op < 0 || !dla__in_window(c, r->start)) continue;
    v[(*n)++] = (inst){.row = row_of[i], .th = dla__range_th(r)};
  }
  return v;
}

/* An op allowed between a product and softmax: elementwise on the scores
 * (scale, mask, dropout), or one without a model or shapes (a view). */
static int attn_between(const dla_shape_row *r, double elems) {
  if (!r || r->pm.family == DLA_PM_NONE) return 1;
  return r->pm.family == DLA_PM_ELEMWISE && r->pm.out_elems == elems;
}

/* The attention chain around softmax at p: 0 and *a, *b its first and last
 * instances, or -1. */
static int attn_at(const walk *w, size_t p, size_t *a, size_t *b) {
  const dla_shape_row *s = row_at(w, p);
  if (!is_family(s, DLA_PM_REDUCE) || s->pm.out_elems <= 0 || !strstr(s->name, "softmax") ||
      strstr(s->name, "backward"))
    return -1;
  double e = s->pm.out_elems;
  const dla_shape_row *g1 = NULL, *g2 = NULL;
  for (size_t k = 1; k <= DLA_ATTN_MAX_BETWEEN + 1 && k <= p && !g1; k++) {
    const dla_shape_row *r = row_at(w, p - k);
    if (w->v[p - k].th != w->v[p].th || w->used[p - k]) return -1;
    if (is_family(r, DLA_PM_GEMM) && r->pm.out_elems == e)
      g1 = r, *a = p - k;
    else if (!attn_between(r, e))
      return -1;
  }
  for (size_t k = 1; g1 && k <= DLA_ATTN_MAX_BETWEEN + 1 && p + k < w->n && !g2; k++) {
    const dla_shape_row *r = row_at(w, p + k);
    if (w->v[p + k].th != w->v[p].th) return -1;
    if (is_family(r, DLA_PM_GEMM) && r->pm.batch == g1->pm.batch && r->pm.m == g1->pm.m &&
        r->pm.k == g1->pm.n)
      g2 = r, *b = p + k;
    else if (!attn_between(r, e))
      return -1;
  }
  return g1 && g2 ? 0 : -1;
}

static void note_attn(walk *w, size_t a, size_t p, size_t b) {
  double ns = 0;
  for (size_t i = a; i <= b; i++) ns += call_ns(row_at(w, i)), w->used[i] = 1;
  int k = 0;
  while (k < w->n_attn && (w->attn[k].g1 != w->v[a].row || w->attn[k].s != w->v[p].row ||
                           w->attn[k].g2 != w->v[b].row))
    k++;
  if (k == w->n_attn) {
    if (k == ATTN_CANDS) return;
    w->attn[w->n_attn++] = (attn_cand){
        .g1 = w->v[a].row, .s = w->v[p].row, .g2 = w->v[b].row, .n_ops = (int)(b - a + 1)};
  }
  w->attn[k].count++;
  w->attn[k].chain_ns += ns;
}

/* An elementwise op that can extend a chain of rows like first. */
static int fuse_link(const dla_shape_row *r, const dla_shape_row *first) {
  return is_family(r, DLA_PM_ELEMWISE) && r->pm.flops > 0 &&
         r->pm.out_elems == first->pm.out_elems && strcmp(r->dtype, first->dtype) == 0;
}

static uint64_t fuse_key(const int32_t *rows, int n) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < n; i++) h = (h ^ (uint32_t)rows[i]) * 1099511628211ull;
  return h;
}

/* Counts the chain of rows[0..n). 0, or -1 when out of memory. */
static int note_fuse(walk *w, const int32_t *rows, int n) {
  uint64_t key = fuse_key(rows, n);
  int64_t k = dl_map_get(&w->fuse_by_key, key);
  if (k >= 0) { /* a hash collision of two chains counts the first only */
    fuse_cand *f = &w->fuse[k];
    if (f->n == n && memcmp(f->rows, rows, (size_t)n * sizeof *rows) == 0) f->count++;
    return 0;
  }
  if (DLA_GROW(w->fuse, w->n_fuse, w->cap_fuse)) return -1;
  fuse_cand *f = &w->fuse[w->n_fuse];
  memcpy(f->rows, rows, (size_t)n * sizeof *rows);
  f->n = n;
  f->count = 1;
  return dl_map_put(&w->fuse_by_key, key, (int64_t)w->n_fuse++);
}

static int walk_fuse(walk *w) {
  int32_t rows[DLA_FUSE_MAX_OPS];
  for (size_t p = 0; p < w->n;) {
    const dla_shape_row *first = row_at(w, p);
    if (w->used[p] || !fuse_link(first, first)) {
      p++;
      continue;
    }
    int n = 0;
    size_t q = p;
    while (q < w->n && n < DLA_FUSE_MAX_OPS && !w->used[q] && w->v[q].th == w->v[p].th &&
           fuse_link(row_at(w, q), first))
      rows[n++] = w->v[q++].row;
    if (n >= 2 && note_fuse(w, rows, n)) return -1;
    p = q;
  }
  return 0;
}

/* Keeps the facts of the largest savings, largest first: the slot of a
 * fact that saves s among the *n kept (facts: an array of
 * DLA_MAX_PERF_FACTS of size bytes each, saved[] beside it), the smaller
 * ones moved down (the smallest dropped when full); -1 when it saves
 * nothing or less than every kept one. */
static int keep_slot(double *saved, void *facts, size_t size, int *n, double s) {
  if (s <= 0) return -1;
  int k = *n;
  if (k == DLA_MAX_PERF_FACTS) {
    if (saved[k - 1] >= s) return -1;
    k--;
  } else {
    (*n)++;
  }
  char *f = facts;
  for (; k > 0 && saved[k - 1] < s; k--) {
    saved[k] = saved[k - 1];
    memcpy(f + (size_t)k * size, f + (size_t)(k - 1) * size, size);
  }
  saved[k] = s;
  return k;
}

static void attn_facts(const walk *w, double niter, dla_shapes *s) {
  double saved[DLA_MAX_PERF_FACTS] = {0};
  s->n_attn = 0;
  for (int i = 0; i < w->n_attn; i++) {
    const attn_cand *c = &w->attn[i];
    const dla_shape_row *g1 = &s->v[c->g1], *sm = &s->v[c->s], *g2 = &s->v[c->g2];
    int bpe = dla_pm_bpe(sm->dtype);
    if (!sm->peak || bpe <= 0) continue;
    dla_attn_fact a = {.qk_name = g1->name,
                       .pv_name = g2->name,
                       .dims = sm->dims,
                       .dtype = sm->dtype,
                       .gpu_name = sm->peak->name,
                       .batch = g1->pm.batch,
                       .nq = g1->pm.m,
                       .nkv = g1->pm.n,
                       .d = g1->pm.k,
                       .dv = g2->pm.n,
                       .n_ops = c->n_ops,
                       .per_iter = (double)c->count / niter,
                       .chain_ns = c->chain_ns / (double)c->count,
                       .gemm_ns = call_ns(g1) + call_ns(g2),
                       .mem_bw = dla_peak_bytes_per_s(sm->peak)};
    a.sdpa_bytes = (double)a.batch *
                   ((double)a.nq * (double)(a.d + a.dv) + (double)a.nkv * (double)(a.d + a.dv)) *
                   bpe;
    int k = keep_slot(saved, s->attn, sizeof *s->attn, &s->n_attn, dla_attn_saved_ns(&a));
    if (k >= 0) s->attn[k] = a;
  }
}

static void fuse_ops_text(const dla_shapes *s, const fuse_cand *c, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < c->n && n < cap; i++) {
    int m = snprintf(out + n, cap - n, "%s%s", i ? " -> " : "", s->v[c->rows[i]].name);
    if (m < 0 || (size_t)m >= cap - n) break;
    n += (size_t)m;
  }
}

static void fuse_facts(const walk *w, double niter, dla_shapes *s) {
  double saved[DLA_MAX_PERF_FACTS] = {0};
  s->n_fuse = 0;
  for (size_t i = 0; i < w->n_fuse; i++) {
    const fuse_cand *c = &w->fuse[i];
    const dla_shape_row *first = &s->v[c->rows[0]];
    int bpe = dla_pm_bpe(first->dtype);
    if (!first->peak || bpe <= 0) continue;
    dla_fuse_fact u = {.dims = first->dims,
                       .dtype = first->dtype,
                       .gpu_name = first->peak->name,
                       .n_ops = c->n,
                       .bpe = bpe,
                       .elems = first->pm.out_elems,
                       .per_iter = (double)c->count / niter,
                       .mem_bw = dla_peak_bytes_per_s(first->peak)};
    for (int k = 0; k < c->n; k++) u.chain_ns += call_ns(&s->v[c->rows[k]]);
    int k = keep_slot(saved, s->fuse, sizeof *s->fuse, &s->n_fuse, dla_fuse_saved_ns(&u));
    if (k < 0) continue;
    s->fuse[k] = u;
    fuse_ops_text(s, c, s->fuse[k].ops, sizeof s->fuse[k].ops);
  }
}

int dla__perffacts_chains(dla_ctx *c, const int32_t *row_of) {
  walk *w = calloc(1, sizeof *w);
  if (!w) return DL_ENOMEM;
  w->s = c->shapes;
  dl_map_init(&w->fuse_by_key);
  int rc = DL_OK;
  if (!(w->v = list_insts(c, row_of, &w->n)) || !(w->used = calloc(w->n ? w->n : 1, 1))) {
    rc = DL_ENOMEM;
    goto out;
  }
  for (size_t p = 0; p < w->n; p++) {
    size_t a, b;
    if (attn_at(w, p, &a, &b) == 0) note_attn(w, a, p, b);
  }
  if (walk_fuse(w)) {
    rc = DL_ENOMEM;
    goto out;
  }
  double niter = c->iter_stop >= c->iter_start ? (double)(c->iter_stop - c->iter_start + 1) : 1;
  attn_facts(w, niter, c->shapes);
  fuse_facts(w, niter, c->shapes);
out:
  free((void *)w->v);
  free(w->used);
  free(w->fuse);
  dl_map_free(&w->fuse_by_key);
  free(w);
  return rc;
}

void dla__perffacts_small_gemms(const dla_ctx *c, double niter, dla_facts *f) {
  double saved[DLA_MAX_PERF_FACTS] = {0};
  f->n_small_gemm = 0;
  for (size_t i = 0; c->shapes && i < c->shapes->n; i++) {
    const dla_shape_row *r = &c->shapes->v[i];
    if (r->pm.family != DLA_PM_GEMM || !r->peak || r->gpu_time <= 0 || r->sms <= 0 ||
        isnan(r->pct_of_roofline) || r->pct_of_roofline >= DLA_SMALL_GEMM_PCT)
      continue;
    int64_t t = DLA_GEMM_TILE;
    int64_t tiles = r->pm.batch * ((r->pm.m + t - 1) / t) * ((r->pm.n + t - 1) / t);
    double per_iter = (double)r->calls / niter;
    if (tiles >= r->sms || per_iter < 2) continue;
    dla_small_gemm_fact g = {.op_name = r->name,
                             .dims = r->dims,
                             .dtype = r->dtype,
                             .gpu_name = r->peak->name,
                             .m = r->pm.m,
                             .n = r->pm.n,
                             .k = r->pm.k,
                             .batch = r->pm.batch,
                             .tiles = tiles,
                             .sms = r->sms,
                             .calls_per_iter = per_iter,
                             .gpu_ns_per_iter = (double)r->gpu_time / niter,
                             .flops = r->pm.flops,
                             .bytes = r->pm.bytes,
                             .peak_flops = r->peak_tflops * 1e12,
                             .mem_bw = r->peak_tb_per_s * 1e12,
                             .pct_of_roofline = r->pct_of_roofline};
    int k = keep_slot(saved, f->small_gemm, sizeof *f->small_gemm, &f->n_small_gemm,
                      dla_small_gemm_saved_ns(&g));
    if (k >= 0) f->small_gemm[k] = g;
  }
}
