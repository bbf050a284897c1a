/*
 * test_dl_map.c - the hash maps of common/dl_map.h: many keys through
 * several doublings, values replaced, absent keys, keys that differ only in
 * their high bits (packed pairs), and string keys borrowed from the caller.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

int main(void) {
  RUN(test_map);
  RUN(test_smap);
  TEST_DONE();
}
