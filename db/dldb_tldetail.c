/* dldb_tldetail.c - a timeline event's details and links (see
 * dldb_tldetail.h). */
#include "dldb_tldetail.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"
#include "dldb_read.h"
#include "dldb_timeline.h"
#include "dldb_tlpyframe.h"

/* The details view of each category. */
static const struct {
  const char *category, *view, *sql;
} detail_views[] = {
    {"kernel", "view_dl_timeline_kernel_details",
     "SELECT * FROM view_dl_timeline_kernel_details WHERE event_id = ?1"},
    {"memcpy", "view_dl_timeline_memcpy_details",
     "SELECT * FROM view_dl_timeline_memcpy_details WHERE event_id = ?1"},
    {"memset", "view_dl_timeline_memset_details",
     "SELECT * FROM view_dl_timeline_memset_details WHERE event_id = ?1"},
    {"cuda_api", "view_dl_timeline_call_details",
     "SELECT * FROM view_dl_timeline_call_details WHERE event_id = ?1"},
    {"range", "view_dl_timeline_range_details",
     "SELECT * FROM view_dl_timeline_range_details WHERE event_id = ?1"},
    {"python_function", "view_dl_timeline_python_details",
     "SELECT * FROM view_dl_timeline_python_details WHERE event_id = ?1"},
};

/* The details statement of category, NULL when unknown or the file lacks its view. */
static const char *detail_sql(dldb *db, const char *category) {
  for (size_t i = 0; i < sizeof detail_views / sizeof *detail_views; i++)
    if (!strcmp(detail_views[i].category, category))
      return dldb_has_view(db, detail_views[i].view) ? detail_views[i].sql : NULL;
  return NULL;
}

static int has_details(dldb *db) { return dldb_has_view(db, "view_dl_timeline_kernel_details"); }

int dldb_timeline_detail(dldb *db, const char *category, int64_t event_id, dldb_tl_col_fn fn,
                         void *ctx, char *err, size_t errlen) {
  const char *sql = detail_sql(db, category);
  if (!sql)
    return dl_err(err, errlen, DL_ENOTFOUND, "no details for %s events in this database",
                  category);
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, event_id);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count(st); c++) {
      dldb_tl_col col = {.name = sqlite3_column_name(st, c)};
      switch (sqlite3_column_type(st, c)) {
      case SQLITE_INTEGER: col.type = DLDB_TL_INT; col.i = sqlite3_column_int64(st, c); break;
      case SQLITE_FLOAT: col.type = DLDB_TL_REAL; col.d = sqlite3_column_double(st, c); break;
      case SQLITE_NULL: col.type = DLDB_TL_NULL; break;
      default: col.type = DLDB_TL_TEXT; col.text = (const char *)sqlite3_column_text(st, c);
      }
      if (col.type == DLDB_TL_TEXT && !col.text) col.type = DLDB_TL_NULL;
      if (fn(ctx, &col)) break;
    }
    rc = DL_OK;
  } else {
    rc = rc == SQLITE_DONE
             ? dl_err(err, errlen, DL_ENOTFOUND, "no %s event %lld", category, (long long)event_id)
             : dldb__sql_err(db, rc, "timeline details", err, errlen);
  }
  dldb__stmt_done(st);
  return rc;
}

/* ---- Links ---------------------------------------------------------------- */

/* The newest aggregation's iteration that holds t (the last to start at or
 * before it), and the one before: a kernel is in its call's iteration. */
static const char iters_sql[] =
    "SELECT aggr_id, iter_value FROM view_dl_timeline_iterations "
    "WHERE aggr_id = (SELECT MAX(aggr_id) FROM view_dl_timeline_iterations) "
    "AND start_time <= ?1 ORDER BY start_time DESC LIMIT ?2";

static const char launch_of_kernel_sql[] =
    "SELECT api_start, api_dur, op_node_id, op_node_name, op_node_type "
    "FROM view_dl_timeline_launches WHERE aggr_id = ?1 AND iter_value = ?2 AND kernel_id = ?3";

static const char kernels_of_call_sql[] =
    "SELECT kernel_id FROM view_dl_timeline_launches "
    "WHERE aggr_id = ?1 AND iter_value = ?2 AND api_start = ?3";

static const char kernel_sql[] =
    "SELECT pid, device_id, stream_id, start, dur, name, correlation_id "
    "FROM view_dl_timeline_kernel_details WHERE event_id = ?1";

static const char call_sql[] =
    "SELECT pid, tid, start, dur, name, correlation_id FROM view_dl_timeline_call_details "
    "WHERE event_id = ?1";

static const char gpu_track_sql[] =
    "SELECT track_id FROM view_dl_timeline_tracks WHERE kind = 'gpu_stream' AND pid = ?1 "
    "AND device_id = ?2 AND stream_id = ?3";

static const char cpu_tracks_sql[] =
    "SELECT track_id FROM view_dl_timeline_tracks WHERE kind = 'cpu_thread' AND pid = ?1";

/* One int64 from sql with up to three int64 parameters; 1 found, 0 none,
 * -1 on an error (in err). */
static int one_int(dldb *db, const char *sql, int n, const int64_t *p, int64_t *out, char *err,
                   size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return -1;
  for (int i = 0; i < n; i++) sqlite3_bind_int64(st, i + 1, p[i]);
  int rc = sqlite3_step(st), found = 0;
  if (rc == SQLITE_ROW) {
    *out = sqlite3_column_int64(st, 0);
    found = 1;
  } else if (rc != SQLITE_DONE) {
    dldb__sql_err(db, rc, "timeline links", err, errlen);
    found = -1;
  }
  dldb__stmt_done(st);
  return found;
}

/* Emits kernel kid as a "kernel" link when it is pid's launch corr. */
static int emit_kernel(dldb *db, int64_t kid, int64_t pid, int64_t corr, int64_t iter,
                       dldb_tl_link_fn fn, void *ctx, char *err, size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, kernel_sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, kid);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) == pid &&
      sqlite3_column_int64(st, 6) == corr) {
    int64_t key[3] = {pid, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)}, track = 0;
    if (one_int(db, gpu_track_sql, 3, key, &track, err, errlen) < 0) {
      dldb__stmt_done(st);
      return DL_EIO;
    }
    dldb_tl_link l = {.role = "kernel", .category = "kernel", .track_id = track, .event_id = kid,
                      .iter_value = iter,
                      .start_ns = sqlite3_column_int64(st, 3),
                      .dur_ns = sqlite3_column_int64(st, 4),
                      .name = (const char *)sqlite3_column_text(st, 5)};
    fn(ctx, &l);
    rc = DL_OK;
  } else {
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? DL_OK
                                               : dldb__sql_err(db, rc, "timeline links", err, errlen);
  }
  dldb__stmt_done(st);
  return rc;
}

static int call_links(dldb *db, int64_t id, dldb_tl_link_fn fn, void *ctx, char *err,
                      size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, call_sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st);
  int64_t pid = 0, start = 0, corr = 0;
  if (rc == SQLITE_ROW) {
    pid = sqlite3_column_int64(st, 0);
    start = sqlite3_column_int64(st, 2);
    corr = sqlite3_column_int64(st, 5);
  }
  dldb__stmt_done(st);
  if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? DL_OK : DL_EIO;
  int64_t p[2] = {start, 1}, aggr = 0, iter = 0;
  sqlite3_stmt *it = dldb__stmt_get(db, iters_sql, err, errlen);
  if (!it) return DL_EIO;
  for (int i = 0; i < 2; i++) sqlite3_bind_int64(it, i + 1, p[i]);
  int found = sqlite3_step(it) == SQLITE_ROW;
  if (found) {
    aggr = sqlite3_column_int64(it, 0);
    iter = sqlite3_column_int64(it, 1);
  }
  dldb__stmt_done(it);
  if (!found) return DL_OK;
  sqlite3_stmt *ks = dldb__stmt_get(db, kernels_of_call_sql, err, errlen);
  if (!ks) return DL_EIO;
  sqlite3_bind_int64(ks, 1, aggr);
  sqlite3_bind_int64(ks, 2, iter);
  sqlite3_bind_int64(ks, 3, start);
  int64_t kids[64];
  int n = 0;
  while (n < 64 && sqlite3_step(ks) == SQLITE_ROW) kids[n++] = sqlite3_column_int64(ks, 0);
  dldb__stmt_done(ks);
  rc = DL_OK;
  for (int i = 0; rc == DL_OK && i < n; i++)
    rc = emit_kernel(db, kids[i], pid, corr, iter, fn, ctx, err, errlen);
  return rc;
}

/* The call of a kernel: the event of one of pid's CUDA API threads that
 * starts at api_start and lasts api_dur, with the kernel's correlation. */
typedef struct call_find {
  int64_t start, dur, id;
} call_find;

static int call_match(void *ctx, const dldb_tl_event *e) {
  call_find *f = ctx;
  if (e->start_ns == f->start && e->dur_ns == f->dur) f->id = e->event_id;
  return f->id != 0;
}

typedef struct kernel_row {
  int64_t pid, start, corr;
} kernel_row;

/* Fills l's call (track, id, times, its name in name[256]) when found. */
static int find_call(dldb *db, const kernel_row *k, int64_t api_start, int64_t api_dur,
                     dldb_tl_link *l, char *name, char *err, size_t errlen) {
  sqlite3_stmt *cs = dldb__stmt_get(db, cpu_tracks_sql, err, errlen);
  if (!cs) return DL_EIO;
  sqlite3_bind_int64(cs, 1, k->pid);
  int64_t tracks[64];
  int n = 0;
  while (n < 64 && sqlite3_step(cs) == SQLITE_ROW) tracks[n++] = sqlite3_column_int64(cs, 0);
  dldb__stmt_done(cs);
  for (int i = 0; i < n; i++) {
    call_find f = {.start = api_start, .dur = api_dur};
    int rc = dldb_timeline_events(db, tracks[i], api_start, api_start + 1, call_match, &f, err,
                                  errlen);
    if (rc) return rc;
    if (!f.id) continue;
    sqlite3_stmt *st = dldb__stmt_get(db, call_sql, err, errlen);
    if (!st) return DL_EIO;
    sqlite3_bind_int64(st, 1, f.id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 5) == k->corr) {
      l->track_id = tracks[i];
      l->event_id = f.id;
      l->start_ns = sqlite3_column_int64(st, 2);
      l->dur_ns = sqlite3_column_int64(st, 3);
      const char *text = (const char *)sqlite3_column_text(st, 4);
      snprintf(name, 256, "%s", text ? text : "");
    }
    dldb__stmt_done(st);
    if (l->event_id) return DL_OK;
  }
  return DL_OK;
}

static int kernel_links(dldb *db, int64_t id, dldb_tl_link_fn fn, void *ctx, char *err,
                        size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, kernel_sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st);
  kernel_row k = {0};
  if (rc == SQLITE_ROW)
    k = (kernel_row){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 3),
                     sqlite3_column_int64(st, 6)};
  dldb__stmt_done(st);
  if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? DL_OK : DL_EIO;
  sqlite3_stmt *it = dldb__stmt_get(db, iters_sql, err, errlen);
  if (!it) return DL_EIO;
  sqlite3_bind_int64(it, 1, k.start);
  sqlite3_bind_int64(it, 2, 3);
  int64_t aggr[3], iter[3];
  int n = 0;
  while (n < 3 && sqlite3_step(it) == SQLITE_ROW) {
    aggr[n] = sqlite3_column_int64(it, 0);
    iter[n++] = sqlite3_column_int64(it, 1);
  }
  dldb__stmt_done(it);
  for (int i = 0; i < n; i++) {
    sqlite3_stmt *ls = dldb__stmt_get(db, launch_of_kernel_sql, err, errlen);
    if (!ls) return DL_EIO;
    sqlite3_bind_int64(ls, 1, aggr[i]);
    sqlite3_bind_int64(ls, 2, iter[i]);
    sqlite3_bind_int64(ls, 3, id);
    if (sqlite3_step(ls) != SQLITE_ROW) {
      dldb__stmt_done(ls);
      continue;
    }
    char name[256] = "", op_id[256], op_name[1024], op_type[256];
    const char *txt[3];
    for (int c = 0; c < 3; c++) txt[c] = (const char *)sqlite3_column_text(ls, 2 + c);
    snprintf(op_id, sizeof op_id, "%s", txt[0] ? txt[0] : "");
    snprintf(op_name, sizeof op_name, "%s", txt[1] ? txt[1] : "");
    snprintf(op_type, sizeof op_type, "%s", txt[2] ? txt[2] : "");
    int64_t api_start = sqlite3_column_int64(ls, 0), api_dur = sqlite3_column_int64(ls, 1);
    int has_op = txt[0] != NULL;
    dldb__stmt_done(ls);
    dldb_tl_link l = {.role = "call", .category = "cuda_api", .name = name, .iter_value = iter[i],
                      .op_node_id = has_op ? op_id : NULL, .op_node_name = has_op ? op_name : NULL,
                      .op_node_type = has_op ? op_type : NULL};
    rc = find_call(db, &k, api_start, api_dur, &l, name, err, errlen);
    if (rc == DL_OK && (l.event_id || has_op)) fn(ctx, &l);
    return rc;
  }
  return DL_OK;
}

int dldb_timeline_links(dldb *db, const char *category, int64_t event_id, dldb_tl_link_fn fn,
                        void *ctx, char *err, size_t errlen) {
  if (!strcmp(category, "python_function"))
    return dldb__timeline_py_parents(db, event_id, fn, ctx, err, errlen);
  if (!has_details(db) || !dldb_has_view(db, "view_dl_timeline_launches")) return DL_OK;
  if (!strcmp(category, "kernel")) return kernel_links(db, event_id, fn, ctx, err, errlen);
  if (!strcmp(category, "cuda_api")) return call_links(db, event_id, fn, ctx, err, errlen);
  return DL_OK;
}
