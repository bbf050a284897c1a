/*
 * dla_coll.c - collectives across ranks (dla_coll.h). A collective kernel
 * is one whose name contains "nccl" (any case), as in dla_comm.c. The j-th
 * kernel of a name on one rank is the same collective as the j-th of that
 * name on every other rank; instances beyond the fewest any rank ran are
 * left out of the skew (a rank whose trace ends early).
 *
 * Sizes and bandwidths follow NCCL-tests (its doc/PERFORMANCE.md): an
 * instance moves S bytes, the larger of its input and output buffers as the
 * profiler records them (dl_kernel_collectives); its time is that of the
 * rank that started last, which waits for no one; the algorithm bandwidth
 * is S over that time, and the bus bandwidth scales it by the share of S
 * each rank sends on its link: 2(n-1)/n for all-reduce, (n-1)/n for
 * all-gather, reduce-scatter and all-to-all, 1 for the rest.
 */
#include "dla_coll.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dla_internal.h"
#include "dla_peaks.h"
#include "dldb_merge_src.h"
#include "dldb_scan.h"

typedef struct cev {
  int32_t name, r; /* short name id, rank index */
  int64_t start, dur;
  int32_t size;    /* index into coll_sizes.v, -1: none recorded */
} cev;

/* The kinds of collectives: a name's letters and digits, lower case,
 * contain key (first match; the longer names first). */
enum { K_ALLREDUCE, K_REDUCESCATTER, K_ALLGATHER, K_ALLTOALL, K_BROADCAST, K_SENDRECV, K_SEND,
       K_RECV, K_REDUCE, K_NONE };
static const struct {
  const char *key, *name;
  int n_minus_1; /* bus bandwidth factor: 2: 2(n-1)/n, 1: (n-1)/n, 0: 1 */
} kinds[] = {
    {"allreduce", "allreduce", 2}, {"reducescatter", "reduce_scatter", 1},
    {"allgather", "allgather", 1}, {"alltoall", "alltoall", 1},
    {"broadcast", "broadcast", 0}, {"sendrecv", "sendrecv", 0},
    {"send", "send", 0},           {"recv", "recv", 0},
    {"reduce", "reduce", 0},
};

static int kind_of(const char *name) {
  char k[96];
  size_t n = 0;
  for (const char *p = name; p && *p && n + 1 < sizeof k; p++)
    if (isalnum((unsigned char)*p)) k[n++] = (char)tolower((unsigned char)*p);
  k[n] = '\0';
  for (int i = 0; i < K_NONE; i++)
    if (strstr(k, kinds[i].key)) return i;
  return K_NONE;
}

/* The recorded arguments of the collective kernels, by kernel id (map). */
typedef struct coll_size {
  int64_t bytes;   /* S, -1: unknown */
  int32_t group;   /* 0: unknown */
  int32_t kind;    /* K_*: from the recorded collective name */
} coll_size;

typedef struct coll_sizes {
  coll_size *v;
  size_t n, cap;
  dl_map by_kernel;
} coll_sizes;

static int load_size(void *ctx, const dldb_kernel_coll *k) {
  coll_sizes *s = ctx;
  if (s->n == s->cap) {
    size_t ncap = s->cap ? 2 * s->cap : 256;
    coll_size *p = realloc(s->v, ncap * sizeof *p);
    if (!p) return DL_ENOMEM;
    s->v = p;
    s->cap = ncap;
  }
  int64_t b = k->in_bytes > k->out_bytes ? k->in_bytes : k->out_bytes;
  s->v[s->n] = (coll_size){b >= 0 ? b : -1, k->group_size, kind_of(k->collective)};
  if (dl_map_put(&s->by_kernel, (uint64_t)k->kernel_id, (int64_t)s->n)) return DL_ENOMEM;
  s->n++;
  return DL_OK;
}

static int cev_cmp(const void *x, const void *y) {
  const cev *a = x, *b = y;
  if (a->name != b->name) return a->name < b->name ? -1 : 1;
  if (a->r != b->r) return a->r < b->r ? -1 : 1;
  return (a->start > b->start) - (a->start < b->start);
}

/* Whether short name id s is a collective (cached in m: 1 yes, 0 no). */
static int is_coll(const dla_ctx *c, dl_map *m, int32_t s, int *oom) {
  int64_t v = dl_map_get(m, (uint64_t)s);
  if (v >= 0) return (int)v;
  const char *name = dldb_writer_string(c->w, s);
  v = name && strcasestr(name, "nccl") != NULL;
  if (dl_map_put(m, (uint64_t)s, v)) *oom = 1;
  return (int)v;
}

/* The collective kernels of the ranks a merge kept as summaries only
 * (dldb_merge_src.h), with their recorded sizes appended to sz. */
typedef struct src_events {
  const dl_map *ridx;
  coll_sizes *sz;
  cev *v;
  size_t n, cap;
} src_events;

static int add_src_event(void *ctx, const dldb_src_event *e) {
  src_events *s = ctx;
  int64_t r = dl_map_get(s->ridx, (uint64_t)(uint32_t)e->device_id);
  if (r < 0) return DL_OK;
  if (s->n == s->cap) {
    cev *p = realloc(s->v, 2 * s->cap * sizeof *p);
    if (!p) return DL_ENOMEM;
    s->v = p;
    s->cap *= 2;
  }
  int32_t si = -1;
  if (e->bytes >= 0 || e->group_size >= 0 || e->collective) {
    coll_sizes *z = s->sz;
    if (z->n == z->cap) {
      size_t ncap = z->cap ? 2 * z->cap : 256;
      coll_size *p = realloc(z->v, ncap * sizeof *p);
      if (!p) return DL_ENOMEM;
      z->v = p;
      z->cap = ncap;
    }
    z->v[z->n] = (coll_size){e->bytes >= 0 ? e->bytes : -1, e->group_size > 0 ? e->group_size : 0,
                             kind_of(e->collective)};
    si = (int32_t)z->n++;
  }
  s->v[s->n++] = (cev){(int32_t)e->kernel_name_id, (int32_t)r, e->start_ns, e->dur_ns, si};
  return DL_OK;
}

/* The events of the ranks' collectives in the window, sorted. */
static int collect(const dla_ctx *c, const dl_map *ridx, coll_sizes *sz, cev **out,
                   size_t *n) {
  dl_map coll;
  dl_map_init(&coll);
  size_t cap = 256, nv = 0;
  cev *v = malloc(cap * sizeof *v);
  int oom = !v;
  for (size_t i = 0; !oom && i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    int64_t r = dl_map_get(ridx, (uint64_t)(uint32_t)dla__kern_device(c, k));
    if (r < 0 || !dla__kern_in_aggr(c, k) || !is_coll(c, &coll, dla__kern_short(c, k), &oom))
      continue;
    if (nv == cap) {
      cev *p = realloc(v, 2 * cap * sizeof *p);
      if (!p) {
        oom = 1;
        break;
      }
      v = p;
      cap *= 2;
    }
    int64_t si = sz->n ? dl_map_get(&sz->by_kernel, (uint64_t)dla__kern_id(c, k)) : -1;
    v[nv++] = (cev){dla__kern_short(c, k), (int32_t)r, k->gpu_start, dla__kern_dur(c, k),
                    (int32_t)si};
  }
  dl_map_free(&coll);
  src_events se = {.ridx = ridx, .sz = sz, .v = v, .n = nv, .cap = cap};
  int rc = oom ? DL_ENOMEM
               : dldb_scan_rank_source_events(c->w, add_src_event, &se, c->err, c->errlen);
  v = se.v;
  nv = se.n;
  if (rc != DL_OK) {
    free(v);
    return rc;
  }
  dla__qsort(v, nv, sizeof *v, cev_cmp);
  *out = v;
  *n = nv;
  return DL_OK;
}

/* Bytes, group size and kind of a row from its instances' records (sized:
 * the instances whose last starter's kernel has a recorded size). */
typedef struct row_size {
  int64_t bytes, sized_ns;
  size_t sized;
  int32_t group, kind;
} row_size;

static void add_size(row_size *rs, const coll_sizes *sz, const cev *e) {
  if (e->size < 0) return;
  const coll_size *s = &sz->v[e->size];
  if (!rs->group) rs->group = s->group;
  if (rs->kind == K_NONE) rs->kind = s->kind;
  if (s->bytes < 0) return;
  rs->bytes += s->bytes;
  rs->sized_ns += e->dur;
  rs->sized++;
}

/* Sizes and bandwidths of row (of nrank ranks; name: its kernel name; link:
 * its GPU's, NULL unknown), when every instance has a size. */
static void bandwidth(const row_size *rs, const char *name, size_t nrank,
                      const dla_link_peak *link, dldb_dl_collective_row *row) {
  int kind = rs->kind != K_NONE ? rs->kind : kind_of(name);
  int64_t n = rs->group > 0 ? rs->group : (int64_t)nrank;
  row->collective = kind != K_NONE ? kinds[kind].name : NULL;
  row->group_size = rs->group > 0 ? rs->group : 0;
  row->alg_bw_bps = row->bus_bw_bps = NAN;
  row->link_bw_bps = link ? link->gbps * 1e9 : NAN;
  if (rs->sized != (size_t)row->instances || rs->sized_ns <= 0) return;
  row->bytes = rs->bytes;
  row->alg_bw_bps = (double)rs->bytes * 1e9 / (double)rs->sized_ns;
  if (kind == K_NONE) return;
  int f = kinds[kind].n_minus_1;
  if (f == 0) row->bus_bw_bps = row->alg_bw_bps;
  else if (n >= 2) row->bus_bw_bps = row->alg_bw_bps * f * (double)(n - 1) / (double)n;
}

/* The row of the events v[0..n) of one name; 0 when a rank ran none. off
 * and last are scratch of nrank + 1 entries. */
static int name_row(const cev *v, size_t n, const int32_t *rank, size_t nrank, size_t *off,
                    int64_t *last, const coll_sizes *sz, row_size *rs,
                    dldb_dl_collective_row *row) {
  memset(off, 0, (nrank + 1) * sizeof *off);
  memset(last, 0, nrank * sizeof *last);
  int64_t time = 0;
  for (size_t i = 0; i < n; i++) {
    off[v[i].r + 1]++;
    time += v[i].dur;
  }
  size_t inst = SIZE_MAX;
  for (size_t r = 0; r < nrank; r++) {
    if (off[r + 1] < inst) inst = off[r + 1];
    off[r + 1] += off[r];
  }
  if (inst == 0 || inst == SIZE_MAX) return 0;
  int64_t skew_sum = 0, skew_max = 0, transfer = 0;
  for (size_t j = 0; j < inst; j++) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t who = 0;
    for (size_t r = 0; r < nrank; r++) {
      int64_t s = v[off[r] + j].start;
      if (s < lo) lo = s;
      if (s > hi) hi = s, who = r;
    }
    skew_sum += hi - lo;
    transfer += v[off[who] + j].dur;
    add_size(rs, sz, &v[off[who] + j]);
    if (hi - lo > skew_max) skew_max = hi - lo;
    if (hi > lo) last[who]++;
  }
  size_t best = 0;
  for (size_t r = 1; r < nrank; r++)
    if (last[r] > last[best]) best = r;
  *row = (dldb_dl_collective_row){.kernel_name_id = v[0].name, .ranks = (int64_t)nrank,
                                  .instances = (int64_t)inst, .time_ns = time,
                                  .avg_ns = time / (int64_t)n,
                                  .skew_avg_ns = skew_sum / (int64_t)inst,
                                  .skew_max_ns = skew_max, .last_rank = rank[best],
                                  .last_rank_count = last[best], .transfer_ns = transfer,
                                  .bytes = -1, .alg_bw_bps = NAN, .bus_bw_bps = NAN,
                                  .link_bw_bps = NAN};
  return 1;
}

/* The link of device dev (by its GPU's name). */
typedef struct link_of {
  int32_t dev;
  const dla_link_peak *link;
} link_of;

static int note_link(void *ctx, const dldb_scan_gpu *g) {
  link_of *l = ctx;
  if (g->device_id == l->dev) l->link = dla_link_find(g->name);
  return 0;
}

/* The rows of the sorted events v[0..nv). */
static int rows_of(const dla_ctx *c, const cev *v, size_t nv, const int32_t *rank, size_t nrank,
                   const coll_sizes *sz, const dla_link_peak *link, dldb_dl_collective_row **rows,
                   size_t *n) {
  size_t *off = calloc(nrank + 1, sizeof *off), names = 0;
  int64_t *last = calloc(nrank + 1, sizeof *last);
  for (size_t i = 0; i < nv; i++) names += i == 0 || v[i].name != v[i - 1].name;
  int rc = off && last && (*rows = calloc(names + 1, sizeof **rows)) ? DL_OK : DL_ENOMEM;
  for (size_t i = 0, j; rc == DL_OK && i < nv; i = j) {
    for (j = i; j < nv && v[j].name == v[i].name; j++) {}
    row_size rs = {.kind = K_NONE};
    dldb_dl_collective_row *row = *rows + *n;
    if (!name_row(v + i, j - i, rank, nrank, off, last, sz, &rs, row)) continue;
    bandwidth(&rs, dldb_writer_string(c->w, v[i].name), nrank, link, row);
    (*n)++;
  }
  free(off);
  free(last);
  return rc;
}

int dla__coll_match(const dla_ctx *c, const int32_t *dev, const int32_t *rank, size_t nrank,
                    dldb_dl_collective_row **rows, size_t *n) {
  *rows = NULL;
  *n = 0;
  dl_map ridx;
  dl_map_init(&ridx);
  coll_sizes sz = {0};
  dl_map_init(&sz.by_kernel);
  link_of link = {.dev = nrank ? dev[0] : -1};
  cev *v = NULL;
  size_t nv = 0;
  int rc = DL_OK;
  for (size_t r = 0; rc == DL_OK && r < nrank; r++)
    if (dl_map_put(&ridx, (uint64_t)(uint32_t)dev[r], (int64_t)r)) rc = DL_ENOMEM;
  if (rc == DL_OK) rc = dldb_scan_kernel_colls(c->w, load_size, &sz, c->err, c->errlen);
  if (rc == DL_OK) rc = dldb_scan_gpus(c->w, note_link, &link, c->err, c->errlen);
  if (rc == DL_OK) rc = collect(c, &ridx, &sz, &v, &nv);
  if (rc == DL_OK) rc = rows_of(c, v, nv, rank, nrank, &sz, link.link, rows, n);
  free(v);
  free(sz.v);
  dl_map_free(&sz.by_kernel);
  dl_map_free(&ridx);
  return rc;
}
