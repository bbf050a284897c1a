/*
 * strtab.c - interned strings (strtab.h): the copies in one array, found
 * through common's string map (dl_map.h), behind one mutex. Callers on hot
 * paths keep their own pointer cache in front of it.
 */
#include "strtab.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_map.h"

struct dlc_strtab {
  pthread_mutex_t mu;
  char **strs;      /* owned copies, in the order first seen */
  size_t n, cap;
  dl_smap index;    /* copy -> its place in strs (keys borrowed from strs) */
};

dlc_strtab *dlc_strtab_new(void) {
  dlc_strtab *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  pthread_mutex_init(&t->mu, NULL);
  dl_smap_init(&t->index);
  return t;
}

void dlc_strtab_free(dlc_strtab **pt) {
  if (!pt || !*pt) return;
  dlc_strtab *t = *pt;
  *pt = NULL;
  dl_smap_free(&t->index);
  for (size_t i = 0; i < t->n; i++) free(t->strs[i]);
  free(t->strs);
  pthread_mutex_destroy(&t->mu);
  free(t);
}

/* Appends a copy of s; returns it, or NULL when out of memory. */
static const char *add(dlc_strtab *t, const char *s) {
  if (t->n == t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 256;
    char **ns = realloc(t->strs, ncap * sizeof *ns);
    if (!ns) return NULL;
    t->strs = ns;
    t->cap = ncap;
  }
  char *copy = strdup(s);
  if (!copy) return NULL;
  if (dl_smap_put(&t->index, copy, (int64_t)t->n)) {
    free(copy);
    return NULL;
  }
  t->strs[t->n++] = copy;
  return copy;
}

const char *dlc_strtab_intern(dlc_strtab *t, const char *s) {
  if (!s) s = "";
  pthread_mutex_lock(&t->mu);
  int64_t i = dl_smap_get(&t->index, s);
  const char *out = i >= 0 ? t->strs[i] : add(t, s);
  pthread_mutex_unlock(&t->mu);
  return out;
}

size_t dlc_strtab_count(dlc_strtab *t) {
  pthread_mutex_lock(&t->mu);
  size_t n = t->n;
  pthread_mutex_unlock(&t->mu);
  return n;
}
