/* dldb_nvtxtop.c - the best k rows by a numeric column (see dldb_nvtxtop.h). */
#include "dldb_nvtxtop.h"

#include <stdlib.h>

#include "dl.h"

int dldb__top_init(dldb__top *t, int64_t k, int desc) {
  *t = (dldb__top){.k = k, .desc = desc};
  t->h = malloc((size_t)(k > 0 ? k : 1) * sizeof *t->h);
  return t->h ? DL_OK : DL_ENOMEM;
}

void dldb__top_free(dldb__top *t) {
  free(t->h);
  t->h = NULL;
  t->n = 0;
}

int dldb__top_before(const dldb__top *t, const dldb__trow *a, const dldb__trow *b) {
  if (a->x != b->x) return t->desc ? a->x > b->x : a->x < b->x;
  return a->row < b->row;
}

static void sift_down(dldb__top *t, int64_t i) {
  for (;;) {
    int64_t w = i, l = 2 * i + 1, r = l + 1;
    if (l < t->n && dldb__top_before(t, &t->h[w], &t->h[l])) w = l;
    if (r < t->n && dldb__top_before(t, &t->h[w], &t->h[r])) w = r;
    if (w == i) return;
    dldb__trow x = t->h[i];
    t->h[i] = t->h[w];
    t->h[w] = x;
    i = w;
  }
}

void dldb__top_add(dldb__top *t, dldb__trow r) {
  if (t->k == 0) return;
  if (t->n == t->k) {
    if (!dldb__top_before(t, &r, &t->h[0])) return;
    t->h[0] = r;
    sift_down(t, 0);
    return;
  }
  int64_t i = t->n++;
  t->h[i] = r;
  while (i > 0 && dldb__top_before(t, &t->h[(i - 1) / 2], &t->h[i])) {
    int64_t p = (i - 1) / 2;
    dldb__trow x = t->h[i];
    t->h[i] = t->h[p];
    t->h[p] = x;
    i = p;
  }
}

int dldb__top_beaten(const dldb__top *t, long double x, int64_t row) {
  if (t->n < t->k) return 0;
  dldb__trow r = {x, row};
  return t->k == 0 || !dldb__top_before(t, &r, &t->h[0]);
}

static int cmp_desc(const void *a, const void *b) {
  const dldb__trow *x = a, *y = b;
  if (x->x != y->x) return x->x < y->x ? 1 : -1;
  return (x->row > y->row) - (x->row < y->row);
}

static int cmp_asc(const void *a, const void *b) {
  const dldb__trow *x = a, *y = b;
  if (x->x != y->x) return x->x > y->x ? 1 : -1;
  return (x->row > y->row) - (x->row < y->row);
}

void dldb__top_sort(dldb__top *t) {
  qsort(t->h, (size_t)t->n, sizeof *t->h, t->desc ? cmp_desc : cmp_asc);
}
