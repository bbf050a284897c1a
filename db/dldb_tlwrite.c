/* dldb_tlwrite.c - the timeline's tables (see dldb_tlwrite.h). One kind of
 * track at a time: its sources read in row order into per-track arrays,
 * then each track sorted, summed, packed and written, or, built ahead
 * (dldb_timeline_build), kept in memory until the writer stores it. */
#include "dldb_tlwrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_sqlbuild.h"
#include "dl_sqlpage.h"
#include "dldb_scan.h"
#include "dldb_tlpack.h"
#include "dldb_write_internal.h"

enum { TK_ITER, TK_GPU, TK_CPU, TK_RANGES, TK_PY, TK_COUNT };

static const char *const kind_names[TK_COUNT] = {"iterations", "gpu_stream", "cpu_thread",
                                                 "cpu_ranges", "python_thread"};

enum { K_PID, K_TID, K_DEV, K_STREAM, K_N };

/* The rows of each kind. Columns: those of the track's key the kind has
 * (has: bit i for key column i, in that order: pid, tid, device, stream;
 * the raw tables declare them NOT NULL), then start, dur, tag
 * (dldb_tlpack.h; a kernel's NCCL mark is added in C) and id. ?1: the
 * aggregation. A raw table's rows are read from its pages where the file
 * holds them (dldb__raw_on_disk): the key's columns, start, end and the
 * tag's column (NULL: none) by name, the tag column * tag_mul + tag_add,
 * the rows whose kind is skip_kind left out (0: none), as the query
 * computes them. */
typedef struct tl_source {
  int kind;
  int kernels; /* 1: tag is a kernel's short name id, to mark NCCL kernels */
  int has;
  const char *sql;
  const char *table; /* NULL: read by the query only */
  const char *start, *end, *tag;
  int tag_mul, tag_add, skip_kind;
} tl_source;

#define TL_GPU (1 << K_PID | 1 << K_DEV | 1 << K_STREAM)
#define TL_CPU (1 << K_PID | 1 << K_TID)

static const tl_source sources[] = {
    {TK_ITER, 0, 0,
     "SELECT start_time, stop_time - start_time, iter_value, iter_value FROM aggr_iterations "
     "WHERE aggr_id = ?1",
     NULL, NULL, NULL, NULL, 0, 0, 0},
    {TK_GPU, 1, TL_GPU,
     "SELECT pid, device_id, stream_id, gpu_start_ns, gpu_end_ns - gpu_start_ns, short_name_id, "
     "id FROM kernels",
     "kernels", "gpu_start_ns", "gpu_end_ns", "short_name_id", 1, 0, 0},
    {TK_GPU, 0, TL_GPU,
     "SELECT pid, device_id, stream_id, gpu_start_ns, gpu_end_ns - gpu_start_ns, "
     "copy_kind * 4 + 1, id FROM memcpys",
     "memcpys", "gpu_start_ns", "gpu_end_ns", "copy_kind", 4, 1, 0},
    {TK_GPU, 0, TL_GPU,
     "SELECT pid, device_id, stream_id, gpu_start_ns, gpu_end_ns - gpu_start_ns, 2, id FROM "
     "memsets",
     "memsets", "gpu_start_ns", "gpu_end_ns", NULL, 0, 2, 0},
    {TK_CPU, 0, TL_CPU,
     "SELECT pid, tid, start_ns, end_ns - start_ns, name_id, id FROM cuda_api_calls",
     "cuda_api_calls", "start_ns", "end_ns", "name_id", 1, 0, 0},
    {TK_RANGES, 0, TL_CPU,
     "SELECT pid, tid, start_ns, end_ns - start_ns, name_id, id FROM nvtx_ranges WHERE kind <> 3",
     "nvtx_ranges", "start_ns", "end_ns", "name_id", 1, 0, 3},
    {TK_PY, 0, TL_CPU,
     "SELECT pid, tid, start_ns, end_ns - start_ns, name_id, id FROM dl_python_frames",
     "dl_python_frames", "start_ns", "end_ns", "name_id", 1, 0, 0},
};

/* The key's columns by name, in key order (K_*). */
static const char *const key_cols[K_N] = {"pid", "tid", "device_id", "stream_id"};

typedef struct tl_track {
  int64_t key[K_N];
  int has[K_N]; /* 0: the column is NULL */
  dldb_tl_rec *ev;
  size_t n, cap;
} tl_track;

enum { SPARE_EVENTS = 4 };

/* A kernel name's NCCL mark, by strings id (open addressing). */
typedef struct nccl_slot {
  int64_t id; /* 0: empty */
  int nccl;
} nccl_slot;

/* Tracks built ahead: each track's blocks, then its row, in writing order;
 * track numbers from 1 (the writer adds those it wrote before). */
typedef struct tl_mblock {
  int64_t track, start, end;
  int level, n;
  size_t off, len; /* in data */
} tl_mblock;

enum { TL_NSUMS = 7, TL_NAME = 96 };

typedef struct tl_mtrack {
  int kind;
  int64_t key[K_N];
  int has[K_N];
  int64_t v[TL_NSUMS];
  char name[TL_NAME];
} tl_mtrack;

struct dldb_tl_built {
  tl_mblock *b;
  size_t nb, capb;
  unsigned char *data;
  size_t ndata, capdata;
  tl_mtrack *t;
  size_t nt, capt;
};

typedef struct tl_writer {
  dldb_writer *w;
  dldb_tl_built *mem; /* not NULL: blocks and tracks go here, not to the file */
  char *err;
  size_t errlen;
  tl_track *t;
  size_t nt, tcap;
  size_t *slots; /* track index + 1 by key hash; 0: empty */
  size_t nslots;
  nccl_slot nccl[4096];
  sqlite3_stmt *name, *block, *track;
  /* the tables built page by page (a new file), or NULL: SQLite's inserts */
  dl_sqlbuild *b_index, *b_blocks, *b_tracks;
  int64_t next_track;
  /* the kind before's event arrays, largest first, for the next kind's
   * tracks to fill again: their pages are in memory already (tens of
   * millions of events a kind at scale); those not taken go once the next
   * kind is read */
  tl_track spare[SPARE_EVENTS];
  size_t nspare;
  unsigned char buf[DLDB_TL_BLOCK * DLDB_TL_ITEM_MAX];
} tl_writer;

static int sqlerr(tl_writer *x, const char *what) {
  return dl_err(x->err, x->errlen, DL_EDB, "timeline: %s: %s", what, dldb__errmsg(x->w));
}

static int oom(tl_writer *x) { return dl_err(x->err, x->errlen, DL_ENOMEM, "timeline: out of memory"); }

int dldb_timeline_has_tables(dldb_writer *w) {
  return dldb__has_table(w, "dl_timeline_tracks") && dldb__has_table(w, "dl_timeline_blocks");
}

/* ---- NCCL kernels: the names the view's LIKE patterns matched ----------- */

static int ci_prefix(const char *s, const char *p) {
  for (; *p; s++, p++)
    if (!*s || (*s | 0x20) != (*p | 0x20)) return 0;
  return 1;
}

static int ci_contains(const char *s, const char *p) {
  for (; *s; s++)
    if (ci_prefix(s, p)) return 1;
  return 0;
}

static int nccl_name(const char *s) {
  return ci_prefix(s, "nccl") || ci_contains(s, "ncclKernel") || ci_contains(s, "ncclDevKernel");
}

/* 1 when kernel name id is an NCCL kernel's; -1 on a SQLite error. */
static int is_nccl(tl_writer *x, int64_t id) {
  size_t n = sizeof x->nccl / sizeof *x->nccl, h = (size_t)(id * 0x9E3779B97F4A7C15ull) % n;
  for (size_t probe = 0; probe < n; probe++, h = (h + 1) % n) {
    if (x->nccl[h].id == id) return x->nccl[h].nccl;
    if (x->nccl[h].id == 0) break;
  }
  sqlite3_reset(x->name);
  sqlite3_bind_int64(x->name, 1, id);
  int rc = sqlite3_step(x->name), nccl = 0;
  if (rc == SQLITE_ROW) nccl = nccl_name((const char *)sqlite3_column_text(x->name, 0));
  sqlite3_reset(x->name); /* no read left open: a page build's end needs none */
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return -1;
  if (x->nccl[h].id == 0 && id != 0) x->nccl[h] = (nccl_slot){.id = id, .nccl = nccl};
  return nccl;
}

/* ---- Tracks by key ------------------------------------------------------ */

static size_t key_hash(const int64_t *key, const int *has) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < K_N; i++) h = (h ^ (uint64_t)(has[i] ? key[i] : INT64_MIN)) * 1099511628211ull;
  return (size_t)(h ^ (h >> 29));
}

static int same_key(const tl_track *t, const int64_t *key, const int *has) {
  for (int i = 0; i < K_N; i++)
    if (t->has[i] != has[i] || (has[i] && t->key[i] != key[i])) return 0;
  return 1;
}

static int rehash(tl_writer *x) {
  size_t n = x->nslots ? x->nslots * 2 : 64;
  size_t *s = calloc(n, sizeof *s);
  if (!s) return -1;
  for (size_t i = 0; i < x->nt; i++) {
    size_t h = key_hash(x->t[i].key, x->t[i].has) % n;
    while (s[h]) h = (h + 1) % n;
    s[h] = i + 1;
  }
  free(x->slots);
  x->slots = s;
  x->nslots = n;
  return 0;
}

/* The track of key, added when new; NULL when out of memory. */
static tl_track *track_of(tl_writer *x, const int64_t *key, const int *has) {
  if ((x->nt + 1) * 2 > x->nslots && rehash(x)) return NULL;
  size_t h = key_hash(key, has) % x->nslots;
  for (; x->slots[h]; h = (h + 1) % x->nslots)
    if (same_key(&x->t[x->slots[h] - 1], key, has)) return &x->t[x->slots[h] - 1];
  if (x->nt == x->tcap) {
    size_t cap = x->tcap ? x->tcap * 2 : 16;
    tl_track *p = realloc(x->t, cap * sizeof *p);
    if (!p) return NULL;
    x->t = p;
    x->tcap = cap;
  }
  tl_track *t = &x->t[x->nt++];
  memset(t, 0, sizeof *t);
  memcpy(t->key, key, sizeof t->key);
  memcpy(t->has, has, sizeof t->has);
  x->slots[h] = x->nt;
  return t;
}

/* Frees the spare event arrays. */
static void drop_spares(tl_writer *x) {
  for (size_t i = 0; i < x->nspare; i++) free(x->spare[i].ev);
  x->nspare = 0;
}

/* The spare array a track that needs cap events grows into: the smallest
 * that holds them, of at most 8 times that many (a small track leaves a
 * big array to a big one, which takes it at an eighth of it); -1: none. */
static int spare_for(const tl_writer *x, size_t cap) {
  int best = -1;
  for (size_t i = 0; i < x->nspare; i++)
    if (x->spare[i].cap >= cap && x->spare[i].cap / 8 <= cap &&
        (best < 0 || x->spare[i].cap < x->spare[best].cap))
      best = (int)i;
  return best;
}

static int push(tl_writer *x, tl_track *t, const dldb_tl_rec *e) {
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    int s = spare_for(x, cap);
    if (s >= 0) {
      tl_track sp = x->spare[s];
      if (t->n) memcpy(sp.ev, t->ev, t->n * sizeof *t->ev);
      free(t->ev);
      t->ev = sp.ev;
      t->cap = sp.cap;
      memmove(x->spare + s, x->spare + s + 1, (--x->nspare - (size_t)s) * sizeof *x->spare);
    } else {
      dldb_tl_rec *p = realloc(t->ev, cap * sizeof *p);
      if (!p) return -1;
      t->ev = p;
      t->cap = cap;
    }
  }
  t->ev[t->n++] = *e;
  return 0;
}

/* Adds a row's event to its track (*t: the last row's, rows come in runs):
 * DL_OK; 1, a kernel's name could not be read; or DL_ENOMEM (err says
 * so). */
static int add_row(tl_writer *x, const tl_source *src, tl_track **t, const int64_t *key,
                   const int *has, dldb_tl_rec e) {
  if (src->kernels) {
    int nccl = is_nccl(x, e.tag);
    if (nccl < 0) return 1;
    e.tag = e.tag * 4 + (nccl ? DLDB_TL_NCCL : DLDB_TL_KERNEL);
  }
  if (!*t || !same_key(*t, key, has)) *t = track_of(x, key, has);
  return !*t || push(x, *t, &e) ? oom(x) : 0;
}

/* a - b as SQLite's integer arithmetic gives it to sqlite3_column_int64: on
 * overflow, in doubles, then clamped. */
static int64_t sql_sub(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  double d = (double)a - (double)b;
  return d <= -9223372036854775808.0 ? INT64_MIN : d >= 9223372036854775807.0 ? INT64_MAX
                                                                               : (int64_t)d;
}

/* a * m + k (m, k small), likewise. */
static int64_t sql_mul_add(int64_t a, int m, int k) {
  int64_t r;
  if (!__builtin_mul_overflow(a, (int64_t)m, &r) && !__builtin_add_overflow(r, (int64_t)k, &r))
    return r;
  double d = (double)a * m + k;
  return d <= -9223372036854775808.0 ? INT64_MIN : d >= 9223372036854775807.0 ? INT64_MAX
                                                                               : (int64_t)d;
}

/* src's rows from its table's pages: DL_OK, DL_ENOTFOUND (not read that
 * way: the query reads them) or an error. A REAL or a text in these
 * INTEGER columns (a file dlprof did not write) reads as its integer,
 * where the query's arithmetic would take its number. */
static int read_pages(tl_writer *x, const tl_source *src, sqlite3_stmt *st, const int *has) {
  const char *cols[K_N + 4];
  int n = 0;
  for (int i = 0; i < K_N; i++)
    if (has[i]) cols[n++] = key_cols[i];
  cols[n] = src->start, cols[n + 1] = src->end, cols[n + 2] = src->tag, cols[n + 3] = "rowid";
  const dl_sqlpage_filter skip = {"kind", 0, 1, {src->skip_kind}};
  dl_sqlpage *pg = NULL;
  if (!src->table || !dldb__raw_on_disk(x->w) ||
      dl_sqlpage_open(x->w->db, st, src->table, cols, n + 4, 0, &skip, src->skip_kind ? 1 : 0,
                      &pg) != DL_OK)
    return DL_ENOTFOUND;
  dl_sqlpage_val v[K_N + 4];
  tl_track *t = NULL;
  int s, rc = DL_OK;
  while (rc == DL_OK && (s = dl_sqlpage_next(pg, v)) == SQLITE_ROW) {
    int64_t key[K_N];
    for (int i = 0, col = 0; i < K_N; i++) key[i] = has[i] ? v[col++].i : 0;
    /* SQL's arithmetic on a NULL is NULL, which reads as 0 */
    int no_dur = v[n].type == SQLITE_NULL || v[n + 1].type == SQLITE_NULL;
    dldb_tl_rec e = {.start = v[n].i,
                     .dur = no_dur ? 0 : sql_sub(v[n + 1].i, v[n].i),
                     .tag = !src->tag ? src->tag_add
                            : v[n + 2].type == SQLITE_NULL
                                ? 0
                                : sql_mul_add(v[n + 2].i, src->tag_mul, src->tag_add),
                     .id = v[n + 3].i};
    rc = add_row(x, src, &t, key, has, e);
  }
  dl_sqlpage_close(&pg);
  if (rc == 1) return sqlerr(x, "read");
  if (rc == DL_OK && s != SQLITE_DONE)
    rc = dl_err(x->err, x->errlen, DL_ECORRUPT, "timeline: reading %s: %s", src->table,
                sqlite3_errstr(s));
  return rc;
}

/* Reads one source's rows into their tracks. */
static int read_source(tl_writer *x, const tl_source *src, int64_t aggr_id) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(x->w->db, src->sql, -1, &st, NULL) != SQLITE_OK)
    return sqlerr(x, "read");
  if (sqlite3_bind_parameter_count(st) >= 1) sqlite3_bind_int64(st, 1, aggr_id);
  int rc, has[K_N], ncols = 0;
  for (int i = 0; i < K_N; i++) ncols += has[i] = src->has >> i & 1;
  if ((rc = read_pages(x, src, st, has)) != DL_ENOTFOUND) {
    sqlite3_finalize(st);
    return rc;
  }
  tl_track *t = NULL;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t key[K_N];
    for (int i = 0, col = 0; i < K_N; i++) key[i] = has[i] ? sqlite3_column_int64(st, col++) : 0;
    dldb_tl_rec e = {.start = sqlite3_column_int64(st, ncols),
                     .dur = sqlite3_column_int64(st, ncols + 1),
                     .tag = sqlite3_column_int64(st, ncols + 2),
                     .id = sqlite3_column_int64(st, ncols + 3)};
    int added = add_row(x, src, &t, key, has, e);
    if (added == 1) break; /* the name's read failed: its error below */
    if (added != DL_OK) {
      sqlite3_finalize(st);
      return added;
    }
  }
  if (rc != SQLITE_DONE) {
    rc = sqlerr(x, "read");
    sqlite3_finalize(st);
    return rc;
  }
  sqlite3_finalize(st);
  return DL_OK;
}

/* ---- One track: sorted, summed, packed ---------------------------------- */

static int cmp_rec(const void *pa, const void *pb) {
  const dldb_tl_rec *a = pa, *b = pb;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->dur != b->dur) return a->dur < b->dur ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* Drawing order within a kind: process, device, stream, thread. */
static int cmp_track(const void *pa, const void *pb) {
  static const int order[K_N] = {K_PID, K_DEV, K_STREAM, K_TID};
  const tl_track *a = pa, *b = pb;
  for (int i = 0; i < K_N; i++) {
    int k = order[i];
    if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
  }
  return 0;
}

/* Sorts t's events (cmp_rec). They come almost in order (each source in
 * id order; out of it, mostly a few nested ranges that share a start), so
 * the events that break the order are set aside as they come, sorted
 * alone and merged back from the end, in place: a pass over the track and
 * a sort of the few. Where more than an eighth break it (or no memory),
 * the whole track is sorted. */
static void sort_events(tl_track *t) {
  dldb_tl_rec *v = t->ev;
  size_t n = t->n, i = 1;
  while (i < n && cmp_rec(&v[i - 1], &v[i]) <= 0) i++;
  if (i >= n) return;
  size_t most = n / 8, k = 0, m = i; /* v[0..m) in order; k aside */
  dldb_tl_rec *aside = most ? malloc(most * sizeof *aside) : NULL;
  for (; aside && i < n; i++) {
    if (cmp_rec(&v[m - 1], &v[i]) <= 0) v[m++] = v[i];
    else if (k < most) aside[k++] = v[i];
    else break;
  }
  if (!aside || i < n) { /* too many: every event back, then sorted whole */
    if (aside) memcpy(v + m, aside, k * sizeof *aside);
    free(aside);
    qsort(v, n, sizeof *v, cmp_rec);
    return;
  }
  qsort(aside, k, sizeof *aside, cmp_rec);
  for (size_t a = m, b = k, w = n; b;) /* w - a = b: v[a..) is never overwritten unread */
    v[--w] = a && cmp_rec(&v[a - 1], &aside[b - 1]) > 0 ? v[--a] : aside[--b];
  free(aside);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t stop_of(const dldb_tl_rec *e) { return e->start + max64(e->dur, 0); }

typedef struct tl_sums {
  int64_t busy, first, last, nccl, bin_ns, levels;
} tl_sums;

static tl_sums sums_of(const tl_track *t) {
  tl_sums s = {.first = t->ev[0].start, .last = INT64_MIN};
  int64_t reach = INT64_MIN;
  for (size_t i = 0; i < t->n; i++) {
    const dldb_tl_rec *e = &t->ev[i];
    int64_t stop = e->start + e->dur, lo = max64(e->start, reach);
    if (stop > lo) s.busy += stop - lo;
    reach = max64(reach, stop);
    s.last = max64(s.last, stop);
    s.nccl += t->has[K_DEV] && (e->tag & 3) == DLDB_TL_NCCL;
  }
  return s;
}


/* A block kept in memory (built ahead). */
static int keep_block(tl_writer *x, int64_t track_id, int level, int64_t start, int64_t end,
                      int n, const unsigned char *p, size_t len) {
  dldb_tl_built *m = x->mem;
  if (dl_grow((void **)&m->b, &m->capb, m->nb + 1, sizeof *m->b) ||
      dl_grow((void **)&m->data, &m->capdata, m->ndata + len, 1))
    return oom(x);
  memcpy(m->data + m->ndata, p, len);
  m->b[m->nb++] = (tl_mblock){.track = track_id, .start = start, .end = end, .level = level,
                              .n = n, .off = m->ndata, .len = len};
  m->ndata += len;
  return DL_OK;
}

#define VI(x) ((dl_sqlpage_val){.type = SQLITE_INTEGER, .i = (x)})

/* A block's row and its index entry, built page by page: blocks come in
 * (track, level, start, end) order (a track's events sorted, then its
 * bins level by level), as the index's entries must. */
static int build_block(tl_writer *x, int64_t track_id, int level, int64_t start, int64_t end,
                       int n, const unsigned char *p, size_t len) {
  const dl_sqlpage_val e[5] = {VI(track_id), VI(level), VI(start), VI(end),
                               VI(dl_sqlbuild_next_rowid(x->b_blocks))};
  const dl_sqlpage_val r[6] = {VI(track_id), VI(level), VI(start), VI(end), VI(n),
                               {.type = SQLITE_BLOB, .s = (const char *)p, .n = len}};
  int rc = dl_sqlbuild_row(x->b_index, e);
  if (rc == DL_OK) rc = dl_sqlbuild_row(x->b_blocks, r);
  return rc ? dldb__bulk_err(x->w, rc, x->err, x->errlen, "timeline", "blocks") : DL_OK;
}

static int put_block_bytes(tl_writer *x, int64_t track_id, int level, int64_t start, int64_t end,
                           int n, const unsigned char *p, size_t len) {
  if (x->mem) return keep_block(x, track_id, level, start, end, n, p, len);
  if (x->b_blocks) return build_block(x, track_id, level, start, end, n, p, len);
  sqlite3_stmt *st = x->block;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, track_id);
  sqlite3_bind_int(st, 2, level);
  sqlite3_bind_int64(st, 3, start);
  sqlite3_bind_int64(st, 4, end);
  sqlite3_bind_int(st, 5, n);
  sqlite3_bind_blob(st, 6, p, (int)len, SQLITE_STATIC);
  return sqlite3_step(st) == SQLITE_DONE ? DL_OK : sqlerr(x, "write block");
}

static int put_block(tl_writer *x, int64_t track_id, int level, int64_t start, int64_t end,
                     int n, size_t len) {
  return put_block_bytes(x, track_id, level, start, end, n, x->buf, len);
}

static int write_events(tl_writer *x, int64_t track_id, const tl_track *t) {
  for (size_t i = 0; i < t->n; i += DLDB_TL_BLOCK) {
    size_t m = min64((int64_t)(t->n - i), DLDB_TL_BLOCK), len = 0;
    dldb_tl_rec prev = {0};
    int64_t end = INT64_MIN;
    for (size_t j = i; j < i + m; j++) {
      len += dldb_tl_put_event(x->buf + len, &prev, &t->ev[j]);
      end = max64(end, t->ev[j].start + t->ev[j].dur);
    }
    int rc = put_block(x, track_id, 0, t->ev[i].start, max64(end, t->ev[i].start), (int)m, len);
    if (rc) return rc;
  }
  return DL_OK;
}

static int write_bins(tl_writer *x, int64_t track_id, int level, int64_t g,
                      const dldb_tl_bin *b, size_t n) {
  for (size_t i = 0; i < n; i += DLDB_TL_BLOCK) {
    size_t m = min64((int64_t)(n - i), DLDB_TL_BLOCK), len = 0;
    dldb_tl_bin prev = {0};
    for (size_t j = i; j < i + m; j++) len += dldb_tl_put_bin(x->buf + len, &prev, &b[j]);
    int rc = put_block(x, track_id, level, b[i].index * g, (b[i + m - 1].index + 1) * g, (int)m,
                       len);
    if (rc) return rc;
  }
  return DL_OK;
}

/* Appends to v (n used) the busy time of [a, b) on the grid g: v ends at
 * or before a's bin, so indexes ascend. -1 when out of memory. */
static int add_busy(dldb_tl_bin **v, size_t *n, size_t *cap, int64_t a, int64_t b, int64_t g) {
  while (a < b) {
    int64_t i = dldb_tl_bin_of(a, g), seg = min64(b, (i + 1) * g);
    if (!*n || (*v)[*n - 1].index != i) {
      if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 1024;
        dldb_tl_bin *p = realloc(*v, c * sizeof *p);
        if (!p) return -1;
        *v = p;
        *cap = c;
      }
      (*v)[(*n)++] = (dldb_tl_bin){.index = i, .tag = -1};
    }
    (*v)[*n - 1].busy += seg - a;
    a = seg;
  }
  return 0;
}

/* The finest bins (grid g) of t's events: busy from the union of the
 * events, then count, best and tag of the events starting in each. */
static dldb_tl_bin *finest_bins(const tl_track *t, int64_t g, size_t *nout) {
  dldb_tl_bin *v = NULL;
  size_t n = 0, cap = 0;
  int64_t cs = 0, ce = INT64_MIN;
  for (size_t i = 0; i < t->n; i++) {
    int64_t s = t->ev[i].start, e = stop_of(&t->ev[i]);
    if (e <= s) continue;
    if (s > ce) {
      if (ce > cs && add_busy(&v, &n, &cap, cs, ce, g)) goto fail;
      cs = s;
      ce = e;
    } else if (e > ce) {
      ce = e;
    }
  }
  if (ce > cs && add_busy(&v, &n, &cap, cs, ce, g)) goto fail;
  /* every event starts in a busy bin or, of no length, in one of its own */
  size_t k = 0;
  for (size_t i = 0; i < t->n; i++) {
    const dldb_tl_rec *e = &t->ev[i];
    int64_t b = dldb_tl_bin_of(e->start, g);
    while (k < n && v[k].index < b) k++;
    if (k == n || v[k].index != b) {
      if (n == cap) {
        size_t c = cap ? cap * 2 : 1024;
        dldb_tl_bin *p = realloc(v, c * sizeof *p);
        if (!p) goto fail;
        v = p;
        cap = c;
      }
      memmove(&v[k + 1], &v[k], (n - k) * sizeof *v);
      v[k] = (dldb_tl_bin){.index = b, .tag = -1};
      n++;
    }
    int64_t cover = min64(stop_of(e), (b + 1) * g) - e->start;
    v[k].count++;
    if (v[k].tag < 0 || cover > v[k].best) {
      v[k].best = cover;
      v[k].tag = e->tag;
    }
  }
  *nout = n;
  return v;
fail:
  free(v);
  return NULL;
}

/* The next level's bins (4 to 1), in place; returns their count. */
static size_t coarser(dldb_tl_bin *v, size_t n) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t p = dldb_tl_bin_of(v[i].index, 4);
    if (m && v[m - 1].index == p) {
      dldb_tl_bin *d = &v[m - 1];
      d->busy += v[i].busy;
      d->count += v[i].count;
      if (v[i].tag >= 0 && (d->tag < 0 || v[i].best > d->best)) {
        d->best = v[i].best;
        d->tag = v[i].tag;
      }
    } else {
      v[m] = v[i];
      v[m++].index = p;
    }
  }
  return m;
}

/* Writes the levels of bins of t; sets s->bin_ns and s->levels. */
static int write_levels(tl_writer *x, int64_t track_id, const tl_track *t, tl_sums *s) {
  if (t->n < DLDB_TL_MIN_EVENTS) return DL_OK;
  int64_t span = max64(1, s->last - s->first), want = (int64_t)t->n / DLDB_TL_PER_BIN, g = 1;
  while (g < (INT64_C(1) << 50) && g * want < span) g <<= 1;
  size_t n = 0;
  dldb_tl_bin *v = finest_bins(t, g, &n);
  if (!v) return oom(x);
  int rc = DL_OK, level = 1;
  s->bin_ns = g;
  for (;; level++, g <<= 2) {
    if ((rc = write_bins(x, track_id, level, g, v, n)) != DL_OK) break;
    s->levels = level;
    if (n <= DLDB_TL_TOP_BINS || g >= (INT64_C(1) << 58)) break;
    n = coarser(v, n);
  }
  free(v);
  return rc;
}

static void track_name(const tl_track *t, int kind, char *buf, size_t len) {
  if (kind == TK_ITER) snprintf(buf, len, "Iterations");
  else if (kind == TK_GPU)
    snprintf(buf, len, "GPU %lld stream %lld", (long long)t->key[K_DEV],
             (long long)t->key[K_STREAM]);
  else if (kind == TK_CPU) snprintf(buf, len, "CUDA API, thread %lld", (long long)t->key[K_TID]);
  else if (kind == TK_PY) snprintf(buf, len, "Python, thread %lld", (long long)t->key[K_TID]);
  else snprintf(buf, len, "Ranges, thread %lld", (long long)t->key[K_TID]);
}

/* A track's row: to the file, or kept in memory (built ahead). */
static int put_track(tl_writer *x, const tl_mtrack *r, int64_t id) {
  dldb_tl_built *m = x->mem;
  if (m) {
    if (dl_grow((void **)&m->t, &m->capt, m->nt + 1, sizeof *m->t)) return oom(x);
    m->t[m->nt++] = *r;
    return DL_OK;
  }
  static const int col[K_N] = {5, 6, 3, 4}; /* pid, tid, device_id, stream_id */
  if (x->b_tracks) {
    dl_sqlpage_val v[7 + TL_NSUMS] = {
        VI(id),
        {.type = SQLITE_TEXT, .s = kind_names[r->kind], .n = strlen(kind_names[r->kind])},
        [6] = {.type = SQLITE_TEXT, .s = r->name, .n = strlen(r->name)}};
    for (int k = 0; k < K_N; k++)
      v[col[k] - 1] = r->has[k] ? VI(r->key[k]) : (dl_sqlpage_val){.type = SQLITE_NULL};
    for (int k = 0; k < TL_NSUMS; k++) v[7 + k] = VI(r->v[k]);
    int rc = dl_sqlbuild_row(x->b_tracks, v);
    return rc ? dldb__bulk_err(x->w, rc, x->err, x->errlen, "timeline", "tracks") : DL_OK;
  }
  sqlite3_stmt *st = x->track;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, id);
  sqlite3_bind_text(st, 2, kind_names[r->kind], -1, SQLITE_STATIC);
  for (int k = 0; k < K_N; k++) {
    if (r->has[k]) sqlite3_bind_int64(st, col[k], r->key[k]);
    else sqlite3_bind_null(st, col[k]);
  }
  sqlite3_bind_text(st, 7, r->name, -1, SQLITE_TRANSIENT);
  for (int k = 0; k < TL_NSUMS; k++) sqlite3_bind_int64(st, 8 + k, r->v[k]);
  return sqlite3_step(st) == SQLITE_DONE ? DL_OK : sqlerr(x, "write track");
}

static int write_track(tl_writer *x, int kind, tl_track *t) {
  int64_t id = ++x->next_track;
  sort_events(t);
  tl_sums s = sums_of(t);
  int rc = write_events(x, id, t);
  if (rc == DL_OK) rc = write_levels(x, id, t, &s);
  if (rc) return rc;
  tl_mtrack r = {.kind = kind,
                 .v = {(int64_t)t->n, s.busy, s.first, s.last, s.nccl, s.bin_ns, s.levels}};
  memcpy(r.key, t->key, sizeof r.key);
  memcpy(r.has, t->has, sizeof r.has);
  track_name(t, kind, r.name, sizeof r.name);
  return put_track(x, &r, id);
}

/* Writes the tracks built ahead after those written so far. */
static int store_built(tl_writer *x, const dldb_tl_built *m) {
  int64_t base = x->next_track;
  int rc = DL_OK;
  for (size_t i = 0, j = 0; rc == DL_OK && i < m->nt; i++) {
    int64_t id = base + (int64_t)i + 1;
    for (; rc == DL_OK && j < m->nb && m->b[j].track == (int64_t)i + 1; j++) {
      const tl_mblock *b = &m->b[j];
      rc = put_block_bytes(x, id, b->level, b->start, b->end, b->n, m->data + b->off, b->len);
    }
    if (rc == DL_OK) rc = put_track(x, &m->t[i], id);
  }
  x->next_track = base + (int64_t)m->nt;
  return rc;
}

/* Ends a kind's tracks: the largest event arrays kept as spares. */
static void drop_tracks(tl_writer *x) {
  drop_spares(x);
  for (size_t i = 0; i < x->nt; i++) {
    tl_track t = {.ev = x->t[i].ev, .cap = x->t[i].cap};
    size_t at = x->nspare;
    while (at > 0 && x->spare[at - 1].cap < t.cap) at--;
    if (at == SPARE_EVENTS) {
      free(t.ev);
      continue;
    }
    if (x->nspare == SPARE_EVENTS) free(x->spare[--x->nspare].ev); /* the smallest goes */
    memmove(x->spare + at + 1, x->spare + at, (x->nspare - at) * sizeof *x->spare);
    x->spare[at] = t;
    x->nspare++;
  }
  x->nt = 0;
  if (x->slots) memset(x->slots, 0, x->nslots * sizeof *x->slots);
}

/* Reads every source of kind, then writes its tracks in drawing order. */
static int write_kind(tl_writer *x, int kind, int64_t aggr_id) {
  int rc = DL_OK;
  if (kind == TK_PY && !dldb__has_table(x->w, "dl_python_frames")) return DL_OK; /* optional */
  for (size_t i = 0; rc == DL_OK && i < sizeof sources / sizeof *sources; i++)
    if (sources[i].kind == kind) rc = read_source(x, &sources[i], aggr_id);
  drop_spares(x); /* the kind's tracks are all made */
  if (rc == DL_OK && x->nt) qsort(x->t, x->nt, sizeof *x->t, cmp_track);
  for (size_t i = 0; rc == DL_OK && i < x->nt; i++) rc = write_track(x, kind, &x->t[i]);
  drop_tracks(x);
  return rc;
}

static const char *const prepared[] = {
    "SELECT value FROM strings WHERE id = ?1",
    "INSERT INTO dl_timeline_blocks(track_id, level, start, end, n, data) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    "INSERT INTO dl_timeline_tracks(track_id, kind, device_id, stream_id, pid, tid, name, "
    "event_count, busy_time, first_start, last_end, nccl_count, bin_ns, levels) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
};

/* Whether the tracks built ahead fit budget bytes: one kind's events (the
 * largest) and the packed blocks of all, from the raw tables' sizes. */
static int fits(dldb_writer *r, size_t budget) {
  static const char *const gpu[] = {"kernels", "memcpys", "memsets"};
  int64_t g = 0, most, all;
  for (size_t i = 0; i < sizeof gpu / sizeof *gpu; i++) g += dldb_scan_estimate(r, gpu[i]);
  const int64_t n[] = {g, dldb_scan_estimate(r, "cuda_api_calls"),
                       dldb_scan_estimate(r, "nvtx_ranges"),
                       dldb_scan_estimate(r, "dl_python_frames")};
  most = all = 0;
  for (size_t i = 0; i < sizeof n / sizeof *n; i++) {
    most = n[i] > most ? n[i] : most;
    all += n[i];
  }
  return (double)most * sizeof(dldb_tl_rec) + (double)all * DLDB_TL_BUILT_BYTES <= (double)budget;
}

int dldb_timeline_build(dldb_writer *r, size_t budget, dldb_tl_built **out, char *err,
                        size_t errlen) {
  *out = NULL;
  if (!dldb_timeline_has_tables(r) || !fits(r, budget)) return DL_OK;
  tl_writer *x = calloc(1, sizeof *x);
  dldb_tl_built *m = calloc(1, sizeof *m);
  if (!x || !m) {
    free(x);
    free(m);
    return dl_err(err, errlen, DL_ENOMEM, "timeline: out of memory");
  }
  *x = (tl_writer){.w = r, .mem = m, .err = err, .errlen = errlen};
  int rc = DL_OK;
  if (sqlite3_prepare_v2(r->db, prepared[0], -1, &x->name, NULL) != SQLITE_OK)
    rc = sqlerr(x, "prepare");
  if (rc == DL_OK && rehash(x)) rc = oom(x);
  for (int kind = TK_ITER + 1; rc == DL_OK && kind < TK_COUNT; kind++)
    rc = write_kind(x, kind, 0);
  drop_tracks(x);
  drop_spares(x);
  sqlite3_finalize(x->name);
  free(x->t);
  free(x->slots);
  free(x);
  if (rc == DL_OK) *out = m;
  else dldb_timeline_built_free(&m);
  return rc;
}

void dldb_timeline_built_free(dldb_tl_built **b) {
  if (!b || !*b) return;
  free((*b)->b);
  free((*b)->data);
  free((*b)->t);
  free(*b);
  *b = NULL;
}

/* In a new file the tables are built page by page (dl_sqlbuild.h), past
 * the page cache: the run does not read them back. Where the set or a
 * table is declined, SQLite writes them all. */
static int bulk_open(tl_writer *x) {
  dldb_writer *w = x->w;
  if (!dldb__bulk_wanted(w)) return DL_OK;
  int rc = dldb__bulk_begin(w, 0, x->err, x->errlen, "timeline");
  if (rc || !w->bulk) return rc;
  dl_sqlbuild_uncached(w->bulk);
  int a = dl_sqlbuild_add_index(w->bulk, "dl_timeline_blocks_by_time", 5, &x->b_index);
  if (a == DL_OK) a = dl_sqlbuild_add(w->bulk, "dl_timeline_blocks", 6, &x->b_blocks);
  if (a == DL_OK) a = dl_sqlbuild_add(w->bulk, "dl_timeline_tracks", 7 + TL_NSUMS, &x->b_tracks);
  if (a == DL_OK) return DL_OK;
  x->b_index = x->b_blocks = x->b_tracks = NULL;
  rc = dldb__bulk_end(w, 1, x->err, x->errlen); /* nothing built: SQLite's transaction again */
  return a == DL_ENOMEM ? oom(x) : rc;
}

int dldb_timeline_write(dldb_writer *w, int64_t aggr_id, const dldb_tl_built *built, char *err,
                        size_t errlen) {
  if (!dldb_timeline_has_tables(w)) return DL_OK;
  tl_writer *x = calloc(1, sizeof *x);
  if (!x) return dl_err(err, errlen, DL_ENOMEM, "timeline: out of memory");
  *x = (tl_writer){.w = w, .err = err, .errlen = errlen};
  sqlite3_stmt **st[] = {&x->name, &x->block, &x->track};
  int rc = DL_OK;
  if (sqlite3_exec(w->db, "DELETE FROM dl_timeline_blocks; DELETE FROM dl_timeline_tracks", NULL,
                   NULL, NULL) != SQLITE_OK)
    rc = sqlerr(x, "clear");
  for (size_t i = 0; rc == DL_OK && i < sizeof st / sizeof *st; i++)
    if (sqlite3_prepare_v2(w->db, prepared[i], -1, st[i], NULL) != SQLITE_OK)
      rc = sqlerr(x, "prepare");
  if (rc == DL_OK && rehash(x)) rc = oom(x);
  if (rc == DL_OK) rc = bulk_open(x);
  for (int kind = 0; rc == DL_OK && kind < (built ? TK_ITER + 1 : TK_COUNT); kind++)
    rc = write_kind(x, kind, aggr_id);
  if (rc == DL_OK && built) rc = store_built(x, built);
  if (rc == DL_OK && x->b_blocks) rc = dldb__bulk_end(w, 1, err, errlen); /* a failure: the cancel's */
  drop_tracks(x);
  drop_spares(x);
  for (size_t i = 0; i < sizeof st / sizeof *st; i++) sqlite3_finalize(*st[i]);
  free(x->t);
  free(x->slots);
  free(x);
  return rc;
}
