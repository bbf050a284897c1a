/*
 * api_views.c - GET /api/v1/<view>: the dldb views of views.c, generically.
 *
 * Data flow: query string -> dlv_params (400 on anything wrong, no I/O) ->
 * catalog check (404 view_missing) -> this thread's dldb handle -> one
 * dldb_query -> an object, a page of a list with its counts, or the whole
 * list as streamed CSV. Which view, its shape, default order and tie-break
 * columns come from the table in views.c.
 *
 * JSON answers are written as text straight from the rows (dlv_jbuf, no
 * cJSON tree) and kept in the server's answer cache under the normalised
 * request (cache_key: the view and every parsed, defaulted parameter), so a
 * repeated request costs the one stat() of the file server.c makes when the
 * request starts, a lookup and a send.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "json.h"
#include "params.h"
#include "routes.h"

/* The dldb query for v with parameters p. A view whose aggregation is its
 * aggregation_id column gets aggr_id as the first exact-match filter, its
 * text in aggr_text (which the query borrows). */
static void make_query(const dlv_view *v, const dlv_viewcat *vc, const dlv_params *p,
                       dldb_query *q, char *aggr_text, size_t aggr_len) {
  memset(q, 0, sizeof *q);
  q->view = v->sql_view;
  q->aggr_id = (v->scope & DLV_PER_AGGR) ? p->aggr_id : -1;
  q->domain = (v->scope & DLV_PER_DOMAIN) ? p->domain : NULL;
  if ((v->scope & DLV_PER_AGGREGATION_ID) && p->aggr_id >= 0) {
    snprintf(aggr_text, aggr_len, "%lld", (long long)p->aggr_id);
    q->eq[q->n_eq].column = "aggregation_id";
    q->eq[q->n_eq++].value = aggr_text;
  }
  for (int i = 0; i < p->n_eq && q->n_eq < DLDB_MAX_EQ; i++) {
    q->eq[q->n_eq].column = p->eq[i].column;
    q->eq[q->n_eq++].value = p->eq[i].value;
  }
  q->filter = p->filter;
  memcpy(q->filter_cols, dlv_filter_columns, sizeof q->filter_cols);
  q->sort = p->sort;
  q->desc = p->desc;
  for (int i = 0, k = 0; i < DLDB_MAX_TIEBREAK && v->tiebreak[i]; i++)
    if (dlv_viewcat_column(vc, v->tiebreak[i]) >= 0) q->tiebreak[k++] = v->tiebreak[i];
  q->offset = p->offset;
  q->limit = p->limit;
  q->tree_parent = (v->scope & DLV_TREE) ? p->tree_parent : NULL;
}

static int db_failed(dlv_req *r, const char *err) {
  return dlv_send_error(r, 500, "db_error", "%s", err);
}

/* The normalised request: equal keys give equal answers. scope: what the
 * rows are read from, e.g. the run's gen (r->gen), so that an answer a
 * request started before the file was replaced puts in the cache is never
 * served from the new file. */
static const char *cache_key(const dlv_view *v, const dldb_query *q, const char *scope,
                             dlv_cache_key *k) {
  int order[DLDB_MAX_EQ];
  dlv_cache_key_init(k, v->name);
  dlv_cache_key_add(k, "scope", scope);
  dlv_cache_key_int(k, "aggr_id", q->aggr_id);
  if (q->domain) dlv_cache_key_add(k, "domain", q->domain);
  /* exact-match filters in column order: their order does not change the rows */
  for (int i = 0; i < q->n_eq; i++) order[i] = i;
  for (int i = 1; i < q->n_eq; i++)
    for (int j = i; j > 0 && strcmp(q->eq[order[j - 1]].column, q->eq[order[j]].column) > 0; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int i = 0; i < q->n_eq; i++) {
    dlv_cache_key_add(k, "eq", q->eq[order[i]].column);
    dlv_cache_key_add(k, "v", q->eq[order[i]].value);
  }
  if (q->filter) dlv_cache_key_add(k, "filter", q->filter);
  if (q->tree_parent) dlv_cache_key_add(k, "parent", q->tree_parent);
  if (q->sort) dlv_cache_key_add(k, "sort", q->sort);
  dlv_cache_key_int(k, "desc", q->desc);
  dlv_cache_key_int(k, "offset", q->offset);
  dlv_cache_key_int(k, "limit", q->limit);
  return dlv_cache_key_text(k);
}

/* Sends b's text as a 200 and keeps it under key. */
static int send_built(dlv_req *r, dlv_jbuf *b, const char *key) {
  size_t len;
  char *text = dlv_jbuf_take(b, &len);
  if (!text) return dlv_send_error(r, 500, "internal", "out of memory building the answer");
  dlv_cache_put(r->cache, key, text, len);
  dlv_send_json_text(r, 200, text, len);
  free(text);
  return 200;
}

static int first_row(void *ctx, const dldb_row *row) {
  dlv_jbuf_rows *rows = ctx;
  dlv_jbuf_row(rows->buf, row);
  rows->n++;
  return 1;
}

static int send_object(dlv_req *r, dldb *db, const dldb_query *q, const dlv_params *p,
                       const char *key) {
  char err[512];
  dlv_jbuf b = {0};
  dlv_jbuf_rows one = {.buf = &b};
  int rc = dldb_query_rows(db, q, first_row, &one, err, sizeof err);
  if (rc) {
    dlv_jbuf_free(&b);
    return db_failed(r, err);
  }
  if (!one.n) {
    dlv_jbuf_free(&b);
    if (q->aggr_id >= 0)
      return dlv_send_error(r, 404, "not_found", "%s has no row for aggr_id %lld%s%.64s%s",
                            q->view, (long long)p->aggr_id, q->domain ? " and domain '" : "",
                            q->domain ? q->domain : "", q->domain ? "'" : "");
    return dlv_send_error(r, 404, "not_found", "%s has no row", q->view);
  }
  return send_built(r, &b, key);
}

/* The nsys-stats-style tables keep their rows in row_idx order, which is
 * total time descending (then count, then name): sorting by total time
 * reads that order rather than sorting every row (10.7 M NVTX names: 1.9 s
 * descending and 9.4 s ascending that way). Ascending total time is row_idx
 * descending: equal totals then come in the reverse order of count and name. */
static void sort_by_row_idx(const dlv_view *v, dldb_query *q) {
  if (strncmp(v->name, "dl_stats_", 9) != 0 || !v->sort || strcmp(v->sort, "row_idx") != 0 ||
      !q->sort)
    return;
  const char *total = strcmp(v->name, "dl_stats_nvtx_gpu_proj") == 0 ? "total_proj_time" : "total_time";
  if (strcmp(q->sort, total) != 0) return;
  q->sort = "row_idx";
  q->desc = !q->desc;
}

/* The page of q's rows; its sort and order are said as asked (shown). */
static int send_list(dlv_req *r, dldb *db, const dldb_query *q, const dldb_query *shown,
                     const char *key) {
  char err[512];
  int64_t total = 0, filtered = 0;
  int rc = dldb_query_count(db, q, &total, &filtered, err, sizeof err);
  if (rc) return db_failed(r, err);
  dlv_jbuf b = {0};
  dlv_jbuf_lit(&b, "{\"total\":");
  dlv_jbuf_int(&b, total);
  dlv_jbuf_lit(&b, ",\"filtered\":");
  dlv_jbuf_int(&b, filtered);
  dlv_jbuf_lit(&b, ",\"offset\":");
  dlv_jbuf_int(&b, q->offset);
  dlv_jbuf_lit(&b, ",\"limit\":");
  dlv_jbuf_int(&b, q->limit);
  dlv_jbuf_lit(&b, ",\"sort\":");
  if (shown->sort) dlv_jbuf_str(&b, shown->sort);
  else dlv_jbuf_lit(&b, "null");
  dlv_jbuf_lit(&b, shown->desc ? ",\"order\":\"desc\",\"rows\":[" : ",\"order\":\"asc\",\"rows\":[");
  dlv_jbuf_rows rows = {.buf = &b};
  if (q->offset < filtered)
    rc = dldb_query_rows(db, q, dlv_jbuf_rows_append, &rows, err, sizeof err);
  dlv_jbuf_lit(&b, "]}");
  if (rc) {
    dlv_jbuf_free(&b);
    return db_failed(r, err);
  }
  return send_built(r, &b, key);
}

/* The whole list as CSV, streamed. */
static int send_csv(dlv_req *r, const dlv_view *v, dldb *db, dldb_query *q,
                    const dlv_viewcat *vc) {
  char err[512], filename[96];
  snprintf(filename, sizeof filename, "%s.csv", v->name);
  dlv_stream out = {.req = r, .content_type = "text/csv; charset=utf-8",
                    .filename = filename};
  dlv_csv *csv = malloc(sizeof *csv); /* its 32 KiB buffer stays off the thread stack */
  if (!csv) return dlv_send_error(r, 500, "internal", "out of memory");
  q->offset = 0;
  q->limit = -1;
  dlv_csv_init(csv, dlv_stream_write, &out);
  dlv_csv_header(csv, (const char *const *)vc->names, vc->n);
  int rc = dldb_query_rows(db, q, dlv_csv_row, csv, err, sizeof err);
  int status = 200;
  if (rc && !out.started) {
    status = db_failed(r, err);
  } else if (rc) {
    fprintf(stderr, "dlprofviewer: CSV of %s cut short: %s\n", q->view, err);
    mg_disable_keep_alive(r->conn); /* no last chunk, then a close: the client sees it cut */
    status = 500;
  } else if (dlv_csv_flush(csv) == 0) {
    dlv_stream_end(&out);
  }
  free(csv);
  return status;
}

int dlv_answer_query(dlv_req *r, const dlv_answer *a) {
  const dlv_view *v = a->view;
  dldb *db = a->db;
  dldb_query q;
  char aggr_text[24];
  make_query(v, a->vc, a->p, &q, aggr_text, sizeof aggr_text);
  if (v->shape == DLV_OBJECT) {
    q.offset = 0;
    q.limit = 1;
  }
  dlv_cache_key k;
  const char *key = a->p->csv || !a->scope ? NULL : cache_key(v, &q, a->scope, &k);
  const dlv_cache_entry *hit = dlv_cache_get(r->cache, key);
  if (hit) {
    int status = dlv_send_json_text(r, 200, hit->body, hit->len);
    dlv_cache_release(r->cache, hit);
    return status;
  }
  if (!db) {
    int status = dlv_req_db(r, &db);
    if (status) return status;
  }
  dldb_query run = q; /* the same rows, perhaps read in a cheaper order */
  sort_by_row_idx(v, &run);
  if (a->lock) a->lock(a->lock_ctx);
  int status;
  if (v->shape == DLV_OBJECT) status = send_object(r, db, &q, a->p, key);
  else if (a->p->csv) status = send_csv(r, v, db, &run, a->vc);
  else status = send_list(r, db, &run, &q, key);
  if (a->lock) a->unlock(a->lock_ctx);
  return status;
}

int api_view(dlv_req *r) {
  const dlv_view *v = r->view;
  const dlv_viewcat *vc = dlv_catalog_view(r->cat, v);
  dlv_params p;
  char msg[256];
  int status;
  if (dlv_params_parse(r->query, r->cat, v, DLV_ACCEPT_SCOPE | DLV_ACCEPT_LIST, &p, msg,
                       sizeof msg) != DL_OK) {
    status = dlv_send_error(r, 400, "bad_param", "%s", msg);
    goto out;
  }
  if (!vc->present) {
    status = dlv_send_error(r, 404, "view_missing",
                            "this database has no %s, which %s needs (it was written by %s)",
                            v->sql_view, v->feature,
                            dlv_view_optional(v) ? "NVIDIA DLProf or an older dlprof"
                                                 : "an older DLProf");
    goto out;
  }
  if ((v->scope & DLV_PER_AGGREGATION_ID) && p.n_eq >= DLDB_MAX_EQ) {
    status = dlv_send_error(r, 400, "bad_param", "at most %d column filters are allowed",
                            DLDB_MAX_EQ - 1);
    goto out;
  }
  status = dlv_req_verify(r);
  if (status) goto out;
  char scope[24];
  snprintf(scope, sizeof scope, "gen %u", r->gen);
  dlv_answer a = {.view = v, .vc = vc, .p = &p, .scope = scope};
  status = dlv_answer_query(r, &a);
out:
  dlv_params_free(&p);
  return status;
}
