/*
 * dldb_kgroups.c - the kernel lists' groups and launch-order marks of an
 * aggregation (aggr_dl_kernel_groups, aggr_dl_kernel_seq_chunks,
 * aggr_dl_kernel_marks; db/schema.sql), written at its end from its
 * written aggr_kernels rows, where the file has the tables.
 *
 * One pass over the aggregation's launches in launch order (the index
 * aggr_kernels_by_time, no sort): a hash of each launch's group key (op,
 * kernel name, device, grid, block, tensor-core use) finds its group, whose
 * count so far is the launch's place in it; every 1024th launch leaves a
 * mark. The pass keeps each launch's group and key (24 bytes a launch);
 * after it the groups are written, then each group's launches in turn, so
 * that the chunks go in in key order.
 *
 * A caller that computed the rows itself writes them through
 * dldb_write_kgroups.h instead (the calls at the end of this
 * file), and the pass is skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_map.h"
#include "dldb_write_internal.h"
#include "dldb_write_kgroups.h"

enum { KG_KEYS = 10, KG_MARK_EVERY = DLDB_KGROUP_MARK_EVERY };

typedef struct kgroup {
  int64_t key[KG_KEYS];
  int64_t kernel_id; /* the first launch */
  int64_t calls;
  int64_t next; /* the next group of the same hash, or -1 */
} kgroup;

typedef struct kgroups {
  kgroup *g;
  size_t n, cap;
  dl_map by_hash; /* hash of the key -> the first group with it */
} kgroups;

/* The launches in launch order: the key's columns (0-9), then iter_value,
 * kernel_id, api_start_ns. */
static const char KG_SCAN[] =
    "SELECT ak.op_idx, k.short_name_id, k.device_id, k.grid_x, k.grid_y, k.grid_z, k.block_x, "
    "k.block_y, k.block_z, ak.uses_tc, ak.iter_value, ak.kernel_id, ak.api_start_ns "
    "FROM aggr_kernels ak JOIN kernels k ON k.id = ak.kernel_id "
    "WHERE ak.aggr_id = ?1 AND ak.aggr_id > -1 ORDER BY ak.api_start_ns";
static const char KG_MARK[] =
    "INSERT INTO aggr_dl_kernel_marks(aggr_id, place, api_start_ns) VALUES (?1, ?2, ?3)";
static const char KG_GROUP[] =
    "INSERT INTO aggr_dl_kernel_groups(aggr_id, group_id, op_idx, kernel_id, uses_tc, calls) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

static uint64_t key_hash(const int64_t *key) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < KG_KEYS; i++) h = (h ^ (uint64_t)key[i]) * 1099511628211ull;
  return h;
}

/* The index of key's group, added (with kernel_id) if new; -1: no memory. */
static int64_t group_of(kgroups *gs, const int64_t *key, int64_t kernel_id) {
  uint64_t h = key_hash(key);
  int64_t first = dl_map_get(&gs->by_hash, h);
  for (int64_t i = first; i >= 0; i = gs->g[i].next)
    if (memcmp(gs->g[i].key, key, sizeof gs->g[i].key) == 0) return i;
  if (gs->n == gs->cap) {
    size_t cap = gs->cap ? gs->cap * 2 : 256;
    kgroup *ng = realloc(gs->g, cap * sizeof *ng);
    if (!ng) return -1;
    gs->g = ng;
    gs->cap = cap;
  }
  kgroup *g = &gs->g[gs->n];
  memcpy(g->key, key, sizeof g->key);
  g->kernel_id = kernel_id;
  g->calls = 0;
  g->next = first;
  if (dl_map_put(&gs->by_hash, h, (int64_t)gs->n)) return -1;
  return (int64_t)gs->n++;
}

static int step_insert(sqlite3_stmt *st) {
  int src = sqlite3_step(st);
  sqlite3_reset(st);
  return src == SQLITE_DONE ? SQLITE_OK : src;
}

/* No memory for a group (not an SQLite code). */
enum { KG_NOMEM = -1 };

/* A launch as the pass saw it: its group (index into kgroups.g) and key. */
typedef struct kg_launch {
  int64_t group, iter_value, kernel_id;
} kg_launch;

typedef struct kg_launches {
  kg_launch *v;
  size_t n, cap;
} kg_launches;

/* The pass over the launches: marks, groups counted in gs, each launch
 * kept in l. SQLITE_OK, an SQLite error code, or KG_NOMEM. */
static int kg_pass(sqlite3_stmt *scan, sqlite3_stmt *mark, int64_t aggr_id, kgroups *gs,
                   kg_launches *l) {
  int src;
  int64_t place = 0, key[KG_KEYS];
  sqlite3_bind_int64(mark, 1, aggr_id);
  while ((src = sqlite3_step(scan)) == SQLITE_ROW) {
    for (int i = 0; i < KG_KEYS; i++) key[i] = sqlite3_column_int64(scan, i);
    int64_t kid = sqlite3_column_int64(scan, 11);
    int64_t gi = group_of(gs, key, kid);
    if (gi < 0) return KG_NOMEM;
    gs->g[gi].calls++;
    if (l->n == l->cap) {
      size_t cap = l->cap ? l->cap * 2 : 1024;
      kg_launch *nv = realloc(l->v, cap * sizeof *nv);
      if (!nv) return KG_NOMEM;
      l->v = nv;
      l->cap = cap;
    }
    l->v[l->n++] = (kg_launch){gi, sqlite3_column_int64(scan, 10), kid};
    if (place % KG_MARK_EVERY == 0) {
      sqlite3_bind_int64(mark, 2, place);
      sqlite3_bind_int64(mark, 3, sqlite3_column_int64(scan, 12));
      if ((src = step_insert(mark)) != SQLITE_OK) return src;
    }
    place++;
  }
  return src == SQLITE_DONE ? SQLITE_OK : src;
}

/* Each group's launches in launch order (a counting sort of the pass's
 * launches by group), as chunks. DL_OK or a DL_E* with err set. */
static int kg_seq(dldb_writer *w, const kgroups *gs, const kg_launches *l, char *err,
                  size_t errlen) {
  size_t *at = calloc(gs->n + 1, sizeof *at);
  uint32_t *pos = malloc((l->n ? l->n : 1) * sizeof *pos);
  int rc = at && pos && l->n <= UINT32_MAX ? dldb__pc_begin(w, DLDB__PC_KSEQ, err, errlen)
                                           : DL_ENOMEM;
  if (rc == DL_OK) {
    for (size_t i = 0; i < l->n; i++) at[l->v[i].group + 1]++;
    for (size_t g = 1; g <= gs->n; g++) at[g] += at[g - 1];
    for (size_t i = 0; i < l->n; i++) pos[at[l->v[i].group]++] = (uint32_t)i;
  }
  int64_t seq = 0, group = -1;
  for (size_t k = 0; rc == DL_OK && k < l->n; k++) {
    const kg_launch *x = &l->v[pos[k]];
    seq = x->group == group ? seq + 1 : 0;
    group = x->group;
    rc = dldb__pc_add(w, DLDB__PC_KSEQ, group + 1, seq, x->iter_value, x->kernel_id, err, errlen);
  }
  if (rc == DL_OK) rc = dldb__pc_end(w, DLDB__PC_KSEQ, err, errlen);
  dldb__pc_free(w, DLDB__PC_KSEQ);
  free(at);
  free(pos);
  if (rc == DL_ENOMEM)
    rc = dl_err(err, errlen, DL_ENOMEM, "dldb_aggr_end: kernel groups: out of memory");
  return rc;
}

static int kg_groups(sqlite3_stmt *ins, int64_t aggr_id, const kgroups *gs) {
  sqlite3_bind_int64(ins, 1, aggr_id);
  for (size_t i = 0; i < gs->n; i++) {
    sqlite3_bind_int64(ins, 2, (int64_t)i + 1);
    sqlite3_bind_int64(ins, 3, gs->g[i].key[0]);
    sqlite3_bind_int64(ins, 4, gs->g[i].kernel_id);
    sqlite3_bind_int64(ins, 5, gs->g[i].key[KG_KEYS - 1]);
    sqlite3_bind_int64(ins, 6, gs->g[i].calls);
    int src = step_insert(ins);
    if (src != SQLITE_OK) return src;
  }
  return SQLITE_OK;
}

int dldb__kernel_groups(dldb_writer *w, char *err, size_t errlen) {
  if (w->kgroups_by_caller) return dldb__pc_end(w, DLDB__PC_KSEQ, err, errlen);
  if (!dldb__has_table(w, "aggr_dl_kernel_groups") ||
      !dldb__has_table(w, "aggr_dl_kernel_seq_chunks") ||
      !dldb__has_table(w, "aggr_dl_kernel_marks"))
    return DL_OK;
  sqlite3_stmt *st[3] = {NULL, NULL, NULL};
  const char *sql[3] = {KG_SCAN, KG_MARK, KG_GROUP};
  kgroups gs = {0};
  kg_launches l = {0};
  dl_map_init(&gs.by_hash);
  int src = SQLITE_OK;
  for (int i = 0; i < 3 && src == SQLITE_OK; i++)
    src = sqlite3_prepare_v2(w->db, sql[i], -1, &st[i], NULL);
  if (src == SQLITE_OK) {
    sqlite3_bind_int64(st[0], 1, w->aggr_id);
    src = kg_pass(st[0], st[1], w->aggr_id, &gs, &l);
  }
  if (src == SQLITE_OK) src = kg_groups(st[2], w->aggr_id, &gs);
  int rc = DL_OK;
  if (src == KG_NOMEM)
    rc = dl_err(err, errlen, DL_ENOMEM, "dldb_aggr_end: kernel groups: out of memory");
  else if (src != SQLITE_OK)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: kernel groups: %s", dldb__errmsg(w));
  for (int i = 0; i < 3; i++) sqlite3_finalize(st[i]);
  dl_map_free(&gs.by_hash);
  if (rc == DL_OK) rc = kg_seq(w, &gs, &l, err, errlen);
  free(gs.g);
  free(l.v);
  return rc;
}

/* ---- Rows the caller computed (dldb_write_kgroups.h) --------------------- */

int dldb_aggr_kernel_groups_begin(dldb_writer *w) {
  if (!w->in_aggr || !dldb__has_table(w, "aggr_dl_kernel_groups") ||
      !dldb__has_table(w, "aggr_dl_kernel_seq_chunks") ||
      !dldb__has_table(w, "aggr_dl_kernel_marks") ||
      dldb__pc_begin(w, DLDB__PC_KSEQ, NULL, 0) != DL_OK)
    return 0;
  w->kgroups_by_caller = 1;
  return 1;
}

static int by_caller(dldb_writer *w, char *err, size_t errlen, const char *fn) {
  if (w->in_aggr && w->kgroups_by_caller) return DL_OK;
  return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
}

int dldb_aggr_kernel_group(dldb_writer *w, int64_t aggr_id, int64_t group_id, int64_t op_idx,
                           int64_t kernel_id, int uses_tc, int64_t calls, char *err,
                           size_t errlen) {
  static const char fn[] = "dldb_aggr_kernel_group";
  int rc = by_caller(w, err, errlen, fn);
  if (rc) return rc;
  const dldb__cell row[] = {DLDB__I(aggr_id),   DLDB__I(group_id), DLDB__I(op_idx),
                            DLDB__I(kernel_id), DLDB__I(uses_tc),  DLDB__I(calls)};
  return dldb__batch_row(w, DLDB__B_KGROUP, row, err, errlen, fn);
}

int dldb_aggr_kernel_seq(dldb_writer *w, int64_t aggr_id, int64_t group_id, int64_t seq,
                         int64_t iter_value, int64_t kernel_id, char *err, size_t errlen) {
  static const char fn[] = "dldb_aggr_kernel_seq";
  int rc = by_caller(w, err, errlen, fn);
  if (rc == DL_OK && aggr_id != w->aggr_id)
    rc = dl_err(err, errlen, DL_EINVAL, "%s: not the open aggregation", fn);
  return rc ? rc : dldb__pc_add(w, DLDB__PC_KSEQ, group_id, seq, iter_value, kernel_id, err,
                                errlen);
}

int dldb_aggr_kernel_mark(dldb_writer *w, int64_t aggr_id, int64_t place, int64_t api_start_ns,
                          char *err, size_t errlen) {
  static const char fn[] = "dldb_aggr_kernel_mark";
  int rc = by_caller(w, err, errlen, fn);
  if (rc) return rc;
  const dldb__cell row[] = {DLDB__I(aggr_id), DLDB__I(place), DLDB__I(api_start_ns)};
  return dldb__batch_row(w, DLDB__B_KMARK, row, err, errlen, fn);
}
