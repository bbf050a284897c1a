/*
 * dla_ctx.c - the context's shared helpers (dla_ctx.h): iteration index,
 * op registry, progress, thread and range lookup, long durations, the
 * calls' own ops, and freeing the context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dla_ctx.h"
#include "dla_tc.h"
#include "dldb_scan.h"

const char *dla_default_key_op(const char *mode) {
  return mode && !strncmp(mode, "tensorflow", 10) ? "global_step" : NULL;
}


int32_t dla__iter_of(const dla_ctx *c, int64_t t) {
  /* the number of boundaries b[1..niter-1] <= t */
  int64_t lo = 1, hi = c->niter; /* search in b[1..niter-1] */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (c->bound[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return (int32_t)(lo - 1);
}


/* ---- Ops ------------------------------------------------------------------ */

static int contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return 1;
  return 0;
}

int dla__op_new(dla_ctx *c, const char *key, const char *path, const char *type,
                const char *direction, const char *data_type, const char *stack, int32_t *out) {
  size_t cap = c->opcap;
  if (DLA_GROW(c->ops, c->nops, cap)) return DL_ENOMEM;
  c->opcap = cap;
  dla_op *op = &c->ops[c->nops];
  memset(op, 0, sizeof *op);
  op->key = strdup(key);
  op->path = strdup(path);
  op->type = strdup(type);
  op->stack = strdup(stack ? stack : "");
  if (!op->key || !op->path || !op->type || !op->stack ||
      dl_smap_put(&c->op_by_path, op->key, (int64_t)c->nops)) {
    free(op->key);
    free(op->path);
    free(op->type);
    free(op->stack);
    return DL_ENOMEM;
  }
  op->direction = direction;
  snprintf(op->data_type, sizeof op->data_type, "%s", data_type ? data_type : "");
  op->cpu_min = op->gpu_min = INT64_MAX;
  op->first_start = INT64_MAX;
  op->eligible = dla_tc_op_eligible(type);
  op->dataloader = contains_ci(path, "dataloader");
  *out = (int32_t)c->nops++;
  return DL_OK;
}

/* A new "unassociated_<api name>" op for one API call outside every op
 * instance (DLProf makes one node per call); name_id 0: unknown API. */
int dla__op_for_call(dla_ctx *c, int64_t name_id, int64_t idx, int64_t start, int32_t *out) {
  const char *api = name_id > 0 ? dldb_writer_string(c->w, name_id) : NULL;
  if (!api) api = "unknown_api";
  size_t n = strlen(api) + 48;
  char *path = malloc(2 * n);
  if (!path) return DL_ENOMEM;
  char *key = path + n;
  snprintf(path, n, "unassociated_%s", api);
  snprintf(key, n, "\002%lld", (long long)idx);
  int64_t found = idx < 0 ? dl_smap_get(&c->op_by_path, key) : -1;
  int rc = DL_OK;
  if (found >= 0) *out = (int32_t)found;
  else rc = dla__op_new(c, key, path, api, "", "", "", out);
  if (rc == DL_OK && start < c->ops[*out].first_start) c->ops[*out].first_start = start;
  free(path);
  return rc;
}


void dla__progress(dla_ctx *c, const char *what, int64_t done, int64_t total) {
  if (c->o->progress) c->o->progress(c->o->progress_ctx, what, done, total);
}


int dla__tick_start(dla_tick *t, const char *what, const char *table, void **arr, size_t *cap,
                    size_t elem, int64_t more) {
  t->n = 0;
  t->what = what;
  int64_t rows = dldb_scan_estimate(t->c->w, table);
  t->total = rows + more;
  dla__progress(t->c, what, 0, t->total);
  if (arr && *cap < (size_t)rows && rows < ((int64_t)1 << 34)) {
    void *p = realloc(*arr, (size_t)rows * elem);
    if (!p) return DL_ENOMEM;
    dl_advise_huge(p, (size_t)rows * elem);
    *arr = p;
    *cap = (size_t)rows;
  }
  return DL_OK;
}

int32_t dla__thread_of(const dla_ctx *c, int64_t pid, int64_t tid) {
  size_t lo = 0, hi = c->nthr;
  dla_thread key = {.pid = pid, .tid = tid};
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int d = dla__thread_cmp(&c->thr[mid], &key);
    if (d == 0) return (int32_t)mid;
    if (d < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}


int32_t dla__find_range(const dla_ctx *c, int64_t pid, int64_t tid, int64_t start, int64_t end,
                        int64_t name_id) {
  int32_t th = dla__thread_of(c, pid, tid);
  if (th < 0) return -1;
  uint32_t tk = c->thr[th].tk;
  size_t lo = 0, hi = c->nr;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (dla__range_cmp_key(c, &c->r[mid], tk, start, end) < 0) lo = mid + 1;
    else hi = mid;
  }
  int32_t found = -1;
  for (size_t i = lo; i < c->nr && dla__range_cmp_key(c, &c->r[i], tk, start, end) == 0; i++)
    if (dla__range_th(&c->r[i]) == (uint32_t)th && (name_id < 0 || c->r[i].name_id == name_id))
      found = (int32_t)i;
  return found;
}


size_t dla__own_index(const dla_ctx *c, int32_t ai) {
  size_t lo = 0, hi = c->nown;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->own[mid].call < ai) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int64_t dla__long_dur(const dla_long *v, size_t n, int32_t idx) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].idx < idx) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && v[lo].idx == idx ? v[lo].dur : 0;
}

int dla__put_dur(uint32_t *dur, int64_t d, int32_t idx, dla_long **v, size_t *n, size_t *cap) {
  if (d >= 0 && d < (int64_t)DLA_LONG) {
    *dur = (uint32_t)d;
    return 0;
  }
  if (*n == *cap) {
    size_t ncap = *cap ? 2 * *cap : 64;
    dla_long *p = realloc(*v, ncap * sizeof *p);
    if (!p) return -1;
    *v = p;
    *cap = ncap;
  }
  (*v)[(*n)++] = (dla_long){.dur = d, .idx = idx};
  *dur = DLA_LONG;
  return 0;
}

int32_t dla__call_own_op(const dla_ctx *c, int32_t ai) {
  size_t j = dla__own_index(c, ai);
  return j < c->nown && c->own[j].call == ai ? c->own[j].op : -1;
}

void dla__ctx_free(dla_ctx *c) {
  dl_smap_free(&c->op_by_path);
  for (size_t i = 0; i < c->nops; i++) {
    free(c->ops[i].key);
    free(c->ops[i].stack);
    free(c->ops[i].path);
    free(c->ops[i].type);
    free(c->ops[i].node_id);
    free(c->ops[i].in_shapes);
    free(c->ops[i].params);
    free(c->ops[i].out_shapes);
  }
  free(c->ops);
  free(c->r);
  free(c->thr);
  free(c->a);
  free(c->along);
  free(c->klong);
  free(c->own);
  free(c->k);
  free(c->kid);
  free(c->kcfg);
  free(c->m);
  free(c->bound);
  free(c->iter_name);
  free(c->iter_end);
  free(c->op_total);
  free(c->op_self);
  free(c->op_calls);
  free(c->iter_cat);
  c->ops = NULL;
  c->r = NULL;
  c->thr = NULL;
  c->a = NULL;
  c->along = c->klong = NULL;
  c->own = NULL;
  c->k = NULL;
  c->kid = NULL;
  c->kcfg = NULL;
  c->m = NULL;
  c->iter_end = c->op_total = c->op_self = c->op_calls = NULL;
  c->bound = c->iter_name = c->iter_cat = NULL;
  c->nops = c->nr = c->nthr = c->na = c->nalong = c->nklong = c->nown = c->nk = 0;
  c->nkcfg = c->nm = 0;
}
