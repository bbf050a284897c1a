/* dldb_timeline.c - the timeline's reads (see dldb_timeline.h): the packed
 * blocks of our files, the TEMP timeline views over NVIDIA DLProf's tables. */
#include "dldb_timeline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dldb_read.h"
#include "dldb_tlpack.h"

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

/* ---- NVIDIA's files: the events view, scanned ---------------------------- */

static const char view_track_sql[] =
    "SELECT kind, pid, tid, device_id, stream_id FROM view_dl_timeline_tracks WHERE track_id = ?1";

static const char view_events_sql[] =
    "SELECT start, dur, name, category, event_id, nccl FROM view_dl_timeline_events "
    "WHERE kind = ?1 AND pid IS ?2 AND tid IS ?3 AND device_id IS ?4 AND stream_id IS ?5 "
    "AND start < ?7 AND (start + dur > ?6 OR (dur = 0 AND start >= ?6)) ORDER BY start, dur";

static int no_track(dldb *db, int rc, int64_t track_id, char *err, size_t errlen) {
  return rc == SQLITE_DONE
             ? dl_err(err, errlen, DL_ENOTFOUND, "no track %lld", (long long)track_id)
             : dldb__sql_err(db, rc, "timeline track", err, errlen);
}

static int scan_view(dldb *db, sqlite3_stmt *ev, dldb_tl_event_fn fn, void *ctx, char *err,
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

static int view_events(dldb *db, int64_t track_id, int64_t start_ns, int64_t end_ns,
                       dldb_tl_event_fn fn, void *ctx, char *err, size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, view_track_sql, err, errlen), *ev = NULL;
  if (!st) return DL_EIO;
  int rc;
  sqlite3_bind_int64(st, 1, track_id);
  if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
    rc = no_track(db, rc, track_id, err, errlen);
    goto out;
  }
  if (!(ev = dldb__stmt_get(db, view_events_sql, err, errlen))) {
    rc = DL_EIO;
    goto out;
  }
  for (int c = 0; c < 5; c++) sqlite3_bind_value(ev, c + 1, sqlite3_column_value(st, c));
  sqlite3_bind_int64(ev, 6, start_ns);
  sqlite3_bind_int64(ev, 7, end_ns);
  rc = scan_view(db, ev, fn, ctx, err, errlen);
out:
  if (ev) dldb__stmt_done(ev);
  dldb__stmt_done(st);
  return rc;
}

/* ---- Our files: the packed blocks, by index ----------------------------- */

enum { TL_GPU, TL_CPU, TL_RANGES, TL_ITER, TL_PY };

/* A track's kind by its name in the tracks view. */
static const char *const kinds[] = {"gpu_stream", "cpu_thread", "cpu_ranges", "iterations",
                                    "python_thread"};

static const char packed_track_sql[] =
    "SELECT kind, bin_ns, levels FROM view_dl_timeline_tracks WHERE track_id = ?1";

static const char blocks_sql[] =
    "SELECT n, data FROM view_dl_timeline_blocks WHERE track_id = ?1 AND level = ?2 "
    "AND start < ?4 AND end >= ?3 ORDER BY start";

static const char name_sql[] = "SELECT name FROM view_dl_timeline_names WHERE id = ?1";

#define NAME_CACHE 256

/* What a read needs: the track, its names so far (by tag, direct mapped). */
typedef struct tl_read {
  dldb *db;
  int kind;
  char *err;
  size_t errlen;
  int64_t tags[NAME_CACHE];
  char *names[NAME_CACHE];
  char text[48];
} tl_read;

static int packed(dldb *db) { return dldb_has_view(db, "view_dl_timeline_blocks"); }

/* Reads the kind and levels of track_id; DL_OK, DL_ENOTFOUND or an error. */
static int packed_track(tl_read *r, int64_t track_id, dldb_tl_track *out) {
  sqlite3_stmt *st = dldb__stmt_get(r->db, packed_track_sql, r->err, r->errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, track_id);
  int rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) {
    rc = no_track(r->db, rc, track_id, r->err, r->errlen);
  } else {
    const char *kind = (const char *)sqlite3_column_text(st, 0);
    r->kind = -1;
    for (int k = 0; kind && k < (int)(sizeof kinds / sizeof *kinds); k++)
      if (strcmp(kind, kinds[k]) == 0) r->kind = k;
    out->bin_ns = sqlite3_column_int64(st, 1);
    out->levels = sqlite3_column_int(st, 2);
    rc = r->kind < 0 ? dl_err(r->err, r->errlen, DL_EFORMAT, "track %lld: unknown kind",
                              (long long)track_id)
                     : DL_OK;
  }
  dldb__stmt_done(st);
  return rc;
}

/* The text of strings id; "" when the file has none. NULL on an error. */
static const char *string_of(tl_read *r, int64_t id) {
  size_t h = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull >> 56) % NAME_CACHE;
  if (r->names[h] && r->tags[h] == id) return r->names[h];
  sqlite3_stmt *st = dldb__stmt_get(r->db, name_sql, r->err, r->errlen);
  if (!st) return NULL;
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st);
  const char *v = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : "";
  char *copy = strdup(v ? v : "");
  dldb__stmt_done(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    free(copy);
    dldb__sql_err(r->db, rc, "timeline name", r->err, r->errlen);
    return NULL;
  }
  if (!copy) return NULL;
  free(r->names[h]);
  r->names[h] = copy;
  r->tags[h] = id;
  return copy;
}

static const struct {
  int copy_kind;
  const char *name;
} memcpy_names[] = {{1, "Memcpy HtoD"}, {2, "Memcpy DtoH"}, {8, "Memcpy DtoD"}, {10, "Memcpy PtoP"}};

/* Fills e's name, category and NCCL mark from tag (dldb_tlpack.h). */
static int name_event(tl_read *r, int64_t tag, dldb_tl_event *e) {
  static const char *const gpu_cats[] = {"kernel", "memcpy", "memset", "kernel"};
  e->nccl = 0;
  if (r->kind == TL_ITER) {
    snprintf(r->text, sizeof r->text, "iteration %lld", (long long)tag);
    e->name = r->text;
    e->category = "iteration";
    return 0;
  }
  if (r->kind != TL_GPU) {
    e->category = r->kind == TL_CPU ? "cuda_api" : r->kind == TL_PY ? "python_function" : "range";
    e->name = NULL;
    e->name_id = tag;
    e->reader = r;
    return 0;
  }
  int cat = (int)(tag & 3);
  e->category = gpu_cats[cat];
  e->nccl = cat == DLDB_TL_NCCL;
  if (cat == DLDB_TL_MEMSET) {
    e->name = "Memset";
  } else if (cat == DLDB_TL_MEMCPY) {
    e->name = "Memcpy";
    for (size_t i = 0; i < sizeof memcpy_names / sizeof *memcpy_names; i++)
      if (memcpy_names[i].copy_kind == tag >> 2) e->name = memcpy_names[i].name;
  } else {
    e->name = NULL;
    e->name_id = tag >> 2;
    e->reader = r;
  }
  return 0;
}

const char *dldb_tl_event_name(const dldb_tl_event *e) {
  if (e->name) return e->name;
  const char *v = e->reader ? string_of(e->reader, e->name_id) : NULL;
  return v ? v : "";
}

static void read_free(tl_read *r) {
  for (int i = 0; i < NAME_CACHE; i++) free(r->names[i]);
}

static int damaged(tl_read *r) {
  return dl_err(r->err, r->errlen, DL_EFORMAT, "timeline: a damaged block");
}

/* Calls fn for the events of one block that overlap [s, e); 1: fn stopped. */
static int block_events(tl_read *r, const unsigned char *p, size_t len, int n, int64_t s, int64_t e,
                        dldb_tl_event_fn fn, void *ctx, int *rc) {
  dldb_tl_rec x = {0};
  size_t pos = 0;
  for (int i = 0; i < n; i++) {
    if (dldb_tl_get_event(p, len, &pos, &x)) {
      *rc = damaged(r);
      return 1;
    }
    if (x.start >= e) return 0;
    if (!(x.start + x.dur > s || (x.dur == 0 && x.start >= s))) continue;
    dldb_tl_event ev = {.start_ns = x.start, .dur_ns = x.dur, .event_id = x.id};
    if (name_event(r, x.tag, &ev)) {
      *rc = DL_EIO;
      return 1;
    }
    if (fn(ctx, &ev)) return 1;
  }
  return 0;
}

static int packed_events(tl_read *r, int64_t track_id, int64_t s, int64_t e, dldb_tl_event_fn fn,
                         void *ctx) {
  sqlite3_stmt *st = dldb__stmt_get(r->db, blocks_sql, r->err, r->errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, track_id);
  sqlite3_bind_int(st, 2, 0);
  sqlite3_bind_int64(st, 3, s);
  sqlite3_bind_int64(st, 4, e);
  int rc = DL_OK, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *p = sqlite3_column_blob(st, 1);
    size_t len = (size_t)sqlite3_column_bytes(st, 1);
    if (block_events(r, p, len, sqlite3_column_int(st, 0), s, e, fn, ctx, &rc)) break;
  }
  if (step != SQLITE_ROW && step != SQLITE_DONE)
    rc = dldb__sql_err(r->db, step, "timeline blocks", r->err, r->errlen);
  dldb__stmt_done(st);
  return rc;
}

int dldb_timeline_events(dldb *db, int64_t track_id, int64_t start_ns, int64_t end_ns,
                         dldb_tl_event_fn fn, void *ctx, char *err, size_t errlen) {
  if (!dldb_has_view(db, "view_dl_timeline_tracks"))
    return dl_err(err, errlen, DL_ENOTFOUND, "this database has no timeline views");
  if (!packed(db)) return view_events(db, track_id, start_ns, end_ns, fn, ctx, err, errlen);
  tl_read r = {.db = db, .err = err, .errlen = errlen};
  dldb_tl_track t;
  int rc = packed_track(&r, track_id, &t);
  if (rc == DL_OK) rc = packed_events(&r, track_id, start_ns, end_ns, fn, ctx);
  read_free(&r);
  return rc;
}

int dldb_timeline_track(dldb *db, int64_t track_id, dldb_tl_track *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!dldb_has_view(db, "view_dl_timeline_tracks"))
    return dl_err(err, errlen, DL_ENOTFOUND, "this database has no timeline views");
  if (!packed(db)) {
    sqlite3_stmt *st = dldb__stmt_get(db, view_track_sql, err, errlen);
    if (!st) return DL_EIO;
    sqlite3_bind_int64(st, 1, track_id);
    int rc = sqlite3_step(st);
    rc = rc == SQLITE_ROW ? DL_OK : no_track(db, rc, track_id, err, errlen);
    dldb__stmt_done(st);
    return rc;
  }
  tl_read r = {.db = db, .err = err, .errlen = errlen};
  int rc = packed_track(&r, track_id, out);
  read_free(&r);
  return rc;
}

/* Calls fn for the bins of one block with an index in [lo, hi); 1: stop. */
static int block_bins(tl_read *r, const unsigned char *p, size_t len, int n, int64_t lo, int64_t hi,
                      dldb_tl_bin_fn fn, void *ctx, int *rc) {
  dldb_tl_bin b = {0};
  size_t pos = 0;
  for (int i = 0; i < n; i++) {
    if (dldb_tl_get_bin(p, len, &pos, &b)) {
      *rc = damaged(r);
      return 1;
    }
    if (b.index >= hi) return 0;
    if (b.index < lo) continue;
    dldb_tl_bin_row row = {.index = b.index, .busy = b.busy, .count = b.count, .best = b.best};
    dldb_tl_event ev = {0};
    if (b.tag >= 0) {
      if (name_event(r, b.tag, &ev)) {
        *rc = DL_EIO;
        return 1;
      }
      row.name = ev.name;
      row.named = &ev;
    }
    if (fn(ctx, &row)) return 1;
  }
  return 0;
}

int dldb_timeline_bins(dldb *db, int64_t track_id, int level, int64_t lo, int64_t hi,
                       dldb_tl_bin_fn fn, void *ctx, char *err, size_t errlen) {
  tl_read r = {.db = db, .err = err, .errlen = errlen};
  dldb_tl_track t;
  int rc = packed(db) ? packed_track(&r, track_id, &t)
                      : dl_err(err, errlen, DL_ENOTFOUND, "this database has no timeline bins");
  if (rc == DL_OK && (level < 1 || level > t.levels))
    rc = dl_err(err, errlen, DL_ENOTFOUND, "track %lld has no level %d", (long long)track_id,
                level);
  sqlite3_stmt *st = rc == DL_OK ? dldb__stmt_get(db, blocks_sql, err, errlen) : NULL;
  if (rc == DL_OK && !st) rc = DL_EIO;
  if (rc) {
    read_free(&r);
    return rc;
  }
  int64_t g = t.bin_ns << (2 * (level - 1));
  sqlite3_bind_int64(st, 1, track_id);
  sqlite3_bind_int(st, 2, level);
  sqlite3_bind_int64(st, 3, lo * g + 1); /* a block ending at lo x g holds no bin >= lo */
  sqlite3_bind_int64(st, 4, hi * g);
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *p = sqlite3_column_blob(st, 1);
    size_t len = (size_t)sqlite3_column_bytes(st, 1);
    if (block_bins(&r, p, len, sqlite3_column_int(st, 0), lo, hi, fn, ctx, &rc)) break;
  }
  if (step != SQLITE_ROW && step != SQLITE_DONE)
    rc = dldb__sql_err(db, step, "timeline bins", err, errlen);
  dldb__stmt_done(st);
  read_free(&r);
  return rc;
}

static const char tracks_sql[] =
    "SELECT track_id, kind, name, device_id, stream_id, pid, tid, event_count "
    "FROM view_dl_timeline_tracks ORDER BY track_id";

int dldb_timeline_tracks(dldb *db, dldb_tl_track_fn fn, void *ctx, char *err, size_t errlen) {
  if (!dldb_has_view(db, "view_dl_timeline_tracks"))
    return dl_err(err, errlen, DL_ENOTFOUND, "this database has no timeline views");
  sqlite3_stmt *st = dldb__stmt_get(db, tracks_sql, err, errlen);
  if (!st) return DL_EIO;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_tl_track_row t = {.track_id = sqlite3_column_int64(st, 0),
                           .kind = (const char *)sqlite3_column_text(st, 1),
                           .name = (const char *)sqlite3_column_text(st, 2),
                           .event_count = sqlite3_column_int64(st, 7)};
    int64_t *v[] = {&t.device_id, &t.stream_id, &t.pid, &t.tid};
    int *has[] = {&t.has_device, &t.has_stream, &t.has_pid, &t.has_tid};
    for (int c = 0; c < 4; c++) {
      *has[c] = sqlite3_column_type(st, 3 + c) != SQLITE_NULL;
      *v[c] = sqlite3_column_int64(st, 3 + c);
    }
    if (!t.kind) t.kind = "";
    if (!t.name) t.name = "";
    if (fn(ctx, &t)) break;
  }
  rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? DL_OK
                                             : dldb__sql_err(db, rc, "timeline tracks", err, errlen);
  dldb__stmt_done(st);
  return rc;
}
