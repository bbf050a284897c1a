/* cache.c - the bounded answer cache (see cache.h). */
#include "cache.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096 /* a power of two */

typedef struct entry {
  dlv_cache_entry pub;     /* first: the public view is the entry */
  char *key;
  uint64_t hash;
  size_t cost;             /* accounted bytes */
  int refs;                /* the table's reference + holders'; under the mutex */
  int linked;              /* in the table and the LRU list */
  struct entry *next;      /* bucket chain */
  struct entry *lru_prev;  /* towards the most recently used */
  struct entry *lru_next;
} entry;

struct dlv_cache {
  pthread_mutex_t mu;
  size_t cap, bytes;
  entry *buckets[BUCKETS];
  entry *mru, *lru;        /* list ends */
  int64_t entries, hits, misses, evictions, clears;
};

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

dlv_cache *dlv_cache_new(size_t cap_bytes) {
  if (cap_bytes == 0) return NULL;
  dlv_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (pthread_mutex_init(&c->mu, NULL) != 0) {
    free(c);
    return NULL;
  }
  c->cap = cap_bytes;
  return c;
}

static void entry_free(entry *e) {
  free(e->key);
  free((char *)e->pub.body);
  free(e);
}

/* Under the mutex: drops the table's reference of a linked entry. */
static void unlink_entry(dlv_cache *c, entry *e) {
  entry **pp = &c->buckets[e->hash & (BUCKETS - 1)];
  while (*pp && *pp != e) pp = &(*pp)->next;
  if (*pp) *pp = e->next;
  if (e->lru_prev) e->lru_prev->lru_next = e->lru_next;
  else c->mru = e->lru_next;
  if (e->lru_next) e->lru_next->lru_prev = e->lru_prev;
  else c->lru = e->lru_prev;
  e->linked = 0;
  c->bytes -= e->cost;
  c->entries--;
  if (--e->refs == 0) entry_free(e);
}

static void to_front(dlv_cache *c, entry *e) {
  if (c->mru == e) return;
  if (e->lru_prev) e->lru_prev->lru_next = e->lru_next;
  if (e->lru_next) e->lru_next->lru_prev = e->lru_prev;
  else c->lru = e->lru_prev;
  e->lru_prev = NULL;
  e->lru_next = c->mru;
  if (c->mru) c->mru->lru_prev = e;
  c->mru = e;
  if (!c->lru) c->lru = e;
}

static entry *find(dlv_cache *c, const char *key, uint64_t h) {
  for (entry *e = c->buckets[h & (BUCKETS - 1)]; e; e = e->next)
    if (e->hash == h && strcmp(e->key, key) == 0) return e;
  return NULL;
}

const dlv_cache_entry *dlv_cache_get(dlv_cache *c, const char *key) {
  if (!c || !key) return NULL;
  uint64_t h = hash_str(key);
  pthread_mutex_lock(&c->mu);
  entry *e = find(c, key, h);
  if (e) {
    e->refs++;
    to_front(c, e);
    c->hits++;
  } else {
    c->misses++;
  }
  pthread_mutex_unlock(&c->mu);
  return e ? &e->pub : NULL;
}

void dlv_cache_release(dlv_cache *c, const dlv_cache_entry *pub) {
  if (!c || !pub) return;
  entry *e = (entry *)pub;
  pthread_mutex_lock(&c->mu);
  int last = --e->refs == 0;
  pthread_mutex_unlock(&c->mu);
  if (last) entry_free(e);
}

void dlv_cache_put(dlv_cache *c, const char *key, const char *body, size_t len) {
  if (!c || !key) return;
  size_t klen = strlen(key);
  size_t cost = sizeof(entry) + klen + 1 + len + 1;
  if (cost > c->cap / 8) return;
  entry *e = calloc(1, sizeof *e);
  char *k = malloc(klen + 1), *b = malloc(len + 1);
  if (!e || !k || !b) {
    free(e);
    free(k);
    free(b);
    return;
  }
  memcpy(k, key, klen + 1);
  memcpy(b, body, len);
  b[len] = '\0';
  e->key = k;
  e->pub.body = b;
  e->pub.len = len;
  e->hash = hash_str(key);
  e->cost = cost;
  e->refs = 1;
  pthread_mutex_lock(&c->mu);
  entry *old = find(c, key, e->hash);
  if (old) unlink_entry(c, old); /* another thread built the same answer */
  while (c->lru && c->bytes + cost > c->cap) {
    unlink_entry(c, c->lru);
    c->evictions++;
  }
  e->next = c->buckets[e->hash & (BUCKETS - 1)];
  c->buckets[e->hash & (BUCKETS - 1)] = e;
  e->lru_next = c->mru;
  if (c->mru) c->mru->lru_prev = e;
  c->mru = e;
  if (!c->lru) c->lru = e;
  e->linked = 1;
  c->bytes += cost;
  c->entries++;
  pthread_mutex_unlock(&c->mu);
}

void dlv_cache_clear(dlv_cache *c) {
  if (!c) return;
  pthread_mutex_lock(&c->mu);
  int any = c->mru != NULL;
  while (c->mru) unlink_entry(c, c->mru);
  if (any) c->clears++;
  pthread_mutex_unlock(&c->mu);
}

void dlv_cache_get_stats(dlv_cache *c, dlv_cache_stats *out) {
  memset(out, 0, sizeof *out);
  if (!c) return;
  pthread_mutex_lock(&c->mu);
  out->bytes = c->bytes;
  out->cap = c->cap;
  out->entries = c->entries;
  out->hits = c->hits;
  out->misses = c->misses;
  out->evictions = c->evictions;
  out->clears = c->clears;
  pthread_mutex_unlock(&c->mu);
}

void dlv_cache_free(dlv_cache **pc) {
  if (!pc || !*pc) return;
  dlv_cache *c = *pc;
  while (c->mru) unlink_entry(c, c->mru);
  pthread_mutex_destroy(&c->mu);
  free(c);
  *pc = NULL;
}

/* ---- Keys ----------------------------------------------------------------- */

static void key_put(dlv_cache_key *k, const char *s, size_t n) {
  if (k->overflow || k->len + n + 1 > sizeof k->s) {
    k->overflow = 1;
    return;
  }
  memcpy(k->s + k->len, s, n);
  k->len += n;
  k->s[k->len] = '\0';
}

void dlv_cache_key_init(dlv_cache_key *k, const char *endpoint) {
  k->len = 0;
  k->overflow = 0;
  k->s[0] = '\0';
  key_put(k, endpoint, strlen(endpoint));
}

void dlv_cache_key_add(dlv_cache_key *k, const char *name, const char *value) {
  char len[24];
  size_t vn = strlen(value);
  int n = snprintf(len, sizeof len, "=%zu:", vn);
  key_put(k, "&", 1);
  key_put(k, name, strlen(name));
  key_put(k, len, (size_t)n);
  key_put(k, value, vn);
}

void dlv_cache_key_int(dlv_cache_key *k, const char *name, int64_t value) {
  char v[24];
  snprintf(v, sizeof v, "%" PRId64, value);
  dlv_cache_key_add(k, name, v);
}

const char *dlv_cache_key_text(const dlv_cache_key *k) { return k->overflow ? NULL : k->s; }
