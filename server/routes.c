/*
 * routes.c - the API's route table and its dispatch.
 *
 * Paths are compared byte for byte with the decoded request path (no
 * normalisation, no pattern language), first match wins: EXACT rows need
 * the whole path, PREFIX rows leave the rest in r->tail, and the VIEW row
 * matches /api/v1/ followed by exactly one endpoint name of views.c.
 */
#include "routes.h"

#include <string.h>

/* clang-format off */
const dlv_route dlv_routes[] = {
  /* path                 match        handler */
  {"/api/v1/health",      DLV_EXACT,   api_health},
  {"/api/v1/version",     DLV_EXACT,   api_version},
  {"/api/v1/info",        DLV_EXACT,   api_info},
  {"/api/v1/reports",     DLV_EXACT,   api_reports},
  {"/api/v1/reports/",    DLV_PREFIX,  api_report_file},
  {"/api/v1/",            DLV_VIEW,    api_view},
  {NULL,                  0,           NULL},
};
/* clang-format on */

int dlv_route_api(dlv_req *r) {
  for (const dlv_route *rt = dlv_routes; rt->path; rt++) {
    size_t n = strlen(rt->path);
    if (rt->match == DLV_EXACT && strcmp(r->path, rt->path) == 0) return rt->handler(r);
    if (strncmp(r->path, rt->path, n) != 0) continue;
    if (rt->match == DLV_PREFIX && r->path[n]) {
      r->tail = r->path + n;
      return rt->handler(r);
    }
    if (rt->match == DLV_VIEW && (r->view = dlv_view_find(r->path + n)) != NULL)
      return rt->handler(r);
  }
  return dlv_send_error(r, 404, "not_found", "no API endpoint %.200s", r->path);
}
