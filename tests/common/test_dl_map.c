/*
 * test_dl_map.c - the hash maps of common/dl_map.h: many keys through
 * several doublings, values replaced, absent keys, keys that differ only in
 * their high bits (packed pairs), deletions checked against a plain array
 * in a small, crowded table, and string keys borrowed from the caller;
 * dl_grow (dl.h), the arrays beside them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dl_map.h"
#include "test.h"

static int test_map(void) {
  dl_map m;
  dl_map_init(&m);
  ASSERT_EQ(dl_map_get(&m, 7), -1); /* empty, no table yet */
  for (uint64_t k = 0; k < 100000; k++) ASSERT_OK(dl_map_put(&m, k << 32 | 5, (int64_t)k * 3));
  ASSERT_EQ(m.n, 100000);
  ASSERT(m.cap >= 2 * m.n);
  for (uint64_t k = 0; k < 100000; k++) ASSERT_EQ(dl_map_get(&m, k << 32 | 5), (int64_t)k * 3);
  ASSERT_EQ(dl_map_get(&m, 5ull << 32 | 6), -1);
  ASSERT_OK(dl_map_put(&m, 3ull << 32 | 5, 0)); /* replaced, not added */
  ASSERT_EQ(dl_map_get(&m, 3ull << 32 | 5), 0);
  ASSERT_EQ(m.n, 100000);
  ASSERT_OK(dl_map_put(&m, UINT64_MAX, 1));
  ASSERT_EQ(dl_map_get(&m, UINT64_MAX), 1);
  dl_map_free(&m);
  ASSERT_EQ(m.cap, 0);
  ASSERT_EQ(dl_map_get(&m, 1), -1);
  return 0;
}

/* Deletes and re-adds keys in a table kept small (at most 48 keys, so long
 * runs wrap around its end) and checks every key against a plain array after
 * each step: a wrong backward shift loses a key or finds a deleted one. */
static int test_map_del(void) {
  enum { KEYS = 48 };
  int64_t want[KEYS];
  for (int k = 0; k < KEYS; k++) want[k] = -1;
  dl_map m;
  dl_map_init(&m);
  ASSERT_EQ(dl_map_del(&m, 1), 0); /* empty, no table yet */
  uint64_t x = 88172645463325252ull; /* xorshift64: a fixed sequence */
  for (int step = 0; step < 20000; step++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int k = (int)(x % KEYS);
    if (x >> 63) {
      ASSERT_EQ(dl_map_del(&m, (uint64_t)k << 40), want[k] >= 0);
      want[k] = -1;
    } else {
      ASSERT_OK(dl_map_put(&m, (uint64_t)k << 40, step));
      want[k] = step;
    }
    size_t n = 0;
    for (int j = 0; j < KEYS; j++) {
      ASSERT_EQ(dl_map_get(&m, (uint64_t)j << 40), want[j]);
      n += want[j] >= 0;
    }
    ASSERT_EQ(m.n, n);
  }
  ASSERT(m.cap <= 128); /* deletions freed their slots: the table never grew past 2 x 48 */
  dl_map_free(&m);
  return 0;
}

static int test_smap(void) {
  static char names[5000][16];
  dl_smap m;
  dl_smap_init(&m);
  ASSERT_EQ(dl_smap_get(&m, "x"), -1);
  for (int i = 0; i < 5000; i++) {
    snprintf(names[i], sizeof names[i], "op_%d", i);
    ASSERT_OK(dl_smap_put(&m, names[i], i));
  }
  ASSERT_EQ(m.n, 5000);
  char probe[16];
  for (int i = 0; i < 5000; i++) { /* looked up by content, not address */
    snprintf(probe, sizeof probe, "op_%d", i);
    ASSERT_EQ(dl_smap_get(&m, probe), i);
  }
  ASSERT_EQ(dl_smap_get(&m, "op_5000"), -1);
  ASSERT_EQ(dl_smap_get(&m, ""), -1);
  ASSERT_OK(dl_smap_put(&m, "", 9));
  ASSERT_EQ(dl_smap_get(&m, ""), 9);
  ASSERT_OK(dl_smap_put(&m, "op_7", 70));
  ASSERT_EQ(dl_smap_get(&m, names[7]), 70);
  ASSERT_EQ(m.n, 5001);
  ASSERT(dl_hash_str("a") != dl_hash_str("b"));
  ASSERT_EQ(dl_hash_str(""), (int64_t)1469598103934665603ull);
  dl_smap_free(&m);
  return 0;
}

/* dl_grow: from 64 items, doubling, contents kept; a need it holds
 * already changes nothing; a size that overflows fails and keeps both. */
static int test_grow(void) {
  int32_t *v = NULL;
  size_t cap = 0;
  ASSERT_EQ(dl_grow((void **)&v, &cap, 1, sizeof *v), 0);
  ASSERT_EQ(cap, 64);
  for (int32_t i = 0; i < 1000; i++) {
    ASSERT_EQ(dl_grow((void **)&v, &cap, (size_t)i + 1, sizeof *v), 0);
    v[i] = i * 7;
  }
  ASSERT_EQ(cap, 1024);
  for (int32_t i = 0; i < 1000; i++) ASSERT_EQ(v[i], i * 7);
  int32_t *same = v;
  ASSERT_EQ(dl_grow((void **)&v, &cap, 1024, sizeof *v), 0);
  ASSERT(v == same);
  ASSERT_EQ(dl_grow((void **)&v, &cap, SIZE_MAX / 2 + 2, sizeof *v), -1);
  ASSERT(v == same);
  ASSERT_EQ(cap, 1024);
  free(v);
  return 0;
}

int main(void) {
  RUN(test_map);
  RUN(test_map_del);
  RUN(test_smap);
  RUN(test_grow);
  TEST_DONE();
}
