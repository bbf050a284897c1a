/* dl_map.c - open-addressing hash maps (see dl_map.h): a power-of-two
 * table, linear probing, doubled when it would pass half full. */
#include "dl_map.h"

#include <stdlib.h>
#include <string.h>

/* Spreads a 64-bit key over every bit (MurmurHash3's finalizer): keys that
 * differ only in high bits (packed pairs, addresses) still spread over the
 * table's low bits. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

uint64_t dl_hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

void dl_map_init(dl_map *m) { memset(m, 0, sizeof *m); }

void dl_map_free(dl_map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

int64_t dl_map_get(const dl_map *m, uint64_t key) {
  if (!m->cap) return -1;
  for (size_t i = mix64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (m->vals[i] < 0) return -1;
    if (m->keys[i] == key) return m->vals[i];
  }
}

static int map_grow(dl_map *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  uint64_t *nk = malloc(ncap * sizeof *nk);
  int64_t *nv = malloc(ncap * sizeof *nv);
  if (!nk || !nv) {
    free(nk);
    free(nv);
    return -1;
  }
  for (size_t i = 0; i < ncap; i++) nv[i] = -1;
  for (size_t i = 0; i < m->cap; i++) {
    if (m->vals[i] < 0) continue;
    size_t j = mix64(m->keys[i]) & (ncap - 1);
    while (nv[j] >= 0) j = (j + 1) & (ncap - 1);
    nk[j] = m->keys[i];
    nv[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = nk;
  m->vals = nv;
  m->cap = ncap;
  return 0;
}

int dl_map_put(dl_map *m, uint64_t key, int64_t val) {
  if ((m->n + 1) * 2 > m->cap && map_grow(m)) return -1;
  size_t i = mix64(key) & (m->cap - 1);
  while (m->vals[i] >= 0 && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  if (m->vals[i] < 0) m->n++;
  m->keys[i] = key;
  m->vals[i] = val;
  return 0;
}

int dl_map_del(dl_map *m, uint64_t key) {
  if (!m->cap) return 0;
  size_t mask = m->cap - 1, j = mix64(key) & mask;
  while (m->vals[j] >= 0 && m->keys[j] != key) j = (j + 1) & mask;
  if (m->vals[j] < 0) return 0;
  m->vals[j] = -1;
  m->n--;
  /* Backward shift: move each later entry of the run into the hole when its
   * home slot is not between the hole and it, so that every lookup's probe
   * still reaches its key without tombstones. */
  for (size_t i = (j + 1) & mask; m->vals[i] >= 0; i = (i + 1) & mask) {
    size_t home = mix64(m->keys[i]) & mask;
    if (((i - home) & mask) >= ((i - j) & mask)) {
      m->keys[j] = m->keys[i];
      m->vals[j] = m->vals[i];
      m->vals[i] = -1;
      j = i;
    }
  }
  return 1;
}

void dl_smap_init(dl_smap *m) { memset(m, 0, sizeof *m); }

void dl_smap_free(dl_smap *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

int64_t dl_smap_get(const dl_smap *m, const char *key) {
  if (!m->cap) return -1;
  for (size_t i = dl_hash_str(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (!m->keys[i]) return -1;
    if (strcmp(m->keys[i], key) == 0) return m->vals[i];
  }
}

static int smap_grow(dl_smap *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  const char **nk = calloc(ncap, sizeof *nk);
  int64_t *nv = malloc(ncap * sizeof *nv);
  if (!nk || !nv) {
    free(nk);
    free(nv);
    return -1;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = dl_hash_str(m->keys[i]) & (ncap - 1);
    while (nk[j]) j = (j + 1) & (ncap - 1);
    nk[j] = m->keys[i];
    nv[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = nk;
  m->vals = nv;
  m->cap = ncap;
  return 0;
}

int dl_smap_put(dl_smap *m, const char *key, int64_t val) {
  if ((m->n + 1) * 2 > m->cap && smap_grow(m)) return -1;
  size_t i = dl_hash_str(key) & (m->cap - 1);
  while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->n++;
  m->keys[i] = key;
  m->vals[i] = val;
  return 0;
}
