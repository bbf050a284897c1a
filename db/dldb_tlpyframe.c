/* dldb_tlpyframe.c - a Python frame's enclosing frames (see
 * dldb_tlpyframe.h). */
#include "dldb_tlpyframe.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dldb_read.h"
#include "dldb_timeline.h"

#define PY_SLACK_NS 2   /* a parent may end or start this far off its child (rounding) */
#define PY_MAX_DEPTH 512 /* frames kept per answer */

static const char frame_sql[] =
    "SELECT pid, tid, start, dur, python_id, parent_python_id "
    "FROM view_dl_timeline_python_details WHERE event_id = ?1";

static const char track_sql[] =
    "SELECT track_id FROM view_dl_timeline_tracks WHERE kind = 'python_thread' AND pid = ?1 "
    "AND tid = ?2";

/* One frame: its row, and its Python ids (has_*: 0 where NULL). */
typedef struct py_frame {
  int64_t event_id, start, dur, py_id, parent;
  int has_id, has_parent;
  char *name;
} py_frame;

typedef struct py_found {
  py_frame self;
  py_frame *v;
  size_t n;
  int oom;
} py_found;

/* Reads event_id's row into f (not its name); 1 found, 0 none, -1 error. */
static int read_frame(dldb *db, int64_t event_id, py_frame *f, int64_t *pid, int64_t *tid,
                      char *err, size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, frame_sql, err, errlen);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, event_id);
  int rc = sqlite3_step(st), found = 0;
  if (rc == SQLITE_ROW) {
    *pid = sqlite3_column_int64(st, 0);
    *tid = sqlite3_column_int64(st, 1);
    f->event_id = event_id;
    f->start = sqlite3_column_int64(st, 2);
    f->dur = sqlite3_column_int64(st, 3);
    f->has_id = sqlite3_column_type(st, 4) != SQLITE_NULL;
    f->py_id = sqlite3_column_int64(st, 4);
    f->has_parent = sqlite3_column_type(st, 5) != SQLITE_NULL;
    f->parent = sqlite3_column_int64(st, 5);
    found = 1;
  } else if (rc != SQLITE_DONE) {
    dldb__sql_err(db, rc, "python frame", err, errlen);
    found = -1;
  }
  dldb__stmt_done(st);
  return found;
}

/* Keeps the track's events that enclose the frame (start order). */
static int keep_encloser(void *ctx, const dldb_tl_event *e) {
  py_found *f = ctx;
  const py_frame *s = &f->self;
  if (e->event_id == s->event_id || e->start_ns > s->start + PY_SLACK_NS ||
      e->start_ns + e->dur_ns < s->start + s->dur - PY_SLACK_NS)
    return 0;
  if (f->n == PY_MAX_DEPTH) return 1;
  char *name = strdup(dldb_tl_event_name(e));
  if (!name) return f->oom = 1;
  f->v[f->n++] = (py_frame){.event_id = e->event_id, .start = e->start_ns, .dur = e->dur_ns,
                            .name = name};
  return 0;
}

/* Fills each kept frame's Python ids. */
static int read_ids(dldb *db, py_found *f, char *err, size_t errlen) {
  for (size_t i = 0; i < f->n; i++) {
    int64_t pid, tid;
    char *name = f->v[i].name;
    if (read_frame(db, f->v[i].event_id, &f->v[i], &pid, &tid, err, errlen) < 0) return DL_EIO;
    f->v[i].name = name;
  }
  return DL_OK;
}

/* Emits the kept frames outermost first: by the Python parent chain when
 * the frame has one (the frames off the chain are left out), else all in
 * start order (longest first at one start: the encloser). */
static void emit(py_found *f, int64_t track_id, dldb_tl_link_fn fn, void *ctx) {
  size_t order[PY_MAX_DEPTH], n = 0;
  if (f->self.has_parent) {
    int64_t want = f->self.parent;
    for (int more = 1; more && n < f->n;) {
      more = 0;
      for (size_t i = 0; i < f->n; i++)
        if (f->v[i].has_id && f->v[i].py_id == want) {
          order[n++] = i;
          more = f->v[i].has_parent;
          want = f->v[i].parent;
          break;
        }
    }
    for (size_t i = 0; i < n / 2; i++) {
      size_t t = order[i];
      order[i] = order[n - 1 - i];
      order[n - 1 - i] = t;
    }
  } else {
    for (size_t i = 0; i < f->n; i++) order[n++] = i;
  }
  for (size_t k = 0; k < n; k++) {
    const py_frame *p = &f->v[order[k]];
    dldb_tl_link l = {.role = "parent", .category = "python_function", .name = p->name,
                      .track_id = track_id, .event_id = p->event_id, .start_ns = p->start,
                      .dur_ns = p->dur};
    if (fn(ctx, &l)) break;
  }
}

int dldb__timeline_py_parents(dldb *db, int64_t event_id, dldb_tl_link_fn fn, void *ctx,
                              char *err, size_t errlen) {
  if (!dldb_has_view(db, "view_dl_timeline_python_details")) return DL_OK;
  py_found f = {0};
  int64_t pid = 0, tid = 0, track = 0;
  int found = read_frame(db, event_id, &f.self, &pid, &tid, err, errlen);
  if (found <= 0) return found < 0 ? DL_EIO : DL_OK;
  sqlite3_stmt *st = dldb__stmt_get(db, track_sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, pid);
  sqlite3_bind_int64(st, 2, tid);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) track = sqlite3_column_int64(st, 0);
  dldb__stmt_done(st);
  if (rc != SQLITE_ROW)
    return rc == SQLITE_DONE ? DL_OK : dldb__sql_err(db, rc, "python frame", err, errlen);
  if (!(f.v = calloc(PY_MAX_DEPTH, sizeof *f.v)))
    return dl_err(err, errlen, DL_ENOMEM, "python frame: out of memory");
  int64_t s = f.self.start;
  rc = dldb_timeline_events(db, track, s - PY_SLACK_NS, s + PY_SLACK_NS + 1, keep_encloser, &f,
                            err, errlen);
  if (rc == DL_OK && f.oom) rc = dl_err(err, errlen, DL_ENOMEM, "python frame: out of memory");
  if (rc == DL_OK) rc = read_ids(db, &f, err, errlen);
  if (rc == DL_OK) emit(&f, track, fn, ctx);
  for (size_t i = 0; i < f.n; i++) free(f.v[i].name);
  free(f.v);
  return rc;
}
