/* dlp_merge.c - a folder of per-rank dldbs as the input (dlp_internal.h):
 * each node of a job imports its own ranks' traces into a dldb, and
 * `dlprof --database=DIR` merges the folder's dldbs (in name order, each a
 * process of the profile) into a new one without reading the traces again,
 * then aggregates it as a folder of traces would be. Every rank's summary
 * is read (on several cores, dldb_merge_sum.h); the raw records are merged
 * only for the ranks that matter (the slowest, the median, the fastest,
 * those of --detail_ranks, and any dldb that holds no single rank's
 * summary), so that the analysis reads a few ranks' records, not the job's. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dldb_merge.h"
#include "dldb_merge_sum.h"
#include "dldb_ranks.h"
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

/* The merge's state: per dldb, whether its raw records are merged, its
 * rank (for the choice) and its GPU's rank row (host owned). */
typedef struct merge_ctx {
  dlp_pipeline *p;
  char **v;
  size_t n;
  unsigned char *detail;
  dldb_rank_pick *pick;
  dldb_gpu_rank *gpu;
  int64_t origin;
} merge_ctx;

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int on_summary(void *ctx, size_t i, const dldb_rank_sum *s) {
  merge_ctx *m = ctx;
  if (i == 0 || s->origin_ns < m->origin) m->origin = s->origin_ns;
  if (!s->has_row) {
    m->detail[i] = 1;
    m->gpu[i].device_id = -1;
    return DL_OK;
  }
  m->pick[i] = (dldb_rank_pick){s->gpu.rank, s->row.wall_ns - s->row.exposed_comm_ns};
  m->gpu[i] = s->gpu;
  m->gpu[i].host = s->gpu.host ? strdup(s->gpu.host) : NULL;
  if (s->gpu.host && !m->gpu[i].host) return DL_ENOMEM;
  return dldb_merge_sum_write(m->p->w, s, base_name(m->v[i]), m->p->err, m->p->errlen);
}

/* --detail_ranks: "all" (*all), or ranks "R,S,..." into *asked (owned). */
static int parse_detail(const char *v, int *all, int32_t **asked, size_t *na, char *err,
                        size_t errlen) {
  *all = 0;
  *asked = NULL;
  *na = 0;
  if (!v || !*v) return DL_OK;
  if (!strcmp(v, "all")) return *all = 1, DL_OK;
  size_t cap = 1;
  for (const char *c = v; *c; c++) cap += *c == ',';
  if (!(*asked = malloc(cap * sizeof **asked))) return DL_ENOMEM;
  for (const char *c = v;;) {
    char *end;
    long r = strtol(c, &end, 10);
    if (end == c || r < 0 || r > 2000000 || (*end && *end != ','))
      return dl_err(err, errlen, DL_EINVAL, "--detail_ranks: expected all or ranks R,S,..., "
                    "got '%s'", v);
    (*asked)[(*na)++] = (int32_t)r;
    if (!*end) return DL_OK;
    c = end + 1;
  }
}

/* The ranks whose raw records are merged, then their records. */
static int merge_detail(merge_ctx *m) {
  dlp_pipeline *p = m->p;
  int all, rc;
  int32_t *asked = NULL;
  size_t na = 0, k = 0;
  dldb_rank_pick *pk = malloc((m->n + 1) * sizeof *pk);
  size_t *at = malloc((m->n + 1) * sizeof *at);
  unsigned char *d = calloc(m->n + 1, 1);
  rc = pk && at && d ? parse_detail(p->o->detail_ranks, &all, &asked, &na, p->err, p->errlen)
                     : DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < m->n; i++)
    if (!m->detail[i]) pk[k] = m->pick[i], at[k++] = i;
  if (rc == DL_OK) rc = dldb_merge_pick_detail(pk, k, asked, na, d);
  for (size_t j = 0; rc == DL_OK && j < k; j++)
    if (d[j] || all) m->detail[at[j]] = 1;
  for (size_t i = 0; rc == DL_OK && i < m->n; i++)
    rc = m->detail[i] ? (m->gpu[i].device_id >= 0
                             ? dldb_merge_sum_detail(p->w, m->gpu[i].device_id, p->err, p->errlen)
                             : DL_OK)
                      : dldb_write_gpu_rank(p->w, &m->gpu[i], p->err, p->errlen);
  if (rc == DL_OK) rc = dldb_merge_set_origin(p->w, m->origin, p->err, p->errlen);
  for (size_t i = 0; rc == DL_OK && i < m->n; i++) {
    if (p->o->progress) p->o->progress(p->o->progress_ctx, "merging dldbs", (int64_t)i, (int64_t)m->n);
    if (m->detail[i]) rc = dldb_merge_add(p->w, m->v[i], (int)i, p->err, p->errlen);
  }
  free(asked);
  free(pk);
  free(at);
  free(d);
  return rc;
}

static int cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

int dlp_step_merge(dlp_pipeline *p) {
  const dlp_opts *o = p->o;
  merge_ctx m = {.p = p};
  int oom;
  m.v = list_dldbs(o->input, p->dldb, &m.n, &oom);
  int rc = oom ? dl_err(p->err, p->errlen, DL_ENOMEM, "out of memory")
           : m.n == 0 ? dl_err(p->err, p->errlen, DL_ENOTFOUND, "%s: no dldb to merge", o->input)
                      : DL_OK;
  dldb_write_opts wo = {.force = o->force, .producer = "dlprof " DL_VERSION, .source = o->input};
  if (rc == DL_OK) {
    m.detail = calloc(m.n, 1);
    m.pick = calloc(m.n, sizeof *m.pick);
    m.gpu = calloc(m.n, sizeof *m.gpu);
    if (!m.detail || !m.pick || !m.gpu) rc = dl_err(p->err, p->errlen, DL_ENOMEM, "out of memory");
  }
  if (rc == DL_OK) rc = dldb_writer_create(p->dldb, &wo, &p->w, p->err, p->errlen);
  if (rc == DL_OK) own_key_op(p, m.v[0]);
  if (rc == DL_OK) {
    if (o->progress) o->progress(o->progress_ctx, "reading rank summaries", 0, (int64_t)m.n);
    rc = dldb_merge_read_all((const char *const *)m.v, m.n, cores(), on_summary, &m, p->err,
                             p->errlen);
  }
  if (rc == DL_OK) rc = merge_detail(&m);
  for (size_t i = 0; m.gpu && i < m.n; i++) free((char *)m.gpu[i].host);
  free(m.gpu);
  free(m.pick);
  free(m.detail);
  free_list(m.v, m.n);
  if (rc == DL_OK) rc = dldb_merge_command(p->w, o->command, p->err, p->errlen);
  if (rc != DL_OK) return rc;
  p->key_op = o->key_op && *o->key_op ? o->key_op : p->dldb_key_op[0] ? p->dldb_key_op : NULL;
  if (p->key_op) dlp_emit(p, &(dlp_event){.kind = DLP_EV_AGGREGATING_KEY, .text = p->key_op});
  else dlp_emit(p, &(dlp_event){.kind = DLP_EV_AGGREGATING});
  return DL_OK;
}
