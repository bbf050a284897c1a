/*
 * dldb_compare_stats.h - the statistics of a comparison of two runs
 * (db/dldb_compare.h): mean, median and standard deviation of a run's
 * iteration times, and Welch's t interval for the difference of two means.
 *
 * Pure functions on the caller's arrays; nothing is allocated but a sorted
 * copy inside dldb_cstat_describe, freed before it returns.
 */
#ifndef DLDB_COMPARE_STATS_H
#define DLDB_COMPARE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* One run's iteration times. */
typedef struct dldb_cstat {
  int64_t n;        /* iterations */
  double mean_ns;   /* 0 when n is 0 */
  double median_ns; /* the middle value, or the mean of the two middle ones */
  double sd_ns;     /* sample standard deviation (n - 1); 0 when n < 2 */
} dldb_cstat;

/* Describes the n durations at ns (borrowed, not reordered). DL_OK, or
 * DL_ENOMEM. */
int dldb_cstat_describe(const int64_t *ns, int64_t n, dldb_cstat *out);

/* Welch's t interval for run.mean - base.mean at 95 %: the difference d,
 * the standard error se = sqrt(sb^2/nb + sr^2/nr), the Welch-Satterthwaite
 * degrees of freedom df, and d -/+ t(0.975, df) * se in *low, *high. When
 * both standard deviations are 0, the interval is [d, d] and df is
 * nb + nr - 2. Returns 1 when the interval exists (each side has at least
 * 2 iterations), else 0 with *low and *high set to NAN. */
int dldb_cstat_welch(const dldb_cstat *base, const dldb_cstat *run, double *d, double *low,
                     double *high, double *df);

/* The 1 - alpha/2 quantile of Student's t distribution with df degrees of
 * freedom (df > 0, not necessarily whole): t such that P(T <= t) = p, for
 * 0.5 <= p < 1. */
double dldb_cstat_t_quantile(double p, double df);

#endif
