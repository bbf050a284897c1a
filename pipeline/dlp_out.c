/* dlp_out.c - the pipeline's outputs: their paths, the check of existing
 * ones, and the reports, each written to a temporary file beside its
 * destination and renamed into place with the others (dlp_internal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dldb.h"
#include "dlp_internal.h"
#include "dlr.h"
#include "dlr_chrome.h"
#include "dlr_model.h"
#include "dlr_stats.h"

int dlp_report_count(void) { return dlr_report_count() + dlr_stats_count(); }

const char *dlp_report_name(int i) {
  return i < dlr_report_count() ? dlr_report_name(i) : dlr_stats_name(i - dlr_report_count());
}

unsigned dlp_report_mask(const char *name) {
  unsigned dlprof = (1u << dlr_report_count()) - 1;
  if (!strcmp(name, "all")) return dlprof;
  if (!strcmp(name, "stats")) return ((1u << dlp_report_count()) - 1) & ~dlprof;
  unsigned m = 0;
  for (int i = 0; i < dlp_report_count(); i++)
    if (!strcmp(name, dlp_report_name(i))) m |= 1u << i;
  return m;
}

void dlp_out_path(const dlp_opts *o, const char *suffix, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s%s", o->output_path, o->profile_name, suffix);
}

/* DLProf's report file name "dlprof_x.csv" with our profile name as prefix
 * and infix after it ("" or a domain's, dlp_domain_infix). */
static void report_path(const dlp_opts *o, const char *infix, const char *name, dlr_format fmt,
                        char *buf, size_t len) {
  const char *file = dlr_report_file(name, fmt); /* "dlprof_summary.csv" */
  const char *rest = strchr(file, '_');
  snprintf(buf, len, "%s/%s%s%s", o->output_path, o->profile_name, infix, rest ? rest : file);
}

/* The model data's path, with infix as report_path. */
static void model_path(const dlp_opts *o, const char *infix, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s%s%s", o->output_path, o->profile_name, infix, DLP_MODEL_DATA_SUFFIX);
}

/* The Chrome trace's path (one a run, whatever the domains). */
static void chrome_path(const dlp_opts *o, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s%s", o->output_path, o->profile_name, DLP_CHROME_SUFFIX);
}

/* Bit i of o->reports in format f (0: CSV, 1: JSON) is asked for. */
static int wanted(const dlp_opts *o, int i, int f) {
  return (o->reports & (1u << i)) && (f == 0 ? o->csv : o->json);
}

/* An output that exists: refused without force, and always when it is a
 * directory (nothing can replace it: found now, not after the dldb). */
static int check_output(const dlp_opts *o, const char *path, char *err, size_t errlen) {
  struct stat sb;
  if (stat(path, &sb) != 0) return DL_OK;
  if (S_ISDIR(sb.st_mode))
    return dl_err(err, errlen, DL_EEXIST, "%s: is a directory, not an output file", path);
  if (!o->force)
    return dl_err(err, errlen, DL_EEXIST, "%s: exists; use --force=true to replace it", path);
  return DL_OK;
}

/* The outputs of one domain (infix: dlp_domain_infix's, "" without --domains). */
static int check_domain(const dlp_opts *o, const char *infix, char *err, size_t errlen) {
  char path[PATH_MAX];
  int rc = DL_OK;
  if (o->dump_model_data) {
    model_path(o, infix, path, sizeof path);
    rc = check_output(o, path, err, errlen);
  }
  for (int i = 0; i < dlp_report_count() && rc == DL_OK; i++)
    for (int f = 0; f < 2 && rc == DL_OK; f++) {
      if (!wanted(o, i, f)) continue;
      report_path(o, infix, dlp_report_name(i), (dlr_format)f, path, sizeof path);
      rc = check_output(o, path, err, errlen);
    }
  return rc;
}

int dlp_check_outputs(const dlp_opts *o, const char *dldb_path, char *err, size_t errlen) {
  char name[DLP_DOMAIN_MAX], infix[DLP_DOMAIN_MAX + 1], path[PATH_MAX];
  int rc = dldb_path ? check_output(o, dldb_path, err, errlen) : DL_OK;
  if (rc == DL_OK && o->export_chrome) {
    chrome_path(o, path, sizeof path);
    rc = check_output(o, path, err, errlen);
  }
  if (!o->domains) return rc == DL_OK ? check_domain(o, "", err, errlen) : rc;
  for (int k = 0; rc == DL_OK && dlp_domain_at(o, k, name, sizeof name); k++) {
    dlp_domain_infix(name, infix, sizeof infix);
    rc = check_domain(o, infix, err, errlen);
  }
  return rc;
}

static int file_sink(void *ctx, const char *buf, size_t len) {
  return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : 1;
}

/* What writes one output file: a report (dlr_write), the model data, or the
 * Chrome trace (of o's iterations). */
typedef int (*gen_fn)(const dlp_opts *o, dldb *db, const char *name, dlr_format fmt,
                      int64_t aggr_id, const char *domain, dlr_sink_fn sink, void *ctx, char *err,
                      size_t errlen);

static int report_gen(const dlp_opts *o, dldb *db, const char *name, dlr_format fmt,
                      int64_t aggr_id, const char *domain, dlr_sink_fn sink, void *ctx, char *err,
                      size_t errlen) {
  (void)o;
  return dlr_write(db, name, fmt, aggr_id, domain, sink, ctx, err, errlen);
}

static int model_gen(const dlp_opts *o, dldb *db, const char *name, dlr_format fmt,
                     int64_t aggr_id, const char *domain, dlr_sink_fn sink, void *ctx, char *err,
                     size_t errlen) {
  (void)o;
  (void)name;
  (void)fmt;
  return dlr_model_write(db, aggr_id, domain, sink, ctx, err, errlen);
}

static int chrome_gen(const dlp_opts *o, dldb *db, const char *name, dlr_format fmt,
                      int64_t aggr_id, const char *domain, dlr_sink_fn sink, void *ctx, char *err,
                      size_t errlen) {
  (void)name;
  (void)fmt;
  (void)aggr_id;
  (void)domain;
  return dlr_chrome_write(db, o->iter_start, o->iter_stop, sink, ctx, err, errlen);
}

/* Writes one output with gen to a temporary file beside path (its name in tmp). */
static int write_report(gen_fn gen, const dlp_opts *o, dldb *db, const char *name,
                        dlr_format fmt, int64_t aggr_id,
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
  int rc = gen(o, db, name, fmt, aggr_id, domain, file_sink, f, err, errlen);
  int werr = ferror(f) ? errno : 0; /* a full disk: EFBIG, ENOSPC */
  if (werr && rc != DL_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: write failed: %s", path, strerror(werr));
  if (fclose(f) != 0 && rc == DL_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: write failed: %s", path, strerror(errno));
  if (rc != DL_OK) unlink(tmp);
  return rc;
}

void dlp_reports_discard(dlp_report_set *rs) {
  for (int k = 0; k < rs->n; k++) unlink(rs->tmp[k]);
  rs->n = 0;
}

/* Every report asked for, from db, to temporary files (rs); infix as
 * report_path's. */
static int write_all(dlp_pipeline *p, dldb *db, int64_t aggr_id, const char *domain,
                     const char *infix) {
  const dlp_opts *o = p->o;
  dlp_report_set *rs = &p->rs;
  char path[PATH_MAX];
  for (int i = 0; i < dlp_report_count(); i++)
    for (int f = 0; f < 2; f++) {
      if (!wanted(o, i, f)) continue;
      report_path(o, infix, dlp_report_name(i), (dlr_format)f, path, sizeof path);
      dlp_emit(p, &(dlp_event){.kind = DLP_EV_WRITING_REPORT, .path = path});
      if (rs->n == DLP_MAX_REPORT_FILES) break;
      int rc = write_report(report_gen, o, db, dlp_report_name(i), (dlr_format)f, aggr_id, domain,
                            path, rs->tmp[rs->n], sizeof rs->tmp[0], p->err, p->errlen);
      if (rc != DL_OK) return rc;
      snprintf(rs->dest[rs->n++], sizeof rs->dest[0], "%s", path);
    }
  if (!o->dump_model_data || rs->n == DLP_MAX_REPORT_FILES) return DL_OK;
  model_path(o, infix, path, sizeof path);
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_WRITING_REPORT, .path = path});
  int rc = write_report(model_gen, o, db, "model_data", DLR_JSON, aggr_id, domain, path,
                        rs->tmp[rs->n], sizeof rs->tmp[0], p->err, p->errlen);
  if (rc == DL_OK) snprintf(rs->dest[rs->n++], sizeof rs->dest[0], "%s", path);
  return rc;
}

/* Each domain's reports (p->dom: this run's aggregations, or those of a
 * dldb that only gets its reports), named apart by their infix; a domain
 * without a name is the dldb's default one (def_domain). Without --domains
 * the other domains' outputs were not known when the outputs were checked:
 * they are checked here, before any is written. */
static int write_domains(dlp_pipeline *p, dldb *db, const char *def_domain) {
  int rc = DL_OK;
  for (int k = 0; !p->o->domains && rc == DL_OK && k < p->n_domains; k++)
    if (p->dom[k].infix[0]) rc = check_domain(p->o, p->dom[k].infix, p->err, p->errlen);
  for (int k = 0; rc == DL_OK && k < p->n_domains; k++) {
    const dlp_domain_aggr *d = &p->dom[k];
    rc = write_all(p, db, d->aggr_id, d->name[0] ? d->name : def_domain, d->infix);
  }
  dlp_report_set *rs = &p->rs;
  if (rc != DL_OK || !p->o->export_chrome || rs->n == DLP_MAX_REPORT_FILES) return rc;
  char path[PATH_MAX];
  chrome_path(p->o, path, sizeof path);
  dlp_emit(p, &(dlp_event){.kind = DLP_EV_WRITING_REPORT, .path = path});
  rc = write_report(chrome_gen, p->o, db, "chrome_trace", DLR_JSON, -1, NULL, path,
                    rs->tmp[rs->n], sizeof rs->tmp[0], p->err, p->errlen);
  if (rc == DL_OK) snprintf(rs->dest[rs->n++], sizeof rs->dest[0], "%s", path);
  return rc;
}

int dlp_reports_prepare(dlp_pipeline *p, const char *dldb_path, int64_t aggr_id) {
  dldb *db = NULL;
  dldb_info info;
  p->rs.n = 0;
  /* aggr_id >= 0: this run has just written the file (no quick check) */
  int rc = aggr_id >= 0 ? dldb_open_ro_written(dldb_path, &db, &info, p->err, p->errlen)
                        : dldb_open_ro(dldb_path, &db, &info, p->err, p->errlen);
  if (rc != DL_OK) return rc;
  if (aggr_id < 0 || p->n_domains == 0)
    rc = dlp_domains_of_dldb(p, db, aggr_id < 0 ? info.default_aggr_id : aggr_id,
                             info.default_domain);
  if (rc == DL_OK) rc = write_domains(p, db, info.default_domain);
  if (rc != DL_OK) dlp_reports_discard(&p->rs);
  /* DLProf printed the expert findings at the end of every run: the
   * default domain's (with --domains, the last domain's: the aggregation
   * added last) */
  const dlp_domain_aggr *f = &p->dom[p->o->domains && p->n_domains > 0 ? p->n_domains - 1 : 0];
  if (rc == DL_OK && p->o->findings) {
    dlr_write(db, "expert_systems", DLR_CSV, f->aggr_id, f->name[0] ? f->name : info.default_domain,
              p->o->findings, p->o->findings_ctx, NULL, 0);
    dlp_emit(p, &(dlp_event){.kind = DLP_EV_FINDINGS_DONE});
  }
  dldb_close(&db);
  return rc;
}

int dlp_reports_publish(dlp_pipeline *p) {
  dlp_report_set *rs = &p->rs;
  int rc = DL_OK;
  for (int k = 0; k < rs->n; k++) {
    if (rc == DL_OK && rename(rs->tmp[k], rs->dest[k]) != 0)
      rc = dl_err(p->err, p->errlen, DL_EIO, "%s: cannot rename into place: %s", rs->dest[k],
                  strerror(errno));
    if (rc != DL_OK) unlink(rs->tmp[k]);
  }
  rs->n = 0;
  return rc;
}
