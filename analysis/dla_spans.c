/*
 * dla_spans.c - the Kineto iteration model (dla_opts.key_op_spans): each
 * key-op span (ProfilerStep#N) is one iteration, start to end, as PyTorch's
 * profiler, the TensorBoard plugin and HTA count steps; moved to device
 * time (it ends at the end of the last kernel it launched, or where the
 * next one starts, whichever is later: peers.md D.2). The time between
 * two steps is in neither (c->iter_end).
 */
#include <stdlib.h>
#include <string.h>

#include "dla_spans.h"

typedef struct span {
  int64_t start, end;
  int32_t name_id; /* ProfilerStep#N's text: one step on several ranks shares it */
} span;

static int cmp_span_name(const void *x, const void *y) {
  const span *a = x, *b = y;
  if (a->name_id != b->name_id) return a->name_id < b->name_id ? -1 : 1;
  return (a->start > b->start) - (a->start < b->start);
}

static int cmp_span_start(const void *x, const void *y) {
  const span *a = x, *b = y;
  return (a->start > b->start) - (a->start < b->start);
}

typedef struct klaunch {
  int64_t api_start, gpu_end;
} klaunch;

static int cmp_kern_launch(const void *x, const void *y) {
  const klaunch *a = x, *b = y;
  return (a->api_start > b->api_start) - (a->api_start < b->api_start);
}

int dla__split_spans(dla_ctx *c, int64_t pstart, int64_t pend) {
  size_t n = 0;
#define IS_KEY(x) ((x)->kind == DLA_TEXT_STEP) /* op building marked them */
  for (size_t i = 0; i < c->nr; i++) n += IS_KEY(&c->r[i]);
  span *s = malloc((n + 1) * sizeof *s);
  klaunch *kp = malloc((c->nk + 1) * sizeof *kp);
  if (!s || !kp) {
    free(s);
    free(kp);
    return DL_ENOMEM;
  }
  size_t j = 0;
  for (size_t i = 0; i < c->nr; i++)
    if (IS_KEY(&c->r[i])) s[j++] = (span){c->r[i].start, c->r[i].end, c->r[i].name_id};
#undef IS_KEY
  /* one iteration per step: the ranks' instances of ProfilerStep#N, which
   * overlap in time, merge; steps of one name at other times (cycles of
   * other runs) stay apart */
  dla__qsort(s, n, sizeof *s, cmp_span_name);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m && s[m - 1].name_id == s[i].name_id && s[i].start <= s[m - 1].end) {
      if (s[i].start < s[m - 1].start) s[m - 1].start = s[i].start;
      if (s[i].end > s[m - 1].end) s[m - 1].end = s[i].end;
    } else {
      s[m++] = s[i];
    }
  }
  dla__qsort(s, m, sizeof *s, cmp_span_start);
  /* device time: a step ends when the last kernel launched inside it ends */
  for (size_t i = 0; i < c->nk; i++)
    kp[i] = (klaunch){dla__kern_api_start(c, &c->k[i]), dla__kern_end(c, &c->k[i])};
  dla__qsort(kp, c->nk, sizeof *kp, cmp_kern_launch);
  size_t ki = 0;
  for (size_t i = 0; i < m; i++) {
    while (ki < c->nk && kp[ki].api_start < s[i].start) ki++;
    for (; ki < c->nk && kp[ki].api_start <= s[i].end; ki++)
      if (kp[ki].gpu_end > s[i].end) s[i].end = kp[ki].gpu_end;
  }
  free(kp);
  c->bound = malloc((m + 2) * sizeof *c->bound);
  c->iter_end = m ? malloc(m * sizeof *c->iter_end) : NULL;
  if (!c->bound || (m && !c->iter_end)) {
    free(s);
    return DL_ENOMEM;
  }
  if (m == 0) {
    c->bound[0] = pstart;
    c->bound[1] = pend;
    c->niter = 1;
    c->key_op_found = 0;
  } else {
    /* step i + 1 starts at max(end of step i, its host start) (peers.md D.2);
     * what runs between two steps counts in the one before (bound) but in
     * neither's time (iter_end) */
    c->bound[0] = s[0].start;
    for (size_t i = 0; i < m; i++) {
      c->iter_end[i] = s[i].end > c->bound[i] ? s[i].end : c->bound[i];
      int64_t next = i + 1 < m ? s[i + 1].start : c->iter_end[i];
      c->bound[i + 1] = next > c->iter_end[i] ? next : c->iter_end[i];
    }
    c->niter = (int64_t)m;
    if ((c->iter_name = malloc(m * sizeof *c->iter_name)) != NULL) /* else: numbers only */
      for (size_t i = 0; i < m; i++) c->iter_name[i] = s[i].name_id;
    c->key_op_found = 1;
  }
  free(s);
  return DL_OK;
}

