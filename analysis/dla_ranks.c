/*
 * dla_ranks.c - the ranks phase (dla_ranks.h).
 *
 * A rank's figures are its GPU's timeline (dla_comm.c) over the aggregated
 * window. In a synchronous job every rank waits inside its collectives for
 * the last one to arrive, so the rank that exposes the least communication
 * waits the least: a rank's waiting is its exposed communication above that
 * least. The straggler is the rank whose own time (wall less exposed
 * communication: compute, idle and memory copies) is furthest above the
 * median rank's, when that excess is DLA_STRAGGLER_PCT of its wall or more;
 * its cause is the part (compute, GPU idle, data loading) furthest above
 * its own median, and the time it costs is the others' waiting.
 */
#include "dla_ranks.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dla_coll.h"
#include "dla_internal.h"
#include "dla_rankhost.h"
#include "dldb_merge_src.h"
#include "dldb_ranks.h"

struct dla_ranks {
  dldb_dl_rank_row *rows;
  size_t n, cap;
  dldb_dl_collective_row *coll;
  size_t ncoll;
};

typedef struct rank_of {
  int32_t dev, rank;
} rank_of;

typedef struct rank_list {
  rank_of *v;
  size_t n, cap;
} rank_list;

static int load_rank(void *ctx, const dldb_gpu_rank *r) {
  rank_list *l = ctx;
  if (l->n == l->cap) {
    size_t ncap = l->cap ? 2 * l->cap : 64;
    rank_of *p = realloc(l->v, ncap * sizeof *p);
    if (!p) return DL_ENOMEM;
    l->v = p;
    l->cap = ncap;
  }
  l->v[l->n++] = (rank_of){r->device_id, r->rank};
  return DL_OK;
}

/* The rank of device dev (the list is by device id), -1: none. */
static int32_t rank_lookup(const rank_list *l, int32_t dev) {
  size_t lo = 0, hi = l->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->v[mid].dev < dev) lo = mid + 1;
    else hi = mid;
  }
  return lo < l->n && l->v[lo].dev == dev ? l->v[lo].rank : -1;
}

static int cmp_row(const void *x, const void *y) {
  const dldb_dl_rank_row *a = x, *b = y;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return (a->device_id > b->device_id) - (a->device_id < b->device_id);
}

/* The median of field at byte offset off of the rows (scratch: n int64s). */
static int64_t median(const dldb_dl_rank_row *r, size_t n, size_t off, int64_t *scratch) {
  for (size_t i = 0; i < n; i++) memcpy(&scratch[i], (const char *)&r[i] + off, sizeof(int64_t));
  return dla__median_i64(scratch, n);
}

static int64_t own_time(const dldb_dl_rank_row *r) { return r->wall_ns - r->exposed_comm_ns; }

/* The parts a straggler's excess can come from, in the order a tie goes
 * (data loading before the GPU idle time it causes). */
static const struct {
  int cause;
  size_t field;
} causes[] = {{DLA_CAUSE_COMPUTE, offsetof(dldb_dl_rank_row, computation_ns)},
              {DLA_CAUSE_DATALOADER, offsetof(dldb_dl_rank_row, dataloader_ns)},
              {DLA_CAUSE_IDLE, offsetof(dldb_dl_rank_row, idle_ns)}};

/* Waiting per rank, and the straggler facts. */
static int straggler(dldb_dl_rank_row *r, size_t n, dla_facts *f) {
  int64_t *own = malloc((n + 1) * sizeof *own), *scratch = malloc((n + 1) * sizeof *scratch);
  if (!own || !scratch) {
    free(own);
    free(scratch);
    return DL_ENOMEM;
  }
  size_t s = 0, least = 0;
  for (size_t i = 0; i < n; i++) {
    own[i] = own_time(&r[i]);
    if (own[i] > own[s]) s = i;
    if (r[i].exposed_comm_ns < r[least].exposed_comm_ns) least = i;
  }
  for (size_t i = 0; i < n; i++) r[i].wait_ns = r[i].exposed_comm_ns - r[least].exposed_comm_ns;
  memcpy(scratch, own, n * sizeof *own);
  int64_t med = dla__median_i64(scratch, n);
  int64_t excess = own[s] - med, lost = 0;
  for (size_t i = 0; i < n; i++)
    if (i != s && r[i].exposed_comm_ns > r[s].exposed_comm_ns)
      lost += r[i].exposed_comm_ns - r[s].exposed_comm_ns;
  if (n >= 2 && lost > 0 && r[s].wall_ns > 0 &&
      100.0 * (double)excess >= DLA_STRAGGLER_PCT * (double)r[s].wall_ns) {
    f->straggler_excess_ns = excess;
    f->straggler_rank = r[s].rank;
    f->straggler_median_ns = med;
    f->straggler_lost_ns = lost;
    f->straggler_cause_ns = INT64_MIN;
    for (size_t k = 0; k < sizeof causes / sizeof causes[0]; k++) {
      int64_t v;
      memcpy(&v, (const char *)&r[s] + causes[k].field, sizeof v);
      v -= median(r, n, causes[k].field, own);
      if (v > f->straggler_cause_ns) f->straggler_cause_ns = v, f->straggler_cause = causes[k].cause;
    }
  }
  free(own);
  free(scratch);
  return DL_OK;
}

/* The exposed communication no rank waits in: at most the collectives'
 * transfer time (each instance's time on the rank that started last), on
 * the GPU of the most exposed communication. */
static void unexplained(const struct dla_ranks *x, dla_facts *f) {
  int64_t transfer = 0;
  size_t most = 0;
  for (size_t i = 0; i < x->ncoll; i++) transfer += x->coll[i].transfer_ns;
  for (size_t i = 1; i < x->n; i++)
    if (x->rows[i].exposed_comm_ns > x->rows[most].exposed_comm_ns) most = i;
  const dldb_dl_rank_row *r = &x->rows[most];
  int64_t left = r->exposed_comm_ns < transfer ? r->exposed_comm_ns : transfer;
  f->unexplained_known = 1;
  f->unexplained_comm_device = r->device_id;
  f->unexplained_comm_pct = r->wall_ns > 0 ? 100.0 * (double)left / (double)r->wall_ns : 0.0;
}

/* The collective of the largest start skew past the thresholds, but for
 * those the straggler starts last (its finding says so). */
static void skew_facts(dla_ctx *c, const struct dla_ranks *x, dla_facts *f) {
  const dldb_dl_collective_row *best = NULL;
  for (size_t i = 0; i < x->ncoll; i++) {
    const dldb_dl_collective_row *r = &x->coll[i];
    if (f->straggler_excess_ns > 0 && r->last_rank == f->straggler_rank) continue;
    if (r->skew_avg_ns < DLA_SKEW_MIN_NS ||
        100.0 * (double)r->skew_avg_ns < DLA_SKEW_PCT * (double)r->avg_ns)
      continue;
    if (!best || r->skew_avg_ns > best->skew_avg_ns) best = r;
  }
  if (!best) return;
  const char *name = dldb_writer_string(c->w, best->kernel_name_id);
  snprintf(f->skew_kernel, sizeof f->skew_kernel, "%s", name ? name : "?");
  f->skew_avg_ns = best->skew_avg_ns;
  f->skew_max_ns = best->skew_max_ns;
  f->skew_instances = best->instances;
  f->skew_last_rank = best->last_rank;
  f->skew_last_count = best->last_rank_count;
  f->skew_dur_avg_ns = best->avg_ns;
  f->skew_ranks = best->ranks;
}

/* The collective of the most transfer time whose bus bandwidth is below
 * DLA_BUSBW_PCT of its GPU's link, among those of DLA_BUSBW_MIN_BYTES per
 * instance or more (smaller messages are bound by latency, not bandwidth). */
static void bandwidth_facts(dla_ctx *c, const struct dla_ranks *x, dla_facts *f) {
  const dldb_dl_collective_row *best = NULL;
  for (size_t i = 0; i < x->ncoll; i++) {
    const dldb_dl_collective_row *r = &x->coll[i];
    if (r->bytes < 0 || r->instances <= 0 || isnan(r->bus_bw_bps) || isnan(r->link_bw_bps) ||
        r->bytes / r->instances < DLA_BUSBW_MIN_BYTES ||
        100.0 * r->bus_bw_bps >= DLA_BUSBW_PCT * r->link_bw_bps)
      continue;
    if (!best || r->transfer_ns > best->transfer_ns) best = r;
  }
  if (!best) return;
  const char *name = dldb_writer_string(c->w, best->kernel_name_id);
  snprintf(f->bw_kernel, sizeof f->bw_kernel, "%s", name ? name : "?");
  f->bw_collective = best->collective;
  f->bw_instances = best->instances;
  f->bw_ranks = best->group_size > 0 ? best->group_size : best->ranks;
  f->bw_avg_bytes = best->bytes / best->instances;
  f->bw_bus_bps = best->bus_bw_bps;
  f->bw_alg_bps = best->alg_bw_bps;
  f->bw_link_bps = best->link_bw_bps;
}

/* The rows of the ranked GPUs of the timeline. */
static int rank_rows(dla_ctx *c, const rank_list *l, struct dla_ranks *x) {
  size_t ng = 0;
  const dldb_dl_gpu_row *g = dla__comm_gpus(c, &ng);
  if (!(x->rows = calloc(ng + 1, sizeof *x->rows))) return DL_ENOMEM;
  int64_t ni = c->niter > 0 && c->iter_stop >= c->iter_start ? c->iter_stop - c->iter_start + 1 : 0;
  int64_t span = ni ? c->bound[c->iter_stop + 1] - c->bound[c->iter_start] : 0;
  for (size_t i = 0; i < ng; i++) {
    int32_t rank = rank_lookup(l, g[i].device_id);
    if (rank < 0) continue;
    x->rows[x->n++] = (dldb_dl_rank_row){
        .rank = rank, .device_id = g[i].device_id, .iterations = ni,
        .iter_avg_ns = ni ? span / ni : 0, .wall_ns = g[i].wall_ns,
        .computation_ns = g[i].computation_ns, .communication_ns = g[i].communication_ns,
        .exposed_comm_ns = g[i].exposed_comm_ns, .idle_ns = g[i].wall_ns - g[i].busy_ns,
        /* the profile's data loading is one rank's only when it holds one GPU */
        .dataloader_ns = ng == 1 ? c->cat_total[DLA_CAT_DATALOADER] : 0};
  }
  x->cap = ng + 1;
  dla__qsort(x->rows, x->n, sizeof *x->rows, cmp_row);
  /* several ranks: each one's own steps and data loading, from its process */
  return x->n >= 2 ? dla__rank_host(c, x->rows, x->n) : DL_OK;
}

/* A rank of a merge kept as its summary only (no raw records here). */
static int add_source_row(void *ctx, const dldb_dl_rank_row *r) {
  struct dla_ranks *x = ctx;
  if (x->n == x->cap) {
    size_t ncap = 2 * x->cap + 16;
    dldb_dl_rank_row *p = realloc(x->rows, ncap * sizeof *p);
    if (!p) return DL_ENOMEM;
    x->rows = p;
    x->cap = ncap;
  }
  x->rows[x->n++] = *r;
  return DL_OK;
}

/* The collectives of the ranks' devices (one rank too: their sizes and
 * bandwidths). */
static int collectives(dla_ctx *c, struct dla_ranks *x) {
  int32_t *dev = malloc(x->n * sizeof *dev), *rank = malloc(x->n * sizeof *rank);
  int rc = dev && rank ? DL_OK : DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < x->n; i++) {
    dev[i] = x->rows[i].device_id;
    rank[i] = x->rows[i].rank;
  }
  if (rc == DL_OK) rc = dla__coll_match(c, dev, rank, x->n, &x->coll, &x->ncoll);
  free(dev);
  free(rank);
  return rc;
}

int dla__ranks_run(dla_ctx *c, dla_facts *f) {
  rank_list l = {0};
  struct dla_ranks *x = calloc(1, sizeof *x);
  c->ranks = x;
  if (!x) return DL_ENOMEM;
  int rc = dldb_scan_gpu_ranks(c->w, load_rank, &l, c->err, c->errlen);
  if (rc == DL_OK) rc = rank_rows(c, &l, x);
  size_t own = x->n;
  if (rc == DL_OK) rc = dldb_scan_rank_sources(c->w, add_source_row, x, c->err, c->errlen);
  if (rc == DL_OK && x->n > own) dla__qsort(x->rows, x->n, sizeof *x->rows, cmp_row);
  if (rc == DL_OK && x->n >= 1) rc = collectives(c, x);
  if (rc == DL_OK && x->n >= 2) {
    f->n_ranks = (int)x->n;
    f->rank_iterations = x->rows[0].iterations;
    rc = straggler(x->rows, x->n, f);
    if (rc == DL_OK) skew_facts(c, x, f);
    if (rc == DL_OK && x->ncoll > 0) unexplained(x, f);
    if (rc == DL_OK) bandwidth_facts(c, x, f);
  }
  free(l.v);
  return rc;
}

int dla__ranks_write(dla_ctx *c, int64_t aggr_id) {
  const struct dla_ranks *x = c->ranks;
  if (!x || !dldb_ranks_has_tables(c->w)) return DL_OK;
  int rc = dldb_aggr_dl_ranks(c->w, aggr_id, x->rows, x->n, c->err, c->errlen);
  if (rc == DL_OK) rc = dldb_aggr_dl_collectives(c->w, aggr_id, x->coll, x->ncoll, c->err, c->errlen);
  if (rc == DL_OK) rc = dldb_aggr_rank_source_iters(c->w, aggr_id, c->err, c->errlen);
  return rc;
}

void dla__ranks_free(dla_ctx *c) {
  struct dla_ranks *x = c->ranks;
  if (!x) return;
  free(x->rows);
  free(x->coll);
  free(x);
  c->ranks = NULL;
}
