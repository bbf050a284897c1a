/*
 * dldb_compare_stats.c - iteration-time statistics and Welch's t interval
 * (dldb_compare_stats.h). Student's t distribution function comes from the
 * regularized incomplete beta function (continued fraction, modified
 * Lentz), and its quantile from bisection on it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dldb_compare_stats.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int dldb_cstat_describe(const int64_t *ns, int64_t n, dldb_cstat *out) {
  memset(out, 0, sizeof *out);
  out->n = n;
  if (n <= 0) return DL_OK;
  int64_t *s = malloc((size_t)n * sizeof *s);
  if (!s) return DL_ENOMEM;
  memcpy(s, ns, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_i64);
  double sum = 0;
  for (int64_t i = 0; i < n; i++) sum += (double)s[i];
  out->mean_ns = sum / (double)n;
  out->median_ns = n % 2 ? (double)s[n / 2] : ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2;
  double ss = 0;
  for (int64_t i = 0; i < n; i++) ss += ((double)s[i] - out->mean_ns) * ((double)s[i] - out->mean_ns);
  out->sd_ns = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
  free(s);
  return DL_OK;
}

/* The continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; m++) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (fabs(del - 1) < 1e-15) break;
  }
  return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x);
  if (x < (a + 1) / (a + b + 2)) return exp(lbt) * beta_cf(a, b, x) / a;
  return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

/* P(T <= t) for t >= 0, T Student's t with df degrees of freedom. */
static double t_cdf(double t, double df) {
  return 1 - 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
}

double dldb_cstat_t_quantile(double p, double df) {
  double lo = 0, hi = 1;
  while (t_cdf(hi, df) < p && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    double mid = (lo + hi) / 2;
    if (t_cdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

int dldb_cstat_welch(const dldb_cstat *base, const dldb_cstat *run, double *d, double *low,
                     double *high, double *df) {
  *d = run->mean_ns - base->mean_ns;
  *low = *high = NAN;
  *df = NAN;
  if (base->n < 2 || run->n < 2) return 0;
  double vb = base->sd_ns * base->sd_ns / (double)base->n;
  double vr = run->sd_ns * run->sd_ns / (double)run->n;
  double se = sqrt(vb + vr);
  if (se == 0) {
    *df = (double)(base->n + run->n - 2);
    *low = *high = *d;
    return 1;
  }
  *df = (vb + vr) * (vb + vr) /
        (vb * vb / (double)(base->n - 1) + vr * vr / (double)(run->n - 1));
  double t = dldb_cstat_t_quantile(0.975, *df);
  *low = *d - t * se;
  *high = *d + t * se;
  return 1;
}
