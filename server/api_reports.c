/*
 * api_reports.c - GET /api/v1/reports and /api/v1/reports/<name>.csv|.json:
 * DLProf's reports (report/, dlr.h) as downloads with DLProf's file names,
 * streamed as dlr_write produces them. Built only when the dlr library
 * exists (DLV_HAVE_DLR); until then both answer 404.
 */
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "routes.h"

#ifdef DLV_HAVE_DLR
#include "dlr.h"
#include "dlr_stats.h"

cJSON *api_reports_tree(const dlv_catalog *cat) {
  cJSON *list = cJSON_CreateArray();
  for (int i = 0; i < dlr_report_count(); i++) {
    const char *name = dlr_report_name(i);
    const char *csv = dlr_report_file(name, DLR_CSV), *json = dlr_report_file(name, DLR_JSON);
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", name);
    cJSON_AddItemToObject(item, "csv", csv ? cJSON_CreateString(csv) : cJSON_CreateNull());
    cJSON_AddItemToObject(item, "json", json ? cJSON_CreateString(json) : cJSON_CreateNull());
    if (!cJSON_AddItemToArray(list, item)) cJSON_Delete(item);
  }
  /* our nsys-stats-style reports, where the database has their view */
  for (int i = 0; i < dlr_stats_count(); i++) {
    const char *name = dlr_stats_name(i), *view = dlr_stats_view(name);
    const dlv_view *v = NULL;
    for (int k = 0; k < DLV_VIEW_COUNT && !v; k++)
      if (strcmp(dlv_views[k].sql_view, view) == 0) v = &dlv_views[k];
    if (!v || !dlv_catalog_view(cat, v)->present) continue;
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", name);
    cJSON_AddStringToObject(item, "csv", dlr_stats_file(name, DLR_CSV));
    cJSON_AddStringToObject(item, "json", dlr_stats_file(name, DLR_JSON));
    if (!cJSON_AddItemToArray(list, item)) cJSON_Delete(item);
  }
  return list;
}

int api_reports(dlv_req *r) {
  dlv_params p;
  char msg[256];
  int rc = dlv_params_parse(r->query, r->cat, NULL, 0, &p, msg, sizeof msg);
  dlv_params_free(&p);
  if (rc) return dlv_send_error(r, 400, "bad_param", "%s", msg);
  cJSON *root = cJSON_CreateObject();
  cJSON *list = api_reports_tree(r->cat);
  if (!list || !cJSON_AddItemToObject(root, "reports", list)) cJSON_Delete(list);
  return dlv_send_json(r, 200, root);
}

int api_report_file(dlv_req *r) {
  char name[64], err[512];
  const char *dot = strrchr(r->tail, '.');
  dlr_format fmt = dot && strcmp(dot, ".json") == 0 ? DLR_JSON : DLR_CSV;
  const char *file = NULL;
  if (dot && (strcmp(dot, ".csv") == 0 || strcmp(dot, ".json") == 0) &&
      (size_t)(dot - r->tail) < sizeof name) {
    snprintf(name, sizeof name, "%.*s", (int)(dot - r->tail), r->tail);
    file = dlr_report_file(name, fmt);
  }
  if (!file) return dlv_send_error(r, 404, "not_found", "no report %.100s", r->tail);
  dlv_params p;
  char msg[256];
  dldb *db;
  int status;
  if (dlv_params_parse(r->query, r->cat, NULL, DLV_ACCEPT_SCOPE, &p, msg, sizeof msg) != DL_OK) {
    status = dlv_send_error(r, 400, "bad_param", "%s", msg);
    goto out;
  }
  status = dlv_req_db(r, &db);
  if (status) goto out;
  dlv_stream stream = {.req = r,
                       .content_type = fmt == DLR_JSON ? "application/json" : "text/csv; charset=utf-8",
                       .filename = file};
  int rc = dlr_write(db, name, fmt, p.aggr_id, p.domain, dlv_stream_write, &stream, err, sizeof err);
  if (rc && !stream.started) {
    status = dlv_send_error(r, rc == DL_ENOTFOUND ? 404 : 500,
                            rc == DL_ENOTFOUND ? "not_found" : "db_error", "%s", err);
  } else if (rc) {
    fprintf(stderr, "dlprofviewer: report %s cut short: %s\n", file, err);
    mg_disable_keep_alive(r->conn);
    status = 500;
  } else {
    dlv_stream_end(&stream);
    status = 200;
  }
out:
  dlv_params_free(&p);
  return status;
}

#else

cJSON *api_reports_tree(const dlv_catalog *cat) {
  (void)cat;
  return cJSON_CreateArray();
}

int api_reports(dlv_req *r) {
  return dlv_send_error(r, 404, "not_found", "this dlprofviewer was built without reports");
}

int api_report_file(dlv_req *r) {
  return dlv_send_error(r, 404, "not_found", "this dlprofviewer was built without reports");
}

#endif
