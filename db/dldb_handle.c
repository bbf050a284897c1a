/*
 * dldb_handle.c - a read handle's own caches (dldb_read.h): its prepared
 * statements, kept by SQL text and reused, and the column lists of its
 * views; whether a view exists (one cached statement, for the modules that
 * dldb_query.c drives); and SQLite errors as DL_E* with one line naming
 * the file.
 */
#include <stdlib.h>
#include <string.h>

#include "dldb_read.h"

int dldb__sql_err(dldb *db, int sqlite_rc, const char *what, char *err, size_t errlen) {
  const char *path = db->path;
  const char *msg = db->sql ? sqlite3_errmsg(db->sql) : sqlite3_errstr(sqlite_rc);
  switch (sqlite_rc & 0xff) {
  case SQLITE_NOTADB:
    return dl_err(err, errlen, DL_EFORMAT, "%s is not an SQLite database (file is not a database)",
                  path);
  case SQLITE_CORRUPT:
    return dl_err(err, errlen, DL_ECORRUPT, "%s is damaged or truncated (%s: %s)", path, what, msg);
  case SQLITE_NOMEM:
    return dl_err(err, errlen, DL_ENOMEM, "%s: %s: out of memory", path, what);
  case SQLITE_IOERR:
  case SQLITE_CANTOPEN:
    return dl_err(err, errlen, DL_EIO, "%s: %s: %s", path, what, msg);
  default:
    return dl_err(err, errlen, DL_EDB, "%s: %s: %s", path, what, msg);
  }
}

sqlite3_stmt *dldb__stmt_get(dldb *db, const char *sql, char *err, size_t errlen) {
  dldb__stmt *victim = &db->stmts[0];
  for (int i = 0; i < DLDB__STMT_CACHE; i++) {
    dldb__stmt *s = &db->stmts[i];
    if (s->sql && strcmp(s->sql, sql) == 0) {
      s->last_use = ++db->use_clock;
      return s->stmt;
    }
    if (!s->sql || (victim->sql && s->last_use < victim->last_use)) victim = s;
  }
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
  if (rc != SQLITE_OK) {
    dldb__sql_err(db, rc, "prepare", err, errlen);
    return NULL;
  }
  char *copy = strdup(sql);
  if (!copy) {
    sqlite3_finalize(st);
    dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
    return NULL;
  }
  sqlite3_finalize(victim->stmt);
  free(victim->sql);
  victim->sql = copy;
  victim->stmt = st;
  victim->last_use = ++db->use_clock;
  return st;
}

void dldb__stmt_done(sqlite3_stmt *stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
}

void dldb__caches_free(dldb *db) {
  for (int i = 0; i < DLDB__STMT_CACHE; i++) {
    sqlite3_finalize(db->stmts[i].stmt);
    free(db->stmts[i].sql);
    db->stmts[i].sql = NULL;
    db->stmts[i].stmt = NULL;
  }
  for (int i = 0; i < db->n_views; i++) {
    dldb__viewcols *v = &db->views[i];
    for (int c = 0; c < v->n; c++) free(v->names[c]);
    free(v->names);
    free(v->types);
    free(v->view);
  }
  free(db->views);
  db->views = NULL;
  db->n_views = 0;
}

int dldb__view_exists(dldb *db, const char *view) {
  sqlite3_stmt *st =
      dldb__stmt_get(db, "SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?1", NULL, 0);
  if (!st) return 0;
  sqlite3_bind_text(st, 1, view, -1, SQLITE_STATIC);
  int found = sqlite3_step(st) == SQLITE_ROW;
  dldb__stmt_done(st);
  return found;
}
