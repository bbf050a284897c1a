/*
 * api_timeline.c - GET /api/v1/dl_timeline?track_id=T&start=S&end=E&width=W
 * (&run=RUN): the events of track T that overlap [S, E) (ns), raw while at
 * most W of them, else at most W bins (lod.h).
 *
 * Data flow: the query string checked (400 before any I/O) -> the run's
 * handle -> the track's stored bins and events (db/dldb_timeline.h) -> the
 * level of detail -> one JSON object. A window of many events reads the
 * coarsest level of bins that still has TIMELINE_MIN_CELLS cells in it, and
 * the raw events of its first and last cell only; else (few events, or a
 * file without bins) its raw events. Answers are kept in the server's
 * answer cache (cache.h) under the parsed, defaulted request (tl_cache_key:
 * the run's gen, track_id, start, end, width), as the list views' are, so a
 * repeated window costs a lookup and a send.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "lod.h"
#include "routes.h"

#define TIMELINE_WIDTH_DEFAULT 1000
#define TIMELINE_WIDTH_MAX 10000
#define TIMELINE_MIN_CELLS 1024 /* the raw edges are each at most a 1024th of the window */
#define TIMELINE_T_MAX (INT64_C(1) << 61) /* |start|, |end| (ns): end - start cannot overflow */

typedef struct tl_args {
  int64_t track_id, start_ns, end_ns, width;
} tl_args;

typedef struct tl_param {
  const char *name;
  int required;
  int64_t min, max;
  size_t offset; /* into tl_args */
} tl_param;

static const tl_param tl_params[] = {
    {"track_id", 1, 1, INT64_MAX, offsetof(tl_args, track_id)},
    {"start", 1, -TIMELINE_T_MAX, TIMELINE_T_MAX, offsetof(tl_args, start_ns)},
    {"end", 1, -TIMELINE_T_MAX, TIMELINE_T_MAX, offsetof(tl_args, end_ns)},
    {"width", 0, 1, TIMELINE_WIDTH_MAX, offsetof(tl_args, width)},
};

/* Fills a from r's query string; 0, or the status of the 400 sent. */
static int parse(dlv_req *r, tl_args *a) {
  a->width = TIMELINE_WIDTH_DEFAULT;
  for (size_t i = 0; i < sizeof tl_params / sizeof *tl_params; i++) {
    const tl_param *p = &tl_params[i];
    char text[32], *end = NULL;
    int given = dlv_query_value(r->query, p->name, text, sizeof text);
    if (given == 0 && !p->required) continue;
    if (given <= 0)
      return dlv_send_error(r, 400, "bad_param", "%s is required: an integer", p->name);
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < p->min || v > p->max)
      return dlv_send_error(r, 400, "bad_param", "%s: not an integer in [%lld, %lld]", p->name,
                            (long long)p->min, (long long)p->max);
    *(int64_t *)(void *)((char *)a + p->offset) = v;
  }
  if (a->end_ns <= a->start_ns)
    return dlv_send_error(r, 400, "bad_param", "end must be greater than start");
  return 0;
}

/* The level of bins to read for a, 0: none (read the raw events). */
static int pick_level(const tl_args *a, const dldb_tl_track *t, int64_t *grid_ns) {
  int64_t len = a->end_ns - a->start_ns;
  int64_t cell = len / (a->width > TIMELINE_MIN_CELLS ? a->width : TIMELINE_MIN_CELLS);
  int level = 0;
  for (int k = 1; k <= t->levels && k < 31; k++) {
    int64_t g = t->bin_ns << (2 * (k - 1));
    if (g > cell) break;
    level = k;
    *grid_ns = g;
  }
  return level;
}

static int64_t floor_div(int64_t t, int64_t g) {
  int64_t q = t / g;
  return (t % g != 0 && t < 0) ? q - 1 : q;
}

static int64_t ceil_div(int64_t t, int64_t g) { return -floor_div(-t, g); }

/* Adds the stored cells [lo, hi) of level (grid g) to l. */
static int add_cells(dldb *db, const tl_args *a, dlv_lod *l, int level, int64_t g, int64_t lo,
                     int64_t hi, char *err, size_t errlen) {
  if (lo >= hi) return DL_OK;
  l->cell_ns = g;
  return dldb_timeline_bins(db, a->track_id, level, lo, hi, dlv_lod_add_cell, l, err, errlen);
}

/* Adds the raw events of [lo, hi) to l (dlv_lod_add_edge). */
static int add_raw(dldb *db, const tl_args *a, dlv_lod *l, int64_t lo, int64_t hi, char *err,
                   size_t errlen) {
  if (lo >= hi) return DL_OK;
  dlv_lod_clip(l, lo, hi);
  return dldb_timeline_events(db, a->track_id, lo, hi, dlv_lod_add_edge, l, err, errlen);
}

/* Fills l from the stored cells of level (grid g) inside the window; its
 * first and last cell, partly outside, from the finer levels' cells inside
 * them, down to the raw events of what no finest cell covers whole (a part
 * of one finest cell at each end, and the events that start before the
 * window). Leaves l empty (freed) when it counts at most the width. */
static int from_bins(dldb *db, const tl_args *a, int level, int64_t g, dlv_lod *l, char *err,
                     size_t errlen) {
  int64_t s = a->start_ns, e = a->end_ns;
  dlv_lod_init_grid(l, s, e, g, (int)a->width);
  int64_t c1 = floor_div(e - 1, g), left = (l->c0 + 1) * g, right = c1 * g;
  int rc = add_cells(db, a, l, level, g, l->c0 + 1, c1, err, errlen);
  int64_t gk = g;
  for (int k = level - 1; rc == DL_OK && k >= 1; k--) {
    gk /= 4;
    int64_t first = ceil_div(s + 1, gk), last = floor_div(e, gk); /* whole cells past s */
    rc = add_cells(db, a, l, k, gk, first, left / gk, err, errlen);
    if (rc == DL_OK) rc = add_cells(db, a, l, k, gk, right / gk, last, err, errlen);
    left = first * gk;
    right = last * gk;
  }
  if (rc == DL_OK) rc = add_raw(db, a, l, s, left, err, errlen);
  if (rc == DL_OK) rc = add_raw(db, a, l, right, e, err, errlen);
  if (rc == DL_OK && !l->oom && dlv_lod_count(l) <= a->width) dlv_lod_free(l);
  return rc;
}

/* Fills l with the window's level of detail. */
static int summarize(dldb *db, const tl_args *a, dlv_lod *l, char *err, size_t errlen) {
  dldb_tl_track t;
  int rc = dldb_timeline_track(db, a->track_id, &t, err, errlen);
  if (rc) return rc;
  int64_t g = 0;
  int level = pick_level(a, &t, &g);
  if (level) {
    rc = from_bins(db, a, level, g, l, err, errlen);
    if (rc || l->oom || l->bins) return rc;
  }
  dlv_lod_init(l, a->start_ns, a->end_ns, (int)a->width);
  return dldb_timeline_events(db, a->track_id, a->start_ns, a->end_ns, dlv_lod_add, l, err,
                              errlen);
}

/* The normalised request: the run's gen (an answer never outlives its file)
 * and every parsed, defaulted parameter. */
static const char *tl_cache_key(const dlv_req *r, const tl_args *a, dlv_cache_key *k) {
  dlv_cache_key_init(k, "dl_timeline");
  dlv_cache_key_int(k, "gen", r->gen);
  dlv_cache_key_int(k, "track_id", a->track_id);
  dlv_cache_key_int(k, "start", a->start_ns);
  dlv_cache_key_int(k, "end", a->end_ns);
  dlv_cache_key_int(k, "width", a->width);
  return dlv_cache_key_text(k);
}

int api_timeline(dlv_req *r) {
  tl_args a;
  int status = parse(r, &a);
  if (status) return status;
  if ((status = dlv_req_verify(r)) != 0) return status;
  dlv_cache_key k;
  const char *key = tl_cache_key(r, &a, &k);
  const dlv_cache_entry *hit = dlv_cache_get(r->cache, key);
  if (hit) {
    status = dlv_send_json_text(r, 200, hit->body, hit->len);
    dlv_cache_release(r->cache, hit);
    return status;
  }
  dldb *db = NULL;
  if ((status = dlv_req_db(r, &db)) != 0) return status;
  dlv_lod l;
  char err[512];
  memset(&l, 0, sizeof l);
  int rc = summarize(db, &a, &l, err, sizeof err);
  if (rc == DL_ENOTFOUND) {
    status = dlv_send_error(r, 404, "not_found", "%s", err);
  } else if (rc) {
    status = dlv_send_error(r, 500, "db_error", "%s", err);
  } else if (l.oom) {
    status = dlv_send_error(r, 500, "internal", "out of memory building the answer");
  } else {
    dlv_jbuf b = {0};
    dlv_jbuf_lit(&b, "{\"track_id\":");
    dlv_jbuf_int(&b, a.track_id);
    dlv_jbuf_lit(&b, ",\"start\":");
    dlv_jbuf_int(&b, a.start_ns);
    dlv_jbuf_lit(&b, ",\"end\":");
    dlv_jbuf_int(&b, a.end_ns);
    dlv_jbuf_lit(&b, ",\"width\":");
    dlv_jbuf_int(&b, a.width);
    dlv_jbuf_lit(&b, ",");
    dlv_lod_json(&l, &b);
    dlv_jbuf_lit(&b, "}");
    size_t len;
    char *text = dlv_jbuf_take(&b, &len);
    if (text) dlv_cache_put(r->cache, key, text, len);
    status = text ? dlv_send_json_text(r, 200, text, len)
                  : dlv_send_error(r, 500, "internal", "out of memory building the answer");
    free(text);
  }
  dlv_lod_free(&l);
  return status;
}
