/*
 * dla_sort.c - an in-place sort for the analysis's big record arrays.
 *
 * glibc's qsort() is a merge sort that first allocates a copy of the whole
 * array, which doubles the peak memory of sorting millions of ranges or API
 * calls. This is an introsort (quicksort on a ninther pivot, heapsort past
 * a depth limit, insertion sort on short runs) that needs no memory beyond a
 * one-element buffer. Not stable, so it is used only for arrays over
 * DLA_SORT_COPY_BYTES; smaller ones keep glibc's (stable) qsort.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dla_sort.h"

/* Arrays up to this size go to qsort (stable in glibc, which small fixtures'
 * ties may rely on); bigger ones are sorted in place. */
#define DLA_SORT_COPY_BYTES ((size_t)64 << 20)

typedef struct sorter {
  char *base;
  size_t size;
  int (*cmp)(const void *, const void *);
  char *tmp;
} sorter;

#define EL(s, i) ((s)->base + (size_t)(i) * (s)->size)

static void swap(sorter *s, size_t i, size_t j) {
  if (i == j) return;
  memcpy(s->tmp, EL(s, i), s->size);
  memcpy(EL(s, i), EL(s, j), s->size);
  memcpy(EL(s, j), s->tmp, s->size);
}

static void insertion(sorter *s, size_t lo, size_t hi) { /* [lo, hi) */
  for (size_t i = lo + 1; i < hi; i++) {
    if (s->cmp(EL(s, i - 1), EL(s, i)) <= 0) continue;
    memcpy(s->tmp, EL(s, i), s->size);
    size_t j = i;
    while (j > lo && s->cmp(EL(s, j - 1), s->tmp) > 0) j--;
    memmove(EL(s, j + 1), EL(s, j), (i - j) * s->size);
    memcpy(EL(s, j), s->tmp, s->size);
  }
}

static void sift(sorter *s, size_t lo, size_t root, size_t n) {
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && s->cmp(EL(s, lo + child), EL(s, lo + child + 1)) < 0) child++;
    if (s->cmp(EL(s, lo + root), EL(s, lo + child)) >= 0) return;
    swap(s, lo + root, lo + child);
    root = child;
  }
}

static void heapsort_range(sorter *s, size_t lo, size_t hi) {
  size_t n = hi - lo;
  for (size_t i = n / 2; i-- > 0;) sift(s, lo, i, n);
  for (size_t end = n; end-- > 1;) {
    swap(s, lo, lo + end);
    sift(s, lo, 0, end);
  }
}

/* The index of the median of elements a, b and c. */
static size_t med3(const sorter *s, size_t a, size_t b, size_t c) {
  if (s->cmp(EL(s, a), EL(s, b)) < 0) {
    if (s->cmp(EL(s, b), EL(s, c)) < 0) return b;
    return s->cmp(EL(s, a), EL(s, c)) < 0 ? c : a;
  }
  if (s->cmp(EL(s, a), EL(s, c)) < 0) return a;
  return s->cmp(EL(s, b), EL(s, c)) < 0 ? c : b;
}

/* A pivot for [lo, hi): the median of three medians of three (Tukey's
 * ninther) of nine elements spread over the range. A median of the first,
 * middle and last elements is poor on the analysis's usual input, records
 * in time order with a few late ones at the end (memory operations after
 * the kernels): the last element is then about random, splits were
 * lopsided, and more than half of 10 M GPU events ended in the heapsort. */
static size_t pivot(const sorter *s, size_t lo, size_t hi) {
  size_t n = hi - lo, mid = lo + n / 2;
  if (n < 128) return med3(s, lo, mid, hi - 1);
  size_t d = n / 8;
  return med3(s, med3(s, lo, lo + d, lo + 2 * d), med3(s, mid - d, mid, mid + d),
              med3(s, hi - 1 - 2 * d, hi - 1 - d, hi - 1));
}

static void intro(sorter *s, size_t lo, size_t hi, int depth) {
  while (hi - lo > 16) {
    if (depth-- == 0) {
      heapsort_range(s, lo, hi);
      return;
    }
    swap(s, lo, pivot(s, lo, hi)); /* the pivot at lo */
    /* Hoare partition around the pivot at lo */
    size_t i = lo, j = hi;
    for (;;) {
      do i++; while (i < hi && s->cmp(EL(s, i), EL(s, lo)) < 0);
      do j--; while (s->cmp(EL(s, j), EL(s, lo)) > 0);
      if (i >= j) break;
      swap(s, i, j);
    }
    swap(s, lo, j);
    /* recurse into the smaller side, loop on the larger */
    if (j - lo < hi - j - 1) {
      intro(s, lo, j, depth);
      lo = j + 1;
    } else {
      intro(s, j + 1, hi, depth);
      hi = j;
    }
  }
  insertion(s, lo, hi);
}

void dla__sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  if (n < 2) return;
  if (n * size <= DLA_SORT_COPY_BYTES) { /* small: qsort's copy is cheap and it is stable */
    qsort(base, n, size, cmp);
    return;
  }
  char small[256];
  char *tmp = size <= sizeof small ? small : malloc(size);
  if (!tmp) { /* cannot happen for the analysis's records; qsort still sorts */
    qsort(base, n, size, cmp);
    return;
  }
  /* already sorted (the usual case for records written in time order)? */
  size_t k = 1;
  while (k < n && cmp((char *)base + (k - 1) * size, (char *)base + k * size) <= 0) k++;
  if (k < n) {
    sorter s = {.base = base, .size = size, .cmp = cmp, .tmp = tmp};
    int depth = 0;
    for (size_t m = n; m; m >>= 1) depth += 2;
    intro(&s, 0, n, depth);
  }
  if (tmp != small) free(tmp);
}

/* In-place MSD radix sort (American flag sort) of non-negative keys on
 * their bits below shift + 8, a byte a level; short runs by insertion.
 * No buffer: the sweeps' events (two int64 per kernel, memory op and
 * merged range interval) are among the analysis's biggest arrays, and are
 * sorted at its peak of memory. */
static void flag_sort(int64_t *v, size_t n, int shift) {
  if (n < 64) {
    for (size_t i = 1; i < n; i++) {
      int64_t x = v[i];
      size_t k = i;
      for (; k > 0 && v[k - 1] > x; k--) v[k] = v[k - 1];
      v[k] = x;
    }
    return;
  }
  size_t count[256] = {0}, start[256], next[256];
  for (size_t i = 0; i < n; i++) count[((uint64_t)v[i] >> shift) & 0xff]++;
  for (size_t b = 0, at = 0; b < 256; at += count[b++]) start[b] = next[b] = at;
  for (int b = 0; b < 256; b++) /* each element to its bucket, by cycles */
    while (next[b] < start[b] + count[b]) {
      int64_t x = v[next[b]];
      int d = (int)(((uint64_t)x >> shift) & 0xff);
      while (d != b) {
        int64_t t = v[next[d]];
        v[next[d]++] = x;
        x = t;
        d = (int)(((uint64_t)x >> shift) & 0xff);
      }
      v[next[b]++] = x;
    }
  if (shift == 0) return;
  for (int b = 0; b < 256; b++)
    if (count[b] > 1) flag_sort(v + start[b], count[b], shift - 8);
}

int dla__time_batches(const int64_t *cnt, size_t nbuck, size_t cap, size_t **first,
                      size_t *nbatch, size_t *most) {
  *nbatch = *most = 0;
  if (!(*first = malloc((nbuck + 1) * sizeof **first))) return DL_ENOMEM;
  for (size_t b = 0, sum = 0; b < nbuck; b++) {
    size_t k = cnt[b] > 0 ? (size_t)cnt[b] : 0;
    if (b == 0 || sum + k > cap) {
      (*first)[(*nbatch)++] = b;
      sum = 0;
    }
    sum += k;
    if (sum > *most) *most = sum;
  }
  (*first)[*nbatch] = nbuck;
  return DL_OK;
}

void dla__sort_keys(int64_t *v, size_t n) {
  uint64_t maxv = 0;
  size_t k = 1;
  while (k < n && v[k - 1] <= v[k]) k++;
  if (k >= n) return; /* already sorted */
  for (size_t i = 0; i < n; i++)
    if ((uint64_t)v[i] > maxv) maxv = (uint64_t)v[i];
  int shift = 0;
  while (shift < 56 && (maxv >> shift) > 0xff) shift += 8;
  flag_sort(v, n, shift);
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

int64_t dla__median_i64(int64_t *v, size_t n) {
  dla__sort(v, n, sizeof *v, cmp_i64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
