/*
 * dldb_kpage.c - pages of the kernel lists read by group (dldb_read.h).
 *
 * The groups of an aggregation's launches (view_dl_kernel_groups) come in
 * the page's order from the caller's statement; each counts `calls` rows.
 * The page's rows are those of the groups it covers: the groups before its
 * offset are skipped by their counts, and each group it covers gives the
 * rows at its places from the page's place in it on
 * (view_dl_kernel_group_rows, a seek of its primary key), so a page costs
 * the number of groups and its rows, not the aggregation's launches.
 */
#include <stdio.h>
#include <string.h>

#include "dldb_read.h"

#define KPAGE_ROWS "view_dl_kernel_group_rows"

static int col_of(sqlite3_stmt *st, const char *name) {
  for (int i = 0; i < sqlite3_column_count(st); i++)
    if (strcmp(sqlite3_column_name(st, i), name) == 0) return i;
  return -1;
}

/* "SELECT cols FROM view_dl_kernel_group_rows WHERE ... ORDER BY group_seq
 * LIMIT ?4" into buf: 0, or -1 when it does not fit. */
static int segment_sql(char *buf, size_t cap, const char *const *cols, int n) {
  size_t len = (size_t)snprintf(buf, cap, "SELECT ");
  for (int i = 0; i < n && len < cap; i++) {
    if (strchr(cols[i], '"')) return -1; /* column names of our views have none */
    len += (size_t)snprintf(buf + len, cap - len, "%s\"%s\"", i ? ", " : "", cols[i]);
  }
  if (len < cap)
    len += (size_t)snprintf(buf + len, cap - len,
                            " FROM " KPAGE_ROWS " WHERE aggr_id = ?1 AND group_id = ?2 AND "
                            "group_seq >= ?3 ORDER BY group_seq LIMIT ?4");
  return len < cap ? 0 : -1;
}

/* Gives fn the rows of group gid from place from on, at most *left of them;
 * *left drops by the rows given, and is 0 when fn stopped the page. */
static int segment(dldb *db, sqlite3_stmt *st, int64_t aggr_id, int64_t gid, int64_t from,
                   int64_t *left, dldb_row_fn fn, void *ctx, char *err, size_t errlen) {
  sqlite3_bind_int64(st, 1, aggr_id);
  sqlite3_bind_int64(st, 2, gid);
  sqlite3_bind_int64(st, 3, from);
  sqlite3_bind_int64(st, 4, *left);
  dldb_row row = {st, sqlite3_column_count(st)};
  int src, rc = DL_OK;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    (*left)--;
    if (fn(ctx, &row) != 0) {
      *left = 0;
      break;
    }
  }
  if (src != SQLITE_ROW && src != SQLITE_DONE) rc = dldb__sql_err(db, src, KPAGE_ROWS, err, errlen);
  dldb__stmt_done(st);
  return rc;
}

int dldb__kpage_rows(dldb *db, sqlite3_stmt *groups, int64_t aggr_id, int64_t offset,
                     int64_t limit, const char *const *cols, int n, dldb_row_fn fn, void *ctx,
                     char *err, size_t errlen) {
  char sql[2048];
  int gid_col = col_of(groups, "group_id"), calls_col = col_of(groups, "calls");
  int rc = DL_OK, src = SQLITE_DONE;
  if (gid_col < 0 || calls_col < 0 || segment_sql(sql, sizeof sql, cols, n)) {
    rc = dl_err(err, errlen, DL_EINVAL, "%s: the kernel groups lack a column", db->path);
    goto out;
  }
  int64_t left = limit;
  while (left > 0 && (src = sqlite3_step(groups)) == SQLITE_ROW) {
    int64_t calls = sqlite3_column_int64(groups, calls_col);
    if (offset >= calls) { /* a group before the page */
      offset -= calls;
      continue;
    }
    sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
    if (!st) {
      rc = DL_EDB;
      goto out;
    }
    rc = segment(db, st, aggr_id, sqlite3_column_int64(groups, gid_col), offset, &left, fn, ctx,
                 err, errlen);
    if (rc) goto out;
    offset = 0;
  }
  if (left > 0 && src != SQLITE_DONE) rc = dldb__sql_err(db, src, "view_dl_kernel_groups", err, errlen);
out:
  dldb__stmt_done(groups);
  return rc;
}
