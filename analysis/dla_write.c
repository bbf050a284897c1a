/*
 * dla_write.c - the write phase: the aggregation's rows, one writer per
 * derived table (a table of them, in the order they are written), in one
 * transaction. The statistics of calls, kernels and memory come first, the
 * NVTX statistics last, once the calls and kernels, no longer needed, are
 * freed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "dla_internal.h"
#include "dla_nvtxorder.h"
#include "dla_ranks.h"
#include "dla_shapes.h"
#include "dla_tc.h"
#include "dla_tlahead.h"
#include "dla_write.h"
#include "dla_write_durs.h"
#include "dla_write_kgroups.h"
#include "dldb_aggr.h"
#include "dldb_tlwrite.h"
#include "dldb_write_kgroups.h"
#include "dldb_write_orders.h"

/* What every writer reads: the context, the sums, the facts, the findings
 * and the aggregation's id (all borrowed). */
typedef struct wctx {
  dla_ctx *c;
  const dla_accum *s;
  const dla_facts *f;
  const dla_finding *fd;
  size_t nfd;
  int64_t aggr_id;
} wctx;

static int op_included(const dla_op *op) { return op->num_calls > 0 || op->kernel_calls > 0; }

/* The key op's name as the aggregation records it: "" when not found. */
static const char *key_name(const dla_ctx *c) {
  const char *key = dla__key_op(c);
  return c->key_op_found && key ? key : "";
}

/* Begins the aggregation (its aggr row: window, key op, who, where, when). */
static int begin(dla_ctx *c, int64_t *aggr_id) {
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
  dldb_aggr_row ar = {
      .domain_id = c->domain_id, .iter_start = c->iter_start, .iter_stop = c->iter_stop,
      .iter_aggregated = c->iter_stop - c->iter_start + 1, .key_node_name = key_name(c),
      .user_name = user ? user : "", .host_name = hostname, .aggr_start = aggr_start,
      .wall_start_ns = c->wall_start, .wall_end_ns = c->wall_end,
      .key_op_found = c->key_op_found, .tc_rules = DLA_TC_RULES_VERSION,
  };
  return dldb_aggr_begin(c->w, &ar, aggr_id, c->err, c->errlen);
}

static int w_meta(const wctx *x) {
  return dldb_write_meta(x->c->w, "tc_rules_version", DLA_TC_RULES_VERSION, x->c->err,
                         x->c->errlen);
}

/* The statistics of calls, kernels and memory first: grouping their values
 * beside the ranges, calls and kernels is the most memory they take, and
 * SQLite's page cache is still nearly empty (its pages stay dirty, so
 * held, until the commit). They have few rows. */
static int w_stats(const wctx *x) {
  dla__progress(x->c, "writing statistics", 0, 1);
#ifdef __GLIBC__
  malloc_trim(0); /* what the analysis's smaller transients freed stays resident otherwise */
#endif
  int rc = dla__stats_write(x->c, x->aggr_id);
  if (rc) return rc;
  dla__progress(x->c, "writing statistics", 1, 1);
  dla__progress(x->c, "writing the aggregation", 0, (int64_t)x->c->nk);
  return DL_OK;
}

/* The summary's iteration mean and standard deviation, in ns. */
static void iter_moments(const dla_facts *f, dldb_summary_row *sr) {
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < f->n_iter_durations; i++) sum += (double)f->iter_durations[i];
  sr->iter_avg = f->n_iter_durations ? sum / (double)f->n_iter_durations : 0.0;
  for (int64_t i = 0; i < f->n_iter_durations; i++) {
    double d = (double)f->iter_durations[i] - sr->iter_avg;
    sq += d * d;
  }
  sr->iter_std_dev = f->n_iter_durations ? sqrt(sq / (double)f->n_iter_durations) : 0.0;
}

/* The summary's op node counts and GPU times: all, using TC, eligible,
 * not eligible. */
static void node_sums(const dla_ctx *c, dldb_summary_row *sr) {
  for (size_t i = 0; i < c->nops; i++) {
    const dla_op *op = &c->ops[i];
    if (!op_included(op)) continue;
    sr->nodes_gpu_time[0] += op->gpu;
    sr->nodes_count[0]++;
    if (op->using_tc) {
      sr->nodes_gpu_time[1] += op->gpu;
      sr->nodes_count[1]++;
    }
    int k = op->eligible ? 2 : 3;
    sr->nodes_gpu_time[k] += op->gpu;
    sr->nodes_count[k]++;
  }
}

static int w_summary(const wctx *x) {
  const dla_ctx *c = x->c;
  const dla_accum *s = x->s;
  dldb_summary_row sr = {
      .wall_clock_time = c->wall_ns,
      .tc_utilization = s->elig_gpu > 0 ? 100.0 * (double)s->elig_tc_gpu / (double)s->elig_gpu
                                        : 0.0,
      .gpu_utilization = x->f->gpu_utilization,
      .total_iterations = c->niter, .profiled_iterations = c->iter_stop - c->iter_start + 1,
      .iter_start = c->iter_start, .iter_stop = c->iter_stop,
      .key_node = key_name(c),
      .kernels_gpu_time = s->kernel_gpu, .kernels_count = s->name_count,
      .using_tc_gpu_time = s->tc_gpu, .using_tc_count = s->tc_name_count,
      .memory_gpu_time = s->mem_gpu, .memory_count = s->mem_name_count,
      .other_gpu_time = s->kernel_gpu - s->tc_gpu, .other_count = s->other_name_count,
      .kernel_launches = s->launches,
      .kernels_cpu_time = s->kernel_api, .using_tc_cpu_time = s->tc_api,
      .memory_cpu_time = s->mem_api, .other_cpu_time = s->kernel_api - s->tc_api,
  };
  iter_moments(x->f, &sr);
  for (int k = 0; k < DLA_NCAT; k++) sr.pct[k] = x->f->pct[k];
  node_sums(c, &sr);
  return dldb_aggr_summary(c->w, x->aggr_id, &sr, c->err, c->errlen);
}

/* Every iteration (the aggregated ones with their breakdown), and their
 * names in the trace when the file keeps them. */
static int w_iterations(const wctx *x) {
  dla_ctx *c = x->c;
  const dla_accum *s = x->s;
  int rc = DL_OK;
  for (int64_t i = 0; rc == DL_OK && i < c->niter; i++) {
    int prof = dla__in_aggr(c, (int32_t)i);
    dldb_iteration_row ir = {
        .iter_value = i, .start_time = c->bound[i], .stop_time = dla__iter_end(c, i),
        .profiled = prof, .total_kernel_count = s->it_kcount[i],
        .using_tc_kernel_count = s->it_tccount[i], .total_gpu_time = s->it_gpu[i],
        .tc_gpu_time = s->it_tcgpu[i],
    };
    int64_t d = dla__iter_dur(c, i);
    if (prof) {
      for (int k = 0; k < DLA_NCAT; k++) ir.dur[k] = c->iter_cat[i * DLA_NCAT + k];
      ir.gpu_utilization =
          d > 0 ? 100.0 * (double)(ir.dur[DLA_CAT_TC] + ir.dur[DLA_CAT_NON_TC]) / (double)d : 0;
    }
    rc = dldb_aggr_iteration(c->w, x->aggr_id, &ir, c->err, c->errlen);
  }
  if (rc == DL_OK && c->iter_name && dldb_dl_has_iter_names(c->w))
    rc = dldb_aggr_dl_iter_names(c->w, x->aggr_id, c->iter_name, (size_t)c->niter, c->err,
                                 c->errlen);
  return rc;
}

static int w_ops(const wctx *x) {
  dla_ctx *c = x->c;
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < c->nops; i++) {
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
    rc = dldb_aggr_op(c->w, x->aggr_id, &orow, c->err, c->errlen);
  }
  return rc;
}

/* Each op's total and self CPU time (dla_optimes.c), where the file keeps them. */
static int w_op_cpu_times(const wctx *x) {
  dla_ctx *c = x->c;
  if (!c->op_total || !dldb_dl_has_op_cpu_times(c->w)) return DL_OK;
  dldb_op_cpu_row *v = malloc((c->nops + 1) * sizeof *v);
  if (!v) return DL_ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < c->nops; i++)
    if (op_included(&c->ops[i]))
      v[n++] = (dldb_op_cpu_row){.op_idx = (int64_t)i, .calls = c->op_calls[i],
                                 .total_ns = c->op_total[i], .self_ns = c->op_self[i]};
  int rc = dldb_aggr_dl_op_cpu_times(c->w, x->aggr_id, v, n, c->err, c->errlen);
  free(v);
  return rc;
}

/* A launch's entry in aggr_kernels_by_time after its aggregation id. */
typedef struct kentry {
  int64_t start;
  int32_t iter, id;
} kentry;

static int kentry_cmp(const void *a, const void *b) {
  const kentry *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->iter != y->iter) return x->iter < y->iter ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Entries out of launch order set aside at most: a few in real traces. */
#define LATE_MAX ((size_t)1 << 20)

/* Walks the aggregation's launches in the order written: 0 when that is
 * not key order (iteration, kernel id). An entry is late when its launch
 * comes before the latest one before it. merge = 0: each(ctx, e) for the
 * late ones; 1: with the late ones (late, nlate: sorted), each(ctx, e) for
 * every entry in launch order, the others as they come merged with them. */
static int kernels_walk(const dla_ctx *c, int merge, const kentry *late, size_t nlate,
                        int (*each)(void *ctx, const kentry *e), void *ctx, int *rc) {
  int32_t hint = 0, last_it = INT32_MIN, last_id = INT32_MIN;
  int64_t latest = INT64_MIN;
  size_t j = 0;
  for (size_t i = 0; i < c->nk && *rc == DL_OK; i++) {
    const dla_kern *k = &c->k[i];
    kentry e = {dla__kern_api_start(c, k), dla__kern_iter(c, k, &hint), dla__kern_id(c, k)};
    if (!dla__in_aggr(c, e.iter)) continue;
    if (e.iter < last_it || (e.iter == last_it && e.id <= last_id)) return 0;
    last_it = e.iter;
    last_id = e.id;
    int is_late = e.start < latest;
    if (!is_late) latest = e.start;
    if (!merge) {
      if (is_late) *rc = each(ctx, &e);
    } else if (!is_late) {
      while (*rc == DL_OK && j < nlate && kentry_cmp(&late[j], &e) < 0) *rc = each(ctx, &late[j++]);
      if (*rc == DL_OK) *rc = each(ctx, &e);
    }
  }
  while (merge && *rc == DL_OK && j < nlate) *rc = each(ctx, &late[j++]);
  return 1;
}

typedef struct late_set {
  kentry *v;
  size_t n, cap;
} late_set;

static int late_keep(void *ctx, const kentry *e) {
  late_set *l = ctx;
  if (l->n == LATE_MAX) return DL_EINVAL; /* too many: SQLite sorts them */
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 1024;
    kentry *v = realloc(l->v, cap * sizeof *v);
    if (!v) return DL_ENOMEM;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = *e;
  return DL_OK;
}

static int by_time(void *ctx, const kentry *e) {
  const wctx *x = ctx;
  return dldb_aggr_kernel_by_time(x->c->w, x->aggr_id, e->start, e->iter, e->id, x->c->err,
                                  x->c->errlen);
}

/* The launches' rows in key order; where the writer builds their pages,
 * the index entries follow in launch order, those out of it (few) set
 * aside, sorted and merged back. Launches not in key order, or many out of
 * launch order, go through SQLite, which keeps the index. */
static int w_kernels(const wctx *x) {
  dla_ctx *c = x->c;
  late_set late = {0};
  int rc = DL_OK, walked = DL_OK;
  int ordered = kernels_walk(c, 0, NULL, 0, late_keep, &late, &walked);
  if (ordered && walked == DL_OK) {
    if (late.n) qsort(late.v, late.n, sizeof *late.v, kentry_cmp);
    rc = dldb_aggr_kernels_begin(c->w, c->err, c->errlen);
  }
  int32_t hint = 0;
  for (size_t i = 0; rc == DL_OK && i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    int32_t it = dla__kern_iter(c, k, &hint);
    if (!dla__in_aggr(c, it)) continue;
    dldb_kernel_attr_row kr = {.iter_value = it, .kernel_id = dla__kern_id(c, k),
                               .op_idx = dla__kern_op(c, k),
                               .api_start_ns = dla__kern_api_start(c, k),
                               .api_dur_ns = dla__kern_api_dur(c, k),
                               .uses_tc = dla__kern_tc(c, k)};
    rc = dldb_aggr_kernel(c->w, x->aggr_id, &kr, c->err, c->errlen);
    if ((i + 1) % 65536 == 0)
      dla__progress(c, "writing the aggregation", (int64_t)i + 1, (int64_t)c->nk);
  }
  if (rc == DL_OK && dldb_aggr_kernels_paged(c->w))
    kernels_walk(c, 1, late.v, late.n, by_time, (void *)x, &rc);
  free(late.v);
  return rc == DL_OK ? dldb_aggr_kernels_end(c->w, c->err, c->errlen) : rc;
}

static int w_iter_ops(const wctx *x) {
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < x->s->nio; i++) {
    const dla_iter_op_acc *a = &x->s->io[i];
    dldb_iter_op_row r = {.iter_value = a->iter, .op_idx = a->op, .total_count = a->total,
                          .tc_count = a->tc, .total_gpu_time = a->gpu, .tc_gpu_time = a->tc_gpu};
    rc = dldb_aggr_iter_op(x->c->w, x->aggr_id, &r, x->c->err, x->c->errlen);
  }
  return rc;
}

static int w_op_kernels(const wctx *x) {
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < x->s->nok; i++) {
    const dla_op_kernel_acc *a = &x->s->ok[i];
    dldb_op_kernel_row r = {.op_idx = a->op, .kernel_name_id = a->name_id, .uses_tc = a->tc,
                            .calls = a->calls, .gpu_time = a->gpu, .min = a->min,
                            .max = a->max, .api_time = a->api,
                            .api_min = a->api_min == INT64_MAX ? -1 : a->api_min,
                            .api_max = a->api_min == INT64_MAX ? -1 : a->api_max};
    rc = dldb_aggr_op_kernel(x->c->w, x->aggr_id, &r, x->c->err, x->c->errlen);
  }
  return rc;
}

static int w_groups(const wctx *x) { return dla__write_groups(x->c, x->aggr_id); }
static int w_op_types(const wctx *x) { return dla__write_op_types(x->c, x->aggr_id); }
static int w_comm(const wctx *x) { return dla__comm_write(x->c, x->aggr_id); }
static int w_shapes(const wctx *x) { return dla__shapes_write(x->c, x->aggr_id); }

static int w_ranks(const wctx *x) { return dla__ranks_write(x->c, x->aggr_id); }

static int w_gpus(const wctx *x) {
  const dla_ctx *c = x->c;
  int rc = DL_OK;
  for (int g = 0; rc == DL_OK && g < c->ngpus; g++) {
    dldb_gpu_util_row r = {.device_id = c->gpu_ids[g], .gpu_utilization = c->gpu_util[g],
                           .kernel_time = c->gpu_busy[g]};
    rc = dldb_aggr_gpu(c->w, x->aggr_id, &r, c->err, c->errlen);
  }
  return rc;
}

static int w_findings(const wctx *x) {
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < x->nfd; i++) {
    const dla_finding *fd = &x->fd[i];
    dldb_finding_row r = {.rule_id = fd->rule_id, .problem = fd->problem,
                          .recommendation = fd->recommendation,
                          .javascript_function = fd->js_function,
                          .javascript_args = fd->js_args};
    rc = dldb_aggr_finding(x->c->w, x->aggr_id, (int64_t)i + 1, &r, x->c->err, x->c->errlen);
  }
  return rc;
}

/* Every row that needs the calls is written: the kernels shrink, in place,
 * to what the GPU projection reads of them and of their calls, and, where
 * dla__durs_fit says they fit, the aggregated launches go in place of the
 * calls read (*nd of them in *durs, in the calls' memory, each with its
 * provisional group in kg when kg is not NULL; else *durs is NULL).
 * Returns the spans (nk of them; the caller frees them, *durs and, with
 * drop_records, the rest). */
static dla_kspan *shrink_kernels(dla_ctx *c, int fit, dla_kgroups *kg, dla_kdur **durs,
                                 size_t *nd) {
  size_t nk = c->nk, j = 0;
  dla_kspan *ks = (dla_kspan *)(void *)c->k;
  dla_kdur *d = fit ? (dla_kdur *)(void *)c->a : NULL;
  int32_t hint = 0;
  for (size_t i = 0; i < nk; i++) { /* span i is written at or before kernel i, once read */
    const dla_kern *k = &c->k[i];
    dla_kspan x = {.start = k->gpu_start, .end = dla__kern_end(c, k),
                   .range = dla__kern_range(c, k)};
    if (d && dla__in_aggr(c, dla__kern_iter(c, k, &hint))) { /* after its call is read */
      dla_kdur r = {.start = dla__kern_api_start(c, k), .dur = k->dur, .idx = (uint32_t)i,
                    .grp = kg ? dla__kgroups_of(kg, dla__kern_op(c, k), k->cfg) : 0};
      memcpy(&d[j++], &r, sizeof r);
    }
    memcpy(&ks[i], &x, sizeof x);
  }
  *durs = d;
  *nd = j;
  return ks;
}

/* Frees the calls (or the launches in their place) and the kernels' side
 * arrays; c->k is the spans' now (the caller's). */
static void drop_records(dla_ctx *c, dla_kspan **ks) {
  size_t nk = c->nk;
  if (nk) {
    dla_kspan *p = realloc(*ks, nk * sizeof **ks);
    if (p) *ks = p;
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
}

/* The NVTX statistics, last: the aggregation's other rows end here (each
 * phase ends before the next starts: --verbosity=detailed times them).
 * The launches' rows (by duration, their kernel groups) are written first,
 * before the projection needs the calls' memory: a phase of their own. */
static int w_nvtx(const wctx *x) {
  dla_ctx *c = x->c;
  dla__progress(c, "writing the aggregation", (int64_t)c->nk, (int64_t)c->nk);
  dla__progress(c, "writing the kernel lists' orders", 0, 1);
  size_t nk = c->nk, nd = 0;
  int fit = dla__durs_fit(c), rc = DL_OK;
  dla_kgroups *kg = NULL; /* NULL: dldb_aggr_end groups the written launches */
  if (fit && dldb_aggr_kernel_groups_begin(c->w) && !(kg = dla__kgroups_new(c)))
    rc = dl_err(c->err, c->errlen, DL_ENOMEM, "dla_aggregate: out of memory");
  dla_kdur *durs = NULL;
  dla_kspan *ks = shrink_kernels(c, fit && rc == DL_OK, kg, &durs, &nd);
  uint32_t ng = 0;
  int grouped = kg != NULL;
  if (rc == DL_OK && grouped) rc = dla__kgroups_number(c, kg, durs, nd, x->aggr_id, &ng);
  dla__kgroups_free(kg);
  /* the orders' rows alone from here: page by page */
  if (rc == DL_OK && durs) rc = dldb_aggr_kernel_orders_begin(c->w, c->err, c->errlen);
  if (rc == DL_OK && grouped) rc = dla__kgroups_write(c, durs, nd, ng, ks, x->aggr_id);
  if (rc == DL_OK && durs) rc = dla__durs_write(c, durs, nd, ks, x->aggr_id);
  if (rc == DL_OK && durs) rc = dldb_aggr_kernel_orders_end(c->w, c->err, c->errlen);
  drop_records(c, &ks);
  if (rc == DL_OK) {
    dla__progress(c, "writing the kernel lists' orders", 1, 1);
    dla__progress(c, "writing NVTX statistics", 0, 1);
  }
  dla_nvtx_proj *nvtx = NULL;
  if (rc == DL_OK) rc = dla__stats_project(c, ks, nk, &nvtx);
  if (rc == DL_OK) rc = dla__stats_write_nvtx(c, x->aggr_id, ks, &nvtx); /* the spans' memory */
  else free(ks);
  dla__stats_nvtx_free(&nvtx);
  if (rc == DL_OK) dla__progress(c, "writing NVTX statistics", 1, 1);
  return rc;
}

/* The timeline's tracks, events and bins, from the raw tables and this
 * aggregation's iterations: last, once the analysis's records are freed,
 * and with the tracks built ahead, which have had every writer before this
 * one to finish in. The NVTX name order is sorted on a second thread
 * meanwhile (both are mostly one core's work). */
static int w_timeline(const wctx *x) {
  dla_ctx *c = x->c;
  dla__progress(c, "writing the timeline", 0, 1);
  dldb_tl_built *built = dla__tlahead_finish(c->tl_ahead);
  c->tl_ahead = NULL;
  int rc = dldb_timeline_write(c->w, x->aggr_id, built, c->err, c->errlen);
  dldb_timeline_built_free(&built);
  if (rc == DL_OK) dla__progress(c, "writing the timeline", 1, 1);
  return rc;
}

/* The NVTX name order started by w_nvtx, once sorted. */
static int w_nvtx_order(const wctx *x) {
  dla_ctx *c = x->c;
  dla__progress(c, "writing the NVTX name order", 0, 1);
  int rc = dla__nvtx_order_finish(c, &c->nvtx_order, 1);
  if (rc == DL_OK) dla__progress(c, "writing the NVTX name order", 1, 1);
  return rc;
}

/* Commits; the first aggregation of a file builds the index of kernels by
 * op here. */
static int w_commit(const wctx *x) {
  dla__progress(x->c, "committing the aggregation", 0, 1);
  int rc = dldb_aggr_end(x->c->w, x->c->err, x->c->errlen);
  if (rc == DL_OK) dla__progress(x->c, "committing the aggregation", 1, 1);
  return rc;
}

/* The writers, in the order their rows are written. */
static int (*const writers[])(const wctx *) = {
    w_meta,     w_stats,    w_summary, w_iterations, w_ops,  w_op_cpu_times, w_kernels,
    w_iter_ops, w_op_kernels, w_groups, w_op_types,  w_comm, w_shapes,       w_ranks,
    w_gpus,     w_findings, w_nvtx,     w_timeline, w_nvtx_order, w_commit,
};

int dla__write(dla_ctx *c, const dla_accum *s, const dla_facts *f, const dla_finding *fd,
               size_t nfd, int64_t *aggr_id_out) {
  wctx x = {.c = c, .s = s, .f = f, .fd = fd, .nfd = nfd};
  int rc = begin(c, &x.aggr_id);
  if (rc) return rc;
  for (size_t i = 0; rc == DL_OK && i < sizeof writers / sizeof writers[0]; i++)
    rc = writers[i](&x);
  dla__nvtx_order_finish(c, &c->nvtx_order, 0); /* a writer failed before its own */
  if (rc) dldb_aggr_cancel(c->w);
  else if (aggr_id_out) *aggr_id_out = x.aggr_id;
  return rc;
}
