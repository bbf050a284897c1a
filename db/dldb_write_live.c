/*
 * dldb_write_live.c - the live collector's raw store (dldb_write_live.h).
 *
 * Built on the writer of dldb_write.c: the store is created as a normal new
 * dldb (schema, meta), then switched to WAL; dldb_live_open reuses
 * dldb_writer_open_existing (which loads the interned strings) and turns
 * the handle into a raw-record writer whose batches the caller commits.
 */
#include "dldb_write_live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dldb_write_internal.h"

enum { L_CONTEXT, L_OVERHEAD, L_EXTCORR, L_CATEGORY, L_COUNT };

static const char *const live_sql[L_COUNT] = {
    [L_CONTEXT] = "INSERT OR REPLACE INTO cuda_contexts(context_id, device_id, null_stream_id) "
                  "VALUES (?1, ?2, ?3)",
    [L_OVERHEAD] = "INSERT INTO cupti_overheads(overhead_kind, object_kind, start_ns, end_ns) "
                   "VALUES (?1, ?2, ?3, ?4)",
    [L_EXTCORR] = "INSERT INTO cupti_external_correlations(correlation_id, external_kind, "
                  "external_id) VALUES (?1, ?2, ?3)",
    [L_CATEGORY] = "INSERT OR REPLACE INTO nvtx_categories(domain_id, category, name_id) "
                   "VALUES (?1, ?2, ?3)",
};

struct dldb_live {
  dldb_writer *w;
  sqlite3_stmt *st[L_COUNT];
};

static int lerr(sqlite3 *db, char *err, size_t errlen, const char *fn) {
  return dl_err(err, errlen, DL_EDB, "%s: %s", fn, db ? sqlite3_errmsg(db) : "no db");
}

int dldb_live_create(const char *path, const dldb_write_opts *o, const dldb_sysconfig *c,
                     char *err, size_t errlen) {
  dldb_write_opts opts = o ? *o : (dldb_write_opts){0};
  dldb_writer *w = NULL;
  sqlite3 *db = NULL;
  int rc;
  opts.force = 0;
  if ((rc = dldb_writer_create(path, &opts, &w, err, errlen))) return rc;
  /* a WAL left beside a file of this name that is gone (a killed run)
   * must not be read into the new one */
  char side[4200];
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
  if (c && (rc = dldb_write_sysconfig(w, c, err, errlen))) {
    dldb_writer_abort(&w);
    return rc;
  }
  if ((rc = dldb_writer_commit(&w, err, errlen))) return rc;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    rc = lerr(db, err, errlen, "dldb_live_create: open");
    goto out;
  }
  if (sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) != SQLITE_OK)
    rc = lerr(db, err, errlen, "dldb_live_create");
out:
  sqlite3_close(db);
  if (rc) unlink(path);
  return rc;
}

int dldb_live_open(const char *path, dldb_live **out, int64_t *first_free_id, char *err,
                   size_t errlen) {
  dldb_live *l = NULL;
  sqlite3_stmt *st = NULL;
  int rc;
  *out = NULL;
  if (!(l = calloc(1, sizeof *l)))
    return dl_err(err, errlen, DL_ENOMEM, "dldb_live_open: out of memory");
  if ((rc = dldb_writer_open_existing(path, &l->w, err, errlen))) goto out;
  sqlite3 *db = l->w->db;
  if (sqlite3_exec(db,
                   "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; "
                   "PRAGMA cache_size=-65536; PRAGMA wal_autocheckpoint=0",
                   NULL, NULL, NULL) != SQLITE_OK) {
    rc = lerr(db, err, errlen, "dldb_live_open");
    goto out;
  }
  /* No checkpoint while recording, nor at close: the WAL holds the
   * profile until dldb_live_finish (in dlprof, after the application)
   * copies it into the file. The application's writer thread and its exit
   * do half the I/O. */
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
  if (sqlite3_prepare_v2(db,
                         "SELECT (SELECT CAST(value AS INTEGER) FROM dl_meta WHERE key = "
                         "'time_origin_ns'), (SELECT coalesce(max(id), 0) FROM nvtx_ranges)",
                         -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW) {
    rc = lerr(db, err, errlen, "dldb_live_open: meta");
    goto out;
  }
  l->w->origin = sqlite3_column_int64(st, 0);
  if (first_free_id) *first_free_id = sqlite3_column_int64(st, 1) + 1;
  l->w->existing = 0;              /* raw inserts allowed */
  l->w->batch_rows = INT64_MAX;    /* the caller commits */
out:
  sqlite3_finalize(st);
  if (rc) {
    dldb_writer_abort(&l->w);
    free(l);
    return rc;
  }
  *out = l;
  return DL_OK;
}

dldb_writer *dldb_live_writer(dldb_live *l) { return l->w; }

int dldb_live_kernel(dldb_live *l, const dldb_kernel *k, char *err, size_t errlen) {
  static const char *fn = "dldb_live_kernel";
  if (k->short_name_id <= 0 || k->long_name_id <= 0)
    return dl_err(err, errlen, DL_EINVAL, "%s: name ids missing", fn);
  int rc = dldb__tx_begin(l->w, err, errlen);
  return rc ? rc : dldb__kernel_push(l->w, k, k->short_name_id, k->long_name_id, err, errlen, fn);
}

int dldb_live_api_call(dldb_live *l, const dldb_api_call *a, char *err, size_t errlen) {
  static const char *fn = "dldb_live_api_call";
  if (a->name_id <= 0) return dl_err(err, errlen, DL_EINVAL, "%s: name id missing", fn);
  int rc = dldb__tx_begin(l->w, err, errlen);
  return rc ? rc : dldb__api_push(l->w, a, a->name_id, err, errlen, fn);
}

/* The prepared statement `which`, reset, inside an open batch; NULL on error. */
static sqlite3_stmt *lstmt(dldb_live *l, int which, char *err, size_t errlen, const char *fn) {
  if (dldb__tx_begin(l->w, err, errlen)) return NULL;
  if (!l->st[which] && sqlite3_prepare_v3(l->w->db, live_sql[which], -1,
                                          SQLITE_PREPARE_PERSISTENT, &l->st[which], NULL)) {
    lerr(l->w->db, err, errlen, fn);
    return NULL;
  }
  sqlite3_reset(l->st[which]);
  sqlite3_clear_bindings(l->st[which]);
  return l->st[which];
}

int dldb_live_nvtx_range(dldb_live *l, int64_t id, const dldb_nvtx_range *r, char *err,
                         size_t errlen) {
  int rc = dldb__tx_begin(l->w, err, errlen);
  return rc ? rc : dldb__nvtx_push(l->w, id, r, err, errlen, "dldb_live_nvtx_range");
}

int dldb_live_context(dldb_live *l, int64_t context_id, int32_t device_id,
                      int32_t null_stream_id, char *err, size_t errlen) {
  sqlite3_stmt *st = lstmt(l, L_CONTEXT, err, errlen, "dldb_live_context");
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, context_id);
  sqlite3_bind_int(st, 2, device_id);
  sqlite3_bind_int(st, 3, null_stream_id);
  return dldb__step_done(l->w, st, err, errlen, "dldb_live_context");
}

int dldb_live_overhead(dldb_live *l, int overhead_kind, int object_kind, int64_t start_ns,
                       int64_t end_ns, char *err, size_t errlen) {
  sqlite3_stmt *st = lstmt(l, L_OVERHEAD, err, errlen, "dldb_live_overhead");
  if (!st) return DL_EDB;
  sqlite3_bind_int(st, 1, overhead_kind);
  sqlite3_bind_int(st, 2, object_kind);
  sqlite3_bind_int64(st, 3, start_ns - l->w->origin);
  sqlite3_bind_int64(st, 4, end_ns - l->w->origin);
  return dldb__step_done(l->w, st, err, errlen, "dldb_live_overhead");
}

int dldb_live_external_correlation(dldb_live *l, int64_t correlation_id, int external_kind,
                                   int64_t external_id, char *err, size_t errlen) {
  sqlite3_stmt *st = lstmt(l, L_EXTCORR, err, errlen, "dldb_live_external_correlation");
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, correlation_id);
  sqlite3_bind_int(st, 2, external_kind);
  sqlite3_bind_int64(st, 3, external_id);
  return dldb__step_done(l->w, st, err, errlen, "dldb_live_external_correlation");
}

int dldb_live_category(dldb_live *l, const char *domain, int64_t category, const char *name,
                       char *err, size_t errlen) {
  int64_t dom_id, name_id;
  int rc;
  if ((rc = dldb_write_domain(l->w, domain, &dom_id, err, errlen))) return rc;
  if ((rc = dldb_writer_intern(l->w, name, &name_id, err, errlen))) return rc;
  sqlite3_stmt *st = lstmt(l, L_CATEGORY, err, errlen, "dldb_live_category");
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, dom_id);
  sqlite3_bind_int64(st, 2, category);
  sqlite3_bind_int64(st, 3, name_id);
  return dldb__step_done(l->w, st, err, errlen, "dldb_live_category");
}

int dldb_live_commit(dldb_live *l, char *err, size_t errlen) {
  return dldb__tx_commit(l->w, err, errlen); /* writes the batches first */
}

int dldb_live_close(dldb_live **pl, char *err, size_t errlen) {
  dldb_live *l = pl ? *pl : NULL;
  if (!l) return DL_OK;
  *pl = NULL;
  int rc = dldb__tx_commit(l->w, err, errlen);
  for (int i = 0; i < L_COUNT; i++) sqlite3_finalize(l->st[i]);
  dldb_writer_abort(&l->w); /* nothing open any more: closes and frees */
  free(l);
  return rc;
}

int dldb_live_finish(const char *path, const char *final_path, int force, char *err,
                     size_t errlen) {
  sqlite3 *db = NULL;
  int rc = DL_OK;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    rc = dl_err(err, errlen, DL_ENOTFOUND, "dldb_live_finish: %s: %s", path,
                db ? sqlite3_errmsg(db) : "cannot open");
    goto out;
  }
  sqlite3_busy_timeout(db, 5000);
  if (sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE", NULL,
                   NULL, NULL) != SQLITE_OK) {
    rc = lerr(db, err, errlen, "dldb_live_finish");
    goto out;
  }
  if (sqlite3_close(db) != SQLITE_OK) {
    rc = lerr(db, err, errlen, "dldb_live_finish: close");
    goto out;
  }
  db = NULL;
  if (!force) {
    if (link(path, final_path) == 0) {
      unlink(path);
      goto out;
    }
    if (errno == EEXIST || access(final_path, F_OK) == 0) {
      rc = dl_err(err, errlen, DL_EEXIST, "dldb_live_finish: %s exists (use --force)",
                  final_path);
      goto out;
    }
  }
  if (rename(path, final_path) != 0)
    rc = dl_err(err, errlen, DL_EIO, "dldb_live_finish: rename to %s: %s", final_path,
                strerror(errno));
out:
  if (db) sqlite3_close(db);
  return rc;
}

int dldb_live_count(const char *path, dldb_live_counts *c, char *err, size_t errlen) {
  static const char sql[] =
      "SELECT (SELECT count(*) FROM nvtx_ranges), (SELECT count(*) FROM domains), "
      "(SELECT count(*) FROM threads), (SELECT count(*) FROM kernels), "
      "(SELECT count(*) FROM memcpys), (SELECT count(*) FROM memsets), "
      "(SELECT count(*) FROM cuda_api_calls), (SELECT count(*) FROM gpus)";
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int rc = DL_OK;
  memset(c, 0, sizeof *c);
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
    rc = dl_err(err, errlen, DL_EDB, "dldb_live_count: %s: %s", path,
                db ? sqlite3_errmsg(db) : "cannot open");
    goto out;
  }
  int64_t *f[] = {&c->nvtx_ranges, &c->domains, &c->threads, &c->kernels,
                  &c->memcpys,     &c->memsets, &c->api_calls, &c->gpus};
  for (int i = 0; i < 8; i++) *f[i] = sqlite3_column_int64(st, i);
out:
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rc;
}
