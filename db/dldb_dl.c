/* dldb_dl.c - our own dldb extension tables: the kernel_occupancy raw table
 * (writer: dldb_write.h, scan: dldb_scan.h) and the aggr_dl_* derived rows
 * (dldb_aggr.h). */
#include "dldb_aggr.h"
#include "dldb_scan.h"

#include <math.h>
#include <stdlib.h>

#include "dldb_write_internal.h"

struct dldb_occ_writer {
  dldb_writer *w;
  sqlite3_stmt *st;
};

static void bind_real(sqlite3_stmt *st, int i, double v) {
  if (isnan(v)) sqlite3_bind_null(st, i);
  else sqlite3_bind_double(st, i, v);
}

int dldb__has_table(dldb_writer *w, const char *name) {
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

int dldb_dl_has_tables(dldb_writer *w) { return dldb__has_table(w, "aggr_dl_gpu"); }
int dldb_dl_has_iter_names(dldb_writer *w) { return dldb__has_table(w, "aggr_dl_iter_names"); }
int dldb_dl_has_op_cpu_times(dldb_writer *w) {
  return dldb__has_table(w, "aggr_dl_op_cpu_times");
}

int dldb_occ_writer_open(dldb_writer *w, dldb_occ_writer **out, char *err, size_t errlen) {
  *out = NULL;
  dldb_occ_writer *o = calloc(1, sizeof *o);
  if (!o) return dl_err(err, errlen, DL_ENOMEM, "dldb_occ_writer_open: out of memory");
  o->w = w;
  if (sqlite3_prepare_v3(w->db,
                         "INSERT OR REPLACE INTO kernel_occupancy(kernel_id, blocks_per_sm, "
                         "est_achieved_occupancy) VALUES (?1, ?2, ?3)",
                         -1, SQLITE_PREPARE_PERSISTENT, &o->st, NULL) != SQLITE_OK) {
    int rc = dldb__sqlerr(w, err, errlen, "dldb_occ_writer_open");
    free(o);
    return rc;
  }
  *out = o;
  return DL_OK;
}

int dldb_occ_write(dldb_occ_writer *o, double blocks_per_sm, double est_occupancy_pct,
                   char *err, size_t errlen) {
  if (isnan(blocks_per_sm) && isnan(est_occupancy_pct)) return DL_OK;
  sqlite3_reset(o->st);
  sqlite3_bind_int64(o->st, 1, o->w->kernel_max_id); /* the last kernel written */
  bind_real(o->st, 2, blocks_per_sm);
  bind_real(o->st, 3, est_occupancy_pct);
  if (sqlite3_step(o->st) != SQLITE_DONE) return dldb__sqlerr(o->w, err, errlen, "dldb_occ_write");
  return DL_OK;
}

void dldb_occ_writer_close(dldb_occ_writer **po) {
  if (!po || !*po) return;
  sqlite3_finalize((*po)->st);
  free(*po);
  *po = NULL;
}

static double col_real(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int dldb_scan_kernel_occupancy(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_occ *r),
                               void *ctx, char *err, size_t errlen) {
  if (!dldb__has_table(w, "kernel_occupancy")) return DL_OK;
  sqlite3_stmt *st = NULL;
  int rc = dldb__flush(w, err, errlen, "dldb_scan_kernel_occupancy");
  if (rc) return rc;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT kernel_id, blocks_per_sm, est_achieved_occupancy "
                         "FROM kernel_occupancy ORDER BY kernel_id",
                         -1, &st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, "dldb_scan_kernel_occupancy");
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_scan_occ r = {.kernel_id = sqlite3_column_int64(st, 0),
                       .blocks_per_sm = col_real(st, 1),
                       .est_occupancy_pct = col_real(st, 2)};
    if ((rc = fn(ctx, &r)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, "dldb_scan_kernel_occupancy");
  sqlite3_finalize(st);
  return rc;
}

static int prepare(dldb_writer *w, const char *sql, sqlite3_stmt **st, char *err, size_t errlen,
                   const char *fn) {
  if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) != SQLITE_OK) return dldb__sqlerr(w, err, errlen, fn);
  return DL_OK;
}

static int step(dldb_writer *w, sqlite3_stmt *st, char *err, size_t errlen, const char *fn) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? DL_OK : dldb__sqlerr(w, err, errlen, fn);
}

int dldb_aggr_dl_gpus(dldb_writer *w, int64_t aggr_id, const dldb_dl_gpu_row *r, size_t n,
                      char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_dl_gpus";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w,
                   "INSERT INTO aggr_dl_gpu VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                   "?11, ?12)",
                   &st, err, errlen, fn);
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, r[i].device_id);
    sqlite3_bind_int64(st, 3, r[i].wall_ns);
    sqlite3_bind_int64(st, 4, r[i].computation_ns);
    sqlite3_bind_int64(st, 5, r[i].communication_ns);
    sqlite3_bind_int64(st, 6, r[i].exposed_comm_ns);
    sqlite3_bind_int64(st, 7, r[i].memcpy_ns);
    sqlite3_bind_int64(st, 8, r[i].exposed_memcpy_ns);
    sqlite3_bind_int64(st, 9, r[i].busy_ns);
    sqlite3_bind_int64(st, 10, r[i].kernel_busy_ns);
    bind_real(st, 11, r[i].est_sm_efficiency);
    bind_real(st, 12, r[i].est_achieved_occupancy);
    rc = step(w, st, err, errlen, fn);
  }
  sqlite3_finalize(st);
  return rc;
}

int dldb_aggr_dl_iter_gpus(dldb_writer *w, int64_t aggr_id, const dldb_dl_iter_gpu_row *r,
                           size_t n, char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_dl_iter_gpus";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, "INSERT INTO aggr_dl_iter_gpu VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                   &st, err, errlen, fn);
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, r[i].iter_value);
    sqlite3_bind_int64(st, 3, r[i].device_id);
    sqlite3_bind_int64(st, 4, r[i].duration_ns);
    sqlite3_bind_int64(st, 5, r[i].kernel_busy_ns);
    sqlite3_bind_int64(st, 6, r[i].communication_ns);
    sqlite3_bind_int64(st, 7, r[i].exposed_comm_ns);
    bind_real(st, 8, r[i].est_sm_efficiency);
    bind_real(st, 9, r[i].est_achieved_occupancy);
    rc = step(w, st, err, errlen, fn);
  }
  sqlite3_finalize(st);
  return rc;
}

int dldb_aggr_dl_kernels(dldb_writer *w, int64_t aggr_id, const dldb_dl_kernel_row *r, size_t n,
                         char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_dl_kernels";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, "INSERT INTO aggr_dl_kernels VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                   &st, err, errlen, fn);
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, r[i].kernel_name_id);
    sqlite3_bind_int64(st, 3, r[i].calls);
    sqlite3_bind_int64(st, 4, r[i].gpu_time);
    sqlite3_bind_int(st, 5, r[i].uses_tc);
    sqlite3_bind_int(st, 6, r[i].is_communication);
    bind_real(st, 7, r[i].blocks_per_sm);
    bind_real(st, 8, r[i].est_achieved_occupancy);
    bind_real(st, 9, r[i].est_sm_efficiency);
    rc = step(w, st, err, errlen, fn);
  }
  sqlite3_finalize(st);
  return rc;
}

int dldb_aggr_dl_iter_names(dldb_writer *w, int64_t aggr_id, const int64_t *names, size_t n,
                            char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_dl_iter_names";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, "INSERT INTO aggr_dl_iter_names VALUES (?1, ?2, ?3)", &st, err, errlen, fn);
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    if (names[i] < 0) continue;
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, (int64_t)i);
    sqlite3_bind_int64(st, 3, names[i]);
    rc = step(w, st, err, errlen, fn);
  }
  sqlite3_finalize(st);
  return rc;
}

int dldb_aggr_dl_op_cpu_times(dldb_writer *w, int64_t aggr_id, const dldb_op_cpu_row *r,
                              size_t n, char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_dl_op_cpu_times";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, "INSERT INTO aggr_dl_op_cpu_times VALUES (?1, ?2, ?3, ?4, ?5)", &st, err,
                   errlen, fn);
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, r[i].op_idx);
    sqlite3_bind_int64(st, 3, r[i].calls);
    sqlite3_bind_int64(st, 4, r[i].total_ns);
    sqlite3_bind_int64(st, 5, r[i].self_ns);
    rc = step(w, st, err, errlen, fn);
  }
  sqlite3_finalize(st);
  return rc;
}
