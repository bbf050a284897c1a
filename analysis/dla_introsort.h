/*
 * dla_introsort.h - INTROSORT(name, T, lt): an in-place sort written for one
 * element type, for arrays of millions of records (analysis/ only).
 */
#ifndef DLA_INTROSORT_H
#define DLA_INTROSORT_H

#include <stddef.h>

/* The depth limit for n elements: 2 log2(n), then heapsort. */
static inline int dla__sort_depth(size_t n) {
  int depth = 0;
  for (size_t m = n; m; m >>= 1) depth += 2;
  return depth;
}

/* INTROSORT(name, T, lt) defines name(T *v, size_t n, int depth): dla_sort.c's
 * introsort (ninther pivot, heapsort past a depth limit, insertion sort
 * below 16) written for one type, with lt(const T *, const T *) inlined and
 * no memcpy per swap: faster than dla__sort's callback or qsort on big
 * arrays of small records. Not stable: used where lt is a total order of the distinct elements. */
#define INTROSORT(name, T, lt)                                                 \
  static size_t name##_med3(const T *v, size_t a, size_t b, size_t c) {      \
    if (lt(&v[a], &v[b])) return lt(&v[b], &v[c]) ? b : lt(&v[a], &v[c]) ? c : a; \
    return lt(&v[a], &v[c]) ? a : lt(&v[b], &v[c]) ? c : b;                   \
  }                                                                          \
  static size_t name##_pivot(const T *v, size_t n) { /* dla_sort.c's */     \
    size_t mid = n / 2, d = n / 8;                                           \
    if (n < 128) return name##_med3(v, 0, mid, n - 1);                       \
    return name##_med3(v, name##_med3(v, 0, d, 2 * d),                       \
                       name##_med3(v, mid - d, mid, mid + d),                \
                       name##_med3(v, n - 1 - 2 * d, n - 1 - d, n - 1));     \
  }                                                                          \
  static void name##_sift(T *v, size_t root, size_t n) {                     \
    for (;;) {                                                               \
      size_t child = 2 * root + 1;                                           \
      if (child >= n) return;                                                \
      if (child + 1 < n && lt(&v[child], &v[child + 1])) child++;            \
      if (!lt(&v[root], &v[child])) return;                                  \
      T t = v[root];                                                         \
      v[root] = v[child];                                                    \
      v[child] = t;                                                          \
      root = child;                                                          \
    }                                                                        \
  }                                                                          \
  static void name(T *v, size_t n, int depth) {                              \
    T t;                                                                     \
    while (n > 16) {                                                         \
      if (depth-- == 0) { /* heapsort */                                     \
        for (size_t i = n / 2; i-- > 0;) name##_sift(v, i, n);               \
        for (size_t end = n; end-- > 1;) {                                   \
          t = v[0], v[0] = v[end], v[end] = t;                               \
          name##_sift(v, 0, end);                                            \
        }                                                                    \
        return;                                                              \
      }                                                                      \
      size_t m = name##_pivot(v, n); /* the pivot, to 0 */                  \
      t = v[0], v[0] = v[m], v[m] = t;                                       \
      size_t i = 0, j = n;                                                   \
      for (;;) {                                                             \
        do i++;                                                              \
        while (i < n && lt(&v[i], &v[0]));                                   \
        do j--;                                                              \
        while (lt(&v[0], &v[j]));                                            \
        if (i >= j) break;                                                   \
        t = v[i], v[i] = v[j], v[j] = t;                                     \
      }                                                                      \
      t = v[0], v[0] = v[j], v[j] = t;                                       \
      if (j < n - j - 1) { /* recurse into the smaller side */               \
        name(v, j, depth);                                                   \
        v += j + 1;                                                          \
        n -= j + 1;                                                          \
      } else {                                                               \
        name(v + j + 1, n - j - 1, depth);                                   \
        n = j;                                                               \
      }                                                                      \
    }                                                                        \
    for (size_t i = 1; i < n; i++) { /* insertion sort */                    \
      T x = v[i];                                                            \
      size_t k = i;                                                          \
      for (; k > 0 && lt(&x, &v[k - 1]); k--) v[k] = v[k - 1];               \
      v[k] = x;                                                              \
    }                                                                        \
  }

#endif
