/*
 * dldb_kgdurs.c - each kernel group's launches in duration order
 * (dldb_kgdurs.h; aggr_dl_kernel_dseq_chunks, db/schema.sql).
 *
 * One read of the aggregation's launches by group (the primary key of
 * aggr_dl_kernel_seq_chunks, no sort) with their durations; each group's
 * launches are sorted in memory by duration, then launch order, and
 * written as chunks in key order. Memory: one group's launches at a time,
 * 16 bytes each.
 *
 * A caller that sorted the launches itself writes the rows through
 * dldb_write_kgroups.h instead (the calls at the end of this
 * file), and the pass is skipped.
 */
#include "dldb_kgdurs.h"

#include <stdlib.h>

#include "dldb_write_internal.h"
#include "dldb_write_kgroups.h"

static const char KD_SCAN[] =
    "SELECT q.group_id, q.chunk * 128 + j.key, k.gpu_end_ns - k.gpu_start_ns "
    "FROM aggr_dl_kernel_seq_chunks q CROSS JOIN json_each(q.launches) j "
    "JOIN kernels k ON k.id = j.value ->> 1 WHERE q.aggr_id = ?1 ORDER BY q.group_id";

typedef struct kd_launch {
  int64_t dur_ns;
  int64_t seq;
} kd_launch;

typedef struct kd_group {
  kd_launch *l;
  size_t n, cap;
} kd_group;

static int by_dur(const void *a, const void *b) {
  const kd_launch *x = a, *y = b;
  if (x->dur_ns != y->dur_ns) return x->dur_ns < y->dur_ns ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Sorts group gid's launches and writes them: DL_OK or a DL_E*. */
static int kd_flush(dldb_writer *w, int64_t gid, kd_group *g, char *err, size_t errlen) {
  qsort(g->l, g->n, sizeof *g->l, by_dur);
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < g->n; i++)
    rc = dldb__pc_add(w, DLDB__PC_KDSEQ, gid, (int64_t)i, g->l[i].dur_ns, g->l[i].seq, err,
                      errlen);
  g->n = 0;
  return rc;
}

static int kd_add(kd_group *g, int64_t dur_ns, int64_t seq) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 1024;
    kd_launch *nl = realloc(g->l, cap * sizeof *nl);
    if (!nl) return -1;
    g->l = nl;
    g->cap = cap;
  }
  g->l[g->n++] = (kd_launch){dur_ns, seq};
  return 0;
}

/* The pass: DL_OK or a DL_E* with err set. */
static int kd_pass(dldb_writer *w, sqlite3_stmt *scan, kd_group *g, char *err, size_t errlen) {
  int src, rc = DL_OK;
  int64_t gid = -1;
  sqlite3_bind_int64(scan, 1, w->aggr_id);
  while (rc == DL_OK && (src = sqlite3_step(scan)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(scan, 0);
    if (id != gid && g->n > 0) rc = kd_flush(w, gid, g, err, errlen);
    gid = id;
    if (rc == DL_OK && kd_add(g, sqlite3_column_int64(scan, 2), sqlite3_column_int64(scan, 1)))
      rc = dl_err(err, errlen, DL_ENOMEM,
                  "dldb_aggr_end: kernel durations by group: out of memory");
  }
  if (rc == DL_OK && src != SQLITE_DONE)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: kernel durations by group: %s",
                dldb__errmsg(w));
  if (rc == DL_OK && g->n > 0) rc = kd_flush(w, gid, g, err, errlen);
  return rc;
}

int dldb__kernel_group_durs(dldb_writer *w, char *err, size_t errlen) {
  if (w->kgdurs_by_caller) return dldb__pc_end(w, DLDB__PC_KDSEQ, err, errlen);
  if (!dldb__has_table(w, "aggr_dl_kernel_dseq_chunks") ||
      !dldb__has_table(w, "aggr_dl_kernel_seq_chunks"))
    return DL_OK;
  sqlite3_stmt *scan = NULL;
  kd_group g = {0};
  int rc = dldb__pc_begin(w, DLDB__PC_KDSEQ, err, errlen);
  if (rc == DL_OK && sqlite3_prepare_v2(w->db, KD_SCAN, -1, &scan, NULL) != SQLITE_OK)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: kernel durations by group: %s",
                dldb__errmsg(w));
  if (rc == DL_OK) rc = kd_pass(w, scan, &g, err, errlen);
  if (rc == DL_OK) rc = dldb__pc_end(w, DLDB__PC_KDSEQ, err, errlen);
  dldb__pc_free(w, DLDB__PC_KDSEQ);
  sqlite3_finalize(scan);
  free(g.l);
  return rc;
}

/* ---- Rows the caller sorted (dldb_write_kgroups.h) ---------------------- */

int dldb_aggr_kernel_dseq_begin(dldb_writer *w) {
  if (!w->in_aggr || !w->kgroups_by_caller ||
      !dldb__has_table(w, "aggr_dl_kernel_dseq_chunks") ||
      dldb__pc_begin(w, DLDB__PC_KDSEQ, NULL, 0) != DL_OK)
    return 0;
  w->kgdurs_by_caller = 1;
  return 1;
}

int dldb_aggr_kernel_dseq(dldb_writer *w, int64_t aggr_id, int64_t group_id, int64_t dseq,
                          int64_t gpu_dur_ns, int64_t seq, char *err, size_t errlen) {
  static const char fn[] = "dldb_aggr_kernel_dseq";
  if (!w->in_aggr || !w->kgdurs_by_caller || aggr_id != w->aggr_id)
    return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  return dldb__pc_add(w, DLDB__PC_KDSEQ, group_id, dseq, gpu_dur_ns, seq, err, errlen);
}
