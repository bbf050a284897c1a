/* dldb_merge_src.c - summary-only ranks of a merged file (dldb_merge_src.h). */
#include "dldb_merge_src.h"

#include "dldb_write_internal.h"

/* Prepares sql after flushing the writer; DL_OK with *st NULL when the file
 * lacks dl_rank_sources. */
static int prepare(dldb_writer *w, const char *sql, sqlite3_stmt **st, char *err, size_t errlen,
                   const char *fn) {
  *st = NULL;
  if (!dldb__has_table(w, "dl_rank_sources")) return DL_OK;
  int rc = dldb__flush(w, err, errlen, fn);
  if (rc) return rc;
  return sqlite3_prepare_v2(w->db, sql, -1, st, NULL) == SQLITE_OK ? DL_OK
                                                                   : dldb__sqlerr(w, err, errlen, fn);
}

int dldb_scan_rank_sources(dldb_writer *w, int (*fn)(void *ctx, const dldb_dl_rank_row *r),
                           void *ctx, char *err, size_t errlen) {
  static const char *name = "dldb_scan_rank_sources";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w,
                   "SELECT rank, device_id, iterations, iter_avg_ns, wall_ns, computation_ns, "
                   "communication_ns, exposed_comm_ns, idle_ns, dataloader_ns "
                   "FROM dl_rank_sources WHERE detail = 0 ORDER BY device_id",
                   &st, err, errlen, name);
  if (rc || !st) return rc;
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t v[10];
    for (int i = 0; i < 10; i++) v[i] = sqlite3_column_int64(st, i);
    dldb_dl_rank_row r = {.rank = (int32_t)v[0], .device_id = (int32_t)v[1], .iterations = v[2],
                          .iter_avg_ns = v[3], .wall_ns = v[4], .computation_ns = v[5],
                          .communication_ns = v[6], .exposed_comm_ns = v[7], .idle_ns = v[8],
                          .dataloader_ns = v[9]};
    if ((rc = fn(ctx, &r)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, name);
  sqlite3_finalize(st);
  return rc;
}

int dldb_scan_rank_source_events(dldb_writer *w, int (*fn)(void *ctx, const dldb_src_event *e),
                                 void *ctx, char *err, size_t errlen) {
  static const char *name = "dldb_scan_rank_source_events";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w,
                   "SELECT e.device_id, e.kernel_name_id, e.start_ns + m.origin_ns - "
                   "ifnull((SELECT CAST(value AS INTEGER) FROM dl_meta "
                   "WHERE key = 'time_origin_ns'), 0), e.dur_ns, ifnull(e.bytes, -1), "
                   "ifnull(e.group_size, -1), e.collective FROM dl_rank_source_events e "
                   "JOIN dl_rank_sources m ON m.device_id = e.device_id WHERE m.detail = 0 "
                   "ORDER BY e.rowid",
                   &st, err, errlen, name);
  if (rc || !st) return rc;
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_src_event e = {.device_id = sqlite3_column_int(st, 0),
                        .kernel_name_id = sqlite3_column_int64(st, 1),
                        .start_ns = sqlite3_column_int64(st, 2),
                        .dur_ns = sqlite3_column_int64(st, 3),
                        .bytes = sqlite3_column_int64(st, 4),
                        .group_size = sqlite3_column_int(st, 5),
                        .collective = (const char *)sqlite3_column_text(st, 6)};
    if ((rc = fn(ctx, &e)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, name);
  sqlite3_finalize(st);
  return rc;
}

int dldb_aggr_rank_source_iters(dldb_writer *w, int64_t aggr_id, char *err, size_t errlen) {
  static const char *name = "dldb_aggr_rank_source_iters";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w,
                   "INSERT OR REPLACE INTO aggr_dl_iter_gpu(aggr_id, iter_value, device_id, "
                   "duration_ns, kernel_busy_ns, communication_ns, exposed_comm_ns) "
                   "SELECT ?1, i.iter_value, i.device_id, i.duration_ns, i.kernel_busy_ns, "
                   "i.communication_ns, i.exposed_comm_ns FROM dl_rank_source_iters i "
                   "JOIN dl_rank_sources m ON m.device_id = i.device_id WHERE m.detail = 0",
                   &st, err, errlen, name);
  if (rc || !st) return rc;
  sqlite3_bind_int64(st, 1, aggr_id);
  rc = sqlite3_step(st) == SQLITE_DONE ? DL_OK : dldb__sqlerr(w, err, errlen, name);
  sqlite3_finalize(st);
  return rc;
}
