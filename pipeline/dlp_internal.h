/*
 * dlp_internal.h - the state of one pipeline run, shared by the steps
 * (pipeline/dlp_*.c); not for callers of dlp.h.
 *
 * A run moves through stages: DLP_S_UNKNOWN until the input is recognised,
 * then the input's kind, or DLP_S_REPORTS when a dldb only gets its
 * reports. Each step of the table (dlp_run.c) names the stages it runs in.
 * A step returns DL_OK or a negative DL_E* with one line in the run's err.
 * Ownership: the run owns the writer, the working copy and the prepared
 * reports until they are committed or renamed; dlp_cleanup() removes what
 * is left after an error.
 */
#ifndef DLP_INTERNAL_H
#define DLP_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "dldb.h"
#include "dldb_write.h"
#include "dlp.h"

enum {
  DLP_S_UNKNOWN = 1u << 0, /* the input is not recognised yet */
  DLP_S_NSYS = 1u << 1,    /* an Nsight Systems export: imported */
  DLP_S_KINETO = 1u << 2,  /* a Kineto trace or folder: imported */
  DLP_S_DLDB = 1u << 3,    /* a dldb of ours: aggregated again in a copy */
  DLP_S_REPORTS = 1u << 4, /* a dldb: only its reports */
  DLP_S_MERGE = 1u << 5,   /* a folder of per-rank dldbs: merged into a new one */
};
#define DLP_S_IMPORT (DLP_S_NSYS | DLP_S_KINETO | DLP_S_MERGE)
#define DLP_S_AGGR (DLP_S_NSYS | DLP_S_KINETO | DLP_S_MERGE | DLP_S_DLDB)

/* The model data's file name after the profile name (--dump_model_data). */
#define DLP_MODEL_DATA_SUFFIX "_model_data.json"
#define DLP_CHROME_SUFFIX "_trace.json" /* --export=chrome_trace */

/* The reports of a run, written to temporary files beside their
 * destinations and renamed into place together (after the dldb). */
#define DLP_MAX_DOMAINS 8      /* --domains: aggregations of one run */
#define DLP_DOMAIN_MAX 256     /* bytes of a domain name */
#define DLP_MAX_REPORT_FILES (65 * DLP_MAX_DOMAINS + 1) /* 32 reports x 2 formats, the
                                                           model data, per domain; the
                                                           Chrome trace */
/* One aggregation of the run and its domain: the reports of infix "" are
 * named as a run of one domain names them (the default domain's). */
typedef struct dlp_domain_aggr {
  char name[DLP_DOMAIN_MAX];       /* "": the dldb's default domain */
  char infix[DLP_DOMAIN_MAX + 1];  /* dlp_domain_infix's, or "" */
  int64_t aggr_id;
} dlp_domain_aggr;

typedef struct dlp_report_set {
  int n;
  char tmp[DLP_MAX_REPORT_FILES][PATH_MAX + 16], dest[DLP_MAX_REPORT_FILES][PATH_MAX];
} dlp_report_set;

struct dlp_pipeline {
  const dlp_opts *o;
  unsigned stage;          /* DLP_S_*: what the input turned out to be */
  char dldb[PATH_MAX];     /* the dldb written, or the one aggregated again */
  char tmp[PATH_MAX + 16]; /* the working copy of a dldb aggregated again ("": none) */
  const char *key_op;      /* the aggregation's key op (NULL: the mode's) */
  char dldb_key_op[256];   /* a dldb's own key op, aggregated again */
  dldb_writer *w;
  int64_t aggr_id;         /* the aggregation added (with --domains: the last one;
                              without: the default domain's) */
  int n_domains;           /* the aggregations of the run, one per domain, in order */
  dlp_domain_aggr dom[DLP_MAX_DOMAINS];
  dlp_report_set rs;
  char *err;
  size_t errlen;
};

/* Calls the caller's event callback, if any, with e (kind set by the caller). */
static inline void dlp_emit(const dlp_pipeline *p, const dlp_event *e) {
  if (p->o->event) p->o->event(p->o->event_ctx, e);
}

/* Rewrites err (an analysis error, which names no file) as "file: msg". */
void dlp_name_input(char *err, size_t errlen, const char *file);

/* dlp_domains.c: --domains. The number of domains listed (at most
 * DLP_MAX_DOMAINS), the i-th (0 when there is none: an empty or too long
 * name), and the part of a file name that keeps a domain's reports apart
 * ("_" and the name with characters outside [A-Za-z0-9.-] as '_'; "" for
 * NULL). */
int dlp_domain_count(const dlp_opts *o);
int dlp_domain_at(const dlp_opts *o, int i, char *buf, size_t len);
void dlp_domain_infix(const char *domain, char *buf, size_t len);
/* Without --domains: the domains of p->w to aggregate. first: the one an
 * aggregation without a domain takes ("default-domain", else the first;
 * "" when there is none); other: up to max more domains with ranges, in id
 * order (*n of them); *left: those with ranges beyond max. */
int dlp_domains_found(dlp_pipeline *p, char *first, char (*other)[DLP_DOMAIN_MAX], int max,
                      int *n, int *left);
/* For a dldb's reports: p->dom from its aggregations, the default one
 * first (aggr_id, domain), then the newest aggregation of each other
 * domain of view_performance_summary. */
int dlp_domains_of_dldb(dlp_pipeline *p, dldb *db, int64_t aggr_id, const char *domain);

/* dlp_out.c: output paths and the reports. */
void dlp_out_path(const dlp_opts *o, const char *suffix, char *buf, size_t len);
/* Writes every report asked for from the dldb at dldb_path (aggr_id < 0:
 * its newest aggregation; >= 0: a file this run has just written) to
 * temporary files, then the findings; on an error removes them. */
int dlp_reports_prepare(dlp_pipeline *p, const char *dldb_path, int64_t aggr_id);
/* Renames the prepared reports into place (on an error, removes the rest). */
int dlp_reports_publish(dlp_pipeline *p);
/* Removes the prepared reports. */
void dlp_reports_discard(dlp_report_set *rs);

/* dlp_import.c: the steps of an import. */
int dlp_step_nsys(dlp_pipeline *p);
int dlp_step_kineto(dlp_pipeline *p);
/* dlp_merge.c: 1 when path is a folder of dldbs and no traces; the step
 * that merges them into the run's new dldb. */
int dlp_is_dldb_dir(const char *path);
int dlp_step_merge(dlp_pipeline *p);
int dlp_step_aggregate(dlp_pipeline *p);
int dlp_step_commit(dlp_pipeline *p);

/* dlp_reaggr.c: the steps of a dldb aggregated again. */
int dlp_step_reopen(dlp_pipeline *p);
int dlp_step_copy(dlp_pipeline *p);
int dlp_step_commit_copy(dlp_pipeline *p);
int dlp_step_copy_reports(dlp_pipeline *p);
int dlp_step_replace(dlp_pipeline *p);
int dlp_step_reports(dlp_pipeline *p);

#endif
