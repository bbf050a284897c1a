/*
 * cache.h - a bounded cache of finished API answers (JSON bodies), shared by
 * every worker thread.
 *
 * The database is immutable while it is served (opened read-only; a file
 * replaced or removed is caught by dldb_verify_file, and the server then
 * empties the cache), so an answer, once built, stays right. Keys are
 * normalised requests (dlv_cache_key: the endpoint and its parsed, defaulted
 * parameters, so "?limit=100" and "" share an entry). Memory is capped: an
 * entry counts its key, its body and its bookkeeping, the least recently used
 * entries go first, and a body larger than an eighth of the cap is never
 * kept.
 *
 * Thread safety: one mutex guards the table; bodies are reference counted,
 * so a thread sends a hit after releasing the lock and an eviction meanwhile
 * frees nothing under it.
 *
 * Ownership: dlv_cache_new returns a new cache (NULL for cap 0: every
 * function accepts a NULL cache and then does nothing or finds nothing);
 * free it with dlv_cache_free(&c) once no thread uses it. dlv_cache_get
 * returns a reference the caller gives back with dlv_cache_release.
 */
#ifndef DLV_CACHE_H
#define DLV_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct dlv_cache dlv_cache;

/* One cached answer (read-only for the holder of a reference). */
typedef struct dlv_cache_entry {
  const char *body;
  size_t len;
} dlv_cache_entry;

typedef struct dlv_cache_stats {
  size_t bytes;        /* accounted bytes held */
  size_t cap;          /* the cap, bytes */
  int64_t entries;
  int64_t hits, misses, evictions, clears;
} dlv_cache_stats;

/* A cache holding at most cap_bytes; NULL (no cache) for 0 or out of memory. */
dlv_cache *dlv_cache_new(size_t cap_bytes);
void dlv_cache_free(dlv_cache **c);

/* The entry for key with a reference taken, or NULL. */
const dlv_cache_entry *dlv_cache_get(dlv_cache *c, const char *key);
void dlv_cache_release(dlv_cache *c, const dlv_cache_entry *e);

/* Stores a copy of body under key (replacing an entry of that key), evicting
 * the least recently used entries to stay under the cap. Does nothing when
 * the body is too large or memory is short. */
void dlv_cache_put(dlv_cache *c, const char *key, const char *body, size_t len);

/* Drops every entry (entries still referenced are freed on release). */
void dlv_cache_clear(dlv_cache *c);

void dlv_cache_get_stats(dlv_cache *c, dlv_cache_stats *out);

/* A normalised key builder: appends name=value pairs, each value
 * length-prefixed so that no value can forge a separator. Returns 0, or -1
 * when the key does not fit (the request is then not cached). */
typedef struct dlv_cache_key {
  char s[2048];
  size_t len;
  int overflow;
} dlv_cache_key;
void dlv_cache_key_init(dlv_cache_key *k, const char *endpoint);
void dlv_cache_key_add(dlv_cache_key *k, const char *name, const char *value);
void dlv_cache_key_int(dlv_cache_key *k, const char *name, int64_t value);
/* The key text, or NULL after an overflow. */
const char *dlv_cache_key_text(const dlv_cache_key *k);

#endif
