/* dla_rules_perf.c - the perf rules over the op shapes' facts (see
 * dla_rules_perf.h). */
#include "dla_rules_perf.h"

#include <math.h>
#include <stdio.h>

double dla_attn_saved_ns(const dla_attn_fact *a) {
  if (a->per_iter <= 0 || a->chain_ns <= 0) return 0;
  double mem = a->mem_bw > 0 ? a->sdpa_bytes / a->mem_bw * 1e9 : 0;
  double fused = fmax(a->gemm_ns, mem);
  return fused < a->chain_ns ? a->per_iter * (a->chain_ns - fused) : 0;
}

double dla_fuse_saved_ns(const dla_fuse_fact *u) {
  if (u->per_iter <= 0 || u->mem_bw <= 0 || u->n_ops < 2) return 0;
  double ns = 2.0 * (u->n_ops - 1) * u->elems * u->bpe / u->mem_bw * 1e9;
  return u->per_iter * fmin(ns, u->chain_ns);
}

double dla_small_gemm_saved_ns(const dla_small_gemm_fact *g) {
  if (g->peak_flops <= 0 || g->mem_bw <= 0 || g->gpu_ns_per_iter <= 0) return 0;
  double roof = fmax(g->flops / g->peak_flops, g->bytes / g->mem_bw) * 1e9;
  double batched = g->calls_per_iter * roof / (DLA_SMALL_GEMM_BATCHED_PCT / 100.0);
  return batched < g->gpu_ns_per_iter ? g->gpu_ns_per_iter - batched : 0;
}

/* The mean aggregated iteration (ns), 0 when unknown. */
static double mean_iter(const dla_facts *f) {
  double t = 0;
  for (int64_t i = 0; i < f->n_iter_durations; i++) t += (double)f->iter_durations[i];
  return f->n_iter_durations > 0 ? t / (double)f->n_iter_durations : 0;
}

/* order[0..return) = the facts' indices with savings worth a finding,
 * largest first. */
static int rank_saved(const double *saved, int n, const dla_facts *f, int *order) {
  double iter = mean_iter(f);
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (saved[i] <= 0 || (iter > 0 && 100.0 * saved[i] / iter < DLA_TC_MIN_SAVED_PCT)) continue;
    int k = m++;
    while (k > 0 && saved[order[k - 1]] < saved[i]) order[k] = order[k - 1], k--;
    order[k] = i;
  }
  return m < DLA_PERF_MAX_FINDINGS ? m : DLA_PERF_MAX_FINDINGS;
}

/* One finding per fact worth one, largest saving first: saved_of(fact) and
 * describe(fact, saved, finding) over n facts of size bytes each. */
typedef double (*saved_fn)(const void *fact);
typedef void (*describe_fn)(const void *fact, double saved, dla_finding *o);

static size_t emit_ranked(const dla_facts *f, const void *facts, size_t size, int n,
                          saved_fn saved_of, describe_fn describe, dla_finding *o, size_t cap) {
  double saved[DLA_MAX_PERF_FACTS];
  int order[DLA_MAX_PERF_FACTS];
  const char *base = facts;
  if (n > DLA_MAX_PERF_FACTS) n = DLA_MAX_PERF_FACTS;
  for (int i = 0; i < n; i++) saved[i] = saved_of(base + (size_t)i * size);
  int m = rank_saved(saved, n, f, order);
  size_t k = 0;
  for (int i = 0; i < m && k < cap; i++)
    describe(base + (size_t)order[i] * size, saved[order[i]], &o[k++]);
  return k;
}

static void attn_describe(const void *fact, double saved, dla_finding *o) {
  const dla_attn_fact *a = fact;
  snprintf(o->problem, sizeof o->problem,
           "Attention runs unfused: %s, softmax and %s over scores %s (%s, "
           "batch x heads %lld, "
           "%lld x %lld keys, head dim %lld), %d ops %.1f times per iteration: "
           "%.1f us per "
           "iteration, %.1f us of it in the two products. A fused kernel moves "
           "%.2f MB per call "
           "(%.1f us at %.2f TB/s on %s) and would save an estimated %.1f us "
           "per iteration",
           a->qk_name, a->pv_name, a->dims, a->dtype, (long long)a->batch, (long long)a->nq,
           (long long)a->nkv, (long long)a->d, a->n_ops, a->per_iter,
           a->per_iter * a->chain_ns / 1e3, a->per_iter * a->gemm_ns / 1e3, a->sdpa_bytes / 1e6,
           a->mem_bw > 0 ? a->sdpa_bytes / a->mem_bw * 1e6 : 0, a->mem_bw / 1e12, a->gpu_name,
           saved / 1e3);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Use torch.nn.functional.scaled_dot_product_attention (flash or "
           "memory-efficient "
           "attention) instead of matmul, softmax and matmul: the %lld x %lld "
           "scores then stay "
           "on chip",
           (long long)a->nq, (long long)a->nkv);
  snprintf(o->js_function, sizeof o->js_function, "ShowOpShapes");
}

static double attn_saved(const void *fact) { return dla_attn_saved_ns(fact); }

size_t dla__rule_unfused_attention(const dla_facts *f, dla_finding *o, size_t cap) {
  return emit_ranked(f, f->attn, sizeof f->attn[0], f->n_attn, attn_saved, attn_describe, o, cap);
}

static void fuse_describe(const void *fact, double saved, dla_finding *o) {
  const dla_fuse_fact *u = fact;
  double bytes = 2.0 * (u->n_ops - 1) * u->elems * u->bpe;
  snprintf(o->problem, sizeof o->problem,
           "%d elementwise ops run one after another on %.0f elements (%s, "
           "%s): %s, %.1f times "
           "per iteration, %.1f us per iteration. Each writes its result to "
           "memory for the "
           "next to read back: fused, %.2f MB less moved per chain, an "
           "estimated %.1f us per "
           "iteration saved at the peak bandwidth (%.2f TB/s on %s)",
           u->n_ops, u->elems, u->dims, u->dtype, u->ops, u->per_iter,
           u->per_iter * u->chain_ns / 1e3, bytes / 1e6, saved / 1e3, u->mem_bw / 1e12,
           u->gpu_name);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Fuse the chain into one kernel: torch.compile the module that runs "
           "it (or a fused "
           "op of the framework, e.g. a fused bias and activation)");
  snprintf(o->js_function, sizeof o->js_function, "ShowOpShapes");
}

static double fuse_saved(const void *fact) { return dla_fuse_saved_ns(fact); }

size_t dla__rule_elementwise_fusion(const dla_facts *f, dla_finding *o, size_t cap) {
  return emit_ranked(f, f->fuse, sizeof f->fuse[0], f->n_fuse, fuse_saved, fuse_describe, o, cap);
}

static void small_describe(const void *fact, double saved, dla_finding *o) {
  const dla_small_gemm_fact *g = fact;
  snprintf(o->problem, sizeof o->problem,
           "%s %s (%s, M x N x K = %lld x %lld x %lld, batch %lld) is too small to "
           "fill the "
           "GPU: %lld output tiles of %d x %d for %d SMs, %.1f%% of its roofline "
           "(rule: under "
           "%.0f%%), %.1f calls and %.1f us per iteration. Batched into one GEMM at "
           "%.0f%% of "
           "the roofline on %s, an estimated %.1f us per iteration would be saved",
           g->op_name, g->dims, g->dtype, (long long)g->m, (long long)g->n, (long long)g->k,
           (long long)g->batch, (long long)g->tiles, DLA_GEMM_TILE, DLA_GEMM_TILE, g->sms,
           g->pct_of_roofline, DLA_SMALL_GEMM_PCT, g->calls_per_iter, g->gpu_ns_per_iter / 1e3,
           DLA_SMALL_GEMM_BATCHED_PCT, g->gpu_name, saved / 1e3);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Batch these calls: stack the inputs and run one torch.bmm (or a "
           "grouped GEMM), or "
           "give each call more work (a larger batch, wider layers)");
  snprintf(o->js_function, sizeof o->js_function, "ShowOpShapes");
}

static double small_saved(const void *fact) { return dla_small_gemm_saved_ns(fact); }

size_t dla__rule_small_gemms(const dla_facts *f, dla_finding *o, size_t cap) {
  return emit_ranked(f, f->small_gemm, sizeof f->small_gemm[0], f->n_small_gemm, small_saved,
                     small_describe, o, cap);
}
