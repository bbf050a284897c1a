/*
 * strtab.c - interned strings (strtab.h): FNV-1a, open addressing, one
 * mutex. Callers on hot paths keep their own pointer cache in front of it.
 */
#include "strtab.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dlc_strtab {
  pthread_mutex_t mu;
  char **slots;     /* owned copies; NULL: empty */
  uint64_t *hashes;
  size_t cap, n;
};

dlc_strtab *dlc_strtab_new(void) {
  dlc_strtab *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  pthread_mutex_init(&t->mu, NULL);
  return t;
}

void dlc_strtab_free(dlc_strtab **pt) {
  if (!pt || !*pt) return;
  dlc_strtab *t = *pt;
  *pt = NULL;
  for (size_t i = 0; i < t->cap; i++) free(t->slots[i]);
  free(t->slots);
  free(t->hashes);
  pthread_mutex_destroy(&t->mu);
  free(t);
}

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static int grow(dlc_strtab *t) {
  size_t ncap = t->cap ? t->cap * 2 : 256;
  char **ns = calloc(ncap, sizeof *ns);
  uint64_t *nh = calloc(ncap, sizeof *nh);
  if (!ns || !nh) {
    free(ns);
    free(nh);
    return -1;
  }
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->slots[i]) continue;
    size_t j = t->hashes[i] & (ncap - 1);
    while (ns[j]) j = (j + 1) & (ncap - 1);
    ns[j] = t->slots[i];
    nh[j] = t->hashes[i];
  }
  free(t->slots);
  free(t->hashes);
  t->slots = ns;
  t->hashes = nh;
  t->cap = ncap;
  return 0;
}

const char *dlc_strtab_intern(dlc_strtab *t, const char *s) {
  const char *out = NULL;
  if (!s) s = "";
  uint64_t h = hash(s);
  pthread_mutex_lock(&t->mu);
  if ((t->n + 1) * 2 > t->cap && grow(t)) goto out;
  size_t j = h & (t->cap - 1);
  for (; t->slots[j]; j = (j + 1) & (t->cap - 1)) {
    if (t->hashes[j] == h && strcmp(t->slots[j], s) == 0) {
      out = t->slots[j];
      goto out;
    }
  }
  if (!(t->slots[j] = strdup(s))) goto out;
  t->hashes[j] = h;
  t->n++;
  out = t->slots[j];
out:
  pthread_mutex_unlock(&t->mu);
  return out;
}

size_t dlc_strtab_count(dlc_strtab *t) {
  pthread_mutex_lock(&t->mu);
  size_t n = t->n;
  pthread_mutex_unlock(&t->mu);
  return n;
}
