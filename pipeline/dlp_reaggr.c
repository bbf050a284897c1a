/* dlp_reaggr.c - the steps of a dldb given as input (dlp_internal.h): a
 * dldb of ours gets a new aggregation, added to a copy beside it which
 * replaces it only when complete (a failure, a full disk, leaves the file
 * as it was); otherwise only its reports are written. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dldb.h"
#include "dldb_copy.h"
#include "dlp_internal.h"

int dlp_step_reopen(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  dldb_writer *w = NULL;
  int rc = dldb_writer_open_existing(o->input, &w, p->err, p->errlen);
  if (rc != DL_OK) {
    /* NVIDIA's databases hold no raw records: only their reports can be made. */
    if (!o->shape_opts) {
      p->err[0] = '\0';
      p->stage = DLP_S_REPORTS;
      return DL_OK;
    }
    size_t n = strlen(p->err);
    snprintf(p->err + n, p->errlen - n, " (a new aggregation needs a dldb written by dlprof)");
    return rc;
  }
  dldb_writer_abort(&w);
  /* A dldb with aggregations (not one just recorded): without an option
   * that shapes an aggregation, the newest one's reports (another
   * aggregation would repeat it); without --key_op, a new one keeps its
   * key op (a Kineto dldb's ProfilerStep#), not the mode's default. (No
   * quick check: the aggregation reads the file, which the writer has
   * just opened.) */
  dldb *db = NULL;
  dldb_info info;
  int have = dldb_open_ro_written(o->input, &db, &info, p->err, p->errlen) == DL_OK;
  dldb_close(&db);
  p->err[0] = '\0'; /* not having aggregations is no error */
  if (have && !o->shape_opts) {
    p->stage = DLP_S_REPORTS;
    return DL_OK;
  }
  p->key_op = o->key_op;
  if (have && !o->key_op && info.default_key_op[0]) {
    snprintf(p->dldb_key_op, sizeof p->dldb_key_op, "%s", info.default_key_op);
    p->key_op = p->dldb_key_op;
  }
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_AGGREGATING_AGAIN, .path = o->input});
  return DL_OK;
}

int dlp_step_copy(dlp_pipeline *p) {
  int rc = dldb_copy_beside(p->o->input, p->tmp, sizeof p->tmp, p->err, p->errlen);
  if (rc != DL_OK) {
    p->tmp[0] = '\0'; /* none left */
    return rc;
  }
  return dldb_writer_open_existing(p->tmp, &p->w, p->err, p->errlen);
}

int dlp_step_commit_copy(dlp_pipeline *p) { return dldb_writer_commit(&p->w, p->err, p->errlen); }

/* The reports first, from the copy: a failure leaves the dldb as it was. */
int dlp_step_copy_reports(dlp_pipeline *p) { return dlp_reports_prepare(p, p->tmp, p->aggr_id); }

int dlp_step_replace(dlp_pipeline *p) {
  if (rename(p->tmp, p->o->input) != 0)
    return dl_err(p->err, p->errlen, DL_EIO, "%s: cannot rename the new file into place: %s",
                  p->o->input, strerror(errno));
  p->tmp[0] = '\0';
  return DL_OK;
}

/* The reports of a dldb this run does not change: its newest aggregation's. */
int dlp_step_reports(dlp_pipeline *p) { return dlp_reports_prepare(p, p->o->input, -1); }
