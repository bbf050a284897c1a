/*
 * test_pipeline - the pipeline library (pipeline/dlp.h) on real traces:
 * the events of an Nsight Systems import, in order, and its outputs; a
 * failing aggregation leaves nothing behind (no dldb, no temporary file);
 * existing outputs are refused without force; a dldb of ours is aggregated
 * again in a copy that replaces it, or only gets its reports; a Kineto
 * trace gets its ProfilerStep# key op; db/dldb_copy.h copies a database
 * beside itself and leaves nothing on an error.
 * Usage: test_pipeline SHARED_DIR WORK_DIR (skips, exit 77, without the traces).
 */
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dldb_copy.h"
#include "dlp.h"
#include "test.h"

static char nsys[4096], kineto[4096], work[4096];

/* What the event callback saw. */
typedef struct seen {
  int n;
  dlp_event_kind kinds[64];
  char key_op[256];
} seen;

static void on_event(void *ctx, const dlp_event *e) {
  seen *s = ctx;
  if (s->n < 64) s->kinds[s->n++] = e->kind;
  if (e->kind == DLP_EV_AGGREGATING_KEY) snprintf(s->key_op, sizeof s->key_op, "%s", e->text);
}

static size_t findings_bytes;
static int on_findings(void *ctx, const char *buf, size_t len) {
  (void)ctx;
  (void)buf;
  findings_bytes += len;
  return 0;
}

/* A fresh, empty directory work/name; its path in dir. */
static int fresh_dir(const char *name, char *dir, size_t len) {
  char cmd[8300];
  snprintf(dir, len, "%s/%s", work, name);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  return system(cmd);
}

/* The number of entries of dir whose name contains part. */
static int count_named(const char *dir, const char *part) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));)
    if (strstr(e->d_name, part)) n++;
  closedir(d);
  return n;
}

static int exists(const char *dir, const char *name) {
  char p[8300];
  struct stat sb;
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return stat(p, &sb) == 0;
}

static int64_t aggregations(const char *path) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int64_t n = -1;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT count(*) FROM view_aggregations", -1, &st, NULL) ==
          SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

static void opts_for(dlp_opts *o, const char *input, const char *dir, seen *s) {
  dlp_opts_init(o);
  o->input = input;
  o->output_path = dir;
  o->command = "test_pipeline";
  o->event = on_event;
  o->event_ctx = s;
}

static int run(const dlp_opts *o, char *err, size_t errlen, int64_t *aggr_id, char *dldb,
               size_t dldblen) {
  dlp_pipeline *p = NULL;
  int rc = dlp_new(&p, err, errlen);
  if (rc == DL_OK) rc = dlp_run(p, o, err, errlen);
  if (p && aggr_id) *aggr_id = dlp_aggr_id(p);
  if (p && dldb) snprintf(dldb, dldblen, "%s", dlp_dldb_path(p));
  dlp_free(&p);
  return rc;
}

static int test_nsys_events_and_outputs(void) {
  char dir[4200], err[4096], dldb[4096];
  seen s = {0};
  dlp_opts o;
  int64_t aggr = -1;
  ASSERT_OK(fresh_dir("nsys", dir, sizeof dir));
  opts_for(&o, nsys, dir, &s);
  o.findings = on_findings;
  findings_bytes = 0;
  ASSERT_EQ(run(&o, err, sizeof err, &aggr, dldb, sizeof dldb), DL_OK);
  static const dlp_event_kind want[] = {
      DLP_EV_TEMPS,         DLP_EV_READING_NSYS,   DLP_EV_READ_NSYS,
      DLP_EV_AGGREGATING,   DLP_EV_WRITING_DLDB,   DLP_EV_WRITING_REPORT,
      DLP_EV_FINDINGS_DONE};
  ASSERT_EQ(s.n, sizeof want / sizeof *want);
  for (int i = 0; i < s.n; i++) ASSERT_EQ(s.kinds[i], want[i]);
  ASSERT(findings_bytes > 0);
  ASSERT(aggr >= 0);
  ASSERT(strstr(dldb, "/dlprof_dldb.sqlite") != NULL);
  ASSERT(exists(dir, "dlprof_dldb.sqlite"));
  ASSERT(exists(dir, "dlprof_summary.csv"));
  ASSERT_EQ(count_named(dir, ".tmp-"), 0);
  ASSERT_EQ(aggregations(dldb), 1);
  /* again without force: refused, before anything is written */
  s.n = 0;
  ASSERT_EQ(run(&o, err, sizeof err, NULL, NULL, 0), DL_EEXIST);
  ASSERT(strstr(err, "exists; use --force=true") != NULL);
  ASSERT_EQ(count_named(dir, ".tmp-"), 0);
  return 0;
}

static int test_failure_leaves_nothing(void) {
  char dir[4200], err[4096];
  seen s = {0};
  dlp_opts o;
  ASSERT_OK(fresh_dir("fail", dir, sizeof dir));
  opts_for(&o, nsys, dir, &s);
  o.reports = dlp_report_mask("all");
  o.json = 1;
  o.iter_start = 100000; /* past the last iteration: the aggregation fails */
  o.iter_stop = 100001;
  ASSERT(run(&o, err, sizeof err, NULL, NULL, 0) != DL_OK);
  ASSERT(strncmp(err, nsys, strlen(nsys)) == 0); /* names the input */
  ASSERT_EQ(count_named(dir, ""), 2);           /* "." and "..": nothing left */
  /* the writer had made its temporary dldb before the aggregation failed */
  int writing = 0;
  for (int i = 0; i < s.n; i++) writing |= s.kinds[i] == DLP_EV_READ_NSYS;
  ASSERT(writing);
  /* an input that is not a trace: one line naming it */
  o.input = dir;
  ASSERT(run(&o, err, sizeof err, NULL, NULL, 0) != DL_OK);
  ASSERT(strstr(err, dir) != NULL);
  ASSERT(strchr(err, '\n') == NULL);
  return 0;
}

static int test_reaggregate_and_reports_only(void) {
  char dir[4200], err[4096], dldb[4096], path[8300];
  seen s = {0};
  dlp_opts o;
  int64_t aggr = -1;
  ASSERT_OK(fresh_dir("reaggr", dir, sizeof dir));
  opts_for(&o, nsys, dir, &s);
  o.reports = 0;
  ASSERT_EQ(run(&o, err, sizeof err, NULL, dldb, sizeof dldb), DL_OK);
  ASSERT(!exists(dir, "dlprof_summary.csv"));
  snprintf(path, sizeof path, "%s", dldb);
  /* an option that shapes an aggregation: a new one, in a copy that replaces the file */
  opts_for(&o, path, dir, &s);
  o.profile_name = "again";
  o.shape_opts = 1;
  o.iter_stop = 0; /* the export has one iteration */
  s.n = 0;
  ASSERT_EQ(run(&o, err, sizeof err, &aggr, NULL, 0), DL_OK);
  int again = 0;
  for (int i = 0; i < s.n; i++) again |= s.kinds[i] == DLP_EV_AGGREGATING_AGAIN;
  ASSERT(again);
  ASSERT(aggr >= 0);
  ASSERT_EQ(aggregations(path), 2);
  ASSERT(exists(dir, "again_summary.csv"));
  ASSERT_EQ(count_named(dir, ".tmp-"), 0);
  /* none: only the reports of the newest aggregation */
  opts_for(&o, path, dir, &s);
  o.profile_name = "reports";
  s.n = 0;
  ASSERT_EQ(run(&o, err, sizeof err, &aggr, NULL, 0), DL_OK);
  for (int i = 0; i < s.n; i++) ASSERT(s.kinds[i] != DLP_EV_AGGREGATING_AGAIN);
  ASSERT_EQ(aggr, -1);
  ASSERT_EQ(aggregations(path), 2);
  ASSERT(exists(dir, "reports_summary.csv"));
  return 0;
}

static int test_kineto_key_op(void) {
  char dir[4200], err[4096];
  seen s = {0};
  dlp_opts o;
  ASSERT_OK(fresh_dir("kineto", dir, sizeof dir));
  opts_for(&o, kineto, dir, &s);
  ASSERT_EQ(run(&o, err, sizeof err, NULL, NULL, 0), DL_OK);
  ASSERT_STR_EQ(s.key_op, "ProfilerStep#");
  ASSERT_EQ(s.kinds[1], DLP_EV_READING_KINETO);
  ASSERT(exists(dir, "dlprof_dldb.sqlite"));
  return 0;
}

static int test_copy_beside(void) {
  char dir[4200], src[8300], tmp[8400], err[1024];
  ASSERT_OK(fresh_dir("copy", dir, sizeof dir));
  snprintf(src, sizeof src, "%s/missing.sqlite", dir);
  ASSERT_EQ(dldb_copy_beside(src, tmp, sizeof tmp, err, sizeof err), DL_EIO);
  ASSERT_EQ(count_named(dir, ".tmp-"), 0);
  snprintf(src, sizeof src, "%s/in.sqlite", dir);
  char cmd[17000];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", nsys, src);
  ASSERT_OK(system(cmd));
  ASSERT_EQ(dldb_copy_beside(src, tmp, sizeof tmp, err, sizeof err), DL_OK);
  ASSERT(strncmp(tmp, src, strlen(src)) == 0 && strstr(tmp, ".tmp-") != NULL);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int64_t tables = -1;
  if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type='table'", -1, &st,
                         NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    tables = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  unlink(tmp);
  ASSERT(tables > 10);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_pipeline SHARED_DIR WORK_DIR\n");
    return 2;
  }
  snprintf(nsys, sizeof nsys, "%s/traces/dlprof/w_Relu/nsys_profile.sqlite", argv[1]);
  snprintf(kineto, sizeof kineto,
           "%s/traces/kineto/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_"
           "trace.json.gz", argv[1]);
  snprintf(work, sizeof work, "%s", argv[2]);
  if (access(nsys, R_OK) != 0 || access(kineto, R_OK) != 0) {
    char why[8300];
    snprintf(why, sizeof why, "%s or %s not found", nsys, kineto);
    SKIP(why);
  }
  RUN(test_nsys_events_and_outputs);
  RUN(test_failure_leaves_nothing);
  RUN(test_reaggregate_and_reports_only);
  RUN(test_kineto_key_op);
  RUN(test_copy_beside);
  TEST_DONE();
}
