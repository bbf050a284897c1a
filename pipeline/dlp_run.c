/* dlp_run.c - the pipeline's table of steps and the run through it (dlp.h).
 *
 * Each row names a step and the stages it runs in (dlp_internal.h); the
 * run calls the rows in order whose stages include the current one, which
 * the detection sets to the input's kind (a dldb's first step may turn it
 * to DLP_S_REPORTS). The first error ends the run, and everything the run
 * left (a writer, a working copy, prepared reports) is removed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dldb.h"
#include "dli.h"
#include "dlp_internal.h"

void dlp_opts_init(dlp_opts *o) {
  memset(o, 0, sizeof *o);
  o->output_path = ".";
  o->profile_name = "dlprof";
  o->mode = "pytorch";
  o->iter_start = o->iter_stop = -1;
  o->reports = 1u; /* summary */
  o->csv = 1;
}

/* The output folder exists and the iteration range is in order. */
static int step_validate(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  struct stat sb;
  if (stat(o->output_path, &sb) != 0)
    return errno == ENOENT
               ? dl_err(p->err, p->errlen, DL_ENOTFOUND, "--output_path: %s does not exist",
                        o->output_path)
               : dl_err(p->err, p->errlen, DL_EIO, "--output_path: %s: %s", o->output_path,
                        strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return dl_err(p->err, p->errlen, DL_EINVAL, "--output_path: %s is not a directory",
                  o->output_path);
  if (o->iter_start >= 0 && o->iter_stop >= 0 && o->iter_start > o->iter_stop)
    return dl_err(p->err, p->errlen, DL_EINVAL, "--iter_start must not be after --iter_stop");
  return DL_OK;
}

/* The input's kind, from its content. */
static int step_detect(dlp_pipeline *p) {
  static const struct { dli_kind kind; unsigned stage; } kinds[] = {
      {DLI_NSYS_SQLITE, DLP_S_NSYS}, {DLI_DLDB, DLP_S_DLDB}, {DLI_JSON, DLP_S_KINETO}};
  const char *in = p->o->input;
  if (dlp_is_dldb_dir(in)) { /* per-rank dldbs, to merge */
    p->stage = DLP_S_MERGE;
    return DL_OK;
  }
  dli_kind kind;
  int rc = dli_detect(in, &kind, p->err, p->errlen);
  if (rc != DL_OK) return rc;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (kinds[i].kind == kind) {
      p->stage = kinds[i].stage;
      return DL_OK;
    }
  if (kind == DLI_SQLITE_OTHER)
    return dl_err(p->err, p->errlen, DL_EFORMAT,
                  "%s: an SQLite file, but neither an Nsight Systems export nor a dldb", in);
  return dl_err(p->err, p->errlen, DL_EFORMAT,
                "%s: not a trace dlprof can read (expected an Nsight Systems SQLite export, a "
                "PyTorch profiler JSON trace or a dldb)", in);
}

/* From here on, temporary files are made: the outputs' (in the output
 * folder, named after the profile) and the working copy beside a dldb
 * aggregated again. */
static int step_temps(dlp_pipeline *p) {
  char prefix[PATH_MAX], dir[PATH_MAX];
  snprintf(prefix, sizeof prefix, "%s_", p->o->profile_name);
  snprintf(dir, sizeof dir, "%s", p->o->input);
  char *slash = strrchr(dir, '/'), *base = dir;
  if (slash) {
    *slash = '\0';
    base = slash + 1;
  }
  dlp_event e = {.kind = DLP_EV_TEMPS, .n_temps = 2,
                 .temp_dir = {p->o->output_path, !slash ? "." : slash == dir ? "/" : dir},
                 .temp_prefix = {prefix, base}};
  dlp_emit(p, &e);
  return DL_OK;
}

/* Existing outputs are refused without force (the new dldb's too). */
static int step_check(dlp_pipeline *p) {
  if (p->stage == DLP_S_DLDB) snprintf(p->dldb, sizeof p->dldb, "%s", p->o->input);
  else dlp_out_path(p->o, "_dldb.sqlite", p->dldb, sizeof p->dldb);
  return dlp_check_outputs(p->o, p->stage == DLP_S_DLDB ? NULL : p->dldb, p->err, p->errlen);
}

static int step_publish(dlp_pipeline *p) { return dlp_reports_publish(p); }

/* --iter_stop past the last iteration: the aggregation stops at the last
 * one (dla_aggregate). Read from the finished dldb (view_performance_summary). */
typedef struct iter_range {
  int64_t start, stop, total; /* -1: not read */
} iter_range;

static int iter_range_row(void *ctx, const dldb_row *row) {
  iter_range *r = ctx;
  for (int i = 0; i < dldb_row_count(row); i++) {
    const char *n = dldb_row_name(row, i);
    int64_t *v = !strcmp(n, "iter_start")         ? &r->start
                 : !strcmp(n, "iter_stop")        ? &r->stop
                 : !strcmp(n, "total_iterations") ? &r->total
                                                  : NULL;
    if (v && dldb_row_type(row, i) == DLDB_COL_INTEGER) *v = dldb_row_int(row, i);
  }
  return 1; /* one row */
}

static int step_iter_note(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  if (!o->iter_note || o->iter_stop < 0 || p->aggr_id < 0) return DL_OK;
  dldb *db = NULL;
  dldb_info info;
  iter_range r = {-1, -1, -1};
  if (dldb_open_ro_written(p->dldb, &db, &info, NULL, 0) == DL_OK) {
    dldb_query q = {.view = "view_performance_summary", .aggr_id = p->aggr_id, .limit = 1};
    (void)dldb_query_rows(db, &q, iter_range_row, &r, NULL, 0);
    dldb_close(&db);
  }
  if (r.stop < 0 || r.stop >= o->iter_stop) return DL_OK;
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_ITER_CLAMPED, .iter_asked = o->iter_stop,
                           .iter_start = r.start, .iter_stop = r.stop,
                           .iterations = r.total < 0 ? r.stop + 1 : r.total});
  return DL_OK;
}

/* The pipeline: a new stage is a row here and its function. */
static const struct {
  const char *name;
  int (*run)(dlp_pipeline *p);
  unsigned stages;
} steps[] = {
    {"validate", step_validate, DLP_S_UNKNOWN},
    {"detect", step_detect, DLP_S_UNKNOWN},
    {"temps", step_temps, DLP_S_AGGR},
    {"check outputs", step_check, DLP_S_AGGR},
    {"import nsys", dlp_step_nsys, DLP_S_NSYS},
    {"import kineto", dlp_step_kineto, DLP_S_KINETO},
    {"merge dldbs", dlp_step_merge, DLP_S_MERGE},
    {"reopen dldb", dlp_step_reopen, DLP_S_DLDB},
    {"copy dldb", dlp_step_copy, DLP_S_DLDB},
    {"aggregate", dlp_step_aggregate, DLP_S_AGGR},
    {"commit with reports", dlp_step_commit, DLP_S_IMPORT},
    {"commit copy", dlp_step_commit_copy, DLP_S_DLDB},
    {"reports of copy", dlp_step_copy_reports, DLP_S_DLDB},
    {"replace dldb", dlp_step_replace, DLP_S_DLDB},
    {"reports", dlp_step_reports, DLP_S_REPORTS},
    {"publish reports", step_publish, DLP_S_AGGR | DLP_S_REPORTS},
    {"iteration note", step_iter_note, DLP_S_AGGR},
};

/* Removes what a failed run left: its writer, working copy and reports. */
static void cleanup(dlp_pipeline *p) {
  dldb_writer_abort(&p->w);
  if (p->tmp[0]) unlink(p->tmp);
  p->tmp[0] = '\0';
  dlp_reports_discard(&p->rs);
}

int dlp_run(dlp_pipeline *p, const dlp_opts *o, char *err, size_t errlen) {
  char none[1];
  p->o = o;
  p->stage = o->recorded ? DLP_S_DLDB : DLP_S_UNKNOWN;
  p->dldb[0] = p->tmp[0] = '\0';
  p->key_op = NULL;
  p->w = NULL;
  p->aggr_id = -1;
  p->n_domains = 0;
  p->rs.n = 0;
  p->err = err && errlen ? err : none;
  p->errlen = err && errlen ? errlen : sizeof none;
  p->err[0] = '\0';
  int rc = DL_OK;
  for (size_t i = 0; i < sizeof steps / sizeof *steps && rc == DL_OK; i++)
    if (steps[i].stages & p->stage) rc = steps[i].run(p);
  if (rc != DL_OK) {
    cleanup(p);
    p->aggr_id = -1;
  }
  p->o = NULL;
  p->err = NULL;
  p->errlen = 0;
  return rc;
}

int dlp_new(dlp_pipeline **out, char *err, size_t errlen) {
  *out = calloc(1, sizeof **out); /* megabytes (the report paths of every domain): on the heap */
  if (!*out) return dl_err(err, errlen, DL_ENOMEM, "out of memory");
  (*out)->aggr_id = -1;
  return DL_OK;
}

void dlp_free(dlp_pipeline **p) {
  if (!p || !*p) return;
  free(*p);
  *p = NULL;
}

const char *dlp_dldb_path(const dlp_pipeline *p) { return p->dldb; }
int64_t dlp_aggr_id(const dlp_pipeline *p) { return p->aggr_id; }
