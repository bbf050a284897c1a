/*
 * dla_iter.c - the iterations: the profile's span, its iteration
 * boundaries (the key op's stop times, or its spans: dla_spans.c), the
 * aggregated window (dla_opts.iter_start, iter_stop) and a cut-off last
 * step left out of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dla_iter.h"
#include "dla_spans.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Iteration boundaries from the key op's stop times (N stops: N + 1
 * iterations), or one iteration over the whole profile. */
static int split_iterations(dla_ctx *c, int64_t pstart, int64_t pend) {
  const char *key = dla__key_op(c);
  if (key && !*key) key = NULL;
  if (key && c->o->key_op_spans) /* Kineto: one iteration per ProfilerStep#N */
    return dla__split_spans(c, pstart, pend);
  char *is_key = calloc(c->nops + 1, 1);
  if (!is_key) return DL_ENOMEM;
  if (key)
    for (size_t i = 0; i < c->nops; i++)
      is_key[i] = strcmp(c->ops[i].path, key) == 0 || strcmp(c->ops[i].type, key) == 0 ||
                  dla_opname_key_match(key, c->ops[i].path);
  size_t n = 0;
#define IS_KEY(x) ((x)->inst >= 0 && &c->r[(x)->inst] == (x) && (x)->op >= 0 && is_key[(x)->op])
  for (size_t i = 0; key && i < c->nr; i++) n += IS_KEY(&c->r[i]);
  c->bound = malloc((n + 2) * sizeof *c->bound);
  if (!c->bound) {
    free(is_key);
    return DL_ENOMEM;
  }
  c->bound[0] = pstart;
  size_t j = 1;
  for (size_t i = 0; key && i < c->nr; i++)
    if (IS_KEY(&c->r[i])) c->bound[j++] = c->r[i].end;
#undef IS_KEY
  free(is_key);
  dla__qsort(c->bound + 1, n, sizeof *c->bound, cmp_i64);
  c->bound[n + 1] = pend > c->bound[n] ? pend : c->bound[n];
  c->niter = (int64_t)n + 1;
  c->key_op_found = key && n > 0;
  return DL_OK;
}

/* A PyTorch profiler trace often ends inside a step: the profiler stops
 * right after the last step() call began the next ProfilerStep#N span. Its
 * iteration (the last) is a cut-off step when it is shorter than
 * DLA_CUT_STEP_PCT of the median of the others and no GPU work runs or is
 * launched in it. 1 with its length and that median, else 0. */
static int cut_off_last_step(const dla_ctx *c, int64_t *len, int64_t *median) {
  int64_t n = c->niter;
  if (!c->o->key_op_spans || !c->key_op_found || n < 2) return 0;
  int64_t from = c->bound[n - 1];
  *len = dla__iter_dur(c, n - 1);
  for (size_t i = 0; i < c->nk; i++)
    if (dla__kern_end(c, &c->k[i]) > from || dla__kern_api_start(c, &c->k[i]) >= from) return 0;
  for (size_t i = 0; i < c->nm; i++)
    if (c->m[i].end > from) return 0;
  int64_t *d = malloc((size_t)(n - 1) * sizeof *d);
  if (!d) return 0; /* no memory: no finding, the range as asked */
  for (int64_t i = 0; i < n - 1; i++) d[i] = dla__iter_dur(c, i);
  *median = dla__median_i64(d, (size_t)(n - 1));
  free(d);
  return (double)*len < (double)*median * DLA_CUT_STEP_PCT / 100.0;
}

static void profile_span(const dla_ctx *c, int64_t *pstart, int64_t *pend) {
  int64_t lo = 0, hi = 0;
  for (size_t i = 0; i < c->nr; i++) {
    if (c->r[i].start < lo) lo = c->r[i].start;
    if (c->r[i].end > hi) hi = c->r[i].end;
  }
  for (size_t i = 0; i < c->na; i++) {
    if (c->a[i].start < lo) lo = c->a[i].start;
    if (dla__api_end(c, &c->a[i]) > hi) hi = dla__api_end(c, &c->a[i]);
  }
  for (size_t i = 0; i < c->nk; i++) {
    if (c->k[i].gpu_start < lo) lo = c->k[i].gpu_start;
    if (dla__kern_end(c, &c->k[i]) > hi) hi = dla__kern_end(c, &c->k[i]);
  }
  for (size_t i = 0; i < c->nm; i++) {
    if (c->m[i].start < lo) lo = c->m[i].start;
    if (c->m[i].end > hi) hi = c->m[i].end;
  }
  *pstart = lo;
  *pend = hi;
}


/* The window of aggregated iterations, as asked; a cut-off last step is
 * left out unless asked for. DL_EINVAL: an empty window. */
static int window(dla_ctx *c, dla_cut *cut) {
  c->iter_start = c->o->iter_start < 0 ? 0 : c->o->iter_start;
  c->iter_stop = c->o->iter_stop < 0 || c->o->iter_stop >= c->niter ? c->niter - 1 : c->o->iter_stop;
  cut->len = cut->median = 0;
  cut->last = c->o->iter_stop < 0 && cut_off_last_step(c, &cut->len, &cut->median) &&
              c->iter_start <= c->niter - 2;
  if (cut->last) c->iter_stop = c->niter - 2;
  if (c->iter_start > c->iter_stop) {
    char stop[32] = "the last";
    if (c->o->iter_stop >= 0) snprintf(stop, sizeof stop, "%lld", (long long)c->o->iter_stop);
    return dl_err(c->err, c->errlen, DL_EINVAL,
                  "dla_aggregate: no iterations %lld to %s: the profile has %lld (0 to %lld)",
                  (long long)(c->o->iter_start < 0 ? 0 : c->o->iter_start), stop,
                  (long long)c->niter, (long long)c->niter - 1);
  }
  c->wall_start = c->bound[c->iter_start];
  c->wall_end = dla__iter_end(c, c->iter_stop);
  c->wall_ns = 0;
  for (int64_t i = c->iter_start; i <= c->iter_stop; i++) c->wall_ns += dla__iter_dur(c, i);
  return DL_OK;
}

int dla__iter_split(dla_ctx *c, dla_cut *cut) {
  dla__progress(c, "analysing the timeline", 0, 1);
  int64_t pstart, pend;
  profile_span(c, &pstart, &pend);
  int rc = split_iterations(c, pstart, pend);
  return rc ? rc : window(c, cut);
}
