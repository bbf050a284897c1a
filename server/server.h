/*
 * server.h - dlprofviewer's HTTP server: civetweb, threads, and who answers.
 *
 * One civetweb handler takes every request, in this order: without the
 * access token where one is required (auth.h), 401; more than
 * DLV_MAX_HEADERS headers, 431; methods other than GET and HEAD, 405; a
 * request body, 413; then paths under /api/ go to the route table
 * (routes.h), everything else to the embedded web files (assets.h). Errors
 * civetweb finds itself (malformed or oversized requests) answer through
 * the http_error callback with the same security headers. Each worker
 * thread opens its own read-only connection on first use (dldb_open_again:
 * the file was validated at start) and closes it when the thread ends.
 *
 * The files served are runs (runs.h): the files given and every dldb under
 * the folders given, opened lazily. When an API request that reads a run
 * starts (its `run` parameter, else the first run), the handler pins that
 * run and checks its file once (one stat), and puts into its dlv_req
 * (http.h) what the request reads: the run's catalog and generation, the
 * answer cache, this thread's connection on the run (each thread keeps a
 * few, the ones it used last), the outcome of the check and the token
 * cookie to set. An unknown run answers 404 run_not_found. The files below
 * (http, assets, routes, api_*) read the request and never call back into
 * this one.
 *
 * Slow and greedy clients: civetweb 1.15 gives each connection a worker
 * thread while it is open, so a request's headers must arrive within
 * request_timeout_ms (a slowloris client is dropped then), an idle
 * keep-alive connection is closed after keep_alive_timeout_ms, and a
 * connection that has been served DLV_KEEPALIVE_MAX_REQUESTS requests or
 * held its thread for DLV_KEEPALIVE_MAX_MS gets "Connection: close", so
 * connections waiting in the queue take turns with busy ones.
 *
 * Answers of view endpoints are kept in a bounded cache (cache.h), emptied
 * when a run's file is found replaced or removed. A file replaced by
 * another that dlprofviewer can serve (dlprof's re-aggregation renames the
 * new file over the old) is served from the next request on, with its own
 * catalog; each thread reopens its connection. A replacement it cannot
 * serve (not a dldb, damaged) answers 500 db_error saying why, and is not
 * opened again until the file changes once more. Comparisons of two runs
 * are kept in their own small cache (compares.h).
 *
 * Ownership: dlv_server_start takes runs when it succeeds (the caller keeps
 * them when it fails) and returns a new server; stop and free it, the runs
 * included, with dlv_server_stop.
 */
#ifndef DLV_SERVER_H
#define DLV_SERVER_H

#include "http.h"
#include "runs.h"

typedef struct dlv_server dlv_server;

#define DLV_THREADS 16
#define DLV_MAX_HEADERS 48               /* more: 431 */
#define DLV_MAX_REQUEST_BYTES 8192       /* request line + headers; more: 413 */
#define DLV_REQUEST_TIMEOUT_MS 10000     /* headers of one request, and each send */
#define DLV_KEEPALIVE_TIMEOUT_MS 3000    /* an idle keep-alive connection */
#define DLV_KEEPALIVE_MAX_REQUESTS 100   /* then Connection: close */
#define DLV_KEEPALIVE_MAX_MS 50          /* held this long: Connection: close */
#define DLV_CACHE_MB_DEFAULT 24          /* answer cache cap */
#define DLV_COMPARES_MAX 4               /* comparisons kept */

typedef struct dlv_config {
  const char *bind;   /* IPv4 address, e.g. "127.0.0.1" */
  int port;           /* 0: any free port */
  const char *token;  /* access token every request must carry; NULL: none */
  size_t cache_bytes; /* answer cache cap; 0: no cache */
  int request_timeout_ms; /* 0: DLV_REQUEST_TIMEOUT_MS */
} dlv_config;

/* Starts listening. DL_EEXIST when the address is in use (err says
 * "cannot listen on ADDR:PORT: address already in use"), DL_EIO otherwise. */
int dlv_server_start(const dlv_config *cfg, dlv_runs *runs, dlv_server **out, char *err,
                     size_t errlen);

/* The port it listens on (the chosen one for port 0). */
int dlv_server_port(const dlv_server *s);

/* Stops the server (waits for running requests) and frees it. */
void dlv_server_stop(dlv_server **s);

#endif
