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
 * reports of it. Every output is built in a temporary file in the target
 * directory and renamed into place only when complete; existing outputs are
 * refused unless --force=true. Errors are one line on stderr, exit 1.
 * Option names are DLProf's (docs/man/dlprof.1).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "dla.h"
#include "dldb.h"
#include "dldb_write.h"
#include "dli.h"
#include "dlr.h"
#include "dlr_stats.h"
#include "errline.h"
#include "import_kineto.h"
#include "profile.h"
#include "sigclean.h"

enum { V_QUIET, V_MINIMAL, V_NORMAL, V_DETAILED, V_DIAGNOSTIC };

typedef struct cli {
  int force, verbosity;
  const char *mode, *output_path, *profile_name, *key_op, *database;
  int64_t iter_start, iter_stop;
  int nsys_rules;    /* --nsys_rules: also Nsight Systems' analyze rules */
  int aggr_opts;     /* options that shape an aggregation given (mode, key op,
                        iterations, nsys rules): a dldb is aggregated again */
  unsigned reports;  /* bit i: report_name(i) (DLProf's, then nsys stats') */
  int csv, json;
  int64_t delay_s, duration_s; /* -y/--delay, -d/--duration (dlprof APP) */
  int profile_range;  /* --nsys_profile_range: only between cudaProfilerStart/Stop */
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
    "  --iter_start=N, --iter_stop=N      the iterations to aggregate (inclusive)\n"
    "  --output_path=DIR                  where outputs go (default: .)\n"
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
    "  -y, --delay=SECONDS     dlprof APP: start recording this long after launch\n"
    "  -d, --duration=SECONDS  dlprof APP: record this long, then stop (default: to the end)\n"
    "  --nsys_profile_range=true|false, --profile_range=true|false\n"
    "                          dlprof APP: record only between cudaProfilerStart and\n"
    "                          cudaProfilerStop (default: false)\n"
    "  -v, --verbosity=quiet|minimal|normal|detailed|diagnostic\n"
    "                          quiet: errors only; minimal: progress; normal: also counts\n"
    "                          and the expert findings (default); detailed, diagnostic:\n"
    "                          also each phase's wall time, CPU time and peak RSS\n"
    "  -h, --help              this text\n"
    "  -V, --version           the version\n";

/* ---- Progress ---------------------------------------------------------- */
/* The importer and the analysis report progress through callbacks
 * (dli_opts.progress, dla_opts.progress); this renders it on stderr: a bar
 * redrawn in place (at most 10 times a second) on a terminal, otherwise
 * plain lines (a phase's start and end, and every 5 s between), nothing
 * under --verbosity=quiet. From --verbosity=detailed up, each phase's end is
 * followed by what it took: wall time, CPU time, and the peak RSS so far. */
typedef struct meter {
  int on, tty, open;    /* open: a bar is drawn and its line not ended */
  int detail, timed;    /* detail: print each phase's cost; timed: this phase's is printed */
  char what[64];
  int last_tenth;
  double last_draw;
  double t0, cpu0;      /* the phase's start: wall and CPU seconds */
} meter;

static meter g_meter;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The process's peak resident set so far, in MiB (Linux: ru_maxrss in KiB). */
static double peak_rss_mib(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024.0 : 0.0;
}

/* "dlprof: WHAT: took 1.23 s (2.01 s CPU), peak RSS 345 MiB" from t0, cpu0. */
static void print_cost(const char *what, double t0, double cpu0) {
  fprintf(stderr, "dlprof: %s: took %.2f s (%.2f s CPU), peak RSS %.0f MiB\n", what,
          now_s() - t0, cpu_s() - cpu0, peak_rss_mib());
}

/* Ends a drawn bar's line, so that other output starts on a new one. */
static void meter_end(meter *m) {
  if (!m->open) return;
  fputc('\n', stderr);
  m->open = 0;
}

static void meter_cb(void *ctx, const char *what, int64_t done, int64_t total) {
  meter *m = ctx;
  if (!m->on) return;
  int fresh = strcmp(m->what, what) != 0;
  if (fresh) {
    meter_end(m);
    snprintf(m->what, sizeof m->what, "%s", what);
    m->last_tenth = -1;
    m->last_draw = 0;
    m->timed = 0;
    if (m->detail) {
      m->t0 = now_s();
      m->cpu0 = cpu_s();
    }
  }
  if (total < done) total = done;
  /* an empty phase ends too: its second call (0 of 0) */
  int finished = done >= total && (total > 0 || !fresh);
  int pct = total > 0 ? (int)(done * 100 / total) : finished ? 100 : 0;
  if (m->tty) {
    double t = now_s();
    if (!fresh && !finished && t - m->last_draw < 0.1) return;
    m->last_draw = t;
    char bar[31];
    int fill = pct * 30 / 100;
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r\033[Kdlprof: %-26s [%s] %3d%% %lld/%lld", what, bar, pct,
            (long long)done, (long long)total);
    m->open = 1;
    if (finished) meter_end(m);
    if (finished && m->detail && !m->timed) {
      m->timed = 1;
      print_cost(what, m->t0, m->cpu0);
    }
    fflush(stderr);
    return;
  }
  /* plain lines: a phase's start, its end, and every 5 s in between */
  double t = now_s();
  if (!fresh && !finished && t - m->last_draw < 5.0) return;
  if (!fresh && finished && m->last_tenth == 10) return;
  m->last_draw = t;
  m->last_tenth = finished ? 10 : 0;
  fprintf(stderr, "dlprof: %s: %d%% (%lld of %lld)\n", what, pct, (long long)done,
          (long long)total);
  if (finished && m->detail && !m->timed) {
    m->timed = 1;
    print_cost(what, m->t0, m->cpu0);
  }
}

/* Prints one "dlprof: ..." line on stderr and returns 1 (the exit status). */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  meter_end(&g_meter);
  dlprof_verror(fmt, ap);
  va_end(ap);
  return 1;
}

/* One progress line on stderr when the verbosity is at least level. */
static void progress(const cli *c, int level, const char *what, const char *arg) {
  meter_end(&g_meter);
  if (c->verbosity >= level) fprintf(stderr, "dlprof: %s%s%s\n", what, arg ? " " : "", arg ? arg : "");
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

/* Reports by bit: DLProf's (dlr.h), then our nsys-stats ones (dlr_stats.h). */
static int report_count(void) { return dlr_report_count() + dlr_stats_count(); }
static const char *report_name(int i) {
  return i < dlr_report_count() ? dlr_report_name(i) : dlr_stats_name(i - dlr_report_count());
}

static int parse_reports(const char *v, unsigned *out) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  *out = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int found = 0;
    if (!strcmp(t, "all")) { *out |= (1u << dlr_report_count()) - 1; continue; }
    if (!strcmp(t, "stats")) {
      *out |= ((1u << report_count()) - 1) & ~((1u << dlr_report_count()) - 1);
      continue;
    }
    for (int i = 0; i < report_count(); i++)
      if (!strcmp(t, report_name(i))) { *out |= 1u << i; found = 1; }
    if (!found) return -1;
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
               O_DELAY, O_DURATION, O_PROFILE_RANGE } opt_id;
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
};

static int apply(cli *c, opt_id id, const char *name, const char *v) {
  static const char *const levels[] = {"quiet", "minimal", "normal", "detailed", "diagnostic"};
  switch (id) {
  case O_DATABASE: c->database = v; return 0;
  case O_MODE:
    if (strcmp(v, "simple") && strcmp(v, "pytorch"))
      return fail("--%s: expected simple or pytorch, got '%s'", name, v);
    c->mode = v; c->aggr_opts++; return 0;
  case O_KEY: c->key_op = v; c->aggr_opts++; return 0;
  case O_ISTART:
    c->aggr_opts++;
    return parse_int(v, &c->iter_start) ? fail("--%s: expected an integer >= 0, got '%s'", name, v) : 0;
  case O_ISTOP:
    c->aggr_opts++;
    return parse_int(v, &c->iter_stop) ? fail("--%s: expected an integer >= 0, got '%s'", name, v) : 0;
  case O_OUT: c->output_path = v; return 0;
  case O_NAME:
    if (!*v || strchr(v, '/')) return fail("--%s: '%s' is not a file name prefix", name, v);
    c->profile_name = v; return 0;
  case O_REPORTS:
    return parse_reports(v, &c->reports) ? fail("--%s: unknown report in '%s' (see --help)", name, v) : 0;
  case O_FORMATS:
    return parse_formats(v, &c->csv, &c->json) ? fail("--%s: expected csv and/or json, got '%s'", name, v) : 0;
  case O_NSYS_RULES:
    c->aggr_opts++;
    return parse_bool(v, &c->nsys_rules) ? fail("--%s: expected true or false, got '%s'", name, v) : 0;
  case O_DELAY:
    return parse_int(v, &c->delay_s) || c->delay_s > 1000000000
               ? fail("--%s: expected a number of seconds >= 0, got '%s'", name, v) : 0;
  case O_DURATION:
    return parse_int(v, &c->duration_s) || c->duration_s > 1000000000
               ? fail("--%s: expected a number of seconds >= 0, got '%s'", name, v) : 0;
  case O_PROFILE_RANGE:
    return parse_bool(v, &c->profile_range) ? fail("--%s: expected true or false, got '%s'", name, v) : 0;
  case O_FORCE:
    return parse_bool(v, &c->force) ? fail("--%s: expected true or false, got '%s'", name, v) : 0;
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

/* ---- Outputs ------------------------------------------------------------ */

static void out_path(const cli *c, const char *suffix, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s%s", c->output_path, c->profile_name, suffix);
}

/* DLProf's report file name "dlprof_x.csv" with our profile name as prefix. */
static void report_path(const cli *c, const char *name, dlr_format fmt, char *buf, size_t len) {
  const char *file = dlr_report_file(name, fmt); /* "dlprof_summary.csv" */
  const char *rest = strchr(file, '_');
  snprintf(buf, len, "%s/%s%s", c->output_path, c->profile_name, rest ? rest : file);
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static int file_sink(void *ctx, const char *buf, size_t len) {
  return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : 1;
}

/* Writes one report to a temporary file beside path and renames it there. */
static int write_report(dldb *db, const char *name, dlr_format fmt, int64_t aggr_id,
                        const char *domain, const char *path, char *tmp, size_t tmplen,
                        char *err, size_t errlen) {
  snprintf(tmp, tmplen, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0)
    return dl_err(err, errlen, DL_EIO, "%s: cannot create a temporary file beside it: %s", path,
                  dl_create_reason(path, errno));
  mode_t um = umask(0); /* mkstemp creates 0600; give the report 0666 & ~umask */
  umask(um);
  (void)fchmod(fd, 0666 & ~um);
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(tmp);
    return dl_err(err, errlen, DL_EIO, "%s: %s", path, strerror(errno));
  }
  errno = 0;
  int rc = dlr_write(db, name, fmt, aggr_id, domain, file_sink, f, err, errlen);
  int werr = ferror(f) ? errno : 0; /* a full disk: EFBIG, ENOSPC */
  if (werr && rc != DL_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: write failed: %s", path, strerror(werr));
  if (fclose(f) != 0 && rc == DL_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: write failed: %s", path, strerror(errno));
  if (rc != DL_OK) unlink(tmp);
  return rc;
}

static int is_dir(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* An output that exists: refused without --force, and always when it is a
 * directory (nothing can replace it: found now, not after the dldb). */
static int check_output(const cli *c, const char *path) {
  if (is_dir(path)) return fail("%s: is a directory, not an output file", path);
  if (!c->force && exists(path)) return fail("%s: exists; use --force=true to replace it", path);
  return 0;
}

static int check_outputs(const cli *c, const char *dldb_path) {
  char path[PATH_MAX];
  if (dldb_path && check_output(c, dldb_path)) return 1;
  for (int i = 0; i < report_count(); i++) {
    if (!(c->reports & (1u << i))) continue;
    for (int f = 0; f < 2; f++) {
      if ((f == 0 && !c->csv) || (f == 1 && !c->json)) continue;
      report_path(c, report_name(i), (dlr_format)f, path, sizeof path);
      if (check_output(c, path)) return 1;
    }
  }
  return 0;
}

/* The reports of a run, written to temporary files beside their
 * destinations and renamed into place together (after the dldb). */
typedef struct report_set {
  int n;
  char tmp[64][PATH_MAX + 16], dest[64][PATH_MAX]; /* 32 reports x 2 formats */
} report_set;

static report_set g_reports; /* one set a run (half a MB: not on the stack) */

static void reports_discard(report_set *rs) {
  for (int k = 0; k < rs->n; k++) unlink(rs->tmp[k]);
  rs->n = 0;
}

/* Writes every report asked for, from the dldb at dldb_path (aggr_id < 0:
 * its newest aggregation), to a temporary file beside its destination;
 * when one fails (a full disk), removes them all and says why. */
static int reports_prepare(const cli *c, const char *dldb_path, int64_t aggr_id, report_set *rs) {
  char err[1024], path[PATH_MAX];
  dldb *db = NULL;
  dldb_info info;
  rs->n = 0;
  /* aggr_id >= 0: this run has just written the file (no quick check) */
  if ((aggr_id >= 0 ? dldb_open_ro_written(dldb_path, &db, &info, err, sizeof err)
                    : dldb_open_ro(dldb_path, &db, &info, err, sizeof err)) != DL_OK)
    return fail("%s", err);
  if (aggr_id < 0) aggr_id = info.default_aggr_id;
  int status = 0;
  for (int i = 0; i < report_count() && !status; i++) {
    if (!(c->reports & (1u << i))) continue;
    for (int f = 0; f < 2 && !status; f++) {
      if ((f == 0 && !c->csv) || (f == 1 && !c->json)) continue;
      report_path(c, report_name(i), (dlr_format)f, path, sizeof path);
      progress(c, V_NORMAL, "writing", path);
      if (rs->n == 64) break;
      if (write_report(db, report_name(i), (dlr_format)f, aggr_id, info.default_domain, path,
                       rs->tmp[rs->n], sizeof rs->tmp[0], err, sizeof err) != DL_OK)
        status = fail("%s", err);
      else
        snprintf(rs->dest[rs->n++], sizeof rs->dest[0], "%s", path);
    }
  }
  if (status) reports_discard(rs);
  /* DLProf printed the expert findings at the end of every run, to stdout
   * (progress and errors go to stderr). */
  if (!status && c->verbosity >= V_NORMAL) {
    dlr_write(db, "expert_systems", DLR_CSV, aggr_id, info.default_domain, file_sink, stdout, NULL,
              0);
    fflush(stdout);
  }
  dldb_close(&db);
  return status;
}

/* Renames the prepared reports into place. */
static int reports_publish(report_set *rs) {
  int status = 0;
  for (int k = 0; k < rs->n; k++) {
    if (!status && rename(rs->tmp[k], rs->dest[k]) != 0)
      status = fail("%s: cannot rename into place: %s", rs->dest[k], strerror(errno));
    if (status) unlink(rs->tmp[k]);
  }
  rs->n = 0;
  return status;
}

/* The reports of a dldb this run does not change. */
static int write_reports(const cli *c, const char *dldb_path, int64_t aggr_id) {
  if (reports_prepare(c, dldb_path, aggr_id, &g_reports)) return 1;
  return reports_publish(&g_reports);
}

/* dldb_writer_commit_ready's hook: the reports of the finished file, before
 * it is renamed into place (a report that fails leaves no new dldb). */
typedef struct ready_ctx {
  const cli *c;
  const int64_t *aggr_id;
} ready_ctx;

static int reports_ready(void *ctx, const char *path) {
  const ready_ctx *r = ctx;
  return reports_prepare(r->c, path, *r->aggr_id, &g_reports) ? DL_EIO : DL_OK;
}

static void aggregation_opts(const cli *c, dla_opts *o) {
  dla_opts_init(o);
  o->key_op = c->key_op;
  /* a key op ending in '#' (Kineto's ProfilerStep#) is a span per
   * iteration, as on import (cli/import_kineto.c) */
  size_t kl = c->key_op ? strlen(c->key_op) : 0;
  o->key_op_spans = kl > 0 && c->key_op[kl - 1] == '#';
  o->mode = c->mode;
  o->nsys_rules = c->nsys_rules;
  o->iter_start = c->iter_start;
  o->iter_stop = c->iter_stop;
  o->progress = meter_cb;
  o->progress_ctx = &g_meter;
}

/* --iter_stop past the last iteration: the aggregation stops at the last
 * one (dla_aggregate); at normal verbosity, one line says so. Read from the
 * finished dldb (view_performance_summary), after the run. */
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

static void note_iter_range(const cli *c, const char *dldb_path, int64_t aggr_id) {
  if (c->verbosity < V_NORMAL || c->iter_stop < 0 || aggr_id < 0) return;
  dldb *db = NULL;
  dldb_info info;
  iter_range r = {-1, -1, -1};
  if (dldb_open_ro_written(dldb_path, &db, &info, NULL, 0) == DL_OK) {
    dldb_query q = {.view = "view_performance_summary", .aggr_id = aggr_id, .limit = 1};
    (void)dldb_query_rows(db, &q, iter_range_row, &r, NULL, 0);
    dldb_close(&db);
  }
  if (r.stop < 0 || r.stop >= c->iter_stop) return;
  if (r.total < 0) r.total = r.stop + 1;
  meter_end(&g_meter);
  fprintf(stderr,
          "dlprof: --iter_stop=%lld is past the last iteration: aggregated iterations %lld to %lld "
          "(the profile has %lld, 0 to %lld)\n",
          (long long)c->iter_stop, (long long)r.start, (long long)r.stop, (long long)r.total,
          (long long)(r.total - 1));
}

static int import_nsys(const cli *c) {
  char dbpath[PATH_MAX], err[1024];
  dldb_writer *w = NULL;
  dli_stats st;
  dla_opts ao;
  int64_t aggr_id = -1;
  out_path(c, "_dldb.sqlite", dbpath, sizeof dbpath);
  if (check_outputs(c, dbpath)) return 1;
  dldb_write_opts wo = {.force = c->force, .producer = "dlprof " DL_VERSION, .source = c->database};
  dli_opts io = {.mode = c->mode, .profile_name = c->profile_name, .command = c->command,
                 .progress = meter_cb, .progress_ctx = &g_meter};
  progress(c, V_MINIMAL, "reading Nsight Systems export", c->database);
  if (dldb_writer_create(dbpath, &wo, &w, err, sizeof err) != DL_OK ||
      dli_nsys_import(c->database, &io, w, &st, err, sizeof err) != DL_OK)
    goto fail;
  meter_end(&g_meter);
  if (c->verbosity >= V_NORMAL)
    fprintf(stderr,
            "dlprof: read %lld kernels, %lld memcpys, %lld memsets, %lld API calls, %lld NVTX "
            "ranges, %lld GPUs (Nsight Systems %s, schema %s); %lld unusable rows skipped, %lld over-long names "
            "cut\n",
            (long long)st.kernels, (long long)st.memcpys, (long long)st.memsets,
            (long long)st.api_calls, (long long)st.ranges, (long long)st.gpus,
            st.product_version[0] ? st.product_version : "?",
            st.schema_version[0] ? st.schema_version : "?", (long long)st.skipped,
            (long long)st.truncated);
  progress(c, V_MINIMAL, "aggregating", NULL);
  aggregation_opts(c, &ao);
  if (dla_aggregate(w, &ao, &aggr_id, err, sizeof err) != DL_OK) {
    dlprof_name_input(err, sizeof err, c->database);
    goto fail;
  }
  progress(c, V_MINIMAL, "writing", dbpath);
  ready_ctx rctx = {.c = c, .aggr_id = &aggr_id};
  err[0] = '\0';
  if (dldb_writer_commit_ready(&w, reports_ready, &rctx, err, sizeof err) != DL_OK) goto fail;
  if (reports_publish(&g_reports)) return 1;
  note_iter_range(c, dbpath, aggr_id);
  return 0;
fail:
  dldb_writer_abort(&w);
  return err[0] ? fail("%s", err) : 1; /* empty: the reports said why */
}

/* Copies the SQLite database src to a new temporary file beside it (in
 * rollback-journal mode, with src's permissions) and puts its path in tmp. */
static int copy_beside(const char *src, char *tmp, size_t tmplen, char *err, size_t errlen) {
  sqlite3 *from = NULL, *to = NULL;
  struct stat sb;
  int rc = DL_OK;
  snprintf(tmp, tmplen, "%s.tmp-XXXXXX", src);
  int fd = stat(src, &sb) == 0 ? mkstemp(tmp) : -1;
  if (fd < 0)
    return dl_err(err, errlen, DL_EIO, "%s: cannot create a file beside it: %s", src,
                  dl_create_reason(src, errno));
  (void)fchmod(fd, sb.st_mode & 0777);
  close(fd);
  if (sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_open_v2(tmp, &to, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    rc = dl_err(err, errlen, DL_EIO, "%s: cannot open: %s", src,
                sqlite3_errmsg(to ? to : from));
    goto out;
  }
  sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
  int s = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
  if (sqlite3_backup_finish(b) != SQLITE_OK || s != SQLITE_DONE ||
      sqlite3_exec(to, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) != SQLITE_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: copying to %s failed: %s", src, tmp,
                sqlite3_errmsg(to));
out:
  sqlite3_close(from);
  if (sqlite3_close(to) != SQLITE_OK && rc == DL_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: cannot close", tmp);
  if (rc != DL_OK) unlink(tmp);
  return rc;
}

/* A new aggregation of a dldb of ours is added to a copy of it beside it,
 * which replaces it only when complete: a failure (a full disk) leaves the
 * file as it was. */
static int reaggregate(const cli *c) {
  char err[1024], tmp[PATH_MAX + 16];
  dldb_writer *w = NULL;
  dla_opts ao;
  int64_t aggr_id = -1;
  if (check_outputs(c, NULL)) return 1;
  if (dldb_writer_open_existing(c->database, &w, err, sizeof err) != DL_OK) {
    /* NVIDIA's databases hold no raw records: only their reports can be made. */
    if (!c->aggr_opts) return write_reports(c, c->database, -1);
    return fail("%s (a new aggregation needs a dldb written by dlprof)", err);
  }
  dldb_writer_abort(&w);
  /* A dldb with aggregations (not one just recorded): without an option
   * that shapes an aggregation, the newest one's reports (another
   * aggregation would repeat it); without --key_op, a new one keeps its
   * key op (a Kineto dldb's ProfilerStep#), not the mode's default. */
  cli cc = *c;
  dldb *db = NULL;
  dldb_info info;
  /* (no quick check: the aggregation reads the file, which the writer has
   * just opened) */
  int have = dldb_open_ro_written(c->database, &db, &info, err, sizeof err) == DL_OK;
  dldb_close(&db);
  if (have && !c->aggr_opts) return write_reports(c, c->database, -1);
  if (have && !cc.key_op && info.default_key_op[0]) cc.key_op = info.default_key_op;
  c = &cc;
  progress(c, V_MINIMAL, "aggregating again:", c->database);
  if (copy_beside(c->database, tmp, sizeof tmp, err, sizeof err) != DL_OK) return fail("%s", err);
  aggregation_opts(c, &ao);
  int agg = 0;
  if (dldb_writer_open_existing(tmp, &w, err, sizeof err) != DL_OK ||
      (agg = dla_aggregate(w, &ao, &aggr_id, err, sizeof err)) != DL_OK ||
      dldb_writer_commit(&w, err, sizeof err) != DL_OK) {
    if (agg) dlprof_name_input(err, sizeof err, c->database);
    dldb_writer_abort(&w);
    unlink(tmp);
    return fail("%s", err);
  }
  /* the reports first, from the copy: a failure leaves the dldb as it was */
  if (reports_prepare(c, tmp, aggr_id, &g_reports)) {
    unlink(tmp);
    return 1;
  }
  if (rename(tmp, c->database) != 0) {
    int e = errno;
    unlink(tmp);
    reports_discard(&g_reports);
    return fail("%s: cannot rename the new file into place: %s", c->database, strerror(e));
  }
  if (reports_publish(&g_reports)) return 1;
  note_iter_range(c, c->database, aggr_id);
  return 0;
}

/* From here on, SIGINT, SIGTERM and SIGHUP remove this run's temporary
 * files (outputs, and the working copy beside a dldb being re-aggregated)
 * before dlprof ends (cli/sigclean.h). */
static void clean_up_on_signals(const cli *c) {
  char prefix[PATH_MAX], dir[PATH_MAX];
  snprintf(prefix, sizeof prefix, "%s_", c->profile_name);
  dlprof_sigclean_watch(c->output_path, prefix);
  snprintf(dir, sizeof dir, "%s", c->database);
  char *slash = strrchr(dir, '/');
  if (slash) {
    *slash = '\0';
    dlprof_sigclean_watch(slash == dir ? "/" : dir, slash + 1);
  } else {
    dlprof_sigclean_watch(".", dir);
  }
  (void)dlprof_sigclean_start();
}

static int dlprof_main(int argc, char **argv) {
  cli c = {.verbosity = V_NORMAL, .mode = "pytorch", .output_path = ".",
           .profile_name = "dlprof", .iter_start = -1, .iter_stop = -1, .csv = 1};
  char err[1024];
  int app = argc;
  size_t n = 0;
  /* A file size limit (RLIMIT_FSIZE) must fail a write with EFBIG, which is
   * reported and cleaned up, rather than kill dlprof with a temporary file left. */
  signal(SIGXFSZ, SIG_IGN);
  for (int i = 0; i < argc && n + 2 < sizeof c.command; i++)
    n += (size_t)snprintf(c.command + n, sizeof c.command - n, "%s%s", i ? " " : "", argv[i]);
  int rc = parse_args(&c, argc, argv, &app);
  if (rc) return rc == 2 ? 0 : 1;
  g_meter.on = c.verbosity >= V_MINIMAL;
  g_meter.detail = c.verbosity >= V_DETAILED;
  g_meter.tty = isatty(STDERR_FILENO);
  c.reports = c.reports ? c.reports : 1u; /* summary */
  if (!c.database) {
    if (app >= argc) {
      fputs(usage_text, stderr);
      return 1;
    }
    /* dlprof APP: record (cli/profile.c), then the --database path on the result */
    char live_db[PATH_MAX];
    int app_status = 0;
    dlprof_profile_opts po = {.output_path = c.output_path, .profile_name = c.profile_name,
                              .mode = c.mode, .command = c.command, .force = c.force,
                              .verbose = c.verbosity >= V_NORMAL, .delay_s = c.delay_s,
                              .duration_s = c.duration_s, .profiler_range = c.profile_range};
    if (check_outputs(&c, NULL)) return 1;
    if (dlprof_profile_app(&po, argc - app, argv + app, live_db, sizeof live_db, &app_status))
      return app_status ? app_status : 1;
    c.database = live_db;
    clean_up_on_signals(&c);
    rc = reaggregate(&c);
    return app_status ? app_status : rc;
  }
  if (app < argc) return fail("unexpected argument '%s' with --database", argv[app]);
  struct stat sb;
  if (stat(c.output_path, &sb) != 0)
    return errno == ENOENT ? fail("--output_path: %s does not exist", c.output_path)
                           : fail("--output_path: %s: %s", c.output_path, strerror(errno));
  if (!S_ISDIR(sb.st_mode)) return fail("--output_path: %s is not a directory", c.output_path);
  if (c.iter_start >= 0 && c.iter_stop >= 0 && c.iter_start > c.iter_stop)
    return fail("--iter_start must not be after --iter_stop");
  dli_kind kind;
  if (dli_detect(c.database, &kind, err, sizeof err) != DL_OK) return fail("%s", err);
  clean_up_on_signals(&c);
  switch (kind) {
  case DLI_NSYS_SQLITE: return import_nsys(&c);
  case DLI_DLDB: return reaggregate(&c);
  case DLI_JSON: { /* PyTorch profiler (Kineto) trace, or a directory of per-rank traces */
    char kdb[PATH_MAX];
    int64_t kaggr = -1;
    out_path(&c, "_dldb.sqlite", kdb, sizeof kdb);
    if (check_outputs(&c, kdb)) return 1;
    dlprof_kineto_args ka = {.database = c.database, .dbpath = kdb, .mode = c.mode,
                             .profile_name = c.profile_name, .command = c.command,
                             .key_op = c.key_op, .iter_start = c.iter_start,
                             .iter_stop = c.iter_stop, .force = c.force,
                             .verbose = c.verbosity >= V_NORMAL,
                             .warn = c.verbosity >= V_MINIMAL};
    ready_ctx rctx = {.c = &c, .aggr_id = &kaggr};
    ka.ready = reports_ready;
    ka.ready_ctx = &rctx;
    ka.progress = meter_cb;
    ka.progress_ctx = &g_meter;
    if (dlprof_import_kineto(&ka, &kaggr)) return 1;
    if (reports_publish(&g_reports)) return 1;
    note_iter_range(&c, kdb, kaggr);
    return 0;
  }
  case DLI_SQLITE_OTHER:
    return fail("%s: an SQLite file, but neither an Nsight Systems export nor a dldb",
                c.database);
  default:
    return fail("%s: not a trace dlprof can read (expected an Nsight Systems SQLite export, a "
                "PyTorch profiler JSON trace or a dldb)", c.database);
  }
}

int main(int argc, char **argv) {
  double t0 = now_s(), cpu0 = cpu_s();
  int rc = dlprof_main(argc, argv);
  dlprof_sigclean_stop();
  if (g_meter.detail && rc == 0) {
    meter_end(&g_meter);
    print_cost("done", t0, cpu0);
  }
  return rc;
}
