/*
 * server.c - civetweb set-up, worker threads and the one request handler
 * (see server.h). civetweb 1.15 facts that shape this file: a port in use
 * makes mg_start2 return NULL with error code 0 (so the port is probed
 * first, for a clear message); tcp_nodelay must be on, or keep-alive
 * answers wait for delayed ACKs; there is no document_root, every file is
 * embedded; a request with more than MG_MAX_HEADERS (64) headers is cut
 * to 64, so DLV_MAX_HEADERS is checked below that; request_timeout_ms bounds
 * the whole header read of a request (not each recv), which is what stops
 * slowloris clients.
 */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "assets.h"
#include "auth.h"
#include "params.h"
#include "routes.h"

struct dlv_server {
  struct mg_context *ctx;
  dlv_runs *runs;         /* owned: the served files (runs.h) */
  dlv_compares *compares; /* owned: the cached comparisons (compares.h) */
  int port;
  char *token;            /* owned; NULL: no token required */
  char cookie[64];        /* the token cookie's name */
  dlv_cache *cache;       /* owned; NULL: disabled */
  char keep_alive[32];    /* every answer's Keep-Alive header: "timeout=N" */
};

/* Keep-alive turns: civetweb's user connection data of each connection holds,
 * packed in the pointer value itself (nothing to free), when its first
 * request came (ms since the server started, plus 1) and how many came. */
static struct timespec started;

static uint64_t since_start_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)(ts.tv_sec - started.tv_sec) * 1000 + (uint64_t)(ts.tv_nsec / 1000000) -
         (uint64_t)(started.tv_nsec / 1000000);
}

static int init_connection(const struct mg_connection *conn, void **conn_data) {
  (void)conn;
  *conn_data = NULL;
  return 0;
}

/* Ends keep-alive for a connection that had its share of the thread. */
static void keepalive_turn(struct mg_connection *conn) {
  uintptr_t v = (uintptr_t)mg_get_user_connection_data(conn);
  uint64_t t = since_start_ms() + 1, first = v >> 8, n = (v & 0xff) + 1;
  if (!first) first = t;
  if (n >= DLV_KEEPALIVE_MAX_REQUESTS || t - first >= DLV_KEEPALIVE_MAX_MS)
    mg_disable_keep_alive(conn);
  if (n > 0xff) n = 0xff;
  mg_set_user_connection_data(conn, (void *)(uintptr_t)(first << 8 | n));
}

/* Per worker thread: its own connections, opened on first use, on the
 * DLV_THREAD_DBS runs it read last; each with the run's gen it was opened
 * in (another: the run was reopened or its file replaced). */
#define DLV_THREAD_DBS 4
typedef struct dlv_thread {
  struct {
    int run;
    unsigned gen;
    dldb *db;
    uint64_t used;
  } h[DLV_THREAD_DBS];
  uint64_t tick;
} dlv_thread;

static void *init_thread(const struct mg_context *ctx, int thread_type) {
  (void)ctx;
  return thread_type == 1 ? calloc(1, sizeof(dlv_thread)) : NULL;
}

static void exit_thread(const struct mg_context *ctx, int thread_type, void *p) {
  (void)ctx;
  (void)thread_type;
  dlv_thread *t = p;
  if (!t) return;
  for (int i = 0; i < DLV_THREAD_DBS; i++) dldb_close(&t->h[i].db);
  free(t);
}

static int log_message(const struct mg_connection *conn, const char *message) {
  (void)conn;
  fprintf(stderr, "dlprofviewer: civetweb: %s\n", message);
  return 1;
}

/* This thread's handle on the pinned run: the one it has, or a new one in
 * the slot used least recently. NULL with err set when it cannot open one. */
static dldb *thread_db(dlv_server *s, dlv_thread *t, const dlv_run_pin *pin, char *err,
                       size_t errlen) {
  int slot = 0;
  for (int i = 0; i < DLV_THREAD_DBS; i++) {
    if (t->h[i].db && t->h[i].run == pin->index && t->h[i].gen == pin->gen) {
      t->h[i].used = ++t->tick;
      return t->h[i].db;
    }
    if (!t->h[i].db || (t->h[slot].db && t->h[i].used < t->h[slot].used)) slot = i;
  }
  dldb_close(&t->h[slot].db);
  if (dlv_runs_open_again(s->runs, pin, &t->h[slot].db, err, errlen) != DL_OK) return NULL;
  t->h[slot].run = pin->index;
  t->h[slot].gen = pin->gen;
  t->h[slot].used = ++t->tick;
  return t->h[slot].db;
}

/* Pins the run a request reads (its `run` parameter, else the first) into
 * r: one check of the file (a stat), serving its replacement when there is
 * one it can serve (so that the request's parameters are checked against
 * the file it will read); then the catalog, gen and this thread's handle,
 * opened on first use and again after a replacement. A failed check or
 * open leaves r->db NULL and the reason in r->db_err, which the handlers
 * that read the file answer with; a failed check empties the answer cache.
 * Returns 0, or the status of the error it sent: 404 for an unknown run,
 * 400 for a malformed one, 500 when the run was never servable. optional:
 * no run served and none asked for is no error (r->cat stays NULL). */
static int pin(dlv_server *s, dlv_req *r, dlv_run_pin *p, int optional) {
  dlv_thread *t = mg_get_thread_pointer(r->conn);
  char id[64];
  int given = dlv_query_value(r->query, "run", id, sizeof id);
  if (given < 0) return dlv_send_error(r, 400, "bad_param", "run: malformed value");
  int i = dlv_runs_find(s->runs, given ? id : NULL);
  if (i < 0 && !given && optional) return 0; /* no run served yet: r->cat stays NULL */
  if (i < 0 && given)
    return dlv_send_error(r, 404, "run_not_found", "no run '%.64s' is served (see /api/v1/runs)",
                          id);
  if (i < 0) return dlv_send_error(r, 404, "run_not_found", "no database is served yet");
  int rc = dlv_runs_pin(s->runs, i, p, r->db_err, sizeof r->db_err);
  if (p->changed) dlv_cache_clear(s->cache); /* answers of the replaced or removed file */
  if (!p->cat) return dlv_send_error(r, 500, "db_error", "%s", r->db_err);
  r->verified = rc == DL_OK;
  r->cat = p->cat;
  r->gen = p->gen;
  r->run = i;
  if (r->verified && !t)
    snprintf(r->db_err, sizeof r->db_err, "no database connection on this thread");
  else if (r->verified)
    r->db = thread_db(s, t, p, r->db_err, sizeof r->db_err);
  return 0;
}

/* An API request: pins its run where the route reads one, then answers. */
static int serve_api(dlv_server *s, dlv_req *r) {
  dlv_run_pin p = {.index = -1};
  int needs = dlv_route_needs_run(r->path);
  int status = needs ? pin(s, r, &p, needs == 2) : 0;
  if (!status) status = dlv_route_api(r);
  dlv_runs_unpin(s->runs, &p);
  return status;
}

static int handle_request(struct mg_connection *conn, void *cbdata) {
  dlv_server *s = cbdata;
  const struct mg_request_info *ri = mg_get_request_info(conn);
  /* decode_url is off: the path comes raw, so an encoded NUL cannot cut it */
  const char *raw = ri->local_uri_raw ? ri->local_uri_raw : ri->local_uri;
  char path[DLV_MAX_REQUEST_BYTES];
  int bad_path = dlv_path_decode(raw ? raw : "", path, sizeof path);
  dlv_req r = {
      .runs = s->runs,
      .compares = s->compares,
      .cache = s->cache,
      .run = -1,
      .conn = conn,
      .ri = ri,
      .path = bad_path ? "" : path,
      .query = ri->query_string ? ri->query_string : "",
      .head = strcmp(ri->request_method, "HEAD") == 0,
      .keep_alive = s->keep_alive,
  };
  int api = strncmp(r.path, "/api/", 5) == 0 || strcmp(r.path, "/api") == 0;
  char cookie[DLV_TOKEN_MAX + 128];
  if (s->token && dlv_auth_query_ok(r.query, s->token)) {
    snprintf(cookie, sizeof cookie, "%s=%s; Path=/; HttpOnly; SameSite=Strict", s->cookie,
             s->token);
    r.set_cookie = cookie;
  }
  int status;
  keepalive_turn(conn);
  if (s->token && !dlv_auth_query_ok(r.query, s->token) &&
      !dlv_auth_cookie_ok(mg_get_header(conn, "Cookie"), s->cookie, s->token)) {
    status = dlv_send_unauthorized(&r, api);
  } else if (bad_path) {
    mg_disable_keep_alive(conn);
    status = dlv_send_error(&r, 400, "bad_path", "the request path has a malformed or NUL "
                            "percent-escape");
  } else if (ri->num_headers > DLV_MAX_HEADERS) {
    mg_disable_keep_alive(conn);
    status = dlv_send_error(&r, 431, "too_many_headers", "at most %d request headers are allowed",
                            DLV_MAX_HEADERS);
  } else if (strcmp(ri->request_method, "GET") != 0 && !r.head) {
    mg_disable_keep_alive(conn); /* a body may follow; do not read it */
    status = dlv_send_error(&r, 405, "method_not_allowed",
                            "%.16s is not allowed; use GET or HEAD", ri->request_method);
  } else if (ri->content_length > 0 || mg_get_header(conn, "Transfer-Encoding")) {
    mg_disable_keep_alive(conn);
    status = dlv_send_error(&r, 413, "body_not_allowed", "a GET or HEAD request has no body");
  } else if (api)
    status = serve_api(s, &r);
  else
    status = dlv_serve_asset(&r);
  if (status >= 500)
    fprintf(stderr, "dlprofviewer: %d %s %s\n", status, ri->request_method, r.path);
  return status;
}

/* Errors civetweb answers itself (bad request line, request too large, ...):
 * the same security headers as every other answer, then a close. */
static int http_error(struct mg_connection *conn, int status, const char *msg) {
  (void)msg;
  dlv_send_raw_error(conn, status, mg_get_response_code_text(conn, status));
  return 0;
}

/* Binds a throw-away socket to find out whether the address is free. */
static int probe_port(const char *bind_addr, int port, char *err, size_t errlen) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1)
    return dl_err(err, errlen, DL_EINVAL, "cannot listen on %s:%d: not an IPv4 address", bind_addr,
                  port);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return dl_err(err, errlen, DL_EIO, "socket: %s", strerror(errno));
  int one = 1, rc = DL_OK;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    int e = errno;
    rc = dl_err(err, errlen, e == EADDRINUSE ? DL_EEXIST : DL_EIO, "cannot listen on %s:%d: %s",
                bind_addr, port,
                e == EADDRINUSE      ? "address already in use"
                : e == EACCES        ? "permission denied"
                : e == EADDRNOTAVAIL ? "address not available on this machine"
                                     : strerror(e));
  }
  close(fd);
  return rc;
}

int dlv_server_start(const dlv_config *cfg, dlv_runs *runs, dlv_server **out,
                     char *err, size_t errlen) {
  char ports[64], threads[16], reqsize[16], reqtimeout[16], katimeout[16];
  *out = NULL;
  int rc = probe_port(cfg->bind, cfg->port, err, errlen);
  if (rc) return rc;
  dlv_server *s = calloc(1, sizeof *s);
  if (!s) return dl_err(err, errlen, DL_ENOMEM, "out of memory");
  if (cfg->token && !(s->token = strdup(cfg->token))) {
    free(s);
    return dl_err(err, errlen, DL_ENOMEM, "out of memory");
  }
  s->cache = dlv_cache_new(cfg->cache_bytes);
  s->compares = dlv_compares_new(DLV_COMPARES_MAX);
  clock_gettime(CLOCK_MONOTONIC, &started);
  snprintf(ports, sizeof ports, "%s:%d", cfg->bind, cfg->port);
  snprintf(threads, sizeof threads, "%d", DLV_THREADS);
  snprintf(reqsize, sizeof reqsize, "%d", DLV_MAX_REQUEST_BYTES);
  int timeout = cfg->request_timeout_ms > 0 ? cfg->request_timeout_ms : DLV_REQUEST_TIMEOUT_MS;
  snprintf(reqtimeout, sizeof reqtimeout, "%d", timeout);
  int idle_ms = timeout < DLV_KEEPALIVE_TIMEOUT_MS ? timeout : DLV_KEEPALIVE_TIMEOUT_MS;
  snprintf(katimeout, sizeof katimeout, "%d", idle_ms);
  /* Clients that reuse an idle connection the server has just closed see
   * the request fail (Node's fetch keeps one 4 s; ours close at idle_ms):
   * the hint makes them drop it first (Node: a second before it). */
  snprintf(s->keep_alive, sizeof s->keep_alive, "timeout=%d", idle_ms / 1000);
  const char *options[] = {
      "listening_ports", ports,
      "num_threads", threads,
      "connection_queue", "256",
      "listen_backlog", "1024",
      "tcp_nodelay", "1",
      "enable_directory_listing", "no",
      "enable_keep_alive", "yes",
      "keep_alive_timeout_ms", katimeout,
      "request_timeout_ms", reqtimeout,
      "linger_timeout_ms", "1000",
      "max_request_size", reqsize,
      "decode_url", "no",
      NULL,
  };
  struct mg_callbacks callbacks = {
      .init_thread = init_thread,
      .exit_thread = exit_thread,
      .log_message = log_message,
      .http_error = http_error,
      .init_connection = init_connection,
  };
  struct mg_init_data init = {.callbacks = &callbacks, .user_data = s,
                              .configuration_options = options};
  unsigned code = 0;
  char text[256] = "";
  struct mg_error_data error = {.code = &code, .text = text, .text_buffer_size = sizeof text};
  s->ctx = mg_start2(&init, &error);
  if (!s->ctx) {
    rc = dl_err(err, errlen, DL_EIO, "cannot listen on %s: %s", ports,
                text[0] ? text : "the web server did not start");
    dlv_cache_free(&s->cache);
    dlv_compares_free(&s->compares);
    free(s->token);
    free(s);
    return rc;
  }
  s->runs = runs; /* owned from here on */
  mg_set_request_handler(s->ctx, "/", handle_request, s);
  struct mg_server_port sp[4];
  int n = mg_get_server_ports(s->ctx, 4, sp);
  s->port = n > 0 ? sp[0].port : cfg->port;
  dlv_auth_cookie_name(s->port, s->cookie, sizeof s->cookie);
  *out = s;
  return DL_OK;
}

int dlv_server_port(const dlv_server *s) { return s->port; }

void dlv_server_stop(dlv_server **ps) {
  if (!ps || !*ps) return;
  dlv_server *s = *ps;
  mg_stop(s->ctx);
  dlv_cache_free(&s->cache);
  dlv_compares_free(&s->compares);
  dlv_runs_free(&s->runs);
  free(s->token);
  free(s);
  *ps = NULL;
}
