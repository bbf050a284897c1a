/*
 * dlp_compare.c - dlprof --compare_to (dlp_compare.h): each input made a
 * dldb (imported through dlp_run when it is not one), the two compared
 * (dldb_compare_open), the comparison written (dlr_compare_write) to
 * temporary files renamed into place, and the result read back from the
 * comparison's summary and its biggest changes.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dldb.h"
#include "dldb_compare.h"
#include "dli.h"
#include "dlp_compare.h"
#include "dlr_compare.h"

/* The state of one comparison: the temporary folder of the imports, the
 * dldbs compared, the temporary outputs. */
typedef struct job {
  const dlp_opts *o;
  char tmpdir[PATH_MAX]; /* "": none made */
  char dldb[2][PATH_MAX];
  char tmp[2][PATH_MAX + 16], dest[2][PATH_MAX];
  char *err;
  size_t errlen;
} job;

/* Removes the temporary folder of the imports and what is in it. */
static void remove_tmpdir(job *j) {
  if (!j->tmpdir[0]) return;
  DIR *d = opendir(j->tmpdir);
  struct dirent *e;
  char path[PATH_MAX + 256];
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(path, sizeof path, "%s/%s", j->tmpdir, e->d_name);
    unlink(path);
  }
  if (d) closedir(d);
  rmdir(j->tmpdir);
  j->tmpdir[0] = '\0';
}

/* Side k's dldb: the input itself when it is one, else its import. */
static int make_dldb(job *j, int k, const char *input) {
  static const char *const names[2] = {"base", "run"};
  dli_kind kind;
  int rc = dli_detect(input, &kind, j->err, j->errlen);
  if (rc) return rc;
  if (kind == DLI_DLDB) {
    snprintf(j->dldb[k], sizeof j->dldb[k], "%s", input);
    return DL_OK;
  }
  if (!j->tmpdir[0]) {
    snprintf(j->tmpdir, sizeof j->tmpdir, "%s/.dlprof_compare.tmp-XXXXXX", j->o->output_path);
    if (!mkdtemp(j->tmpdir)) {
      int e = errno;
      j->tmpdir[0] = '\0';
      return dl_err(j->err, j->errlen, DL_EIO, "--output_path: %s: %s", j->o->output_path,
                    strerror(e));
    }
  }
  dlp_opts io = *j->o;
  io.input = input;
  io.output_path = j->tmpdir;
  io.profile_name = names[k];
  io.reports = 0;
  io.dump_model_data = 0;
  io.findings = NULL;
  io.iter_note = 0;
  io.domains = NULL;
  io.force = 1;
  dlp_pipeline *p = NULL;
  rc = dlp_new(&p, j->err, j->errlen);
  if (!rc) rc = dlp_run(p, &io, j->err, j->errlen);
  if (!rc) snprintf(j->dldb[k], sizeof j->dldb[k], "%s", dlp_dldb_path(p));
  dlp_free(&p);
  return rc;
}

static int file_sink(void *ctx, const char *buf, size_t len) {
  return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : 1;
}

/* Writes the comparison in format f to a temporary file beside its destination. */
static int write_one(job *j, dldb *cmp, int f) {
  static const char *const suffix[2] = {"_compare.csv", "_compare.json"};
  snprintf(j->dest[f], sizeof j->dest[f], "%s/%s%s", j->o->output_path, j->o->profile_name,
           suffix[f]);
  struct stat sb;
  if (stat(j->dest[f], &sb) == 0 && (S_ISDIR(sb.st_mode) || !j->o->force))
    return dl_err(j->err, j->errlen, DL_EEXIST, "%s exists%s", j->dest[f],
                  S_ISDIR(sb.st_mode) ? " and is a directory" : " (use --force=true to replace it)");
  snprintf(j->tmp[f], sizeof j->tmp[f], "%s.tmp-XXXXXX", j->dest[f]);
  int fd = mkstemp(j->tmp[f]);
  if (fd < 0) {
    int e = errno;
    j->tmp[f][0] = '\0';
    return dl_err(j->err, j->errlen, DL_EIO, "%s: %s", j->dest[f], dl_create_reason(j->dest[f], e));
  }
  mode_t um = umask(0); /* mkstemp creates 0600; give the output 0666 & ~umask */
  umask(um);
  (void)fchmod(fd, 0666 & ~um);
  FILE *fp = fdopen(fd, "w");
  if (!fp) {
    close(fd);
    return dl_err(j->err, j->errlen, DL_EIO, "%s: %s", j->dest[f], strerror(errno));
  }
  errno = 0;
  int rc = dlr_compare_write(cmp, f ? DLR_JSON : DLR_CSV, file_sink, fp, j->err, j->errlen);
  int werr = ferror(fp) ? errno : 0; /* a full disk: EFBIG, ENOSPC */
  if (werr && rc != DL_OK)
    rc = dl_err(j->err, j->errlen, DL_EIO, "%s: write failed: %s", j->dest[f], strerror(werr));
  if (fclose(fp) != 0 && !rc)
    rc = dl_err(j->err, j->errlen, DL_EIO, "%s: write failed: %s", j->dest[f], strerror(errno));
  return rc;
}

/* ---- The result ----------------------------------------------------------- */

static double row_real(const dldb_row *row, int i) {
  int t = dldb_row_type(row, i);
  return t == DLDB_COL_REAL ? dldb_row_real(row, i) : t == DLDB_COL_INTEGER ? (double)dldb_row_int(row, i) : NAN;
}

static void summary_text(char *buf, size_t len, const dldb_row *row, int i) {
  snprintf(buf, len, "%s", dldb_row_text(row, i));
}

static int summary_row(void *ctx, const dldb_row *row) {
  dlp_compare_result *r = ctx;
  static const char *const statuses[4] = {"added", "removed", "changed", "same"};
  for (int i = 0; i < dldb_row_count(row); i++) {
    const char *n = dldb_row_name(row, i);
    double v = row_real(row, i);
    if (!strcmp(n, "base_iterations")) r->base_iterations = (int64_t)v;
    else if (!strcmp(n, "iterations")) r->iterations = (int64_t)v;
    else if (!strcmp(n, "base_iter_mean_ns")) r->base_mean_ns = v;
    else if (!strcmp(n, "iter_mean_ns")) r->mean_ns = v;
    else if (!strcmp(n, "iter_mean_diff_pct")) r->diff_pct = v;
    else if (!strcmp(n, "iter_mean_diff_ci_low_pct")) r->ci_low_pct = v;
    else if (!strcmp(n, "iter_mean_diff_ci_high_pct")) r->ci_high_pct = v;
    else if (!strcmp(n, "notes")) summary_text(r->notes, sizeof r->notes, row, i);
    else if (!strcmp(n, "findings_appeared"))
      summary_text(r->findings_appeared, sizeof r->findings_appeared, row, i);
    else if (!strcmp(n, "findings_gone")) summary_text(r->findings_gone, sizeof r->findings_gone, row, i);
    for (int s = 0; s < 4; s++) {
      char kn[32], on[32];
      snprintf(kn, sizeof kn, "kernels_%s", statuses[s]);
      snprintf(on, sizeof on, "ops_%s", statuses[s]);
      if (!strcmp(n, kn)) r->kernels_by_status[s] = (int64_t)v;
      if (!strcmp(n, on)) r->ops_by_status[s] = (int64_t)v;
    }
  }
  r->has_ci = isfinite(r->ci_low_pct) && isfinite(r->ci_high_pct);
  return 1;
}

/* Collects the first DLP_COMPARE_TOP rows that are not 'same'. */
typedef struct top {
  dlp_compare_change *c;
  int *n;
} top;

static int change_row(void *ctx, const dldb_row *row) {
  top *t = ctx;
  dlp_compare_change *c = &t->c[*t->n];
  char type[128] = "", dir[32] = "";
  memset(c, 0, sizeof *c);
  for (int i = 0; i < dldb_row_count(row); i++) {
    const char *n = dldb_row_name(row, i);
    if (!strcmp(n, "kernel_name") || !strcmp(n, "op_node_name"))
      snprintf(c->name, sizeof c->name, "%s", dldb_row_text(row, i));
    else if (!strcmp(n, "op_node_type")) snprintf(type, sizeof type, "%s", dldb_row_text(row, i));
    else if (!strcmp(n, "direction")) snprintf(dir, sizeof dir, "%s", dldb_row_text(row, i));
    else if (!strcmp(n, "status")) snprintf(c->status, sizeof c->status, "%s", dldb_row_text(row, i));
    else if (!strcmp(n, "base_calls")) c->base_calls = dldb_row_int(row, i);
    else if (!strcmp(n, "calls")) c->calls = dldb_row_int(row, i);
    else if (!strcmp(n, "base_gpu_time")) c->base_gpu_time_ns = dldb_row_int(row, i);
    else if (!strcmp(n, "gpu_time")) c->gpu_time_ns = dldb_row_int(row, i);
  }
  if (!strcmp(c->status, "same")) return 0;
  if (type[0] || dir[0]) {
    size_t l = strlen(c->name);
    snprintf(c->name + l, sizeof c->name - l, " (%s, %s)", type, dir);
  }
  return ++*t->n == DLP_COMPARE_TOP;
}

static int read_result(job *j, dldb *cmp, dlp_compare_result *r) {
  dldb_query q = {.view = "dl_compare_summary", .aggr_id = -1, .limit = 1};
  int rc = dldb_query_rows(cmp, &q, summary_row, r, j->err, j->errlen);
  top tk = {r->kernels, &r->n_kernels}, to = {r->ops, &r->n_ops};
  q = (dldb_query){.view = "dl_compare_kernels", .aggr_id = -1, .limit = -1};
  if (!rc) rc = dldb_query_rows(cmp, &q, change_row, &tk, j->err, j->errlen);
  q.view = "dl_compare_ops";
  if (!rc) rc = dldb_query_rows(cmp, &q, change_row, &to, j->err, j->errlen);
  return rc;
}

/* ---- The run -------------------------------------------------------------- */

int dlp_compare(const dlp_opts *o, const char *base, dlp_compare_result *res, char *err,
                size_t errlen) {
  job *j = calloc(1, sizeof *j);
  dldb *cmp = NULL;
  memset(res, 0, sizeof *res);
  res->base_mean_ns = res->mean_ns = res->diff_pct = res->ci_low_pct = res->ci_high_pct = NAN;
  if (!j) return dl_err(err, errlen, DL_ENOMEM, "compare: out of memory");
  *j = (job){.o = o, .err = err, .errlen = errlen};
  int rc = !base || !*base ? dl_err(err, errlen, DL_EINVAL, "--compare_to: no file given")
           : !o->input     ? dl_err(err, errlen, DL_EINVAL, "--compare_to needs --database")
                           : DL_OK;
  if (!rc) rc = make_dldb(j, 0, base);
  if (!rc) rc = make_dldb(j, 1, o->input);
  const char *names[2] = {base, o->input};
  if (!rc) rc = dldb_compare_files(j->dldb[0], j->dldb[1], names, &cmp, err, errlen);
  for (int f = 0; f < 2 && !rc; f++)
    if (f ? o->json : o->csv) rc = write_one(j, cmp, f);
  if (!rc) rc = read_result(j, cmp, res);
  for (int f = 0; f < 2; f++) {
    if (!j->tmp[f][0]) continue;
    if (!rc && rename(j->tmp[f], j->dest[f]) != 0)
      rc = dl_err(err, errlen, DL_EIO, "%s: %s", j->dest[f], strerror(errno));
    if (rc) unlink(j->tmp[f]);
    else snprintf(res->outputs[f], sizeof res->outputs[f], "%s", j->dest[f]);
  }
  dldb_close(&cmp);
  remove_tmpdir(j);
  free(j);
  return rc;
}

int dlp_compare_regressed(const dlp_compare_result *res, double pct) {
  return res->has_ci && res->ci_low_pct > pct;
}
