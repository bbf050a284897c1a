/*
 * dlp.h - the profiling pipeline that dlprof, dlsample, the end-to-end
 * fuzzers and the tests drive: an input (an Nsight Systems SQLite export,
 * a PyTorch profiler (Kineto) trace or folder of traces, or a dldb) is
 * recognised by its content, imported into a new dldb (or, for a dldb
 * written by dlprof, aggregated again in a copy that replaces it when
 * complete), aggregated, and DLProf's reports are written beside it.
 *
 * The run is a table of steps (dlp_run.c), each applying to some kinds of
 * input; a new stage is one row and one function. Every output is built
 * in a temporary file `<final name>.tmp-XXXXXX` in its target directory
 * and renamed into place only when complete; on an error every temporary
 * file of the run is removed and existing outputs are left as they were.
 * Signals are the caller's: the DLP_EV_TEMPS event names the directories
 * and file-name prefixes of the run's temporary files, for a handler that
 * removes them (cli/sigclean.h).
 *
 * The library never prints: what it does is reported through the event
 * callback, progress through the progress callback, the expert findings
 * through a sink, and errors as one line in err (a library's message may
 * begin with the function that failed; dlp_plain() leaves it out).
 *
 * Ownership: dlp_new returns a pipeline the caller owns (all the state of
 * a run: no globals); free it with dlp_free. Options, strings and
 * callbacks are borrowed for the call.
 */
#ifndef DLP_H
#define DLP_H

#include <stddef.h>
#include <stdint.h>

#include "dli.h"
#include "dli_kineto.h"

typedef struct dlp_pipeline dlp_pipeline;

/* What the run reports, in order, through dlp_opts.event. */
typedef enum dlp_event_kind {
  DLP_EV_TEMPS,           /* n_temps, temp_dir[], temp_prefix[]: from here on the run's
                             temporary files are made in these directories, with names
                             starting with these prefixes and containing ".tmp-" */
  DLP_EV_READING_NSYS,    /* path: the Nsight Systems export being read */
  DLP_EV_READ_NSYS,       /* nsys: what the import read */
  DLP_EV_READING_KINETO,  /* path: the PyTorch profiler trace being read */
  DLP_EV_READ_KINETO,     /* kineto: what the import read */
  DLP_EV_KINETO_NOTE,     /* text: what the Kineto import found odd */
  DLP_EV_AGGREGATING,     /* an imported Nsight Systems export is aggregated */
  DLP_EV_AGGREGATING_KEY, /* text: the key op of an imported Kineto trace's aggregation */
  DLP_EV_AGGREGATING_AGAIN, /* path: the dldb aggregated again */
  DLP_EV_AGGREGATING_DOMAIN, /* text: another NVTX domain with ranges, aggregated after the
                                default one (no --domains) */
  DLP_EV_DOMAINS_LEFT,    /* text: the NVTX domains with ranges that were not aggregated */
  DLP_EV_WRITING_DLDB,    /* path: the new dldb, being finished */
  DLP_EV_WRITING_REPORT,  /* path: a report, being written */
  DLP_EV_FINDINGS_DONE,   /* the expert findings went to dlp_opts.findings */
  DLP_EV_ITER_CLAMPED,    /* iter_*: --iter_stop was past the last iteration */
  DLP_EV_COUNT
} dlp_event_kind;

typedef struct dlp_event {
  dlp_event_kind kind;
  const char *path, *text;
  const dli_stats *nsys;
  const dli_kineto_stats *kineto;
  int n_temps;
  const char *temp_dir[2], *temp_prefix[2];
  int64_t iter_asked;  /* ITER_CLAMPED: the --iter_stop given */
  int64_t iter_start, iter_stop, iterations; /* ITER_CLAMPED: what was aggregated, of how many */
} dlp_event;

typedef struct dlp_opts {
  const char *input;        /* the file or folder to read (dlprof --database) */
  int recorded;             /* 1: input is a dldb just recorded by the collector: no
                               output-folder checks, no detection, aggregated again */
  const char *output_path;  /* where outputs go (dlp_opts_init: ".") */
  const char *profile_name; /* output name prefix (dlp_opts_init: "dlprof") */
  const char *mode;         /* "pytorch" (dlp_opts_init), "simple" */
  const char *command;      /* the command line, stored in the dldb */
  const char *key_op;       /* NULL: the mode's, a Kineto trace's ProfilerStep#, or a
                               dldb's own when aggregated again */
  int64_t iter_start, iter_stop; /* < 0: from the first, to the last */
  int no_shapes;            /* 1: no op shapes or perf models (--detailed_mode=false) */
  int nsys_rules;           /* 1: also Nsight Systems' expert rules (not for Kineto) */
  const char *domains;      /* "A,B": one aggregation per NVTX domain listed (at most 8),
                               whose reports are named <profile_name>_<domain>_...; NULL:
                               every domain with ranges (at most 8), the default domain
                               first ("default-domain", else the first), whose reports are
                               named <profile_name>_... as in a run of one domain, then the
                               others in id order, named as "A,B" names them. A dldb that
                               only gets its reports: each domain's newest aggregation */
  int shape_opts;           /* 1: options that shape an aggregation were given: a dldb
                               with aggregations gets a new one (else only its reports) */
  const char *detail_ranks;  /* a folder of per-rank dldbs: "all" (every rank's raw
                               records), or "R,S,...": ranks whose raw records are merged
                               beside the slowest, the median and the fastest (NULL:
                               those three); the others' summaries only */
  int force;                /* 1: replace existing outputs */
  unsigned reports;         /* bit i: dlp_report_name(i); 0: none */
  int csv, json;            /* the report formats */
  int dump_model_data;      /* 1: also <profile_name>_model_data.json beside the reports
                               (report/dlr_model.h) */
  int export_chrome;        /* 1: also <profile_name>_trace.json: the timeline (the whole
                               profile, or iter_start to iter_stop) as Chrome trace JSON
                               (report/dlr_chrome.h) */
  int iter_note;            /* 1: read back the iterations aggregated (DLP_EV_ITER_CLAMPED) */
  /* NULL, or the expert findings (CSV) of the aggregation, after the reports */
  int (*findings)(void *ctx, const char *buf, size_t len);
  void *findings_ctx;
  /* NULL, or called with each event (dlp_event is borrowed for the call) */
  void (*event)(void *ctx, const dlp_event *e);
  void *event_ctx;
  /* NULL, or the import's and the aggregation's progress (dli_opts, dla_opts) */
  void (*progress)(void *ctx, const char *what, int64_t done, int64_t total);
  void *progress_ctx;
  /* NULL: now, $USER, gethostname() (dla_opts; fixed by the fuzzers) */
  const char *aggr_start, *user_name, *host_name;
} dlp_opts;

/* Initialises o: output ".", profile "dlprof", mode "pytorch", no
 * iteration range, the summary report as CSV. */
void dlp_opts_init(dlp_opts *o);

/* A new pipeline (DL_ENOMEM). */
int dlp_new(dlp_pipeline **out, char *err, size_t errlen);

/* Frees *p and sets it to NULL. NULL-safe. */
void dlp_free(dlp_pipeline **p);

/* Runs the pipeline on o->input. Returns DL_OK, or a negative DL_E* with
 * one line in err; nothing of the run is then left behind. */
int dlp_run(dlp_pipeline *p, const dlp_opts *o, char *err, size_t errlen);

/* After dlp_run: the dldb written or aggregated again ("" when none), and
 * the aggregation added (-1 when none). Borrowed from p. */
const char *dlp_dldb_path(const dlp_pipeline *p);
int64_t dlp_aggr_id(const dlp_pipeline *p);

/* Refuses outputs of o that exist (without o->force) or are directories:
 * the dldb at dldb_path (NULL: none) and every report asked for. */
int dlp_check_outputs(const dlp_opts *o, const char *dldb_path, char *err, size_t errlen);

/* The reports, by bit: DLProf's (report/dlr.h), then the nsys-stats ones
 * (report/dlr_stats.h). */
int dlp_report_count(void);
const char *dlp_report_name(int i);
/* The bits of a --reports name: one report, "all" (DLProf's) or "stats"
 * (the nsys-stats ones); 0 for an unknown name. */
unsigned dlp_report_mask(const char *name);

/* msg without a leading library function name ("dla_aggregate: "): a
 * pointer into msg. */
const char *dlp_plain(const char *msg);

#endif
