/* verdict.c - dlprof --compare_to's verdict on stdout (verdict.h). */
#include <math.h>
#include <string.h>

#include "verdict.h"

#define NAME_SHOWN 90 /* characters of a kernel or op name shown */

static void ms(char *buf, size_t len, double ns) {
  if (isfinite(ns)) snprintf(buf, len, "%.3f ms", ns / 1e6);
  else snprintf(buf, len, "n/a");
}

static void changes(FILE *out, const char *what, const dlp_compare_change *c, int n,
                    const int64_t *by_status) {
  fprintf(out, "  %s: %lld changed, %lld added, %lld removed, %lld the same\n", what,
          (long long)by_status[2], (long long)by_status[0], (long long)by_status[1],
          (long long)by_status[3]);
  for (int i = 0; i < n; i++) {
    double d = (double)(c[i].gpu_time_ns - c[i].base_gpu_time_ns) / 1e6;
    int long_name = strlen(c[i].name) > NAME_SHOWN;
    fprintf(out, "    %+.3f ms GPU time, calls %lld -> %lld, %s: %.*s%s\n", d,
            (long long)c[i].base_calls, (long long)c[i].calls, c[i].status, NAME_SHOWN,
            c[i].name, long_name ? "..." : "");
  }
}

/* Each line of text, indented, after a title. */
static void lines(FILE *out, const char *title, const char *text) {
  if (!*text) return;
  fprintf(out, "  %s:\n", title);
  while (*text) {
    size_t n = strcspn(text, "\n");
    fprintf(out, "    %.*s\n", (int)n, text);
    text += n + (text[n] == '\n');
  }
}

void dlprof_verdict(FILE *out, const dlp_compare_result *r, double threshold_pct) {
  char b[32], n[32];
  ms(b, sizeof b, r->base_mean_ns);
  ms(n, sizeof n, r->mean_ns);
  fprintf(out, "dlprof: compare: mean iteration time %s -> %s (%lld -> %lld iterations)", b, n,
          (long long)r->base_iterations, (long long)r->iterations);
  if (r->has_ci)
    fprintf(out, ": %+.2f %%, 95%% CI %+.2f %% to %+.2f %%\n", r->diff_pct, r->ci_low_pct,
            r->ci_high_pct);
  else if (isfinite(r->diff_pct))
    fprintf(out, ": %+.2f %% (no confidence interval: fewer than 2 iterations)\n", r->diff_pct);
  else
    fprintf(out, "\n");
  changes(out, "kernels", r->kernels, r->n_kernels, r->kernels_by_status);
  changes(out, "ops", r->ops, r->n_ops, r->ops_by_status);
  lines(out, "differs", r->notes);
  lines(out, "findings that appeared", r->findings_appeared);
  lines(out, "findings that went away", r->findings_gone);
  for (int f = 0; f < 2; f++)
    if (r->outputs[f][0]) fprintf(out, "  wrote %s\n", r->outputs[f]);
  if (threshold_pct < 0) return;
  if (dlp_compare_regressed(r, threshold_pct))
    fprintf(out, "dlprof: compare: FAIL: the new run is slower than the base by more than "
                 "%g %% with 95%% confidence (at least %+.2f %%)\n", threshold_pct, r->ci_low_pct);
  else
    fprintf(out, "dlprof: compare: PASS: no slowdown of more than %g %% with 95%% confidence\n",
            threshold_pct);
}
