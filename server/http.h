/*
 * http.h - one request, and the only functions that write responses.
 *
 * Every answer carries the security headers (nosniff, no referrer, a strict
 * Content-Security-Policy); API answers add Cache-Control: no-store. JSON
 * goes out through dlv_send_json, which always consumes its tree, and every
 * non-2xx API answer through dlv_send_error (docs/api.md, "Errors"). A HEAD
 * request gets the same headers and no body.
 *
 * The request struct carries everything a handler below server.c needs:
 * server.c pins the file's state (catalog, database handle, generation,
 * answer cache, the outcome of the one check of the file) and the extra
 * headers into it when the request starts, so http, assets, routes and the
 * api_* files read the request and never call back into the server.
 */
#ifndef DLV_HTTP_H
#define DLV_HTTP_H

#include <civetweb.h>
#include <cjson/cJSON.h>
#include <stddef.h>

#include "cache.h"
#include "catalog.h"
#include "compares.h"
#include "dldb.h"
#include "runs.h"
#include "views.h"

/* One request, for the time of one handler call. Borrows everything. */
typedef struct dlv_req {
  struct mg_connection *conn;
  const struct mg_request_info *ri;
  const char *path;          /* decoded path, not normalised: matched exactly */
  const char *query;         /* raw query string, "" if none */
  int head;                  /* 1 for HEAD */
  /* Pinned by server.c when the request starts, after its one check of the
   * file (a replacement it can serve is served from this request on). */
  dlv_runs *runs;            /* every served file (runs.h) */
  dlv_compares *compares;    /* the cached comparisons (compares.h) */
  int run;                   /* the pinned run's index; -1: none (the route reads none) */
  const dlv_catalog *cat;    /* the pinned run's catalog */
  unsigned gen;              /* the run's generation (unique per opening): in cache keys */
  dlv_cache *cache;          /* the answer cache; NULL: disabled */
  int verified;              /* 1: the file is the one served; 0: db_err says why */
  dldb *db;                  /* this thread's handle on it (API paths); NULL: db_err says why */
  char db_err[512];
  const char *set_cookie;    /* Set-Cookie value every answer adds; NULL: none */
  const char *keep_alive;    /* Keep-Alive value every answer adds ("timeout=N"); NULL: none */
  const dlv_view *view;      /* set for view endpoints */
  const char *tail;          /* the rest of the path after a prefix route */
} dlv_req;

/* 0 when the file checked at the request's start is the one served;
 * otherwise sends 500 db_error with the reason and returns 500. */
int dlv_req_verify(dlv_req *r);

/* The request's database handle: 0 with *db set, or sends 500 db_error
 * (the file is gone or unservable, or the handle could not be opened) and
 * returns 500. */
int dlv_req_db(dlv_req *r, dldb **db);

/* Decodes the raw (still percent-encoded) request path into out: %XX
 * becomes the byte, '+' stays '+'. Returns 0; -1 for a malformed escape or
 * an encoded NUL (%00), which would cut the path short; -2 when it does not
 * fit in outlen bytes. */
int dlv_path_decode(const char *raw, char *out, size_t outlen);

/* Starts a response: status line, Content-Type, the security headers and
 * r->set_cookie. Add more with mg_response_header_add, then send with
 * dlv_send_body or dlv_send_chunked_start. api: add Cache-Control: no-store. */
void dlv_response_start(const dlv_req *r, int status, const char *content_type, int api);

/* Adds Content-Length, sends the headers, then body unless the request is
 * HEAD. Returns 0, or -1 when the client went away. */
int dlv_send_body(const dlv_req *r, const void *body, size_t len);

/* Sends the headers of a chunked body; then dlv_send_chunk per piece and
 * dlv_send_chunk(r, NULL, 0) at the end (both skipped for HEAD). */
int dlv_send_chunked_start(const dlv_req *r);
int dlv_send_chunk(const dlv_req *r, const char *data, size_t len);

/* A download streamed as a chunked body. The headers (200, content_type,
 * Content-Disposition: attachment with filename) go out with the first
 * bytes, so a failure before any output can still answer with a JSON
 * error. Borrows req and the strings. */
typedef struct dlv_stream {
  const dlv_req *req;
  const char *content_type;
  const char *filename;
  int started;             /* headers sent */
} dlv_stream;

/* A writer (dlv_write_fn / dlr_sink_fn): sends data as one chunk. Returns 0,
 * or -1 when the client went away. */
int dlv_stream_write(void *stream, const char *data, size_t len);

/* Ends the body (sending the headers first if nothing was written).
 * Returns 0, or -1 when the client went away. */
int dlv_stream_end(dlv_stream *s);

/* Prints root unformatted and sends it with dlv_send_json_text. Takes
 * ownership of root (NULL: answers 500). Returns status (500 when printing
 * failed). */
int dlv_send_json(const dlv_req *r, int status, cJSON *root);

/* The one function that sends a JSON answer: status, the API headers,
 * Content-Length and text (len bytes; borrowed). Returns status. */
int dlv_send_json_text(const dlv_req *r, int status, const char *text, size_t len);

/* 401 for a request without the access token: the JSON error envelope for
 * API paths, a small HTML page (no script, no inline style) otherwise. */
int dlv_send_unauthorized(const dlv_req *r, int api);

/* An error answer written raw, with the security headers and
 * "Connection: close", for failures civetweb detects before a handler runs
 * (malformed or oversized requests). Returns status. */
int dlv_send_raw_error(struct mg_connection *conn, int status, const char *message);

/* Sends {"error":{"status":S,"code":C,"message":M}}. Returns status. */
int dlv_send_error(const dlv_req *r, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
