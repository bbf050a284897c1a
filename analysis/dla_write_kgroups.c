/*
 * dla_write_kgroups.c - the kernel groups, launch sequence and marks of an
 * aggregation from its launches in memory (dla_write_kgroups.h).
 *
 * The rows are those of db/dldb_kgroups.c's pass over the written launches
 * in the order of the index aggr_kernels_by_time (api_start_ns, then the
 * primary key's iter_value and kernel_id; a launch's iteration follows from
 * its start, and kernel ids ascend with the kernels' indexes, as
 * dla__durs_fit checks): the same key (op, short name, device, grid, block,
 * tensor-core use), the same numbering. The launches are sorted in place:
 * in launch order, to number the groups and place the marks, then by
 * group, so that the sequence rows go to SQLite in key order, then each
 * group by duration (db/dldb_kgdurs.c's order: duration, then place in
 * launch order), for its duration order.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_map.h"
#include "dla_introsort.h"
#include "dla_write_kgroups.h"
#include "dldb_write_kgroups.h"

typedef struct kgroup {
  int32_t op, cfg;    /* a launch configuration of the group's class */
  uint32_t num;       /* the group's number from 1 in launch order, 0: not yet */
  uint32_t first;     /* its first launch's kernel index */
  int64_t calls;
} kgroup;

struct dla_kgroups {
  const dla_ctx *c;
  int32_t *cls;  /* c->kcfg index -> its class: what a group shares of it */
  dl_map by_key; /* (op, class) -> index in g */
  kgroup *g;
  size_t n, cap;
  uint64_t last_key; /* the last look-up, as launches of one group come in runs */
  uint32_t last;
  int oom;
};

/* ---- Classes of launch configurations ----------------------------------- */

/* Whether two configurations are of one class: all but the long name. */
static int same_class(const dla_kcfg *a, const dla_kcfg *b) {
  return a->short_id == b->short_id && a->device == b->device && a->tc == b->tc &&
         !memcmp(a->grid, b->grid, sizeof a->grid) && !memcmp(a->block, b->block, sizeof a->block);
}

static uint64_t class_hash(const dla_kcfg *k) {
  uint64_t h = 1469598103934665603ull;
  const int32_t v[] = {k->short_id, k->device, k->tc,       k->grid[0], k->grid[1],
                       k->grid[2],  k->block[0], k->block[1], k->block[2]};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) h = (h ^ (uint32_t)v[i]) * 1099511628211ull;
  return h;
}

/* cls[i] for every configuration: the first configuration of its class. */
static int make_classes(dla_kgroups *g) {
  const dla_ctx *c = g->c;
  dl_map m;
  dl_map_init(&m);
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < c->nkcfg; i++) {
    uint64_t h = class_hash(&c->kcfg[i]);
    int64_t v;
    while ((v = dl_map_get(&m, h)) >= 0 && !same_class(&c->kcfg[v], &c->kcfg[i]))
      h = h * 0x9E3779B97F4A7C15ull + 1; /* another class with that hash */
    if (v < 0 && dl_map_put(&m, h, (int64_t)i)) rc = DL_ENOMEM;
    g->cls[i] = v < 0 ? (int32_t)i : (int32_t)v;
  }
  dl_map_free(&m);
  return rc;
}

dla_kgroups *dla__kgroups_new(const dla_ctx *c) {
  dla_kgroups *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->c = c;
  g->last_key = UINT64_MAX;
  dl_map_init(&g->by_key);
  g->cls = malloc((c->nkcfg ? c->nkcfg : 1) * sizeof *g->cls);
  if (!g->cls || make_classes(g)) {
    dla__kgroups_free(g);
    return NULL;
  }
  return g;
}

void dla__kgroups_free(dla_kgroups *g) {
  if (!g) return;
  dl_map_free(&g->by_key);
  free(g->cls);
  free(g->g);
  free(g);
}

uint32_t dla__kgroups_of(dla_kgroups *g, int32_t op, int32_t cfg) {
  uint64_t key = (uint64_t)(uint32_t)op << 32 | (uint32_t)g->cls[cfg];
  if (key == g->last_key) return g->last;
  int64_t v = dl_map_get(&g->by_key, key);
  if (v < 0) {
    if (g->n == g->cap) {
      size_t cap = g->cap ? g->cap * 2 : 256;
      kgroup *p = realloc(g->g, cap * sizeof *p);
      if (!p) {
        g->oom = 1;
        return 0;
      }
      g->g = p;
      g->cap = cap;
    }
    if (g->n >= UINT32_MAX || dl_map_put(&g->by_key, key, (int64_t)g->n)) {
      g->oom = 1;
      return 0;
    }
    g->g[g->n] = (kgroup){.op = op, .cfg = cfg};
    v = (int64_t)g->n++;
  }
  g->last_key = key;
  return g->last = (uint32_t)v;
}

/* ---- Orders ------------------------------------------------------------- */

static inline int launch_lt(const dla_kdur *a, const dla_kdur *b) {
  if (a->start != b->start) return a->start < b->start;
  return a->idx < b->idx;
}
INTROSORT(launch_sort, dla_kdur, launch_lt)

static inline int group_lt(const dla_kdur *a, const dla_kdur *b) {
  if (a->grp != b->grp) return a->grp < b->grp;
  return launch_lt(a, b);
}
INTROSORT(group_sort, dla_kdur, group_lt)

/* A group's launches, each one's grp holding its place in launch order. */
static inline int dur_lt(const dla_kdur *a, const dla_kdur *b) {
  if (a->dur != b->dur) return a->dur < b->dur;
  return a->grp < b->grp;
}
INTROSORT(dur_sort, dla_kdur, dur_lt)

/* A launch of DLA_LONG: its full duration and place in launch order. */
typedef struct klong {
  int64_t dur;
  uint32_t seq;
} klong;

static inline int klong_lt(const klong *a, const klong *b) {
  if (a->dur != b->dur) return a->dur < b->dur;
  return a->seq < b->seq;
}
INTROSORT(klong_sort, klong, klong_lt)

/* Sorts v unless it is in that order already (launches mostly are). */
static void launch_order(dla_kdur *v, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (launch_lt(&v[i], &v[i - 1])) {
      launch_sort(v, n, dla__sort_depth(n));
      return;
    }
}

static int64_t kernel_id(const dla_ctx *c, uint32_t idx) {
  return c->kid ? c->kid[idx] : c->kid0 + (int64_t)idx;
}

/* ---- Rows --------------------------------------------------------------- */

/* In launch order: numbers the groups, counts their launches, writes the
 * marks; each launch's grp becomes its group's number less 1. */
static int number_groups(dla_ctx *c, dla_kgroups *g, dla_kdur *v, size_t n, int64_t aggr_id,
                         uint32_t *order) {
  uint32_t ng = 0;
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    kgroup *k = &g->g[v[i].grp];
    if (!k->num) {
      k->num = ++ng;
      k->first = v[i].idx;
      order[ng - 1] = v[i].grp;
    }
    k->calls++;
    v[i].grp = k->num - 1;
    if (i % DLDB_KGROUP_MARK_EVERY == 0)
      rc = dldb_aggr_kernel_mark(c->w, aggr_id, (int64_t)i, v[i].start, c->err, c->errlen);
  }
  return rc;
}

static int write_groups(dla_ctx *c, const dla_kgroups *g, const uint32_t *order,
                        int64_t aggr_id) {
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < g->n; i++) {
    const kgroup *k = &g->g[order[i]];
    rc = dldb_aggr_kernel_group(c->w, aggr_id, (int64_t)i + 1, k->op, kernel_id(c, k->first),
                                c->kcfg[k->cfg].tc, k->calls, c->err, c->errlen);
  }
  return rc;
}

/* The m launches of DLA_LONG at the end of a group sorted by dur_lt (v),
 * by their full durations (ks), written from place dseq on. */
static int write_long(dla_ctx *c, const dla_kdur *v, size_t m, const dla_kspan *ks,
                      int64_t aggr_id, int64_t group_id, int64_t dseq) {
  klong *l = malloc(m * sizeof *l);
  if (!l) return dl_err(c->err, c->errlen, DL_ENOMEM, "dla_aggregate: out of memory");
  for (size_t i = 0; i < m; i++) {
    dla_kspan s;
    memcpy(&s, &ks[v[i].idx], sizeof s);
    l[i] = (klong){.dur = s.end - s.start, .seq = v[i].grp};
  }
  klong_sort(l, m, dla__sort_depth(m));
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < m; i++)
    rc = dldb_aggr_kernel_dseq(c->w, aggr_id, group_id, dseq + (int64_t)i, l[i].dur, l[i].seq,
                               c->err, c->errlen);
  free(l);
  return rc;
}

/* One group's launches v[0..n-1], in launch order, in duration order: each
 * one's grp becomes its place in launch order, then v is sorted. */
static int write_dseq(dla_ctx *c, dla_kdur *v, size_t n, const dla_kspan *ks, int64_t aggr_id,
                      int64_t group_id) {
  for (size_t i = 0; i < n; i++) v[i].grp = (uint32_t)i;
  dur_sort(v, n, dla__sort_depth(n));
  size_t i = 0;
  int rc = DL_OK;
  for (; rc == DL_OK && i < n && v[i].dur != DLA_LONG; i++)
    rc = dldb_aggr_kernel_dseq(c->w, aggr_id, group_id, (int64_t)i, v[i].dur, v[i].grp, c->err,
                               c->errlen);
  if (rc == DL_OK && i < n) rc = write_long(c, v + i, n - i, ks, aggr_id, group_id, (int64_t)i);
  return rc;
}

/* v by group, then launch order: each launch's place in its group; then,
 * where the file takes them (dseq), each group's duration order. */
static int write_seq(dla_ctx *c, dla_kdur *v, size_t n, const dla_kspan *ks, int64_t aggr_id,
                     int dseq) {
  group_sort(v, n, dla__sort_depth(n));
  int32_t hint = 0;
  int rc = DL_OK;
  for (size_t lo = 0, hi; rc == DL_OK && lo < n; lo = hi) {
    int64_t group_id = (int64_t)v[lo].grp + 1;
    for (hi = lo; rc == DL_OK && hi < n && v[hi].grp == v[lo].grp; hi++)
      rc = dldb_aggr_kernel_seq(c->w, aggr_id, group_id, (int64_t)(hi - lo),
                                dla__iter_near(c, v[hi].start, &hint), kernel_id(c, v[hi].idx),
                                c->err, c->errlen);
    if (rc == DL_OK && dseq) rc = write_dseq(c, v + lo, hi - lo, ks, aggr_id, group_id);
  }
  return rc;
}

int dla__kgroups_write(dla_ctx *c, dla_kgroups *g, dla_kdur *v, size_t n, const dla_kspan *ks,
                       int64_t aggr_id) {
  uint32_t *order = g->oom ? NULL : malloc((g->n ? g->n : 1) * sizeof *order);
  if (!order) return dl_err(c->err, c->errlen, DL_ENOMEM, "dla_aggregate: out of memory");
  launch_order(v, n);
  int rc = number_groups(c, g, v, n, aggr_id, order);
  if (rc == DL_OK) rc = write_groups(c, g, order, aggr_id);
  free(order);
  if (rc == DL_OK) rc = write_seq(c, v, n, ks, aggr_id, dldb_aggr_kernel_dseq_begin(c->w));
  return rc;
}
