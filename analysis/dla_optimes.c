/*
 * dla_optimes.c - each op's total and self CPU time (see dla_optimes.h).
 *
 * One pass over the ranges of each thread (sorted by start, outer first)
 * with a stack of open ranges, nested as op building nested them
 * (dla__nests). Each stack entry remembers the nearest op instance at or
 * below it, and each instance its self time so far: a counted instance
 * takes its time (clipped to its parent's) from the nearest instance
 * around it; an instance's self time is final when it leaves the stack.
 * Sub-ops (an aten:: call's own calls) and markers are not instances: their
 * time stays their instance's. A CUDA call outside every instance is one
 * call of its own op.
 */
#include <stdlib.h>

#include "dla_optimes.h"

typedef struct open_range {
  int32_t r;       /* the range */
  int32_t inst;    /* the nearest counted op instance at or below it, -1: none */
  int64_t self;    /* r's self time so far, when r is a counted instance */
} open_range;

/* Whether what starts at t is counted: inside an aggregated iteration's
 * span. */
static int counted(const dla_ctx *c, int64_t t, int32_t *hint) {
  int32_t it = dla__iter_near(c, t, hint);
  return dla__in_aggr(c, it) && t >= c->bound[it] && t < dla__iter_end(c, it);
}

/* The CUDA calls outside every op instance, each an instance of its own
 * unassociated_<api> op: nothing nests in them, so all of a call is self. */
static void own_calls(dla_ctx *c) {
  int32_t hint = 0;
  for (size_t j = 0; j < c->nown; j++) {
    const dla_api *a = &c->a[c->own[j].call];
    int32_t op = c->own[j].op;
    if (op < 0 || !counted(c, a->start, &hint)) continue;
    int64_t d = dla__api_dur(c, a);
    c->op_total[op] += d;
    c->op_self[op] += d;
    c->op_calls[op]++;
  }
}

static void close_top(dla_ctx *c, const open_range *o) {
  if (o->inst != o->r) return;
  c->op_self[c->r[o->r].op] += o->self > 0 ? o->self : 0;
}

int dla__optimes(dla_ctx *c) {
  size_t n = c->nops ? c->nops : 1;
  c->op_total = calloc(n, sizeof *c->op_total);
  c->op_self = calloc(n, sizeof *c->op_self);
  c->op_calls = calloc(n, sizeof *c->op_calls);
  open_range *st = malloc((c->nr + 1) * sizeof *st);
  if (!c->op_total || !c->op_self || !c->op_calls || !st) {
    free(st);
    return DL_ENOMEM;
  }
  size_t sp = 0;
  int32_t hint = 0;
  for (size_t i = 0; i < c->nr; i++) {
    const dla_range *r = &c->r[i];
    if (i == 0 || dla__range_th(r) != dla__range_th(&c->r[i - 1]))
      while (sp) close_top(c, &st[--sp]);
    while (sp && !dla__nests(c, &c->r[st[sp - 1].r], r)) close_top(c, &st[--sp]);
    int32_t below = sp ? st[sp - 1].inst : -1;
    open_range o = {.r = (int32_t)i, .inst = below, .self = 0};
    if (r->inst == (int32_t)i && r->op >= 0 && c->niter > 0 && counted(c, r->start, &hint)) {
      int64_t t = r->end - r->start;
      c->op_total[r->op] += t;
      c->op_calls[r->op]++;
      o.inst = (int32_t)i;
      o.self = t;
      if (below >= 0) { /* the parent instance's self time loses this one's */
        const dla_range *p = &c->r[below];
        int64_t end = r->end < p->end ? r->end : p->end;
        for (size_t k = sp; k-- > 0;)
          if (st[k].r == below) {
            st[k].self -= end > r->start ? end - r->start : 0;
            break;
          }
      }
    }
    st[sp++] = o;
  }
  while (sp) close_top(c, &st[--sp]);
  free(st);
  if (c->niter > 0) own_calls(c);
  return DL_OK;
}
