/* dldb_ranks.c - the ranks tables (dldb_ranks.h): dl_gpu_ranks, written
 * with the raw records and scanned by the analysis, and the derived
 * aggr_dl_ranks and aggr_dl_collectives rows. */
#include "dldb_ranks.h"

#include "dldb_write_internal.h"

static int sqlerr(dldb_writer *w, char *err, size_t errlen, const char *fn) {
  return dl_err(err, errlen, DL_EDB, "%s: %s", fn, sqlite3_errmsg(w->db));
}

int dldb_write_gpu_rank(dldb_writer *w, const dldb_gpu_rank *r, char *err, size_t errlen) {
  static const char *fn = "dldb_write_gpu_rank";
  if (!dldb__has_table(w, "dl_gpu_ranks")) return DL_OK;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, "INSERT OR REPLACE INTO dl_gpu_ranks VALUES (?1, ?2, ?3, ?4, ?5)",
                         -1, &st, NULL) != SQLITE_OK)
    return sqlerr(w, err, errlen, fn);
  sqlite3_bind_int(st, 1, r->device_id);
  sqlite3_bind_int(st, 2, r->rank);
  sqlite3_bind_int(st, 3, r->local_device);
  dldb__bind_text(st, 4, r->host);
  sqlite3_bind_int(st, 5, r->world_size);
  int rc = sqlite3_step(st) == SQLITE_DONE ? DL_OK : sqlerr(w, err, errlen, fn);
  sqlite3_finalize(st);
  return rc;
}

int dldb_scan_gpu_ranks(dldb_writer *w, int (*fn)(void *ctx, const dldb_gpu_rank *r), void *ctx,
                        char *err, size_t errlen) {
  static const char *name = "dldb_scan_gpu_ranks";
  if (!dldb__has_table(w, "dl_gpu_ranks")) return DL_OK;
  int rc = dldb__flush(w, err, errlen, name);
  if (rc) return rc;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT device_id, rank, local_device, host, world_size "
                         "FROM dl_gpu_ranks ORDER BY device_id",
                         -1, &st, NULL) != SQLITE_OK)
    return sqlerr(w, err, errlen, name);
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_gpu_rank r = {.device_id = sqlite3_column_int(st, 0), .rank = sqlite3_column_int(st, 1),
                       .local_device = sqlite3_column_int(st, 2),
                       .host = (const char *)sqlite3_column_text(st, 3),
                       .world_size = sqlite3_column_int(st, 4)};
    if ((rc = fn(ctx, &r)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = sqlerr(w, err, errlen, name);
  sqlite3_finalize(st);
  return rc;
}

int dldb_ranks_has_tables(dldb_writer *w) {
  return dldb__has_table(w, "aggr_dl_ranks") && dldb__has_table(w, "aggr_dl_collectives");
}

int dldb_aggr_dl_ranks(dldb_writer *w, int64_t aggr_id, const dldb_dl_rank_row *r, size_t n,
                       char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_dl_ranks";
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "INSERT INTO aggr_dl_ranks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                         "?10, ?11, ?12)",
                         -1, &st, NULL) != SQLITE_OK)
    return sqlerr(w, err, errlen, fn);
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    const int64_t v[] = {aggr_id,          r[i].rank,           r[i].device_id,
                         r[i].iterations,  r[i].iter_avg_ns,    r[i].wall_ns,
                         r[i].computation_ns, r[i].communication_ns, r[i].exposed_comm_ns,
                         r[i].idle_ns,     r[i].dataloader_ns,  r[i].wait_ns};
    for (int j = 0; j < (int)(sizeof v / sizeof v[0]); j++) sqlite3_bind_int64(st, j + 1, v[j]);
    if (sqlite3_step(st) != SQLITE_DONE) rc = sqlerr(w, err, errlen, fn);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

int dldb_aggr_dl_collectives(dldb_writer *w, int64_t aggr_id, const dldb_dl_collective_row *r,
                             size_t n, char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_dl_collectives";
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "INSERT INTO aggr_dl_collectives VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                         "?9, ?10, ?11, ?12)",
                         -1, &st, NULL) != SQLITE_OK)
    return sqlerr(w, err, errlen, fn);
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    const int64_t v[] = {aggr_id,        r[i].kernel_name_id, r[i].ranks,     r[i].instances,
                         r[i].time_ns,   r[i].avg_ns,         r[i].skew_avg_ns, r[i].skew_max_ns,
                         r[i].last_rank, r[i].last_rank_count, r[i].transfer_ns};
    for (int j = 0; j < (int)(sizeof v / sizeof v[0]); j++) sqlite3_bind_int64(st, j + 1, v[j]);
    if (r[i].bytes >= 0) sqlite3_bind_int64(st, 12, r[i].bytes);
    else sqlite3_bind_null(st, 12);
    if (sqlite3_step(st) != SQLITE_DONE) rc = sqlerr(w, err, errlen, fn);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}
