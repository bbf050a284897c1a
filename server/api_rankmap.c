/*
 * api_rankmap.c - GET /api/v1/dl_rank_heatmap?aggr_id=A(&form=F)(&run=RUN):
 * the Ranks page's heatmap in one answer (db/dldb_rankmap.h): every ranked
 * GPU's aggregated iterations (ns), as rows of [iter_value, device_id,
 * duration, exposed_communication_time] by iteration then device (form
 * cells, the default), or as a grid (form grid): the GPUs, the iterations,
 * and one array per column of GPUs by iterations, null where a GPU has no
 * such iteration, in units of the largest number of ns that divides every
 * cell (a trace in whole microseconds needs three digits less per number):
 * fewer bytes, and no array per cell to parse.
 *
 * Data flow: the query string checked (400 before any I/O) -> the run's
 * handle -> the cells -> one JSON object, kept in the server's answer cache
 * (cache.h) under the run's gen, aggr_id and form, as the list views'
 * answers are.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "dl.h"
#include "dldb_rankmap.h"
#include "json.h"
#include "routes.h"

typedef struct map_out {
  dlv_jbuf b;
  int64_t n;
} map_out;

static int cell_json(void *ctx, const dldb_rank_cell *c) {
  map_out *o = ctx;
  dlv_jbuf_lit(&o->b, o->n++ ? ",[" : "[");
  const int64_t v[] = {c->iter_value, c->device_id, c->duration_ns, c->exposed_comm_ns};
  for (int i = 0; i < 4; i++) {
    if (i) dlv_jbuf_lit(&o->b, ",");
    dlv_jbuf_int(&o->b, v[i]);
  }
  dlv_jbuf_lit(&o->b, "]");
  return 0;
}

/* An array of n integers. */
static void int_array(dlv_jbuf *b, const int64_t *v, size_t n) {
  dlv_jbuf_lit(b, "[");
  for (size_t i = 0; i < n; i++) {
    if (i) dlv_jbuf_lit(b, ",");
    dlv_jbuf_int(b, v[i]);
  }
  dlv_jbuf_lit(b, "]");
}

static uint64_t gcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The largest unit (ns) that divides both columns' cells; 1 when none
 * larger does or a cell is negative. */
static int64_t grid_unit(const dldb_rank_grid *g, size_t n) {
  uint64_t u = 0;
  for (size_t i = 0; i < n && u != 1; i++) {
    if (!g->has[i]) continue;
    if (g->duration_ns[i] < 0 || g->exposed_comm_ns[i] < 0) return 1;
    u = gcd(gcd(u, (uint64_t)g->duration_ns[i]), (uint64_t)g->exposed_comm_ns[i]);
  }
  return u && u <= INT64_MAX ? (int64_t)u : 1;
}

/* An array of the grid's cells of one column in units of unit, null where
 * has is 0. */
static void cell_array(dlv_jbuf *b, const int64_t *v, const unsigned char *has, size_t n,
                       int64_t unit) {
  dlv_jbuf_lit(b, "[");
  for (size_t i = 0; i < n; i++) {
    if (i) dlv_jbuf_raw(b, ",", 1);
    if (has[i]) dlv_jbuf_int(b, v[i] / unit);
    else dlv_jbuf_raw(b, "null", 4);
  }
  dlv_jbuf_lit(b, "]");
}

/* The answer of form cells into o->b. */
static int cells_answer(dldb *db, long long aggr, map_out *o, char *err, size_t errlen) {
  dlv_jbuf_lit(&o->b, "{\"aggr_id\":");
  dlv_jbuf_int(&o->b, aggr);
  dlv_jbuf_lit(&o->b, ",\"columns\":[\"iter_value\",\"device_id\",\"duration\","
                      "\"exposed_communication_time\"],\"rows\":[");
  int rc = dldb_rank_heatmap(db, aggr, cell_json, o, err, errlen);
  dlv_jbuf_lit(&o->b, "]}");
  return rc;
}

/* The answer of form grid into o->b. */
static int grid_answer(dldb *db, long long aggr, map_out *o, char *err, size_t errlen) {
  dldb_rank_grid g;
  int rc = dldb_rank_heatmap_grid(db, aggr, &g, err, errlen);
  if (rc) return rc;
  size_t n = g.devs * g.iters;
  int64_t unit = grid_unit(&g, n);
  dlv_jbuf_lit(&o->b, "{\"aggr_id\":");
  dlv_jbuf_int(&o->b, aggr);
  dlv_jbuf_lit(&o->b, ",\"form\":\"grid\",\"unit\":");
  dlv_jbuf_int(&o->b, unit);
  dlv_jbuf_lit(&o->b, ",\"device_id\":");
  int_array(&o->b, g.device_ids, g.devs);
  dlv_jbuf_lit(&o->b, ",\"iter_value\":");
  int_array(&o->b, g.iter_values, g.iters);
  dlv_jbuf_lit(&o->b, ",\"duration\":");
  cell_array(&o->b, g.duration_ns, g.has, n, unit);
  dlv_jbuf_lit(&o->b, ",\"exposed_communication_time\":");
  cell_array(&o->b, g.exposed_comm_ns, g.has, n, unit);
  dlv_jbuf_lit(&o->b, "}");
  dldb_rank_grid_free(&g);
  return DL_OK;
}

int api_rank_heatmap(dlv_req *r) {
  char text[32], *end = NULL;
  errno = 0;
  long long aggr = dlv_query_value(r->query, "aggr_id", text, sizeof text) > 0
                       ? strtoll(text, &end, 10)
                       : -1;
  if (errno || !end || end == text || *end || aggr < 0)
    return dlv_send_error(r, 400, "bad_param", "aggr_id is required: an integer >= 0");
  char form[8];
  int given = dlv_query_value(r->query, "form", form, sizeof form);
  int grid = given > 0 && strcmp(form, "grid") == 0;
  if (given < 0 || (given > 0 && !grid && strcmp(form, "cells") != 0))
    return dlv_send_error(r, 400, "bad_param", "form must be cells or grid");
  int status = dlv_req_verify(r);
  if (status) return status;
  dlv_cache_key k;
  dlv_cache_key_init(&k, "dl_rank_heatmap");
  dlv_cache_key_int(&k, "gen", r->gen);
  dlv_cache_key_int(&k, "aggr_id", aggr);
  dlv_cache_key_int(&k, "grid", grid);
  const char *key = dlv_cache_key_text(&k);
  const dlv_cache_entry *hit = dlv_cache_get(r->cache, key);
  if (hit) {
    status = dlv_send_json_text(r, 200, hit->body, hit->len);
    dlv_cache_release(r->cache, hit);
    return status;
  }
  dldb *db = NULL;
  if ((status = dlv_req_db(r, &db)) != 0) return status;
  char err[512];
  map_out o = {0};
  int rc = (grid ? grid_answer : cells_answer)(db, aggr, &o, err, sizeof err);
  size_t len = 0;
  char *out = dlv_jbuf_take(&o.b, &len);
  if (rc == DL_ENOTFOUND) status = dlv_send_error(r, 404, "not_found", "%s", err);
  else if (rc == DL_ENOMEM) status = dlv_send_error(r, 500, "internal", "%s", err);
  else if (rc) status = dlv_send_error(r, 500, "db_error", "%s", err);
  else if (!out) status = dlv_send_error(r, 500, "internal", "out of memory building the answer");
  else {
    dlv_cache_put(r->cache, key, out, len);
    status = dlv_send_json_text(r, 200, out, len);
  }
  free(out);
  return status;
}
