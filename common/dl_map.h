/*
 * dl_map.h - open-addressing hash maps (linear probing, load <= 1/2) with
 * int64 values >= 0, in the two key shapes the modules need:
 *   dl_map:  64-bit key -> value (ids, addresses, packed pairs);
 *   dl_smap: C string key -> value (names to indices or ids).
 *
 * Ownership: dl_map_init/dl_smap_init set up empty maps (no memory yet);
 * dl_map_free/dl_smap_free release their tables. String keys are
 * borrowed: they must stay in place, unchanged, while the map holds them
 * (users keep them in arrays or copies of their own). Used by one thread
 * at a time. Never prints, never exits.
 */
#ifndef DL_MAP_H
#define DL_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct dl_map {
  uint64_t *keys;
  int64_t *vals; /* -1: empty slot */
  size_t cap, n;
} dl_map;

void dl_map_init(dl_map *m);
void dl_map_free(dl_map *m);
/* The value for key, or -1. */
int64_t dl_map_get(const dl_map *m, uint64_t key);
/* Sets key to val (val >= 0). Returns 0, or -1 when out of memory. */
int dl_map_put(dl_map *m, uint64_t key, int64_t val);
/* Removes key (backward-shift deletion, no tombstones). Returns 1 when it
 * was there, else 0. */
int dl_map_del(dl_map *m, uint64_t key);

typedef struct dl_smap {
  const char **keys; /* NULL: empty slot */
  int64_t *vals;
  size_t cap, n;
} dl_smap;

void dl_smap_init(dl_smap *m);
void dl_smap_free(dl_smap *m);
/* The value for key, or -1. */
int64_t dl_smap_get(const dl_smap *m, const char *key);
/* Sets key to val (val >= 0); borrows key. Returns 0, or -1 when out of
 * memory. */
int dl_smap_put(dl_smap *m, const char *key, int64_t val);

/* The 64-bit FNV-1a hash of a C string. */
uint64_t dl_hash_str(const char *s);

#endif
