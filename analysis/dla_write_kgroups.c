/*
 * dla_write_kgroups.c - the kernel groups, launch sequence and marks of an
 * aggregation from its launches in memory (dla_write_kgroups.h).
 *
 * The rows are those of db/dldb_kgroups.c's pass over the written launches
 * in the order of the index aggr_kernels_by_time (api_start_ns, then the
 * primary key's iter_value and kernel_id; a launch's iteration follows from
 * its start, and kernel ids ascend with the kernels' indexes, as
 * dla__durs_fit checks): the same key (op, short name, device, grid, block,
 * tensor-core use), the same numbering. The launches are sorted in place
 * in launch order, to number the groups and place the marks; each group's
 * places are then listed in that order (a counting sort by group, 4 bytes a
 * launch), so that the sequence rows go to SQLite in key order. A group's
 * duration order (db/dldb_kgdurs.c's: duration, then place in launch
 * order) is a sort of 8-byte keys, on a second thread while the group's
 * sequence rows are written.
 */
#include <pthread.h>
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

/* A launch's duration key within its group: duration, then place in the
 * group's launch order (distinct, so the order is total). */
static inline int key_lt(const uint64_t *a, const uint64_t *b) { return *a < *b; }
INTROSORT(key_sort, uint64_t, key_lt)

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

/* In launch order: numbers the groups (*ng of them), counts their
 * launches, writes the marks; each launch's grp becomes its group's number
 * less 1. */
static int number_groups(dla_ctx *c, dla_kgroups *g, dla_kdur *v, size_t n, int64_t aggr_id,
                         uint32_t *order, uint32_t *ng_out) {
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
  *ng_out = ng;
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

/* The places of each group's launches in launch order: pos[at[k] ..
 * at[k + 1] - 1] are group k's (v by group number, in launch order). */
typedef struct places {
  uint32_t *pos, *at;
} places;

static int places_of(const dla_kdur *v, size_t n, uint32_t ng, places *p) {
  p->pos = malloc((n ? n : 1) * sizeof *p->pos);
  p->at = calloc((size_t)ng + 2, sizeof *p->at);
  if (!p->pos || !p->at) return DL_ENOMEM;
  for (size_t i = 0; i < n; i++) p->at[v[i].grp + 2]++;
  for (uint32_t k = 2; k <= ng; k++) p->at[k] += p->at[k - 1];
  for (size_t i = 0; i < n; i++) p->pos[p->at[v[i].grp + 1]++] = (uint32_t)i;
  return DL_OK;
}

/* The m launches of DLA_LONG at the end of a group's keys (key), by their
 * full durations (ks), written from place dseq on; pos: the group's
 * launches in launch order. */
static int write_long(dla_ctx *c, const uint64_t *key, size_t m, const dla_kdur *v,
                      const uint32_t *pos, const dla_kspan *ks, int64_t aggr_id,
                      int64_t group_id, int64_t dseq) {
  klong *l = malloc(m * sizeof *l);
  if (!l) return dl_err(c->err, c->errlen, DL_ENOMEM, "dla_aggregate: out of memory");
  for (size_t i = 0; i < m; i++) {
    uint32_t place = (uint32_t)key[i];
    dla_kspan s;
    memcpy(&s, &ks[v[pos[place]].idx], sizeof s);
    l[i] = (klong){.dur = s.end - s.start, .seq = place};
  }
  klong_sort(l, m, dla__sort_depth(m));
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < m; i++)
    rc = dldb_aggr_kernel_dseq(c->w, aggr_id, group_id, dseq + (int64_t)i, l[i].dur, l[i].seq,
                               c->err, c->errlen);
  free(l);
  return rc;
}

/* A group's duration keys, sorted on a thread of their own. */
typedef struct key_job {
  uint64_t *key;
  size_t n;
} key_job;

static void *key_main(void *arg) {
  key_job *j = arg;
  key_sort(j->key, j->n, dla__sort_depth(j->n));
  return NULL;
}

/* Groups of fewer launches sort on the writing thread: a thread costs more
 * (c->kgroup_thread_min overrides it). */
enum { KEYS_ON_THREAD = 1 << 16 };

/* One group: its launches v[pos[0..m-1]] in launch order. Its sequence
 * rows, then (key: room for m keys, NULL: the file takes no duration order)
 * its duration order, sorted meanwhile. */
static int write_group(dla_ctx *c, const dla_kdur *v, const uint32_t *pos, size_t m,
                       uint64_t *key, const dla_kspan *ks, int64_t aggr_id, int64_t group_id) {
  key_job job = {.key = key, .n = m};
  pthread_t th;
  int started = 0;
  if (key) {
    for (size_t i = 0; i < m; i++) key[i] = (uint64_t)v[pos[i]].dur << 32 | (uint32_t)i;
    size_t least = c->kgroup_thread_min ? c->kgroup_thread_min : KEYS_ON_THREAD;
    started = m >= least && pthread_create(&th, NULL, key_main, &job) == 0;
  }
  int32_t hint = 0;
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < m; i++) {
    const dla_kdur *x = &v[pos[i]];
    rc = dldb_aggr_kernel_seq(c->w, aggr_id, group_id, (int64_t)i,
                              dla__iter_near(c, x->start, &hint), kernel_id(c, x->idx), c->err,
                              c->errlen);
  }
  if (started) pthread_join(th, NULL);
  else if (key) key_main(&job);
  if (!key) return rc;
  size_t i = 0;
  for (; rc == DL_OK && i < m && key[i] >> 32 != DLA_LONG; i++)
    rc = dldb_aggr_kernel_dseq(c->w, aggr_id, group_id, (int64_t)i, (int64_t)(key[i] >> 32),
                               (uint32_t)key[i], c->err, c->errlen);
  if (rc == DL_OK && i < m)
    rc = write_long(c, key + i, m - i, v, pos, ks, aggr_id, group_id, (int64_t)i);
  return rc;
}

/* Each group's launches in launch order: their places in the group; then,
 * where the file takes them (dseq), each group's duration order. */
static int write_seq(dla_ctx *c, const dla_kdur *v, size_t n, uint32_t ng, const dla_kspan *ks,
                     int64_t aggr_id, int dseq) {
  places p = {0};
  uint64_t *key = NULL;
  int rc = places_of(v, n, ng, &p);
  if (rc == DL_OK && dseq) {
    size_t most = 1;
    for (uint32_t k = 0; k < ng; k++)
      if (p.at[k + 1] - p.at[k] > most) most = p.at[k + 1] - p.at[k];
    if (!(key = malloc(most * sizeof *key))) rc = DL_ENOMEM;
  }
  if (rc == DL_ENOMEM) rc = dl_err(c->err, c->errlen, DL_ENOMEM, "dla_aggregate: out of memory");
  for (uint32_t k = 0; rc == DL_OK && k < ng; k++)
    rc = write_group(c, v, p.pos + p.at[k], p.at[k + 1] - p.at[k], key, ks, aggr_id,
                     (int64_t)k + 1);
  free(key);
  free(p.pos);
  free(p.at);
  return rc;
}

int dla__kgroups_number(dla_ctx *c, dla_kgroups *g, dla_kdur *v, size_t n, int64_t aggr_id,
                        uint32_t *ng) {
  uint32_t *order = g->oom ? NULL : malloc((g->n ? g->n : 1) * sizeof *order);
  if (!order) return dl_err(c->err, c->errlen, DL_ENOMEM, "dla_aggregate: out of memory");
  launch_order(v, n);
  *ng = 0;
  int rc = number_groups(c, g, v, n, aggr_id, order, ng);
  if (rc == DL_OK) rc = write_groups(c, g, order, aggr_id);
  free(order);
  return rc;
}

int dla__kgroups_write(dla_ctx *c, const dla_kdur *v, size_t n, uint32_t ng, const dla_kspan *ks,
                       int64_t aggr_id) {
  return write_seq(c, v, n, ng, ks, aggr_id, dldb_aggr_kernel_dseq_begin(c->w));
}
