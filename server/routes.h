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
} dlv_route;

/* The table, terminated by a row with path NULL. */
extern const dlv_route dlv_routes[];

/* Answers r (a GET or HEAD under /api/) from the table: the first row that
 * matches, else 404 not_found. Returns the status sent. */
int dlv_route_api(dlv_req *r);

int api_health(dlv_req *r);
int api_version(dlv_req *r);
int api_info(dlv_req *r);
int api_view(dlv_req *r);
int api_reports(dlv_req *r);
int api_report_file(dlv_req *r);

#endif
