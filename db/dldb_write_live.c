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

enum { L_NVTX, L_CONTEXT, L_OVERHEAD, L_EXTCORR, L_CATEGORY, L_COUNT };

static const char *const live_sql[L_COUNT] = {
    [L_NVTX] =
        "INSERT INTO nvtx_ranges(id, kind, domain_id, name_id, start_ns, end_ns, pid, tid, "
        "end_tid, parent_id, category, color, payload_kind, payload_int, payload_real) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    [L_CONTEXT] = "INSERT OR REPLACE INTO cuda_contexts(context_id, device_id, null_stream_id) "
                  "VALUES (?1, ?2, ?3)",
    [L_OVERHEAD] = "INSERT INTO cupti_overheads(overhead_kind, object_kind, start_ns, end_ns) "
                   "VALUES (?1, ?2, ?3, ?4)",
    [L_EXTCORR] = "INSERT INTO cupti_external_correlations(correlation_id, external_kind, "
                  "external_id) VALUES (?1, ?2, ?3)",
    [L_CATEGORY] = "INSERT OR REPLACE INTO nvtx_categories(domain_id, category, name_id) "
                   "VALUES (?1, ?2, ?3)",
};

static const char side_tables_sql[] =
    "CREATE TABLE IF NOT EXISTS cuda_contexts ("
    "  context_id INTEGER PRIMARY KEY, device_id INTEGER NOT NULL,"
    "  null_stream_id INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS cupti_overheads ("
    "  overhead_kind INTEGER NOT NULL, object_kind INTEGER NOT NULL,"
    "  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS cupti_external_correlations ("
    "  correlation_id INTEGER NOT NULL, external_kind INTEGER NOT NULL,"
    "  external_id INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS nvtx_categories ("
    "  domain_id INTEGER NOT NULL REFERENCES domains(id), category INTEGER NOT NULL,"
    "  name_id INTEGER NOT NULL REFERENCES strings(id), PRIMARY KEY (domain_id, category));";

/* Rows of the two hot kinds (kernels, API calls) gathered for multi-row
 * INSERTs: one statement execution per LB_ROWS rows instead of one per
 * row, and no clearing of bindings (every parameter is bound each time). */
enum { LB_KERNEL, LB_API, LB_COUNT, LB_ROWS = 32, LB_MAX_COLS = 18 };

static const struct {
  const char *table, *cols;
  int ncols;
} lb_def[LB_COUNT] = {
    [LB_KERNEL] = {"kernels",
                   "short_name_id, long_name_id, device_id, context_id, stream_id, "
                   "gpu_start_ns, gpu_end_ns, correlation_id, pid, grid_x, grid_y, grid_z, "
                   "block_x, block_y, block_z, registers_per_thread, static_smem_bytes, "
                   "dynamic_smem_bytes",
                   18},
    [LB_API] = {"cuda_api_calls",
                "api_kind, name_id, start_ns, end_ns, pid, tid, correlation_id, return_value", 8},
};

typedef struct lbuf {
  int64_t v[LB_ROWS * LB_MAX_COLS];
  int n;
  sqlite3_stmt *multi, *single;  /* LB_ROWS rows, one row */
} lbuf;

struct dldb_live {
  dldb_writer *w;
  sqlite3_stmt *st[L_COUNT];
  lbuf lb[LB_COUNT];
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
  if (sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(db, side_tables_sql, NULL, NULL, NULL) != SQLITE_OK)
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
                   NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(db, side_tables_sql, NULL, NULL, NULL) != SQLITE_OK) {
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

/* "INSERT INTO t(cols) VALUES (?, ...), ..." for rows rows. */
static int lb_prepare(dldb_live *l, int which, int rows, sqlite3_stmt **out, char *err,
                      size_t errlen) {
  int nc = lb_def[which].ncols;
  size_t cap = 128 + strlen(lb_def[which].cols) + (size_t)rows * ((size_t)nc * 2 + 4);
  char *sql = malloc(cap);
  if (!sql) return dl_err(err, errlen, DL_ENOMEM, "dldb_live: out of memory");
  size_t n = (size_t)snprintf(sql, cap, "INSERT INTO %s(%s) VALUES ", lb_def[which].table,
                              lb_def[which].cols);
  for (int r = 0; r < rows; r++) {
    sql[n++] = r ? ',' : ' ';
    sql[n++] = '(';
    for (int c = 0; c < nc; c++) {
      if (c) sql[n++] = ',';
      sql[n++] = '?';
    }
    sql[n++] = ')';
  }
  sql[n] = '\0';
  int rc = sqlite3_prepare_v3(l->w->db, sql, (int)n + 1, SQLITE_PREPARE_PERSISTENT, out, NULL);
  free(sql);
  return rc == SQLITE_OK ? DL_OK : lerr(l->w->db, err, errlen, "dldb_live: prepare");
}

/* Writes the gathered rows of one kind. */
static int lb_flush(dldb_live *l, int which, char *err, size_t errlen) {
  lbuf *b = &l->lb[which];
  int nc = lb_def[which].ncols, rc = DL_OK;
  if (!b->n) return DL_OK;
  if ((rc = dldb__tx_begin(l->w, err, errlen))) return rc;
  sqlite3_stmt **st = b->n == LB_ROWS ? &b->multi : &b->single;
  if (!*st && (rc = lb_prepare(l, which, b->n == LB_ROWS ? LB_ROWS : 1, st, err, errlen)))
    return rc;
  int per = b->n == LB_ROWS ? LB_ROWS : 1;
  for (int r = 0; r < b->n && rc == DL_OK; r += per) {
    for (int i = 0; i < per * nc; i++) sqlite3_bind_int64(*st, i + 1, b->v[r * nc + i]);
    rc = dldb__step_done(l->w, *st, err, errlen, "dldb_live: insert");
  }
  b->n = 0;
  return rc;
}

static int lb_flush_all(dldb_live *l, char *err, size_t errlen) {
  int rc = DL_OK;
  for (int i = 0; i < LB_COUNT && rc == DL_OK; i++) rc = lb_flush(l, i, err, errlen);
  return rc;
}

/* Room for one row of kind which (flushing a full buffer first). */
static int64_t *lb_row(dldb_live *l, int which, char *err, size_t errlen) {
  lbuf *b = &l->lb[which];
  if (b->n == LB_ROWS && lb_flush(l, which, err, errlen)) return NULL;
  return &b->v[(b->n++) * lb_def[which].ncols];
}

int dldb_live_kernel(dldb_live *l, const dldb_kernel *k, char *err, size_t errlen) {
  if (k->short_name_id <= 0 || k->long_name_id <= 0)
    return dl_err(err, errlen, DL_EINVAL, "dldb_live_kernel: name ids missing");
  int64_t *v = lb_row(l, LB_KERNEL, err, errlen);
  if (!v) return DL_EDB;
  int64_t o = l->w->origin;
  v[0] = k->short_name_id, v[1] = k->long_name_id, v[2] = k->device_id;
  v[3] = k->context_id, v[4] = k->stream_id, v[5] = k->gpu_start_ns - o;
  v[6] = k->gpu_end_ns - o, v[7] = k->correlation_id, v[8] = k->pid;
  v[9] = k->grid[0], v[10] = k->grid[1], v[11] = k->grid[2];
  v[12] = k->block[0], v[13] = k->block[1], v[14] = k->block[2];
  v[15] = k->registers_per_thread, v[16] = k->static_smem_bytes, v[17] = k->dynamic_smem_bytes;
  return DL_OK;
}

int dldb_live_api_call(dldb_live *l, const dldb_api_call *a, char *err, size_t errlen) {
  if (a->name_id <= 0)
    return dl_err(err, errlen, DL_EINVAL, "dldb_live_api_call: name id missing");
  int64_t *v = lb_row(l, LB_API, err, errlen);
  if (!v) return DL_EDB;
  int64_t o = l->w->origin;
  v[0] = a->api_kind, v[1] = a->name_id, v[2] = a->start_ns - o, v[3] = a->end_ns - o;
  v[4] = a->pid, v[5] = a->tid, v[6] = a->correlation_id, v[7] = a->return_value;
  return DL_OK;
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
  const char *fn = "dldb_live_nvtx_range";
  dldb_writer *w = l->w;
  const char *dom = r->domain ? r->domain : "default-domain";
  int64_t dom_id, name_id;
  int rc;
  if (w->last_domain_name && strcmp(w->last_domain_name, dom) == 0) {
    dom_id = w->last_domain_id;
  } else {
    int64_t sid;
    if ((rc = dldb_write_domain(w, dom, &dom_id, err, errlen))) return rc;
    if ((rc = dldb_writer_intern(w, dom, &sid, err, errlen))) return rc;
    w->last_domain_name = w->strs[sid];
    w->last_domain_id = dom_id;
  }
  if (r->name_id > 0) name_id = r->name_id;
  else if ((rc = dldb_writer_intern(w, r->name, &name_id, err, errlen))) return rc;
  sqlite3_stmt *st = lstmt(l, L_NVTX, err, errlen, fn);
  if (!st) return DL_EDB;
  int64_t end = r->kind == DLDB_NVTX_MARK ? r->start_ns : r->end_ns;
  sqlite3_bind_int64(st, 1, id);
  sqlite3_bind_int(st, 2, r->kind ? r->kind : DLDB_NVTX_PUSHPOP);
  sqlite3_bind_int64(st, 3, dom_id);
  sqlite3_bind_int64(st, 4, name_id);
  sqlite3_bind_int64(st, 5, r->start_ns - w->origin);
  sqlite3_bind_int64(st, 6, end - w->origin);
  sqlite3_bind_int64(st, 7, r->pid);
  sqlite3_bind_int64(st, 8, r->tid);
  sqlite3_bind_int64(st, 9, r->end_tid ? r->end_tid : r->tid);
  if (r->parent_id > 0) sqlite3_bind_int64(st, 10, r->parent_id);
  sqlite3_bind_int(st, 11, r->category);
  sqlite3_bind_int64(st, 12, r->color);
  sqlite3_bind_int(st, 13, r->payload_kind);
  if (r->payload_kind == DLDB_PAYLOAD_INT) sqlite3_bind_int64(st, 14, r->payload_int);
  if (r->payload_kind == DLDB_PAYLOAD_REAL) sqlite3_bind_double(st, 15, r->payload_real);
  return dldb__step_done(w, st, err, errlen, fn);
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

int dldb_live_scan_extcorr(dldb_writer *w, int64_t domain_id,
                           int (*fn)(void *ctx, const dldb_live_extcorr *e), void *ctx,
                           char *err, size_t errlen) {
  static const char sql[] =
      "SELECT e.correlation_id, r.id, r.pid, r.tid, r.start_ns, r.end_ns "
      "FROM cupti_external_correlations e JOIN nvtx_ranges r ON r.id = e.external_id "
      "WHERE e.external_kind = 3 AND r.domain_id = ?1 AND r.kind IN (1, 2) "
      "ORDER BY e.correlation_id";
  sqlite3_stmt *st = NULL;
  int rc = DL_OK, step;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                         "name = 'cupti_external_correlations'",
                         -1, &st, NULL) != SQLITE_OK)
    return lerr(w->db, err, errlen, "dldb_live_scan_extcorr");
  step = sqlite3_step(st);
  sqlite3_finalize(st);
  st = NULL;
  if (step != SQLITE_ROW) return DL_OK;
  if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
    return lerr(w->db, err, errlen, "dldb_live_scan_extcorr");
  sqlite3_bind_int64(st, 1, domain_id);
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_live_extcorr e = {.correlation_id = sqlite3_column_int64(st, 0),
                           .range_id = sqlite3_column_int64(st, 1),
                           .pid = sqlite3_column_int64(st, 2),
                           .tid = sqlite3_column_int64(st, 3),
                           .start_ns = sqlite3_column_int64(st, 4),
                           .end_ns = sqlite3_column_int64(st, 5)};
    if ((rc = fn(ctx, &e))) break;
  }
  if (!rc && step != SQLITE_DONE) rc = lerr(w->db, err, errlen, "dldb_live_scan_extcorr");
  sqlite3_finalize(st);
  return rc;
}

int dldb_live_commit(dldb_live *l, char *err, size_t errlen) {
  int rc = lb_flush_all(l, err, errlen);
  return rc ? rc : dldb__tx_commit(l->w, err, errlen);
}

int dldb_live_close(dldb_live **pl, char *err, size_t errlen) {
  dldb_live *l = pl ? *pl : NULL;
  if (!l) return DL_OK;
  *pl = NULL;
  int rc = lb_flush_all(l, err, errlen);
  if (rc == DL_OK) rc = dldb__tx_commit(l->w, err, errlen);
  for (int i = 0; i < L_COUNT; i++) sqlite3_finalize(l->st[i]);
  for (int i = 0; i < LB_COUNT; i++) {
    sqlite3_finalize(l->lb[i].multi);
    sqlite3_finalize(l->lb[i].single);
  }
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
