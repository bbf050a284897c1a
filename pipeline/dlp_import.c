/* dlp_import.c - the import steps of the pipeline (dlp_internal.h): an
 * Nsight Systems export or a Kineto trace into a new dldb writer, the
 * aggregation (also of a dldb aggregated again), and the commit of a new
 * dldb with its reports written just before it is renamed into place. */
#include <stdio.h>
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

/* One aggregation of domain (NULL: dla_aggregate's default) as p->dom[k]
 * with name and infix. */
static int aggregate_one(dlp_pipeline *p, dla_opts *ao, const char *domain, const char *name,
                         const char *infix) {
  ao->domain = domain;
  int rc = dla_aggregate(p->w, ao, &p->aggr_id, p->err, p->errlen);
  if (rc != DL_OK) return rc;
  dlp_domain_aggr *d = &p->dom[p->n_domains++];
  snprintf(d->name, sizeof d->name, "%.*s", (int)sizeof d->name - 1, name); /* cut to fit */
  snprintf(d->infix, sizeof d->infix, "%.*s", (int)sizeof d->infix - 1, infix);
  d->aggr_id = p->aggr_id;
  return DL_OK;
}

/* --domains=A,B: one aggregation per domain listed, in order. */
static int aggregate_listed(dlp_pipeline *p, dla_opts *ao) {
  const dlp_opts *o = p->o;
  char domain[DLP_DOMAIN_MAX], infix[DLP_DOMAIN_MAX + 1];
  int n = dlp_domain_count(o), rc = DL_OK;
  if (n == 0)
    return dl_err(p->err, p->errlen, DL_EINVAL, "--domains: expected NVTX domain names "
                  "separated by commas, got '%s'", o->domains);
  for (int k = 0; k < n && rc == DL_OK && dlp_domain_at(o, k, domain, sizeof domain); k++) {
    dlp_domain_infix(domain, infix, sizeof infix);
    rc = aggregate_one(p, ao, domain, domain, infix);
  }
  return rc;
}

/* Without --domains every domain with ranges (DLProf: "Default is all
 * domains"): first the default domain, as a run of one domain aggregates
 * it (the first aggregation, reports named without a domain), then each
 * other one in id order, reports named as --domains names them. */
static int aggregate_all(dlp_pipeline *p, dla_opts *ao) {
  char first[DLP_DOMAIN_MAX], other[DLP_MAX_DOMAINS - 1][DLP_DOMAIN_MAX];
  char infix[DLP_DOMAIN_MAX + 1], note[160];
  int n = 0, left = 0;
  int rc = dlp_domains_found(p, first, other, DLP_MAX_DOMAINS - 1, &n, &left);
  if (rc == DL_OK) rc = aggregate_one(p, ao, NULL, first, "");
  int64_t def_aggr = p->aggr_id;
  for (int k = 0; k < n && rc == DL_OK; k++) {
    dlp_emit(p, &(dlp_event){.kind = DLP_EV_AGGREGATING_DOMAIN, .text = other[k]});
    dlp_domain_infix(other[k], infix, sizeof infix);
    rc = aggregate_one(p, ao, other[k], other[k], infix);
  }
  if (rc == DL_OK && left > 0) {
    snprintf(note, sizeof note, "%d more NVTX domain(s) with ranges not aggregated (at most %d "
             "in one run; name them with --domains)", left, DLP_MAX_DOMAINS);
    dlp_emit(p, &(dlp_event){.kind = DLP_EV_DOMAINS_LEFT, .text = note});
  }
  p->aggr_id = def_aggr; /* the run's aggregation: the default domain's */
  return rc;
}

int dlp_step_aggregate(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  dla_opts ao;
  dla_opts_init(&ao);
  ao.key_op = p->key_op;
  /* a key op ending in '#' (Kineto's ProfilerStep#) is a span per iteration */
  size_t kl = p->key_op ? strlen(p->key_op) : 0;
  ao.key_op_spans = kl > 0 && p->key_op[kl - 1] == '#';
  ao.mode = o->mode;
  ao.no_shapes = o->no_shapes;
  ao.nsys_rules = !(p->stage & (DLP_S_KINETO | DLP_S_MERGE)) && o->nsys_rules;
  ao.iter_start = o->iter_start;
  ao.iter_stop = o->iter_stop;
  ao.aggr_start = o->aggr_start;
  ao.user_name = o->user_name;
  ao.host_name = o->host_name;
  ao.progress = o->progress;
  ao.progress_ctx = o->progress_ctx;
  p->n_domains = 0;
  int rc = o->domains ? aggregate_listed(p, &ao) : aggregate_all(p, &ao);
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
