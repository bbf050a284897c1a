/*
 * dldb_scan.c - raw records read back for the analysis (dldb_scan.h):
 * streaming scans of the writer's raw tables, each after writing the rows
 * still in its batches. The big scans read the table's pages
 * (dl_sqlpage.h) where the file holds the raw tables as the connection
 * sees them (dldb__raw_on_disk); SQLite steps the same query otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "dl_sqlpage.h"
#include "dldb_rawmem.h"
#include "dldb_scan.h"
#include "dldb_write_internal.h"

/* Prepares a read (after writing the rows still in batches). */
static int prepare(dldb_writer *w, const char *sql, sqlite3_stmt **st, char *err, size_t errlen,
                   const char *fn) {
  int rc = dldb__flush(w, err, errlen, fn);
  if (rc) return rc;
  if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  return DL_OK;
}

/* The columns of a scan's rows, as integers (sqlite3_column_int64). */
#define SCAN_COLS 20

/* A scan of a raw table: its query, and for a read of its pages the names
 * of the query's columns (NULL: a constant 0) and its WHERE as filters. */
typedef struct scan_src {
  const char *table;
  const char *const *cols;
  int ncols;
  const dl_sqlpage_filter *filters;
  int nfilters;
} scan_src;

/* Runs st to the end, or reads src's pages instead where it can; on a row
 * calls row(ctx, its columns). Finalizes st. */
static int run_scan(dldb_writer *w, sqlite3_stmt *st, const scan_src *src,
                    int (*row)(void *, const int64_t *), void *ctx, char *err, size_t errlen,
                    const char *fn) {
  int64_t v[SCAN_COLS];
  int s, rc = DL_OK, n = sqlite3_column_count(st);
  dl_sqlpage *pg = NULL;
  if (src && n == src->ncols && n <= SCAN_COLS && dldb__raw_on_disk(w) &&
      dl_sqlpage_open(w->db, st, src->table, src->cols, src->ncols, 0, src->filters,
                      src->nfilters, &pg) == DL_OK) {
    dl_sqlpage_val pv[SCAN_COLS];
    while ((s = dl_sqlpage_next(pg, pv)) == SQLITE_ROW) {
      for (int i = 0; i < n; i++) v[i] = pv[i].i;
      if ((rc = row(ctx, v)) != 0) break;
    }
    dl_sqlpage_close(&pg);
    if (rc == DL_OK && s != SQLITE_DONE)
      rc = dl_err(err, errlen, DL_ECORRUPT, "%s: reading %s failed: %s", fn, src->table,
                  sqlite3_errstr(s));
    sqlite3_finalize(st);
    return rc;
  }
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    for (int i = 0; i < n && i < SCAN_COLS; i++) v[i] = sqlite3_column_int64(st, i);
    if ((rc = row(ctx, v)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fn);
  sqlite3_finalize(st);
  return rc;
}

/* 1 when the rows w keeps in memory of table (t: DLDB__RAW_*) are the
 * table's: their ids one apart, and the table's least and greatest rowid
 * theirs. 0 otherwise (or on an error, which the SQL scan then reports). */
static int kept(dldb_writer *w, int t, const char *table) {
  int64_t first, last;
  if (!dldb__rawmem_rows(w->rawmem, t, &first, &last)) return 0;
  char sql[80];
  snprintf(sql, sizeof sql, "SELECT min(rowid), max(rowid) FROM %s", table);
  sqlite3_stmt *st = NULL;
  int same = dldb__flush(w, NULL, 0, "dldb_scan") == DL_OK &&
             sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == first &&
             sqlite3_column_int64(st, 1) == last;
  sqlite3_finalize(st);
  return same;
}

void dldb_scan_done(dldb_writer *w) {
  if (w && w->rawmem_owned) dldb__rawmem_drop(w->rawmem);
}

int64_t dldb_scan_estimate(dldb_writer *w, const char *table) {
  static const char *const known[] = {"nvtx_ranges", "cuda_api_calls", "kernels", "memcpys",
                                      "memsets", "dl_python_frames", NULL};
  int i = 0;
  while (known[i] && strcmp(known[i], table) != 0) i++;
  if (!known[i]) return 0;
  char sql[96];
  sqlite3_stmt *st = NULL;
  int64_t n = 0;
  snprintf(sql, sizeof sql, "SELECT max(rowid) FROM %s", known[i]);
  if (dldb__flush(w, NULL, 0, "dldb_scan_estimate") == DL_OK &&
      sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

int dldb_scan_domain(dldb_writer *w, const char *name, int64_t *id, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = prepare(w,
                   "SELECT d.id FROM domains d JOIN strings s ON s.id = d.name_id "
                   "WHERE s.value = ?1",
                   &st, err, errlen, "dldb_scan_domain");
  if (rc) return rc;
  dldb__bind_text(st, 1, name);
  *id = 0;
  int s = sqlite3_step(st);
  if (s == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
  else if (s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, "dldb_scan_domain");
  sqlite3_finalize(st);
  return rc;
}

int dldb_scan_first_domain(dldb_writer *w, int64_t *id, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, "SELECT min(id) FROM domains", &st, err, errlen, "dldb_scan_first_domain");
  if (rc) return rc;
  *id = 0;
  if (sqlite3_step(st) == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return DL_OK;
}

/* Domains in id order; with two or more, which have ranges (one scan of
 * nvtx_ranges, skipped for a single domain: it is aggregated anyway). */
int dldb_scan_domains(dldb_writer *w, int (*fn)(void *ctx, int64_t id, const char *name,
                                                int has_ranges),
                      void *ctx, char *err, size_t errlen) {
  static const char *const sql =
      "SELECT d.id, s.value, CASE WHEN (SELECT count(*) FROM domains) < 2 THEN 1 "
      "ELSE d.id IN (SELECT DISTINCT domain_id FROM nvtx_ranges WHERE kind IN (1, 2)) END "
      "FROM domains d JOIN strings s ON s.id = d.name_id ORDER BY d.id";
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, sql, &st, err, errlen, "dldb_scan_domains"), s = SQLITE_DONE;
  while (rc == DL_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 1);
    rc = fn(ctx, sqlite3_column_int64(st, 0), name ? name : "", sqlite3_column_int(st, 2));
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, "dldb_scan_domains");
  sqlite3_finalize(st);
  return rc;
}

typedef struct scan_ctx {
  void *fn;
  void *ctx;
  int stack; /* ranges: column 7 is the stack's id */
  int kind;  /* GPU ops: the table's (0 kernels, 1 memcpys, 2 memsets) */
} scan_ctx;

static int range_row(void *c, const int64_t *v) {
  scan_ctx *sc = c;
  dldb_scan_range r = {
      .id = v[0],
      .name_id = v[1],
      .start_ns = v[2],
      .end_ns = v[3],
      .pid = v[4],
      .tid = v[5],
      .kind = (int)v[6],
      .stack_id = sc->stack ? v[7] : 0,
  };
  return ((int (*)(void *, const dldb_scan_range *))sc->fn)(sc->ctx, &r);
}

/* Runs a query of ranges (range_row's columns, ?1 the domain); src: its
 * pages' read, or NULL. */
static int scan_range_query(dldb_writer *w, const char *sql, const scan_src *src, int stack,
                            int64_t domain_id, int (*fn)(void *ctx, const dldb_scan_range *r),
                            void *ctx, char *err, size_t errlen, const char *fname) {
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, sql, &st, err, errlen, fname);
  if (rc) return rc;
  sqlite3_bind_int64(st, 1, domain_id);
  scan_ctx sc = {.fn = (void *)fn, .ctx = ctx, .stack = stack};
  return run_scan(w, st, src, range_row, &sc, err, errlen, fname);
}

int dldb_scan_ranges(dldb_writer *w, int64_t domain_id,
                     int (*fn)(void *ctx, const dldb_scan_range *r), void *ctx, char *err,
                     size_t errlen) {
  static const char *const cols[] = {"rowid", "name_id", "start_ns", "end_ns",
                                     "pid",   "tid",     "kind"};
  if (kept(w, DLDB__RAW_RANGES, "nvtx_ranges"))
    return dldb__rawmem_ranges(w->rawmem, domain_id, fn, ctx);
  const dl_sqlpage_filter f[] = {{"domain_id", 1, 1, {domain_id}}, {"kind", 1, 2, {1, 2}}};
  const scan_src src = {"nvtx_ranges", cols, 7, f, 2};
  return scan_range_query(w,
                          "SELECT id, name_id, start_ns, end_ns, pid, tid, kind FROM nvtx_ranges "
                          "WHERE domain_id = ?1 AND kind IN (1, 2) ORDER BY id",
                          &src, 0, domain_id, fn, ctx, err, errlen, "dldb_scan_ranges");
}

int dldb_scan_range_stacks(dldb_writer *w, int64_t domain_id,
                           int (*fn)(void *ctx, const dldb_scan_range *r), void *ctx, char *err,
                           size_t errlen) {
  static const char *fname = "dldb_scan_range_stacks";
  int rc = dldb__flush(w, err, errlen, fname);
  if (rc || !dldb__has_table(w, "nvtx_range_stacks")) return rc;
  return scan_range_query(
      w,
      "SELECT r.id, r.name_id, r.start_ns, r.end_ns, r.pid, r.tid, r.kind, s.stack_id "
      "FROM nvtx_range_stacks s JOIN nvtx_ranges r ON r.id = s.range_id "
      "WHERE r.domain_id = ?1 AND r.kind IN (1, 2) ORDER BY r.id",
      NULL, 1, domain_id, fn, ctx, err, errlen, fname);
}

static int api_row(void *c, const int64_t *v) {
  scan_ctx *sc = c;
  dldb_scan_api a = {
      .id = v[0],
      .name_id = v[1],
      .start_ns = v[2],
      .end_ns = v[3],
      .pid = v[4],
      .tid = v[5],
      .correlation_id = v[6],
  };
  return ((int (*)(void *, const dldb_scan_api *))sc->fn)(sc->ctx, &a);
}

int dldb_scan_api_calls(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_api *a), void *ctx,
                        char *err, size_t errlen) {
  static const char *const cols[] = {"rowid", "name_id", "start_ns",      "end_ns",
                                     "pid",   "tid",     "correlation_id"};
  static const scan_src src = {"cuda_api_calls", cols, 7, NULL, 0};
  if (kept(w, DLDB__RAW_API, "cuda_api_calls")) return dldb__rawmem_apis(w->rawmem, fn, ctx);
  sqlite3_stmt *st = NULL;
  int rc = prepare(w,
                   "SELECT id, name_id, start_ns, end_ns, pid, tid, correlation_id "
                   "FROM cuda_api_calls ORDER BY id",
                   &st, err, errlen, "dldb_scan_api_calls");
  if (rc) return rc;
  scan_ctx sc = {.fn = (void *)fn, .ctx = ctx};
  return run_scan(w, st, &src, api_row, &sc, err, errlen, "dldb_scan_api_calls");
}

/* Column 0 is the table's kind, a constant of the query: sc->kind. */
static int gpu_op_row(void *c, const int64_t *v) {
  scan_ctx *sc = c;
  dldb_scan_gpu_op g = {
      .kind = sc->kind,
      .id = v[1],
      .short_name_id = v[2],
      .long_name_id = v[3],
      .gpu_start_ns = v[4],
      .gpu_end_ns = v[5],
      .correlation_id = v[6],
      .pid = v[7],
      .device_id = (int32_t)v[8],
      .copy_kind = (int32_t)v[9],
      .bytes = v[10],
      .src_kind = (int32_t)v[11],
      .dst_kind = (int32_t)v[12],
      .mem_kind = (int32_t)v[13],
  };
  for (int i = 0; i < 3; i++) {
    g.grid[i] = (int32_t)v[14 + i];
    g.block[i] = (int32_t)v[17 + i];
  }
  return ((int (*)(void *, const dldb_scan_gpu_op *))sc->fn)(sc->ctx, &g);
}

int dldb_scan_gpu_ops(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_gpu_op *g), void *ctx,
                      char *err, size_t errlen) {
  static const char *const sql[3] = {
      "SELECT 0, id, short_name_id, long_name_id, gpu_start_ns, gpu_end_ns, correlation_id, "
      "pid, device_id, 0, 0, 0, 0, 0, grid_x, grid_y, grid_z, block_x, block_y, block_z "
      "FROM kernels ORDER BY id",
      "SELECT 1, id, 0, 0, gpu_start_ns, gpu_end_ns, correlation_id, pid, device_id, copy_kind, "
      "bytes, src_kind, dst_kind, 0, 0, 0, 0, 0, 0, 0 FROM memcpys ORDER BY id",
      "SELECT 2, id, 0, 0, gpu_start_ns, gpu_end_ns, correlation_id, pid, device_id, 0, "
      "bytes, 0, 0, mem_kind, 0, 0, 0, 0, 0, 0 FROM memsets ORDER BY id",
  };
  /* the same columns by name (NULL: the query's constant, 0) */
  static const char *const kcols[SCAN_COLS] = {
      NULL,     "rowid",  "short_name_id", "long_name_id", "gpu_start_ns", "gpu_end_ns",
      "correlation_id", "pid", "device_id", NULL, NULL, NULL, NULL, NULL, "grid_x", "grid_y",
      "grid_z", "block_x", "block_y", "block_z"};
  static const char *const ccols[SCAN_COLS] = {
      NULL, "rowid", NULL, NULL, "gpu_start_ns", "gpu_end_ns", "correlation_id", "pid",
      "device_id", "copy_kind", "bytes", "src_kind", "dst_kind"};
  static const char *const scols[SCAN_COLS] = {
      NULL,  "rowid", NULL, NULL, "gpu_start_ns", "gpu_end_ns", "correlation_id", "pid",
      "device_id", NULL, "bytes", NULL, NULL, "mem_kind"};
  static const scan_src src[3] = {{"kernels", kcols, SCAN_COLS, NULL, 0},
                                  {"memcpys", ccols, SCAN_COLS, NULL, 0},
                                  {"memsets", scols, SCAN_COLS, NULL, 0}};
  for (int i = 0; i < 3; i++) {
    scan_ctx sc = {.fn = (void *)fn, .ctx = ctx, .kind = i};
    if (i == 0 && kept(w, DLDB__RAW_KERNELS, "kernels")) {
      int rc = dldb__rawmem_kernels(w->rawmem, fn, ctx);
      if (rc) return rc;
      continue;
    }
    sqlite3_stmt *st = NULL;
    int rc = prepare(w, sql[i], &st, err, errlen, "dldb_scan_gpu_ops");
    if (rc) return rc;
    if ((rc = run_scan(w, st, &src[i], gpu_op_row, &sc, err, errlen, "dldb_scan_gpu_ops")))
      return rc;
  }
  return DL_OK;
}

int dldb_scan_gpus(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_gpu *g), void *ctx,
                   char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, "SELECT device_id, memory_bytes, sm_count, gpu_name FROM gpus ORDER BY device_id", &st, err, errlen,
                   "dldb_scan_gpus");
  if (rc) return rc;
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 3);
    dldb_scan_gpu g = {.device_id = sqlite3_column_int(st, 0), .name = name ? name : "",
                       .memory_bytes = sqlite3_column_int64(st, 1),
                       .sm_count = sqlite3_column_int(st, 2)};
    if ((rc = fn(ctx, &g)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, "dldb_scan_gpus");
  sqlite3_finalize(st);
  return rc;
}

int dldb_scan_extcorrs(dldb_writer *w, int64_t domain_id,
                       int (*fn)(void *ctx, const dldb_scan_extcorr *e), void *ctx, char *err,
                       size_t errlen) {
  static const char *fname = "dldb_scan_extcorrs";
  if (!dldb__has_table(w, "cupti_external_correlations")) return DL_OK;
  sqlite3_stmt *st = NULL;
  int rc = prepare(w,
                   "SELECT e.correlation_id, r.id, r.pid, r.tid, r.start_ns, r.end_ns "
                   "FROM cupti_external_correlations e JOIN nvtx_ranges r ON r.id = e.external_id "
                   "WHERE e.external_kind = 3 AND r.domain_id = ?1 AND r.kind IN (1, 2) "
                   "ORDER BY e.correlation_id",
                   &st, err, errlen, fname);
  if (rc) return rc;
  sqlite3_bind_int64(st, 1, domain_id);
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_scan_extcorr e = {.correlation_id = sqlite3_column_int64(st, 0),
                           .range_id = sqlite3_column_int64(st, 1),
                           .pid = sqlite3_column_int64(st, 2),
                           .tid = sqlite3_column_int64(st, 3),
                           .start_ns = sqlite3_column_int64(st, 4),
                           .end_ns = sqlite3_column_int64(st, 5)};
    if ((rc = fn(ctx, &e))) break;
  }
  if (!rc && step != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fname);
  sqlite3_finalize(st);
  return rc;
}
