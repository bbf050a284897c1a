/* dla_ranksteps.c - each GPU's own iterations (dla_ranksteps.h). */
#include "dla_ranksteps.h"

#include <stdlib.h>

typedef struct pstep {
  int64_t pid, start, end;
  int64_t name_id;
} pstep;

static int cmp_pstep(const void *x, const void *y) {
  const pstep *a = x, *b = y;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  return (a->start > b->start) - (a->start < b->start);
}

/* The steps of every process, by process and start; *n of them, *procs
 * processes. NULL and *n 0 when there are none, or out of memory (*n 1). */
static pstep *process_steps(const dla_ctx *c, size_t *n, size_t *procs) {
  size_t m = 0;
  *procs = 0;
  for (size_t i = 0; i < c->nr; i++) m += c->r[i].kind == DLA_TEXT_STEP;
  *n = m;
  if (m == 0) return NULL;
  pstep *s = malloc(m * sizeof *s);
  if (!s) return NULL;
  size_t j = 0;
  for (size_t i = 0; i < c->nr; i++) {
    const dla_range *r = &c->r[i];
    if (r->kind == DLA_TEXT_STEP)
      s[j++] = (pstep){c->thr[dla__range_th(r)].pid, r->start, r->end, r->name_id};
  }
  dla__qsort(s, m, sizeof *s, cmp_pstep);
  for (size_t i = 0; i < m; i++) *procs += i == 0 || s[i].pid != s[i - 1].pid;
  return s;
}

/* The process of each GPU: that of the first of its kernels launched
 * inside a range; -1: none. */
static int gpu_pids(const dla_ctx *c, int64_t *pid) {
  dl_map dev;
  dl_map_init(&dev);
  int rc = DL_OK;
  for (int g = 0; g < c->ngpus; g++) {
    pid[g] = -1;
    if (dl_map_put(&dev, (uint64_t)(uint32_t)c->gpu_ids[g], g)) rc = DL_ENOMEM;
  }
  for (size_t i = 0; rc == DL_OK && i < c->nk; i++) {
    int32_t range = dla__kern_range(c, &c->k[i]);
    if (range < 0) continue;
    int64_t g = dl_map_get(&dev, (uint64_t)(uint32_t)dla__kern_device(c, &c->k[i]));
    if (g >= 0 && pid[g] < 0) pid[g] = c->thr[dla__range_th(&c->r[range])].pid;
  }
  dl_map_free(&dev);
  return rc;
}

/* The first of process pid's steps in s (n of them), or n. */
static size_t first_of(const pstep *s, size_t n, int64_t pid) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].pid < pid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* GPU g's own steps from p (niter of them, its process's, in order):
 * host spans moved to device time by the GPU's kernels launched inside
 * them, then bounds as dla_spans.c makes them. */
static int own_steps(const dla_ctx *c, int g, const pstep *p, dla_steps *out) {
  int64_t n = c->niter;
  out->bound = malloc((size_t)(n + 1) * sizeof *out->bound);
  out->end = malloc((size_t)n * sizeof *out->end);
  if (!out->bound || !out->end) return DL_ENOMEM;
  for (int64_t i = 0; i < n; i++) out->end[i] = p[i].end;
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    if (dla__kern_device(c, k) != c->gpu_ids[g]) continue;
    int64_t t = dla__kern_api_start(c, k), lo = 0, hi = n;
    while (lo < hi) { /* the last step starting at or before t */
      int64_t mid = lo + (hi - lo) / 2;
      if (p[mid].start <= t) lo = mid + 1;
      else hi = mid;
    }
    if (lo == 0 || t > p[lo - 1].end) continue; /* launched inside no step */
    if (dla__kern_end(c, k) > out->end[lo - 1]) out->end[lo - 1] = dla__kern_end(c, k);
  }
  out->bound[0] = p[0].start;
  for (int64_t i = 0; i < n; i++) {
    if (out->end[i] < out->bound[i]) out->end[i] = out->bound[i];
    int64_t next = i + 1 < n ? p[i + 1].start : out->end[i];
    out->bound[i + 1] = next > out->end[i] ? next : out->end[i];
  }
  return DL_OK;
}

/* Whether process steps p (n of them) are the profile's iterations, in
 * order and by name. */
static int same_steps(const dla_ctx *c, const pstep *p, size_t n) {
  if ((int64_t)n != c->niter) return 0;
  for (size_t i = 0; i < n; i++)
    if (p[i].name_id != c->iter_name[i] || (i > 0 && p[i].start < p[i - 1].end)) return 0;
  return 1;
}

int dla__gpu_steps(const dla_ctx *c, dla_steps *s) {
  for (int g = 0; g < c->ngpus; g++) s[g] = (dla_steps){NULL, NULL};
  if (!c->o->key_op_spans || !c->key_op_found || !c->iter_name || c->ngpus < 2) return DL_OK;
  size_t n = 0, procs = 0;
  pstep *p = process_steps(c, &n, &procs);
  if (!p) return n ? DL_ENOMEM : DL_OK;
  int64_t pid[DLA_MAX_GPUS];
  int rc = procs >= 2 ? gpu_pids(c, pid) : DL_OK;
  for (int g = 0; rc == DL_OK && procs >= 2 && g < c->ngpus; g++) {
    if (pid[g] < 0) continue;
    size_t a = first_of(p, n, pid[g]), b = a;
    while (b < n && p[b].pid == pid[g]) b++;
    if (same_steps(c, p + a, b - a)) rc = own_steps(c, g, p + a, &s[g]);
  }
  free(p);
  if (rc != DL_OK) dla__gpu_steps_free(s, c->ngpus);
  return rc;
}

int32_t dla__steps_iter_of(const dla_steps *s, int64_t niter, int64_t t) {
  int64_t lo = 1, hi = niter; /* the number of boundaries b[1..niter-1] <= t */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (s->bound[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return (int32_t)(lo - 1);
}

void dla__gpu_steps_free(dla_steps *s, int n) {
  for (int g = 0; g < n; g++) {
    free(s[g].bound);
    free(s[g].end);
    s[g] = (dla_steps){NULL, NULL};
  }
}
