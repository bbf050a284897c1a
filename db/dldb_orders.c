/*
 * dldb_orders.c - the kernel lists' orders written page by page
 * (dldb_write_orders.h): a set of page builds (dl_sqlbuild.h) of the three
 * chunk tables and their keys' indexes, which dldb_pchunks.c fills.
 */
#include "dl_sqlbuild.h"
#include "dldb_write_internal.h"
#include "dldb_write_orders.h"

/* Table t and its key's index into the open set (w->pc_bulk[t]): DL_OK
 * (also where the file lacks the table: it takes no rows), DL_ENOTFOUND
 * (declined), DL_ENOMEM. */
static int page_table(dldb_writer *w, int t) {
  int key_cols;
  const char *table = dldb__pc_table(t, &key_cols);
  if (!dldb__has_table(w, table)) return DL_OK;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, "SELECT name FROM pragma_index_list(?1) WHERE origin = 'pk'",
                         -1, &st, NULL) != SQLITE_OK)
    return DL_ENOTFOUND;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  int ncols = key_cols + 1; /* the key's columns and the rowid; the row's */
  int rc = sqlite3_step(st) == SQLITE_ROW
               ? dl_sqlbuild_add_index(w->bulk, (const char *)sqlite3_column_text(st, 0), ncols,
                                       &w->pc_bulk[t][1])
               : DL_ENOTFOUND;
  sqlite3_finalize(st);
  if (rc == DL_OK) rc = dl_sqlbuild_add(w->bulk, table, ncols, &w->pc_bulk[t][0]);
  return rc;
}

int dldb_aggr_kernel_orders_begin(dldb_writer *w, char *err, size_t errlen) {
  static const char fn[] = "dldb_aggr_kernel_orders_begin";
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  if (!dldb__bulk_wanted(w)) return DL_OK;
  int rc = dldb__bulk_begin(w, 0, err, errlen, fn);
  if (rc || !w->bulk) return rc;
  dl_sqlbuild_uncached(w->bulk); /* the run does not read them back */
  for (int t = 0; rc == DL_OK && t < DLDB__PC_COUNT; t++) rc = page_table(w, t);
  if (rc == DL_ENOMEM) return dl_err(err, errlen, rc, "%s: out of memory", fn);
  return rc == DL_OK ? DL_OK : dldb__bulk_end(w, 1, err, errlen); /* SQLite writes them */
}

int dldb_aggr_kernel_orders_end(dldb_writer *w, char *err, size_t errlen) {
  int rc = dldb__pc_flush_all(w, err, errlen);
  return rc ? rc : dldb__bulk_end(w, 1, err, errlen);
}
