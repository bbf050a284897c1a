/*
 * routes.h - the API's routes, as one table, and its handlers.
 *
 * Each handler is `int api_x(dlv_req *r)`: it checks its parameters first
 * (400 before any I/O), answers through dlv_send_json / dlv_send_error or a
 * streamed body, and returns the status it sent.
 */
#ifndef DLV_ROUTES_H
#define DLV_ROUTES_H

#include "http.h"
#include "params.h"

typedef int (*dlv_handler)(dlv_req *r);

typedef enum dlv_match {
  DLV_EXACT = 1,  /* the path equals `path` */
  DLV_PREFIX = 2, /* the path starts with `path`; the rest is r->tail */
  DLV_VIEW = 3,   /* `path` + the name of a row of dlv_views; r->view is set */
} dlv_match;

typedef struct dlv_route {
  const char *path;
  dlv_match match;
  dlv_handler handler;
  int run;                /* 1: reads one run (the request's `run`), pinned before;
                             2: the same when a run is served, else none (r->cat NULL) */
} dlv_route;

/* The table, terminated by a row with path NULL. */
extern const dlv_route dlv_routes[];

/* Answers r (a GET or HEAD under /api/) from the table: the first row that
 * matches, else 404 not_found. Returns the status sent. */
int dlv_route_api(dlv_req *r);

/* The run column of the route that answers path (0 when none does). */
int dlv_route_needs_run(const char *path);

/* One query of a view endpoint, answered from the answer cache or db. */
typedef struct dlv_answer {
  const dlv_view *view;       /* shape, default order and tie-break columns */
  const dlv_viewcat *vc;      /* its columns */
  const dlv_params *p;        /* the parsed request */
  const char *scope;          /* in the cache key: what the rows come from; NULL: not cached */
  dldb *db;                   /* NULL: the request's handle (dlv_req_db) */
  void (*lock)(void *ctx);    /* around the use of db; NULL: none */
  void (*unlock)(void *ctx);
  void *lock_ctx;
} dlv_answer;

/* Answers a (the list page, the object or the CSV download). Returns the
 * status sent. */
int dlv_answer_query(dlv_req *r, const dlv_answer *a);

int api_health(dlv_req *r);
int api_runs(dlv_req *r);
int api_compare(dlv_req *r);
int api_timeline(dlv_req *r);
int api_timeline_event(dlv_req *r);
int api_timeline_focus(dlv_req *r);
int api_timeline_findings(dlv_req *r);
int api_gpu_idle_gaps(dlv_req *r);
int api_rank_heatmap(dlv_req *r);
int api_version(dlv_req *r);
int api_info(dlv_req *r);
int api_view(dlv_req *r);
int api_reports(dlv_req *r);
int api_report_file(dlv_req *r);
int api_start(dlv_req *r);

/* The answers of /info, /version and /reports (its list) as trees, for
 * /dl_start too. info: NULL with err set when a query fails. */
cJSON *api_info_tree(const dlv_catalog *cat, dldb *db, char *err, size_t errlen);
cJSON *api_version_tree(const dlv_catalog *cat);
cJSON *api_reports_tree(const dlv_catalog *cat);

#endif
