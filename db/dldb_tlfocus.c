/* dldb_tlfocus.c - where the Timeline page opens for a row of another page
 * (see dldb_tlfocus.h). */
#include "dldb_tlfocus.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"
#include "dldb_read.h"
#include "dldb_tlgaps.h"

static const char newest_sql[] = "SELECT MAX(aggr_id) FROM view_aggregations";

static const char op_first_iter_sql[] =
    "SELECT MIN(iter_value) FROM view_iteration_ops WHERE aggr_id = ?1 AND op_node_id = ?2 "
    "AND total_count > 0";

/* The kernels an op launched in one iteration, in launch order. */
static const char op_kernels_sql[] =
    "SELECT l.kernel_id, l.api_start, k.pid, k.device_id, k.stream_id, k.start, k.dur "
    "FROM view_dl_timeline_launches l "
    "JOIN view_dl_timeline_kernel_details k ON k.event_id = l.kernel_id "
    "WHERE l.aggr_id = ?1 AND l.iter_value = ?2 AND l.op_node_id = ?3 "
    "ORDER BY l.api_start, k.start, l.kernel_id";

/* A kernel row's launch (view_iteration_kernels: iteration, call start,
 * device, short name). */
static const char launch_sql[] =
    "SELECT l.kernel_id, l.api_start, k.pid, k.device_id, k.stream_id, k.start, k.dur "
    "FROM view_dl_timeline_launches l "
    "JOIN view_dl_timeline_kernel_details k ON k.event_id = l.kernel_id "
    "WHERE l.aggr_id = ?1 AND l.iter_value = ?2 AND l.api_start = ?3 AND k.device_id = ?4 "
    "AND k.name = ?5 ORDER BY k.start, l.kernel_id LIMIT 1";

static const char gpu_track_sql[] =
    "SELECT track_id FROM view_dl_timeline_tracks WHERE kind = 'gpu_stream' AND pid = ?1 "
    "AND device_id = ?2 AND stream_id = ?3";

static const char iter_sql[] =
    "SELECT start_time, stop_time FROM view_iterations_all WHERE aggr_id = ?1 AND iter_value = ?2";

static const char iter_track_sql[] =
    "SELECT track_id FROM view_dl_timeline_tracks WHERE kind = 'iterations' ORDER BY track_id "
    "LIMIT 1";

static const char finding_count_sql[] =
    "SELECT COUNT(*) FROM view_dl_findings WHERE aggr_id = ?1";

static const char finding_sql[] =
    "SELECT rule_id FROM view_dl_findings WHERE aggr_id = ?1 ORDER BY seq LIMIT 1 OFFSET ?2";

static const char bad_type_op_sql[] =
    "SELECT op_node_id FROM view_op_nodes WHERE aggr_id = ?1 AND is_bad_data_type = 1 "
    "AND kernel_calls > 0 ORDER BY gpu_time DESC, op_node_id LIMIT 1";

static const char longest_iter_sql[] =
    "SELECT iter_value FROM view_iterations_profiled WHERE aggr_id = ?1 "
    "ORDER BY duration DESC, iter_value LIMIT 1";

static const char dataloader_iter_sql[] =
    "SELECT iter_value FROM view_iterations_profiled WHERE aggr_id = ?1 "
    "AND dataloader_duration > 0 ORDER BY dataloader_duration DESC, iter_value LIMIT 1";

static const char comm_iter_sql[] =
    "SELECT iter_value FROM view_dl_iteration_efficiency WHERE aggr_id = ?1 "
    "AND exposed_communication_time > 0 ORDER BY exposed_communication_time DESC, iter_value "
    "LIMIT 1";

/* A parameter: text when s is not NULL, else i. */
typedef struct fc_bind {
  int64_t i;
  const char *s;
} fc_bind;

/* Runs sql with b[0 .. nb) bound and copies its first row: int columns into
 * out[0 .. nout), or column 0 as text into text (textlen bytes) when text
 * is not NULL. 1: a row whose column 0 is not NULL; 0: none; < 0: an error
 * (one line in err). */
static int one_row(dldb *db, const char *sql, const fc_bind *b, int nb, int64_t *out, int nout,
                   char *text, size_t textlen, char *err, size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EIO;
  for (int i = 0; i < nb; i++) {
    if (b[i].s) sqlite3_bind_text(st, i + 1, b[i].s, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_int64(st, i + 1, b[i].i);
  }
  int rc = sqlite3_step(st), found = 0;
  if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
    found = 1;
    for (int c = 0; c < nout; c++) out[c] = sqlite3_column_int64(st, c);
    if (text) {
      const char *t = (const char *)sqlite3_column_text(st, 0);
      snprintf(text, textlen, "%s", t ? t : "");
    }
  } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    found = dldb__sql_err(db, rc, "timeline focus", err, errlen);
  }
  dldb__stmt_done(st);
  return found;
}

static int newest(dldb *db, int64_t *aggr_id, char *err, size_t errlen) {
  if (*aggr_id > 0) return DL_OK;
  int rc = one_row(db, newest_sql, NULL, 0, aggr_id, 1, NULL, 0, err, errlen);
  if (rc < 0) return rc;
  return rc ? DL_OK : dl_err(err, errlen, DL_ENOTFOUND, "this database has no aggregation");
}

static int needs_launches(dldb *db, char *err, size_t errlen) {
  if (dldb_has_view(db, "view_dl_timeline_launches") &&
      dldb_has_view(db, "view_dl_timeline_tracks"))
    return DL_OK;
  return dl_err(err, errlen, DL_ENOTFOUND, "this database has no kernel launches on its timeline");
}

/* Selects kernel row k (kernel_id, api_start, pid, device, stream, start,
 * dur) in f. */
static int select_kernel(dldb *db, const int64_t *k, dldb_tl_focus *f, char *err, size_t errlen) {
  fc_bind b[3] = {{k[2], NULL}, {k[3], NULL}, {k[4], NULL}};
  int64_t track = 0;
  int rc = one_row(db, gpu_track_sql, b, 3, &track, 1, NULL, 0, err, errlen);
  if (rc < 0) return rc;
  f->track_id = rc ? track : 0;
  f->sel_start_ns = k[5];
  f->category = "kernel";
  f->event_id = k[0];
  return DL_OK;
}

int dldb_timeline_focus_op(dldb *db, int64_t aggr_id, const char *op_node_id, int64_t iter,
                           dldb_tl_focus *f, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  int rc = needs_launches(db, err, errlen);
  if (rc == DL_OK) rc = newest(db, &aggr_id, err, errlen);
  if (rc) return rc;
  fc_bind b[2] = {{aggr_id, NULL}, {0, op_node_id}};
  if (iter < 0) {
    rc = one_row(db, op_first_iter_sql, b, 2, &iter, 1, NULL, 0, err, errlen);
    if (rc <= 0)
      return rc < 0 ? rc : dl_err(err, errlen, DL_ENOTFOUND, "op %s launched no kernel", op_node_id);
  }
  sqlite3_stmt *st = dldb__stmt_get(db, op_kernels_sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, aggr_id);
  sqlite3_bind_int64(st, 2, iter);
  sqlite3_bind_text(st, 3, op_node_id, -1, SQLITE_TRANSIENT);
  int64_t first[7] = {0}, n = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t k[7];
    for (int c = 0; c < 7; c++) k[c] = sqlite3_column_int64(st, c);
    int64_t s = k[1] < k[5] ? k[1] : k[5], e = k[5] + k[6];
    if (!n++) {
      memcpy(first, k, sizeof k);
      f->start_ns = s;
      f->end_ns = e;
    }
    if (s < f->start_ns) f->start_ns = s;
    if (e > f->end_ns) f->end_ns = e;
  }
  dldb__stmt_done(st);
  if (rc != SQLITE_DONE) return dldb__sql_err(db, rc, "timeline focus", err, errlen);
  if (!n)
    return dl_err(err, errlen, DL_ENOTFOUND, "op %s launched no kernel in iteration %lld",
                  op_node_id, (long long)iter);
  if (f->end_ns <= f->start_ns) f->end_ns = f->start_ns + 1;
  snprintf(f->what, sizeof f->what, "op %s in iteration %lld: its %lld kernel%s", op_node_id,
           (long long)iter, (long long)n, n == 1 ? "" : "s");
  return select_kernel(db, first, f, err, errlen);
}

int dldb_timeline_focus_launch(dldb *db, int64_t aggr_id, int64_t iter, int64_t api_start_ns,
                               int64_t device_id, const char *name, dldb_tl_focus *f, char *err,
                               size_t errlen) {
  memset(f, 0, sizeof *f);
  int rc = needs_launches(db, err, errlen);
  if (rc == DL_OK) rc = newest(db, &aggr_id, err, errlen);
  if (rc) return rc;
  fc_bind b[5] = {{aggr_id, NULL}, {iter, NULL}, {api_start_ns, NULL}, {device_id, NULL},
                  {0, name}};
  int64_t k[7] = {0};
  rc = one_row(db, launch_sql, b, 5, k, 7, NULL, 0, err, errlen);
  if (rc <= 0)
    return rc < 0 ? rc
                  : dl_err(err, errlen, DL_ENOTFOUND, "no launch of %s at %lld in iteration %lld",
                           name, (long long)api_start_ns, (long long)iter);
  f->start_ns = k[1] < k[5] ? k[1] : k[5];
  f->end_ns = k[5] + k[6] > f->start_ns ? k[5] + k[6] : f->start_ns + 1;
  snprintf(f->what, sizeof f->what, "a launch of %s in iteration %lld", name, (long long)iter);
  return select_kernel(db, k, f, err, errlen);
}

int dldb_timeline_focus_iter(dldb *db, int64_t aggr_id, int64_t iter, dldb_tl_focus *f,
                             char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  int rc = newest(db, &aggr_id, err, errlen);
  if (rc) return rc;
  fc_bind b[2] = {{aggr_id, NULL}, {iter, NULL}};
  int64_t se[2] = {0, 0}, track = 0;
  rc = one_row(db, iter_sql, b, 2, se, 2, NULL, 0, err, errlen);
  if (rc <= 0)
    return rc < 0 ? rc : dl_err(err, errlen, DL_ENOTFOUND, "no iteration %lld", (long long)iter);
  f->start_ns = se[0];
  f->end_ns = se[1] > se[0] ? se[1] : se[0] + 1;
  f->category = "iteration";
  f->event_id = iter;
  snprintf(f->what, sizeof f->what, "iteration %lld", (long long)iter);
  if (!dldb_has_view(db, "view_dl_timeline_tracks")) return DL_OK;
  rc = one_row(db, iter_track_sql, NULL, 0, &track, 1, NULL, 0, err, errlen);
  if (rc < 0) return rc;
  if (rc) {
    f->track_id = track;
    f->sel_start_ns = se[0];
  }
  return DL_OK;
}

/* ---- Findings: each rule's evidence ---------------------------------------- */

/* The iteration the first int of sql (?1: the aggregation) names. */
static int iter_of(dldb *db, int64_t aggr_id, const char *sql, const char *why, dldb_tl_focus *f,
                   char *err, size_t errlen) {
  fc_bind b = {aggr_id, NULL};
  int64_t iter = 0;
  int rc = one_row(db, sql, &b, 1, &iter, 1, NULL, 0, err, errlen);
  if (rc <= 0) return rc < 0 ? rc : dl_err(err, errlen, DL_ENOTFOUND, "no %s", why);
  rc = dldb_timeline_focus_iter(db, aggr_id, iter, f, err, errlen);
  if (rc == DL_OK)
    snprintf(f->what, sizeof f->what, "iteration %lld, %s", (long long)iter, why);
  return rc;
}

static int ev_bad_type_op(dldb *db, int64_t aggr_id, dldb_tl_focus *f, char *err, size_t errlen) {
  fc_bind b = {aggr_id, NULL};
  char op[256];
  int64_t dummy = 0;
  int rc = one_row(db, bad_type_op_sql, &b, 1, &dummy, 0, op, sizeof op, err, errlen);
  if (rc <= 0) return rc < 0 ? rc : dl_err(err, errlen, DL_ENOTFOUND, "no op of a bad data type");
  return dldb_timeline_focus_op(db, aggr_id, op, -1, f, err, errlen);
}

static int ev_longest_iter(dldb *db, int64_t aggr_id, dldb_tl_focus *f, char *err, size_t errlen) {
  return iter_of(db, aggr_id, longest_iter_sql, "the longest", f, err, errlen);
}

static int ev_dataloader(dldb *db, int64_t aggr_id, dldb_tl_focus *f, char *err, size_t errlen) {
  return iter_of(db, aggr_id, dataloader_iter_sql, "the most time in the dataloader", f, err,
                 errlen);
}

static int ev_comm(dldb *db, int64_t aggr_id, dldb_tl_focus *f, char *err, size_t errlen) {
  if (!dldb_has_view(db, "view_dl_iteration_efficiency"))
    return dl_err(err, errlen, DL_ENOTFOUND, "no exposed communication per iteration");
  int rc = iter_of(db, aggr_id, comm_iter_sql, "the most exposed communication", f, err, errlen);
  if (rc == DL_OK) snprintf(f->q, sizeof f->q, "nccl");
  return rc;
}

static int ev_gap(dldb *db, int64_t aggr_id, dldb_tl_focus *f, char *err, size_t errlen) {
  (void)aggr_id;
  dldb_tl_gap g;
  int n = 0;
  int rc = dldb_timeline_gaps(db, 1, 0, 1, &g, &n, err, errlen);
  if (rc) return rc;
  if (!n) return dl_err(err, errlen, DL_ENOTFOUND, "no GPU idle gap");
  f->start_ns = g.start_ns;
  f->end_ns = g.end_ns;
  f->category = "gap";
  snprintf(f->what, sizeof f->what, "the longest idle gap of the GPUs (GPU %lld)",
           (long long)g.device_id);
  return DL_OK;
}

typedef int (*fc_evidence_fn)(dldb *db, int64_t aggr_id, dldb_tl_focus *f, char *err,
                              size_t errlen);

/* Each rule (analysis/dla_rules.c's rule_id) and the range its finding
 * quotes; the rules not here have none on the timeline. */
static const struct {
  const char *rule_id;
  fc_evidence_fn fn;
} evidence[] = {
    {"amp_detector", ev_bad_type_op},
    {"bad_iteration_range_detector", ev_longest_iter},
    {"dataloader_detector", ev_dataloader},
    {"exposed_communication_detector", ev_comm},
    {"imbalanced_gpus_detector", ev_gap},
    {"underutilized_gpu_detector", ev_gap},
};

int dldb_timeline_finding_count(dldb *db, int64_t aggr_id, int64_t *n, char *err, size_t errlen) {
  *n = 0;
  if (!dldb_has_view(db, "view_dl_findings")) return DL_OK;
  int rc = newest(db, &aggr_id, err, errlen);
  if (rc) return rc == DL_ENOTFOUND ? DL_OK : rc;
  fc_bind b = {aggr_id, NULL};
  rc = one_row(db, finding_count_sql, &b, 1, n, 1, NULL, 0, err, errlen);
  return rc < 0 ? rc : DL_OK;
}

int dldb_timeline_focus_finding(dldb *db, int64_t aggr_id, int64_t nth, dldb_tl_focus *f,
                                char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  if (!dldb_has_view(db, "view_dl_findings"))
    return dl_err(err, errlen, DL_ENOTFOUND, "this database names no finding's rule");
  int rc = newest(db, &aggr_id, err, errlen);
  if (rc) return rc;
  fc_bind b[2] = {{aggr_id, NULL}, {nth - 1, NULL}};
  char rule[128];
  int64_t dummy = 0;
  rc = one_row(db, finding_sql, b, 2, &dummy, 0, rule, sizeof rule, err, errlen);
  if (rc <= 0)
    return rc < 0 ? rc : dl_err(err, errlen, DL_ENOTFOUND, "no finding %lld", (long long)nth);
  for (size_t i = 0; i < sizeof evidence / sizeof *evidence; i++)
    if (!strcmp(evidence[i].rule_id, rule)) return evidence[i].fn(db, aggr_id, f, err, errlen);
  return dl_err(err, errlen, DL_ENOTFOUND, "finding %lld (%s) has no range on the timeline",
                (long long)nth, rule);
}
