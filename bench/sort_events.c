/*
 * sort_events.c - the analysis's in-place sort (analysis/dla_sort.c) on
 * GPU events as dla_comm.c builds them: each kernel's start and end in time
 * order, then a block of memory-operation events. Prints the time and the
 * comparisons an element. docs/performance.md quotes it.
 * Build and run: bench/sort_events.sh [KERNELS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dla_internal.h"

typedef struct tev { /* dla_comm.c's */
  int64_t t;
  int32_t k;
  int8_t cls, delta;
} tev;

static long ncmp;

static int cmp_tev(const void *x, const void *y) { /* dla_comm.c's */
  const tev *a = x, *b = y;
  ncmp++;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return a->delta - b->delta;
}

int main(int argc, char **argv) {
  size_t nk = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000, nm = 10000, n = 0;
  tev *v = malloc((2 * nk + 2 * nm) * sizeof *v);
  if (!v) return 1;
  srand(1);
  int64_t t = 0;
  for (size_t i = 0; i < nk; i++) {
    int64_t s = t + 10, e = s + 100 + rand() % 1000;
    t = e;
    v[n++] = (tev){s, (int32_t)i, 0, 1};
    v[n++] = (tev){e, (int32_t)i, 0, -1};
  }
  for (size_t i = 0; i < nm; i++) { /* memory operations, their own time order */
    int64_t s = (int64_t)((double)i / (double)nm * (double)t);
    v[n++] = (tev){s, -1, 1, 1};
    v[n++] = (tev){s + 500, -1, 1, -1};
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  dla__sort(v, n, sizeof *v, cmp_tev);
  clock_gettime(CLOCK_MONOTONIC, &b);
  for (size_t i = 1; i < n; i++)
    if (cmp_tev(&v[i - 1], &v[i]) > 0) return fprintf(stderr, "not sorted\n"), 1;
  printf("%zu events: %.2f s, %.1f comparisons an element\n", n,
         (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9,
         (double)ncmp / (double)n);
  free(v);
  return 0;
}
