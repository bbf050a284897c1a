/*
 * api_tlfocus.c - where the Timeline page opens for another page's row,
 * and a GPU's idle gaps:
 *   GET /api/v1/dl_timeline_focus?of=op&op=ID(&iter=N)
 *       of=kernel&iter=N&at=API_START&device_id=D&name=KERNEL
 *       of=iteration&iter=N
 *       of=finding&finding=NTH          (&aggr_id=A, &run=RUN on each)
 *     -> {"of":..,"start":S,"end":E,"track_id":T|null,"sel_start":..|null,
 *         "category":..|null,"event_id":..|null,"q":..|null,"what":".."}
 *   GET /api/v1/dl_timeline_findings(?aggr_id=A)
 *     -> {"rows":[{"finding":NTH,"start":S,"end":E,"what":".."}, ...]}:
 *        the findings whose evidence has a range (the others left out)
 *   GET /api/v1/dl_gpu_idle_gaps(?device_id=D)(&limit=N)
 *     -> {"rows":[{"device_id":D,"start":S,"end":E,"duration":ns}, ...]}
 * (db/dldb_tlfocus.h, db/dldb_tlgaps.h). 404 where the row has no range.
 *
 * Data flow: the query string checked (400 before any I/O) -> the run's
 * handle -> one lookup -> one JSON object.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_tlfocus.h"
#include "dldb_tlgaps.h"
#include "json.h"
#include "routes.h"

/* The query's parameters; has_*: given. */
typedef struct fq_args {
  char of[16], op[256], name[1024];
  int64_t aggr_id, iter, at, device_id, finding, limit;
  int has_iter, has_at, has_device, has_finding, has_op, has_name;
} fq_args;

typedef struct fq_int {
  const char *name;
  size_t value, given; /* offsets into fq_args */
  int64_t min;
} fq_int;

static const fq_int fq_ints[] = {
    {"aggr_id", offsetof(fq_args, aggr_id), 0, 1},
    {"iter", offsetof(fq_args, iter), offsetof(fq_args, has_iter), INT64_MIN},
    {"at", offsetof(fq_args, at), offsetof(fq_args, has_at), INT64_MIN},
    {"device_id", offsetof(fq_args, device_id), offsetof(fq_args, has_device), INT64_MIN},
    {"finding", offsetof(fq_args, finding), offsetof(fq_args, has_finding), 1},
    {"limit", offsetof(fq_args, limit), 0, 1},
};

/* Fills a from r's query string; 0, or the status of the 400 sent. */
static int parse(dlv_req *r, fq_args *a) {
  memset(a, 0, sizeof *a);
  a->limit = 10;
  for (size_t i = 0; i < sizeof fq_ints / sizeof *fq_ints; i++) {
    const fq_int *p = &fq_ints[i];
    char text[32], *end = NULL;
    int given = dlv_query_value(r->query, p->name, text, sizeof text);
    if (given == 0) continue;
    errno = 0;
    long long v = given > 0 ? strtoll(text, &end, 10) : 0;
    if (given < 0 || errno || end == text || *end || v < p->min)
      return dlv_send_error(r, 400, "bad_param", "%s: not an integer >= %lld", p->name,
                            (long long)p->min);
    *(int64_t *)(void *)((char *)a + p->value) = v;
    if (p->given) *(int *)(void *)((char *)a + p->given) = 1;
  }
  if (a->limit > DLDB_TL_GAPS_MAX)
    return dlv_send_error(r, 400, "bad_param", "limit: 1 to %d", DLDB_TL_GAPS_MAX);
  a->has_op = dlv_query_value(r->query, "op", a->op, sizeof a->op) > 0 && a->op[0];
  a->has_name = dlv_query_value(r->query, "name", a->name, sizeof a->name) > 0 && a->name[0];
  if (dlv_query_value(r->query, "of", a->of, sizeof a->of) < 0) a->of[0] = 0;
  return 0;
}

/* Each kind of row: what it needs, and its lookup. */
typedef int (*fq_fn)(dldb *db, const fq_args *a, dldb_tl_focus *f, char *err, size_t errlen);

static int by_op(dldb *db, const fq_args *a, dldb_tl_focus *f, char *err, size_t errlen) {
  return dldb_timeline_focus_op(db, a->aggr_id, a->op, a->has_iter ? a->iter : -1, f, err, errlen);
}

static int by_kernel(dldb *db, const fq_args *a, dldb_tl_focus *f, char *err, size_t errlen) {
  return dldb_timeline_focus_launch(db, a->aggr_id, a->iter, a->at, a->device_id, a->name, f, err,
                                    errlen);
}

static int by_iter(dldb *db, const fq_args *a, dldb_tl_focus *f, char *err, size_t errlen) {
  return dldb_timeline_focus_iter(db, a->aggr_id, a->iter, f, err, errlen);
}

static int by_finding(dldb *db, const fq_args *a, dldb_tl_focus *f, char *err, size_t errlen) {
  return dldb_timeline_focus_finding(db, a->aggr_id, a->finding, f, err, errlen);
}

static const struct {
  const char *of, *needs;
  fq_fn fn;
  size_t given[4]; /* offsets of the has_* flags it needs, 0: none */
} fq_kinds[] = {
    {"op", "op", by_op, {offsetof(fq_args, has_op)}},
    {"kernel", "iter, at, device_id and name", by_kernel,
     {offsetof(fq_args, has_iter), offsetof(fq_args, has_at), offsetof(fq_args, has_device),
      offsetof(fq_args, has_name)}},
    {"iteration", "iter", by_iter, {offsetof(fq_args, has_iter)}},
    {"finding", "finding", by_finding, {offsetof(fq_args, has_finding)}},
};

static void opt_int(dlv_jbuf *b, const char *key, int has, int64_t v) {
  dlv_jbuf_lit(b, key);
  if (has) dlv_jbuf_int(b, v);
  else dlv_jbuf_lit(b, "null");
}

static int send_focus(dlv_req *r, const char *of, const dldb_tl_focus *f) {
  dlv_jbuf b = {0};
  dlv_jbuf_lit(&b, "{\"of\":");
  dlv_jbuf_str(&b, of);
  opt_int(&b, ",\"start\":", 1, f->start_ns);
  opt_int(&b, ",\"end\":", 1, f->end_ns);
  opt_int(&b, ",\"track_id\":", f->track_id != 0, f->track_id);
  opt_int(&b, ",\"sel_start\":", f->track_id != 0, f->sel_start_ns);
  dlv_jbuf_lit(&b, ",\"category\":");
  if (f->category) dlv_jbuf_str(&b, f->category);
  else dlv_jbuf_lit(&b, "null");
  opt_int(&b, ",\"event_id\":", f->category != NULL && strcmp(f->category, "gap"), f->event_id);
  dlv_jbuf_lit(&b, ",\"q\":");
  if (f->q[0]) dlv_jbuf_str(&b, f->q);
  else dlv_jbuf_lit(&b, "null");
  dlv_jbuf_lit(&b, ",\"what\":");
  dlv_jbuf_str(&b, f->what);
  dlv_jbuf_lit(&b, "}");
  size_t len = 0;
  char *text = dlv_jbuf_take(&b, &len);
  int status = text ? dlv_send_json_text(r, 200, text, len)
                    : dlv_send_error(r, 500, "internal", "out of memory building the answer");
  free(text);
  return status;
}

static int send_rc(dlv_req *r, int rc, const char *err) {
  if (rc == DL_ENOTFOUND) return dlv_send_error(r, 404, "not_found", "%s", err);
  if (rc == DL_ENOMEM) return dlv_send_error(r, 500, "internal", "%s", err);
  return dlv_send_error(r, 500, "db_error", "%s", err);
}

/* The request's access check, then its database. 0, or the status sent. */
static int verified_db(dlv_req *r, dldb **db) {
  int status = dlv_req_verify(r);
  return status ? status : dlv_req_db(r, db);
}

int api_timeline_focus(dlv_req *r) {
  fq_args a;
  int status = parse(r, &a);
  if (status) return status;
  size_t k = 0, nk = sizeof fq_kinds / sizeof *fq_kinds;
  while (k < nk && strcmp(fq_kinds[k].of, a.of)) k++;
  if (k == nk)
    return dlv_send_error(r, 400, "bad_param", "of is required: op, kernel, iteration or finding");
  for (int i = 0; i < 4 && fq_kinds[k].given[i]; i++)
    if (!*(const int *)(const void *)((const char *)&a + fq_kinds[k].given[i]))
      return dlv_send_error(r, 400, "bad_param", "of=%s needs %s", a.of, fq_kinds[k].needs);
  dldb *db = NULL;
  if ((status = verified_db(r, &db)) != 0) return status;
  dldb_tl_focus f;
  char err[512];
  int rc = fq_kinds[k].fn(db, &a, &f, err, sizeof err);
  return rc ? send_rc(r, rc, err) : send_focus(r, a.of, &f);
}

int api_timeline_findings(dlv_req *r) {
  fq_args a;
  int status = parse(r, &a);
  if (status) return status;
  dldb *db = NULL;
  if ((status = verified_db(r, &db)) != 0) return status;
  char err[512];
  int64_t n = 0;
  int rc = dldb_timeline_finding_count(db, a.aggr_id, &n, err, sizeof err);
  dlv_jbuf b = {0};
  dlv_jbuf_lit(&b, "{\"rows\":[");
  for (int64_t i = 1, k = 0; rc == DL_OK && i <= n; i++) {
    dldb_tl_focus f;
    rc = dldb_timeline_focus_finding(db, a.aggr_id, i, &f, err, sizeof err);
    if (rc == DL_ENOTFOUND) { /* no range: no row */
      rc = DL_OK;
      continue;
    }
    if (rc) break;
    dlv_jbuf_lit(&b, k++ ? ",{\"finding\":" : "{\"finding\":");
    dlv_jbuf_int(&b, i);
    opt_int(&b, ",\"start\":", 1, f.start_ns);
    opt_int(&b, ",\"end\":", 1, f.end_ns);
    dlv_jbuf_lit(&b, ",\"what\":");
    dlv_jbuf_str(&b, f.what);
    dlv_jbuf_lit(&b, "}");
  }
  dlv_jbuf_lit(&b, "]}");
  size_t len = 0;
  char *text = dlv_jbuf_take(&b, &len);
  if (rc) status = send_rc(r, rc, err);
  else status = text ? dlv_send_json_text(r, 200, text, len)
                     : dlv_send_error(r, 500, "internal", "out of memory building the answer");
  free(text);
  return status;
}

int api_gpu_idle_gaps(dlv_req *r) {
  fq_args a;
  int status = parse(r, &a);
  if (status) return status;
  dldb *db = NULL;
  if ((status = verified_db(r, &db)) != 0) return status;
  dldb_tl_gap gaps[DLDB_TL_GAPS_MAX];
  int n = 0;
  char err[512];
  int rc = dldb_timeline_gaps(db, !a.has_device, a.device_id, (int)a.limit, gaps, &n, err,
                              sizeof err);
  if (rc) return send_rc(r, rc, err);
  dlv_jbuf b = {0};
  dlv_jbuf_lit(&b, "{\"rows\":[");
  for (int i = 0; i < n; i++) {
    dlv_jbuf_lit(&b, i ? ",{\"device_id\":" : "{\"device_id\":");
    dlv_jbuf_int(&b, gaps[i].device_id);
    dlv_jbuf_lit(&b, ",\"start\":");
    dlv_jbuf_int(&b, gaps[i].start_ns);
    dlv_jbuf_lit(&b, ",\"end\":");
    dlv_jbuf_int(&b, gaps[i].end_ns);
    dlv_jbuf_lit(&b, ",\"duration\":");
    dlv_jbuf_int(&b, gaps[i].end_ns - gaps[i].start_ns);
    dlv_jbuf_lit(&b, "}");
  }
  dlv_jbuf_lit(&b, "]}");
  size_t len = 0;
  char *text = dlv_jbuf_take(&b, &len);
  status = text ? dlv_send_json_text(r, 200, text, len)
                : dlv_send_error(r, 500, "internal", "out of memory building the answer");
  free(text);
  return status;
}
