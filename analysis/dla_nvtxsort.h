/*
 * dla_nvtxsort.h - NVTX names sorted by their texts in SQLite's BINARY
 * order (memcmp, then the shorter first), in memory: the sort of the NVTX
 * statistics rows' name order (dla_nvtxorder.c) and of each part it
 * spills (dla_nvtxspill.c). analysis/ only.
 */
#ifndef DLA_NVTXSORT_H
#define DLA_NVTXSORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A name in the sort: its index i and its text's place in a block of texts
 * (off, len bytes); k and left are the sort's (8 bytes of text from a
 * depth and the bytes left from there). 24 bytes. */
typedef struct dla_nvtx_ent {
  uint64_t k;
  uint32_t left, i;
  uint32_t off, len;
} dla_nvtx_ent;

/* Sorts v[0..n-1] by their texts in text (borrowed); equal texts end up
 * side by side, in no set order. DL_OK or DL_ENOMEM. */
int dla__nvtx_sort(dla_nvtx_ent *v, size_t n, const char *text);

/* -1, 0 or 1 as a (alen bytes) sorts before, with or after b (blen). */
static inline int dla__nvtx_cmp(const char *a, size_t alen, const char *b, size_t blen) {
  int d = memcmp(a, b, alen < blen ? alen : blen);
  if (d) return d < 0 ? -1 : 1;
  return (alen > blen) - (alen < blen);
}

#endif
