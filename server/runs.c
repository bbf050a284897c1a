/* runs.c - the table of served databases: ids, folder scans, pins, the
 * LRU of open runs and the runs list's rows (see runs.h). */
#include "runs.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One served file. */
typedef struct run {
  char id[DLV_RUN_ID_LEN];
  char *name;              /* as given, or relative to its folder */
  char *display;           /* what the runs list calls it: name without folder (given
                              files) and without its extension */
  char *path;              /* what is opened */
  int gone;                /* its folder no longer lists it */
  int given;               /* named on the command line (not found in a folder) */
  /* open state */
  dldb *db;                /* NULL: closed */
  dlv_catalog *cat;        /* kept when db is closed: reused while the file is unchanged */
  struct stat open_st;     /* the file's version cat and gen describe */
  unsigned gen;
  int pins;
  uint64_t used;           /* tick of the last pin */
  dlv_catalog **old_cats;  /* replaced catalogs, freed when no request holds the run */
  size_t nold;
  /* the last file it could not serve (not opened again until it changes), and why */
  int bad;
  struct stat bad_st;
  char bad_err[512];
  /* the runs list's row, for the file version meta_st */
  int meta_ok;
  struct stat meta_st;
  dlv_run_meta meta;
} run;

/* A scanned folder. */
typedef struct scandir_ent {
  char *path;
  char *rel;               /* relative to its root folder, "" for the root */
  struct timespec mtime;
  int read;                /* read at least once */
} scandir_ent;

struct dlv_runs {
  pthread_mutex_t lock;
  run **v;
  int n, cap;
  scandir_ent *dirs;
  int ndirs, capdirs;
  int multi;               /* several paths or a folder were given */
  int open_count;
  uint64_t tick;
  unsigned gens;
};

static uint32_t hash_path(const char *s, uint32_t salt) {
  uint64_t h = 1469598103934665603ull ^ salt;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (uint32_t)(h ^ (h >> 32));
}

static run *find_path(dlv_runs *rs, const char *path) {
  for (int i = 0; i < rs->n; i++)
    if (strcmp(rs->v[i]->path, path) == 0) return rs->v[i];
  return NULL;
}

static int find_id(dlv_runs *rs, const char *id) {
  for (int i = 0; i < rs->n; i++)
    if (strcmp(rs->v[i]->id, id) == 0) return i;
  return -1;
}

/* Adds a run (or marks a known one present again). DL_OK or DL_ENOMEM. */
static int add_run(dlv_runs *rs, const char *path, const char *name, int given) {
  run *known = find_path(rs, path);
  if (known) {
    known->gone = 0;
    return DL_OK;
  }
  if (rs->n == rs->cap) {
    int cap = rs->cap ? rs->cap * 2 : 16;
    run **v = realloc(rs->v, (size_t)cap * sizeof *v);
    if (!v) return DL_ENOMEM;
    rs->v = v;
    rs->cap = cap;
  }
  run *r = calloc(1, sizeof *r);
  const char *slash = strrchr(name, '/');
  if (!r || !(r->path = strdup(path)) || !(r->name = strdup(name)) ||
      !(r->display = strdup(given && slash ? slash + 1 : name))) {
    if (r) {
      free(r->path);
      free(r->name);
    }
    free(r);
    return DL_ENOMEM;
  }
  char *dot = strrchr(r->display, '.');
  if (dot && dot != r->display && !strchr(dot, '/')) *dot = '\0';
  for (uint32_t salt = 0;; salt++) { /* a colliding id is hashed again */
    snprintf(r->id, sizeof r->id, "%08x", (unsigned)hash_path(path, salt));
    if (find_id(rs, r->id) < 0) break;
  }
  r->given = given;
  rs->v[rs->n++] = r;
  return DL_OK;
}

/* 1 when the file starts with SQLite's header. */
static int is_sqlite(const char *path) {
  static const char magic[16] = "SQLite format 3";
  char head[16];
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return n == sizeof head && memcmp(head, magic, sizeof magic) == 0;
}

static int add_dir(dlv_runs *rs, const char *path, const char *rel) {
  for (int i = 0; i < rs->ndirs; i++)
    if (strcmp(rs->dirs[i].path, path) == 0) return DL_OK;
  if (rs->ndirs == rs->capdirs) {
    int cap = rs->capdirs ? rs->capdirs * 2 : 8;
    scandir_ent *d = realloc(rs->dirs, (size_t)cap * sizeof *d);
    if (!d) return DL_ENOMEM;
    rs->dirs = d;
    rs->capdirs = cap;
  }
  scandir_ent *d = &rs->dirs[rs->ndirs];
  memset(d, 0, sizeof *d);
  if (!(d->path = strdup(path)) || !(d->rel = strdup(rel))) {
    free(d->path);
    return DL_ENOMEM;
  }
  rs->ndirs++;
  return DL_OK;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of a folder's entries, sorted, skipping dot files and SQLite's
 * side files. *out is a new array of new strings. */
static int list_dir(const char *path, char ***out, int *n) {
  DIR *d = opendir(path);
  *out = NULL;
  *n = 0;
  if (!d) return DL_EIO;
  int cap = 0, rc = DL_OK;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    const char *s = e->d_name;
    size_t len = strlen(s);
    if (s[0] == '.' || (len > 8 && strcmp(s + len - 8, "-journal") == 0) ||
        (len > 4 && (strcmp(s + len - 4, "-wal") == 0 || strcmp(s + len - 4, "-shm") == 0)))
      continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 32;
      char **v = realloc(*out, (size_t)cap * sizeof *v);
      if (!v) {
        rc = DL_ENOMEM;
        break;
      }
      *out = v;
    }
    if (!((*out)[*n] = strdup(s))) {
      rc = DL_ENOMEM;
      break;
    }
    (*n)++;
  }
  closedir(d);
  if (*n) qsort(*out, (size_t)*n, sizeof **out, by_name);
  return rc;
}

/* Reads folder k: its dldbs become runs, its folders are scanned too;
 * runs it no longer lists are marked gone. */
static void read_dir(dlv_runs *rs, int k) {
  char **names = NULL;
  int n = 0;
  char *path = rs->dirs[k].path, *rel = rs->dirs[k].rel;
  list_dir(path, &names, &n);
  rs->dirs[k].read = 1;
  size_t plen = strlen(path);
  for (int i = 0; i < rs->n; i++) { /* this folder's runs: gone unless listed below */
    run *r = rs->v[i];
    if (strncmp(r->path, path, plen) == 0 && r->path[plen] == '/' && !strchr(r->path + plen + 1, '/'))
      r->gone = 1;
  }
  for (int i = 0; i < n; i++) {
    char full[4096], name[4096];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", path, names[i]);
    snprintf(name, sizeof name, "%s%s%s", rel, *rel ? "/" : "", names[i]);
    if (stat(full, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) add_dir(rs, full, name);
    else if (S_ISREG(st.st_mode) && (find_path(rs, full) || is_sqlite(full))) add_run(rs, full, name, 0);
  }
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* Reads every folder whose modification time changed (new ones included). */
static void rescan_locked(dlv_runs *rs) {
  for (int k = 0; k < rs->ndirs; k++) { /* ndirs grows as subfolders are found */
    struct stat st;
    if (stat(rs->dirs[k].path, &st) != 0) continue;
    if (rs->dirs[k].read && st.st_mtim.tv_sec == rs->dirs[k].mtime.tv_sec &&
        st.st_mtim.tv_nsec == rs->dirs[k].mtime.tv_nsec)
      continue;
    rs->dirs[k].mtime = st.st_mtim;
    read_dir(rs, k);
  }
}

int dlv_runs_new(const char *const *paths, int n, dlv_runs **out, char *err, size_t errlen) {
  int rc = DL_OK;
  dlv_runs *rs = calloc(1, sizeof *rs);
  *out = NULL;
  if (!rs || pthread_mutex_init(&rs->lock, NULL) != 0) {
    free(rs);
    return dl_err(err, errlen, DL_ENOMEM, "out of memory");
  }
  for (int i = 0; i < n && rc == DL_OK; i++) {
    struct stat st;
    char path[4096];
    snprintf(path, sizeof path, "%s", paths[i]);
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') path[--len] = '\0';
    if (stat(path, &st) != 0)
      rc = dl_err(err, errlen, DL_ENOTFOUND, "%s: no such file or folder", paths[i]);
    else if (S_ISDIR(st.st_mode) && (rc = add_dir(rs, path, "")) == DL_OK)
      rescan_locked(rs); /* its runs come before those of the paths after it */
    else if (!S_ISDIR(st.st_mode))
      rc = add_run(rs, path, paths[i], 1);
  }
  rs->multi = n > 1 || rs->ndirs > 0;
  if (rc == DL_OK) rescan_locked(rs);
  if (rc == DL_ENOMEM) dl_err(err, errlen, rc, "out of memory");
  if (rc != DL_OK) {
    dlv_runs_free(&rs);
    return rc;
  }
  *out = rs;
  return DL_OK;
}

static void close_run(dlv_runs *rs, run *r) {
  if (r->db) rs->open_count--;
  dldb_close(&r->db);
  dlv_catalog_free(&r->cat);
  for (size_t i = 0; i < r->nold; i++) dlv_catalog_free(&r->old_cats[i]);
  free(r->old_cats);
  r->old_cats = NULL;
  r->nold = 0;
}

void dlv_runs_free(dlv_runs **prs) {
  if (!prs || !*prs) return;
  dlv_runs *rs = *prs;
  for (int i = 0; i < rs->n; i++) {
    close_run(rs, rs->v[i]);
    free(rs->v[i]->name);
    free(rs->v[i]->display);
    free(rs->v[i]->path);
    free(rs->v[i]);
  }
  for (int i = 0; i < rs->ndirs; i++) {
    free(rs->dirs[i].path);
    free(rs->dirs[i].rel);
  }
  free(rs->dirs);
  free(rs->v);
  pthread_mutex_destroy(&rs->lock);
  free(rs);
  *prs = NULL;
}

void dlv_runs_rescan(dlv_runs *rs) {
  pthread_mutex_lock(&rs->lock);
  rescan_locked(rs);
  pthread_mutex_unlock(&rs->lock);
}

int dlv_runs_count(dlv_runs *rs) {
  pthread_mutex_lock(&rs->lock);
  int n = rs->n;
  pthread_mutex_unlock(&rs->lock);
  return n;
}

int dlv_runs_multi(dlv_runs *rs) { return rs->multi; }

int dlv_runs_find(dlv_runs *rs, const char *id) {
  int found = -1;
  pthread_mutex_lock(&rs->lock);
  if (id) found = find_id(rs, id);
  for (int i = 0; !id && i < rs->n && found < 0; i++)
    if (!rs->v[i]->gone) found = i;
  pthread_mutex_unlock(&rs->lock);
  return found;
}

void dlv_runs_id(dlv_runs *rs, int i, char *id) {
  pthread_mutex_lock(&rs->lock);
  snprintf(id, DLV_RUN_ID_LEN, "%s", i >= 0 && i < rs->n ? rs->v[i]->id : "");
  pthread_mutex_unlock(&rs->lock);
}

int dlv_runs_file(dlv_runs *rs, int i, char *path, size_t pathlen, char *name, size_t namelen,
                  char *ident, size_t identlen) {
  struct stat st;
  pthread_mutex_lock(&rs->lock);
  snprintf(path, pathlen, "%s", rs->v[i]->path);
  snprintf(name, namelen, "%s", rs->v[i]->name);
  pthread_mutex_unlock(&rs->lock);
  if (stat(path, &st) != 0) return DL_ENOTFOUND;
  snprintf(ident, identlen, "%llu:%llu:%lld:%lld.%09ld", (unsigned long long)st.st_dev,
           (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
           st.st_mtim.tv_nsec);
  return DL_OK;
}

/* Closes r's handle, keeping its catalog and gen for a reopening of the
 * same file version. */
static void close_db(dlv_runs *rs, run *r) {
  if (r->db) rs->open_count--;
  dldb_close(&r->db);
}

/* Closes the least recently used unpinned runs beyond DLV_RUNS_OPEN_MAX. */
static void evict(dlv_runs *rs) {
  while (rs->open_count > DLV_RUNS_OPEN_MAX) {
    run *lru = NULL;
    for (int i = 0; i < rs->n; i++) {
      run *r = rs->v[i];
      if (r->db && !r->pins && (!lru || r->used < lru->used)) lru = r;
    }
    if (!lru) return; /* every open run is pinned */
    close_db(rs, lru);
  }
}

static int same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* What opening a run's file needs to know of the run, copied under the
 * lock so that the file is opened and checked without it. */
typedef struct open_req {
  char path[4096];
  int bad;                 /* the run's last file could not be served: */
  struct stat bad_st;      /* that version, */
  char bad_err[512];       /* and why */
  const char *what;        /* how a refusal is worded (NULL: the reason alone) */
} open_req;

/* Opens the file at o->path as it is now into db and cat (its version in
 * *st); a file it could not serve before (the same version) is refused with
 * the same reason. Runs without the runs lock: dldb_open_ro's quick check
 * reads every page of the file. *refused: 1 when this version is not to be
 * tried again. */
static int open_file(const open_req *o, dldb **db, dlv_catalog **cat, struct stat *st,
                     int *refused, char *err, size_t errlen) {
  char why[400];
  int rc;
  *refused = 0;
  memset(st, 0, sizeof *st);
  if (stat(o->path, st) != 0)
    return dl_err(err, errlen, DL_ENOTFOUND, "the database %s was removed", o->path);
  if (o->bad && same_file(st, &o->bad_st)) return dl_err(err, errlen, DL_EIO, "%s", o->bad_err);
  if ((rc = dldb_open_ro(o->path, db, NULL, why, sizeof why)) != DL_OK ||
      (rc = dlv_catalog_load(*db, cat, why, sizeof why)) != DL_OK) {
    dldb_close(db);
    if (o->what) dl_err(err, errlen, rc, "the database %s was %s (%s)", o->path, o->what, why);
    else dl_err(err, errlen, rc, "%s", why);
    *refused = rc != DL_ENOMEM;
    return rc;
  }
  return DL_OK;
}

/* Opens r's file anew (r pinned, the lock held on entry and on return, not
 * while the file is opened and checked) and serves it from then on: a new
 * catalog and gen, the old catalog kept for the requests that hold it. r
 * open (was_open): its file was replaced. Another request may have opened
 * the same version meanwhile: that one is kept. */
static int open_anew(dlv_runs *rs, run *r, int was_open, char *err, size_t errlen) {
  open_req *o = malloc(sizeof *o);
  if (!o) return dl_err(err, errlen, DL_ENOMEM, "out of memory");
  snprintf(o->path, sizeof o->path, "%s", r->path);
  o->bad = r->bad;
  o->bad_st = r->bad_st;
  snprintf(o->bad_err, sizeof o->bad_err, "%s", r->bad_err);
  o->what = was_open ? "replaced by a file dlprofviewer cannot serve" : NULL;
  unsigned gen0 = r->gen;
  dldb *db = NULL;
  dlv_catalog *cat = NULL;
  struct stat st;
  int refused;
  pthread_mutex_unlock(&rs->lock);
  int rc = open_file(o, &db, &cat, &st, &refused, err, errlen);
  free(o);
  pthread_mutex_lock(&rs->lock);
  if (rc != DL_OK) {
    if (refused) {
      r->bad = 1;
      r->bad_st = st;
      snprintf(r->bad_err, sizeof r->bad_err, "%s", err);
    }
    return rc;
  }
  r->bad = 0;
  if (r->gen != gen0 && r->cat && same_file(&st, &r->open_st)) { /* opened meanwhile */
    dldb_close(&db);
    dlv_catalog_free(&cat);
    return DL_OK;
  }
  dlv_catalog **old = realloc(r->old_cats, (r->nold + 1) * sizeof *old);
  if (!old) {
    dldb_close(&db);
    dlv_catalog_free(&cat);
    return dl_err(err, errlen, DL_ENOMEM, "out of memory");
  }
  r->old_cats = old;
  if (r->cat) r->old_cats[r->nold++] = r->cat;
  if (r->db) dldb_close(&r->db);
  else rs->open_count++;
  r->db = db;
  r->cat = cat;
  r->open_st = st;
  r->gen = ++rs->gens;
  if (was_open)
    fprintf(stderr, "dlprofviewer: %s was replaced: serving the new file (aggregation %lld)\n",
            r->path, (long long)dldb_get_info(r->db)->default_aggr_id);
  evict(rs);
  return DL_OK;
}

/* Pins r with the lock held. A closed run whose file is the version its
 * catalog describes (one stat) is not opened: each thread opens its own
 * handle on that version (dlv_runs_open_again), and answers of its gen
 * stay in the cache. Another version is opened and checked anew, outside
 * the lock (open_anew), so that requests for other runs go on meanwhile. */
static int pin_locked(dlv_runs *rs, run *r, dlv_run_pin *pin, char *err, size_t errlen) {
  int rc = DL_OK;
  struct stat st;
  r->pins++;
  r->used = ++rs->tick;
  if (r->db) {
    rc = dldb_verify_file(r->db, err, errlen);
    if (rc != DL_OK) pin->changed = 1;
    if (rc == DL_EIO) rc = open_anew(rs, r, 1, err, errlen);
  } else if (!r->cat || stat(r->path, &st) != 0 || !same_file(&st, &r->open_st)) {
    pin->changed = r->cat != NULL;
    rc = open_anew(rs, r, 0, err, errlen);
  }
  pin->cat = r->cat;
  pin->gen = r->gen;
  pin->verified = rc == DL_OK;
  return rc;
}

int dlv_runs_pin(dlv_runs *rs, int i, dlv_run_pin *pin, char *err, size_t errlen) {
  memset(pin, 0, sizeof *pin);
  pin->index = -1;
  pthread_mutex_lock(&rs->lock);
  int rc = DL_ENOTFOUND;
  if (i >= 0 && i < rs->n) {
    pin->index = i;
    rc = pin_locked(rs, rs->v[i], pin, err, errlen);
  }
  pthread_mutex_unlock(&rs->lock);
  return rc;
}

void dlv_runs_unpin(dlv_runs *rs, dlv_run_pin *pin) {
  if (pin->index < 0) return;
  pthread_mutex_lock(&rs->lock);
  run *r = rs->v[pin->index];
  if (--r->pins == 0) {
    for (size_t k = 0; k < r->nold; k++) dlv_catalog_free(&r->old_cats[k]);
    r->nold = 0;
    evict(rs);
  }
  pthread_mutex_unlock(&rs->lock);
  pin->index = -1;
}

int dlv_runs_open_again(dlv_runs *rs, const dlv_run_pin *pin, dldb **out, char *err,
                        size_t errlen) {
  char path[4096];
  pthread_mutex_lock(&rs->lock);
  run *r = rs->v[pin->index];
  /* closed: the version its catalog describes, checked when it was opened;
   * opened outside the lock */
  int rc = r->gen != pin->gen ? dl_err(err, errlen, DL_EIO, "the database %s changed during the "
                                       "request", r->path)
           : r->db ? dldb_open_again(r->db, out, err, errlen)
                   : 1;
  snprintf(path, sizeof path, "%s", r->path);
  pthread_mutex_unlock(&rs->lock);
  if (rc == 1) rc = dldb_open_ro_written(path, out, NULL, err, errlen);
  return rc;
}

/* ---- the runs list's rows ------------------------------------------------ */

static int col(const dldb_row *row, const char *name) {
  for (int i = 0; i < dldb_row_count(row); i++)
    if (strcmp(dldb_row_name(row, i), name) == 0) return i;
  return -1;
}

static int on_summary(void *ctx, const dldb_row *row) {
  dlv_run_meta *m = ctx;
  int c;
  if ((c = col(row, "profiled_iterations")) >= 0) m->iterations = dldb_row_int(row, c);
  if ((c = col(row, "iter_avg")) >= 0) m->iter_avg = dldb_row_real(row, c);
  if ((c = col(row, "gpu_utilization")) >= 0) m->gpu_utilization = dldb_row_real(row, c);
  return 1;
}

static int on_aggregation(void *ctx, const dldb_row *row) {
  dlv_run_meta *m = ctx;
  int c = col(row, "aggr_start");
  if (c >= 0) snprintf(m->date, sizeof m->date, "%s", dldb_row_text(row, c));
  return 1;
}

static int on_sysconfig(void *ctx, const dldb_row *row) {
  dlv_run_meta *m = ctx;
  int c = col(row, "num_gpus");
  if (c >= 0) m->num_gpus = dldb_row_int(row, c);
  return 1;
}

/* Fills m from the file at path, opened for this alone: without the quick
 * check (it reads every page; the run's first use does it), so that a
 * folder of many dldbs is listed fast. */
static void read_meta(const char *path, dlv_run_meta *m) {
  dldb *db = NULL;
  dldb_info info;
  char aggr[24], err[256];
  m->ok = dldb_open_ro_written(path, &db, &info, m->error, sizeof m->error) == DL_OK;
  if (!m->ok) return;
  snprintf(m->producer, sizeof m->producer, "%s",
           info.producer == DLDB_PRODUCER_DLPROF ? "dlprof" : "nvidia-dlprof");
  snprintf(m->key_op, sizeof m->key_op, "%s", info.default_key_op);
  snprintf(aggr, sizeof aggr, "%lld", (long long)info.default_aggr_id);
  dldb_query q = {.view = "view_aggregations", .aggr_id = -1, .n_eq = 1, .limit = 1};
  q.eq[0].column = "aggr_id";
  q.eq[0].value = aggr;
  dldb_query_rows(db, &q, on_aggregation, m, err, sizeof err);
  if (dldb_has_view(db, "view_system_config")) {
    dldb_query c = {.view = "view_system_config", .aggr_id = -1, .limit = 1};
    dldb_query_rows(db, &c, on_sysconfig, m, err, sizeof err);
  }
  if (dldb_has_view(db, "view_performance_summary")) {
    dldb_query ps = {.view = "view_performance_summary", .aggr_id = info.default_aggr_id,
                     .domain = info.default_domain, .limit = 1};
    dldb_query_rows(db, &ps, on_summary, m, err, sizeof err);
  }
  dldb_close(&db);
}

int dlv_runs_meta(dlv_runs *rs, int i, dlv_run_meta *m) {
  struct stat st;
  char path[4096];
  pthread_mutex_lock(&rs->lock);
  run *r = rs->v[i];
  int present = !r->gone && stat(r->path, &st) == 0;
  int fresh = present && r->meta_ok && same_file(&st, &r->meta_st);
  snprintf(path, sizeof path, "%s", r->path);
  pthread_mutex_unlock(&rs->lock);
  if (!present) return 0;
  memset(m, 0, sizeof *m);
  if (!fresh) read_meta(path, m); /* outside the lock: requests go on meanwhile */
  pthread_mutex_lock(&rs->lock);
  if (!fresh) {
    r->meta = *m;
    r->meta_ok = 1;
    r->meta_st = st;
  }
  *m = r->meta;
  snprintf(m->id, sizeof m->id, "%s", r->id);
  m->given = r->given;
  m->index = i;
  snprintf(m->name, sizeof m->name, "%s", r->display);
  snprintf(m->path, sizeof m->path, "%s", r->name);
  m->file_bytes = (int64_t)st.st_size;
  m->mtime_s = (int64_t)st.st_mtim.tv_sec;
  pthread_mutex_unlock(&rs->lock);
  return 1;
}
