/*
 * api_meta.c - GET /api/v1/health, /version and /info: what the page needs
 * before it asks for views. version and info read the catalog (built at
 * start); health and info's aggregation rows read the database. health
 * answers ok without a run when a served folder holds no dldb yet.
 */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "params.h"
#include "routes.h"

/* Accepts only `token` (and aggr_id/domain where scope). 0, or the 400 sent. */
static int check_params(dlv_req *r, unsigned accept) {
  dlv_params p;
  char msg[256];
  int rc = dlv_params_parse(r->query, r->cat, NULL, accept, &p, msg, sizeof msg);
  dlv_params_free(&p);
  return rc ? dlv_send_error(r, 400, "bad_param", "%s", msg) : 0;
}

static const char *producer_name(dldb_producer p) {
  return p == DLDB_PRODUCER_DLPROF ? "dlprof" : p == DLDB_PRODUCER_NVIDIA ? "nvidia-dlprof" : "unknown";
}

int api_health(dlv_req *r) {
  dldb *db;
  char err[512];
  if (!r->cat) { /* a folder without a dldb yet: the server answers */
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "status", "ok");
    cJSON_AddItemToObject(root, "runs", dlv_json_int(0));
    return dlv_send_json(r, 200, root);
  }
  int status = check_params(r, 0);
  if (!status) status = dlv_req_db(r, &db);
  if (status) return status;
  int rc = dldb_view_columns(db, "view_aggregations", NULL, NULL);
  if (rc > 0) rc = dldb_aggr_exists(db, r->cat->info.default_aggr_id);
  if (rc <= 0) {
    snprintf(err, sizeof err, "the database %s cannot be read (%s)", dldb_path(db),
             dl_strerror(rc ? rc : DL_ENOTFOUND));
    return dlv_send_error(r, 500, "db_error", "%s", err);
  }
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "status", "ok");
  return dlv_send_json(r, 200, root);
}

cJSON *api_version_tree(const dlv_catalog *cat) {
  const dldb_info *info = &cat->info;
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "dlprofviewer", DL_VERSION);
  cJSON *v = cJSON_AddObjectToObject(root, "db_version");
  cJSON_AddStringToObject(v, "current_version", info->current_version);
  cJSON_AddStringToObject(v, "original_version", info->original_version);
  cJSON_AddStringToObject(root, "producer", producer_name(info->producer));
  cJSON_AddItemToObject(root, "schema_version", dlv_json_int(info->schema_version));
  return root;
}

int api_version(dlv_req *r) {
  int status = check_params(r, 0);
  if (status) return status;
  return dlv_send_json(r, 200, api_version_tree(r->cat));
}

/* One {aggr_id, domain_name} of view_performance_summary: which domains each
 * aggregation has rows for (dlprof aggregates each domain on its own;
 * NVIDIA's files may hold several under one aggr_id), for the page's
 * domain menu. */
static int aggr_domain_row(void *ctx, const dldb_row *row) {
  dlv_json_rows *c = ctx;
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && i < dldb_row_count(row); i++) {
    const char *n = dldb_row_name(row, i);
    if (!strcmp(n, "aggr_id")) cJSON_AddItemToObject(o, n, dlv_json_int(dldb_row_int(row, i)));
    else if (!strcmp(n, "domain_name")) cJSON_AddStringToObject(o, n, dldb_row_text(row, i));
  }
  if (!o || !cJSON_AddItemToArray(c->array, o)) {
    cJSON_Delete(o);
    c->failed = 1;
  }
  return c->failed;
}

cJSON *api_info_tree(const dlv_catalog *cat, dldb *db, char *err, size_t errlen) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "database", cat->db_name);
  cJSON_AddStringToObject(root, "producer", producer_name(cat->info.producer));
  cJSON *views = cJSON_AddArrayToObject(root, "views");
  cJSON *missing = cJSON_AddArrayToObject(root, "missing");
  for (int i = 0; i < DLV_VIEW_COUNT; i++) {
    const dlv_view *v = &dlv_views[i];
    if (cat->views[i].present) {
      cJSON_AddItemToArray(views, cJSON_CreateString(v->sql_view));
      continue;
    }
    if (dlv_view_optional(v)) continue; /* our extensions: absent from DLProf's files */
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "view", v->sql_view);
    cJSON_AddStringToObject(m, "endpoint", v->name);
    cJSON_AddStringToObject(m, "feature", v->feature);
    cJSON_AddItemToArray(missing, m);
  }
  cJSON_AddItemToObject(root, "default_aggr_id", dlv_json_int(cat->info.default_aggr_id));
  cJSON_AddStringToObject(root, "default_domain", cat->info.default_domain);
  cJSON *aggrs = cJSON_AddArrayToObject(root, "aggregations");
  dlv_json_rows collect = {.array = aggrs};
  dldb_query q = {.view = "view_aggregations", .aggr_id = -1, .sort = "aggr_id", .limit = -1};
  int rc = aggrs ? dldb_query_rows(db, &q, dlv_json_rows_append, &collect, err, errlen) : 0;
  if (rc) {
    cJSON_Delete(root);
    return NULL;
  }
  cJSON *ad = cJSON_AddArrayToObject(root, "aggregation_domains");
  dlv_json_rows pairs = {.array = ad};
  dldb_query pq = {.view = "view_performance_summary", .aggr_id = -1, .sort = "aggr_id",
                   .limit = -1};
  if (ad && dldb_has_view(db, "view_performance_summary"))
    (void)dldb_query_rows(db, &pq, aggr_domain_row, &pairs, NULL, 0); /* optional: [] */
  if (!ad) collect.failed = 1;
  collect.failed |= pairs.failed;
  cJSON *domains = cJSON_AddArrayToObject(root, "domains");
  for (int i = 0; i < cat->n_domains; i++)
    cJSON_AddItemToArray(domains, cJSON_CreateString(cat->domains[i]));
  if (cat->n_domains == 0) cJSON_AddItemToArray(domains, cJSON_CreateString(cat->info.default_domain));
  cJSON_AddStringToObject(root, "mode", cat->mode);
  cJSON_AddItemToObject(root, "num_gpus", dlv_json_int(cat->num_gpus));
  if (!aggrs || collect.failed) {
    cJSON_Delete(root);
    snprintf(err, errlen, "out of memory building the answer");
    return NULL;
  }
  return root;
}

int api_info(dlv_req *r) {
  char err[512];
  dldb *db;
  int status = check_params(r, 0);
  if (!status) status = dlv_req_db(r, &db);
  if (status) return status;
  cJSON *root = api_info_tree(r->cat, db, err, sizeof err);
  if (!root) return dlv_send_error(r, 500, "db_error", "%s", err);
  return dlv_send_json(r, 200, root);
}
