/* dldb_timeline.c - the timeline's reads (see dldb_timeline.h) and the TEMP
 * timeline views over NVIDIA DLProf's tables. */
#include "dldb_timeline.h"

#include <sqlite3.h>
#include <string.h>

#include "dl.h"
#include "dldb_read.h"

/* NVIDIA DLProf 1.x files: kernels, memcpys and memsets per device (the
 * file records no stream: stream_id 0), CUDA calls per thread. The tracks
 * view is the body of schema.sql's view_dl_timeline_tracks. */
static const char *const nvidia_views[] = {
    "CREATE TEMP VIEW view_dl_timeline_events AS "
    "SELECT 'gpu_stream' AS kind, k.process_id AS pid, NULL AS tid, k.device_id AS device_id, "
    "0 AS stream_id, k.gpu_start AS start, k.gpu_stop - k.gpu_start AS dur, d.string AS name, "
    "'kernel' AS category, k.id AS event_id, "
    "CASE WHEN d.string LIKE 'nccl%' OR d.string LIKE '%ncclKernel%' "
    "OR d.string LIKE '%ncclDevKernel%' THEN 1 ELSE 0 END AS nccl "
    "FROM main.read_only_kernels k JOIN main.dictionary d ON d.id = k.name_id "
    "UNION ALL SELECT 'gpu_stream', m.process_id, NULL, m.device_id, 0, m.gpu_start, "
    "m.gpu_stop - m.gpu_start, d.string, 'memcpy', m.id, 0 "
    "FROM main.read_only_memcpys m JOIN main.dictionary d ON d.id = m.name_id "
    "UNION ALL SELECT 'gpu_stream', m.process_id, NULL, m.device_id, 0, m.gpu_start, "
    "m.gpu_stop - m.gpu_start, d.string, 'memset', m.id, 0 "
    "FROM main.read_only_memsets m JOIN main.dictionary d ON d.id = m.name_id "
    "UNION ALL SELECT 'cpu_thread', c.process_id, c.thread_id, NULL, NULL, c.api_start, "
    "c.api_stop - c.api_start, d.string, 'cuda_api', c.id, 0 "
    "FROM main.read_only_cuda_calls c JOIN main.dictionary d ON d.id = c.name_id",
    "CREATE TEMP VIEW view_dl_timeline_tracks AS "
    "WITH e AS (SELECT kind, pid, tid, device_id, stream_id, start, start + dur AS stop, nccl "
    "FROM view_dl_timeline_events), "
    "r AS (SELECT *, MAX(stop) OVER (PARTITION BY kind, pid, tid, device_id, stream_id "
    "ORDER BY start, stop ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end "
    "FROM e), "
    "t AS (SELECT kind, pid, tid, device_id, stream_id, COUNT(*) AS event_count, "
    "SUM(MAX(0, stop - MAX(start, COALESCE(prev_end, start)))) AS busy_time, "
    "MIN(start) AS first_start, MAX(stop) AS last_end, SUM(nccl) AS nccl_count "
    "FROM r GROUP BY kind, pid, tid, device_id, stream_id) "
    "SELECT ROW_NUMBER() OVER (ORDER BY CASE kind WHEN 'iterations' THEN 0 "
    "WHEN 'gpu_stream' THEN 1 WHEN 'cpu_thread' THEN 2 ELSE 3 END, "
    "pid, device_id, stream_id, tid) AS track_id, kind, device_id, stream_id, pid, tid, "
    "CASE kind WHEN 'iterations' THEN 'Iterations' "
    "WHEN 'gpu_stream' THEN 'GPU ' || device_id || ' stream ' || stream_id "
    "WHEN 'cpu_thread' THEN 'CUDA API, thread ' || tid "
    "ELSE 'Ranges, thread ' || tid END AS name, "
    "event_count, busy_time, first_start, last_end, nccl_count FROM t",
};

static int has_table(sqlite3 *sql, const char *name) {
  return sqlite3_table_column_metadata(sql, "main", name, NULL, NULL, NULL, NULL, NULL, NULL) ==
         SQLITE_OK;
}

int dldb__timeline_views(dldb *db) {
  if (has_table(db->sql, "view_dl_timeline_tracks") || !has_table(db->sql, "read_only_kernels") ||
      !has_table(db->sql, "read_only_cuda_calls") || !has_table(db->sql, "dictionary"))
    return DL_OK;
  for (size_t i = 0; i < sizeof nvidia_views / sizeof *nvidia_views; i++)
    if (sqlite3_exec(db->sql, nvidia_views[i], NULL, NULL, NULL) != SQLITE_OK)
      return DL_EFORMAT;
  return DL_OK;
}

static const char track_sql[] =
    "SELECT kind, pid, tid, device_id, stream_id FROM view_dl_timeline_tracks WHERE track_id = ?1";

static const char events_sql[] =
    "SELECT start, dur, name, category, event_id, nccl FROM view_dl_timeline_events "
    "WHERE kind = ?1 AND pid IS ?2 AND tid IS ?3 AND device_id IS ?4 AND stream_id IS ?5 "
    "AND start < ?7 AND (start + dur > ?6 OR (dur = 0 AND start >= ?6)) ORDER BY start, dur";

/* Binds column c of the track row st to parameter c + 1 of ev. */
static void bind_key(sqlite3_stmt *ev, sqlite3_stmt *st, int c) {
  sqlite3_bind_value(ev, c + 1, sqlite3_column_value(st, c));
}

static int scan(dldb *db, sqlite3_stmt *ev, dldb_tl_event_fn fn, void *ctx, char *err,
                size_t errlen) {
  int rc;
  while ((rc = sqlite3_step(ev)) == SQLITE_ROW) {
    dldb_tl_event e = {
        .start_ns = sqlite3_column_int64(ev, 0),
        .dur_ns = sqlite3_column_int64(ev, 1),
        .name = (const char *)sqlite3_column_text(ev, 2),
        .category = (const char *)sqlite3_column_text(ev, 3),
        .event_id = sqlite3_column_int64(ev, 4),
        .nccl = sqlite3_column_int(ev, 5),
    };
    if (!e.name) e.name = "";
    if (!e.category) e.category = "";
    if (fn(ctx, &e)) return DL_OK;
  }
  return rc == SQLITE_DONE ? DL_OK : dldb__sql_err(db, rc, "timeline events", err, errlen);
}

int dldb_timeline_events(dldb *db, int64_t track_id, int64_t start_ns, int64_t end_ns,
                         dldb_tl_event_fn fn, void *ctx, char *err, size_t errlen) {
  if (!dldb_has_view(db, "view_dl_timeline_tracks"))
    return dl_err(err, errlen, DL_ENOTFOUND, "this database has no timeline views");
  sqlite3_stmt *st = dldb__stmt_get(db, track_sql, err, errlen), *ev = NULL;
  if (!st) return DL_EIO;
  int rc;
  sqlite3_bind_int64(st, 1, track_id);
  if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
    rc = rc == SQLITE_DONE ? dl_err(err, errlen, DL_ENOTFOUND, "no track %lld", (long long)track_id)
                           : dldb__sql_err(db, rc, "timeline track", err, errlen);
    goto out;
  }
  ev = dldb__stmt_get(db, events_sql, err, errlen);
  if (!ev) {
    rc = DL_EIO;
    goto out;
  }
  for (int c = 0; c < 5; c++) bind_key(ev, st, c);
  sqlite3_bind_int64(ev, 6, start_ns);
  sqlite3_bind_int64(ev, 7, end_ns);
  rc = scan(db, ev, fn, ctx, err, errlen);
out:
  if (ev) dldb__stmt_done(ev);
  dldb__stmt_done(st);
  return rc;
}
