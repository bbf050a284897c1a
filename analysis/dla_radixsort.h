/*
 * dla_radixsort.h - RADIXSORT(name, T, byte, nbytes, small): an in-place
 * radix sort written for one element type, for arrays of millions of
 * records keyed by a few bytes (analysis/ only).
 */
#ifndef DLA_RADIXSORT_H
#define DLA_RADIXSORT_H

#include <stddef.h>

/* Ranges of at most this many elements go to the comparison sort. */
#define DLA_RADIX_SMALL 64

/* RADIXSORT(name, T, byte, nbytes, small) defines name(T *v, size_t n, int
 * b): a most-significant-digit radix sort of v[0..n-1] by a key of nbytes
 * bytes from byte b on (call it with 0), byte(const T *, int b) giving
 * byte b (0: the most significant). Each range is permuted in place into
 * one bucket a byte value (American flag sort: no memory but 6 KiB of
 * counts a level on the stack), then each bucket sorted on the next byte;
 * a byte that a whole range shares costs one counting pass. Ranges of
 * DLA_RADIX_SMALL or fewer, and elements equal in every key byte, go to
 * small(T *, size_t n), a comparison sort of the same order. Not stable. */
#define RADIXSORT(name, T, byte, nbytes, small)                                \
  static void name(T *v, size_t n, int b) {                                  \
    while (n > DLA_RADIX_SMALL && b < (nbytes)) {                            \
      size_t cnt[256] = {0}, head[256], tail[256], at = 0;                   \
      for (size_t i = 0; i < n; i++) cnt[byte(&v[i], b)]++;                  \
      if (cnt[byte(&v[0], b)] == n) { /* one bucket: the next byte */        \
        b++;                                                                 \
        continue;                                                            \
      }                                                                      \
      for (unsigned d = 0; d < 256; d++) {                                   \
        head[d] = at;                                                        \
        at += cnt[d];                                                        \
        tail[d] = at;                                                        \
      }                                                                      \
      for (unsigned d = 0; d < 256; d++)                                     \
        while (head[d] < tail[d]) { /* the cycle of the element at head[d] */ \
          T e = v[head[d]];                                                  \
          unsigned x;                                                        \
          while ((x = byte(&e, b)) != d) {                                   \
            T t = v[head[x]];                                                \
            v[head[x]++] = e;                                                \
            e = t;                                                           \
          }                                                                  \
          v[head[d]++] = e;                                                  \
        }                                                                    \
      at = 0;                                                                \
      for (unsigned d = 0; d < 256; d++) {                                   \
        if (cnt[d] > 1) name(v + at, cnt[d], b + 1);                         \
        at += cnt[d];                                                        \
      }                                                                      \
      return;                                                                \
    }                                                                        \
    if (n > 1) small(v, n);                                                  \
  }

#endif
