/*
 * dla_extcorr.c - exact op attribution from external correlations
 * (dla_extcorr.h).
 *
 * The links come ordered by correlation id; correlation ids are per
 * process, so one id may have one link per process. Each API call looks
 * its id up (binary search), takes the link of its own process and
 * thread, and finds the linked range among the loaded ones
 * (dla__find_range). Without a links table nothing changes.
 */
#include "dla_extcorr.h"

#include <stdlib.h>
#include <string.h>

#include "dldb_scan.h"

typedef struct link {
  int64_t corr, pid, tid, start, end;
} link;

struct dla_links {
  link *v;
  size_t n, cap;
};

static int collect(void *ctx, const dldb_scan_extcorr *e) {
  dla_links *l = ctx;
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 4096;
    link *nv = realloc(l->v, ncap * sizeof *nv);
    if (!nv) return DL_ENOMEM;
    l->v = nv;
    l->cap = ncap;
  }
  l->v[l->n++] = (link){.corr = e->correlation_id, .pid = e->pid, .tid = e->tid,
                        .start = e->start_ns,
                        .end = e->end_ns < e->start_ns ? e->start_ns : e->end_ns};
  return 0;
}

/* The first link with corr (or n). */
static size_t first_link(const dla_links *l, int64_t corr) {
  size_t lo = 0, hi = l->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->v[mid].corr < corr) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int dla__extcorr_load(dla_ctx *c, dla_links **out) {
  *out = NULL;
  dla_links *l = calloc(1, sizeof *l);
  if (!l) return dl_err(c->err, c->errlen, DL_ENOMEM, "dla_aggregate: out of memory");
  int rc = dldb_scan_extcorrs(c->w, c->domain_id, collect, l, c->err, c->errlen);
  if (rc == DL_ENOMEM) dl_err(c->err, c->errlen, rc, "dla_aggregate: out of memory");
  if (rc == DL_OK && l->n) {
    *out = l;
    return DL_OK;
  }
  dla__extcorr_free(&l);
  return rc;
}

int32_t dla__extcorr_range(const dla_ctx *c, const dla_links *l, int64_t corr, int64_t pid,
                           int64_t tid) {
  for (size_t j = first_link(l, corr); j < l->n && l->v[j].corr == corr; j++) {
    if (l->v[j].pid != pid || l->v[j].tid != tid) continue;
    const link *k = &l->v[j];
    return dla__find_range(c, k->pid, k->tid, k->start, k->end, -1);
  }
  return -1;
}

void dla__extcorr_free(dla_links **pl) {
  dla_links *l = *pl;
  if (!l) return;
  free(l->v);
  free(l);
  *pl = NULL;
}
