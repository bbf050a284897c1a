/*
 * dldb_kgdurs.c - each kernel group's launches in duration order
 * (dldb_kgdurs.h; aggr_dl_kernel_dseq, db/schema.sql).
 *
 * One read of the aggregation's launches by group and launch order (the
 * primary key of aggr_dl_kernel_seq, no sort) with their durations; each
 * group's launches are sorted in memory by duration, then launch order,
 * and written in key order, so that SQLite appends them. Memory: one
 * group's launches at a time, 16 bytes each.
 *
 * A caller that sorted the launches itself writes the rows through
 * dldb_write_kgroups.h instead (the batched insert at the end of this
 * file), and the pass is skipped.
 */
#include "dldb_kgdurs.h"

#include <stdlib.h>

#include "dldb_write_internal.h"
#include "dldb_write_kgroups.h"

static const char KD_SCAN[] =
    "SELECT q.group_id, q.seq, k.gpu_end_ns - k.gpu_start_ns FROM aggr_dl_kernel_seq q "
    "JOIN kernels k ON k.id = q.kernel_id WHERE q.aggr_id = ?1 ORDER BY q.group_id, q.seq";
static const char KD_INSERT[] =
    "INSERT INTO aggr_dl_kernel_dseq(aggr_id, group_id, dseq, gpu_dur_ns, seq) "
    "VALUES (?1, ?2, ?3, ?4, ?5)";

typedef struct kd_launch {
  int64_t dur_ns;
  int64_t seq;
} kd_launch;

typedef struct kd_group {
  kd_launch *l;
  size_t n, cap;
} kd_group;

enum { KD_NOMEM = -1 }; /* no memory (not an SQLite code) */

static int by_dur(const void *a, const void *b) {
  const kd_launch *x = a, *y = b;
  if (x->dur_ns != y->dur_ns) return x->dur_ns < y->dur_ns ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Sorts group gid's launches and writes them; SQLITE_OK or an error code. */
static int kd_flush(sqlite3_stmt *ins, int64_t gid, kd_group *g) {
  qsort(g->l, g->n, sizeof *g->l, by_dur);
  sqlite3_bind_int64(ins, 2, gid);
  for (size_t i = 0; i < g->n; i++) {
    sqlite3_bind_int64(ins, 3, (int64_t)i);
    sqlite3_bind_int64(ins, 4, g->l[i].dur_ns);
    sqlite3_bind_int64(ins, 5, g->l[i].seq);
    int src = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (src != SQLITE_DONE) return src;
  }
  g->n = 0;
  return SQLITE_OK;
}

static int kd_add(kd_group *g, int64_t dur_ns, int64_t seq) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 1024;
    kd_launch *nl = realloc(g->l, cap * sizeof *nl);
    if (!nl) return KD_NOMEM;
    g->l = nl;
    g->cap = cap;
  }
  g->l[g->n++] = (kd_launch){dur_ns, seq};
  return SQLITE_OK;
}

/* The pass: SQLITE_OK, an SQLite error code, or KD_NOMEM. */
static int kd_pass(sqlite3_stmt *scan, sqlite3_stmt *ins, int64_t aggr_id, kd_group *g) {
  int src;
  int64_t gid = -1;
  sqlite3_bind_int64(scan, 1, aggr_id);
  sqlite3_bind_int64(ins, 1, aggr_id);
  while ((src = sqlite3_step(scan)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(scan, 0);
    if (id != gid && g->n > 0 && (src = kd_flush(ins, gid, g)) != SQLITE_OK) return src;
    gid = id;
    if ((src = kd_add(g, sqlite3_column_int64(scan, 2), sqlite3_column_int64(scan, 1))))
      return src;
  }
  if (src != SQLITE_DONE) return src;
  return g->n > 0 ? kd_flush(ins, gid, g) : SQLITE_OK;
}

int dldb__kernel_group_durs(dldb_writer *w, char *err, size_t errlen) {
  if (w->kgdurs_by_caller || !dldb__has_table(w, "aggr_dl_kernel_dseq") ||
      !dldb__has_table(w, "aggr_dl_kernel_seq"))
    return DL_OK;
  sqlite3_stmt *scan = NULL, *ins = NULL;
  kd_group g = {0};
  int src = sqlite3_prepare_v2(w->db, KD_SCAN, -1, &scan, NULL);
  if (src == SQLITE_OK) src = sqlite3_prepare_v2(w->db, KD_INSERT, -1, &ins, NULL);
  if (src == SQLITE_OK) src = kd_pass(scan, ins, w->aggr_id, &g);
  int rc = DL_OK;
  if (src == KD_NOMEM)
    rc = dl_err(err, errlen, DL_ENOMEM, "dldb_aggr_end: kernel durations by group: out of memory");
  else if (src != SQLITE_OK)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: kernel durations by group: %s",
                sqlite3_errmsg(w->db));
  sqlite3_finalize(scan);
  sqlite3_finalize(ins);
  free(g.l);
  return rc;
}

/* ---- Rows the caller sorted (dldb_write_kgroups.h) ---------------------- */

int dldb_aggr_kernel_dseq_begin(dldb_writer *w) {
  if (!w->in_aggr || !w->kgroups_by_caller || !dldb__has_table(w, "aggr_dl_kernel_dseq"))
    return 0;
  w->kgdurs_by_caller = 1;
  return 1;
}

int dldb_aggr_kernel_dseq(dldb_writer *w, int64_t aggr_id, int64_t group_id, int64_t dseq,
                          int64_t gpu_dur_ns, int64_t seq, char *err, size_t errlen) {
  static const char fn[] = "dldb_aggr_kernel_dseq";
  if (!w->in_aggr || !w->kgdurs_by_caller)
    return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  const dldb__cell row[] = {DLDB__I(aggr_id), DLDB__I(group_id), DLDB__I(dseq),
                            DLDB__I(gpu_dur_ns), DLDB__I(seq)};
  return dldb__batch_row(w, DLDB__B_KDSEQ, row, err, errlen, fn);
}
