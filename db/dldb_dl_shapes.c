/* dldb_dl_shapes.c - aggr_dl_op_shapes rows (see dldb_aggr_shapes.h). */
#include "dldb_aggr_shapes.h"

#include <math.h>

#include "dldb_write_internal.h"

int dldb_dl_has_op_shapes(dldb_writer *w) { return dldb__has_table(w, "aggr_dl_op_shapes"); }

static void bind_real(sqlite3_stmt *st, int i, double v) {
  if (isnan(v)) sqlite3_bind_null(st, i);
  else sqlite3_bind_double(st, i, v);
}

int dldb_aggr_dl_op_shapes(dldb_writer *w, int64_t aggr_id, const dldb_dl_op_shape_row *r,
                           size_t n, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db,
                         "INSERT INTO aggr_dl_op_shapes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                         "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
                         -1, &st, NULL) != SQLITE_OK)
    return dl_err(err, errlen, DL_EDB, "dldb_aggr_dl_op_shapes: %s", dldb__errmsg(w));
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    const dldb_dl_op_shape_row *x = &r[i];
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, x->row_idx);
    sqlite3_bind_int64(st, 3, x->op_idx);
    dldb__bind_text(st, 4, x->input_dims ? x->input_dims : "");
    dldb__bind_text(st, 5, x->input_types ? x->input_types : "");
    dldb__bind_text(st, 6, x->model ? x->model : "no model");
    sqlite3_bind_int64(st, 7, x->calls);
    sqlite3_bind_int64(st, 8, x->gpu_time);
    if (x->device_id >= 0) sqlite3_bind_int(st, 9, x->device_id);
    else sqlite3_bind_null(st, 9);
    bind_real(st, 10, x->flops);
    bind_real(st, 11, x->bytes);
    bind_real(st, 12, x->tflops_per_s);
    bind_real(st, 13, x->tb_per_s);
    bind_real(st, 14, x->intensity);
    bind_real(st, 15, x->peak_tflops);
    bind_real(st, 16, x->peak_tb_per_s);
    bind_real(st, 17, x->roofline_tflops_per_s);
    bind_real(st, 18, x->pct_of_roofline);
    if (x->bound) dldb__bind_text(st, 19, x->bound);
    else sqlite3_bind_null(st, 19);
    if (x->gpu_name) dldb__bind_text(st, 20, x->gpu_name);
    else sqlite3_bind_null(st, 20);
    int s = sqlite3_step(st);
    sqlite3_reset(st);
    if (s != SQLITE_DONE)
      rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_dl_op_shapes: %s", dldb__errmsg(w));
  }
  sqlite3_finalize(st);
  return rc;
}

int dldb_aggr_dl_iter_flops(dldb_writer *w, int64_t aggr_id, int64_t first_iter,
                            const double *flops, size_t n, double peak_tflops, char *err,
                            size_t errlen) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, "INSERT INTO aggr_dl_iter_flops VALUES (?1, ?2, ?3, ?4)", -1, &st,
                         NULL) != SQLITE_OK)
    return dl_err(err, errlen, DL_EDB, "dldb_aggr_dl_iter_flops: %s", dldb__errmsg(w));
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int64(st, 2, first_iter + (int64_t)i);
    sqlite3_bind_double(st, 3, flops[i]);
    bind_real(st, 4, peak_tflops);
    int s = sqlite3_step(st);
    sqlite3_reset(st);
    if (s != SQLITE_DONE)
      rc = dl_err(err, errlen, DL_EDB, "dldb_aggr_dl_iter_flops: %s", dldb__errmsg(w));
  }
  sqlite3_finalize(st);
  return rc;
}
