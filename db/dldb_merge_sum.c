/* dldb_merge_sum.c - per-rank summaries of a merge (dldb_merge_sum.h).
 * Each source is opened read-only on a connection of its own (no ATTACH:
 * the writer's connection would parse every source's schema again) and
 * read by a few indexed queries; worker threads read ahead of the writer,
 * at most WINDOW files, so that memory does not grow with the ranks. */
#include "dldb_merge_sum.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_write_internal.h"

#define WINDOW 64     /* summaries read and not yet handed over, at most */
#define MAX_THREADS 16

static const char *const q_meta =
    "SELECT (SELECT value FROM dl_meta WHERE key = 'format'), "
    "(SELECT value FROM dl_meta WHERE key = 'time_origin_ns')";
/* The rank rows of the newest aggregation that has any: one GPU's only. */
static const char *const q_row =
    "SELECT x.aggr_id, x.rank, x.device_id, x.iterations, x.iter_avg_ns, x.wall_ns, "
    "x.computation_ns, x.communication_ns, x.exposed_comm_ns, x.idle_ns, x.dataloader_ns, "
    "r.local_device, r.host, r.world_size, g.gpu_name FROM aggr_dl_ranks x "
    "LEFT JOIN dl_gpu_ranks r ON r.device_id = x.device_id "
    "LEFT JOIN gpus g ON g.device_id = x.device_id "
    "WHERE x.aggr_id = (SELECT max(aggr_id) FROM aggr_dl_ranks) LIMIT 2";
static const char *const q_iters =
    "SELECT iter_value, duration_ns, kernel_busy_ns, communication_ns, exposed_comm_ns "
    "FROM aggr_dl_iter_gpu WHERE aggr_id = ?1 AND device_id = ?2 ORDER BY iter_value";
/* The collective kernels of GPU ?1 whose start is in the aggregation's
 * window ?2 to ?3 (?4 1: its iterations are the whole profile): the names
 * first, then one pass over kernels (it has no index by name). */
static const char *const q_events =
    "SELECT n.value, k.gpu_start_ns, k.gpu_end_ns - k.gpu_start_ns, "
    "max(ifnull(c.in_bytes, -1), ifnull(c.out_bytes, -1)), ifnull(c.group_size, -1), "
    "c.collective FROM kernels k JOIN strings n ON n.id = k.short_name_id "
    "LEFT JOIN dl_kernel_collectives c ON c.kernel_id = k.id "
    "WHERE k.device_id = ?1 AND k.short_name_id IN (SELECT id FROM strings "
    "WHERE value LIKE '%nccl%') AND (?4 OR (k.gpu_start_ns >= ?2 AND k.gpu_start_ns < ?3)) "
    "ORDER BY k.id";
static const char *const q_window =
    "SELECT a.wall_start_ns, a.wall_end_ns, s.iter_start = 0 AND "
    "s.iter_stop >= s.total_iterations - 1 FROM aggregations a "
    "JOIN aggr_summary s ON s.aggr_id = a.aggr_id WHERE a.aggr_id = ?1";

static void sum_free(dldb_rank_sum *s) {
  if (!s) return;
  free((char *)s->gpu.host);
  free(s->gpu_name);
  free(s->it);
  for (size_t i = 0; i < s->nev; i++) {
    free(s->ev[i].kernel_name);
    free(s->ev[i].collective);
  }
  free(s->ev);
  free(s);
}

static char *dup_col(sqlite3_stmt *st, int col) {
  const char *v = (const char *)sqlite3_column_text(st, col);
  return v ? strdup(v) : NULL;
}

/* The row of the source's one ranked GPU; 0: none (or several). */
static int read_row(sqlite3 *db, dldb_rank_sum *s, int64_t *aggr, int32_t *src_dev) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(db, q_row, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 11) != SQLITE_NULL) {
    int64_t v[11];
    for (int i = 0; i < 11; i++) v[i] = sqlite3_column_int64(st, i);
    *aggr = v[0];
    *src_dev = (int32_t)v[2];
    int32_t local = sqlite3_column_int(st, 11);
    int32_t dev = (int32_t)v[1] * 100 + local;
    s->gpu = (dldb_gpu_rank){.device_id = dev, .rank = (int32_t)v[1], .local_device = local,
                             .world_size = sqlite3_column_int(st, 13), .host = dup_col(st, 12)};
    s->gpu_name = dup_col(st, 14);
    s->row = (dldb_dl_rank_row){.rank = (int32_t)v[1], .device_id = dev, .iterations = v[3],
                                .iter_avg_ns = v[4], .wall_ns = v[5], .computation_ns = v[6],
                                .communication_ns = v[7], .exposed_comm_ns = v[8],
                                .idle_ns = v[9], .dataloader_ns = v[10]};
    found = sqlite3_step(st) == SQLITE_DONE;
  }
  sqlite3_finalize(st);
  return found;
}

static int read_iters(sqlite3 *db, dldb_rank_sum *s, int64_t aggr, int32_t dev) {
  sqlite3_stmt *st = NULL;
  size_t cap = 0;
  if (sqlite3_prepare_v2(db, q_iters, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return DL_EDB;
  }
  int rc = DL_OK;
  sqlite3_bind_int64(st, 1, aggr);
  sqlite3_bind_int(st, 2, dev);
  while (rc == DL_OK && sqlite3_step(st) == SQLITE_ROW) {
    if (s->nit == cap) {
      dldb_rank_iter *p = realloc(s->it, (cap = cap ? 2 * cap : 64) * sizeof *p);
      if (!p) {
        rc = DL_ENOMEM;
        break;
      }
      s->it = p;
    }
    dldb_rank_iter *r = &s->it[s->nit++];
    *r = (dldb_rank_iter){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                          sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                          sqlite3_column_int64(st, 4)};
  }
  sqlite3_finalize(st);
  return rc;
}

/* The aggregation's window: *whole 1 when it is the whole profile. */
static void read_window(sqlite3 *db, int64_t aggr, int64_t *lo, int64_t *hi, int *whole) {
  sqlite3_stmt *st = NULL;
  *lo = INT64_MIN;
  *hi = INT64_MAX;
  *whole = 1;
  if (sqlite3_prepare_v2(db, q_window, -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, aggr);
    if (sqlite3_step(st) == SQLITE_ROW) {
      *lo = sqlite3_column_int64(st, 0);
      *hi = sqlite3_column_int64(st, 1);
      *whole = sqlite3_column_int(st, 2);
    }
  }
  sqlite3_finalize(st);
}

static int read_events(sqlite3 *db, dldb_rank_sum *s, int64_t aggr, int32_t dev) {
  sqlite3_stmt *st = NULL;
  size_t cap = 0;
  int64_t lo, hi;
  int whole;
  read_window(db, aggr, &lo, &hi, &whole);
  if (sqlite3_prepare_v2(db, q_events, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return DL_OK; /* older files: no collectives */
  }
  sqlite3_bind_int(st, 1, dev);
  sqlite3_bind_int64(st, 2, lo);
  sqlite3_bind_int64(st, 3, hi);
  sqlite3_bind_int(st, 4, whole);
  int rc = DL_OK;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (s->nev == cap) {
      dldb_rank_event *p = realloc(s->ev, (cap = cap ? 2 * cap : 64) * sizeof *p);
      if (!p) {
        rc = DL_ENOMEM;
        break;
      }
      s->ev = p;
    }
    dldb_rank_event *e = &s->ev[s->nev];
    *e = (dldb_rank_event){.kernel_name = dup_col(st, 0), .collective = dup_col(st, 5),
                           .start_ns = sqlite3_column_int64(st, 1),
                           .dur_ns = sqlite3_column_int64(st, 2),
                           .bytes = sqlite3_column_int64(st, 3),
                           .group_size = sqlite3_column_int(st, 4)};
    s->nev++;
    if (!e->kernel_name || (sqlite3_column_text(st, 5) && !e->collective)) {
      rc = DL_ENOMEM;
      break;
    }
  }
  sqlite3_finalize(st);
  return rc;
}

/* Reads one source into *out (NULL on error, with err set). */
static int read_one(const char *path, dldb_rank_sum **out, char *err, size_t errlen) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  dldb_rank_sum *s = calloc(1, sizeof *s);
  int rc = s ? DL_OK : DL_ENOMEM;
  *out = NULL;
  if (rc == DL_OK && sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                                     NULL) != SQLITE_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: cannot open: %s", path,
                db ? sqlite3_errmsg(db) : "out of memory");
  if (rc == DL_OK &&
      (sqlite3_prepare_v2(db, q_meta, -1, &st, NULL) != SQLITE_OK ||
       sqlite3_step(st) != SQLITE_ROW || !sqlite3_column_text(st, 0) ||
       strcmp((const char *)sqlite3_column_text(st, 0), "dlprof-dldb") != 0))
    rc = dl_err(err, errlen, DL_EFORMAT, "%s: not a dldb written by dlprof (no raw records to "
                "merge)", path);
  if (rc == DL_OK) s->origin_ns = sqlite3_column_int64(st, 1);
  sqlite3_finalize(st);
  int64_t aggr = 0;
  int32_t dev = 0;
  if (rc == DL_OK && (s->has_row = read_row(db, s, &aggr, &dev))) {
    rc = read_iters(db, s, aggr, dev);
    if (rc == DL_OK) rc = read_events(db, s, aggr, dev);
    if (rc != DL_OK) rc = dl_err(err, errlen, rc, "%s: %s", path, rc == DL_ENOMEM ?
                                 "out of memory" : sqlite3_errmsg(db));
  }
  sqlite3_close(db);
  if (rc != DL_OK) sum_free(s);
  else *out = s;
  return rc;
}

/* The readers' shared state. */
typedef struct reader {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  const char *const *paths;
  size_t n, next, handed; /* next: the file the next worker takes; handed: to fn so far */
  dldb_rank_sum **slot;   /* read and not yet handed */
  int *slot_rc;
  char (*slot_err)[256];
  int stop;
} reader;

static void *worker(void *arg) {
  reader *r = arg;
  pthread_mutex_lock(&r->lock);
  for (;;) {
    while (!r->stop && r->next < r->n && r->next >= r->handed + WINDOW)
      pthread_cond_wait(&r->cond, &r->lock);
    if (r->stop || r->next >= r->n) break;
    size_t i = r->next++;
    pthread_mutex_unlock(&r->lock);
    dldb_rank_sum *s = NULL;
    char e[256] = "";
    int rc = read_one(r->paths[i], &s, e, sizeof e);
    pthread_mutex_lock(&r->lock);
    r->slot[i % WINDOW] = s;
    r->slot_rc[i % WINDOW] = rc == DL_OK ? 1 : rc;
    memcpy(r->slot_err[i % WINDOW], e, sizeof e);
    pthread_cond_broadcast(&r->cond);
  }
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

/* Hands the summaries to fn in order as the workers finish them. */
static int hand_over(reader *r, int (*fn)(void *, size_t, const dldb_rank_sum *), void *ctx,
                     char *err, size_t errlen) {
  int rc = DL_OK;
  pthread_mutex_lock(&r->lock);
  while (rc == DL_OK && r->handed < r->n) {
    size_t k = r->handed % WINDOW;
    while (r->slot_rc[k] == 0) pthread_cond_wait(&r->cond, &r->lock);
    dldb_rank_sum *s = r->slot[k];
    int got = r->slot_rc[k];
    r->slot[k] = NULL;
    r->slot_rc[k] = 0;
    size_t i = r->handed;
    if (got != 1) {
      rc = dl_err(err, errlen, got, "%s", r->slot_err[k]);
      r->stop = 1;
    }
    pthread_mutex_unlock(&r->lock);
    if (rc == DL_OK) rc = fn(ctx, i, s);
    sum_free(s);
    pthread_mutex_lock(&r->lock);
    r->handed++;
    if (rc != DL_OK) r->stop = 1;
    pthread_cond_broadcast(&r->cond);
  }
  r->stop = 1;
  pthread_cond_broadcast(&r->cond);
  pthread_mutex_unlock(&r->lock);
  return rc;
}

int dldb_merge_read_all(const char *const *paths, size_t n, int nthreads,
                        int (*fn)(void *ctx, size_t i, const dldb_rank_sum *s), void *ctx,
                        char *err, size_t errlen) {
  reader r = {.paths = paths, .n = n};
  pthread_t th[MAX_THREADS];
  int started = 0, rc = DL_OK;
  if (nthreads < 1) nthreads = 1;
  if (nthreads > MAX_THREADS) nthreads = MAX_THREADS;
  r.slot = calloc(WINDOW, sizeof *r.slot);
  r.slot_rc = calloc(WINDOW, sizeof *r.slot_rc);
  r.slot_err = calloc(WINDOW, sizeof *r.slot_err);
  if (!r.slot || !r.slot_rc || !r.slot_err) rc = dl_err(err, errlen, DL_ENOMEM, "out of memory");
  if (rc == DL_OK && (pthread_mutex_init(&r.lock, NULL) || pthread_cond_init(&r.cond, NULL)))
    rc = dl_err(err, errlen, DL_ENOMEM, "dldb_merge_read_all: no lock");
  for (int t = 0; rc == DL_OK && t < nthreads; t++)
    if (pthread_create(&th[t], NULL, worker, &r) == 0) started++;
  if (rc == DL_OK && !started) rc = dl_err(err, errlen, DL_ENOMEM, "dldb_merge_read_all: no thread");
  if (rc == DL_OK) rc = hand_over(&r, fn, ctx, err, errlen);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
  if (r.slot)
    for (size_t k = 0; k < WINDOW; k++) sum_free(r.slot[k]);
  if (r.slot && r.slot_rc && r.slot_err) {
    pthread_cond_destroy(&r.cond);
    pthread_mutex_destroy(&r.lock);
  }
  free(r.slot);
  free(r.slot_rc);
  free(r.slot_err);
  return rc;
}

/* Runs sql with the int64 values v[0..nv) and, at index text_at (1-based,
 * 0: none), the text t. */
static int put(dldb_writer *w, const char *sql, const int64_t *v, int nv, int text_at,
               const char *t, char *err, size_t errlen) {
  static const char *fn = "dldb_merge_sum_write";
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK) return dldb__sqlerr(w, err, errlen, fn);
  for (int i = 0, col = 1; i < nv; i++, col++) {
    if (col == text_at) col++;
    sqlite3_bind_int64(st, col, v[i]);
  }
  if (text_at) dldb__bind_text(st, text_at, t);
  int s = sqlite3_step(st), rc = DL_OK;
  if (s == SQLITE_CONSTRAINT)
    rc = dl_err(err, errlen, DL_EFORMAT, "rank %lld is in an earlier dldb of the folder too",
                (long long)(v[0] / 100));
  else if (s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fn);
  sqlite3_finalize(st);
  return rc;
}

/* Binds v[0..n) (NULL where null[i]) and the text t at n + 1 (NULL: none)
 * and runs st. */
static int run_row(dldb_writer *w, sqlite3_stmt *st, const int64_t *v, const int *null, int n,
                   int with_text, const char *t, char *err, size_t errlen) {
  for (int i = 0; i < n; i++) {
    if (null && null[i]) sqlite3_bind_null(st, i + 1);
    else sqlite3_bind_int64(st, i + 1, v[i]);
  }
  if (with_text && t) dldb__bind_text(st, n + 1, t);
  else if (with_text) sqlite3_bind_null(st, n + 1);
  int rc = sqlite3_step(st) == SQLITE_DONE ? DL_OK : dldb__sqlerr(w, err, errlen, "dldb_merge_sum_write");
  sqlite3_reset(st);
  return rc;
}

/* The source's iterations and collective kernels. */
static int put_rows(dldb_writer *w, const dldb_rank_sum *s, char *err, size_t errlen) {
  sqlite3_stmt *it = NULL, *ev = NULL;
  const int64_t dev = s->row.device_id;
  int rc = sqlite3_prepare_v2(w->db, "INSERT INTO dl_rank_source_iters VALUES "
                              "(?1, ?2, ?3, ?4, ?5, ?6)", -1, &it, NULL) == SQLITE_OK &&
                   sqlite3_prepare_v2(w->db, "INSERT INTO dl_rank_source_events VALUES "
                                      "(?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &ev, NULL) == SQLITE_OK
               ? DL_OK
               : dldb__sqlerr(w, err, errlen, "dldb_merge_sum_write");
  for (size_t i = 0; rc == DL_OK && i < s->nit; i++) {
    const dldb_rank_iter *r = &s->it[i];
    const int64_t v[] = {dev, r->iter_value, r->duration_ns, r->kernel_busy_ns,
                         r->communication_ns, r->exposed_comm_ns};
    rc = run_row(w, it, v, NULL, 6, 0, NULL, err, errlen);
  }
  for (size_t i = 0; rc == DL_OK && i < s->nev; i++) {
    const dldb_rank_event *e = &s->ev[i];
    int64_t id = 0;
    rc = dldb_writer_intern(w, e->kernel_name, &id, err, errlen);
    const int64_t v[] = {dev, id, e->start_ns, e->dur_ns, e->bytes, e->group_size};
    const int null[] = {0, 0, 0, 0, e->bytes < 0, e->group_size < 0};
    if (rc == DL_OK) rc = run_row(w, ev, v, null, 6, 1, e->collective, err, errlen);
  }
  sqlite3_finalize(it);
  sqlite3_finalize(ev);
  return rc;
}

int dldb_merge_sum_write(dldb_writer *w, const dldb_rank_sum *s, const char *source, char *err,
                         size_t errlen) {
  if (!s->has_row || !dldb__has_table(w, "dl_rank_sources")) return DL_OK;
  int rc = dldb__tx_begin(w, err, errlen);
  const dldb_dl_rank_row *r = &s->row;
  const int64_t row[] = {r->device_id, r->rank, s->origin_ns, r->iterations, r->iter_avg_ns,
                         r->wall_ns, r->computation_ns, r->communication_ns, r->exposed_comm_ns,
                         r->idle_ns, r->dataloader_ns};
  if (rc == DL_OK)
    rc = put(w, "INSERT INTO dl_rank_sources(device_id, rank, source, detail, origin_ns, "
                "iterations, iter_avg_ns, wall_ns, computation_ns, communication_ns, "
                "exposed_comm_ns, idle_ns, dataloader_ns) VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7, "
                "?8, ?9, ?10, ?11, ?12)",
             row, 11, 3, source, err, errlen);
  const int64_t name[] = {r->device_id};
  if (rc == DL_OK && s->gpu_name)
    rc = put(w, "UPDATE dl_rank_sources SET gpu_name = ?2 WHERE device_id = ?1", name, 1, 2,
             s->gpu_name, err, errlen);
  if (rc == DL_OK) rc = put_rows(w, s, err, errlen);
  return rc;
}

int dldb_merge_sum_detail(dldb_writer *w, int32_t device_id, char *err, size_t errlen) {
  if (!dldb__has_table(w, "dl_rank_sources")) return DL_OK;
  const int64_t v[] = {device_id};
  int rc = dldb__tx_begin(w, err, errlen);
  return rc ? rc : put(w, "UPDATE dl_rank_sources SET detail = 1 WHERE device_id = ?1", v, 1, 0,
                       NULL, err, errlen);
}

int dldb_merge_set_origin(dldb_writer *w, int64_t origin_ns, char *err, size_t errlen) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)origin_ns);
  int rc = dldb_write_meta(w, "time_origin_ns", buf, err, errlen);
  if (rc == DL_OK) w->origin = origin_ns;
  return rc;
}

/* By own time, then rank. */
static int by_own(const void *x, const void *y) {
  const dldb_rank_pick *a = *(const dldb_rank_pick *const *)x, *b = *(const dldb_rank_pick *const *)y;
  if (a->own_ns != b->own_ns) return a->own_ns < b->own_ns ? -1 : 1;
  return (a->rank > b->rank) - (a->rank < b->rank);
}

int dldb_merge_pick_detail(const dldb_rank_pick *v, size_t n, const int32_t *asked, size_t na,
                           unsigned char *detail) {
  if (n == 0) return DL_OK;
  const dldb_rank_pick **o = malloc(n * sizeof *o);
  if (!o) return DL_ENOMEM;
  for (size_t i = 0; i < n; i++) o[i] = &v[i];
  qsort(o, n, sizeof *o, by_own);
  const size_t picks[] = {0, (n - 1) / 2, n - 1};
  for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++) detail[o[picks[k]] - v] = 1;
  free(o);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < na; j++)
      if (v[i].rank == asked[j]) detail[i] = 1;
  return DL_OK;
}
