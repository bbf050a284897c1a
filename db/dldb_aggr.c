/*
 * dldb_aggr.c - derived rows (dldb_aggr.h): inserts inside one transaction
 * per aggregation, so a failed analysis leaves no partial aggregation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_aggr.h"
#include "dldb_kgdurs.h"
#include "dldb_nvtxidx.h"
#include "dldb_nvtxzones.h"
#include "dldb_write_internal.h"
#include "dl_sqlbuild.h"

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
  w->durs_by_caller = 0;
  w->kgroups_by_caller = 0;
  w->kgdurs_by_caller = 0;
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
  dldb__zones_reset(w);
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
  if (r->op_idx < 0 || r->op_idx > UINT32_MAX) /* the name index's rowid holds it in 32 bits */
    return dl_err(err, errlen, DL_EINVAL, "dldb_aggr_op: op_idx %lld is outside 0..2^32-1",
                  (long long)r->op_idx);
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

int dldb_aggr_kernels_begin(dldb_writer *w, char *err, size_t errlen) {
  static const char *fn = "dldb_aggr_kernels_begin";
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "%s: no open aggregation", fn);
  if (!dldb__bulk_wanted(w)) return DL_OK;
  int rc = dldb__bulk_begin(w, 0, err, errlen, fn);
  if (rc || !w->bulk) return rc;
  dl_sqlbuild_uncached(w->bulk); /* the run does not read them back */
  rc = dl_sqlbuild_add_index(w->bulk, "aggr_kernels_by_time", 4, &w->kidx_bulk);
  if (rc == DL_OK) rc = dl_sqlbuild_add(w->bulk, "aggr_kernels", 7, &w->bulk_tab[DLDB__B_KATTR]);
  if (rc == DL_ENOMEM) return dl_err(err, errlen, rc, "%s: out of memory", fn);
  return rc == DL_OK ? DL_OK : dldb__bulk_end(w, 1, err, errlen);
}

int dldb_aggr_kernels_paged(const dldb_writer *w) { return w->kidx_bulk != NULL; }

int dldb_aggr_kernel_by_time(dldb_writer *w, int64_t aggr_id, int64_t api_start_ns,
                             int64_t iter_value, int64_t kernel_id, char *err, size_t errlen) {
  if (!w->kidx_bulk) return DL_OK; /* SQLite keeps the index */
  const dl_sqlpage_val v[4] = {{.type = SQLITE_INTEGER, .i = aggr_id},
                               {.type = SQLITE_INTEGER, .i = api_start_ns},
                               {.type = SQLITE_INTEGER, .i = iter_value},
                               {.type = SQLITE_INTEGER, .i = kernel_id}};
  int rc = dl_sqlbuild_row(w->kidx_bulk, v);
  return rc ? dldb__bulk_err(w, rc, err, errlen, "dldb_aggr_kernel_by_time", "index entries")
            : DL_OK;
}

int dldb_aggr_kernels_end(dldb_writer *w, char *err, size_t errlen) {
  return w->kidx_bulk ? dldb__bulk_end(w, 1, err, errlen) : DL_OK;
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

int dldb__exec_aggr(dldb_writer *w, const char *sql, const char *what, char *err,
                    size_t errlen) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return dl_err(err, errlen, DL_EDB, "dldb_aggr_end: %s", dldb__errmsg(w));
  }
  sqlite3_bind_int64(st, 1, w->aggr_id);
  int rc = DL_OK;
  if (sqlite3_step(st) != SQLITE_DONE)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: %s: %s", what, dldb__errmsg(w));
  sqlite3_finalize(st);
  return rc;
}

/* The aggregation's kernel launches by duration (aggr_dl_kernel_dur_chunks),
 * where the file has the table: the caller's, its last chunk written now;
 * else read from its written rows in one sorted statement. */
static int kernel_durs(dldb_writer *w, char *err, size_t errlen) {
  if (w->durs_by_caller) return dldb__pc_end(w, DLDB__PC_KDUR, err, errlen);
  if (!dldb__has_table(w, "aggr_dl_kernel_dur_chunks")) return DL_OK;
  sqlite3_stmt *st = NULL;
  int rc = dldb__pc_begin(w, DLDB__PC_KDUR, err, errlen), src = SQLITE_DONE;
  if (rc == DL_OK &&
      sqlite3_prepare_v2(w->db,
                         "SELECT k.gpu_end_ns - k.gpu_start_ns, ak.api_start_ns FROM aggr_kernels "
                         "ak JOIN kernels k ON k.id = ak.kernel_id WHERE ak.aggr_id = ?1 ORDER BY "
                         "1, 2, ak.kernel_id",
                         -1, &st, NULL) != SQLITE_OK)
    src = SQLITE_ERROR;
  if (st) sqlite3_bind_int64(st, 1, w->aggr_id);
  while (rc == DL_OK && st && (src = sqlite3_step(st)) == SQLITE_ROW)
    rc = dldb__pc_add(w, DLDB__PC_KDUR, 0, -1, sqlite3_column_int64(st, 0),
                      sqlite3_column_int64(st, 1), err, errlen);
  if (rc == DL_OK && src != SQLITE_DONE)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: kernel durations: %s", dldb__errmsg(w));
  sqlite3_finalize(st);
  if (rc == DL_OK) return dldb__pc_end(w, DLDB__PC_KDUR, err, errlen);
  dldb__pc_free(w, DLDB__PC_KDUR);
  return rc;
}

/* Per op, the aggregation's rows of aggr_iter_ops (aggr_dl_op_iters), in
 * one statement from its written rows, where the file has the table. */
static int op_iters(dldb_writer *w, char *err, size_t errlen) {
  if (!dldb__has_table(w, "aggr_dl_op_iters")) return DL_OK;
  return dldb__exec_aggr(w,
                         "INSERT INTO aggr_dl_op_iters(aggr_id, op_idx, iters) SELECT aggr_id, "
                         "op_idx, count(*) FROM aggr_iter_ops WHERE aggr_id = ?1 GROUP BY op_idx",
                         "rows per op", err, errlen);
}

/* view_dl_iteration_op_keys' sort columns, each with marks in its order. */
static const char *const iter_op_mark_cols[] = {"iter_value", "total_count", "tc_count",
                                                "total_gpu_time", "tc_gpu_time"};
enum { ITER_OP_MARK_EVERY = 64 }; /* db/schema.sql aggr_dl_iter_op_marks */

/* One column's marks: its (value, iteration) pairs read in its index's
 * order (no sort), every ITER_OP_MARK_EVERY-th place written with how many
 * places before it have the same pair. */
static int iter_op_marks_of(dldb_writer *w, const char *c, sqlite3_stmt *put, char *err,
                            size_t errlen) {
  char sql[256];
  sqlite3_stmt *rd = NULL;
  int by_iter = strcmp(c, "iter_value") == 0; /* the primary key's order */
  snprintf(sql, sizeof sql,
           "SELECT %s, iter_value FROM aggr_iter_ops WHERE aggr_id = ?1%s ORDER BY %s%s", c,
           by_iter ? "" : " AND aggr_id > -1", c, by_iter ? "" : ", iter_value");
  if (sqlite3_prepare_v2(w->db, sql, -1, &rd, NULL) != SQLITE_OK) {
    sqlite3_finalize(rd);
    return dl_err(err, errlen, DL_EDB, "dldb_aggr_end: iteration op marks: %s", dldb__errmsg(w));
  }
  sqlite3_bind_int64(rd, 1, w->aggr_id);
  int64_t place = 0, first = 0, pv = 0, pi = 0;
  int rc = DL_OK, src = SQLITE_DONE;
  while (rc == DL_OK && (src = sqlite3_step(rd)) == SQLITE_ROW) {
    int64_t v = sqlite3_column_int64(rd, 0), i = sqlite3_column_int64(rd, 1);
    if (place == 0 || v != pv || i != pi) {
      first = place;
      pv = v;
      pi = i;
    }
    if (place % ITER_OP_MARK_EVERY == 0) {
      sqlite3_bind_int64(put, 1, w->aggr_id);
      sqlite3_bind_text(put, 2, c, -1, SQLITE_STATIC);
      sqlite3_bind_int64(put, 3, place);
      sqlite3_bind_int64(put, 4, v);
      sqlite3_bind_int64(put, 5, i);
      sqlite3_bind_int64(put, 6, place - first);
      rc = dldb__step_done(w, put, err, errlen, "dldb_aggr_end: iteration op marks");
    }
    place++;
  }
  if (rc == DL_OK && src != SQLITE_DONE)
    rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_end: iteration op marks: %s", dldb__errmsg(w));
  sqlite3_finalize(rd);
  return rc;
}

/* The marks of the aggregation's orders of aggr_iter_ops rows
 * (aggr_dl_iter_op_marks), where the file has the table. */
static int iter_op_marks(dldb_writer *w, char *err, size_t errlen) {
  if (!dldb__has_table(w, "aggr_dl_iter_op_marks")) return DL_OK;
  sqlite3_stmt *put = NULL;
  if (sqlite3_prepare_v2(w->db, "INSERT INTO aggr_dl_iter_op_marks VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                         -1, &put, NULL) != SQLITE_OK) {
    sqlite3_finalize(put);
    return dl_err(err, errlen, DL_EDB, "dldb_aggr_end: iteration op marks: %s", dldb__errmsg(w));
  }
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < sizeof iter_op_mark_cols / sizeof *iter_op_mark_cols; i++)
    rc = iter_op_marks_of(w, iter_op_mark_cols[i], put, err, errlen);
  sqlite3_finalize(put);
  return rc;
}

/* The aggregation's ops' filter texts into their trigram index
 * (aggr_dl_op_names, rowid aggr_id * 2^32 + op_idx), where the file has
 * it. dldb_aggr_op keeps op_idx in [0, 2^32). */
static int op_names(dldb_writer *w, char *err, size_t errlen) {
  if (!dldb__has_table(w, "aggr_dl_op_names")) return DL_OK;
  return dldb__exec_aggr(w,
                         "INSERT INTO aggr_dl_op_names(rowid, op_node_name, op_node_type, "
                         "op_node_id) SELECT (aggr_id << 32) + op_idx, op_node_name, "
                         "op_node_type, op_node_id FROM aggr_ops WHERE aggr_id = ?1",
                         "ops' name index", err, errlen);
}

/* The parent name of aggr_group_ops row g, as SQL: g's row_full_name up
 * to its last '/' but a trailing one (rtrim(S, replace(S, '/', '')) trims
 * every character but '/' from S's end), as the viewer computes it on files
 * without aggr_dl_group_parents (dldb_query.c). */
#define PARENT_S "CASE WHEN substr(g.row_full_name, -1) = '/' THEN substr(g.row_full_name, 1, " \
                 "length(g.row_full_name) - 1) ELSE g.row_full_name END"
#define PARENT_OF_G "rtrim(" PARENT_S ", replace(" PARENT_S ", '/', ''))"

/* Each group op row's parent group (aggr_dl_group_parents; '' where the
 * aggregation has no group of that name), where the file has the table. */
static int group_parents(dldb_writer *w, char *err, size_t errlen) {
  if (!dldb__has_table(w, "aggr_dl_group_parents")) return DL_OK;
  return dldb__exec_aggr(w,
                         "INSERT INTO aggr_dl_group_parents(aggr_id, parent, row_idx) SELECT "
                         "g.aggr_id, CASE WHEN " PARENT_OF_G " IN (SELECT row_full_name FROM "
                         "aggr_group_ops WHERE aggr_id = ?1 AND row_type = 1 AND row_full_name "
                         "<> '') THEN " PARENT_OF_G " ELSE '' END, g.row_idx FROM aggr_group_ops g "
                         "WHERE g.aggr_id = ?1",
                         "group parents", err, errlen);
}

int dldb_aggr_end(dldb_writer *w, char *err, size_t errlen) {
  if (!w->in_aggr) return dl_err(err, errlen, DL_EINVAL, "dldb_aggr_end: no open aggregation");
  int rc = dldb__bulk_end(w, 1, err, errlen);
  if (rc == DL_OK) rc = dldb__nvtx_totals(w, w->aggr_id, err, errlen);
  /* No index of aggr_kernels by op: the viewer always passes the iteration
   * with the op (the primary key finds the rows), and building one took
   * 11-14 s of a 10 M kernel import (docs/performance.md). Files written
   * before keep theirs; SQLite updates it. */
  if (rc == DL_OK) rc = dldb__flush(w, err, errlen, "dldb_aggr_end");
  if (rc == DL_OK) rc = kernel_durs(w, err, errlen);
  if (rc == DL_OK) rc = op_iters(w, err, errlen);
  if (rc == DL_OK) rc = op_names(w, err, errlen);
  if (rc == DL_OK) rc = iter_op_marks(w, err, errlen);
  if (rc == DL_OK) rc = group_parents(w, err, errlen);
  if (rc == DL_OK) rc = dldb__group_places(w, err, errlen);
  if (rc == DL_OK) rc = dldb__kernel_groups(w, err, errlen);
  if (rc == DL_OK) rc = dldb__kernel_group_durs(w, err, errlen);
  if (rc) return rc; /* still open: the caller cancels it */
  w->in_aggr = 0;
  rc = dldb__tx_commit(w, err, errlen);
  return rc ? rc : dldb__nvtx_index(w, err, errlen); /* its own transaction */
}

void dldb_aggr_cancel(dldb_writer *w) {
  if (!w || !w->in_aggr) return;
  dldb__bulk_end(w, 0, NULL, 0);
  w->in_aggr = 0;
  for (int t = 0; t < DLDB__PC_COUNT; t++) dldb__pc_free(w, t);
  for (int i = 0; i < DLDB__B_COUNT; i++) {
    dldb__batch_drop(&w->batch[i]);
    dldb__batch_forget_ids(&w->batch[i]);
  }
  if (w->in_tx) sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
  dldb__ahead_reset(w); /* strings added in the aggregation are gone */
  w->ndomains = 0;      /* ... and domains */
  w->in_tx = 0;
  w->pending = 0;
}
