/* dldb_ranks.c - the ranks tables (dldb_ranks.h): dl_gpu_ranks, written
 * with the raw records and scanned by the analysis, and the derived
 * aggr_dl_ranks and aggr_dl_collectives rows. */
#include "dldb_ranks.h"

#include <math.h>

#include "dldb_write_internal.h"

int dldb_write_gpu_rank(dldb_writer *w, const dldb_gpu_rank *r, char *err, size_t errlen) {
  static const char *fn = "dldb_write_gpu_rank";
  if (!dldb__has_table(w, "dl_gpu_ranks")) return DL_OK;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, "INSERT OR REPLACE INTO dl_gpu_ranks VALUES (?1, ?2, ?3, ?4, ?5)",
                         -1, &st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  sqlite3_bind_int(st, 1, r->device_id);
  sqlite3_bind_int(st, 2, r->rank);
  sqlite3_bind_int(st, 3, r->local_device);
  if (r->host) dldb__bind_text(st, 4, r->host);
  else sqlite3_bind_null(st, 4); /* unknown: NULL (db/schema.sql), not '' */
  sqlite3_bind_int(st, 5, r->world_size);
  int rc = sqlite3_step(st) == SQLITE_DONE ? DL_OK : dldb__sqlerr(w, err, errlen, fn);
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
    return dldb__sqlerr(w, err, errlen, name);
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_gpu_rank r = {.device_id = sqlite3_column_int(st, 0), .rank = sqlite3_column_int(st, 1),
                       .local_device = sqlite3_column_int(st, 2),
                       .host = (const char *)sqlite3_column_text(st, 3),
                       .world_size = sqlite3_column_int(st, 4)};
    if ((rc = fn(ctx, &r)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, name);
  sqlite3_finalize(st);
  return rc;
}

int dldb_write_kernel_coll(dldb_writer *w, const dldb_kernel_coll *c, char *err, size_t errlen) {
  static const char *fn = "dldb_write_kernel_coll";
  if (!dldb__has_table(w, "dl_kernel_collectives")) return DL_OK;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "INSERT OR REPLACE INTO dl_kernel_collectives VALUES (?1, ?2, ?3, ?4, ?5, "
                         "?6)",
                         -1, &st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  sqlite3_bind_int64(st, 1, w->kernel_max_id); /* the last kernel written */
  dldb__bind_text(st, 2, c->collective);
  if (c->in_bytes >= 0) sqlite3_bind_int64(st, 3, c->in_bytes);
  if (c->out_bytes >= 0) sqlite3_bind_int64(st, 4, c->out_bytes);
  dldb__bind_text(st, 5, c->dtype);
  sqlite3_bind_int(st, 6, c->group_size);
  int rc = sqlite3_step(st) == SQLITE_DONE ? DL_OK : dldb__sqlerr(w, err, errlen, fn);
  sqlite3_finalize(st);
  return rc;
}

static int64_t col_size(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

int dldb_scan_kernel_colls(dldb_writer *w, int (*fn)(void *ctx, const dldb_kernel_coll *c),
                           void *ctx, char *err, size_t errlen) {
  static const char *name = "dldb_scan_kernel_colls";
  if (!dldb__has_table(w, "dl_kernel_collectives")) return DL_OK;
  int rc = dldb__flush(w, err, errlen, name);
  if (rc) return rc;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT kernel_id, collective, in_bytes, out_bytes, dtype, group_size "
                         "FROM dl_kernel_collectives ORDER BY kernel_id",
                         -1, &st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, name);
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_kernel_coll c = {.kernel_id = sqlite3_column_int64(st, 0),
                          .collective = (const char *)sqlite3_column_text(st, 1),
                          .in_bytes = col_size(st, 2), .out_bytes = col_size(st, 3),
                          .dtype = (const char *)sqlite3_column_text(st, 4),
                          .group_size = sqlite3_column_int(st, 5)};
    if ((rc = fn(ctx, &c)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, name);
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
    return dldb__sqlerr(w, err, errlen, fn);
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    const int64_t v[] = {aggr_id,          r[i].rank,           r[i].device_id,
                         r[i].iterations,  r[i].iter_avg_ns,    r[i].wall_ns,
                         r[i].computation_ns, r[i].communication_ns, r[i].exposed_comm_ns,
                         r[i].idle_ns,     r[i].dataloader_ns,  r[i].wait_ns};
    for (int j = 0; j < (int)(sizeof v / sizeof v[0]); j++) sqlite3_bind_int64(st, j + 1, v[j]);
    if (sqlite3_step(st) != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fn);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

/* 1 when aggr_dl_collectives has the columns of sizes and bandwidths (files
 * written before them lack them: their rows are written without). */
static int has_bw_columns(dldb_writer *w) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT 1 FROM pragma_table_info('aggr_dl_collectives') "
                         "WHERE name = 'bus_bw'",
                         -1, &st, NULL) == SQLITE_OK)
    found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

static void bind_bw(sqlite3_stmt *st, int i, double v) {
  if (isnan(v)) sqlite3_bind_null(st, i);
  else sqlite3_bind_double(st, i, v);
}

int dldb_aggr_dl_collectives(dldb_writer *w, int64_t aggr_id, const dldb_dl_collective_row *r,
                             size_t n, char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_dl_collectives";
  int bw = has_bw_columns(w);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         bw ? "INSERT INTO aggr_dl_collectives VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                              "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
                            : "INSERT INTO aggr_dl_collectives VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                              "?8, ?9, ?10, ?11, ?12)",
                         -1, &st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    const int64_t v[] = {aggr_id,        r[i].kernel_name_id, r[i].ranks,     r[i].instances,
                         r[i].time_ns,   r[i].avg_ns,         r[i].skew_avg_ns, r[i].skew_max_ns,
                         r[i].last_rank, r[i].last_rank_count, r[i].transfer_ns};
    sqlite3_clear_bindings(st);
    for (int j = 0; j < (int)(sizeof v / sizeof v[0]); j++) sqlite3_bind_int64(st, j + 1, v[j]);
    if (r[i].bytes >= 0) sqlite3_bind_int64(st, 12, r[i].bytes);
    if (bw) {
      dldb__bind_text(st, 13, r[i].collective);
      if (r[i].group_size > 0) sqlite3_bind_int64(st, 14, r[i].group_size);
      bind_bw(st, 15, r[i].alg_bw_bps);
      bind_bw(st, 16, r[i].bus_bw_bps);
      bind_bw(st, 17, r[i].link_bw_bps);
    }
    if (sqlite3_step(st) != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fn);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}
