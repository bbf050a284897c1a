/*
 * dlr_summary.c - DLProf's summary report (dlprof_summary.csv): five blocks,
 * System Config, Summary Report, Iterations, All Ops, All Kernels, from
 * view_system_config, view_gpu_names, view_performance_summary,
 * view_resource_usage_breakdown, view_iterations_profiled, view_op_nodes
 * and view_kernel_summary (or our view_dl_kernel_summary, which adds the
 * kernels' CPU (API) times that 1.8 keeps only in base tables).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlr_internal.h"

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A one-row view, kept as fields + the values we need (copied out). */
typedef struct one_row {
  dlr_fields f;
  int found;
  int has[24];
  int big[24]; /* a REAL that is no int64 (NaN, inf, past its range): i[] saturates
                * as SQLite's conversion does (NaN: 0) */
  int64_t i[24];
  double d[24];
  char *s[24];
} one_row;

static int one_row_cb(void *ctx, const dldb_row *row) {
  one_row *r = ctx;
  dlr_fields_resolve(&r->f, row);
  r->found = 1;
  for (int k = 0; k < r->f.n && k < 24; k++) {
    if (!dlr_has(&r->f, row, k)) continue;
    /* the type is read before any conversion (sqlite3_column_type rule) */
    int c = r->f.idx[k], t = dldb_row_type(row, c);
    r->has[k] = 1;
    if (t == DLDB_COL_REAL) {
      r->d[k] = dldb_row_real(row, c);
      r->big[k] = !dlr_real_to_int(r->d[k], &r->i[k]);
      if (r->big[k]) r->i[k] = dlr_real_sat(r->d[k]);
    } else {
      r->i[k] = dldb_row_int(row, c);
      r->d[k] = t == DLDB_COL_INTEGER ? (double)r->i[k] : dldb_row_real(row, c);
    }
    if (!(r->s[k] = strdup(dldb_row_text(row, c)))) return 1;
  }
  return 1; /* the first row only */
}

static void one_row_free(one_row *r) {
  for (int k = 0; k < 24; k++) free(r->s[k]);
}

/* Reads the first row of view for aggr_id/domain; a missing view reads as no
 * row (its cells stay empty), other errors fail. */
static int read_one(dldb *db, dlr_out *o, one_row *r, const char *view, int64_t aggr_id,
                    const char *domain, const char *const *names, int n) {
  memset(r, 0, sizeof *r);
  dlr_fields_init(&r->f, names, n);
  if (!dldb_has_view(db, view)) return DL_OK;
  dldb_query q;
  dlr_query_init(&q, view, aggr_id, domain, NULL);
  int rc = dldb_query_rows(db, &q, one_row_cb, r, o->err, o->errlen);
  if (rc != DL_OK) return dlr_out_fail(o, rc);
  for (int k = 0; k < n; k++)
    if (r->has[k] && !r->s[k]) return dlr_out_fail(o, DL_ENOMEM);
  return DL_OK;
}

static const dlr_col KV_COLS[] = {{"", 0, "name"}, {"", 0, "value"}};

static void kv_str(dlr_out *o, const char *name, const one_row *r, int k) {
  dlr_out_str(o, name);
  if (r->has[k])
    dlr_out_str(o, r->s[k]);
  else
    dlr_out_null(o);
  dlr_out_end_row(o);
}

static void kv_int(dlr_out *o, const char *name, const one_row *r, int k) {
  dlr_out_str(o, name);
  if (r->has[k] && r->big[k])
    dlr_out_real1(o, r->d[k]);
  else if (r->has[k])
    dlr_out_int(o, r->i[k]);
  else
    dlr_out_null(o);
  dlr_out_end_row(o);
}

/* A count that NVIDIA's files keep as text ("1"): a number when it is one. */
static void kv_count(dlr_out *o, const char *name, const one_row *r, int k) {
  const char *t = r->has[k] ? r->s[k] : NULL;
  if (!t || !*t || t[strspn(t, "0123456789")] != '\0' || strlen(t) > 18) {
    kv_str(o, name, r, k);
    return;
  }
  dlr_out_str(o, name);
  dlr_out_int(o, strtoll(t, NULL, 10));
  dlr_out_end_row(o);
}

static void kv_real1(dlr_out *o, const char *name, int has, double v) {
  dlr_out_str(o, name);
  if (has)
    dlr_out_real1(o, v);
  else
    dlr_out_null(o);
  dlr_out_end_row(o);
}

/* ---- GPU names: ", "-joined, a repeated name once (the view is sorted) --- */

typedef struct names_ctx {
  char *s;
  size_t len, last; /* last: where the latest name starts in s */
  int bad;
} names_ctx;

static int gpu_name_row(void *ctx, const dldb_row *row) {
  names_ctx *c = ctx;
  const char *n = dldb_row_count(row) > 0 ? dldb_row_text(row, 0) : "";
  size_t k = strlen(n);
  if (c->s && strcmp(c->s + c->last, n) == 0) return 0;
  char *s = realloc(c->s, c->len + k + 3);
  if (!s) {
    c->bad = 1;
    return 1;
  }
  c->s = s;
  if (c->len) {
    memcpy(c->s + c->len, ", ", 2);
    c->len += 2;
  }
  c->last = c->len;
  memcpy(c->s + c->len, n, k + 1);
  c->len += k;
  return 0;
}

/* ---- op and iteration aggregates ------------------------------------------- */

static const char *const OPN_FIELDS[] = {"gpu_time", "cpu_time", "tc_eligible", "using_tc"};

typedef struct ops_sum {
  dlr_fields f;
  int64_t gpu[4], cpu[4], n[4]; /* all, using TC, eligible not using, other */
} ops_sum;

static int ops_sum_row(void *ctx, const dldb_row *row) {
  ops_sum *s = ctx;
  dlr_fields_resolve(&s->f, row);
  int64_t g = dlr_int(&s->f, row, 0), c = dlr_int(&s->f, row, 1);
  int using = dlr_int(&s->f, row, 3) != 0, elig = dlr_int(&s->f, row, 2) != 0;
  int k = using ? 1 : elig ? 2 : 3;
  s->gpu[0] = dlr_add_sat(s->gpu[0], g);
  s->cpu[0] = dlr_add_sat(s->cpu[0], c);
  s->n[0]++;
  s->gpu[k] = dlr_add_sat(s->gpu[k], g);
  s->cpu[k] = dlr_add_sat(s->cpu[k], c);
  s->n[k]++;
  return 0;
}

typedef struct dur_stats {
  int64_t n;
  double mean, m2; /* Welford */
} dur_stats;

static int dur_row(void *ctx, const dldb_row *row) {
  dur_stats *s = ctx;
  for (int i = 0; i < dldb_row_count(row); i++) {
    if (strcmp(dldb_row_name(row, i), "duration") != 0 || !dldb_row_type(row, i)) continue;
    double x = dldb_row_real(row, i);
    s->n++;
    double d = x - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (x - s->mean);
  }
  return 0;
}

/* ---- the report ---------------------------------------------------------------- */

static const char *const SYS_FIELDS[] = {"num_gpus",     "cpu_model",      "driver_version",
                                         "framework",    "cuda_version",   "cudnn_version",
                                         "nsys_version", "dlprof_version", "dlprof_build"};
static const char *const PERF_FIELDS[] = {"wall_clock_time",   "tc_utilization",
                                          "gpu_utilization",   "total_iterations",
                                          "profiled_iterations", "iter_start",
                                          "iter_stop",         "iter_avg"};
static const char *const RUB_FIELDS[] = {"tc_duration_pct",         "non_tc_duration_pct",
                                         "memory_duration_pct",     "dataloader_duration_pct",
                                         "io_duration_pct",         "cpu_duration_pct",
                                         "other_duration_pct"};
static const char *const KS_FIELDS[] = {
    "total_gpu_time", "total_count", "using_tc_gpu_time", "using_tc_count", "memory_gpu_time",
    "memory_count", "other_gpu_time", "other_count",
    /* view_dl_kernel_summary only */
    "total_cpu_time", "using_tc_cpu_time", "memory_cpu_time", "other_cpu_time"};

static const dlr_col OPS_COLS[] = {{"", 0, "name"},
                                   {"GPU Time (ns)", 0, NULL},
                                   {"CPU Time (ns)", 0, NULL},
                                   {"# Ops", 0, NULL}};
static const dlr_col KERNELS_COLS[] = {{"", 0, "name"},
                                       {"GPU Time (ns)", 0, NULL},
                                       {"CPU Time (ns)", 0, NULL},
                                       {"# Kernels", 0, NULL}};

int dlr_summary(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain) {
  one_row sys = {0}, perf = {0}, rub = {0}, ks = {0};
  names_ctx gpus = {0};
  char src[64];
  dldb_query q;
  int rc;

  /* System Config */
  if ((rc = read_one(db, o, &sys, "view_system_config", aggr_id, domain, SYS_FIELDS,
                     NCOLS(SYS_FIELDS))) != DL_OK)
    goto out;
  if (dldb_has_view(db, "view_gpu_names")) {
    dlr_query_init(&q, "view_gpu_names", aggr_id, domain, NULL);
    if ((rc = dldb_query_rows(db, &q, gpu_name_row, &gpus, o->err, o->errlen)) != DL_OK) {
      dlr_out_fail(o, rc);
      goto out;
    }
    if (gpus.bad) {
      rc = dlr_out_fail(o, DL_ENOMEM);
      goto out;
    }
  }
  dlr_out_section(o, "System Config", KV_COLS, 2, 0);
  kv_count(o, "GPU Count", &sys, 0);
  dlr_out_str(o, "GPU Name(s)");
  if (gpus.s)
    dlr_out_str(o, gpus.s);
  else
    dlr_out_null(o);
  dlr_out_end_row(o);
  kv_str(o, "CPU Model", &sys, 1);
  kv_str(o, "GPU Driver Version", &sys, 2);
  kv_str(o, "Framework", &sys, 3);
  kv_str(o, "CUDA Version", &sys, 4);
  if (sys.has[5] && sys.s[5][0]) kv_str(o, "cuDNN Version", &sys, 5); /* absent when empty */
  kv_str(o, "NSys Version", &sys, 6);
  kv_str(o, "DLProf Version", &sys, 7);
  kv_str(o, "DLProf Build", &sys, 8);

  /* Summary Report */
  if ((rc = read_one(db, o, &perf, "view_performance_summary", aggr_id, domain, PERF_FIELDS,
                     NCOLS(PERF_FIELDS))) != DL_OK ||
      (rc = read_one(db, o, &rub, "view_resource_usage_breakdown", aggr_id, domain, RUB_FIELDS,
                     NCOLS(RUB_FIELDS))) != DL_OK)
    goto out;
  dlr_out_section(o, "Summary Report", KV_COLS, 2, 0);
  kv_int(o, "Wall Clock Time (ns)", &perf, 0);
  kv_real1(o, "Tensor Core Kernel Utilization %", perf.has[1], perf.d[1]);
  kv_real1(o, "GPU Utilization %", perf.has[2], perf.d[2]);
  static const char *const rub_names[] = {
      "Tensor Core Kernel Duration %", "Non-Tensor Core Kernel Duration %", "Memory Duration %",
      "Dataloader Duration %",         "IO Duration %",                     "CPU Duration %",
      "Other Duration %"};
  for (int k = 0; k < 7; k++) kv_real1(o, rub_names[k], rub.has[k], rub.d[k]);

  /* Iterations: the standard deviation is the population one over the
   * durations of the aggregated iterations. */
  dur_stats ds = {0};
  if (dldb_has_view(db, "view_iterations_profiled")) {
    dlr_query_init(&q, "view_iterations_profiled", aggr_id, domain, NULL);
    if ((rc = dldb_query_rows(db, &q, dur_row, &ds, o->err, o->errlen)) != DL_OK) {
      dlr_out_fail(o, rc);
      goto out;
    }
  }
  dlr_out_section(o, "Iterations", KV_COLS, 2, 0);
  kv_int(o, "Total Iterations", &perf, 3);
  kv_int(o, "Aggregated Iterations", &perf, 4);
  kv_int(o, "Start Iteration", &perf, 5);
  kv_int(o, "Stop Iteration", &perf, 6);
  kv_real1(o, "Average Iteration Time (ns)", perf.has[7], perf.d[7]);
  kv_real1(o, "Iteration Time Standard Deviation", ds.n > 0,
           ds.n > 0 ? sqrt(ds.m2 / (double)ds.n) : 0.0);

  /* All Ops, from view_op_nodes */
  ops_sum os = {0};
  dlr_fields_init(&os.f, OPN_FIELDS, NCOLS(OPN_FIELDS));
  dlr_query_init(&q, "view_op_nodes", aggr_id, domain, NULL);
  if ((rc = dldb_query_rows(db, &q, ops_sum_row, &os, o->err, o->errlen)) != DL_OK) {
    dlr_out_fail(o, rc);
    goto out;
  }
  dlr_out_section(o, "All Ops", OPS_COLS, NCOLS(OPS_COLS), 1);
  static const char *const op_rows[] = {"All ops", "Ops using TC",
                                        "Ops eligible for TC but not using", "All other ops"};
  for (int k = 0; k < 4; k++) {
    dlr_out_str(o, op_rows[k]);
    dlr_out_int(o, os.gpu[k]);
    dlr_out_int(o, os.cpu[k]);
    dlr_out_int(o, os.n[k]);
    dlr_out_end_row(o);
  }

  /* All Kernels: GPU time and counts from view_kernel_summary; their CPU
   * (API) time only from view_dl_kernel_summary, or 0 where the count is 0. */
  if ((rc = read_one(db, o, &ks, dlr_source(db, "kernel_summary", src, sizeof src), aggr_id,
                     domain, KS_FIELDS, NCOLS(KS_FIELDS))) != DL_OK)
    goto out;
  dlr_out_section(o, "All Kernels", KERNELS_COLS, NCOLS(KERNELS_COLS), 1);
  static const char *const k_rows[] = {"All kernels", "Kernels using TC", "Memory",
                                       "All other kernels"};
  for (int k = 0; k < 4; k++) {
    dlr_out_str(o, k_rows[k]);
    if (ks.has[2 * k])
      dlr_out_int(o, ks.i[2 * k]);
    else
      dlr_out_null(o);
    if (ks.has[8 + k])
      dlr_out_int(o, ks.i[8 + k]);
    else if (ks.has[2 * k + 1] && ks.i[2 * k + 1] == 0)
      dlr_out_int(o, 0);
    else
      dlr_out_null(o);
    if (ks.has[2 * k + 1])
      dlr_out_int(o, ks.i[2 * k + 1]);
    else
      dlr_out_null(o);
    dlr_out_end_row(o);
  }
  rc = o->rc;
out:
  one_row_free(&sys);
  one_row_free(&perf);
  one_row_free(&rub);
  one_row_free(&ks);
  free(gpus.s);
  return rc ? rc : o->rc;
}
