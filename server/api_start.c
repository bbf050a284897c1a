/*
 * api_start.c - GET /api/v1/dl_start: what the page needs before it shows
 * a run, in one answer: the run's info, version and reports (as their own
 * endpoints answer them), its system config (the row of view_system_config,
 * null without it) and its GPU names (the rows of view_gpu_names, [] without
 * it). The page sends it at once, beside /api/v1/runs, in place of a chain
 * of six requests. With no run served and none asked for it answers 200
 * with "run" null and the rest empty, so a page opened on an empty folder
 * sees no failed request.
 */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "params.h"
#include "routes.h"

/* The rows of view (all of them) as an array; [] when the database lacks it.
 * NULL with err set when a query fails. */
static cJSON *view_rows(dldb *db, const char *view, int one, char *err, size_t errlen) {
  cJSON *rows = cJSON_CreateArray();
  if (!rows || !dldb_has_view(db, view)) return rows;
  dlv_json_rows collect = {.array = rows};
  dldb_query q = {.view = view, .aggr_id = -1, .limit = one ? 1 : -1};
  int rc = dldb_query_rows(db, &q, dlv_json_rows_append, &collect, err, errlen);
  if (rc || collect.failed) {
    if (!rc) snprintf(err, errlen, "out of memory building the answer");
    cJSON_Delete(rows);
    return NULL;
  }
  return rows;
}

/* The run's part of the answer into root: 0, or -1 with err set. */
static int add_run(cJSON *root, const dlv_req *r, dldb *db, char *err, size_t errlen) {
  cJSON *info = api_info_tree(r->cat, db, err, errlen);
  if (!info) return -1;
  cJSON_AddItemToObject(root, "info", info);
  cJSON_AddItemToObject(root, "version", api_version_tree(r->cat));
  cJSON_AddItemToObject(root, "reports", api_reports_tree(r->cat));
  cJSON *sys = view_rows(db, "view_system_config", 1, err, errlen);
  cJSON *names = sys ? view_rows(db, "view_gpu_names", 0, err, errlen) : NULL;
  if (!names) {
    cJSON_Delete(sys);
    return -1;
  }
  cJSON *row = cJSON_DetachItemFromArray(sys, 0);
  cJSON_Delete(sys);
  cJSON_AddItemToObject(root, "system_config", row ? row : cJSON_CreateNull());
  cJSON_AddItemToObject(root, "gpu_names", names);
  return 0;
}

int api_start(dlv_req *r) {
  dlv_params p;
  char msg[256], err[512];
  int rc = dlv_params_parse(r->query, r->cat, NULL, 0, &p, msg, sizeof msg);
  dlv_params_free(&p);
  if (rc) return dlv_send_error(r, 400, "bad_param", "%s", msg);
  cJSON *root = cJSON_CreateObject();
  if (!r->cat) { /* no run served yet */
    cJSON_AddNullToObject(root, "run");
    cJSON_AddNullToObject(root, "info");
    cJSON_AddNullToObject(root, "version");
    cJSON_AddArrayToObject(root, "reports");
    cJSON_AddNullToObject(root, "system_config");
    cJSON_AddArrayToObject(root, "gpu_names");
    return dlv_send_json(r, 200, root);
  }
  dldb *db;
  int status = dlv_req_db(r, &db);
  if (status) {
    cJSON_Delete(root);
    return status;
  }
  char id[DLV_RUN_ID_LEN];
  dlv_runs_id(r->runs, r->run, id);
  cJSON_AddStringToObject(root, "run", id);
  if (add_run(root, r, db, err, sizeof err) != 0) {
    cJSON_Delete(root);
    return dlv_send_error(r, 500, "db_error", "%s", err);
  }
  return dlv_send_json(r, 200, root);
}
