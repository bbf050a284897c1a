/* compares.c - the cache of comparisons (see compares.h). */
#include "compares.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_compare.h"

const char *const dlv_compare_tables[DLV_COMPARE_TABLES] = {
    "dl_compare_kernels", "dl_compare_ops", "dl_compare_summary", "dl_compare_iterations"};

/* An entry with its key, lock and references. */
typedef struct entry {
  dlv_compare_entry pub; /* first: a dlv_compare_entry * is an entry * */
  char *key;
  pthread_mutex_t lock;
  int refs;
  int kept;              /* 1 while in the table */
  unsigned long long used;
} entry;

struct dlv_compares {
  pthread_mutex_t lock;
  entry **v;
  int n, cap;
  unsigned long long tick;
  unsigned ids;
};

dlv_compares *dlv_compares_new(int cap) {
  dlv_compares *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->v = calloc((size_t)cap, sizeof *c->v);
  if (!c->v || pthread_mutex_init(&c->lock, NULL) != 0) {
    free(c->v);
    free(c);
    return NULL;
  }
  c->cap = cap;
  return c;
}

static void entry_free(entry *e) {
  if (!e) return;
  dldb_close(&e->pub.db);
  for (int t = 0; t < DLV_COMPARE_TABLES; t++) {
    for (int k = 0; k < e->pub.cols[t].n; k++) free(e->pub.cols[t].names[k]);
    free(e->pub.cols[t].names);
    free(e->pub.cols[t].types);
  }
  pthread_mutex_destroy(&e->lock);
  free(e->key);
  free(e);
}

void dlv_compares_free(dlv_compares **pc) {
  if (!pc || !*pc) return;
  dlv_compares *c = *pc;
  for (int i = 0; i < c->n; i++) entry_free(c->v[i]);
  free(c->v);
  pthread_mutex_destroy(&c->lock);
  free(c);
  *pc = NULL;
}

/* Copies the columns of table t of db into vc. */
static int copy_cols(dldb *db, const char *table, dlv_viewcat *vc) {
  const char *const *names;
  const dldb_coltype *types;
  int n = dldb_view_columns(db, table, &names, &types);
  if (n <= 0) return n < 0 ? n : DL_ENOTFOUND;
  vc->names = calloc((size_t)n, sizeof *vc->names);
  vc->types = calloc((size_t)n, sizeof *vc->types);
  if (!vc->names || !vc->types) return DL_ENOMEM;
  for (int k = 0; k < n; k++) {
    if (!(vc->names[k] = strdup(names[k]))) return DL_ENOMEM;
    vc->types[k] = types[k];
    vc->n = k + 1;
  }
  vc->present = 1;
  return DL_OK;
}

/* A new entry comparing the two files. */
static int build(const char *const paths[2], const char *const names[2], const char *key,
                 entry **out, char *err, size_t errlen) {
  entry *e = calloc(1, sizeof *e);
  *out = NULL;
  if (!e || pthread_mutex_init(&e->lock, NULL) != 0) {
    free(e);
    return dl_err(err, errlen, DL_ENOMEM, "out of memory");
  }
  int rc = (e->key = strdup(key)) ? DL_OK : DL_ENOMEM;
  if (rc == DL_OK) rc = dldb_compare_files(paths[0], paths[1], names, &e->pub.db, err, errlen);
  for (int t = 0; t < DLV_COMPARE_TABLES && rc == DL_OK; t++) {
    rc = copy_cols(e->pub.db, dlv_compare_tables[t], &e->pub.cols[t]);
    if (rc) dl_err(err, errlen, rc, "the comparison has no table %s", dlv_compare_tables[t]);
  }
  if (rc == DL_ENOMEM) dl_err(err, errlen, rc, "out of memory");
  if (rc != DL_OK) {
    entry_free(e);
    return rc;
  }
  *out = e;
  return DL_OK;
}

static entry *find(dlv_compares *c, const char *key) {
  for (int i = 0; i < c->n; i++)
    if (strcmp(c->v[i]->key, key) == 0) return c->v[i];
  return NULL;
}

/* Keeps e (the lock held), dropping the least recently used unreferenced
 * entry when the table is full; e stays unkept when every entry is held. */
static void keep(dlv_compares *c, entry *e) {
  if (c->n == c->cap) {
    int lru = -1;
    for (int i = 0; i < c->n; i++)
      if (!c->v[i]->refs && (lru < 0 || c->v[i]->used < c->v[lru]->used)) lru = i;
    if (lru < 0) return;
    entry_free(c->v[lru]);
    c->v[lru] = c->v[--c->n];
  }
  e->kept = 1;
  c->v[c->n++] = e;
}

int dlv_compares_get(dlv_compares *c, const char *const paths[2], const char *const idents[2],
                     const char *const names[2], dlv_compare_entry **out, char *err,
                     size_t errlen) {
  char key[1024];
  entry *e = NULL;
  snprintf(key, sizeof key, "%s|%s|%s|%s", paths[0], idents[0], paths[1], idents[1]);
  if (c) {
    pthread_mutex_lock(&c->lock);
    if ((e = find(c, key)) != NULL) {
      e->refs++;
      e->used = ++c->tick;
    }
    pthread_mutex_unlock(&c->lock);
  }
  if (e) {
    *out = &e->pub;
    return DL_OK;
  }
  int rc = build(paths, names, key, &e, err, errlen);
  if (rc != DL_OK) return rc;
  if (c) {
    pthread_mutex_lock(&c->lock);
    entry *other = find(c, key); /* built meanwhile by another request */
    if (other) {
      entry_free(e);
      e = other;
    } else {
      e->pub.id = ++c->ids;
      keep(c, e);
    }
    e->refs++;
    e->used = ++c->tick;
    pthread_mutex_unlock(&c->lock);
  } else {
    e->refs = 1;
  }
  *out = &e->pub;
  return DL_OK;
}

void dlv_compares_release(dlv_compares *c, dlv_compare_entry *pub) {
  entry *e = (entry *)pub;
  if (!e) return;
  if (c) pthread_mutex_lock(&c->lock);
  int drop = --e->refs == 0 && !e->kept;
  if (c) pthread_mutex_unlock(&c->lock);
  if (drop) entry_free(e);
}

void dlv_compares_lock(dlv_compare_entry *e) { pthread_mutex_lock(&((entry *)e)->lock); }
void dlv_compares_unlock(dlv_compare_entry *e) { pthread_mutex_unlock(&((entry *)e)->lock); }
