/*
 * dldb_kdpage.c - a page of a kernel view sorted by duration through the
 * stored launches by duration (db/schema.sql aggr_dl_kernel_dur_chunks,
 * view_dl_kernel_dur_chunks; dldb_read.h).
 *
 * The launches are in duration order, DLDB_PAIR_CHUNK places a row: the
 * durations at the page's first and last places are one chunk each, the
 * rows before the page's first duration a binary search of the places
 * (a chunk a probe, the last one kept), and the launch times of the
 * page's durations the chunks between. The page's rows are then read by
 * those times (dldb_query.c), whatever its offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_chunks.h"
#include "dldb_read.h"

#define KD_VIEW "view_dl_kernel_dur_chunks"
enum { C = DLDB_PAIR_CHUNK };

/* One chunk read, kept for the next probe. */
typedef struct kd_reader {
  dldb *db;
  const dldb_query *in;
  int64_t chunk; /* the chunk in pair, -1: none */
  int k;         /* its launches */
  int64_t pair[C][2]; /* [duration, launch time] */
  char *err;
  size_t errlen;
} kd_reader;

/* Chunk c into r (last: the aggregation's last chunk, c is ignored): 1,
 * 0 when there is none, or a negative DL_E*. */
static int load(kd_reader *r, int64_t c, int last) {
  if (!last && c == r->chunk) return 1;
  const dldb_query *in = r->in;
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT chunk, launches FROM " KD_VIEW " WHERE aggr_id = ?1%s%s",
           in->domain ? " AND domain_name = ?3" : "",
           last ? " ORDER BY chunk DESC LIMIT 1" : " AND chunk = ?2");
  sqlite3_stmt *st = dldb__stmt_get(r->db, sql, r->err, r->errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, in->aggr_id);
  if (!last) sqlite3_bind_int64(st, 2, c);
  if (in->domain) sqlite3_bind_text(st, 3, in->domain, -1, SQLITE_STATIC);
  int src = sqlite3_step(st), rc = 0;
  if (src == SQLITE_ROW) {
    r->chunk = sqlite3_column_int64(st, 0);
    r->k = dldb__pairs_parse((const char *)sqlite3_column_text(st, 1), r->pair);
    rc = r->k >= 0 ? 1
                   : dl_err(r->err, r->errlen, DL_EFORMAT, "%s: bad row of %s (chunk %lld)",
                            r->db->path, KD_VIEW, (long long)r->chunk);
    if (rc < 0) r->chunk = -1;
  } else if (src != SQLITE_DONE) {
    rc = dldb__sql_err(r->db, src, KD_VIEW, r->err, r->errlen);
  }
  dldb__stmt_done(st);
  return rc;
}

/* The duration at place p (< the places' count) into *d: 1, or as load. */
static int dur_at(kd_reader *r, int64_t p, int64_t *d) {
  int rc = load(r, p / C, 0);
  if (rc != 1) return rc == 0 ? dl_err(r->err, r->errlen, DL_EFORMAT, "%s: %s lacks chunk %lld",
                                        r->db->path, KD_VIEW, (long long)(p / C))
                              : rc;
  if (p % C >= r->k)
    return dl_err(r->err, r->errlen, DL_EFORMAT, "%s: %s: chunk %lld is short", r->db->path,
                  KD_VIEW, (long long)(p / C));
  *d = r->pair[p % C][0];
  return 1;
}

/* The first place of [0, n) whose duration is at least x (after: more
 * than x) into *at: 1, or a negative DL_E*. */
static int bound(kd_reader *r, int64_t n, int64_t x, int after, int64_t *at) {
  int64_t lo = 0, hi = n, d = 0;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int rc = dur_at(r, mid, &d);
    if (rc < 0) return rc;
    if (after ? d <= x : d < x) lo = mid + 1;
    else hi = mid;
  }
  *at = lo;
  return 1;
}

/* The launch times at places [a, b) as a JSON array into *out. */
static int times_of(kd_reader *r, int64_t a, int64_t b, char **out) {
  size_t cap = 64 + (size_t)(b - a) * 21, len = 0;
  char *s = malloc(cap);
  if (!s) return dl_err(r->err, r->errlen, DL_ENOMEM, "%s: out of memory", r->db->path);
  s[len++] = '[';
  for (int64_t p = a; p < b; p++) {
    int64_t d;
    int rc = dur_at(r, p, &d);
    if (rc < 0) {
      free(s);
      return rc;
    }
    len += (size_t)snprintf(s + len, cap - len, "%s%lld", p > a ? "," : "",
                            (long long)r->pair[p % C][1]);
  }
  s[len++] = ']';
  s[len] = '\0';
  *out = s;
  return 1;
}

int dldb__kdurs_window(dldb *db, const dldb_query *in, int64_t *lo, int64_t *hi,
                       int64_t *before, char **times, char *err, size_t errlen) {
  *times = NULL;
  if (!dldb__view_exists(db, KD_VIEW)) return 0;
  kd_reader *r = malloc(sizeof *r);
  if (!r) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  *r = (kd_reader){.db = db, .in = in, .chunk = -1, .err = err, .errlen = errlen};
  int rc = load(r, 0, 1); /* the last chunk: the launches' count */
  int64_t n = rc == 1 ? r->chunk * C + r->k : 0;
  if (rc == 1 && n == 0) rc = 0;
  if (rc == 1 && in->offset >= n) rc = 2;
  if (rc == 1) {
    int64_t off = in->offset > 0 ? in->offset : 0;
    int64_t last = in->limit > 0 && off + in->limit - 1 < n ? off + in->limit - 1 : n - 1;
    int64_t first_at = in->desc ? n - 1 - last : off, last_at = in->desc ? n - 1 - off : last;
    int64_t a = 0, b = 0;
    rc = dur_at(r, first_at, lo);
    if (rc == 1) rc = dur_at(r, last_at, hi);
    if (rc == 1) rc = bound(r, n, *lo, 0, &a);
    if (rc == 1) rc = bound(r, n, *hi, 1, &b);
    if (rc == 1) {
      *before = in->desc ? n - b : a;
      rc = times_of(r, a, b, times);
    }
  }
  free(r);
  return rc;
}
