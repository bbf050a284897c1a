/*
 * dldb_write.c - the writer's life cycle, string interning and raw inserts.
 *
 * A new file is built at `<out>.tmp-XXXXXX` (mkstemp in the target
 * directory) with journal_mode=MEMORY (rollback still works, nothing on disk)
 * and synchronous=OFF: a crash leaves only a temporary file, never a broken
 * output. Inserts run in transactions of opts.batch_rows rows. Commit syncs
 * the file, then links it onto the final name (link() fails atomically when
 * the name exists) or, with force, rename()s it over the old file: the old
 * file stays intact until a complete new one replaces it.
 */
#include "dldb_write_internal.h"
#include "dldb_nvtxzones.h"
#include "dldb_rawmem.h"
#include "dl_sqlbuild.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asset.h"

extern const dl_asset dldb_schema_assets[];

/* SQL of every prepared statement, indexed by DLDB__S_*. */
static const char *const stmt_sql[DLDB__S_COUNT] = {
    [DLDB__S_STRING_GET] = "SELECT value FROM strings WHERE id = ?1",
    [DLDB__S_STRING_AHEAD] = "SELECT id, value FROM strings WHERE id >= ?1 ORDER BY id LIMIT ?2",
    [DLDB__S_META] = "INSERT OR REPLACE INTO dl_meta(key, value) VALUES (?1, ?2)",
    [DLDB__S_DOMAIN_FIND] = "SELECT id FROM domains WHERE name_id = ?1",
    [DLDB__S_DOMAIN_ADD] = "INSERT INTO domains(name_id) VALUES (?1)",
    [DLDB__S_SYSCONFIG] =
        "INSERT INTO read_only_system_config(is_valid, num_gpus, cpu_model, driver_version, "
        "framework, cuda_version, cudnn_version, nsys_version, dlprof_version, dlprof_build, "
        "profile_name, mode_enum, mode_string, original_command) "
        "VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    [DLDB__S_GPU] = "INSERT OR REPLACE INTO gpus(device_id, gpu_name, cc_major, cc_minor, "
                    "sm_count, memory_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [DLDB__S_THREAD] = "INSERT OR REPLACE INTO threads(pid, tid, name_id) VALUES (?1, ?2, ?3)",
    [DLDB__S_RANGE_STACK] = "INSERT INTO nvtx_range_stacks(range_id, stack_id) VALUES (?1, ?2)",
    [DLDB__S_MEMCPY] =
        "INSERT INTO memcpys(copy_kind, src_kind, dst_kind, bytes, device_id, stream_id, "
        "gpu_start_ns, gpu_end_ns, correlation_id, pid) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [DLDB__S_MEMSET] = "INSERT INTO memsets(value, bytes, mem_kind, device_id, stream_id, "
                       "gpu_start_ns, gpu_end_ns, correlation_id, pid) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [DLDB__S_SYNC] = "INSERT INTO syncs(sync_type, device_id, stream_id, event_id, start_ns, "
                     "end_ns, correlation_id, pid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [DLDB__S_AGGR] =
        "INSERT INTO aggregations(domain_id, iter_start, iter_stop, iter_aggregated, "
        "key_node_name, user_name, host_name, aggr_start, aggr_end, wall_start_ns, wall_end_ns, "
        "key_op_found, tc_rules) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10, ?11, ?12)",
    [DLDB__S_SUMMARY] =
        "INSERT INTO aggr_summary VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
        "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, "
        "?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39)",
    [DLDB__S_ITER] = "INSERT INTO aggr_iterations VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                     "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    [DLDB__S_OP] = "INSERT INTO aggr_ops VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
                   "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
    [DLDB__S_ITER_OP] = "INSERT INTO aggr_iter_ops VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [DLDB__S_OP_KERNEL] =
        "INSERT INTO aggr_op_kernels VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    [DLDB__S_GROUP] = "INSERT INTO aggr_group_ops VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                      "?10, ?11, ?12, ?13, ?14)",
    [DLDB__S_OP_TYPE] = "INSERT INTO aggr_op_types VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                        "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
    [DLDB__S_GPU_UTIL] = "INSERT INTO aggr_gpus VALUES (?1, ?2, ?3, ?4)",
    [DLDB__S_FINDING] = "INSERT INTO aggr_findings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
};

/* Heads and widths of the batched inserts, indexed by DLDB__B_*. OR FAIL:
 * a statement that fails is not undone (a failed write ends the writer's
 * transaction anyway: dldb_batch.h), so SQLite keeps no statement journal
 * of the pages each batch's INSERT changes: 7-10 % less a row
 * (docs/performance.md). The derived rows' aggr_id is bound once a
 * statement and their constant columns are literals (row, shared:
 * dldb__batch_set_row). */
static const struct {
  const char *head;
  int ncols;
  const char *id_table; /* the first column is its INTEGER PRIMARY KEY (dldb__batch_init_ids) */
  const char *row;      /* a row's template, NULL: (?, ...) */
} batch_def[DLDB__B_COUNT] = {
    [DLDB__B_STRING] = {"INSERT OR FAIL INTO strings(id, value) VALUES ", 2, "strings", NULL},
    [DLDB__B_NVTX] = {"INSERT OR FAIL INTO nvtx_ranges(id, kind, domain_id, name_id, start_ns, "
                      "end_ns, pid, tid, end_tid, parent_id, category, color, payload_kind, "
                      "payload_int, payload_real) VALUES ",
                      15, "nvtx_ranges", NULL},
    [DLDB__B_API] = {"INSERT OR FAIL INTO cuda_api_calls(api_kind, name_id, start_ns, end_ns, "
                     "pid, tid, correlation_id, return_value) VALUES ",
                     8, NULL, NULL},
    [DLDB__B_KERNEL] = {"INSERT OR FAIL INTO kernels(id, short_name_id, long_name_id, device_id, "
                        "context_id, stream_id, gpu_start_ns, gpu_end_ns, correlation_id, pid, "
                        "grid_x, grid_y, grid_z, block_x, block_y, block_z, "
                        "registers_per_thread, static_smem_bytes, dynamic_smem_bytes) VALUES ",
                        19, "kernels", NULL},
    [DLDB__B_KATTR] = {"INSERT OR FAIL INTO aggr_kernels(aggr_id, iter_value, kernel_id, op_idx, "
                       "uses_tc, api_start_ns, api_dur_ns) VALUES ",
                       7, NULL, "(?1,?,?,?,?,?,?)"},
    [DLDB__B_PYFRAME] = {"INSERT OR FAIL INTO dl_python_frames(pid, tid, start_ns, end_ns, "
                         "name_id, python_id, parent_python_id) VALUES ",
                         7, NULL, NULL},
    [DLDB__B_KMARK] = {"INSERT OR FAIL INTO aggr_dl_kernel_marks(aggr_id, place, api_start_ns) "
                       "VALUES ",
                       3, NULL, "(?1,?,?)"},
    [DLDB__B_KGROUP] = {"INSERT OR FAIL INTO aggr_dl_kernel_groups(aggr_id, group_id, op_idx, "
                        "kernel_id, uses_tc, calls) VALUES ",
                        6, NULL, "(?1,?,?,?,?,?)"},
    [DLDB__B_STATS] = {"INSERT OR FAIL INTO aggr_stats(aggr_id, kind, row_idx, name_id, label, "
                       "short_name_id, grid, block, configs, instances, total, avg, med, min, max, "
                       "stddev, time_pct, bytes_total, bytes_avg, bytes_med, bytes_min, bytes_max, "
                       "bytes_stddev, range_time, gpu_ops, avg_level, avg_children) VALUES ",
                       27, NULL, NULL},
    [DLDB__B_NVTX_STATS] = {"INSERT OR FAIL INTO aggr_nvtx_stats(aggr_id, kind, row_idx, name_id, "
                            "style, instances, total, avg, med, min, max, stddev, time_pct, "
                            "range_time, gpu_ops, avg_level, avg_children) VALUES ",
                            17, NULL, NULL},
    [DLDB__B_NVTX_RUNS] = {"INSERT OR FAIL INTO aggr_nvtx_runs(aggr_id, kind, row_idx, key, "
                           "instances, total, med, min, max, stddev, range_time, gpu_ops, levels, "
                           "children) VALUES ",
                           14, NULL, "(?1,?,?,?,?,?,?,?,?,?,?,?,?,?)"},
    /* the rows of one range leave their NULL columns out: 1-2 s less at 10 M
     * distinct names (docs/performance.md); kind (6: DLDB_STATS_NVTX, 7:
     * DLDB_STATS_NVTX_GPU_PROJ) and instances (1) are literals, the cells
     * aggr_id, row_idx, key, total (and range_time, gpu_ops, levels,
     * children) */
    [DLDB__B_NVTX_ONE] = {"INSERT OR FAIL INTO aggr_nvtx_runs(aggr_id, kind, row_idx, key, "
                          "instances, total) VALUES ",
                          4, NULL, "(?1,6,?,?,1,?)"},
    [DLDB__B_PROJ_ONE] = {"INSERT OR FAIL INTO aggr_nvtx_runs(aggr_id, kind, row_idx, key, "
                          "instances, total, range_time, gpu_ops, levels, children) VALUES ",
                          8, NULL, "(?1,7,?,?,1,?,?,?,?,?)"},
};

/* ---- Small helpers -------------------------------------------------------- */

static int exec(dldb_writer *w, const char *sql, char *err, size_t errlen, const char *fn) {
  if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  return DL_OK;
}

int dldb__bulk_err(dldb_writer *w, int rc, char *err, size_t errlen, const char *fn,
                   const char *what) {
  if (rc == DL_EIO) {
    int sys = errno;
    return dl_err(err, errlen, rc, "%s: writing %s failed: %s", fn,
                  w->path ? w->path : "the dldb", sys ? strerror(sys) : "an I/O error");
  }
  if (rc == DL_ENOMEM) return dl_err(err, errlen, rc, "%s: out of memory", fn);
  return dl_err(err, errlen, rc, "%s: %s not in key order", fn, what);
}

/* The directory of the strings' leaves, read as the set that built them
 * left the file: their texts are read by id from it (ahead_load). SQLite
 * only appends to strings from here on (larger ids, in the last leaf and
 * new ones), which leaves the other leaves as they are. Without one (an
 * error, DLDB_SCAN=sqlite) SQLite reads them. */
static void strings_leaves(dldb_writer *w) {
  const char *how = getenv("DLDB_SCAN");
  dl_sqlleaf_close(&w->str_leaf);
  if (!(how && !strcmp(how, "sqlite"))) dl_sqlleaf_open(w->db, "strings", &w->str_leaf);
}

int dldb__bulk_end(dldb_writer *w, int keep, char *err, size_t errlen) {
  if (!w->bulk) return DL_OK;
  int strings = keep && w->bulk_tab[DLDB__B_STRING];
  int rc = dl_sqlbuild_end(&w->bulk, keep);
  memset(w->bulk_tab, 0, sizeof w->bulk_tab);
  w->nvtx_bulk = w->kidx_bulk = NULL;
  memset(w->pc_bulk, 0, sizeof w->pc_bulk);
  if (rc) return dldb__bulk_err(w, rc, err, errlen, "dldb_writer", "rows");
  if (strings) strings_leaves(w); /* before SQLite writes again */
  return keep ? dldb__tx_begin(w, err, errlen) : DL_OK;
}

int dldb__bulk_wanted(const dldb_writer *w) {
  const char *how = getenv("DLDB_WRITE");
  return !w->existing && w->tmp && !w->bulk && !(how && !strcmp(how, "sqlite"));
}

int dldb__bulk_begin(dldb_writer *w, int keep_strings, char *err, size_t errlen,
                     const char *fn) {
  int rc = keep_strings ? DL_OK : dldb__flush(w, err, errlen, fn);
  for (int i = 0; keep_strings && i < DLDB__B_COUNT; i++)
    if (i != DLDB__B_STRING && w->batch[i].nrows &&
        dldb__batch_flush(&w->batch[i], w->db) != SQLITE_OK)
      return dldb__sqlerr(w, err, errlen, fn);
  if (rc) return rc;
  if (w->in_tx) {
    if (sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
      return sqlite3_get_autocommit(w->db) ? dldb__sqlerr(w, err, errlen, fn)
                                           : DL_OK; /* a reader holds the file: SQLite */
    w->in_tx = 0;
    w->pending = 0;
  }
  if (dl_sqlbuild_begin(w->db, &w->bulk) == DL_OK) return DL_OK;
  w->bulk = NULL;
  return dldb__tx_begin(w, err, errlen);
}

/* The raw tables a set may build, with their batches; the CUDA calls'
 * batch leaves the id to SQLite, which the build gives as SQLite would. */
static const struct {
  int which;
  const char *table;
  int ncols;
} raw_tables[] = {
    {DLDB__B_STRING, "strings", 2},
    {DLDB__B_NVTX, "nvtx_ranges", 15},
    {DLDB__B_API, "cuda_api_calls", 9},
    {DLDB__B_KERNEL, "kernels", 19},
};

static const char *raw_table(int which) {
  for (size_t i = 0; i < sizeof raw_tables / sizeof raw_tables[0]; i++)
    if (raw_tables[i].which == which) return raw_tables[i].table;
  return NULL;
}

/* One batch row into its table's build (a raw table's, or aggr_kernels'). */
static int bulk_row(dldb_writer *w, int which, const dldb__cell *row, char *err, size_t errlen,
                    const char *fn) {
  dl_sqlbuild *b = w->bulk_tab[which];
  dl_sqlpage_val v[DL_SQLPAGE_MAX_COLS];
  int n = 0;
  if (which == DLDB__B_API)
    v[n++] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = dl_sqlbuild_next_rowid(b)};
  for (int i = 0; i < batch_def[which].ncols; i++, n++) {
    const dldb__cell *c = &row[i];
    if (c->type == DLDB__INT) v[n] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = c->v.i};
    else if (c->type == DLDB__REAL) v[n] = (dl_sqlpage_val){.type = SQLITE_FLOAT, .d = c->v.d};
    else if (c->type == DLDB__TEXT) {
      const char *t = c->v.s ? c->v.s : "";
      v[n] = (dl_sqlpage_val){.type = SQLITE_TEXT, .s = t,
                              .n = c->n >= 0 && c->v.s ? (size_t)c->n : strlen(t)};
    } else v[n] = (dl_sqlpage_val){.type = SQLITE_NULL};
  }
  int rc = dl_sqlbuild_row(b, v);
  return rc ? dldb__bulk_err(w, rc, err, errlen, fn, "rows") : DL_OK;
}

typedef struct bulk_ctx {
  dldb_writer *w;
  char *err;
  size_t errlen;
} bulk_ctx;

static int string_to_bulk(void *ctx, const dldb__cell *row) {
  bulk_ctx *c = ctx;
  return bulk_row(c->w, DLDB__B_STRING, row, c->err, c->errlen, "dldb_writer_raw_pages");
}

/* At the first raw row after dldb_writer_raw_pages(w, 1): the rows so far
 * committed (the strings' batch kept back), then a set of the raw tables
 * still empty, which begins with the strings' batch. The set needs the
 * strings (every raw row may add one) and the table of the row that began
 * it; otherwise SQLite goes on as before. */
static int raw_begin(dldb_writer *w, int which, char *err, size_t errlen) {
  static const char *fn = "dldb_writer_raw_pages";
  w->raw_pages = 0; /* one set at most */
  int rc = dldb__bulk_begin(w, 1, err, errlen, fn);
  if (rc || !w->bulk) return rc;
  for (size_t i = 0; i < sizeof raw_tables / sizeof raw_tables[0]; i++) {
    int a = dl_sqlbuild_add(w->bulk, raw_tables[i].table, raw_tables[i].ncols,
                            &w->bulk_tab[raw_tables[i].which]);
    if (a == DL_ENOMEM) return dl_err(err, errlen, a, "%s: out of memory", fn);
  }
  if (!w->bulk_tab[DLDB__B_STRING] || !w->bulk_tab[which])
    return dldb__bulk_end(w, 1, err, errlen);
  bulk_ctx c = {w, err, errlen};
  rc = dldb__batch_each(&w->batch[DLDB__B_STRING], string_to_bulk, &c);
  dldb__batch_drop(&w->batch[DLDB__B_STRING]);
  return rc;
}

int dldb_writer_raw_pages(dldb_writer *w, int on, char *err, size_t errlen) {
  const char *how = getenv("DLDB_WRITE");
  w->raw_pages = on && !w->existing && w->tmp && !w->in_aggr && !w->reader &&
                 !(how && !strcmp(how, "sqlite"));
  return on || !w->bulk_tab[DLDB__B_STRING] ? DL_OK : dldb__bulk_end(w, 1, err, errlen);
}

sqlite3_stmt *dldb__stmt(dldb_writer *w, int which) {
  if (w->bulk && dldb__bulk_end(w, 1, NULL, 0) != DL_OK) return NULL;
  if (!w->stmts[which] &&
      sqlite3_prepare_v3(w->db, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
                         &w->stmts[which], NULL) != SQLITE_OK)
    return NULL;
  sqlite3_reset(w->stmts[which]);
  sqlite3_clear_bindings(w->stmts[which]);
  return w->stmts[which];
}

int dldb__step_done(dldb_writer *w, sqlite3_stmt *st, char *err, size_t errlen, const char *fn) {
  int rc = sqlite3_step(st);
  int ok = rc == SQLITE_DONE || rc == SQLITE_ROW;
  int out = ok ? DL_OK : dldb__sqlerr(w, err, errlen, fn);
  sqlite3_reset(st);
  return out;
}

void dldb__bind_text(sqlite3_stmt *st, int i, const char *s) {
  sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_TRANSIENT);
}

int dldb__flush(dldb_writer *w, char *err, size_t errlen, const char *fn) {
  int rc = dldb__bulk_end(w, 1, err, errlen);
  if (rc) return rc;
  for (int i = 0; i < DLDB__B_COUNT; i++)
    if (w->batch[i].nrows && dldb__batch_flush(&w->batch[i], w->db) != SQLITE_OK)
      return dldb__sqlerr(w, err, errlen, fn);
  return DL_OK;
}

int dldb__batch_row(dldb_writer *w, int which, const dldb__cell *row, char *err, size_t errlen,
                    const char *fn) {
  if (w->bulk_tab[which]) return bulk_row(w, which, row, err, errlen, fn);
  if (w->raw_pages && !w->bulk && which != DLDB__B_STRING && raw_table(which)) {
    int rc = raw_begin(w, which, err, errlen);
    if (rc) return rc;
    if (w->bulk_tab[which]) return bulk_row(w, which, row, err, errlen, fn);
  }
  int rc = dldb__bulk_end(w, 1, err, errlen);
  if (rc) return rc;
  if (dldb__batch_push(&w->batch[which], w->db, row) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  return DL_OK;
}

/* Finalizes every statement (before the connection closes). */
static void finalize_all(dldb_writer *w) {
  for (int i = 0; i < DLDB__S_COUNT; i++) {
    sqlite3_finalize(w->stmts[i]);
    w->stmts[i] = NULL;
  }
  for (int i = 0; i < DLDB__B_COUNT; i++) dldb__batch_free(&w->batch[i]);
}

static void batches_init(dldb_writer *w) {
  for (int i = 0; i < DLDB__B_COUNT; i++) {
    dldb__batch_init_ids(&w->batch[i], batch_def[i].head, batch_def[i].ncols,
                         batch_def[i].id_table);
    dldb__batch_set_row(&w->batch[i], batch_def[i].row, 1);
  }
}

int dldb__tx_begin(dldb_writer *w, char *err, size_t errlen) {
  if (w->bulk) return dldb__bulk_end(w, 1, err, errlen); /* which begins one */
  if (w->in_tx) return DL_OK;
  int rc = exec(w, "BEGIN", err, errlen, "dldb_writer: begin");
  if (rc == DL_OK) w->in_tx = 1;
  return rc;
}

int dldb__tx_commit(dldb_writer *w, char *err, size_t errlen) {
  int rc = dldb__bulk_end(w, 1, err, errlen); /* its pages are written: a transaction begins */
  if (rc || !w->in_tx) return rc;
  rc = dldb__flush(w, err, errlen, "dldb_writer: commit");
  if (rc) return rc;
  w->in_tx = 0;
  w->pending = 0;
  return exec(w, "COMMIT", err, errlen, "dldb_writer: commit");
}

/* Counts one row of a raw insert; commits every batch_rows rows. */
static int row_begin(dldb_writer *w, char *err, size_t errlen, const char *fn) {
  if (w->existing)
    return dl_err(err, errlen, DL_EINVAL, "%s: raw records cannot be added to an existing dldb",
                  fn);
  if (w->in_aggr)
    return dl_err(err, errlen, DL_EINVAL, "%s: an aggregation is open", fn);
  if (w->bulk_tab[DLDB__B_STRING]) return DL_OK; /* the raw tables' pages: no transaction */
  if (w->pending >= w->batch_rows) {
    int rc = dldb__tx_commit(w, err, errlen);
    if (rc) return rc;
  }
  w->pending++;
  return dldb__tx_begin(w, err, errlen);
}

int dldb__raw_on_disk(dldb_writer *w) {
  const char *how = getenv("DLDB_SCAN");
  if (how && !strcmp(how, "sqlite")) return 0;
  if (w->in_aggr) return 1; /* committed before it; its sets build its own tables */
  if (dldb__bulk_end(w, 1, NULL, 0) != DL_OK) return 0;
  if (w->reader) return 1;
  if (w->in_tx && dldb__tx_commit(w, NULL, 0) != DL_OK) return 0;
  return !w->in_tx;
}

int dldb__pages_current(dldb_writer *w) {
  const char *how = getenv("DLDB_SCAN");
  if ((how && !strcmp(how, "sqlite")) || dldb__flush(w, NULL, 0, "dldb_writer") != DL_OK) return 0;
  if (!w->in_tx) return 1;
  for (sqlite3_stmt *st = sqlite3_next_stmt(w->db, NULL); st; st = sqlite3_next_stmt(w->db, st))
    if (sqlite3_stmt_busy(st)) return 0;
  return sqlite3_db_cacheflush(w->db) == SQLITE_OK;
}

int dldb__row_begin(dldb_writer *w, char *err, size_t errlen, const char *fn) {
  return row_begin(w, err, errlen, fn);
}

/* ---- Interning ------------------------------------------------------------ */

/* Strings are cached in memory (an arena of big chunks, an id-indexed
 * pointer array and an open-addressing table of hashes) until the cache
 * holds DLDB__INTERN_BUDGET bytes. After that, new strings go to SQLite
 * only and are remembered by an 8-byte slot each (32 bits of their hash and
 * their id) in a second table; a slot whose hash bits match is confirmed by
 * reading the text back by id. Memory thus stays bounded on traces whose NVTX
 * texts are all distinct (PyTorch emit_nvtx's "seq = N"), the repeated names
 * (kernels, APIs, ops) seen first stay in memory, and `strings` needs no
 * index on its text (inserting 10 M distinct texts into one cost about
 * 2 us each). */

static uint64_t hash_str(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a, 8 bytes at a time */
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    memcpy(&v, s + i, 8);
    h = (h ^ v) * 1099511628211ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  h ^= h >> 32;
  return h ? h : 1;
}

static int intern_grow(dldb_writer *w) {
  size_t ncap = w->hcap ? w->hcap * 2 : 1024;
  dldb__slot *nt = calloc(ncap, sizeof *nt);
  if (!nt) return DL_ENOMEM;
  for (size_t i = 0; i < w->hcap; i++) {
    if (!w->htab[i].id) continue;
    size_t j = w->htab[i].hash & (ncap - 1);
    while (nt[j].id) j = (j + 1) & (ncap - 1);
    nt[j] = w->htab[i];
  }
  free(w->htab);
  w->htab = nt;
  w->hcap = ncap;
  return DL_OK;
}

/* A copy of s (n bytes + NUL) in the arena. */
static char *arena_copy(dldb_writer *w, const char *s, size_t n) {
  if (!w->arena || w->arena->used + n + 1 > w->arena->cap) {
    size_t cap = n + 1 > DLDB__ARENA_CHUNK ? n + 1 : DLDB__ARENA_CHUNK;
    dldb__chunk *c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->next = w->arena;
    c->used = 0;
    c->cap = cap;
    w->arena = c;
  }
  char *p = w->arena->data + w->arena->used;
  memcpy(p, s, n);
  p[n] = '\0';
  w->arena->used += n + 1;
  w->cached_bytes += n + 1;
  return p;
}

/* Adds s (len n) with id to the in-memory cache (copying it). */
static int intern_add(dldb_writer *w, const char *s, size_t n, int64_t id, uint64_t h) {
  if ((w->nstr + 1) * 2 > w->hcap && intern_grow(w)) return DL_ENOMEM;
  if ((size_t)id >= w->scap) {
    size_t ncap = w->scap ? w->scap * 2 : 1024;
    while (ncap <= (size_t)id) ncap *= 2;
    char **ns = realloc(w->strs, ncap * sizeof *ns);
    if (!ns) return DL_ENOMEM;
    memset(ns + w->scap, 0, (ncap - w->scap) * sizeof *ns);
    w->strs = ns;
    w->scap = ncap;
  }
  char *copy = arena_copy(w, s, n);
  if (!copy) return DL_ENOMEM;
  w->strs[id] = copy;
  size_t j = h & (w->hcap - 1);
  while (w->htab[j].id) j = (j + 1) & (w->hcap - 1);
  w->htab[j].hash = h;
  w->htab[j].id = id;
  w->nstr++;
  return DL_OK;
}

static int64_t intern_find(const dldb_writer *w, const char *s, size_t n, uint64_t h) {
  if (!w->hcap) return 0;
  for (size_t j = h & (w->hcap - 1); w->htab[j].id; j = (j + 1) & (w->hcap - 1)) {
    const char *c = w->strs[w->htab[j].id];
    if (w->htab[j].hash == h && memcmp(c, s, n) == 0 && c[n] == '\0') return w->htab[j].id;
  }
  return 0;
}

/* The first slot probed for a hash's high half (the only part a slot keeps,
 * so that the table can grow without the texts); cap is a power of 2. */
static size_t overflow_home(uint64_t tag, size_t cap) {
  return (size_t)((tag * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* Adds id (of a string hashing to h) to the table of uncached strings;
 * hint: the empty slot where overflow_find's probe for h ended, or
 * SIZE_MAX (saves a second random access to the table per new string). */
static int overflow_add(dldb_writer *w, uint64_t h, int64_t id, size_t hint) {
  if (id <= 0 || id > (int64_t)UINT32_MAX) return DL_EINVAL;
  if ((w->on + 1) * 4 > w->ocap * 3) { /* load <= 3/4: 8-byte slots, short probes */
    hint = SIZE_MAX;
    size_t ncap = w->ocap ? w->ocap * 2 : 4096;
    uint64_t *nt = calloc(ncap, sizeof *nt);
    if (!nt) return DL_ENOMEM;
    dl_advise_huge(nt, ncap * sizeof *nt);
    for (size_t i = 0; i < w->ocap; i++) {
      uint64_t v = w->otab[i];
      if (!v) continue;
      size_t j = overflow_home(v >> 32, ncap);
      while (nt[j]) j = (j + 1) & (ncap - 1);
      nt[j] = v;
    }
    free(w->otab);
    w->otab = nt;
    w->ocap = ncap;
  }
  uint64_t tag = h >> 32;
  size_t j = hint < w->ocap ? hint : overflow_home(tag, w->ocap);
  while (w->otab[j]) j = (j + 1) & (w->ocap - 1);
  w->otab[j] = tag << 32 | (uint64_t)id;
  w->on++;
  return DL_OK;
}

/* The id of an uncached string equal to s, 0 if none, -1 on a read error
 * (-2: of the table's pages being built). A slot keeps 32 bits of the
 * hash, so about N^2 / 2^33 of N distinct strings meet an earlier one's
 * slot (some 12,000 at 10 M): while the strings are built as pages they
 * are read from the build, which goes on. *end: the empty slot that ended
 * the probe (SIZE_MAX: no table). */
static int64_t overflow_find(dldb_writer *w, const char *s, size_t n, uint64_t h, size_t *end) {
  *end = SIZE_MAX;
  if (!w->ocap) return 0;
  uint64_t tag = h >> 32;
  sqlite3_stmt *st = NULL;
  size_t j = overflow_home(tag, w->ocap);
  for (; w->otab[j]; j = (j + 1) & (w->ocap - 1)) {
    if (w->otab[j] >> 32 != tag) continue;
    int64_t id = (int64_t)(w->otab[j] & UINT32_MAX);
    if (w->bulk_tab[DLDB__B_STRING]) { /* the table being built: its own rows */
      dl_sqlpage_val v;
      int r = dl_sqlbuild_read(w->bulk_tab[DLDB__B_STRING], id, 1, &v);
      if (r != DL_OK && r != DL_ENOTFOUND) return -2;
      if (r == DL_OK && v.type == SQLITE_TEXT && v.n == n && memcmp(v.s, s, n) == 0) return id;
      continue;
    }
    if (!st && (dldb__batch_flush(&w->batch[DLDB__B_STRING], w->db) != SQLITE_OK ||
                !(st = dldb__stmt(w, DLDB__S_STRING_GET))))
      return -1;
    sqlite3_bind_int64(st, 1, id);
    int r = sqlite3_step(st);
    int same = r == SQLITE_ROW && (size_t)sqlite3_column_bytes(st, 0) == n &&
               memcmp(sqlite3_column_blob(st, 0), s, n) == 0;
    sqlite3_reset(st);
    if (r != SQLITE_ROW && r != SQLITE_DONE) return -1;
    if (same) return id;
  }
  *end = j;
  return 0;
}

/* Puts every uncached string into the slot table again (it was dropped by
 * dldb_writer_begin_reads, or not built by dldb_writer_open_existing). */
static int overflow_rebuild(dldb_writer *w, char *err, size_t errlen, const char *fn) {
  int rc = dldb__bulk_end(w, 1, err, errlen); /* SQLite reads the table */
  if (rc) return rc;
  if (dldb__batch_flush(&w->batch[DLDB__B_STRING], w->db) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, "SELECT id, value FROM strings ORDER BY id", -1, &st, NULL))
    return dldb__sqlerr(w, err, errlen, fn);
  int s;
  while (rc == DL_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    if (id > 0 && (size_t)id < w->scap && w->strs[id]) continue; /* cached */
    const char *v = (const char *)sqlite3_column_text(st, 1);
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    rc = overflow_add(w, hash_str(v ? v : "", n), id, SIZE_MAX);
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fn);
  else if (rc) rc = dl_err(err, errlen, rc, "%s: out of memory", fn);
  sqlite3_finalize(st);
  if (rc == DL_OK) w->otab_stale = 0;
  return rc;
}

/* Reading: shrinks the page cache of w's connection to DLDB__READ_CACHE_KIB
 * and frees the pages over it; writing (0): the cache writes want, back. */
static void cache_for(dldb_writer *w, int reading) {
  if (!w || !w->db || reading == w->cache_reading) return;
  char sql[64];
  if (reading) { /* the size to go back to, as the pragma says it (pages, or -KiB) */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, "PRAGMA cache_size", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
      sqlite3_finalize(st);
      return;
    }
    w->cache_size = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql, "PRAGMA cache_size=-%d", DLDB__READ_CACHE_KIB);
  } else {
    snprintf(sql, sizeof sql, "PRAGMA cache_size=%lld", (long long)w->cache_size);
  }
  if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK) return; /* the cache stays */
  w->cache_reading = reading;
  if (!reading) return;
  sqlite3_db_release_memory(w->db);
#ifdef __GLIBC__
  malloc_trim(0); /* the pages are small blocks: glibc keeps them for itself otherwise */
#endif
}

/* Frees the table of the strings past the in-memory cache (8 bytes a
 * string: 128 MB at 10 M distinct NVTX texts); a later intern first reads
 * them all again to rebuild it. */
static void strings_idle(dldb_writer *w) {
  if (!w || !w->ocap) return;
  free(w->otab);
  w->otab = NULL;
  w->ocap = w->on = 0;
  w->otab_stale = 1;
}

uint64_t dldb_writer_hash(const char *s, size_t n) { return hash_str(s, n); }

/* The derived rows keep the small cache too: they are appended in key
 * order, and a 64 MiB cache wrote them no faster (docs/performance.md). */
void dldb_writer_begin_reads(dldb_writer *w) {
  strings_idle(w);
  cache_for(w, 1);
}

void dldb_writer_end_reads(dldb_writer *w) { cache_for(w, 0); }

/* Loads the table slots the lookup of hash h will read into the CPU cache:
 * with millions of distinct texts each lookup misses the cache otherwise. */
void dldb_writer_will_intern(const dldb_writer *w, uint64_t h) {
  if (!w) return;
  if (w->hcap) __builtin_prefetch(&w->htab[h & (w->hcap - 1)]);
  if (w->ocap) __builtin_prefetch(&w->otab[overflow_home(h >> 32, w->ocap)]);
}

/* dldb__intern with s's hash h when known (dldb_writer_hash; 0: not). */
static int intern_h(dldb_writer *w, const char *s, uint64_t known, int pin, int64_t *id,
                    char *err, size_t errlen) {
  static const char *fn = "dldb_writer_intern";
  if (!s) s = "";
  size_t n = strlen(s);
  if (n > DLDB_MAX_STRING_BYTES)
    return dl_err(err, errlen, DL_EINVAL, "%s: a string of %zu bytes (limit %d)", fn, n,
                  DLDB_MAX_STRING_BYTES);
  uint64_t h = known ? known : hash_str(s, n);
  int64_t found = intern_find(w, s, n, h);
  if (found) {
    *id = found;
    return DL_OK;
  }
  int rc;
  if (!w->in_tx && !w->bulk_tab[DLDB__B_STRING] && (rc = dldb__tx_begin(w, err, errlen)))
    return rc;
  if (w->otab_stale && (rc = overflow_rebuild(w, err, errlen, fn))) return rc;
  size_t free_slot;
  found = overflow_find(w, s, n, h, &free_slot);
  if (found == -2) return dl_err(err, errlen, DL_EIO, "%s: reading strings' pages failed", fn);
  if (found < 0) return dldb__sqlerr(w, err, errlen, fn);
  int cache = w->cached_bytes < DLDB__INTERN_BUDGET || pin;
  if (!found) {
    dldb__ahead_reset(w); /* a string is added */
    found = w->max_id + 1;
    const dldb__cell row[] = {DLDB__I(found), DLDB__T(s, (int)n)};
    if ((rc = dldb__batch_row(w, DLDB__B_STRING, row, err, errlen, fn))) return rc;
    w->max_id = found;
    if (!cache && (rc = overflow_add(w, h, found, free_slot)))
      return dl_err(err, errlen, rc, rc == DL_ENOMEM ? "%s: out of memory" : "%s: too many strings",
                    fn);
  }
  if (cache && intern_add(w, s, n, found, h)) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn);
  *id = found;
  return DL_OK;
}

int dldb__intern(dldb_writer *w, const char *s, int pin, int64_t *id, char *err,
                 size_t errlen) {
  return intern_h(w, s, 0, pin, id, err, errlen);
}

int dldb_writer_intern(dldb_writer *w, const char *s, int64_t *id, char *err, size_t errlen) {
  return dldb__intern(w, s, 0, id, err, errlen);
}

/* A string of the block read from the leaves into the read-ahead buffer;
 * nonzero ends the block before it (full, or a value SQLite converts). */
typedef struct ahead_fill {
  dldb_writer *w;
  int64_t id;
  size_t used;
} ahead_fill;

static int ahead_put(void *ctx, int64_t rowid, const dl_sqlpage_val *v) {
  ahead_fill *f = ctx;
  dldb_writer *w = f->w;
  size_t n = v->n;
  if (v->type != SQLITE_TEXT && v->type != SQLITE_BLOB) return 1;
  if (f->used && f->used + n + 1 > DLDB__AHEAD_BYTES) return 1;
  if (f->used + n + 1 > w->ahead_cap) {
    size_t ncap = f->used + n + 1 > DLDB__AHEAD_BYTES ? f->used + n + 1 : DLDB__AHEAD_BYTES;
    char *nb = realloc(w->ahead_text, ncap);
    if (!nb) return 1;
    w->ahead_text = nb;
    w->ahead_cap = ncap;
  }
  memcpy(w->ahead_text + f->used, v->s, n);
  w->ahead_text[f->used + n] = '\0';
  w->ahead_off[rowid - f->id] = (int32_t)f->used;
  f->used += n + 1;
  return 0;
}

/* The block from id on read from the strings' leaves: 0, or -1 when they
 * do not hold id (SQLite reads the block then; a leaf that is not what the
 * directory says drops the directory). */
static int ahead_leaves(dldb_writer *w, int64_t id) {
  for (int i = 0; i < DLDB__AHEAD_ROWS; i++) w->ahead_off[i] = -1;
  ahead_fill f = {w, id, 0};
  int64_t upto;
  if (dl_sqlleaf_rows(w->str_leaf, id, id + DLDB__AHEAD_ROWS - 1, 1, ahead_put, &f, &upto) !=
      DL_OK) {
    dl_sqlleaf_close(&w->str_leaf);
    return -1;
  }
  if (upto < id) return -1;
  w->ahead_lo = id;
  w->ahead_hi = upto;
  w->leaf_blocks++;
  return 0;
}

/* Reads the block of uncached strings from id on into the read-ahead
 * buffer: from the strings' leaves where they hold it, else through
 * SQLite. 0, or -1 on a read error (the block is then empty). */
static int ahead_load(dldb_writer *w, int64_t id) {
  dldb__ahead_reset(w);
  if (w->str_leaf && ahead_leaves(w, id) == 0) return 0;
  if (dldb__batch_flush(&w->batch[DLDB__B_STRING], w->db) != SQLITE_OK) return -1;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_STRING_AHEAD);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, id);
  sqlite3_bind_int(st, 2, DLDB__AHEAD_ROWS);
  for (int i = 0; i < DLDB__AHEAD_ROWS; i++) w->ahead_off[i] = -1;
  size_t used = 0;
  int64_t last = id - 1;
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t rid = sqlite3_column_int64(st, 0);
    const char *v = (const char *)sqlite3_column_text(st, 1);
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    if (!v || rid < id || rid - id >= DLDB__AHEAD_ROWS) break;
    if (used && used + n + 1 > DLDB__AHEAD_BYTES) break; /* the block is full */
    if (used + n + 1 > w->ahead_cap) {
      size_t ncap = used + n + 1 > DLDB__AHEAD_BYTES ? used + n + 1 : DLDB__AHEAD_BYTES;
      char *nb = realloc(w->ahead_text, ncap);
      if (!nb) break;
      w->ahead_text = nb;
      w->ahead_cap = ncap;
    }
    memcpy(w->ahead_text + used, v, n + 1);
    w->ahead_off[rid - id] = (int32_t)used;
    used += n + 1;
    last = rid;
  }
  /* Known: the ids up to the last one stored. SQLITE_DONE means every row
   * of ids id .. id + ROWS - 1 was returned (the LIMIT, or the table's
   * end, came first): the ids of that block missing here do not exist. */
  if (s == SQLITE_DONE) last = id + DLDB__AHEAD_ROWS - 1;
  int ok = s == SQLITE_ROW || s == SQLITE_DONE;
  sqlite3_reset(st);
  if (!ok) return -1;
  w->ahead_lo = id;
  w->ahead_hi = last;
  return 0;
}

const char *dldb_writer_string(dldb_writer *w, int64_t id) {
  if (id <= 0) return NULL;
  if ((size_t)id < w->scap && w->strs[id]) return w->strs[id];
  if (id > w->max_id || !w->db) return NULL;
  if ((id < w->ahead_lo || id > w->ahead_hi) && ahead_load(w, id)) return NULL;
  if (id > w->ahead_hi || w->ahead_off[id - w->ahead_lo] < 0) return NULL;
  const char *v = w->ahead_text + w->ahead_off[id - w->ahead_lo];
  /* a copy in the scratch ring: the last DLDB__SCRATCH results stay valid */
  size_t n = strlen(v);
  int k = w->scratch_next;
  if (n + 1 > w->scratch_cap[k]) {
    char *nb = realloc(w->scratch[k], n + 1);
    if (!nb) return NULL;
    w->scratch[k] = nb;
    w->scratch_cap[k] = n + 1;
  }
  memcpy(w->scratch[k], v, n + 1);
  w->scratch_next = (k + 1) % DLDB__SCRATCH;
  return w->scratch[k];
}

/* Caches the first strings of an existing file, up to the budget. The slot
 * table of the others is built by the first dldb_writer_intern that needs
 * it (re-aggregation interns nothing: millions of texts are not read). */
static int intern_load(dldb_writer *w, char *err, size_t errlen) {
  static const char *fn = "dldb_writer_open_existing: strings";
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, "SELECT id, value FROM strings ORDER BY id", -1, &st, NULL))
    return dldb__sqlerr(w, err, errlen, fn);
  int rc = DL_OK, s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    if (w->cached_bytes >= DLDB__INTERN_BUDGET) {
      w->otab_stale = 1; /* strings past the budget */
      break;
    }
    int64_t id = sqlite3_column_int64(st, 0);
    if (id > w->max_id) w->max_id = id;
    const char *v = (const char *)sqlite3_column_text(st, 1);
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    if ((rc = intern_add(w, v ? v : "", n, id, hash_str(v ? v : "", n)))) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE && s != SQLITE_ROW) rc = dldb__sqlerr(w, err, errlen, fn);
  else if (rc) rc = dl_err(err, errlen, rc, "dldb_writer_open_existing: out of memory");
  sqlite3_finalize(st);
  if (rc == DL_OK && w->otab_stale) {
    if (sqlite3_prepare_v2(w->db, "SELECT max(id) FROM strings", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW)
      rc = dldb__sqlerr(w, err, errlen, fn);
    else if (sqlite3_column_int64(st, 0) > w->max_id)
      w->max_id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  return rc;
}

/* ---- Life cycle ----------------------------------------------------------- */

static void writer_free(dldb_writer *w) {
  if (!w) return;
  for (int t = 0; t < DLDB__PC_COUNT; t++) dldb__pc_free(w, t);
  finalize_all(w);
  if (w->db) sqlite3_close(w->db);
  while (w->arena) {
    dldb__chunk *next = w->arena->next;
    free(w->arena);
    w->arena = next;
  }
  free(w->strs);
  free(w->ahead_text);
  dl_sqlleaf_close(&w->str_leaf);
  for (int i = 0; i < DLDB__SCRATCH; i++) free(w->scratch[i]);
  free(w->htab);
  free(w->otab);
  dldb__zones_free(&w->nvtx_zones);
  if (w->rawmem_owned) dldb__rawmem_free(&w->rawmem);
  free(w->path);
  free(w->tmp);
  free(w);
}

static int apply_schema(dldb_writer *w, char *err, size_t errlen) {
  const dl_asset *a = &dldb_schema_assets[0];
  char *sql = malloc(a->size + 1);
  if (!sql) return dl_err(err, errlen, DL_ENOMEM, "dldb_writer_create: out of memory");
  memcpy(sql, a->data, a->size);
  sql[a->size] = '\0';
  int rc = exec(w, sql, err, errlen, "dldb_writer_create: schema");
  free(sql);
  return rc;
}

static int write_initial_meta(dldb_writer *w, const dldb_write_opts *o, char *err,
                              size_t errlen) {
  char buf[64];
  int rc;
  if ((rc = dldb_write_meta(w, "format", DLDB_FORMAT_NAME, err, errlen))) return rc;
  snprintf(buf, sizeof buf, "%d", DLDB_SCHEMA_VERSION);
  if ((rc = dldb_write_meta(w, "schema_version", buf, err, errlen))) return rc;
  if ((rc = dldb_write_meta(w, "producer", o->producer ? o->producer : "unknown", err, errlen)))
    return rc;
  if ((rc = dldb_write_meta(w, "source", o->source ? o->source : "", err, errlen))) return rc;
  snprintf(buf, sizeof buf, "%lld", (long long)o->time_origin_ns);
  if ((rc = dldb_write_meta(w, "time_origin_ns", buf, err, errlen))) return rc;
  if ((rc = dldb_write_meta(w, "time_unit", "ns", err, errlen))) return rc;
  return exec(w,
              "INSERT INTO db_version(current_version, original_version) VALUES "
              "('" DLDB_VIEW_VERSION "', '" DLDB_VIEW_VERSION "')",
              err, errlen, "dldb_writer_create: db_version");
}

/* Opens file (a path, or ":memory:") in w and gives it the schema and the
 * initial rows, as dldb_writer_create does. */
static int writer_init(dldb_writer *w, const dldb_write_opts *o, const char *file, char *err,
                       size_t errlen) {
  int rc;
  w->force = o->force;
  w->origin = o->time_origin_ns;
  w->min_rel = INT64_MAX;
  w->batch_rows = o->batch_rows > 0 ? o->batch_rows : 100000;
  if (o->scan_mem_bytes >= 0) {
    w->rawmem = dldb__rawmem_new(o->scan_mem_bytes ? (size_t)o->scan_mem_bytes
                                                   : (size_t)DLDB_SCAN_MEM_DEFAULT);
    w->rawmem_owned = 1;
  }
  if (sqlite3_open_v2(file, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
          SQLITE_OK ||
      dldb__batch_register(w->db) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, "dldb_writer_create: open");
  if ((rc = exec(w,
                 "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; "
                 /* page_size first: a cache_size in KiB becomes a number of pages
                  * of the page size it meets (set after, 8 KiB pages doubled the
                  * cache to 128 MiB, docs/performance.md) */
                 "PRAGMA page_size=8192; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY",
                 err, errlen, "dldb_writer_create: pragmas")))
    return rc;
  if ((rc = dldb__tx_begin(w, err, errlen))) return rc;
  if ((rc = apply_schema(w, err, errlen))) return rc;
  if ((rc = write_initial_meta(w, o, err, errlen))) return rc;
  int64_t dom;
  if ((rc = dldb_write_domain(w, "default-domain", &dom, err, errlen))) return rc;
  return dldb__tx_commit(w, err, errlen);
}

int dldb_writer_create(const char *path, const dldb_write_opts *opts, dldb_writer **out,
                       char *err, size_t errlen) {
  static const dldb_write_opts defaults = {0};
  const dldb_write_opts *o = opts ? opts : &defaults;
  dldb_writer *w = NULL;
  int fd = -1, rc = DL_OK;
  *out = NULL;
  if (!path || !*path) return dl_err(err, errlen, DL_EINVAL, "dldb_writer_create: empty path");
  if (!o->force && access(path, F_OK) == 0)
    return dl_err(err, errlen, DL_EEXIST, "dldb_writer_create: %s exists (use --force)", path);
  w = calloc(1, sizeof *w);
  if (!w) return dl_err(err, errlen, DL_ENOMEM, "dldb_writer_create: out of memory");
  dldb__ahead_reset(w);
  batches_init(w);
  size_t n = strlen(path);
  w->path = strdup(path);
  w->tmp = malloc(n + 16);
  if (!w->path || !w->tmp) {
    rc = dl_err(err, errlen, DL_ENOMEM, "dldb_writer_create: out of memory");
    goto out;
  }
  snprintf(w->tmp, n + 16, "%s.tmp-XXXXXX", path);
  fd = mkstemp(w->tmp);
  if (fd < 0) {
    free(w->tmp);
    w->tmp = NULL;
    rc = dl_err(err, errlen, DL_EIO, "dldb_writer_create: cannot create a file next to %s: %s",
                path, dl_create_reason(path, errno));
    goto out;
  }
  /* mkstemp creates 0600; give the output the usual 0666 & ~umask */
  mode_t um = umask(0);
  umask(um);
  (void)fchmod(fd, 0666 & ~um);
  close(fd);
  rc = writer_init(w, o, w->tmp, err, errlen);
out:
  if (rc) {
    if (w && w->tmp) unlink(w->tmp);
    writer_free(w);
    return rc;
  }
  *out = w;
  return DL_OK;
}

int dldb_writer_create_mem(const dldb_write_opts *opts, dldb_writer **out, char *err,
                           size_t errlen) {
  static const dldb_write_opts defaults = {0};
  *out = NULL;
  dldb_writer *w = calloc(1, sizeof *w);
  if (!w) return dl_err(err, errlen, DL_ENOMEM, "dldb_writer_create: out of memory");
  dldb__ahead_reset(w);
  batches_init(w);
  int rc = writer_init(w, opts ? opts : &defaults, ":memory:", err, errlen);
  if (rc) {
    writer_free(w);
    return rc;
  }
  *out = w;
  return DL_OK;
}

int dldb_writer_open_existing(const char *path, dldb_writer **out, char *err, size_t errlen) {
  dldb_writer *w = NULL;
  sqlite3_stmt *st = NULL;
  int rc = DL_OK;
  *out = NULL;
  w = calloc(1, sizeof *w);
  if (!w) return dl_err(err, errlen, DL_ENOMEM, "dldb_writer_open_existing: out of memory");
  dldb__ahead_reset(w);
  batches_init(w);
  w->existing = 1;
  w->batch_rows = 100000;
  if (!(w->path = strdup(path))) {
    rc = dl_err(err, errlen, DL_ENOMEM, "dldb_writer_open_existing: out of memory");
    goto out;
  }
  if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
    rc = dl_err(err, errlen, DL_ENOTFOUND, "dldb_writer_open_existing: %s: %s", path,
                w->db ? sqlite3_errmsg(w->db) : "cannot open");
    goto out;
  }
  if (dldb__batch_register(w->db) != SQLITE_OK) {
    rc = dldb__sqlerr(w, err, errlen, "dldb_writer_open_existing: open");
    goto out;
  }
  sqlite3_busy_timeout(w->db, 5000);
  if (sqlite3_prepare_v2(w->db, "SELECT value FROM dl_meta WHERE key = 'schema_version'", -1,
                         &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW) {
    rc = dl_err(err, errlen, DL_EFORMAT, "dldb_writer_open_existing: %s is not a dldb of ours",
                path);
    goto out;
  }
  /* schema 1 differs only where the NVTX statistics go (dldb_stats.c) */
  if (sqlite3_column_int(st, 0) < 1 || sqlite3_column_int(st, 0) > DLDB_SCHEMA_VERSION) {
    rc = dl_err(err, errlen, DL_EVERSION,
                "dldb_writer_open_existing: %s has schema version %d, expected 1 to %d", path,
                sqlite3_column_int(st, 0), DLDB_SCHEMA_VERSION);
    goto out;
  }
  if ((rc = intern_load(w, err, errlen))) goto out;
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(w->db,
                         "SELECT (SELECT coalesce(max(id), 0) FROM nvtx_ranges), "
                         "(SELECT coalesce(max(id), 0) FROM kernels)",
                         -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW) {
    rc = dldb__sqlerr(w, err, errlen, "dldb_writer_open_existing: ids");
    goto out;
  }
  w->nvtx_max_id = sqlite3_column_int64(st, 0);
  w->kernel_max_id = sqlite3_column_int64(st, 1);
out:
  sqlite3_finalize(st);
  if (rc) {
    writer_free(w);
    return rc;
  }
  *out = w;
  return DL_OK;
}

/* Puts the finished temporary file in place (see the file comment). */
static int publish(dldb_writer *w, char *err, size_t errlen) {
  int fd = open(w->tmp, O_RDONLY);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
  if (!w->force) {
    if (link(w->tmp, w->path) == 0) {
      unlink(w->tmp);
      return DL_OK;
    }
    if (errno == EEXIST)
      return dl_err(err, errlen, DL_EEXIST, "dldb_writer_commit: %s exists (use --force)",
                    w->path);
    /* Filesystems without hard links: check, then rename (not atomic
     * against a concurrent creator, but never destroys a complete file). */
    if (access(w->path, F_OK) == 0)
      return dl_err(err, errlen, DL_EEXIST, "dldb_writer_commit: %s exists (use --force)",
                    w->path);
  }
  if (rename(w->tmp, w->path) != 0)
    return dl_err(err, errlen, DL_EIO, "dldb_writer_commit: rename to %s: %s", w->path,
                  strerror(errno));
  return DL_OK;
}

int dldb_writer_commit(dldb_writer **pw, char *err, size_t errlen) {
  return dldb_writer_commit_ready(pw, NULL, NULL, err, errlen);
}

int dldb_writer_commit_ready(dldb_writer **pw, int (*ready)(void *ctx, const char *path),
                             void *ctx, char *err, size_t errlen) {
  dldb_writer *w = pw ? *pw : NULL;
  int rc = DL_OK;
  if (!w) return dl_err(err, errlen, DL_EINVAL, "dldb_writer_commit: no writer");
  *pw = NULL;
  if (w->in_aggr) {
    rc = dl_err(err, errlen, DL_EINVAL, "dldb_writer_commit: an aggregation is still open");
    goto out;
  }
  if (!w->path) {
    rc = dl_err(err, errlen, DL_EINVAL, "dldb_writer_commit: an in-memory writer has no file");
    goto out;
  }
  if ((rc = dldb__tx_commit(w, err, errlen))) goto out;
  finalize_all(w);
  if (sqlite3_close(w->db) != SQLITE_OK) {
    rc = dldb__sqlerr(w, err, errlen, "dldb_writer_commit: close");
    goto out;
  }
  w->db = NULL;
  if (ready && (rc = ready(ctx, w->tmp ? w->tmp : w->path))) goto out;
  if (!w->existing) rc = publish(w, err, errlen);
out:
  dldb__bulk_end(w, 0, NULL, 0);
  if (rc && w->db && w->in_tx) sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
  if (w->tmp && (rc || w->existing)) unlink(w->tmp);
  writer_free(w);
  return rc;
}

void dldb_writer_abort(dldb_writer **pw) {
  if (!pw || !*pw) return;
  dldb_writer *w = *pw;
  *pw = NULL;
  dldb__bulk_end(w, 0, NULL, 0);
  if (w->db && w->in_tx) sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
  finalize_all(w);
  if (w->db) sqlite3_close(w->db);
  w->db = NULL;
  if (w->tmp) unlink(w->tmp);
  writer_free(w);
}

const char *dldb_writer_tmp_path(const dldb_writer *w) { return w->tmp ? w->tmp : ""; }

int dldb_writer_reader(dldb_writer *w, dldb_writer **out, char *err, size_t errlen) {
  static const char *fn = "dldb_writer_reader";
  *out = NULL;
  if (w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: an aggregation is open", fn);
  int rc = dldb__tx_commit(w, err, errlen); /* the other connection reads what is committed */
  if (rc) return rc;
  dldb_writer *r = calloc(1, sizeof *r);
  if (!r) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn);
  dldb__ahead_reset(r);
  batches_init(r);
  r->existing = 1; /* no raw rows */
  r->rawmem = w->rawmem; /* the parent's, which no raw row changes from here on */
  r->origin = w->origin;
  r->max_id = w->max_id;
  const char *file = w->tmp ? w->tmp : w->path;
  char sql[64];
  snprintf(sql, sizeof sql, "PRAGMA cache_size=-%d", DLDB__READ_CACHE_KIB);
  if (!file || sqlite3_open_v2(file, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
                   SQLITE_OK ||
      sqlite3_exec(r->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
    rc = dl_err(err, errlen, DL_EDB, "%s: %s: %s", fn, file ? file : "(no file)",
                r->db ? sqlite3_errmsg(r->db) : "cannot open");
    writer_free(r);
    return rc;
  }
  sqlite3_busy_timeout(r->db, 5000);
  /* A read of the file as committed now, held until the reader closes: w
   * may then write, and its pages reach the file only after that. */
  if (sqlite3_exec(r->db, "BEGIN; SELECT 1 FROM sqlite_schema LIMIT 1", NULL, NULL, NULL) !=
      SQLITE_OK) {
    rc = dl_err(err, errlen, DL_EDB, "%s: %s: %s", fn, file, sqlite3_errmsg(r->db));
    writer_free(r);
    return rc;
  }
  r->in_tx = 1; /* its transaction: nothing begins another */
  r->reader = 1;
  *out = r;
  return DL_OK;
}

void dldb_writer_reader_close(dldb_writer **r) {
  if (!r || !*r) return;
  writer_free(*r);
  *r = NULL;
}

/* ---- Raw inserts ------------------------------------------------------------ */

int dldb_writer_rebase(dldb_writer *w, char *err, size_t errlen) {
  static const char *const sql[] = {
      "UPDATE nvtx_ranges SET start_ns = start_ns + ?1, end_ns = end_ns + ?1",
      "UPDATE cuda_api_calls SET start_ns = start_ns + ?1, end_ns = end_ns + ?1",
      "UPDATE kernels SET gpu_start_ns = gpu_start_ns + ?1, gpu_end_ns = gpu_end_ns + ?1",
      "UPDATE memcpys SET gpu_start_ns = gpu_start_ns + ?1, gpu_end_ns = gpu_end_ns + ?1",
      "UPDATE memsets SET gpu_start_ns = gpu_start_ns + ?1, gpu_end_ns = gpu_end_ns + ?1",
      "UPDATE syncs SET start_ns = start_ns + ?1, end_ns = end_ns + ?1",
      "UPDATE osrt_calls SET start_ns = start_ns + ?1, end_ns = end_ns + ?1",
      "UPDATE dl_python_frames SET start_ns = start_ns + ?1, end_ns = end_ns + ?1",
  };
  static const char *fn = "dldb_writer_rebase";
  if (w->min_rel >= 0) return DL_OK; /* INT64_MAX: nothing stored */
  int64_t d = -w->min_rel;
  int rc = dldb__tx_begin(w, err, errlen);
  if (rc || (rc = dldb__flush(w, err, errlen, fn))) return rc;
  for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, sql[i], -1, &st, NULL) != SQLITE_OK)
      return dldb__sqlerr(w, err, errlen, fn);
    sqlite3_bind_int64(st, 1, d);
    rc = dldb__step_done(w, st, err, errlen, fn);
    sqlite3_finalize(st);
    if (rc) return rc;
  }
  dldb__rawmem_shift(w->rawmem, d);
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)(w->origin - d));
  if ((rc = dldb_write_meta(w, "time_origin_ns", buf, err, errlen))) return rc;
  w->origin -= d;
  w->min_rel = 0;
  return DL_OK;
}

int dldb_write_meta(dldb_writer *w, const char *key, const char *value, char *err,
                    size_t errlen) {
  int rc = dldb__tx_begin(w, err, errlen);
  if (rc) return rc;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_META);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_meta");
  dldb__bind_text(st, 1, key);
  dldb__bind_text(st, 2, value);
  return dldb__step_done(w, st, err, errlen, "dldb_write_meta");
}

/* Remembers domain id (of name string sid) while there is room. */
static void domain_keep(dldb_writer *w, int64_t sid, int64_t id) {
  if (w->ndomains >= DLDB__DOMAINS_KEPT) return;
  w->domains[w->ndomains][0] = sid;
  w->domains[w->ndomains++][1] = id;
}

int dldb_write_domain(dldb_writer *w, const char *name, int64_t *id, char *err, size_t errlen) {
  int64_t sid;
  int rc = dldb__intern(w, name ? name : "default-domain", 1, &sid, err, errlen);
  if (rc) return rc;
  for (int i = 0; i < w->ndomains; i++) /* no statement: ranges of a few domains alternate */
    if (w->domains[i][0] == sid) {
      *id = w->domains[i][1];
      return DL_OK;
    }
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_DOMAIN_FIND);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_domain");
  sqlite3_bind_int64(st, 1, sid);
  int s = sqlite3_step(st);
  if (s == SQLITE_ROW) {
    *id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    domain_keep(w, sid, *id);
    return DL_OK;
  }
  sqlite3_reset(st);
  if (s != SQLITE_DONE) return dldb__sqlerr(w, err, errlen, "dldb_write_domain");
  if ((rc = dldb__tx_begin(w, err, errlen))) return rc;
  st = dldb__stmt(w, DLDB__S_DOMAIN_ADD);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_domain");
  sqlite3_bind_int64(st, 1, sid);
  if ((rc = dldb__step_done(w, st, err, errlen, "dldb_write_domain"))) return rc;
  *id = sqlite3_last_insert_rowid(w->db);
  domain_keep(w, sid, *id);
  return DL_OK;
}

int dldb_write_sysconfig(dldb_writer *w, const dldb_sysconfig *c, char *err, size_t errlen) {
  int rc = row_begin(w, err, errlen, "dldb_write_sysconfig");
  if (rc) return rc;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_SYSCONFIG);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_sysconfig");
  char ngpu[16];
  snprintf(ngpu, sizeof ngpu, "%d", c->num_gpus);
  const char *mode = c->mode_string ? c->mode_string : "";
  int mode_enum = strcmp(mode, "pytorch") == 0 ? 3 : strcmp(mode, "tensorflow2") == 0 ? 2
                  : strcmp(mode, "tensorflow1") == 0                          ? 1
                                                                              : 0;
  dldb__bind_text(st, 1, ngpu);
  dldb__bind_text(st, 2, c->cpu_model);
  dldb__bind_text(st, 3, c->driver_version);
  dldb__bind_text(st, 4, c->framework);
  dldb__bind_text(st, 5, c->cuda_version);
  dldb__bind_text(st, 6, c->cudnn_version);
  dldb__bind_text(st, 7, c->nsys_version);
  dldb__bind_text(st, 8, c->dlprof_version);
  dldb__bind_text(st, 9, c->dlprof_build);
  dldb__bind_text(st, 10, c->profile_name);
  sqlite3_bind_int(st, 11, mode_enum);
  dldb__bind_text(st, 12, mode);
  dldb__bind_text(st, 13, c->original_command);
  return dldb__step_done(w, st, err, errlen, "dldb_write_sysconfig");
}

int dldb_write_gpu(dldb_writer *w, const dldb_gpu *g, char *err, size_t errlen) {
  int rc = row_begin(w, err, errlen, "dldb_write_gpu");
  if (rc) return rc;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_GPU);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_gpu");
  sqlite3_bind_int(st, 1, g->device_id);
  dldb__bind_text(st, 2, g->name);
  sqlite3_bind_int(st, 3, g->cc_major);
  sqlite3_bind_int(st, 4, g->cc_minor);
  sqlite3_bind_int(st, 5, g->sm_count);
  sqlite3_bind_int64(st, 6, g->memory_bytes);
  return dldb__step_done(w, st, err, errlen, "dldb_write_gpu");
}

int dldb_write_thread(dldb_writer *w, const dldb_thread *t, char *err, size_t errlen) {
  int rc = row_begin(w, err, errlen, "dldb_write_thread");
  if (rc) return rc;
  int64_t nid = 0;
  if (t->name && (rc = dldb_writer_intern(w, t->name, &nid, err, errlen))) return rc;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_THREAD);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_thread");
  sqlite3_bind_int64(st, 1, t->pid);
  sqlite3_bind_int64(st, 2, t->tid);
  if (nid) sqlite3_bind_int64(st, 3, nid);
  return dldb__step_done(w, st, err, errlen, "dldb_write_thread");
}

int dldb__nvtx_push(dldb_writer *w, int64_t id, const dldb_nvtx_range *r, char *err,
                    size_t errlen, const char *fn) {
  const char *dom = r->domain ? r->domain : "default-domain";
  int64_t dom_id, name_id;
  int rc;
  if (w->last_domain_name && strcmp(w->last_domain_name, dom) == 0) {
    dom_id = w->last_domain_id;
  } else {
    if ((rc = dldb_write_domain(w, dom, &dom_id, err, errlen))) return rc;
    int64_t sid;
    if ((rc = dldb_writer_intern(w, dom, &sid, err, errlen))) return rc;
    w->last_domain_name = w->strs[sid];
    w->last_domain_id = dom_id;
  }
  if (r->name_id > 0) name_id = r->name_id;
  else if ((rc = intern_h(w, r->name, r->name ? r->name_hash : 0, 0, &name_id, err, errlen)))
    return rc;
  int64_t end = r->kind == DLDB_NVTX_MARK ? r->start_ns : r->end_ns;
  const dldb_scan_range kept = {id,     name_id, dldb__rel(w, r->start_ns), end - w->origin,
                                r->pid, r->tid,  r->kind ? r->kind : DLDB_NVTX_PUSHPOP, 0};
  const dldb__cell row[] = {
      DLDB__I(id),
      DLDB__I(kept.kind),
      DLDB__I(dom_id),
      DLDB__I(name_id),
      DLDB__I(kept.start_ns),
      DLDB__I(kept.end_ns),
      DLDB__I(r->pid),
      DLDB__I(r->tid),
      DLDB__I(r->end_tid ? r->end_tid : r->tid),
      r->parent_id > 0 ? DLDB__I(r->parent_id) : DLDB__N,
      DLDB__I(r->category),
      DLDB__I(r->color),
      DLDB__I(r->payload_kind),
      r->payload_kind == DLDB_PAYLOAD_INT ? DLDB__I(r->payload_int) : DLDB__N,
      r->payload_kind == DLDB_PAYLOAD_REAL ? DLDB__R(r->payload_real) : DLDB__N,
  };
  rc = dldb__batch_row(w, DLDB__B_NVTX, row, err, errlen, fn);
  if (rc == DL_OK) dldb__rawmem_range(w->rawmem, dom_id, &kept);
  return rc;
}

int dldb_write_nvtx_range(dldb_writer *w, const dldb_nvtx_range *r, int64_t *id, char *err,
                          size_t errlen) {
  static const char *fn = "dldb_write_nvtx_range";
  int rc = row_begin(w, err, errlen, fn);
  if (rc || (rc = dldb__nvtx_push(w, w->nvtx_max_id + 1, r, err, errlen, fn))) return rc;
  w->nvtx_max_id++;
  if (id) *id = w->nvtx_max_id;
  return DL_OK;
}

int dldb_write_range_stack(dldb_writer *w, int64_t range_id, const char *stack, int64_t stack_id,
                           char *err, size_t errlen) {
  static const char *fn = "dldb_write_range_stack";
  if (stack_id <= 0 && (!stack || !*stack)) return DL_OK;
  int rc = row_begin(w, err, errlen, fn);
  int64_t sid = stack_id;
  if (rc || (sid <= 0 && (rc = dldb_writer_intern(w, stack, &sid, err, errlen)))) return rc;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_RANGE_STACK);
  if (!st) return dldb__sqlerr(w, err, errlen, fn);
  sqlite3_bind_int64(st, 1, range_id);
  sqlite3_bind_int64(st, 2, sid);
  return dldb__step_done(w, st, err, errlen, fn);
}

int dldb__api_push(dldb_writer *w, const dldb_api_call *a, int64_t name_id, char *err,
                   size_t errlen, const char *fn) {
  const dldb_scan_api kept = {0,      name_id, dldb__rel(w, a->start_ns), a->end_ns - w->origin,
                              a->pid, a->tid,  a->correlation_id};
  const dldb__cell row[] = {
      DLDB__I(a->api_kind),     DLDB__I(name_id), DLDB__I(kept.start_ns),
      DLDB__I(kept.end_ns),     DLDB__I(a->pid),  DLDB__I(a->tid),
      DLDB__I(a->correlation_id), DLDB__I(a->return_value),
  };
  int rc = dldb__batch_row(w, DLDB__B_API, row, err, errlen, fn);
  if (rc == DL_OK) dldb__rawmem_api(w->rawmem, &kept);
  return rc;
}

int dldb_write_api_call(dldb_writer *w, const dldb_api_call *a, char *err, size_t errlen) {
  static const char *fn = "dldb_write_api_call";
  int rc = row_begin(w, err, errlen, fn);
  if (rc) return rc;
  int64_t name_id = a->name_id;
  if (name_id <= 0 && (rc = dldb_writer_intern(w, a->name, &name_id, err, errlen))) return rc;
  return dldb__api_push(w, a, name_id, err, errlen, fn);
}

int dldb__kernel_push(dldb_writer *w, const dldb_kernel *k, int64_t sid, int64_t lid, char *err,
                      size_t errlen, const char *fn) {
  dldb_scan_gpu_op kept = {.id = w->kernel_max_id + 1,
                           .short_name_id = sid,
                           .long_name_id = lid,
                           .gpu_start_ns = dldb__rel(w, k->gpu_start_ns),
                           .gpu_end_ns = k->gpu_end_ns - w->origin,
                           .correlation_id = k->correlation_id,
                           .pid = k->pid,
                           .device_id = (int32_t)k->device_id};
  for (int i = 0; i < 3; i++) {
    kept.grid[i] = (int32_t)k->grid[i];
    kept.block[i] = (int32_t)k->block[i];
  }
  const dldb__cell row[] = {
      DLDB__I(kept.id),
      DLDB__I(sid),
      DLDB__I(lid),
      DLDB__I(k->device_id),
      DLDB__I(k->context_id),
      DLDB__I(k->stream_id),
      DLDB__I(kept.gpu_start_ns),
      DLDB__I(kept.gpu_end_ns),
      DLDB__I(k->correlation_id),
      DLDB__I(k->pid),
      DLDB__I(k->grid[0]),
      DLDB__I(k->grid[1]),
      DLDB__I(k->grid[2]),
      DLDB__I(k->block[0]),
      DLDB__I(k->block[1]),
      DLDB__I(k->block[2]),
      DLDB__I(k->registers_per_thread),
      DLDB__I(k->static_smem_bytes),
      DLDB__I(k->dynamic_smem_bytes),
  };
  int rc = dldb__batch_row(w, DLDB__B_KERNEL, row, err, errlen, fn);
  if (rc == DL_OK) w->kernel_max_id++;
  if (rc == DL_OK) dldb__rawmem_kernel(w->rawmem, &kept);
  return rc;
}

int dldb_write_kernel(dldb_writer *w, const dldb_kernel *k, char *err, size_t errlen) {
  static const char *fn = "dldb_write_kernel";
  int rc = row_begin(w, err, errlen, fn);
  if (rc) return rc;
  int64_t sid = k->short_name_id, lid = k->long_name_id;
  if (sid <= 0 && (rc = dldb_writer_intern(w, k->short_name, &sid, err, errlen))) return rc;
  if (lid <= 0 && !k->long_name) lid = sid;
  if (lid <= 0 && (rc = dldb_writer_intern(w, k->long_name, &lid, err, errlen))) return rc;
  return dldb__kernel_push(w, k, sid, lid, err, errlen, fn);
}

int dldb_write_memcpy(dldb_writer *w, const dldb_memcpy *m, char *err, size_t errlen) {
  int rc = row_begin(w, err, errlen, "dldb_write_memcpy");
  if (rc) return rc;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_MEMCPY);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_memcpy");
  sqlite3_bind_int(st, 1, m->copy_kind);
  sqlite3_bind_int(st, 2, m->src_kind);
  sqlite3_bind_int(st, 3, m->dst_kind);
  sqlite3_bind_int64(st, 4, m->bytes);
  sqlite3_bind_int(st, 5, m->device_id);
  sqlite3_bind_int(st, 6, m->stream_id);
  sqlite3_bind_int64(st, 7, dldb__rel(w, m->gpu_start_ns));
  sqlite3_bind_int64(st, 8, m->gpu_end_ns - w->origin);
  sqlite3_bind_int64(st, 9, m->correlation_id);
  sqlite3_bind_int64(st, 10, m->pid);
  return dldb__step_done(w, st, err, errlen, "dldb_write_memcpy");
}

int dldb_write_memset(dldb_writer *w, const dldb_memset *m, char *err, size_t errlen) {
  int rc = row_begin(w, err, errlen, "dldb_write_memset");
  if (rc) return rc;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_MEMSET);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_memset");
  sqlite3_bind_int(st, 1, m->value);
  sqlite3_bind_int64(st, 2, m->bytes);
  sqlite3_bind_int(st, 3, m->mem_kind);
  sqlite3_bind_int(st, 4, m->device_id);
  sqlite3_bind_int(st, 5, m->stream_id);
  sqlite3_bind_int64(st, 6, dldb__rel(w, m->gpu_start_ns));
  sqlite3_bind_int64(st, 7, m->gpu_end_ns - w->origin);
  sqlite3_bind_int64(st, 8, m->correlation_id);
  sqlite3_bind_int64(st, 9, m->pid);
  return dldb__step_done(w, st, err, errlen, "dldb_write_memset");
}

int dldb_write_sync(dldb_writer *w, const dldb_sync *s, char *err, size_t errlen) {
  int rc = row_begin(w, err, errlen, "dldb_write_sync");
  if (rc) return rc;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_SYNC);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_write_sync");
  sqlite3_bind_int(st, 1, s->sync_type);
  sqlite3_bind_int(st, 2, s->device_id);
  sqlite3_bind_int(st, 3, s->stream_id);
  sqlite3_bind_int64(st, 4, s->event_id);
  sqlite3_bind_int64(st, 5, dldb__rel(w, s->start_ns));
  sqlite3_bind_int64(st, 6, s->end_ns - w->origin);
  sqlite3_bind_int64(st, 7, s->correlation_id);
  sqlite3_bind_int64(st, 8, s->pid);
  return dldb__step_done(w, st, err, errlen, "dldb_write_sync");
}
