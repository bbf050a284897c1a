/*
 * dla_stats.c - the statistics every CUDA profiler prints (Nsight Systems'
 * `nsys stats` reports, peers.md C.1), per aggregation: CUDA API calls,
 * kernels (by demangled name, and by grid/block configuration), memory
 * operations (time and bytes, per kind), OS runtime calls, NVTX ranges and
 * NVTX ranges projected onto the GPU; plus, per CUDA API name, the ops that
 * called it. Written as aggr_stats / aggr_nvtx_stats / aggr_stats_api_ops
 * rows (db/dldb_aggr.h), served by the view_dl_stats_* views.
 *
 * "For the aggregation" (docs/dldb.md): an API call, OS runtime call or
 * NVTX range counts when its start lies in an aggregated iteration, a
 * kernel when its launch call's start does, a memory op when its GPU start
 * does: the placement the rest of the analysis uses.
 *
 * Each table is one sort of (group, value) pairs and one pass over the
 * sorted runs: O(n log n) time, 16 bytes per record of scratch memory
 * (NVTX tables: plus 56 bytes per name, and 32 per range for the
 * projection; see emit_runs).
 */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dla_internal.h"
#include "dla_introsort.h"
#include "dla_nvtxorder.h"
#include "dla_radixsort.h"
#include "dl_pipe.h"
#include "dldb_aggr.h"
#include "dldb_scan.h"

typedef struct pair {
  int64_t key, val;
} pair;

/* Pairs by (key, val): equal pairs are indistinguishable, so any order of
 * them is the order of a stable sort. */
static inline int pair_lt(const pair *a, const pair *b) {
  return a->key < b->key || (a->key == b->key && a->val < b->val);
}

INTROSORT(pair_intro, pair, pair_lt)

static void sort_pairs(pair *v, size_t n) {
  if (n > 1) pair_intro(v, n, dla__sort_depth(n));
}

/* Statistics of n sorted values (n > 0), each stride int64s after the
 * one before: the vals of pairs or of NVTX pairs. */
static dldb_stat stat_vals(const int64_t *val, size_t stride, size_t n) {
#define V(i) val[(i) * stride]
  dldb_stat s = {.n = (int64_t)n, .min = V(0), .max = V(n - 1)};
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    s.total += V(i);
    sum += (double)V(i);
  }
  s.avg = sum / (double)n;
  s.med = n % 2 ? (double)V(n / 2) : ((double)V(n / 2 - 1) + (double)V(n / 2)) / 2.0;
  double sq = 0;
  for (size_t i = 0; n > 1 && i < n; i++) {
    double d = (double)V(i) - s.avg;
    sq += d * d;
  }
#undef V
  s.stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
  return s;
}

/* Statistics of the sorted pairs v[0..n-1] (n > 0). */
static dldb_stat stat_of(const pair *v, size_t n) { return stat_vals(&v->val, 2, n); }

/* One summarised group: its key (a name id, a configuration, a memory
 * kind, an NVTX name and style) and statistics; a, b, x, y are per table:
 * kernels a = commonest configuration, b = configurations; GPU projection
 * a = range time, b = GPU ops, x = sum of levels, y = sum of children. */
typedef struct srow {
  int64_t key;
  dldb_stat t;
  int64_t a, b, x, y;
} srow;

typedef struct rows {
  srow *v;
  size_t n, cap;
} rows;

/* Appends one row per run of equal keys of the sorted pairs p[0..n-1], in
 * key order. The array grows to the exact number of runs (counted first):
 * with one NVTX name per range there are millions of rows, and doubling
 * would leave up to half of them unused. */
static int rows_from_runs(rows *o, const pair *p, size_t n) {
  size_t runs = 0;
  for (size_t i = 0; i < n; i++) runs += i == 0 || p[i].key != p[i - 1].key;
  if (o->n + runs > o->cap) {
    srow *v = realloc(o->v, (o->n + runs) * sizeof *v);
    if (!v) return DL_ENOMEM;
    o->v = v;
    o->cap = o->n + runs;
  }
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && p[j].key == p[i].key) j++;
    o->v[o->n++] = (srow){.key = p[i].key, .t = stat_of(p + i, j - i)};
    i = j;
  }
  return DL_OK;
}

/* Values grouped by key, each group's values sorted: what sorted (key,
 * value) pairs give, at 8 bytes a value instead of 16, made with a
 * counting sort (the keys are few: API names, launch configurations). The
 * items come from item(ctx, i, &key, &val) for i < n (0: skipped), read
 * twice. */
typedef int (*group_item)(const void *ctx, size_t i, int64_t *key, int64_t *val);
typedef struct groups {
  int64_t *val;      /* the values, group after group */
  int64_t *key;      /* per group, ascending */
  size_t *first;     /* group g: val[first[g] .. first[g + 1] - 1] */
  size_t ng;
} groups;

static void groups_free(groups *g) {
  free(g->val);
  free(g->key);
  free(g->first);
  memset(g, 0, sizeof *g);
}

typedef struct group_slot {
  int64_t key;
  size_t n, at;
  uint32_t rank;
} group_slot;

static int cmp_slot_key(const void *x, const void *y) {
  const group_slot *const *a = x, *const *b = y;
  return ((*a)->key > (*b)->key) - ((*a)->key < (*b)->key);
}

/* The slot of key (added when new), through the last one found. */
static int group_slot_of(dl_map *m, group_slot **v, size_t *nv, size_t *cap, int64_t key,
                         int64_t *last_key, int64_t *last) {
  if (*last >= 0 && key == *last_key) return DL_OK;
  int64_t x = dl_map_get(m, (uint64_t)key);
  if (x < 0) {
    if (DLA_GROW(*v, *nv, *cap)) return DL_ENOMEM;
    x = (int64_t)*nv;
    (*v)[(*nv)++] = (group_slot){.key = key};
    if (dl_map_put(m, (uint64_t)key, x)) return DL_ENOMEM;
  }
  *last_key = key;
  *last = x;
  return DL_OK;
}

static int groups_make(groups *g, size_t n, group_item item, const void *ctx) {
  memset(g, 0, sizeof *g);
  dl_map m;
  dl_map_init(&m);
  group_slot *v = NULL, **byk = NULL;
  size_t nv = 0, cap = 0, total = 0;
  int64_t key, val, last_key = 0, last = -1;
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    if (!item(ctx, i, &key, &val)) continue;
    if ((rc = group_slot_of(&m, &v, &nv, &cap, key, &last_key, &last))) break;
    v[last].n++;
    total++;
  }
  if (rc == DL_OK) {
    byk = malloc((nv + 1) * sizeof *byk);
    g->key = malloc((nv + 1) * sizeof *g->key);
    g->first = malloc((nv + 1) * sizeof *g->first);
    g->val = malloc((total + 1) * sizeof *g->val);
    dl_advise_huge(g->val, (total + 1) * sizeof *g->val);
    if (!byk || !g->key || !g->first || !g->val) rc = DL_ENOMEM;
  }
  if (rc == DL_OK) {
    for (size_t j = 0; j < nv; j++) byk[j] = &v[j];
    qsort(byk, nv, sizeof *byk, cmp_slot_key);
    size_t at = 0;
    for (size_t j = 0; j < nv; j++) {
      g->key[j] = byk[j]->key;
      g->first[j] = byk[j]->at = at;
      at += byk[j]->n;
    }
    g->first[nv] = at;
    g->ng = nv;
    last = -1;
    for (size_t i = 0; rc == DL_OK && i < n; i++) {
      if (!item(ctx, i, &key, &val)) continue;
      if ((rc = group_slot_of(&m, &v, &nv, &cap, key, &last_key, &last))) break;
      g->val[v[last].at++] = val;
    }
  }
  for (size_t j = 0; rc == DL_OK && j < g->ng; j++)
    dla__sort_keys(g->val + g->first[j], g->first[j + 1] - g->first[j]);
  free(byk);
  free(v);
  dl_map_free(&m);
  if (rc) groups_free(g);
  return rc;
}

/* Appends one row per group, in key order (as rows_from_runs). */
static int rows_from_groups(rows *o, const groups *g) {
  if (o->n + g->ng > o->cap) {
    srow *v = realloc(o->v, (o->n + g->ng) * sizeof *v);
    if (!v) return DL_ENOMEM;
    o->v = v;
    o->cap = o->n + g->ng;
  }
  for (size_t j = 0; j < g->ng; j++)
    o->v[o->n++] = (srow){.key = g->key[j],
                          .t = stat_vals(g->val + g->first[j], 1, g->first[j + 1] - g->first[j])};
  return DL_OK;
}

static int cmp_srow(const void *x, const void *y) {
  const srow *a = x, *b = y;
  if (a->t.total != b->t.total) return a->t.total > b->t.total ? -1 : 1;
  if (a->t.n != b->t.n) return a->t.n < b->t.n ? -1 : 1;
  return (a->key > b->key) - (a->key < b->key);
}

/* Writes rows as one table: in nsys stats' order (total desc, count, key),
 * numbered, with time %; fill() names each row. In batches, so that the
 * text fill() writes into buf stays small. */
#define BATCH 4096 /* rows per dldb_aggr_stats call */
typedef struct emit {
  dla_ctx *c;
  int64_t aggr_id;
  int kind;
  void (*fill)(struct emit *e, const srow *s, dldb_stats_row *r, char gb[2][48]);
  void *ctx;
  dl_pipe *pipe; /* set: batches go to the pipe's consumer (the NVTX tables) */
  uint32_t **keys; /* set: emit_runs leaves each row's key here (the name order's) */
} emit;

/* A pipe batch: BATCH rows, then their grid and block texts. */
#define PIPE_BATCH_BYTES (BATCH * (sizeof(dldb_stats_row) + sizeof(char[2][48])))

/* Fills and writes the batch s[0..m-1], the rows idx0.. of the table (in
 * r and gb, or in a batch of e->pipe, which its consumer writes). */
static int write_batch(emit *e, const srow *s, size_t m, size_t idx0, int64_t sum,
                       dldb_stats_row *r, char (*gb)[2][48]) {
  if (e->pipe) {
    char *b = dl_pipe_claim(e->pipe);
    if (!b) return DL_EDB; /* the writer failed; dl_pipe_run returns its error */
    r = (dldb_stats_row *)(void *)b;
    gb = (char(*)[2][48])(b + BATCH * sizeof *r);
  }
  for (size_t j = 0; j < m; j++) {
    memset(&r[j], 0, sizeof r[j]);
    gb[j][0][0] = gb[j][1][0] = '\0';
    r[j].kind = e->kind;
    r[j].row_idx = (int64_t)(idx0 + j);
    r[j].t = s[j].t;
    r[j].time_pct = sum > 0 ? 100.0 * (double)s[j].t.total / (double)sum : 0.0;
    r[j].name_id = s[j].key;
    e->fill(e, &s[j], &r[j], gb[j]);
    r[j].grid = gb[j][0];
    r[j].block = gb[j][1];
  }
  if (e->pipe) return dl_pipe_publish(e->pipe, m);
  return dldb_aggr_stats(e->c->w, e->aggr_id, r, m, e->c->err, e->c->errlen);
}

static int emit_rows(emit *e, rows *o) {
  dla__qsort(o->v, o->n, sizeof *o->v, cmp_srow);
  int64_t sum = 0;
  for (size_t i = 0; i < o->n; i++) sum += o->v[i].t.total;
  dldb_stats_row *r = malloc(BATCH * sizeof *r);
  char(*gb)[2][48] = malloc(BATCH * sizeof *gb);
  int rc = r && gb ? DL_OK : DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < o->n; i += BATCH) {
    size_t m = o->n - i < BATCH ? o->n - i : BATCH;
    rc = write_batch(e, o->v + i, m, i, sum, r, gb);
  }
  free(r);
  free(gb);
  free(o->v);
  o->v = NULL;
  o->n = o->cap = 0;
  return rc;
}

/* Tables with a row per NVTX name have millions of rows when every range
 * has its own text (emit_nvtx's "seq = N"): they are sorted as compact
 * runs of the sorted NVTX pairs (24 bytes, not a srow's 96, and no
 * statistics yet), and each batch's srows are made from its runs and their
 * pairs just before it is written. The order is emit_rows' (run_lt sorts
 * as cmp_srow). An NVTX pair carries its range: the GPU projection's sums
 * (range time, GPU ops, levels, children) are read through it then. */
typedef struct npair { /* 16 bytes */
  int64_t val;          /* duration */
  uint32_t key;         /* name id << 1 | start/end (name ids < 2^31) */
  int32_t range;        /* index into c->r */
} npair;
_Static_assert(sizeof(npair) == 16, "npair: 16 bytes, val every second int64");

/* By (key, val, range): a total order, ranges being distinct. */
static inline int npair_lt(const npair *a, const npair *b) {
  if (a->key != b->key) return a->key < b->key;
  if (a->val != b->val) return a->val < b->val;
  return a->range < b->range;
}

INTROSORT(npair_intro, npair, npair_lt)

typedef struct __attribute__((packed, aligned(4))) run { /* 20 bytes: a row each */
  int64_t total;
  uint32_t key;
  int32_t first, n; /* its pairs: p[first .. first + n - 1]; n = 1: first is
                       the pair's range (the rows are written in total
                       order: a run of one needs no look at p, a cache miss
                       a row with millions of names) */
} run;
_Static_assert(sizeof(run) == 20, "run: 20 bytes");

/* cmp_srow's order: total desc, count, key (distinct: one run a key). */
static inline int run_lt(const run *a, const run *b) {
  if (a->total != b->total) return a->total > b->total;
  if (a->n != b->n) return a->n < b->n;
  return a->key < b->key;
}

INTROSORT(run_intro, run, run_lt)

/* Byte b of a run's key in run_lt's order: total descending, then n and
 * key ascending (16 bytes, the most significant first; signs flipped so
 * that unsigned order is the order). */
static inline unsigned run_byte(const run *r, int b) {
  if (b < 8) {
    uint64_t t = ~((uint64_t)r->total ^ UINT64_C(1) << 63);
    return (unsigned)(t >> (56 - 8 * b) & 255);
  }
  if (b < 12) return ((uint32_t)r->n ^ UINT32_C(1) << 31) >> (24 - 8 * (b - 8)) & 255;
  return r->key >> (24 - 8 * (b - 12)) & 255;
}

static void run_small(run *v, size_t n) { run_intro(v, n, dla__sort_depth(n)); }

RADIXSORT(run_radix, run, run_byte, 16, run_small)

/* The runs of equal keys of the sorted pairs p[0..n-1], in key order. */
static int runs_of(const npair *p, size_t n, run **out, size_t *nout) {
  size_t nr = 0;
  for (size_t i = 0; i < n; i++) nr += i == 0 || p[i].key != p[i - 1].key;
  run *v = malloc((nr + 1) * sizeof *v);
  dl_advise_huge(v, (nr + 1) * sizeof *v);
  if (!v) return DL_ENOMEM;
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    int64_t total = 0;
    for (; j < n && p[j].key == p[i].key; j++) total += p[j].val;
    v[k++] = (run){.total = total, .key = p[i].key,
                   .first = j - i == 1 ? p[i].range : (int32_t)i, .n = (int32_t)(j - i)};
    i = j;
  }
  *out = v;
  *nout = k;
  return DL_OK;
}

static void run_sums(const emit *e, const npair *p, const run *u, srow *s);

/* The runs' keys, in row order, in place of the runs (4 bytes of each 20
 * back): key i is written at or before run i's place, after it is read. */
static uint32_t *keys_of(run *v, size_t n) {
  uint32_t *k = (uint32_t *)(void *)v;
  for (size_t i = 0; i < n; i++) {
    uint32_t key;
    memcpy(&key, (const char *)&v[i] + offsetof(run, key), sizeof key);
    memcpy(&k[i], &key, sizeof key);
  }
  uint32_t *p = realloc(k, (n ? n : 1) * sizeof *k);
  return p ? p : k;
}

static void sort_runs(run *v, size_t n) { run_radix(v, n, 0); }

/* Writes the runs v[0..n-1] of the sorted pairs p, sorted by sort_runs, as
 * one table (frees v, or leaves its keys in *e->keys). */
static int emit_runs(emit *e, const npair *p, run *v, size_t n) {
  int64_t sum = 0;
  for (size_t i = 0; i < n; i++) sum += v[i].total;
  /* rows and texts: the pipe's batches, or these */
  dldb_stats_row *r = e->pipe ? NULL : malloc(BATCH * sizeof *r);
  char(*gb)[2][48] = e->pipe ? NULL : malloc(BATCH * sizeof *gb);
  srow *s = malloc(BATCH * sizeof *s);
  int rc = (e->pipe || (r && gb)) && s ? DL_OK : DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < n; i += BATCH) {
    size_t m = n - i < BATCH ? n - i : BATCH;
    for (size_t j = 0; j < m; j++) {
      const run *u = &v[i + j];
      size_t stride = sizeof *p / sizeof(int64_t);
      s[j] = (srow){.key = u->key,
                    .t = u->n > 1 ? stat_vals(&p[u->first].val, stride, (size_t)u->n)
                                  : (dldb_stat){.n = 1, .total = u->total, .min = u->total,
                                                .max = u->total, .avg = (double)u->total,
                                                .med = (double)u->total}};
      if (e->kind == DLDB_STATS_NVTX_GPU_PROJ) run_sums(e, p, u, &s[j]);
    }
    rc = write_batch(e, s, m, i, sum, r, gb);
  }
  free(r);
  free(gb);
  free(s);
  if (rc == DL_OK && e->keys) *e->keys = keys_of(v, n);
  else free(v);
  return rc;
}

static void fill_name(emit *e, const srow *s, dldb_stats_row *r, char gb[2][48]) {
  (void)e, (void)s, (void)r, (void)gb; /* key = name id */
}

/* ---- CUDA API calls and the ops that called them ---------------------- */

static int cmp_api_op(const void *x, const void *y) {
  const dldb_stats_api_op_row *a = x, *b = y;
  if (a->name_id != b->name_id) return a->name_id < b->name_id ? -1 : 1;
  return (a->op_idx > b->op_idx) - (a->op_idx < b->op_idx);
}

static int api_item(const void *ctx, size_t i, int64_t *key, int64_t *val) {
  const dla_ctx *c = ctx;
  const dla_api *a = &c->a[i];
  if (!dla__in_window(c, a->start)) return 0;
  *key = a->name_id;
  *val = dla__api_dur(c, a);
  return 1;
}

static int api_stats(emit *e, rows *o) {
  dla_ctx *c = e->c;
  groups g;
  int rc = groups_make(&g, c->na, api_item, c);
  if (rc == DL_OK) rc = rows_from_groups(o, &g);
  groups_free(&g);
  e->kind = DLDB_STATS_CUDA_API;
  e->fill = fill_name;
  if (rc == DL_OK) rc = emit_rows(e, o);
  if (rc) return rc;
  /* per (API name, op), the calls summed: a row per pair met (few), found
   * through a map, then sorted by (name, op) */
  dldb_stats_api_op_row *ao = NULL;
  size_t k = 0, cap = 0;
  dl_map at;
  dl_map_init(&at);
  for (size_t i = 0; rc == DL_OK && i < c->na; i++) {
    const dla_api *a = &c->a[i];
    if (!dla__in_window(c, a->start)) continue;
    int32_t op = dla__call_op(c, (int32_t)i);
    if (op < 0 || (size_t)op >= c->nops) continue;
    const dla_op *x = &c->ops[op];
    if (x->num_calls <= 0 && x->kernel_calls <= 0) continue; /* not written (op_included) */
    uint64_t key = ((uint64_t)(uint32_t)a->name_id << 32) | (uint32_t)op;
    int64_t v = dl_map_get(&at, key);
    if (v < 0) {
      if (k == cap) {
        size_t ncap = cap ? cap * 2 : 256;
        dldb_stats_api_op_row *nv = realloc(ao, ncap * sizeof *nv);
        if (!nv) {
          rc = DL_ENOMEM;
          break;
        }
        ao = nv;
        cap = ncap;
      }
      v = (int64_t)k;
      ao[k++] = (dldb_stats_api_op_row){a->name_id, op, 0, 0};
      if (dl_map_put(&at, key, v)) rc = DL_ENOMEM;
    }
    ao[v].calls++;
    ao[v].total += dla__api_dur(c, a);
  }
  dl_map_free(&at);
  if (rc == DL_OK) {
    dla__qsort(ao, k, sizeof *ao, cmp_api_op);
    rc = dldb_aggr_stats_api_ops(c->w, e->aggr_id, ao, k, c->err, c->errlen);
  }
  free(ao);
  return rc;
}

/* ---- Kernels ----------------------------------------------------------- */

/* The aggregation's launch configurations: c->kcfg's by (long name, grid,
 * block), numbered in the order of their first launch in the window (a
 * configuration's short name is its first launch's). */
typedef struct kscan {
  const dla_ctx *c;
  const dla_kcfg **cfgs;
  size_t ncfg;
  int32_t *num;             /* c->kcfg index -> number, -1: no launch in the window */
} kscan;

static uint64_t cfg_hash(const dla_kcfg *k) {
  uint64_t h = (uint64_t)k->long_id * 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 3; i++) {
    h = (h ^ (uint32_t)k->grid[i]) * 0x100000001B3ull;
    h = (h ^ (uint32_t)k->block[i]) * 0x100000001B3ull;
  }
  return h;
}

/* The number of configuration k (numbering it when new). */
static int cfg_number(kscan *s, dl_map *m, const dla_kcfg *k, int32_t *out) {
  uint64_t h = cfg_hash(k);
  for (;;) {
    int64_t v = dl_map_get(m, h);
    if (v < 0) break;
    const dla_kcfg *x = s->cfgs[v];
    if (x->long_id == k->long_id && !memcmp(x->grid, k->grid, sizeof x->grid) &&
        !memcmp(x->block, k->block, sizeof x->block)) {
      *out = (int32_t)v;
      return DL_OK;
    }
    h = h * 0x9E3779B97F4A7C15ull + 1; /* another configuration with that hash */
  }
  if (dl_map_put(m, h, (int64_t)s->ncfg)) return DL_ENOMEM;
  s->cfgs[s->ncfg] = k;
  *out = (int32_t)s->ncfg++;
  return DL_OK;
}

/* Numbers the window's configurations (s->num, s->cfgs). */
static int scan_configs(const dla_ctx *c, kscan *s) {
  s->c = c;
  s->num = malloc((c->nkcfg + 1) * sizeof *s->num);
  s->cfgs = malloc((c->nkcfg + 1) * sizeof *s->cfgs);
  dl_map m;
  dl_map_init(&m);
  int rc = s->num && s->cfgs ? DL_OK : DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < c->nkcfg; i++) s->num[i] = -1;
  for (size_t i = 0; rc == DL_OK && i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    if (dla__kern_in_aggr(c, k) && s->num[k->cfg] < 0)
      rc = cfg_number(s, &m, &c->kcfg[k->cfg], &s->num[k->cfg]);
  }
  dl_map_free(&m);
  return rc;
}

/* (configuration number, GPU time) of the window's kernels. */
static int kernel_item(const void *ctx, size_t i, int64_t *key, int64_t *val) {
  const kscan *s = ctx;
  const dla_kern *k = &s->c->k[i];
  if (!dla__kern_in_aggr(s->c, k)) return 0;
  *key = s->num[k->cfg];
  *val = dla__kern_dur(s->c, k);
  return 1;
}

static void dim3(char *buf, size_t len, const int32_t *v) {
  snprintf(buf, len, "%d, %d, %d", (int)v[0], (int)v[1], (int)v[2]);
}

static void fill_cfg(emit *e, const srow *s, dldb_stats_row *r, char gb[2][48]) {
  const dla_kcfg *k = ((const dla_kcfg *const *)e->ctx)[s->key];
  r->name_id = k->long_id;
  r->short_name_id = k->short_id;
  dim3(gb[0], sizeof gb[0], k->grid);
  dim3(gb[1], sizeof gb[1], k->block);
}

static void fill_kernel(emit *e, const srow *s, dldb_stats_row *r, char gb[2][48]) {
  const dla_kcfg *k = ((const dla_kcfg *const *)e->ctx)[s->a];
  r->short_name_id = k->short_id;
  r->configs = s->b;
  dim3(gb[0], sizeof gb[0], k->grid);
  dim3(gb[1], sizeof gb[1], k->block);
}

/* The commonest configuration of a long name (most instances, then most
 * time, then first seen) and how many it has. */
typedef struct kbest {
  int64_t cfg, n, total, nconf;
} kbest;

typedef struct name_group { /* the configurations of a long name */
  int64_t long_id;
  size_t group;             /* a configuration's group */
} name_group;

static int cmp_name_group(const void *x, const void *y) {
  const name_group *a = x, *b = y;
  if (a->long_id != b->long_id) return (a->long_id > b->long_id) - (a->long_id < b->long_id);
  return (a->group > b->group) - (a->group < b->group);
}

/* The rows by long name: each name's configurations' values together,
 * sorted (the rows are those of its values sorted by (name, value)). */
static int rows_by_name(rows *o, const groups *g, const kscan *s) {
  name_group *ng = malloc((g->ng + 1) * sizeof *ng);
  int64_t *tmp = NULL;
  size_t most = 0, nrows = 0;
  if (!ng) return DL_ENOMEM;
  for (size_t j = 0; j < g->ng; j++) ng[j] = (name_group){s->cfgs[g->key[j]]->long_id, j};
  qsort(ng, g->ng, sizeof *ng, cmp_name_group);
  for (size_t j = 0; j < g->ng;) { /* the largest name's values */
    size_t k = j, n = 0;
    for (; k < g->ng && ng[k].long_id == ng[j].long_id; k++)
      n += g->first[ng[k].group + 1] - g->first[ng[k].group];
    if (n > most) most = n;
    nrows++;
    j = k;
  }
  int rc = (tmp = malloc((most + 1) * sizeof *tmp)) ? DL_OK : DL_ENOMEM;
  if (rc == DL_OK && o->n + nrows > o->cap) {
    srow *v = realloc(o->v, (o->n + nrows) * sizeof *v);
    if (v) {
      o->v = v;
      o->cap = o->n + nrows;
    } else {
      rc = DL_ENOMEM;
    }
  }
  for (size_t j = 0; rc == DL_OK && j < g->ng;) {
    size_t k = j, n = 0;
    for (; k < g->ng && ng[k].long_id == ng[j].long_id; k++) {
      size_t b = g->first[ng[k].group], m = g->first[ng[k].group + 1] - b;
      memcpy(tmp + n, g->val + b, m * sizeof *tmp);
      n += m;
    }
    if (k - j > 1) dla__sort_keys(tmp, n);
    o->v[o->n++] = (srow){.key = ng[j].long_id, .t = stat_vals(tmp, 1, n)};
    j = k;
  }
  free(tmp);
  free(ng);
  return rc;
}

static int kernel_stats(emit *e, rows *o) {
  dla_ctx *c = e->c;
  kscan s = {0};
  groups g = {0};
  dl_map names;
  dl_map_init(&names);
  kbest *best = NULL;
  size_t nbest = 0;
  /* by configuration */
  int rc = scan_configs(c, &s);
  if (rc == DL_OK) rc = groups_make(&g, c->nk, kernel_item, &s);
  if (rc == DL_OK) rc = rows_from_groups(o, &g);
  if (rc == DL_OK && !(best = malloc((o->n + 1) * sizeof *best))) rc = DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < o->n; i++) { /* configurations in first-seen order */
    const srow *x = &o->v[i];
    uint64_t lid = (uint64_t)s.cfgs[x->key]->long_id;
    int64_t b = dl_map_get(&names, lid);
    if (b < 0) {
      b = (int64_t)nbest++;
      best[b] = (kbest){.cfg = -1};
      if (dl_map_put(&names, lid, b)) rc = DL_ENOMEM;
    }
    kbest *k = &best[b];
    k->nconf++;
    if (k->cfg < 0 || x->t.n > k->n || (x->t.n == k->n && x->t.total > k->total))
      *k = (kbest){x->key, x->t.n, x->t.total, k->nconf};
  }
  e->kind = DLDB_STATS_KERNEL_CONFIG;
  e->fill = fill_cfg;
  e->ctx = s.cfgs;
  if (rc == DL_OK) rc = emit_rows(e, o);
  /* by long name */
  if (rc == DL_OK) rc = rows_by_name(o, &g, &s);
  groups_free(&g);
  for (size_t i = 0; rc == DL_OK && i < o->n; i++) {
    const kbest *k = &best[dl_map_get(&names, (uint64_t)o->v[i].key)];
    o->v[i].a = k->cfg;
    o->v[i].b = k->nconf;
  }
  e->kind = DLDB_STATS_KERNEL;
  e->fill = fill_kernel;
  if (rc == DL_OK) rc = emit_rows(e, o);
  e->ctx = NULL;
  free(best);
  free(s.cfgs);
  free(s.num);
  dl_map_free(&names);
  return rc;
}

/* ---- Memory operations ---------------------------------------------------- */

/* nsys's operation names: "[CUDA memcpy <ENUM_CUDA_MEMCPY_OPER label>]". */
static const char *const COPY_KIND[] = {
    "[CUDA memcpy Unknown]",          "[CUDA memcpy Host-to-Device]",
    "[CUDA memcpy Device-to-Host]",   "[CUDA memcpy Host-to-Array]",
    "[CUDA memcpy Array-to-Host]",    "[CUDA memcpy Array-to-Array]",
    "[CUDA memcpy Array-to-Device]",  "[CUDA memcpy Device-to-Array]",
    "[CUDA memcpy Device-to-Device]", "[CUDA memcpy Host-to-Host]",
    "[CUDA memcpy Peer-to-Peer]",     "[CUDA memcpy Unified Host-to-Device]",
    "[CUDA memcpy Unified Device-to-Host]", "[CUDA memcpy Unified Device-to-Device]"};
#define NCOPY ((int64_t)(sizeof COPY_KIND / sizeof COPY_KIND[0]))
#define MEMSET_KEY (NCOPY + 1) /* NCOPY: a copy kind we do not know */

static int64_t mem_key(const dla_mem *m) {
  if (m->kind == 2) return MEMSET_KEY;
  return m->copy_kind >= 0 && m->copy_kind < NCOPY ? m->copy_kind : NCOPY;
}

static void fill_mem(emit *e, const srow *s, dldb_stats_row *r, char gb[2][48]) {
  (void)gb;
  const dldb_stat *bytes = e->ctx;
  r->name_id = 0;
  r->label = s->key == MEMSET_KEY ? "[CUDA memset]" : s->key < NCOPY ? COPY_KIND[s->key] : "[CUDA memcpy Other]";
  r->b = bytes[s->key];
}

static int mem_stats(emit *e, rows *o, pair *p) {
  dla_ctx *c = e->c;
  dldb_stat bytes[MEMSET_KEY + 1];
  memset(bytes, 0, sizeof bytes);
  size_t n = 0;
  for (size_t i = 0; i < c->nm; i++)
    if (dla__in_aggr(c, c->m[i].iter)) p[n++] = (pair){mem_key(&c->m[i]), c->m[i].bytes};
  sort_pairs(p, n);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && p[j].key == p[i].key) j++;
    bytes[p[i].key] = stat_of(p + i, j - i);
    i = j;
  }
  n = 0;
  for (size_t i = 0; i < c->nm; i++)
    if (dla__in_aggr(c, c->m[i].iter)) p[n++] = (pair){mem_key(&c->m[i]), c->m[i].end - c->m[i].start};
  sort_pairs(p, n);
  e->kind = DLDB_STATS_MEMORY;
  e->fill = fill_mem;
  e->ctx = bytes;
  int rc = rows_from_runs(o, p, n);
  if (rc == DL_OK) rc = emit_rows(e, o);
  e->ctx = NULL;
  return rc;
}

/* ---- OS runtime calls ------------------------------------------------------ */

typedef struct oscan {
  const dla_ctx *c;
  pair *p;
  size_t n, cap;
} oscan;

static int load_osrt(void *ctx, const dldb_scan_osrt *r) {
  oscan *s = ctx;
  if (!dla__in_window(s->c, r->start_ns)) return 0;
  if (s->n == s->cap) {
    size_t ncap = s->cap ? s->cap * 2 : 1024;
    pair *p = realloc(s->p, ncap * sizeof *p);
    if (!p) return DL_ENOMEM;
    s->p = p;
    s->cap = ncap;
  }
  s->p[s->n++] = (pair){r->name_id, r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0};
  return 0;
}

static int osrt_stats(emit *e, rows *o) {
  oscan s = {.c = e->c};
  int rc = dldb_scan_osrt_calls(e->c->w, load_osrt, &s, e->c->err, e->c->errlen);
  if (rc == DL_OK) {
    sort_pairs(s.p, s.n);
    e->kind = DLDB_STATS_OSRT;
    e->fill = fill_name;
    rc = rows_from_runs(o, s.p, s.n);
    if (rc == DL_OK) rc = emit_rows(e, o);
  }
  free(s.p);
  return rc;
}

/* ---- NVTX ranges and their GPU projection ---------------------------------- */

/* key = name id * 2 + 1 for start/end ranges */
static int64_t range_key(const dla_range *r) {
  return (int64_t)r->name_id * 2 + (r->style == DLDB_NVTX_STARTEND);
}

static void fill_range(emit *e, const srow *s, dldb_stats_row *r, char gb[2][48]) {
  (void)e, (void)gb;
  r->name_id = s->key >> 1;
  r->label = s->key & 1 ? "StartEnd" : "PushPop";
  if (r->kind == DLDB_STATS_NVTX_GPU_PROJ) {
    r->range_time = s->a;
    r->gpu_ops = s->b;
    r->level_sum = s->x;
    r->child_sum = s->y;
  }
}

/* A range's projection (24 bytes: one per range): its GPU ops' first start
 * and last end while they are projected (lo, hi); then (nvtx_stats) the
 * projected time and the range's own duration, all the NVTX tables read of
 * the range besides its pair and its nesting, so that c->r can go. ops <
 * 2^31: c->k and c->m are indexed in int32. */
typedef struct proj {
  union {
    struct { int64_t lo, hi; };
    struct { int64_t gpu, dur; };
  };
  int32_t ops, parent;
} proj;

/* What table 2's rows read of a range's projection once its pairs are made
 * (20 bytes: the projections shrink to these, in place). */
typedef struct __attribute__((packed, aligned(4))) pjsum {
  int64_t dur;
  int32_t ops, level, children;
} pjsum;
_Static_assert(sizeof(pjsum) == 20, "pjsum: 20 bytes");

/* Shrinks the projections pj[0..n-1] to their sums, in place: sum i is
 * written at or before projection i's place, after it is read; a range's
 * parent comes before it, so its sum is there to count its children and
 * give its level. */
static pjsum *proj_sums(proj *pj, size_t n) {
  pjsum *out = (pjsum *)(void *)pj;
  for (size_t i = 0; i < n; i++) {
    int32_t parent = pj[i].parent;
    pjsum x = {.dur = pj[i].dur, .ops = pj[i].ops};
    if (parent >= 0) {
      pjsum up;
      memcpy(&up, &out[parent], sizeof up);
      x.level = up.level + 1;
      up.children++;
      memcpy(&out[parent], &up, sizeof up);
    }
    memcpy(&out[i], &x, sizeof x);
  }
  pjsum *p = realloc(out, (n ? n : 1) * sizeof *out); /* the tail back */
  return p ? p : out;
}

static void project(proj *pj, int32_t range, int64_t start, int64_t end) {
  for (int32_t x = range; x >= 0; x = pj[x].parent) {
    if (start < pj[x].lo) pj[x].lo = start;
    if (end > pj[x].hi) pj[x].hi = end;
    pj[x].ops++;
  }
}

static int counted(const dla_ctx *c, size_t i) {
  return c->r[i].style != DLDB_NVTX_MARK && dla__in_window(c, c->r[i].start);
}

/* The GPU projection's sums of a run's ranges (e->ctx: the pjsums). */
static void run_sums(const emit *e, const npair *p, const run *u, srow *s) {
  const pjsum *pj = e->ctx;
  int64_t x = 0, y = 0;
  for (int32_t i = 0; i < u->n; i++) {
    int64_t ri = u->n == 1 ? u->first : p[u->first + i].range;
    s->a += pj[ri].dur;
    s->b += pj[ri].ops;
    x += pj[ri].level;
    y += pj[ri].children;
  }
  s->x = x;
  s->y = y;
}

/* The GPU projection of every range: kernels (ks[0..nk-1]) and memory ops. */
struct dla_nvtx_proj {
  proj *pj;    /* then (nvtx_stats), once table 2's pairs are made: */
  pjsum *sum;  /* the same memory, shrunk */
  uint32_t *key[2]; /* once written: the keys of the rows of tables 1 and 2 */
  int64_t nkey[2];
  void *mem;   /* memory for the pairs (NULL: none) */
};

static int nvtx_project(dla_ctx *c, const dla_kspan *ks, size_t nk, proj **out) {
  *out = NULL;
  if (!c->nr) return DL_OK;
  /* nesting on each thread: ranges are sorted by (thread, start, outer
   * first), so a range's parent is the first of the chain of the range
   * before it (marks aside) that has not ended before it starts */
  proj *pj = malloc(c->nr * sizeof *pj);
  dl_advise_huge(pj, c->nr * sizeof *pj);
  if (!pj) return DL_ENOMEM;
  int32_t last = -1;
  for (size_t i = 0; i < c->nr; i++) {
    const dla_range *r = &c->r[i];
    pj[i] = (proj){.lo = INT64_MAX, .hi = INT64_MIN, .parent = -1};
    if (i && dla__range_tk(c, &c->r[i - 1]) != dla__range_tk(c, r)) last = -1;
    if (r->style == DLDB_NVTX_MARK) continue;
    int32_t x = last;
    while (x >= 0 && c->r[x].end < r->start) x = pj[x].parent;
    pj[i].parent = x;
    last = (int32_t)i;
  }
  /* GPU work goes to the innermost range of its launching call and to
   * every range around that one */
  for (size_t i = 0; i < nk; i++) {
    dla_kspan k;
    memcpy(&k, &ks[i], sizeof k);
    if (k.range >= 0) project(pj, k.range, k.start, k.end);
  }
  for (size_t i = 0; i < c->nm; i++)
    if (c->m[i].range >= 0) project(pj, c->m[i].range, c->m[i].start, c->m[i].end);
  *out = pj;
  return DL_OK;
}

/* Table 2 (the projection by name) from the sorted pairs p[0..n-1] of
 * table 1: a run per name with ranges that have GPU ops, and for runs of
 * more than one range their pairs (key, projected time, range), in key
 * order (each run's pairs together, at the same place once sorted). The
 * runs go in mem (resized; freed on failure). */
typedef struct gpu_table {
  npair *p;
  run *v;
  size_t np, nv;
} gpu_table;

static int gpu_runs(const npair *p, size_t n, const proj *pj, void *mem, gpu_table *t) {
  size_t nv = 0, np = 0;
  for (size_t i = 0; i < n;) { /* sizes first: both arrays exact */
    size_t j = i, m = 0;
    for (; j < n && p[j].key == p[i].key; j++) m += pj[p[j].range].ops > 0;
    nv += m > 0;
    np += m > 1 ? m : 0;
    i = j;
  }
  run *v = realloc(mem, (nv + 1) * sizeof *v);
  if (!v) free(mem);
  t->v = v;
  t->p = malloc((np + 1) * sizeof *t->p);
  dl_advise_huge(t->v, (nv + 1) * sizeof *t->v);
  dl_advise_huge(t->p, (np + 1) * sizeof *t->p);
  if (!t->v || !t->p) return DL_ENOMEM;
  for (size_t i = 0; i < n;) {
    size_t j = i, m = 0;
    int64_t total = 0, last = -1;
    for (; j < n && p[j].key == p[i].key; j++) {
      const proj *x = &pj[p[j].range];
      if (x->ops <= 0) continue;
      total += x->gpu;
      last = p[j].range;
      m++;
    }
    if (m == 1) t->v[t->nv++] = (run){.total = total, .key = p[i].key, .first = (int32_t)last, .n = 1};
    if (m > 1) {
      t->v[t->nv++] = (run){.total = total, .key = p[i].key, .first = (int32_t)t->np, .n = (int32_t)m};
      for (size_t k = i; k < j; k++)
        if (pj[p[k].range].ops > 0)
          t->p[t->np++] = (npair){.key = p[k].key, .val = pj[p[k].range].gpu, .range = p[k].range};
    }
    i = j;
  }
  return DL_OK;
}

/* Sorts table 2's pairs (each run's by value) and runs (the rows' order):
 * on a thread of its own while table 1 is written. */
static void *gpu_sort(void *arg) {
  gpu_table *t = arg;
  if (t->np > 1) npair_intro(t->p, t->np, dla__sort_depth(t->np));
  sort_runs(t->v, t->nv);
  return NULL;
}

/* The NVTX tables: durations by name, then the projection by name. Reads
 * c->r, c->nr and x->pj only (c->k and c->a may be gone), makes table 1's
 * pairs in x->mem, takes c->r (the analysis's last use) for table 2's runs
 * once the pairs of both tables are made, and shrinks x->pj to x->sum
 * then. */
static int nvtx_stats(emit *e, dla_nvtx_proj *x) {
  dla_ctx *c = e->c;
  proj *pj = x->pj;
  size_t n = 0, nrun = 0, nr = c->nr;
  run *v = NULL;
  gpu_table t = {0};
  pthread_t th;
  int started = 0;
  npair *p = realloc(x->mem, (nr + 1) * sizeof *p);
  if (!p) return DL_ENOMEM; /* x->mem goes with x */
  x->mem = NULL;
  dl_advise_huge(p, (nr + 1) * sizeof *p);
  for (size_t i = 0; i < nr; i++) {
    const dla_range *r = &c->r[i];
    if (counted(c, i))
      p[n++] = (npair){.key = (uint32_t)range_key(r), .val = r->end - r->start,
                       .range = (int32_t)i};
    int64_t gpu = pj[i].ops > 0 ? pj[i].hi - pj[i].lo : 0;
    pj[i].dur = r->end - r->start; /* lo and hi become gpu and dur */
    pj[i].gpu = gpu;
  }
  void *ranges = c->r; /* table 2's runs go in their memory */
  c->r = NULL;
  c->nr = 0;
  if (n > 1) npair_intro(p, n, dla__sort_depth(n));
  int rc = gpu_runs(p, n, pj, ranges, &t);
  if (rc == DL_OK) { /* what table 2 reads besides its pairs: 12 bytes a range less */
    x->sum = proj_sums(pj, nr);
    x->pj = pj = NULL;
  }
  if (rc == DL_OK) started = pthread_create(&th, NULL, gpu_sort, &t) == 0;
  if (rc == DL_OK && !started) gpu_sort(&t); /* no thread: in turn */
  if (rc == DL_OK) rc = runs_of(p, n, &v, &nrun);
  if (rc == DL_OK) {
    sort_runs(v, nrun);
    e->kind = DLDB_STATS_NVTX;
    e->fill = fill_range;
    e->keys = &x->key[0];
    x->nkey[0] = (int64_t)nrun;
    rc = emit_runs(e, p, v, nrun);
    v = NULL;
  }
  if (started) pthread_join(th, NULL);
  free(p);
  if (rc == DL_OK) {
    e->kind = DLDB_STATS_NVTX_GPU_PROJ;
    e->ctx = x->sum;
    e->keys = &x->key[1];
    x->nkey[1] = (int64_t)t.nv;
    rc = emit_runs(e, t.p, t.v, t.nv);
    t.v = NULL;
  }
  free(v);
  free(t.v);
  free(t.p);
  return rc;
}

/* ---- Entry points ------------------------------------------------------------ */

int dla__stats_write(dla_ctx *c, int64_t aggr_id) {
  if (!dldb_stats_has_tables(c->w)) return DL_OK; /* a dldb written before the statistics tables */
  pair *p = malloc((c->nm + 1) * sizeof *p); /* the memory ops' */
  rows o = {0};
  emit e = {.c = c, .aggr_id = aggr_id};
  int rc = p ? DL_OK : DL_ENOMEM;
  if (rc == DL_OK) rc = api_stats(&e, &o);
  if (rc == DL_OK) rc = kernel_stats(&e, &o);
  if (rc == DL_OK) rc = mem_stats(&e, &o, p);
  if (rc == DL_OK) rc = osrt_stats(&e, &o);
  free(p);
  free(o.v);
  return rc;
}

int dla__stats_project(dla_ctx *c, const dla_kspan *ks, size_t nk, dla_nvtx_proj **nvtx) {
  *nvtx = NULL;
  if (!dldb_stats_has_tables(c->w)) return DL_OK;
  dla_nvtx_proj *x = calloc(1, sizeof *x);
  int rc = x ? nvtx_project(c, ks, nk, &x->pj) : DL_ENOMEM;
  if (rc == DL_OK) *nvtx = x;
  else dla__stats_nvtx_free(&x);
  return rc;
}

/* The NVTX tables' rows are computed on a second thread (sorting millions
 * of ranges and runs, their statistics) while this one writes them. */
typedef struct nvtx_job {
  emit e;
  dla_nvtx_proj *x;
} nvtx_job;

static int nvtx_produce(void *ctx, dl_pipe *p) {
  nvtx_job *j = ctx;
  j->e.pipe = p;
  return nvtx_stats(&j->e, j->x);
}

static int nvtx_consume(void *ctx, void *batch, size_t n) {
  const nvtx_job *j = ctx;
  dla_ctx *c = j->e.c;
  return dldb_aggr_stats(c->w, j->e.aggr_id, batch, n, c->err, c->errlen);
}

int dla__stats_write_nvtx(dla_ctx *c, int64_t aggr_id, void *mem, dla_nvtx_proj **nvtx) {
  int rc = DL_OK;
  if (!*nvtx) free(mem); /* no statistics tables */
  if (*nvtx) {
    (*nvtx)->mem = mem;
    nvtx_job j = {.e = {.c = c, .aggr_id = aggr_id}, .x = *nvtx};
    rc = dldb_aggr_nvtx_rows_begin(c->w, c->err, c->errlen);
    if (rc == DL_OK) rc = dl_pipe_run(PIPE_BATCH_BYTES, 4, nvtx_produce, &j, nvtx_consume, &j);
    if (rc == DL_OK) rc = dldb_aggr_nvtx_rows_end(c->w, c->err, c->errlen);
    dla_nvtx_proj *x = *nvtx;
    free(x->sum); /* the projection is written: its memory back first */
    x->sum = NULL;
    if (rc == DL_OK && x->key[0])
      rc = dla__nvtx_order_start(c, x->key, x->nkey, c->nvtx_order_budget, &c->nvtx_order);
  }
  dla__stats_nvtx_free(nvtx);
  return rc;
}

void dla__stats_nvtx_free(dla_nvtx_proj **nvtx) {
  if (!*nvtx) return;
  free((*nvtx)->pj);
  free((*nvtx)->mem);
  free((*nvtx)->sum);
  free((*nvtx)->key[0]);
  free((*nvtx)->key[1]);
  free(*nvtx);
  *nvtx = NULL;
}
