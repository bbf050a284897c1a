/*
 * dlr.c - the report registry (DLProf's --reports names and file names) and
 * dlr_write, which runs one report into a dlr_out.
 */
#include <stdlib.h>
#include <string.h>

#include "dlr_internal.h"
#include "dlr_stats.h"


typedef struct dlr_report {
  const char *name; /* --reports name */
  const char *file; /* file name without extension */
  dlr_report_fn fn;
  int sections;     /* 1: several sections (JSON "sections"), 0: one table */
} dlr_report;

static const dlr_report REPORTS[] = {
    {"summary", "dlprof_summary", dlr_summary, 1},
    {"detail", "dlprof_detailed", dlr_detail, 0},
    {"iteration", "dlprof_iteration", dlr_iteration, 0},
    {"kernel", "dlprof_kernel", dlr_kernel, 0},
    {"tensor", "dlprof_tensor_core", dlr_tensor, 0},
    {"op_type", "dlprof_op_type", dlr_op_type, 0},
    {"group_node", "dlprof_group_op", dlr_group_node, 0},
    {"expert_systems", "dlprof_expert_systems", dlr_expert_systems, 0},
};
#define NREPORTS ((int)(sizeof REPORTS / sizeof REPORTS[0]))

/* File names, built once: "<file>.csv" and "<file>.json" for each report. */
static const char *const FILES[NREPORTS][2] = {
    {"dlprof_summary.csv", "dlprof_summary.json"},
    {"dlprof_detailed.csv", "dlprof_detailed.json"},
    {"dlprof_iteration.csv", "dlprof_iteration.json"},
    {"dlprof_kernel.csv", "dlprof_kernel.json"},
    {"dlprof_tensor_core.csv", "dlprof_tensor_core.json"},
    {"dlprof_op_type.csv", "dlprof_op_type.json"},
    {"dlprof_group_op.csv", "dlprof_group_op.json"},
    {"dlprof_expert_systems.csv", "dlprof_expert_systems.json"},
};

static const dlr_report *find(const char *name, int *index) {
  for (int i = 0; name && i < NREPORTS; i++) {
    if (strcmp(REPORTS[i].name, name) == 0) {
      if (index) *index = i;
      return &REPORTS[i];
    }
  }
  return NULL;
}

int dlr_report_count(void) { return NREPORTS; }

const char *dlr_report_name(int i) { return i >= 0 && i < NREPORTS ? REPORTS[i].name : NULL; }

const char *dlr_report_file(const char *name, dlr_format fmt) {
  int i;
  if (name && !find(name, NULL)) return dlr_stats_file(name, fmt); /* ours, dlr_stats.h */
  if (!find(name, &i) || (fmt != DLR_CSV && fmt != DLR_JSON)) return NULL;
  return FILES[i][fmt == DLR_JSON];
}

int dlr_write(dldb *db, const char *name, dlr_format fmt, int64_t aggr_id, const char *domain,
              dlr_sink_fn sink, void *ctx, char *err, size_t errlen) {
  const dlr_report *r = find(name, NULL);
  dlr_report stats = {name, NULL, NULL, 0}; /* ours (dlr_stats.h): r->fn unused */
  if (!r && dlr_stats_view(name)) r = &stats;
  if (!r)
    return dl_err(err, errlen, DL_ENOTFOUND, "report: unknown report name \"%s\"",
                  name ? name : "(null)");
  if (!db || !sink || (fmt != DLR_CSV && fmt != DLR_JSON))
    return dl_err(err, errlen, DL_EINVAL, "report %s: invalid argument", r->name);
  if (err && errlen) err[0] = '\0';
  int known = aggr_id >= 0 ? dldb_aggr_exists(db, aggr_id) : 1;
  if (known < 0)
    return dl_err(err, errlen, known, "report %s: cannot read view_aggregations", r->name);
  if (!known)
    return dl_err(err, errlen, DL_ENOTFOUND, "report %s: no aggregation %lld", r->name,
                  (long long)aggr_id);
  known = domain ? dldb_domain_exists(db, domain) : 1;
  if (known < 0)
    return dl_err(err, errlen, known, "report %s: cannot read view_domains", r->name);
  if (!known)
    return dl_err(err, errlen, DL_ENOTFOUND, "report %s: no domain \"%s\"", r->name, domain);
  dlr_out *o = malloc(sizeof *o); /* holds the output buffer: keep it off the stack */
  if (!o) return dl_err(err, errlen, DL_ENOMEM, "report %s: out of memory", r->name);
  dlr_out_init(o, fmt, r->name, aggr_id, domain, r->sections, sink, ctx, err, errlen);
  int rc = r == &stats ? dlr_stats_write(db, o, name, aggr_id, domain)
                      : r->fn(db, o, aggr_id, domain);
  if (rc == DL_OK) rc = dlr_out_finish(o);
  dlr_out_free(o);
  free(o);
  if (rc != DL_OK && err && errlen && !err[0])
    dl_err(err, errlen, rc, "report %s: %s", r->name, dl_strerror(rc));
  return rc;
}
