/* dlp_merge.c - a folder of per-rank dldbs as the input (dlp_internal.h):
 * each node of a job imports its own ranks' traces into a dldb, and
 * `dlprof --database=DIR` merges the folder's dldbs (in name order, each a
 * process of the profile) into a new one without reading the traces again,
 * then aggregates it as a folder of traces would be. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dldb_merge.h"
#include "dli.h"
#include "dli_kineto.h"
#include "dlp_internal.h"

/* Without --key_op: the first dldb's own key op (its newest aggregation's:
 * a Kineto dldb's ProfilerStep#), else the mode's ("": dla's default). */
static void own_key_op(dlp_pipeline *p, const char *first) {
  dldb *db = NULL;
  dldb_info info;
  p->dldb_key_op[0] = '\0';
  if (dldb_open_ro_written(first, &db, &info, NULL, 0) == DL_OK)
    snprintf(p->dldb_key_op, sizeof p->dldb_key_op, "%s", info.default_key_op);
  dldb_close(&db);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_list(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* The dldbs of folder dir (*.sqlite files that are dldbs, not temporary
 * files, not skip), sorted by name; NULL and *n = 0 when none (or out of
 * memory: *oom). */
static char **list_dldbs(const char *dir, const char *skip, size_t *n, int *oom) {
  DIR *d = opendir(dir);
  char **v = NULL, rskip[PATH_MAX], rfull[PATH_MAX];
  size_t cap = 0;
  int have_skip = skip && realpath(skip, rskip) != NULL;
  *n = 0;
  *oom = 0;
  if (!d) return NULL;
  struct dirent *e;
  while (!*oom && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 8 || strcmp(e->d_name + len - 7, ".sqlite") != 0 || strstr(e->d_name, ".tmp-"))
      continue;
    char full[PATH_MAX];
    dli_kind kind;
    char err[8];
    if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full) continue;
    if (have_skip && realpath(full, rfull) && strcmp(rfull, rskip) == 0) continue;
    if (dli_detect(full, &kind, err, sizeof err) != DL_OK || kind != DLI_DLDB) continue;
    char **nv = *n == cap ? realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *nv) : v;
    char *copy = nv ? strdup(full) : NULL;
    if (nv) v = nv;
    if (!copy) *oom = 1;
    else v[(*n)++] = copy;
  }
  closedir(d);
  if (*oom) {
    free_list(v, *n);
    *n = 0;
    return NULL;
  }
  if (*n) qsort(v, *n, sizeof *v, by_name);
  return v;
}

int dlp_is_dldb_dir(const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode) || dli_kineto_is_trace_dir(path)) return 0;
  size_t n;
  int oom;
  char **v = list_dldbs(path, NULL, &n, &oom);
  free_list(v, n);
  return n > 0;
}

int dlp_step_merge(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  size_t n = 0;
  int oom;
  char **v = list_dldbs(o->input, p->dldb, &n, &oom);
  int rc = oom ? dl_err(p->err, p->errlen, DL_ENOMEM, "out of memory")
           : n == 0 ? dl_err(p->err, p->errlen, DL_ENOTFOUND, "%s: no dldb to merge", o->input)
                    : DL_OK;
  int64_t origin = 0;
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    int64_t t;
    rc = dldb_merge_origin(v[i], &t, p->err, p->errlen);
    if (rc == DL_OK && (i == 0 || t < origin)) origin = t;
  }
  dldb_write_opts wo = {.force = o->force, .producer = "dlprof " DL_VERSION,
                        .source = o->input, .time_origin_ns = origin};
  if (rc == DL_OK) rc = dldb_writer_create(p->dldb, &wo, &p->w, p->err, p->errlen);
  if (rc == DL_OK) own_key_op(p, v[0]);
  for (size_t i = 0; rc == DL_OK && i < n; i++) {
    if (o->progress) o->progress(o->progress_ctx, "merging dldbs", (int64_t)i, (int64_t)n);
    rc = dldb_merge_add(p->w, v[i], (int)i, p->err, p->errlen);
  }
  free_list(v, n);
  if (rc == DL_OK) rc = dldb_merge_command(p->w, o->command, p->err, p->errlen);
  if (rc != DL_OK) return rc;
  p->key_op = o->key_op && *o->key_op ? o->key_op : p->dldb_key_op[0] ? p->dldb_key_op : NULL;
  if (p->key_op) dlp_emit(p, &(dlp_event){.kind = DLP_EV_AGGREGATING_KEY, .text = p->key_op});
  else dlp_emit(p, &(dlp_event){.kind = DLP_EV_AGGREGATING});
  return DL_OK;
}
