/*
 * dla_sort.h - sorts and time batching for the analysis's big record arrays
 * (analysis/ only). Every function works in the caller's memory, except
 * dla__time_batches, whose *first the caller frees.
 */
#ifndef DLA_SORT_H
#define DLA_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "dl.h"

/* qsort for small arrays, an in-place sort (no copy of the array, unlike
 * glibc's qsort) past DLA_SORT_COPY_BYTES (dla_sort.c); accepts an empty or
 * NULL array. Not stable past that size. */
void dla__sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
static inline void dla__qsort(void *base, size_t n, size_t size,
                              int (*cmp)(const void *, const void *)) {
  dla__sort(base, n, size, cmp);
}

/* Sorts v (n > 0 values) ascending, in place, and returns their median: of
 * an even count, the mean of the two middle values. */
int64_t dla__median_i64(int64_t *v, size_t n);

/* Sorts non-negative keys ascending, in place, without a buffer (the time
 * sweeps' events). */
void dla__sort_keys(int64_t *v, size_t n);

/* Batches of consecutive time buckets for the sweeps that sort one batch
 * of time at a time: cnt[b] items in bucket b (nbuck buckets); a batch
 * holds at most cap items unless one bucket has more (a batch of its own).
 * *first (malloc'd, *nbatch + 1 entries, the last nbuck; the caller frees
 * it): each batch's first bucket; *most: the items of the largest batch.
 * DL_OK or DL_ENOMEM. */
int dla__time_batches(const int64_t *cnt, size_t nbuck, size_t cap, size_t **first,
                      size_t *nbatch, size_t *most);

/* t - lo (t >= lo) as a distance that cannot overflow, for any two times of
 * a trace (absurd ones included), and lo + d back. */
static inline uint64_t dla__dist(int64_t t, int64_t lo) { return (uint64_t)t - (uint64_t)lo; }
static inline int64_t dla__at(int64_t lo, uint64_t d) { return (int64_t)((uint64_t)lo + d); }

#endif
