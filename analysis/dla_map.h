/*
 * dla_map.h - two small open-addressing hash maps used by the analysis:
 * 64-bit key -> int64 value, and string -> int64 value. They are
 * common/dl_map.h's maps under the analysis's names (same hashing, probing
 * and growth).
 *
 * Ownership: dla_map_init/dla_smap_init set up empty maps; free them with
 * dla_map_free/dla_smap_free. String keys are borrowed: they must outlive
 * the map (the analysis keeps them in its own arrays).
 */
#ifndef DLA_MAP_H
#define DLA_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "dl_map.h"

typedef dl_map dla_map;   /* keys, vals (-1: empty slot), cap, n */
typedef dl_smap dla_smap; /* keys (NULL: empty slot), vals, cap, n */

void dla_map_init(dla_map *m);
void dla_map_free(dla_map *m);
/* The value for key, or -1. */
static inline int64_t dla_map_get(const dla_map *m, uint64_t key) { return dl_map_get(m, key); }
/* Sets key to val (val >= 0). Returns 0, or -1 when out of memory. */
static inline int dla_map_put(dla_map *m, uint64_t key, int64_t val) {
  return dl_map_put(m, key, val);
}

void dla_smap_init(dla_smap *m);
void dla_smap_free(dla_smap *m);
static inline int64_t dla_smap_get(const dla_smap *m, const char *key) {
  return dl_smap_get(m, key);
}
/* Borrows key. Returns 0, or -1 when out of memory. */
static inline int dla_smap_put(dla_smap *m, const char *key, int64_t val) {
  return dl_smap_put(m, key, val);
}

#endif
