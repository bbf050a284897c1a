/*
 * dldb_write_aggr.c - the analysis side of the writer: streaming scans of
 * raw records, and inserts of derived rows inside one transaction per
 * aggregation (so a failed analysis leaves no partial aggregation).
 */
#include <stdio.h>
#include <string.h>

#include "dldb_write_internal.h"

/* ---- Scans ------------------------------------------------------------------ */

/* Prepares a read (after writing the rows still in batches). */
static int prepare(dldb_writer *w, const char *sql, sqlite3_stmt **st, char *err, size_t errlen,
                   const char *fn) {
  int rc = dldb__flush(w, err, errlen, fn);
  if (rc) return rc;
  if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn);
  return DL_OK;
}

/* Runs st to the end; on a row calls row(ctx, st). Finalizes st. */
static int run_scan(dldb_writer *w, sqlite3_stmt *st, int (*row)(void *, sqlite3_stmt *),
                    void *ctx, char *err, size_t errlen, const char *fn) {
  int s, rc = DL_OK;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    if ((rc = row(ctx, st)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fn);
  sqlite3_finalize(st);
  return rc;
}

int64_t dldb_scan_estimate(dldb_writer *w, const char *table) {
  static const char *const known[] = {"nvtx_ranges", "cuda_api_calls", "kernels", "memcpys",
                                      "memsets", NULL};
  int i = 0;
  while (known[i] && strcmp(known[i], table) != 0) i++;
  if (!known[i]) return 0;
  char sql[96];
  sqlite3_stmt *st = NULL;
  int64_t n = 0;
  snprintf(sql, sizeof sql, "SELECT max(id) FROM %s", known[i]);
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

typedef struct scan_ctx {
  void *fn;
  void *ctx;
  int stack; /* ranges: column 7 is the stack's id */
} scan_ctx;

static int range_row(void *c, sqlite3_stmt *st) {
  scan_ctx *sc = c;
  dldb_scan_range r = {
      .id = sqlite3_column_int64(st, 0),
      .name_id = sqlite3_column_int64(st, 1),
      .start_ns = sqlite3_column_int64(st, 2),
      .end_ns = sqlite3_column_int64(st, 3),
      .pid = sqlite3_column_int64(st, 4),
      .tid = sqlite3_column_int64(st, 5),
      .kind = sqlite3_column_int(st, 6),
      .stack_id = sc->stack ? sqlite3_column_int64(st, 7) : 0,
  };
  return ((int (*)(void *, const dldb_scan_range *))sc->fn)(sc->ctx, &r);
}

/* Runs a query of ranges (range_row's columns, ?1 the domain). */
static int scan_range_query(dldb_writer *w, const char *sql, int stack, int64_t domain_id,
                            int (*fn)(void *ctx, const dldb_scan_range *r), void *ctx, char *err,
                            size_t errlen, const char *fname) {
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, sql, &st, err, errlen, fname);
  if (rc) return rc;
  sqlite3_bind_int64(st, 1, domain_id);
  scan_ctx sc = {.fn = (void *)fn, .ctx = ctx, .stack = stack};
  return run_scan(w, st, range_row, &sc, err, errlen, fname);
}

int dldb_scan_ranges(dldb_writer *w, int64_t domain_id,
                     int (*fn)(void *ctx, const dldb_scan_range *r), void *ctx, char *err,
                     size_t errlen) {
  return scan_range_query(w,
                          "SELECT id, name_id, start_ns, end_ns, pid, tid, kind FROM nvtx_ranges "
                          "WHERE domain_id = ?1 AND kind IN (1, 2) ORDER BY id",
                          0, domain_id, fn, ctx, err, errlen, "dldb_scan_ranges");
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
      1, domain_id, fn, ctx, err, errlen, fname);
}

static int api_row(void *c, sqlite3_stmt *st) {
  scan_ctx *sc = c;
  dldb_scan_api a = {
      .id = sqlite3_column_int64(st, 0),
      .name_id = sqlite3_column_int64(st, 1),
      .start_ns = sqlite3_column_int64(st, 2),
      .end_ns = sqlite3_column_int64(st, 3),
      .pid = sqlite3_column_int64(st, 4),
      .tid = sqlite3_column_int64(st, 5),
      .correlation_id = sqlite3_column_int64(st, 6),
  };
  return ((int (*)(void *, const dldb_scan_api *))sc->fn)(sc->ctx, &a);
}

int dldb_scan_api_calls(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_api *a), void *ctx,
                        char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = prepare(w,
                   "SELECT id, name_id, start_ns, end_ns, pid, tid, correlation_id "
                   "FROM cuda_api_calls ORDER BY id",
                   &st, err, errlen, "dldb_scan_api_calls");
  if (rc) return rc;
  scan_ctx sc = {.fn = (void *)fn, .ctx = ctx};
  return run_scan(w, st, api_row, &sc, err, errlen, "dldb_scan_api_calls");
}

static int gpu_op_row(void *c, sqlite3_stmt *st) {
  scan_ctx *sc = c;
  dldb_scan_gpu_op g = {
      .kind = sqlite3_column_int(st, 0),
      .id = sqlite3_column_int64(st, 1),
      .short_name_id = sqlite3_column_int64(st, 2),
      .long_name_id = sqlite3_column_int64(st, 3),
      .gpu_start_ns = sqlite3_column_int64(st, 4),
      .gpu_end_ns = sqlite3_column_int64(st, 5),
      .correlation_id = sqlite3_column_int64(st, 6),
      .pid = sqlite3_column_int64(st, 7),
      .device_id = sqlite3_column_int(st, 8),
      .copy_kind = sqlite3_column_int(st, 9),
      .bytes = sqlite3_column_int64(st, 10),
      .src_kind = sqlite3_column_int(st, 11),
      .dst_kind = sqlite3_column_int(st, 12),
      .mem_kind = sqlite3_column_int(st, 13),
  };
  for (int i = 0; i < 3; i++) {
    g.grid[i] = sqlite3_column_int(st, 14 + i);
    g.block[i] = sqlite3_column_int(st, 17 + i);
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
  scan_ctx sc = {.fn = (void *)fn, .ctx = ctx};
  for (int i = 0; i < 3; i++) {
    sqlite3_stmt *st = NULL;
    int rc = prepare(w, sql[i], &st, err, errlen, "dldb_scan_gpu_ops");
    if (rc) return rc;
    if ((rc = run_scan(w, st, gpu_op_row, &sc, err, errlen, "dldb_scan_gpu_ops"))) return rc;
  }
  return DL_OK;
}

static int gpu_row(void *c, sqlite3_stmt *st) {
  scan_ctx *sc = c;
  const char *name = (const char *)sqlite3_column_text(st, 3);
  dldb_scan_gpu g = {.device_id = sqlite3_column_int(st, 0), .name = name ? name : "",
                     .memory_bytes = sqlite3_column_int64(st, 1),
                     .sm_count = sqlite3_column_int(st, 2)};
  return ((int (*)(void *, const dldb_scan_gpu *))sc->fn)(sc->ctx, &g);
}

int dldb_scan_gpus(dldb_writer *w, int (*fn)(void *ctx, const dldb_scan_gpu *g), void *ctx,
                   char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = prepare(w, "SELECT device_id, memory_bytes, sm_count, gpu_name FROM gpus ORDER BY device_id", &st, err, errlen,
                   "dldb_scan_gpus");
  if (rc) return rc;
  scan_ctx sc = {.fn = (void *)fn, .ctx = ctx};
  return run_scan(w, st, gpu_row, &sc, err, errlen, "dldb_scan_gpus");
}

/* ---- Derived rows -------------------------------------------------------------- */

/* Gets the statement `which` with ?1 bound to aggr_id into *st. */
static int aggr_stmt(dldb_writer *w, int which, int64_t aggr_id, sqlite3_stmt **st, char *err,
                     size_t errlen, const char *fn) {
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  *st = dldb__stmt(w, which);
  if (!*st) return dldb__sqlerr(w, err, errlen, fn);
  sqlite3_bind_int64(*st, 1, aggr_id);
  return DL_OK;
}

int dldb_aggr_begin(dldb_writer *w, const dldb_aggr_row *a, int64_t *aggr_id, char *err,
                    size_t errlen) {
  int rc;
  if (w->in_aggr)
    return dl_err(err, errlen, DL_EINVAL, "dldb_aggr_begin: an aggregation is already open");
  if ((rc = dldb__tx_commit(w, err, errlen))) return rc;
  if ((rc = dldb__tx_begin(w, err, errlen))) return rc;
  w->in_aggr = 1;
  sqlite3_stmt *st = dldb__stmt(w, DLDB__S_AGGR);
  if (!st) return dldb__sqlerr(w, err, errlen, "dldb_aggr_begin");
  sqlite3_bind_int64(st, 1, a->domain_id);
  sqlite3_bind_int64(st, 2, a->iter_start);
  sqlite3_bind_int64(st, 3, a->iter_stop);
  sqlite3_bind_int64(st, 4, a->iter_aggregated);
  dldb__bind_text(st, 5, a->key_node_name);
  dldb__bind_text(st, 6, a->user_name);
  dldb__bind_text(st, 7, a->host_name);
  dldb__bind_text(st, 8, a->aggr_start);
  sqlite3_bind_int64(st, 9, a->wall_start_ns);
  sqlite3_bind_int64(st, 10, a->wall_end_ns);
  sqlite3_bind_int(st, 11, a->key_op_found);
  dldb__bind_text(st, 12, a->tc_rules);
  if ((rc = dldb__step_done(w, st, err, errlen, "dldb_aggr_begin"))) return rc;
  *aggr_id = w->aggr_id = sqlite3_last_insert_rowid(w->db);
  memset(w->nvtx_total, 0, sizeof w->nvtx_total);
  memset(w->nvtx_rows, 0, sizeof w->nvtx_rows);
  return DL_OK;
}

int dldb_aggr_summary(dldb_writer *w, int64_t aggr_id, const dldb_summary_row *s, char *err,
                      size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_SUMMARY, aggr_id, &st, err, errlen, "dldb_aggr_summary");
  if (rc) return rc;
  int i = 2;
  sqlite3_bind_int64(st, i++, s->wall_clock_time);
  sqlite3_bind_double(st, i++, s->tc_utilization);
  sqlite3_bind_double(st, i++, s->gpu_utilization);
  sqlite3_bind_int64(st, i++, s->total_iterations);
  sqlite3_bind_int64(st, i++, s->profiled_iterations);
  sqlite3_bind_int64(st, i++, s->iter_start);
  sqlite3_bind_int64(st, i++, s->iter_stop);
  sqlite3_bind_double(st, i++, s->iter_avg);
  sqlite3_bind_double(st, i++, s->iter_std_dev);
  dldb__bind_text(st, i++, s->key_node);
  for (int k = 0; k < 7; k++) sqlite3_bind_double(st, i++, s->pct[k]);
  sqlite3_bind_int64(st, i++, s->kernels_gpu_time);
  sqlite3_bind_int64(st, i++, s->kernels_count);
  sqlite3_bind_int64(st, i++, s->using_tc_gpu_time);
  sqlite3_bind_int64(st, i++, s->using_tc_count);
  sqlite3_bind_int64(st, i++, s->memory_gpu_time);
  sqlite3_bind_int64(st, i++, s->memory_count);
  sqlite3_bind_int64(st, i++, s->other_gpu_time);
  sqlite3_bind_int64(st, i++, s->other_count);
  sqlite3_bind_int64(st, i++, s->kernel_launches);
  for (int k = 0; k < 4; k++) {
    sqlite3_bind_int64(st, i++, s->nodes_gpu_time[k]);
    sqlite3_bind_int64(st, i++, s->nodes_count[k]);
  }
  sqlite3_bind_int64(st, i++, s->kernels_cpu_time);
  sqlite3_bind_int64(st, i++, s->using_tc_cpu_time);
  sqlite3_bind_int64(st, i++, s->memory_cpu_time);
  sqlite3_bind_int64(st, i++, s->other_cpu_time);
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_summary");
}

int dldb_aggr_iteration(dldb_writer *w, int64_t aggr_id, const dldb_iteration_row *r, char *err,
                        size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_ITER, aggr_id, &st, err, errlen, "dldb_aggr_iteration");
  if (rc) return rc;
  sqlite3_bind_int64(st, 2, r->iter_value);
  sqlite3_bind_int64(st, 3, r->start_time);
  sqlite3_bind_int64(st, 4, r->stop_time);
  sqlite3_bind_int(st, 5, r->profiled);
  sqlite3_bind_double(st, 6, r->gpu_utilization);
  sqlite3_bind_int64(st, 7, r->total_kernel_count);
  sqlite3_bind_int64(st, 8, r->using_tc_kernel_count);
  sqlite3_bind_int64(st, 9, r->total_gpu_time);
  sqlite3_bind_int64(st, 10, r->tc_gpu_time);
  for (int k = 0; k < 7; k++) sqlite3_bind_int64(st, 11 + k, r->dur[k]);
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_iteration");
}

int dldb_aggr_op(dldb_writer *w, int64_t aggr_id, const dldb_op_row *r, char *err,
                 size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_OP, aggr_id, &st, err, errlen, "dldb_aggr_op");
  if (rc) return rc;
  sqlite3_bind_int64(st, 2, r->op_idx);
  dldb__bind_text(st, 3, r->op_node_id);
  dldb__bind_text(st, 4, r->op_node_name);
  dldb__bind_text(st, 5, r->direction);
  dldb__bind_text(st, 6, r->op_node_type);
  dldb__bind_text(st, 7, r->data_type);
  dldb__bind_text(st, 8, r->stack_trace);
  sqlite3_bind_int64(st, 9, r->num_calls);
  sqlite3_bind_int64(st, 10, r->kernel_calls);
  sqlite3_bind_int(st, 11, r->tc_eligible);
  sqlite3_bind_int(st, 12, r->using_tc);
  sqlite3_bind_int(st, 13, r->is_bad_data_type);
  sqlite3_bind_int64(st, 14, r->cpu_time);
  sqlite3_bind_int64(st, 15, r->gpu_time);
  sqlite3_bind_int64(st, 16, r->cpu_overhead);
  sqlite3_bind_int64(st, 17, r->gpu_idle);
  sqlite3_bind_int64(st, 18, r->tc_gpu_time);
  sqlite3_bind_int64(st, 19, r->cpu_time_min);
  sqlite3_bind_int64(st, 20, r->cpu_time_max);
  sqlite3_bind_int64(st, 21, r->gpu_time_min);
  sqlite3_bind_int64(st, 22, r->gpu_time_max);
  /* NULL: unknown (a NULL pointer binds NULL) */
  sqlite3_bind_text(st, 23, r->input_shapes, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 24, r->parameters, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 25, r->output_shapes, -1, SQLITE_TRANSIENT);
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_op");
}

int dldb_aggr_kernel(dldb_writer *w, int64_t aggr_id, const dldb_kernel_attr_row *r, char *err,
                     size_t errlen) {
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "dldb_aggr_kernel: no open aggregation");
  const dldb__cell row[] = {
      DLDB__I(aggr_id),        DLDB__I(r->iter_value), DLDB__I(r->kernel_id),
      DLDB__I(r->op_idx),      DLDB__I(r->uses_tc),    DLDB__I(r->api_start_ns),
      r->api_dur_ns >= 0 ? DLDB__I(r->api_dur_ns) : DLDB__N,
  };
  return dldb__batch_row(w, DLDB__B_KATTR, row, err, errlen, "dldb_aggr_kernel");
}

int dldb_aggr_iter_op(dldb_writer *w, int64_t aggr_id, const dldb_iter_op_row *r, char *err,
                      size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_ITER_OP, aggr_id, &st, err, errlen, "dldb_aggr_iter_op");
  if (rc) return rc;
  sqlite3_bind_int64(st, 2, r->iter_value);
  sqlite3_bind_int64(st, 3, r->op_idx);
  sqlite3_bind_int64(st, 4, r->total_count);
  sqlite3_bind_int64(st, 5, r->tc_count);
  sqlite3_bind_int64(st, 6, r->total_gpu_time);
  sqlite3_bind_int64(st, 7, r->tc_gpu_time);
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_iter_op");
}

int dldb_aggr_op_kernel(dldb_writer *w, int64_t aggr_id, const dldb_op_kernel_row *r, char *err,
                        size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_OP_KERNEL, aggr_id, &st, err, errlen, "dldb_aggr_op_kernel");
  if (rc) return rc;
  sqlite3_bind_int64(st, 2, r->op_idx);
  sqlite3_bind_int64(st, 3, r->kernel_name_id);
  sqlite3_bind_int(st, 4, r->uses_tc);
  sqlite3_bind_int64(st, 5, r->calls);
  sqlite3_bind_int64(st, 6, r->gpu_time);
  sqlite3_bind_double(st, 7, r->calls ? (double)r->gpu_time / (double)r->calls : 0.0);
  sqlite3_bind_int64(st, 8, r->min);
  sqlite3_bind_int64(st, 9, r->max);
  sqlite3_bind_int64(st, 10, r->api_time);
  if (r->api_min >= 0) sqlite3_bind_int64(st, 11, r->api_min);
  else sqlite3_bind_null(st, 11);
  if (r->api_max >= 0) sqlite3_bind_int64(st, 12, r->api_max);
  else sqlite3_bind_null(st, 12);
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_op_kernel");
}

int dldb_aggr_group(dldb_writer *w, int64_t aggr_id, const dldb_group_row *r, char *err,
                    size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_GROUP, aggr_id, &st, err, errlen, "dldb_aggr_group");
  if (rc) return rc;
  sqlite3_bind_int64(st, 2, r->row_idx);
  sqlite3_bind_int(st, 3, r->row_type);
  dldb__bind_text(st, 4, r->row_full_id);
  dldb__bind_text(st, 5, r->row_full_name);
  dldb__bind_text(st, 6, r->row_trimmed_name);
  sqlite3_bind_int64(st, 7, r->level);
  sqlite3_bind_int64(st, 8, r->num_op_instances);
  sqlite3_bind_int64(st, 9, r->num_supported_leaf_ops);
  sqlite3_bind_int64(st, 10, r->num_tc_leaf_ops);
  sqlite3_bind_int64(st, 11, r->cpu_time_sum);
  sqlite3_bind_int64(st, 12, r->gpu_time_sum);
  sqlite3_bind_int64(st, 13, r->cpu_overhead_sum);
  sqlite3_bind_int64(st, 14, r->gpu_idle_sum);
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_group");
}

int dldb_aggr_op_type(dldb_writer *w, int64_t aggr_id, const dldb_op_type_row *r, char *err,
                      size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_OP_TYPE, aggr_id, &st, err, errlen, "dldb_aggr_op_type");
  if (rc) return rc;
  dldb__bind_text(st, 2, r->op_node_type);
  sqlite3_bind_int64(st, 3, r->num_nodes);
  sqlite3_bind_int64(st, 4, r->num_calls);
  for (int k = 0; k < 4; k++) {
    sqlite3_bind_int64(st, 5 + 4 * k, r->sum[k]);
    sqlite3_bind_double(st, 6 + 4 * k,
                        r->num_nodes ? (double)r->sum[k] / (double)r->num_nodes : 0.0);
    sqlite3_bind_int64(st, 7 + 4 * k, r->min[k]);
    sqlite3_bind_int64(st, 8 + 4 * k, r->max[k]);
  }
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_op_type");
}

int dldb_aggr_gpu(dldb_writer *w, int64_t aggr_id, const dldb_gpu_util_row *r, char *err,
                  size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_GPU_UTIL, aggr_id, &st, err, errlen, "dldb_aggr_gpu");
  if (rc) return rc;
  sqlite3_bind_int(st, 2, r->device_id);
  sqlite3_bind_double(st, 3, r->gpu_utilization);
  sqlite3_bind_int64(st, 4, r->kernel_time);
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_gpu");
}

int dldb_aggr_finding(dldb_writer *w, int64_t aggr_id, int64_t seq, const dldb_finding_row *r,
                      char *err, size_t errlen) {
  sqlite3_stmt *st;
  int rc = aggr_stmt(w, DLDB__S_FINDING, aggr_id, &st, err, errlen, "dldb_aggr_finding");
  if (rc) return rc;
  sqlite3_bind_int64(st, 2, seq);
  dldb__bind_text(st, 3, r->rule_id);
  dldb__bind_text(st, 4, r->problem);
  dldb__bind_text(st, 5, r->recommendation);
  dldb__bind_text(st, 6, r->javascript_function);
  dldb__bind_text(st, 7, r->javascript_args);
  return dldb__step_done(w, st, err, errlen, "dldb_aggr_finding");
}

int dldb_aggr_end(dldb_writer *w, char *err, size_t errlen) {
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "dldb_aggr_end: no open aggregation");
  int rc = dldb__nvtx_totals(w, w->aggr_id, err, errlen);
  /* No index of aggr_kernels by op: the viewer always passes the iteration
   * with the op (the primary key finds the rows), and building one took
   * 11-14 s of a 10 M kernel import (docs/performance.md). Files written
   * before keep theirs; SQLite updates it. */
  if (rc == DL_OK) rc = dldb__flush(w, err, errlen, "dldb_aggr_end");
  if (rc) return rc; /* still open: the caller cancels it */
  w->in_aggr = 0;
  return dldb__tx_commit(w, err, errlen);
}

void dldb_aggr_cancel(dldb_writer *w) {
  if (!w || !w->in_aggr) return;
  w->in_aggr = 0;
  for (int i = 0; i < DLDB__B_COUNT; i++) {
    dldb__batch_drop(&w->batch[i]);
    dldb__batch_forget_ids(&w->batch[i]);
  }
  if (w->in_tx) sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
  dldb__ahead_reset(w); /* strings added in the aggregation are gone */
  w->in_tx = 0;
  w->pending = 0;
}
