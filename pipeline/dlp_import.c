/* dlp_import.c - the import steps of the pipeline (dlp_internal.h): an
 * Nsight Systems export or a Kineto trace into a new dldb writer, the
 * aggregation (also of a dldb aggregated again), and the commit of a new
 * dldb with its reports written just before it is renamed into place. */
#include <string.h>

#include "dla.h"
#include "dli.h"
#include "dli_kineto.h"
#include "dlp_internal.h"

/* Kineto traces: one iteration per ProfilerStep#N unless --key_op says otherwise. */
#define KINETO_KEY_OP "ProfilerStep#"

static dli_opts import_opts(const dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  return (dli_opts){.mode = o->mode, .profile_name = o->profile_name, .command = o->command,
                    .progress = o->progress, .progress_ctx = o->progress_ctx};
}

int dlp_step_nsys(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  dli_stats st;
  dldb_write_opts wo = {.force = o->force, .producer = "dlprof " DL_VERSION, .source = o->input};
  dli_opts io = import_opts(p);
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_READING_NSYS, .path = o->input});
  int rc = dldb_writer_create(p->dldb, &wo, &p->w, p->err, p->errlen);
  if (rc == DL_OK) rc = dli_nsys_import(o->input, &io, p->w, &st, p->err, p->errlen);
  if (rc != DL_OK) return rc;
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_READ_NSYS, .nsys = &st});
  p->key_op = o->key_op;
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_AGGREGATING});
  return DL_OK;
}

int dlp_step_kineto(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  dli_kineto_stats st;
  int64_t origin = 0;
  int rc = dli_kineto_origin(o->input, &origin, p->err, p->errlen);
  if (rc != DL_OK) return rc;
  dldb_write_opts wo = {.force = o->force, .producer = "dlprof " DL_VERSION,
                        .source = o->input, .time_origin_ns = origin};
  dli_opts io = import_opts(p);
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_READING_KINETO, .path = o->input});
  rc = dldb_writer_create(p->dldb, &wo, &p->w, p->err, p->errlen);
  if (rc == DL_OK) rc = dli_kineto_import(o->input, &io, p->w, &st, p->err, p->errlen);
  if (rc != DL_OK) return rc;
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_READ_KINETO, .kineto = &st});
  if (st.notes[0]) dlp_emit(p, &(dlp_event){.kind = DLP_EV_KINETO_NOTE, .text = st.notes});
  p->key_op = o->key_op && *o->key_op ? o->key_op : KINETO_KEY_OP;
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_AGGREGATING_KEY, .text = p->key_op});
  return DL_OK;
}

int dlp_step_aggregate(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  char domain[DLP_DOMAIN_MAX];
  dla_opts ao;
  dla_opts_init(&ao);
  ao.key_op = p->key_op;
  /* a key op ending in '#' (Kineto's ProfilerStep#) is a span per iteration */
  size_t kl = p->key_op ? strlen(p->key_op) : 0;
  ao.key_op_spans = kl > 0 && p->key_op[kl - 1] == '#';
  ao.mode = o->mode;
  ao.nsys_rules = p->stage != DLP_S_KINETO && o->nsys_rules;
  ao.iter_start = o->iter_start;
  ao.iter_stop = o->iter_stop;
  ao.aggr_start = o->aggr_start;
  ao.user_name = o->user_name;
  ao.host_name = o->host_name;
  ao.progress = o->progress;
  ao.progress_ctx = o->progress_ctx;
  /* --domains: one aggregation per domain listed, in order */
  int n = o->domains ? dlp_domain_count(o) : 1, rc = DL_OK;
  if (n == 0)
    return dl_err(p->err, p->errlen, DL_EINVAL, "--domains: expected NVTX domain names "
                  "separated by commas, got '%s'", o->domains);
  p->n_domains = 0;
  for (int k = 0; k < n && rc == DL_OK; k++) {
    ao.domain = o->domains && dlp_domain_at(o, k, domain, sizeof domain) ? domain : NULL;
    rc = dla_aggregate(p->w, &ao, &p->aggr_id, p->err, p->errlen);
    if (rc == DL_OK && o->domains) p->domain_aggr[p->n_domains++] = p->aggr_id;
  }
  if (rc != DL_OK) dlp_name_input(p->err, p->errlen, o->input);
  return rc;
}

/* dldb_writer_commit_ready's hook: the reports of the finished file, before
 * it is renamed into place (a report that fails leaves no new dldb). */
static int reports_ready(void *ctx, const char *path) {
  dlp_pipeline *p = ctx;
  return dlp_reports_prepare(p, path, p->aggr_id) != DL_OK ? DL_EIO : DL_OK;
}

int dlp_step_commit(dlp_pipeline *p) {
  if (p->stage == DLP_S_NSYS) dlp_emit(p, &(dlp_event){.kind = DLP_EV_WRITING_DLDB, .path = p->dldb});
  /* on a failing hook, err holds the reports' error (commit leaves it) */
  return dldb_writer_commit_ready(&p->w, reports_ready, p, p->err, p->errlen);
}
