/*
 * dla_coll.c - collectives across ranks (dla_coll.h). A collective kernel
 * is one whose name contains "nccl" (any case), as in dla_comm.c. The j-th
 * kernel of a name on one rank is the same collective as the j-th of that
 * name on every other rank; instances beyond the fewest any rank ran are
 * left out of the skew (a rank whose trace ends early).
 */
#include "dla_coll.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dla_internal.h"

typedef struct cev {
  int32_t name, r; /* short name id, rank index */
  int64_t start, dur;
} cev;

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

/* The events of the ranks' collectives in the window, sorted. */
static int collect(const dla_ctx *c, const dl_map *ridx, cev **out, size_t *n) {
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
    v[nv++] = (cev){dla__kern_short(c, k), (int32_t)r, k->gpu_start, dla__kern_dur(c, k)};
  }
  dl_map_free(&coll);
  if (oom) {
    free(v);
    return DL_ENOMEM;
  }
  dla__qsort(v, nv, sizeof *v, cev_cmp);
  *out = v;
  *n = nv;
  return DL_OK;
}

/* The row of the events v[0..n) of one name; 0 when a rank ran none. off
 * and last are scratch of nrank + 1 entries. */
static int name_row(const cev *v, size_t n, const int32_t *rank, size_t nrank, size_t *off,
                    int64_t *last, dldb_dl_collective_row *row) {
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
                                  .bytes = -1};
  return 1;
}

int dla__coll_match(const dla_ctx *c, const int32_t *dev, const int32_t *rank, size_t nrank,
                    dldb_dl_collective_row **rows, size_t *n) {
  *rows = NULL;
  *n = 0;
  dl_map ridx;
  dl_map_init(&ridx);
  cev *v = NULL;
  size_t nv = 0, *off = calloc(nrank + 1, sizeof *off);
  int64_t *last = calloc(nrank + 1, sizeof *last);
  int rc = off && last ? DL_OK : DL_ENOMEM;
  for (size_t r = 0; rc == DL_OK && r < nrank; r++)
    if (dl_map_put(&ridx, (uint64_t)(uint32_t)dev[r], (int64_t)r)) rc = DL_ENOMEM;
  if (rc == DL_OK) rc = collect(c, &ridx, &v, &nv);
  size_t names = 0;
  for (size_t i = 0; i < nv; i++) names += i == 0 || v[i].name != v[i - 1].name;
  if (rc == DL_OK && !(*rows = calloc(names + 1, sizeof **rows))) rc = DL_ENOMEM;
  for (size_t i = 0, j; rc == DL_OK && i < nv; i = j) {
    for (j = i; j < nv && v[j].name == v[i].name; j++) {}
    *n += (size_t)name_row(v + i, j - i, rank, nrank, off, last, *rows + *n);
  }
  free(v);
  free(off);
  free(last);
  dl_map_free(&ridx);
  return rc;
}
