/* http.c - the request's pinned state, response headers, JSON and error
 * answers (see http.h). */
#include "http.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CSP[] = "default-src 'self'; script-src 'self'; style-src 'self'; "
                          "img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                          "frame-ancestors 'none'";

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int dlv_path_decode(const char *raw, char *out, size_t outlen) {
  size_t n = 0;
  for (const char *p = raw; *p; p++) {
    char c = *p;
    if (c == '%') {
      int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return -1;
      c = (char)(hi << 4 | lo);
      p += 2;
    }
    if (n + 1 >= outlen) return -2;
    out[n++] = c;
  }
  if (outlen == 0) return -2;
  out[n] = '\0';
  return 0;
}

int dlv_req_verify(dlv_req *r) {
  return r->verified ? 0 : dlv_send_error(r, 500, "db_error", "%s", r->db_err);
}

int dlv_req_db(dlv_req *r, dldb **db) {
  *db = r->verified ? r->db : NULL;
  return *db ? 0 : dlv_send_error(r, 500, "db_error", "%s", r->db_err);
}

static int is_head(struct mg_connection *conn) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  return ri && ri->request_method && strcmp(ri->request_method, "HEAD") == 0;
}

void dlv_response_start(const dlv_req *r, int status, const char *content_type, int api) {
  mg_response_header_start(r->conn, status);
  mg_response_header_add(r->conn, "Content-Type", content_type, -1);
  mg_response_header_add(r->conn, "X-Content-Type-Options", "nosniff", -1);
  mg_response_header_add(r->conn, "Referrer-Policy", "no-referrer", -1);
  mg_response_header_add(r->conn, "Content-Security-Policy", CSP, -1);
  if (api) mg_response_header_add(r->conn, "Cache-Control", "no-store", -1);
  if (r->set_cookie) mg_response_header_add(r->conn, "Set-Cookie", r->set_cookie, -1);
  if (r->keep_alive) mg_response_header_add(r->conn, "Keep-Alive", r->keep_alive, -1);
}

int dlv_send_body(const dlv_req *r, const void *body, size_t len) {
  char n[32];
  snprintf(n, sizeof n, "%zu", len);
  mg_response_header_add(r->conn, "Content-Length", n, -1);
  if (mg_response_header_send(r->conn) != 0) return -1;
  if (r->head || len == 0) return 0;
  return mg_write(r->conn, body, len) == (int)len ? 0 : -1;
}

int dlv_send_chunked_start(const dlv_req *r) {
  mg_response_header_add(r->conn, "Transfer-Encoding", "chunked", -1);
  return mg_response_header_send(r->conn) == 0 ? 0 : -1;
}

int dlv_send_chunk(const dlv_req *r, const char *data, size_t len) {
  if (r->head) return 0;
  return mg_send_chunk(r->conn, data ? data : "", (unsigned)len) >= 0 ? 0 : -1;
}

int dlv_stream_write(void *stream, const char *data, size_t len) {
  dlv_stream *s = stream;
  if (!s->started) {
    char disposition[300];
    snprintf(disposition, sizeof disposition, "attachment; filename=\"%s\"", s->filename);
    dlv_response_start(s->req, 200, s->content_type, 1);
    mg_response_header_add(s->req->conn, "Content-Disposition", disposition, -1);
    if (dlv_send_chunked_start(s->req) != 0) return -1;
    s->started = 1;
  }
  return len ? dlv_send_chunk(s->req, data, len) : 0;
}

int dlv_stream_end(dlv_stream *s) {
  if (dlv_stream_write(s, NULL, 0) != 0) return -1;
  return dlv_send_chunk(s->req, NULL, 0);
}

int dlv_send_json_text(const dlv_req *r, int status, const char *text, size_t len) {
  dlv_response_start(r, status, "application/json", 1);
  if (status == 405) mg_response_header_add(r->conn, "Allow", "GET, HEAD", -1);
  dlv_send_body(r, text, len);
  return status;
}

int dlv_send_json(const dlv_req *r, int status, cJSON *root) {
  char *text = root ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  if (!text) return dlv_send_error(r, 500, "internal", "out of memory building the answer");
  dlv_send_json_text(r, status, text, strlen(text));
  cJSON_free(text);
  return status;
}

int dlv_send_unauthorized(const dlv_req *r, int api) {
  static const char page[] =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>dlprofviewer: access token needed</title></head><body>"
      "<h1>401: access token needed</h1>"
      "<p>This dlprofviewer serves a network and asks for its access token. Open the "
      "URL it printed when it started (the one ending in <code>?token=...</code>); "
      "your browser then keeps the token for this server.</p></body></html>\n";
  if (api)
    return dlv_send_error(r, 401, "unauthorized",
                          "this dlprofviewer needs its access token: open the URL it printed "
                          "at start (with ?token=...), or pass token=... in the query");
  dlv_response_start(r, 401, "text/html; charset=utf-8", 0);
  mg_response_header_add(r->conn, "Cache-Control", "no-store", -1);
  dlv_send_body(r, page, sizeof page - 1);
  return 401;
}

int dlv_send_raw_error(struct mg_connection *conn, int status, const char *message) {
  char body[256];
  int n = snprintf(body, sizeof body, "%d %s\n", status, message ? message : "");
  if (n < 0 || (size_t)n >= sizeof body) n = (int)sizeof body - 1;
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "X-Content-Type-Options: nosniff\r\n"
            "Referrer-Policy: no-referrer\r\n"
            "Content-Security-Policy: %s\r\n"
            "Cache-Control: no-store\r\n"
            "Content-Length: %d\r\n"
            "Connection: close\r\n\r\n",
            status, mg_get_response_code_text(conn, status), CSP, n);
  if (!is_head(conn)) mg_write(conn, body, (size_t)n);
  return status;
}

int dlv_send_error(const dlv_req *r, int status, const char *code, const char *fmt, ...) {
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  /* If even this small tree cannot be built, a fixed body still goes out. */
  cJSON *root = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(root, "error");
  cJSON_AddNumberToObject(e, "status", status);
  cJSON_AddStringToObject(e, "code", code);
  cJSON_AddStringToObject(e, "message", message);
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  static const char fallback[] =
      "{\"error\":{\"status\":500,\"code\":\"internal\",\"message\":\"out of memory\"}}";
  int sent = text ? status : 500;
  dlv_send_json_text(r, sent, text ? text : fallback, text ? strlen(text) : sizeof fallback - 1);
  cJSON_free(text);
  return sent;
}
