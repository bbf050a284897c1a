/* dldb_stats.c - the statistics tables of issue 8 (see dldb_stats.h). */
#include "dldb_stats.h"

#include <stdlib.h>

#include "dldb_write_internal.h"

struct dldb_osrt_writer {
  dldb_writer *w;
  sqlite3_stmt *st;
};

static int sqlerr(dldb_writer *w, char *err, size_t errlen, const char *fn) {
  return dl_err(err, errlen, DL_EDB, "%s: %s", fn, sqlite3_errmsg(w->db));
}

static int has_table(dldb_writer *w, const char *name) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(w->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1,
                         &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return found;
}

int dldb_stats_has_tables(dldb_writer *w) {
  return has_table(w, "aggr_stats") && has_table(w, "aggr_stats_api_ops");
}

/* ---- OS runtime calls ------------------------------------------------------ */

int dldb_osrt_writer_open(dldb_writer *w, dldb_osrt_writer **out, char *err, size_t errlen) {
  *out = NULL;
  if (w->existing)
    return dl_err(err, errlen, DL_EINVAL,
                  "dldb_osrt_writer_open: raw records cannot be added to an existing dldb");
  if (!has_table(w, "osrt_calls"))
    return dl_err(err, errlen, DL_ENOTFOUND, "dldb_osrt_writer_open: no osrt_calls table");
  dldb_osrt_writer *o = calloc(1, sizeof *o);
  if (!o) return dl_err(err, errlen, DL_ENOMEM, "dldb_osrt_writer_open: out of memory");
  o->w = w;
  if (sqlite3_prepare_v3(w->db,
                         "INSERT INTO osrt_calls(name_id, start_ns, end_ns, pid, tid, "
                         "return_value, nesting) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                         -1, SQLITE_PREPARE_PERSISTENT, &o->st, NULL) != SQLITE_OK) {
    int rc = sqlerr(w, err, errlen, "dldb_osrt_writer_open");
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
  sqlite3_bind_int64(o->st, 2, c->start_ns - w->origin);
  sqlite3_bind_int64(o->st, 3, c->end_ns - w->origin);
  sqlite3_bind_int64(o->st, 4, c->pid);
  sqlite3_bind_int64(o->st, 5, c->tid);
  sqlite3_bind_int64(o->st, 6, c->return_value);
  sqlite3_bind_int(o->st, 7, c->nesting);
  if (sqlite3_step(o->st) != SQLITE_DONE) return sqlerr(w, err, errlen, fn);
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
  if (!has_table(w, "osrt_calls")) return DL_OK;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT name_id, start_ns, end_ns, pid, tid FROM osrt_calls ORDER BY id",
                         -1, &st, NULL) != SQLITE_OK)
    return sqlerr(w, err, errlen, name);
  int rc = DL_OK, s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_scan_osrt r = {.name_id = sqlite3_column_int64(st, 0),
                        .start_ns = sqlite3_column_int64(st, 1),
                        .end_ns = sqlite3_column_int64(st, 2),
                        .pid = sqlite3_column_int64(st, 3),
                        .tid = sqlite3_column_int64(st, 4)};
    if ((rc = fn(ctx, &r)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = sqlerr(w, err, errlen, name);
  sqlite3_finalize(st);
  return rc;
}

int dldb_scan_kernel_launches(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_launch *r),
                              void *ctx, char *err, size_t errlen) {
  static const char *name = "dldb_scan_kernel_launches";
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT id, long_name_id, grid_x, grid_y, grid_z, block_x, block_y, "
                         "block_z FROM kernels ORDER BY id",
                         -1, &st, NULL) != SQLITE_OK)
    return sqlerr(w, err, errlen, name);
  int rc = DL_OK, s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_scan_launch r = {.kernel_id = sqlite3_column_int64(st, 0),
                          .long_name_id = sqlite3_column_int64(st, 1)};
    for (int i = 0; i < 3; i++) {
      r.grid[i] = sqlite3_column_int(st, 2 + i);
      r.block[i] = sqlite3_column_int(st, 5 + i);
    }
    if ((rc = fn(ctx, &r)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = sqlerr(w, err, errlen, name);
  sqlite3_finalize(st);
  return rc;
}

/* ---- Derived rows --------------------------------------------------------- */

static void bind_text(sqlite3_stmt *st, int i, const char *s) {
  sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_STATIC);
}

/* Kinds 1-5 (and, in a schema 1 file, 6-7) in aggr_stats. */
static const char STATS_INSERT[] =
    "INSERT INTO aggr_stats(aggr_id, kind, row_idx, name_id, label, short_name_id, grid, block, "
    "configs, instances, total, avg, med, min, max, stddev, time_pct, bytes_total, bytes_avg, "
    "bytes_med, bytes_min, bytes_max, bytes_stddev, range_time, gpu_ops, avg_level, avg_children) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
    "?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)";
/* Kinds 6-7 in aggr_nvtx_stats (schema 2). */
static const char NVTX_INSERT[] =
    "INSERT INTO aggr_nvtx_stats(aggr_id, kind, row_idx, name_id, style, instances, total, avg, "
    "med, min, max, stddev, time_pct, range_time, gpu_ops, avg_level, avg_children) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";

static int is_nvtx(int kind) { return kind == DLDB_STATS_NVTX || kind == DLDB_STATS_NVTX_GPU_PROJ; }

/* Binds row x as STATS_INSERT's values. */
static void bind_stats(sqlite3_stmt *st, int64_t aggr_id, const dldb_stats_row *x) {
  sqlite3_bind_int64(st, 1, aggr_id);
  sqlite3_bind_int(st, 2, x->kind);
  sqlite3_bind_int64(st, 3, x->row_idx);
  sqlite3_bind_int64(st, 4, x->name_id);
  bind_text(st, 5, x->label);
  sqlite3_bind_int64(st, 6, x->short_name_id);
  bind_text(st, 7, x->grid);
  bind_text(st, 8, x->block);
  sqlite3_bind_int64(st, 9, x->configs);
  sqlite3_bind_int64(st, 10, x->t.n);
  sqlite3_bind_int64(st, 11, x->t.total);
  sqlite3_bind_double(st, 12, x->t.avg);
  sqlite3_bind_double(st, 13, x->t.med);
  sqlite3_bind_int64(st, 14, x->t.min);
  sqlite3_bind_int64(st, 15, x->t.max);
  sqlite3_bind_double(st, 16, x->t.stddev);
  sqlite3_bind_double(st, 17, x->time_pct);
  sqlite3_bind_int64(st, 18, x->b.total);
  sqlite3_bind_double(st, 19, x->b.avg);
  sqlite3_bind_double(st, 20, x->b.med);
  sqlite3_bind_int64(st, 21, x->b.min);
  sqlite3_bind_int64(st, 22, x->b.max);
  sqlite3_bind_double(st, 23, x->b.stddev);
  sqlite3_bind_int64(st, 24, x->range_time);
  sqlite3_bind_int64(st, 25, x->gpu_ops);
  sqlite3_bind_double(st, 26, x->avg_level);
  sqlite3_bind_double(st, 27, x->avg_children);
}

/* Binds row x (kind 6 or 7) as NVTX_INSERT's values. */
static void bind_nvtx(sqlite3_stmt *st, int64_t aggr_id, const dldb_stats_row *x) {
  sqlite3_bind_int64(st, 1, aggr_id);
  sqlite3_bind_int(st, 2, x->kind);
  sqlite3_bind_int64(st, 3, x->row_idx);
  sqlite3_bind_int64(st, 4, x->name_id);
  bind_text(st, 5, x->label);
  sqlite3_bind_int64(st, 6, x->t.n);
  sqlite3_bind_int64(st, 7, x->t.total);
  sqlite3_bind_double(st, 8, x->t.avg);
  sqlite3_bind_double(st, 9, x->t.med);
  sqlite3_bind_int64(st, 10, x->t.min);
  sqlite3_bind_int64(st, 11, x->t.max);
  sqlite3_bind_double(st, 12, x->t.stddev);
  sqlite3_bind_double(st, 13, x->time_pct);
  sqlite3_bind_int64(st, 14, x->range_time);
  sqlite3_bind_int64(st, 15, x->gpu_ops);
  sqlite3_bind_double(st, 16, x->avg_level);
  sqlite3_bind_double(st, 17, x->avg_children);
}

/* Steps a bound insert; SQLITE_DONE or the error code. */
static int step_reset(sqlite3_stmt *st) {
  int s = sqlite3_step(st);
  sqlite3_reset(st);
  return s;
}

int dldb_aggr_stats(dldb_writer *w, int64_t aggr_id, const dldb_stats_row *r, size_t n,
                    char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_stats";
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  sqlite3_stmt *st = NULL, *nv = NULL;
  int rc = DL_OK, nvtx_table = -1;
  for (size_t i = 0; i < n && rc == DL_OK; i++) {
    if (is_nvtx(r[i].kind) && nvtx_table < 0) nvtx_table = has_table(w, "aggr_nvtx_stats");
    sqlite3_stmt **use = is_nvtx(r[i].kind) && nvtx_table ? &nv : &st;
    if (!*use && sqlite3_prepare_v2(w->db, use == &nv ? NVTX_INSERT : STATS_INSERT, -1, use,
                                    NULL) != SQLITE_OK) {
      rc = sqlerr(w, err, errlen, fn);
      break;
    }
    if (use == &nv) bind_nvtx(nv, aggr_id, &r[i]);
    else bind_stats(st, aggr_id, &r[i]);
    if (step_reset(*use) != SQLITE_DONE) rc = sqlerr(w, err, errlen, fn);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(nv);
  return rc;
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
    return sqlerr(w, err, errlen, fn);
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
      rc = sqlerr(w, err, errlen, fn);
      break;
    }
  }
  sqlite3_finalize(st);
  return rc;
}
