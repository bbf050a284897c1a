/*
 * dla_map.h - two small open-addressing hash maps used by the analysis:
 * 64-bit key -> int64 value, and string -> int64 value.
 *
 * Ownership: dla_map_init/dla_smap_init set up empty maps; free them with
 * dla_map_free/dla_smap_free. String keys are borrowed: they must outlive
 * the map (the analysis keeps them in its own arrays).
 */
#ifndef DLA_MAP_H
#define DLA_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct dla_map {
  uint64_t *keys;
  int64_t *vals;  /* -1: empty slot */
  size_t cap, n;
} dla_map;

void dla_map_init(dla_map *m);
void dla_map_free(dla_map *m);
/* The value for key, or -1. */
int64_t dla_map_get(const dla_map *m, uint64_t key);
/* Sets key to val (val >= 0). Returns 0, or -1 when out of memory. */
int dla_map_put(dla_map *m, uint64_t key, int64_t val);

typedef struct dla_smap {
  const char **keys;
  int64_t *vals;
  size_t cap, n;
} dla_smap;

void dla_smap_init(dla_smap *m);
void dla_smap_free(dla_smap *m);
int64_t dla_smap_get(const dla_smap *m, const char *key);
/* Borrows key. Returns 0, or -1 when out of memory. */
int dla_smap_put(dla_smap *m, const char *key, int64_t val);

#endif
