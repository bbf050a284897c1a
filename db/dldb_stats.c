/* dldb_stats.c - the tables behind our nsys-stats-style statistics: the
 * osrt_calls raw table (writer: dldb_write.h, scan: dldb_scan.h) and the
 * aggr_stats / aggr_nvtx_* / aggr_stats_api_ops derived rows (dldb_aggr.h). */
#include "dldb_aggr.h"
#include "dldb_scan.h"

#include <stdlib.h>
#include <string.h>

#include "dl_sqlbuild.h"
#include "dldb_nvtxzones.h"
#include "dldb_write_internal.h"

struct dldb_osrt_writer {
  dldb_writer *w;
  sqlite3_stmt *st;
};

int dldb_stats_has_tables(dldb_writer *w) {
  return dldb__has_table(w, "aggr_stats") && dldb__has_table(w, "aggr_stats_api_ops");
}

/* ---- OS runtime calls ------------------------------------------------------ */

int dldb_osrt_writer_open(dldb_writer *w, dldb_osrt_writer **out, char *err, size_t errlen) {
  *out = NULL;
  if (w->existing)
    return dl_err(err, errlen, DL_EINVAL,
                  "dldb_osrt_writer_open: raw records cannot be added to an existing dldb");
  if (!dldb__has_table(w, "osrt_calls"))
    return dl_err(err, errlen, DL_ENOTFOUND, "dldb_osrt_writer_open: no osrt_calls table");
  dldb_osrt_writer *o = calloc(1, sizeof *o);
  if (!o) return dl_err(err, errlen, DL_ENOMEM, "dldb_osrt_writer_open: out of memory");
  o->w = w;
  if (sqlite3_prepare_v3(w->db,
                         "INSERT INTO osrt_calls(name_id, start_ns, end_ns, pid, tid, "
                         "return_value, nesting) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                         -1, SQLITE_PREPARE_PERSISTENT, &o->st, NULL) != SQLITE_OK) {
    int rc = dldb__sqlerr(w, err, errlen, "dldb_osrt_writer_open");
    free(o);
    return rc;
  }
  *out = o;
  return DL_OK;
}

int dldb_osrt_write(dldb_osrt_writer *o, const dldb_osrt_call *c, char *err, size_t errlen) {
  static const char *fn = "dldb_osrt_write";
  dldb_writer *w = o->w;
  if (w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: an aggregation is open", fn);
  if (w->pending >= w->batch_rows) { /* the writer's batches, as its own raw inserts */
    int rc = dldb__tx_commit(w, err, errlen);
    if (rc) return rc;
  }
  w->pending++;
  int rc = dldb__tx_begin(w, err, errlen);
  if (rc) return rc;
  sqlite3_reset(o->st);
  sqlite3_bind_int64(o->st, 1, c->name_id);
  sqlite3_bind_int64(o->st, 2, dldb__rel(w, c->start_ns));
  sqlite3_bind_int64(o->st, 3, c->end_ns - w->origin);
  sqlite3_bind_int64(o->st, 4, c->pid);
  sqlite3_bind_int64(o->st, 5, c->tid);
  sqlite3_bind_int64(o->st, 6, c->return_value);
  sqlite3_bind_int(o->st, 7, c->nesting);
  if (sqlite3_step(o->st) != SQLITE_DONE) return dldb__sqlerr(w, err, errlen, fn);
  return DL_OK;
}

void dldb_osrt_writer_close(dldb_osrt_writer **po) {
  if (!po || !*po) return;
  sqlite3_finalize((*po)->st);
  free(*po);
  *po = NULL;
}

int dldb_scan_osrt_calls(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_osrt *r),
                         void *ctx, char *err, size_t errlen) {
  static const char *name = "dldb_scan_osrt_calls";
  if (!dldb__has_table(w, "osrt_calls")) return DL_OK;
  sqlite3_stmt *st = NULL;
  int rc = dldb__flush(w, err, errlen, name);
  if (rc) return rc;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT name_id, start_ns, end_ns, pid, tid FROM osrt_calls ORDER BY id",
                         -1, &st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, name);
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_scan_osrt r = {.name_id = sqlite3_column_int64(st, 0),
                        .start_ns = sqlite3_column_int64(st, 1),
                        .end_ns = sqlite3_column_int64(st, 2),
                        .pid = sqlite3_column_int64(st, 3),
                        .tid = sqlite3_column_int64(st, 4)};
    if ((rc = fn(ctx, &r)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, name);
  sqlite3_finalize(st);
  return rc;
}

/* ---- Derived rows --------------------------------------------------------- */

static const char *text_or_empty(const char *s) { return s ? s : ""; }

/* A kind 7 sum's mean over the row's instances (schema 1 and 2 store it;
 * schema 3's views compute it). */
static double per_instance(int64_t sum, const dldb_stats_row *x) {
  return x->t.n ? (double)sum / (double)x->t.n : 0.0;
}

/* Row x as aggr_stats' 27 columns: kinds 1-5 (and, in a schema 1 file,
 * 6-7). */
static void stats_cells(dldb__cell *c, int64_t aggr_id, const dldb_stats_row *x) {
  const dldb__cell v[] = {
      DLDB__I(aggr_id),
      DLDB__I(x->kind),
      DLDB__I(x->row_idx),
      DLDB__I(x->name_id),
      DLDB__T(text_or_empty(x->label), -1),
      DLDB__I(x->short_name_id),
      DLDB__T(text_or_empty(x->grid), -1),
      DLDB__T(text_or_empty(x->block), -1),
      DLDB__I(x->configs),
      DLDB__I(x->t.n),
      DLDB__I(x->t.total),
      DLDB__R(x->t.avg),
      DLDB__R(x->t.med),
      DLDB__I(x->t.min),
      DLDB__I(x->t.max),
      DLDB__R(x->t.stddev),
      DLDB__R(x->time_pct),
      DLDB__I(x->b.total),
      DLDB__R(x->b.avg),
      DLDB__R(x->b.med),
      DLDB__I(x->b.min),
      DLDB__I(x->b.max),
      DLDB__R(x->b.stddev),
      DLDB__I(x->range_time),
      DLDB__I(x->gpu_ops),
      DLDB__R(per_instance(x->level_sum, x)),
      DLDB__R(per_instance(x->child_sum, x)),
  };
  memcpy(c, v, sizeof v);
}

/* Row x (kind 6 or 7) as aggr_nvtx_stats' 17 columns (schema 2). */
static void nvtx_cells(dldb__cell *c, int64_t aggr_id, const dldb_stats_row *x) {
  const dldb__cell v[] = {
      DLDB__I(aggr_id),      DLDB__I(x->kind),       DLDB__I(x->row_idx),
      DLDB__I(x->name_id),   DLDB__T(text_or_empty(x->label), -1),
      DLDB__I(x->t.n),       DLDB__I(x->t.total),    DLDB__R(x->t.avg),
      DLDB__R(x->t.med),     DLDB__I(x->t.min),      DLDB__I(x->t.max),
      DLDB__R(x->t.stddev),  DLDB__R(x->time_pct),   DLDB__I(x->range_time),
      DLDB__I(x->gpu_ops),   DLDB__R(per_instance(x->level_sum, x)),
      DLDB__R(per_instance(x->child_sum, x)),
  };
  memcpy(c, v, sizeof v);
}

/* Row x (kind 6 or 7) as aggr_nvtx_runs' 14 columns (schema 3): what the
 * views cannot derive; NULL where one instance makes it total (or 0). The
 * batch that writes it is returned: a row of one range goes to one that
 * leaves its NULL columns out and has its kind and instances as literals
 * (its cells first in c: aggr_id, row_idx, key, total, then kind 7's
 * sums). */
_Static_assert(DLDB_STATS_NVTX == 6 && DLDB_STATS_NVTX_GPU_PROJ == 7,
               "the literal kinds of DLDB__B_NVTX_ONE and DLDB__B_PROJ_ONE");
static int run_cells(dldb__cell *c, int64_t aggr_id, const dldb_stats_row *x) {
  int one = x->t.n == 1, gpu = x->kind == DLDB_STATS_NVTX_GPU_PROJ;
  int startend = x->label && strcmp(x->label, "StartEnd") == 0;
  if (one) {
    const dldb__cell v[] = {
        DLDB__I(aggr_id),       DLDB__I(x->row_idx),   DLDB__I(x->name_id * 2 + startend),
        DLDB__I(x->t.total),    DLDB__I(x->range_time), DLDB__I(x->gpu_ops),
        DLDB__I(x->level_sum), DLDB__I(x->child_sum),
    };
    memcpy(c, v, sizeof v);
    return gpu ? DLDB__B_PROJ_ONE : DLDB__B_NVTX_ONE;
  }
  const dldb__cell v[] = {
      DLDB__I(aggr_id),
      DLDB__I(x->kind),
      DLDB__I(x->row_idx),
      DLDB__I(x->name_id * 2 + startend),
      DLDB__I(x->t.n),
      DLDB__I(x->t.total),
      DLDB__R(x->t.med),
      DLDB__I(x->t.min),
      DLDB__I(x->t.max),
      DLDB__R(x->t.stddev),
      gpu ? DLDB__I(x->range_time) : DLDB__N,
      gpu ? DLDB__I(x->gpu_ops) : DLDB__N,
      gpu ? DLDB__I(x->level_sum) : DLDB__N,
      gpu ? DLDB__I(x->child_sum) : DLDB__N,
  };
  memcpy(c, v, sizeof v);
  return DLDB__B_NVTX_RUNS;
}

/* Row x (kind 6 or 7) as aggr_nvtx_runs' 14 values, for its page build:
 * what run_cells' batches store (the columns they leave out NULL). */
static void run_vals(dl_sqlpage_val *v, int64_t aggr_id, const dldb_stats_row *x) {
  int one = x->t.n == 1, gpu = x->kind == DLDB_STATS_NVTX_GPU_PROJ;
  int startend = x->label && strcmp(x->label, "StartEnd") == 0;
#define VI(x) ((dl_sqlpage_val){.type = SQLITE_INTEGER, .i = (x)})
#define VR(x) ((dl_sqlpage_val){.type = SQLITE_FLOAT, .d = (x)})
#define VN ((dl_sqlpage_val){.type = SQLITE_NULL})
  const dl_sqlpage_val r[14] = {
      VI(aggr_id),
      VI(x->kind),
      VI(x->row_idx),
      VI(x->name_id * 2 + startend),
      VI(x->t.n),
      VI(x->t.total),
      one ? VN : VR(x->t.med),
      one ? VN : VI(x->t.min),
      one ? VN : VI(x->t.max),
      one ? VN : VR(x->t.stddev),
      gpu ? VI(x->range_time) : VN,
      gpu ? VI(x->gpu_ops) : VN,
      gpu ? VI(x->level_sum) : VN,
      gpu ? VI(x->child_sum) : VN,
  };
#undef VI
#undef VR
#undef VN
  memcpy(v, r, sizeof r);
}

/* The open aggregation's layout of NVTX rows (a look at the schema, once). */
static int nvtx_layout(dldb_writer *w) {
  if (w->nvtx_layout == DLDB__NVTX_UNKNOWN)
    w->nvtx_layout = dldb__has_table(w, "aggr_nvtx_runs")    ? DLDB__NVTX_RUNS
                     : dldb__has_table(w, "aggr_nvtx_stats") ? DLDB__NVTX_STATS
                                                             : DLDB__NVTX_IN_STATS;
  return w->nvtx_layout;
}

static int is_nvtx(int kind) { return kind == DLDB_STATS_NVTX || kind == DLDB_STATS_NVTX_GPU_PROJ; }

int dldb_aggr_stats(dldb_writer *w, int64_t aggr_id, const dldb_stats_row *r, size_t n,
                    char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_stats";
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  int rc = DL_OK;
  dldb__cell c[27];
  for (size_t i = 0; i < n && rc == DL_OK; i++) {
    int layout = is_nvtx(r[i].kind) ? nvtx_layout(w) : DLDB__NVTX_IN_STATS;
    if (layout == DLDB__NVTX_RUNS) {
      if (r[i].t.n < 1)
        return dl_err(err, errlen, DL_EINVAL, "%s: an NVTX row without instances", fn);
      w->nvtx_total[r[i].kind == DLDB_STATS_NVTX_GPU_PROJ] += r[i].t.total;
      w->nvtx_rows[r[i].kind == DLDB_STATS_NVTX_GPU_PROJ]++;
      dldb__zones_add(w, &r[i]);
      if (w->nvtx_bulk) {
        dl_sqlpage_val v[14];
        run_vals(v, aggr_id, &r[i]);
        if ((rc = dl_sqlbuild_row(w->nvtx_bulk, v)) != DL_OK)
          rc = dldb__bulk_err(w, rc, err, errlen, fn, "NVTX rows");
      } else { /* SQLite's cells only where SQLite writes the row */
        rc = dldb__batch_row(w, run_cells(c, aggr_id, &r[i]), c, err, errlen, fn);
      }
    } else if (layout == DLDB__NVTX_STATS) {
      nvtx_cells(c, aggr_id, &r[i]);
      rc = dldb__batch_row(w, DLDB__B_NVTX_STATS, c, err, errlen, fn);
    } else {
      stats_cells(c, aggr_id, &r[i]);
      rc = dldb__batch_row(w, DLDB__B_STATS, c, err, errlen, fn);
    }
  }
  return rc;
}

int dldb_aggr_nvtx_rows_begin(dldb_writer *w, char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_nvtx_rows_begin";
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  if (!dldb__bulk_wanted(w) || nvtx_layout(w) != DLDB__NVTX_RUNS) return DL_OK;
  int rc = dldb__bulk_begin(w, 0, err, errlen, fn);
  if (rc || !w->bulk) return rc;
  dl_sqlbuild_uncached(w->bulk); /* the run does not read them back */
  rc = dl_sqlbuild_add(w->bulk, "aggr_nvtx_runs", 14, &w->nvtx_bulk);
  if (rc == DL_ENOMEM) return dl_err(err, errlen, rc, "%s: out of memory", fn);
  return rc == DL_OK ? DL_OK : dldb__bulk_end(w, 1, err, errlen);
}

int dldb_aggr_nvtx_rows_end(dldb_writer *w, char *err, size_t errlen) {
  return dldb__bulk_end(w, 1, err, errlen);
}

int dldb__nvtx_totals(dldb_writer *w, int64_t aggr_id, char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_end";
  int rc = DL_OK;
  for (int k = 0; k < 2 && rc == DL_OK; k++) {
    if (!w->nvtx_rows[k]) continue;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, "INSERT INTO aggr_nvtx_totals(aggr_id, kind, total) "
                                  "VALUES (?1, ?2, ?3)", -1, &st, NULL) != SQLITE_OK)
      return dldb__sqlerr(w, err, errlen, fn);
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, k ? DLDB_STATS_NVTX_GPU_PROJ : DLDB_STATS_NVTX);
    sqlite3_bind_int64(st, 3, w->nvtx_total[k]);
    if (sqlite3_step(st) != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fn);
    sqlite3_finalize(st);
  }
  return rc ? rc : dldb__zones_put(w, dldb__has_table(w, "aggr_nvtx_zones"), err, errlen);
}

int dldb_aggr_stats_api_ops(dldb_writer *w, int64_t aggr_id, const dldb_stats_api_op_row *r,
                            size_t n, char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_stats_api_ops";
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "INSERT INTO aggr_stats_api_ops(aggr_id, name_id, op_idx, calls, total) "
                         "VALUES (?1, ?2, ?3, ?4, ?5)",
                         -1, &st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  int rc = DL_OK;
  for (size_t i = 0; i < n; i++) {
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, r[i].name_id);
    sqlite3_bind_int64(st, 3, r[i].op_idx);
    sqlite3_bind_int64(st, 4, r[i].calls);
    sqlite3_bind_int64(st, 5, r[i].total);
    int s = sqlite3_step(st);
    sqlite3_reset(st);
    if (s != SQLITE_DONE) {
      rc = dldb__sqlerr(w, err, errlen, fn);
      break;
    }
  }
  sqlite3_finalize(st);
  return rc;
}
