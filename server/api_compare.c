/*
 * api_compare.c - GET /api/v1/dl_compare_{kernels,ops,summary,iterations}
 * ?base=RUN&run=RUN: two served runs compared (db/dldb_compare.h), paged,
 * sorted and filtered like the view endpoints.
 *
 * Data flow: base and run (ids of /api/v1/runs; run defaults to the first)
 * -> both files' identities -> the comparison, from the cache of
 * comparisons (compares.h) or built -> the query string checked against
 * the table's columns (400) -> one query on the comparison's handle, whose
 * answer goes into the answer cache under the comparison's id.
 */
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "routes.h"

/* The endpoints, in dlv_compare_tables order. Without a sort, rows come in
 * the table's order: the biggest change first. */
/* clang-format off */
static const dlv_view compare_views[DLV_COMPARE_TABLES] = {
  /* name                     sql_view                 shape       scope sort  desc tiebreak                                        feature */
  {"dl_compare_kernels",    "dl_compare_kernels",    DLV_LIST,   0,    NULL, 0,   {"kernel_name", NULL},                          "the comparison's kernels"},
  {"dl_compare_ops",        "dl_compare_ops",        DLV_LIST,   0,    NULL, 0,   {"op_node_name", "op_node_type", "direction", NULL}, "the comparison's ops"},
  {"dl_compare_summary",    "dl_compare_summary",    DLV_OBJECT, 0,    NULL, 0,   {NULL},                                         "the comparison's summary"},
  {"dl_compare_iterations", "dl_compare_iterations", DLV_LIST,   0,    NULL, 0,   {"side", "iter_value", NULL},                   "the comparison's iteration chart"},
};
/* clang-format on */

static void lock(void *e) { dlv_compares_lock(e); }
static void unlock(void *e) { dlv_compares_unlock(e); }

/* The run named by parameter name (its default: the first run, or none when
 * required) into *index. 0, or the status of the error sent. */
static int which_run(dlv_req *r, const char *name, int required, int *index) {
  char id[64];
  int given = dlv_query_value(r->query, name, id, sizeof id);
  if (given < 0) return dlv_send_error(r, 400, "bad_param", "%s: malformed value", name);
  if (!given && required)
    return dlv_send_error(r, 400, "bad_param", "%s is required: the id of a run (see /api/v1/runs)",
                          name);
  *index = dlv_runs_find(r->runs, given ? id : NULL);
  if (*index >= 0) return 0;
  if (given)
    return dlv_send_error(r, 404, "run_not_found", "no run '%.64s' is served (see /api/v1/runs)",
                          id);
  return dlv_send_error(r, 404, "run_not_found", "no database is served yet");
}

/* The comparison of the two runs. 0 with *e referenced, or the status sent. */
static int comparison(dlv_req *r, const int index[2], dlv_compare_entry **e) {
  char path[2][1024], name[2][1024], ident[2][128], err[768];
  for (int k = 0; k < 2; k++)
    if (dlv_runs_file(r->runs, index[k], path[k], sizeof path[k], name[k], sizeof name[k],
                      ident[k], sizeof ident[k]) != DL_OK)
      return dlv_send_error(r, 404, "run_not_found", "the database %.900s was removed", path[k]);
  const char *const paths[2] = {path[0], path[1]}, *const idents[2] = {ident[0], ident[1]},
                    *const names[2] = {name[0], name[1]};
  if (dlv_compares_get(r->compares, paths, idents, names, e, err, sizeof err) != DL_OK)
    return dlv_send_error(r, 500, "db_error", "%s", err);
  return 0;
}

int api_compare(dlv_req *r) {
  int t = 0, index[2] = {-1, -1};
  while (t < DLV_COMPARE_TABLES && strcmp(r->path + strlen("/api/v1/"), dlv_compare_tables[t]))
    t++;
  if (t == DLV_COMPARE_TABLES) return dlv_send_error(r, 404, "not_found", "no API endpoint");
  const dlv_view *v = &compare_views[t];
  int status = which_run(r, "base", 1, &index[0]);
  if (!status) status = which_run(r, "run", 0, &index[1]);
  if (status) return status;
  dlv_compare_entry *e = NULL;
  status = comparison(r, index, &e);
  if (status) return status;
  dlv_params p;
  char msg[256], scope[32];
  if (dlv_params_parse_cols(r->query, &e->cols[t], v, DLV_ACCEPT_LIST, &p, msg, sizeof msg) !=
      DL_OK) {
    status = dlv_send_error(r, 400, "bad_param", "%s", msg);
  } else {
    snprintf(scope, sizeof scope, "compare %u", e->id);
    dlv_view own = *v; /* without a sort, the table's order alone (no tie-break order) */
    if (!p.sort) own.tiebreak[0] = NULL;
    dlv_answer a = {.view = &own, .vc = &e->cols[t], .p = &p, .scope = e->id ? scope : NULL,
                    .db = e->db, .lock = lock, .unlock = unlock, .lock_ctx = e};
    status = dlv_answer_query(r, &a);
  }
  dlv_params_free(&p);
  dlv_compares_release(r->compares, e);
  return status;
}
