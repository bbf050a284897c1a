/*
 * api_tlevent.c - GET /api/v1/dl_timeline_event?category=C&event_id=ID
 * (&run=RUN): one timeline event's details (every column of its row:
 * names, times, device and stream, grid and block, call stack ...) and its
 * links: a kernel's launching CUDA call with the kernel's op, a call's
 * kernels, a Python frame's enclosing frames, each with its track
 * (db/dldb_tldetail.h). The Timeline page
 * shows them on selection and draws the call-to-kernel flow from them.
 *
 * Data flow: the query string checked (400 before any I/O) -> the run's
 * handle -> the details row and links -> one JSON object.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_tldetail.h"
#include "json.h"
#include "routes.h"

/* The answer being built, and the items of its open object or array. */
typedef struct ev_out {
  dlv_jbuf b;
  int n;
} ev_out;

static int detail_col(void *ctx, const dldb_tl_col *c) {
  ev_out *o = ctx;
  dlv_jbuf *b = &o->b;
  if (o->n++) dlv_jbuf_lit(b, ",");
  dlv_jbuf_str(b, c->name);
  dlv_jbuf_lit(b, ":");
  switch (c->type) {
  case DLDB_TL_INT: dlv_jbuf_int(b, c->i); break;
  case DLDB_TL_REAL: dlv_jbuf_real(b, c->d); break;
  case DLDB_TL_TEXT: dlv_jbuf_str(b, c->text); break;
  default: dlv_jbuf_lit(b, "null");
  }
  return 0;
}

static void opt_str(dlv_jbuf *b, const char *key, const char *v) {
  dlv_jbuf_lit(b, key);
  if (v) dlv_jbuf_str(b, v);
  else dlv_jbuf_lit(b, "null");
}

static int link_json(void *ctx, const dldb_tl_link *l) {
  ev_out *o = ctx;
  dlv_jbuf *b = &o->b;
  if (o->n++) dlv_jbuf_lit(b, ",");
  dlv_jbuf_lit(b, "{\"role\":");
  dlv_jbuf_str(b, l->role);
  dlv_jbuf_lit(b, ",\"category\":");
  dlv_jbuf_str(b, l->category);
  opt_str(b, ",\"name\":", l->event_id ? l->name : NULL);
  const int64_t v[] = {l->track_id, l->event_id, l->start_ns, l->dur_ns};
  const char *const k[] = {",\"track_id\":", ",\"event_id\":", ",\"start\":", ",\"dur\":"};
  for (int i = 0; i < 4; i++) {
    dlv_jbuf_lit(b, k[i]);
    if (l->event_id) dlv_jbuf_int(b, v[i]);
    else dlv_jbuf_lit(b, "null");
  }
  dlv_jbuf_lit(b, ",\"iter_value\":");
  dlv_jbuf_int(b, l->iter_value);
  opt_str(b, ",\"op_node_id\":", l->op_node_id);
  opt_str(b, ",\"op_node_name\":", l->op_node_name);
  opt_str(b, ",\"op_node_type\":", l->op_node_type);
  dlv_jbuf_lit(b, "}");
  return 0;
}

static const char *const categories[] = {"kernel",   "memcpy", "memset",
                                         "cuda_api", "range",  "python_function"};

int api_timeline_event(dlv_req *r) {
  char cat[24], id_text[32], *end = NULL;
  int given = dlv_query_value(r->query, "category", cat, sizeof cat);
  int known = 0;
  for (size_t i = 0; given > 0 && i < sizeof categories / sizeof *categories; i++)
    known |= !strcmp(cat, categories[i]);
  if (!known)
    return dlv_send_error(r, 400, "bad_param",
                          "category is required: kernel, memcpy, memset, cuda_api, range or "
                          "python_function");
  errno = 0;
  long long id = dlv_query_value(r->query, "event_id", id_text, sizeof id_text) > 0
                     ? strtoll(id_text, &end, 10)
                     : -1;
  if (errno || !end || end == id_text || *end || id < 0)
    return dlv_send_error(r, 400, "bad_param", "event_id is required: an integer >= 0");
  int status = dlv_req_verify(r);
  if (status) return status;
  dldb *db = NULL;
  if ((status = dlv_req_db(r, &db)) != 0) return status;
  char err[512];
  ev_out o = {0};
  dlv_jbuf_lit(&o.b, "{\"category\":");
  dlv_jbuf_str(&o.b, cat);
  dlv_jbuf_lit(&o.b, ",\"event_id\":");
  dlv_jbuf_int(&o.b, id);
  dlv_jbuf_lit(&o.b, ",\"details\":{");
  int rc = dldb_timeline_detail(db, cat, id, detail_col, &o, err, sizeof err);
  if (rc == DL_OK) {
    dlv_jbuf_lit(&o.b, "},\"links\":[");
    o.n = 0;
    rc = dldb_timeline_links(db, cat, id, link_json, &o, err, sizeof err);
    dlv_jbuf_lit(&o.b, "]}");
  }
  size_t len = 0;
  char *text = dlv_jbuf_take(&o.b, &len);
  if (rc == DL_ENOTFOUND) status = dlv_send_error(r, 404, "not_found", "%s", err);
  else if (rc) status = dlv_send_error(r, 500, "db_error", "%s", err);
  else if (!text) status = dlv_send_error(r, 500, "internal", "out of memory building the answer");
  else status = dlv_send_json_text(r, 200, text, len);
  free(text);
  return status;
}
