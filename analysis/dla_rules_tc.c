/* dla_rules_tc.c - the Tensor Core rule (see dla_rules_tc.h). */
#include "dla_rules_tc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double dla_tc_saved_ns(const dla_tc_fact *t) {
  if (t->peak_now <= 0 || t->peak_tc <= 0 || t->gpu_ns_per_iter <= 0) return 0;
  double tc = t->gpu_ns_per_iter * t->peak_now / t->peak_tc;
  double mem = t->mem_bw > 0 ? t->calls_per_iter * t->bytes / t->mem_bw * 1e9 : 0;
  double fixed = fmax(tc, mem);
  return fixed < t->gpu_ns_per_iter ? t->gpu_ns_per_iter - fixed : 0;
}

static int64_t pad8(int64_t v) { return (v + 7) / 8 * 8; }

/* Why, and the fix, into o. */
static void describe(const dla_tc_fact *t, double saved, dla_finding *o) {
  double achieved = t->gpu_ns_per_iter > 0
                        ? t->calls_per_iter * t->flops / t->gpu_ns_per_iter * 1e9 / 1e12
                        : 0;
  snprintf(o->problem, sizeof o->problem,
           "%s %s (%s, M x N x K = %lld x %lld x %lld) ran no Tensor Core kernel: %.1f us per "
           "iteration at %.2f TFLOP/s, CUDA-core peak %.1f TFLOP/s on %s; on Tensor Cores "
           "(%s, peak %.1f TFLOP/s) it would save an estimated %.1f us per iteration",
           t->op_name, t->dims, t->dtype, (long long)t->m, (long long)t->n, (long long)t->k,
           t->gpu_ns_per_iter / 1e3, achieved, t->peak_now / 1e12, t->gpu_name, t->fix_type,
           t->peak_tc / 1e12, saved / 1e3);
  if (t->reason == DLA_TC_FP32)
    snprintf(o->recommendation, sizeof o->recommendation,
             "%s", strcmp(t->fix_type, "TF32") == 0
                       ? "Allow TF32 for float32 matrix math: "
                         "torch.backends.cuda.matmul.allow_tf32 = True and "
                         "torch.backends.cudnn.allow_tf32 = True (or "
                         "torch.set_float32_matmul_precision('high')), or use AMP (bfloat16)"
                       : "Use AMP (torch.autocast with float16) so that this op runs on "
                         "Tensor Cores");
  else
    snprintf(o->recommendation, sizeof o->recommendation,
             "Pad the dimensions to multiples of 8 so that Tensor Core kernels apply: "
             "M x N x K = %lld x %lld x %lld (batch, hidden and vocabulary sizes)",
             (long long)pad8(t->m), (long long)pad8(t->n), (long long)pad8(t->k));
}

size_t dla__rule_tensor_core_shapes(const dla_facts *f, dla_finding *o, size_t cap) {
  double iter = 0;
  for (int64_t i = 0; i < f->n_iter_durations; i++) iter += (double)f->iter_durations[i];
  if (f->n_iter_durations > 0) iter /= (double)f->n_iter_durations;
  double saved[DLA_MAX_TC_FACTS];
  int order[DLA_MAX_TC_FACTS], n = 0;
  for (int i = 0; i < f->n_tc && i < DLA_MAX_TC_FACTS; i++) {
    saved[i] = dla_tc_saved_ns(&f->tc[i]);
    if (saved[i] <= 0 || (iter > 0 && 100.0 * saved[i] / iter < DLA_TC_MIN_SAVED_PCT)) continue;
    int k = n++;
    while (k > 0 && saved[order[k - 1]] < saved[i]) order[k] = order[k - 1], k--;
    order[k] = i;
  }
  size_t m = 0;
  for (int i = 0; i < n && m < cap && m < DLA_TC_MAX_FINDINGS; i++)
    describe(&f->tc[order[i]], saved[order[i]], &o[m++]);
  return m;
}
