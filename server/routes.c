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
  /* path                           match       handler          run */
  {"/api/v1/health",                DLV_EXACT,  api_health,      2},
  {"/api/v1/version",               DLV_EXACT,  api_version,     1},
  {"/api/v1/info",                  DLV_EXACT,  api_info,        1},
  {"/api/v1/reports",               DLV_EXACT,  api_reports,     1},
  {"/api/v1/reports/",              DLV_PREFIX, api_report_file, 1},
  {"/api/v1/runs",                  DLV_EXACT,  api_runs,        0},
  {"/api/v1/dl_start",              DLV_EXACT,  api_start,       2},
  {"/api/v1/dl_compare_kernels",    DLV_EXACT,  api_compare,     0},
  {"/api/v1/dl_compare_ops",        DLV_EXACT,  api_compare,     0},
  {"/api/v1/dl_compare_summary",    DLV_EXACT,  api_compare,     0},
  {"/api/v1/dl_compare_iterations", DLV_EXACT,  api_compare,     0},
  {"/api/v1/dl_timeline",           DLV_EXACT,  api_timeline,    1},
  {"/api/v1/dl_timeline_event",     DLV_EXACT,  api_timeline_event, 1},
  {"/api/v1/dl_timeline_focus",     DLV_EXACT,  api_timeline_focus, 1},
  {"/api/v1/dl_timeline_findings",  DLV_EXACT,  api_timeline_findings, 1},
  {"/api/v1/dl_gpu_idle_gaps",      DLV_EXACT,  api_gpu_idle_gaps, 1},
  {"/api/v1/dl_rank_heatmap",       DLV_EXACT,  api_rank_heatmap, 1},
  {"/api/v1/",                      DLV_VIEW,   api_view,        1},
  {NULL,                            0,          NULL,            0},
};
/* clang-format on */

/* The row that answers path, or NULL. */
static const dlv_route *find(const char *path) {
  for (const dlv_route *rt = dlv_routes; rt->path; rt++) {
    size_t n = strlen(rt->path);
    if (rt->match == DLV_EXACT && strcmp(path, rt->path) == 0) return rt;
    if (strncmp(path, rt->path, n) != 0) continue;
    if (rt->match == DLV_PREFIX && path[n]) return rt;
    if (rt->match == DLV_VIEW && dlv_view_find(path + n)) return rt;
  }
  return NULL;
}

int dlv_route_needs_run(const char *path) {
  const dlv_route *rt = find(path);
  return rt ? rt->run : 0;
}

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
