/*
 * dlprof - the profiler's command line.
 *
 *   dlprof [options] --database=FILE    import a trace (or re-aggregate a dldb)
 *   dlprof [options] APP [ARGS...]       profile an application (collector)
 *
 * --database recognises FILE by its content: an Nsight Systems SQLite export
 * is imported into a new dldb (`<output_path>/<profile_name>_dldb.sqlite`),
 * analysed, and DLProf's reports are written beside it; a dldb written by
 * dlprof gets a new aggregation (another key op or iteration range) and the
 * reports of it (pipeline/dlp.h runs all of it; this file parses the
 * options and shows the pipeline's events and progress). Every output is
 * built in a temporary file in the target directory and renamed into place
 * only when complete; existing outputs are refused unless --force=true.
 * Errors are one line on stderr, exit 1.
 * Option names are DLProf's (docs/man/dlprof.1).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dldb.h"
#include "dlp.h"
#include "dlp_compare.h"
#include "errline.h"
#include "events.h"
#include "hugepages.h"
#include "meter.h"
#include "nsysopts.h"
#include "outdir.h"
#include "profile.h"
#include "sigclean.h"
#include "verdict.h"

/* The options: the pipeline's (dlp_opts), and dlprof's own. */
typedef struct cli {
  dlp_opts o;        /* o.input: --database; o.shape_opts counts the options that
                        shape an aggregation (mode, key op, iterations, nsys rules) */
  int verbosity;     /* DLPROF_V_* */
  int64_t delay_s, duration_s; /* -y/--delay, -d/--duration (dlprof APP) */
  int profile_range;  /* --nsys_profile_range: only between cudaProfilerStart/Stop */
  const char *compare_to; /* --compare_to: the base run (pipeline/dlp_compare.h) */
  double fail_threshold;  /* --fail_threshold: percent; < 0: no gate */
  int n_notes;        /* what the accepted DLProf options that do nothing here say */
  char notes[8][1200];
  char command[4096];
} cli;

static const char *const usage_text =
    "usage: dlprof [options] --database=FILE\n"
    "       dlprof [options] APP [ARGS...]\n"
    "\n"
    "  --database=FILE, --nsys_database=FILE\n"
    "                          what to read, recognised by content: an Nsight\n"
    "                          Systems SQLite export, a PyTorch profiler (Kineto)\n"
    "                          JSON trace (plain or gzip) or a folder of per-rank\n"
    "                          traces, or a dldb to aggregate again\n"
    "  -m, --mode=simple|pytorch          pytorch (default) adds PyTorch's expert\n"
    "                          rules (DALI dataloader, emit_nvtx missing); NVTX\n"
    "                          ranges are read the same way in both: emit_nvtx\n"
    "                          texts are recognised by their form\n"
    "  --key_op=NAME, --key_node=NAME     the op that ends each iteration\n"
    "  --domains=A,B           aggregate each of these NVTX domains (at most 8), with\n"
    "                          reports named PROFILE_NAME_DOMAIN_... (default: every\n"
    "                          domain with ranges, the default one first, its\n"
    "                          reports named PROFILE_NAME_...)\n"
    "  --iter_start=N, --iter_stop=N      the iterations to aggregate (inclusive)\n"
    "  --detail_ranks=all|R,S,...         merging a folder of per-rank dldbs: the\n"
    "                          ranks whose raw records are kept beside the\n"
    "                          slowest, the median and the fastest (all: every\n"
    "                          rank's); the others keep their summaries\n"
    "  --output_path=DIR                  where outputs go, created with its parents\n"
    "                          when missing (default: .)\n"
    "  --profile_name=NAME, --base_name=NAME\n"
    "                          output name prefix (default: dlprof)\n"
    "  --reports=LIST          summary,detail,iteration,kernel,tensor,op_type,\n"
    "                          group_node,expert_systems,all (default: summary);\n"
    "                          nsys stats' tables: cuda_api_sum,cuda_gpu_kern_sum,\n"
    "                          cuda_gpu_kern_gb_sum,cuda_gpu_mem_time_sum,\n"
    "                          cuda_gpu_mem_size_sum,osrt_sum,nvtx_sum,nvtx_gpu_proj_sum,\n"
    "                          stats (all of them)\n"
    "  --formats=LIST, --file_formats=LIST  csv,json (default: csv)\n"
    "  -f, --force=true|false  replace existing outputs (default: false)\n"
    "  --nsys_rules=true|false also run Nsight Systems' expert rules (default: false)\n"
    "  --export=chrome_trace   also write PROFILE_NAME_trace.json: the timeline (the\n"
    "                          whole profile, or --iter_start to --iter_stop) as Chrome\n"
    "                          trace JSON for Perfetto and chrome://tracing\n"
    "  --dump_model_data=true|false       also write PROFILE_NAME_model_data.json:\n"
    "                          ops, their kernels and timings, iterations (default: false)\n"
    "  --detailed_mode=true|false         op shapes, data types and perf models where\n"
    "                          the input records shapes; false leaves them out\n"
    "                          (default: true)\n"
    "  --nsys_options=\"OPTS\", --nsys_opts=\"OPTS\"\n"
    "                          Nsight Systems options as DLProf took them: -t, --trace,\n"
    "                          -s none, -y, --delay, -d, --duration, -c, --capture-range\n"
    "                          map to the collector; the rest is named as ignored\n"
    "                          (Nsight Systems is not run)\n"
    "  --nsys_base_name=NAME   accepted; no Nsight Systems files are written\n"
    "  --tb_dir=DIR            accepted; no TensorBoard files are written (dlprofviewer\n"
    "                          replaced them)\n"
    "  -y, --delay=SECONDS     dlprof APP: start recording this long after launch\n"
    "  -d, --duration=SECONDS  dlprof APP: record this long, then stop (default: to the end)\n"
    "  --nsys_profile_range=true|false, --profile_range=true|false\n"
    "                          dlprof APP: record only between cudaProfilerStart and\n"
    "                          cudaProfilerStop (default: false)\n"
    "  --compare_to=BASE       compare --database (the new run) with BASE (a dldb or\n"
    "                          any input --database takes): PROFILE_NAME_compare.csv\n"
    "                          (and .json) and a short verdict (docs/compare.md)\n"
    "  --fail_threshold=PCT    with --compare_to: exit 3 when the new run's mean\n"
    "                          iteration time is more than PCT %% above BASE's with\n"
    "                          95%% confidence\n"
    "  -v, --verbosity=quiet|minimal|normal|detailed|diagnostic\n"
    "                          quiet: errors only; minimal: progress; normal: also counts\n"
    "                          and the expert findings (default); detailed, diagnostic:\n"
    "                          also each phase's wall time, CPU time and peak RSS;\n"
    "                          diagnostic: and, with APP, each step of the collector's\n"
    "                          CUPTI life cycle with its buffer and record counts\n"
    "  -h, --help              this text\n"
    "  -V, --version           the version\n";
/* Prints one "dlprof: ..." line on stderr and returns 1 (the exit status). */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dlprof_verror(fmt, ap);
  va_end(ap);
  return 1;
}

static int parse_bool(const char *v, int *out) {
  if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes")) *out = 1;
  else if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no")) *out = 0;
  else return -1;
  return 0;
}

static int parse_int(const char *v, int64_t *out) {
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (errno || end == v || *end || n < 0) return -1;
  *out = n;
  return 0;
}

static int parse_reports(const char *v, unsigned *out) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  *out = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    unsigned m = dlp_report_mask(t);
    if (!m) return -1;
    *out |= m;
  }
  return *out ? 0 : -1;
}

static int parse_formats(const char *v, int *csv, int *json) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", v);
  *csv = *json = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (!strcmp(t, "csv")) *csv = 1;
    else if (!strcmp(t, "json")) *json = 1;
    else return -1;
  }
  return *csv || *json ? 0 : -1;
}

/* Option table: long names (with aliases), the short name, and a slot. */
typedef enum { O_DATABASE, O_MODE, O_KEY, O_ISTART, O_ISTOP, O_OUT, O_NAME, O_REPORTS,
               O_FORMATS, O_FORCE, O_VERB, O_HELP, O_VERSION, O_NSYS_RULES,
               O_DELAY, O_DURATION, O_PROFILE_RANGE, O_DUMP_MODEL, O_DETAILED, O_NSYS_OPTS,
               O_NSYS_BASE, O_TB_DIR, O_DOMAINS, O_COMPARE_TO, O_FAIL_THRESHOLD,
               O_EXPORT, O_DETAIL_RANKS } opt_id;
static const struct { const char *name; char short_name; opt_id id; int takes_value; } options[] = {
    {"database", 0, O_DATABASE, 1},    {"nsys_database", 0, O_DATABASE, 1},
    {"mode", 'm', O_MODE, 1},          {"key_op", 0, O_KEY, 1},
    {"key_node", 0, O_KEY, 1},         {"iter_start", 0, O_ISTART, 1},
    {"iter_stop", 0, O_ISTOP, 1},      {"output_path", 0, O_OUT, 1},
    {"profile_name", 0, O_NAME, 1},    {"base_name", 0, O_NAME, 1},
    {"reports", 0, O_REPORTS, 1},      {"formats", 0, O_FORMATS, 1},
    {"file_formats", 0, O_FORMATS, 1}, {"force", 'f', O_FORCE, 1},
    {"verbosity", 'v', O_VERB, 1},     {"help", 'h', O_HELP, 0},
    {"version", 'V', O_VERSION, 0},    {"nsys_rules", 0, O_NSYS_RULES, 1},
    {"delay", 'y', O_DELAY, 1},        {"duration", 'd', O_DURATION, 1},
    {"nsys_profile_range", 0, O_PROFILE_RANGE, 1}, {"profile_range", 0, O_PROFILE_RANGE, 1},
    {"dump_model_data", 0, O_DUMP_MODEL, 1}, {"detailed_mode", 0, O_DETAILED, 1},
    {"nsys_options", 0, O_NSYS_OPTS, 1},     {"nsys_opts", 0, O_NSYS_OPTS, 1},
    {"nsys_base_name", 0, O_NSYS_BASE, 1},   {"tb_dir", 0, O_TB_DIR, 1},
    {"domains", 0, O_DOMAINS, 1},
    {"compare_to", 0, O_COMPARE_TO, 1},      {"fail_threshold", 0, O_FAIL_THRESHOLD, 1},
    {"export", 0, O_EXPORT, 1},              {"detail_ranks", 0, O_DETAIL_RANKS, 1},
};

/* --domains=A,B: at most 8 names, none empty, each under 256 bytes. */
static int check_domains(const char *v) {
  int n = 0;
  for (const char *s = v;; n++) {
    size_t len = strcspn(s, ",");
    if (len == 0 || len >= 256 || n == 8) return -1;
    if (!s[len]) return 0;
    s += len + 1;
  }
}

/* Keeps one line for the user, printed once the options are read. */
static void note(cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(cli *c, const char *fmt, ...) {
  if (c->n_notes == (int)(sizeof c->notes / sizeof *c->notes)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->notes[c->n_notes++], sizeof c->notes[0], fmt, ap);
  va_end(ap);
}

/* --nsys_options: what maps sets dlprof's own --delay, --duration and
 * --nsys_profile_range (cli/nsysopts.h); the rest is named in one line. */
static int apply_nsys(cli *c, const char *name, const char *v) {
  dlprof_nsysopts n;
  char err[512];
  if (dlprof_nsysopts_parse(v, &n, err, sizeof err)) return fail("%s", err);
  if (n.delay_s >= 0) c->delay_s = n.delay_s;
  if (n.duration_s >= 0) c->duration_s = n.duration_s;
  if (n.profile_range >= 0) c->profile_range = n.profile_range;
  if (n.ignored[0]) note(c, "--%s: ignored: %s", name, n.ignored);
  return 0;
}

/* The DLProf options with little or nothing to do here: each sets a flag or
 * says what it does. */
static int apply_accepted(cli *c, opt_id id, const char *name, const char *v) {
  int on = 0;
  switch (id) {
  case O_DETAILED:
    if (parse_bool(v, &on)) return fail("--%s: expected true or false, got '%s'", name, v);
    c->o.no_shapes = !on;
    return 0;
  case O_NSYS_BASE:
    if (!*v || strchr(v, '/')) return fail("--%s: '%s' is not a file name prefix", name, v);
    note(c, "--%s: ignored: Nsight Systems is not run, so no nsys files are written (the "
            "dldb is named after --profile_name)", name);
    return 0;
  case O_TB_DIR:
    note(c, "--%s: ignored: TensorBoard event files were replaced by dlprofviewer; none are "
            "written", name);
    return 0;
  default: return 0;
  }
}

static int apply(cli *c, opt_id id, const char *name, const char *v) {
  static const char *const levels[] = {"quiet", "minimal", "normal", "detailed", "diagnostic"};
  switch (id) {
  case O_DATABASE: c->o.input = v; return 0;
  case O_MODE:
    if (strcmp(v, "simple") && strcmp(v, "pytorch"))
      return fail("--%s: expected simple or pytorch, got '%s'", name, v);
    c->o.mode = v; c->o.shape_opts++; return 0;
  case O_KEY: c->o.key_op = v; c->o.shape_opts++; return 0;
  case O_ISTART:
    c->o.shape_opts++;
    return parse_int(v, &c->o.iter_start) ? fail("--%s: expected an integer >= 0, got '%s'", name, v) : 0;
  case O_ISTOP:
    c->o.shape_opts++;
    return parse_int(v, &c->o.iter_stop) ? fail("--%s: expected an integer >= 0, got '%s'", name, v) : 0;
  case O_OUT: c->o.output_path = v; return 0;
  case O_NAME:
    if (!*v || strchr(v, '/')) return fail("--%s: '%s' is not a file name prefix", name, v);
    c->o.profile_name = v; return 0;
  case O_REPORTS:
    return parse_reports(v, &c->o.reports) ? fail("--%s: unknown report in '%s' (see --help)", name, v) : 0;
  case O_FORMATS:
    return parse_formats(v, &c->o.csv, &c->o.json) ? fail("--%s: expected csv and/or json, got '%s'", name, v) : 0;
  case O_NSYS_RULES:
    c->o.shape_opts++;
    return parse_bool(v, &c->o.nsys_rules) ? fail("--%s: expected true or false, got '%s'", name, v) : 0;
  case O_DELAY:
    return parse_int(v, &c->delay_s) || c->delay_s > 1000000000
               ? fail("--%s: expected a number of seconds >= 0, got '%s'", name, v) : 0;
  case O_DURATION:
    return parse_int(v, &c->duration_s) || c->duration_s > 1000000000
               ? fail("--%s: expected a number of seconds >= 0, got '%s'", name, v) : 0;
  case O_PROFILE_RANGE:
    return parse_bool(v, &c->profile_range) ? fail("--%s: expected true or false, got '%s'", name, v) : 0;
  case O_DUMP_MODEL:
    return parse_bool(v, &c->o.dump_model_data) ? fail("--%s: expected true or false, got '%s'", name, v) : 0;
  case O_NSYS_OPTS: return apply_nsys(c, name, v);
  case O_DOMAINS:
    if (check_domains(v))
      return fail("--%s: expected 1 to 8 NVTX domain names separated by commas, got '%s'", name, v);
    c->o.domains = v; c->o.shape_opts++; return 0;
  case O_DETAILED:
  case O_NSYS_BASE:
  case O_TB_DIR: return apply_accepted(c, id, name, v);
  case O_COMPARE_TO: c->compare_to = v; return 0;
  case O_DETAIL_RANKS:
    if (!*v || strspn(v, "0123456789,") != strlen(v)) {
      if (strcmp(v, "all")) return fail("--%s: expected all or ranks R,S,..., got '%s'", name, v);
    }
    c->o.detail_ranks = v;
    return 0;
  case O_EXPORT:
    if (strcmp(v, "chrome_trace")) return fail("--%s: expected chrome_trace, got '%s'", name, v);
    c->o.export_chrome = 1;
    return 0;
  case O_FAIL_THRESHOLD: {
    char *end;
    errno = 0;
    c->fail_threshold = strtod(v, &end);
    return errno || end == v || *end || !(c->fail_threshold >= 0 && c->fail_threshold < 1e9)
               ? fail("--%s: expected a percentage >= 0, got '%s'", name, v) : 0;
  }
  case O_FORCE:
    return parse_bool(v, &c->o.force) ? fail("--%s: expected true or false, got '%s'", name, v) : 0;
  case O_VERB:
    for (int i = 0; i < 5; i++)
      if (!strcmp(v, levels[i])) { c->verbosity = i; return 0; }
    return fail("--%s: expected quiet, minimal, normal, detailed or diagnostic, got '%s'", name, v);
  default: return 0;
  }
}

/* Parses argv up to the application (first non-option). Returns 0 to go on,
 * 1 on an error, 2 after --help/--version. *app_index: the application's
 * argv index, or argc without one. Accepts --name=value, --name value,
 * -x value and -x=value. */
static int parse_args(cli *c, int argc, char **argv, int *app_index) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *arg = argv[i], *eq = NULL, *name = NULL;
    size_t nlen;
    int idx = -1;
    if (!strcmp(arg, "--")) { i++; break; }
    if (arg[1] == '-') {
      name = arg + 2;
      eq = strchr(name, '=');
      nlen = eq ? (size_t)(eq - name) : strlen(name);
      for (size_t k = 0; k < sizeof options / sizeof *options; k++)
        if (strlen(options[k].name) == nlen && !strncmp(options[k].name, name, nlen)) idx = (int)k;
    } else {
      eq = arg[2] == '=' ? arg + 2 : (arg[2] ? arg + 1 : NULL);
      for (size_t k = 0; k < sizeof options / sizeof *options; k++)
        if (options[k].short_name == arg[1]) idx = (int)k;
    }
    if (idx < 0) return fail("unknown option '%s' (see --help)", arg);
    if (options[idx].id == O_HELP) { fputs(usage_text, stdout); return 2; }
    if (options[idx].id == O_VERSION) { printf("dlprof %s\n", DL_VERSION); return 2; }
    const char *value = eq ? eq + 1 : NULL;
    if (!value) {
      if (i + 1 >= argc) return fail("option '%s' needs a value", arg);
      value = argv[++i];
    }
    if (apply(c, options[idx].id, options[idx].name, value)) return 1;
  }
  *app_index = i;
  return 0;
}

/* ---- The run ------------------------------------------------------------ */

static int file_sink(void *ctx, const char *buf, size_t len) {
  return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : 1;
}

/* One pipeline run on c->o.input: its events and progress on stderr (the
 * expert findings on stdout), its error as one line. Returns the exit status. */
static int run_pipeline(cli *c, dlprof_meter *m, dlprof_sigclean *sig) {
  char err[4096] = "";
  dlprof_events ev = {.verbosity = c->verbosity, .meter = m, .sig = sig};
  dlp_pipeline *p = NULL;
  c->o.command = c->command;
  c->o.event = dlprof_event_cb;
  c->o.event_ctx = &ev;
  c->o.progress = dlprof_meter_cb;
  c->o.progress_ctx = m;
  if (c->verbosity >= DLPROF_V_NORMAL) {
    c->o.findings = file_sink;
    c->o.findings_ctx = stdout;
    c->o.iter_note = 1;
  }
  int rc = dlp_new(&p, err, sizeof err);
  if (rc == DL_OK) rc = dlp_run(p, &c->o, err, sizeof err);
  dlp_free(&p);
  if (rc == DL_OK) return 0;
  dlprof_meter_end(m);
  if (err[0]) dlprof_error("%s", err);
  return 1;
}

/* --compare_to: the comparison (pipeline/dlp_compare.h), its verdict on
 * stdout (cli/verdict.c), and the gate's exit status: 3 when the run is
 * slower than --fail_threshold allows, else 0; 1 on an error. */
static int run_compare(cli *c, dlprof_meter *m, dlprof_sigclean *sig) {
  char err[4096] = "";
  dlprof_events ev = {.verbosity = c->verbosity, .meter = m, .sig = sig};
  dlp_compare_result *res = calloc(1, sizeof *res);
  if (!res) return fail("out of memory");
  c->o.command = c->command;
  c->o.event = dlprof_event_cb;
  c->o.event_ctx = &ev;
  c->o.progress = dlprof_meter_cb;
  c->o.progress_ctx = m;
  int rc = dlp_compare(&c->o, c->compare_to, res, err, sizeof err);
  dlprof_meter_end(m);
  int status = 1;
  if (rc != DL_OK) {
    dlprof_error("%s", dlp_plain(err));
  } else {
    status = c->fail_threshold >= 0 && dlp_compare_regressed(res, c->fail_threshold) ? 3 : 0;
    if (c->verbosity >= DLPROF_V_MINIMAL) dlprof_verdict(stdout, res, c->fail_threshold);
  }
  free(res);
  return status;
}

/* dlprof APP: record (cli/profile.c), then the pipeline on the result.
 * dlprof exits with the application's status whatever was recorded (1
 * when the application succeeded and dlprof itself failed). */
static int profile(cli *c, int argc, char **argv, dlprof_meter *m, dlprof_sigclean *sig) {
  char live_db[PATH_MAX], err[4096];
  int app_status = 0;
  dlprof_profile_opts po = {.output_path = c->o.output_path, .profile_name = c->o.profile_name,
                            .mode = c->o.mode, .command = c->command, .force = c->o.force,
                            .verbose = c->verbosity >= DLPROF_V_DIAGNOSTIC ? 2
                                      : c->verbosity >= DLPROF_V_NORMAL,
                            .delay_s = c->delay_s,
                            .duration_s = c->duration_s, .profiler_range = c->profile_range};
  if (dlp_check_outputs(&c->o, NULL, err, sizeof err) != DL_OK) return fail("%s", err);
  int prc = dlprof_profile_app(&po, argc, argv, live_db, sizeof live_db, &app_status);
  if (prc == DLPROF_PROFILE_EMPTY) return app_status;
  if (prc != DLPROF_PROFILE_OK) return app_status ? app_status : 1;
  c->o.input = live_db;
  c->o.recorded = 1;
  if (!c->o.key_op && c->verbosity >= DLPROF_V_NORMAL)
    fprintf(stderr, "dlprof: no key op was set: the whole recording is one iteration; to split "
                    "it, aggregate again with dlprof --database=%s --key_op=NAME (NAME: the "
                    "NVTX range that marks each step)\n", live_db);
  int rc = run_pipeline(c, m, sig);
  return app_status ? app_status : rc;
}

static int dlprof_main(int argc, char **argv, dlprof_meter *m, dlprof_sigclean *sig) {
  cli c = {.verbosity = DLPROF_V_NORMAL, .fail_threshold = -1};
  int app = argc;
  size_t n = 0;
  dlp_opts_init(&c.o);
  /* A file size limit (RLIMIT_FSIZE) must fail a write with EFBIG, which is
   * reported and cleaned up, rather than kill dlprof with a temporary file left. */
  signal(SIGXFSZ, SIG_IGN);
  for (int i = 0; i < argc && n + 2 < sizeof c.command; i++)
    n += (size_t)snprintf(c.command + n, sizeof c.command - n, "%s%s", i ? " " : "", argv[i]);
  int rc = parse_args(&c, argc, argv, &app);
  if (rc) return rc == 2 ? 0 : 1;
  m->on = c.verbosity >= DLPROF_V_MINIMAL;
  m->detail = c.verbosity >= DLPROF_V_DETAILED;
  m->tty = isatty(STDERR_FILENO);
  for (int i = 0; i < c.n_notes && c.verbosity >= DLPROF_V_MINIMAL; i++)
    fprintf(stderr, "dlprof: %s\n", c.notes[i]);
  if (c.compare_to && !c.o.input) return fail("--compare_to needs --database (the new run)");
  char err[PATH_MAX + 256];
  if ((c.o.input || app < argc) && dlprof_outdir_make(c.o.output_path, err, sizeof err))
    return fail("%s", err);
  if (!c.o.input) {
    if (app >= argc) {
      fputs(usage_text, stderr);
      return 1;
    }
    return profile(&c, argc - app, argv + app, m, sig);
  }
  if (app < argc) return fail("unexpected argument '%s' with --database", argv[app]);
  if (c.compare_to) return run_compare(&c, m, sig);
  if (c.fail_threshold >= 0) return fail("--fail_threshold needs --compare_to");
  return run_pipeline(&c, m, sig);
}

int main(int argc, char **argv) {
  dlprof_hugepages_reexec(argv); /* returns where it does not execute dlprof again */
  double t0 = dlprof_now_s(), cpu0 = dlprof_cpu_s();
  dlprof_meter m = {0};
  dlprof_sigclean sig = {0}; /* the signal clean-up's thread borrows it until stopped */
  dldb_global_init(); /* before SQLite is used: no global mutex per allocation */
  int rc = dlprof_main(argc, argv, &m, &sig);
  dlprof_sigclean_stop(&sig);
  if (m.detail && rc == 0) {
    dlprof_meter_end(&m);
    dlprof_meter_cost("done", t0, cpu0);
  }
  return rc;
}
