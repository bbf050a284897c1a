/*
 * dla_nvtxsort.c - the multikey sort of NVTX names by text (see
 * dla_nvtxsort.h): each name carries 8 bytes of its text from a depth
 * (big-endian, so integer order is memcmp order) and how much of it is
 * left there, a range of names is sorted by that (a radix sort on its
 * bytes), and each run of equal names that go on is sorted again 8 bytes
 * deeper (a stack of ranges, not recursion); 8 bytes that a whole range
 * shares are skipped unsorted. SQLite's BINARY order is memcmp, then the
 * shorter first: a name that ends inside the 8 bytes pads them with 0 and
 * has less left, so it sorts before every longer one it begins.
 */
#include "dla_nvtxsort.h"

#include <stdlib.h>

#include "dl.h"
#include "dla_introsort.h"
#include "dla_radixsort.h"

static inline int ent_lt(const dla_nvtx_ent *a, const dla_nvtx_ent *b) {
  return a->k < b->k || (a->k == b->k && a->left < b->left);
}

INTROSORT(ent_intro, dla_nvtx_ent, ent_lt)

static void ent_small(dla_nvtx_ent *v, size_t n) { ent_intro(v, n, dla__sort_depth(n)); }

/* Byte b of k (0: the first of the 8 bytes of text). */
static inline unsigned ent_byte(const dla_nvtx_ent *e, int b) {
  return (unsigned)(e->k >> (56 - 8 * b) & 255);
}

/* By (k, left): a radix sort on k's bytes, ties of k by left. */
RADIXSORT(ent_sort, dla_nvtx_ent, ent_byte, 8, ent_small)

/* e's 8 bytes of text from depth d: one load where 8 are left. */
static void ent_load(dla_nvtx_ent *e, const char *text, size_t d) {
  size_t len = e->len, left = len > d ? len - d : 0;
  uint64_t k = 0;
  if (left >= 8) {
    memcpy(&k, text + e->off + d, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    k = __builtin_bswap64(k);
#endif
  } else {
    const uint8_t *t = (const uint8_t *)text + e->off;
    for (size_t j = 0; j < 8; j++) k = k << 8 | (j < left ? t[d + j] : 0);
  }
  e->k = k;
  e->left = left > 8 ? 9 : (uint32_t)left;
}

typedef struct range {
  size_t lo, hi, depth;
} range;

int dla__nvtx_sort(dla_nvtx_ent *v, size_t n, const char *text) {
  size_t cap = 64, top = 0;
  range *st = malloc(cap * sizeof *st);
  if (!st) return DL_ENOMEM;
  st[top++] = (range){0, n, 0};
  while (top) {
    range r = st[--top];
    /* 8 bytes that every name of the range shares (a common prefix: the
     * op's name, ", seq = ") order nothing: go deeper at once */
    int same;
    for (;;) {
      same = 1;
      for (size_t i = r.lo; i < r.hi; i++) {
        ent_load(&v[i], text, r.depth);
        same &= v[i].k == v[r.lo].k && v[i].left == v[r.lo].left;
      }
      if (!same || v[r.lo].left <= 8) break;
      r.depth += 8;
    }
    if (!same) ent_sort(v + r.lo, r.hi - r.lo, 0);
    for (size_t i = r.lo; i < r.hi;) {
      size_t j = i + 1;
      while (j < r.hi && v[j].k == v[i].k && v[j].left == v[i].left) j++;
      if (j - i > 1 && v[i].left > 8) { /* equal so far and longer: deeper */
        if (top == cap) {
          range *p = realloc(st, 2 * cap * sizeof *st);
          if (!p) {
            free(st);
            return DL_ENOMEM;
          }
          st = p;
          cap *= 2;
        }
        st[top++] = (range){i, j, r.depth + 8};
      }
      i = j;
    }
  }
  free(st);
  return DL_OK;
}
