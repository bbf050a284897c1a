/* dldb_rankmap.c - the heatmap's cells (dldb_rankmap.h). */
#include "dldb_rankmap.h"

#include <sqlite3.h>

#include "dl.h"
#include "dldb_read.h"

/* aggr_dl_iter_gpu's primary key (aggr_id, iter_value, device_id) gives the
 * order; aggr_dl_ranks_device finds each GPU's rank row. */
static const char cells_sql[] =
    "SELECT x.iter_value, x.device_id, x.duration_ns, x.exposed_comm_ns "
    "FROM aggr_dl_iter_gpu x WHERE x.aggr_id = ?1 AND EXISTS (SELECT 1 FROM aggr_dl_ranks k "
    "WHERE k.aggr_id = ?1 AND k.device_id = x.device_id) ORDER BY x.iter_value, x.device_id";

int dldb_rank_heatmap(dldb *db, int64_t aggr_id, int (*fn)(void *ctx, const dldb_rank_cell *c),
                      void *ctx, char *err, size_t errlen) {
  if (!dldb_has_view(db, "view_dl_rank_iterations"))
    return dl_err(err, errlen, DL_ENOTFOUND, "no ranks in this database");
  sqlite3_stmt *st = dldb__stmt_get(db, cells_sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, aggr_id);
  int s, rc = DL_OK;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_rank_cell c = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                        sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)};
    if ((rc = fn(ctx, &c)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sql_err(db, s, "rank heatmap", err, errlen);
  dldb__stmt_done(st);
  return rc;
}
