/* assets.c - serving the embedded web files (see assets.h). */
#include "assets.h"

#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_ASSETS 1024

static uint64_t etag_hash[MAX_ASSETS]; /* FNV-1a of each asset's bytes */

void dlv_assets_init(void) {
  for (int i = 0; dlv_web_assets[i].path && i < MAX_ASSETS; i++) {
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < dlv_web_assets[i].size; k++)
      h = (h ^ dlv_web_assets[i].data[k]) * 1099511628211ull;
    etag_hash[i] = h;
  }
}

/* DLProf Viewer's page names all lead to our one page. */
static const char *const aliases[][2] = {
    {"/", "/index.html"},
    {"/dashboard.html", "/index.html"},
    {"/dlprof.html", "/index.html"},
};

const dl_asset *dlv_asset_find(const char *path) {
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(path, aliases[i][0]) == 0) path = aliases[i][1];
  for (const dl_asset *a = dlv_web_assets; a->path; a++)
    if (strcmp(a->path, path) == 0) return a;
  return NULL;
}

const char *dlv_asset_type(const char *path) {
  static const char *const types[][2] = {
      {".html", "text/html; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".ico", "image/x-icon"},
      {".png", "image/png"},
      {".woff2", "font/woff2"},
      {".md", "text/plain; charset=utf-8"},
      {".txt", "text/plain; charset=utf-8"},
  };
  const char *dot = strrchr(path, '.');
  for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
    if (strcmp(dot, types[i][0]) == 0) return types[i][1];
  return "application/octet-stream";
}

int dlv_accepts_gzip(const char *ae) {
  while (ae && *ae) {
    char tok[64];
    size_t n = strcspn(ae, ",");
    snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok ? n : sizeof tok - 1), ae);
    ae += n + (ae[n] == ',');
    char *t = tok + strspn(tok, " \t");
    size_t name = strcspn(t, "; \t");
    if (!((name == 4 && strncasecmp(t, "gzip", 4) == 0) || (name == 1 && *t == '*'))) continue;
    const char *q = strstr(t + name, "q=");
    if (!q || strtod(q + 2, NULL) > 0) return 1; /* "gzip;q=0" refuses it */
  }
  return 0;
}

int dlv_serve_asset(dlv_req *r) {
  const dl_asset *a = dlv_asset_find(r->path);
  if (!a) {
    static const char body[] = "404 Not Found\n";
    dlv_response_start(r, 404, "text/plain; charset=utf-8", 0);
    dlv_send_body(r, body, sizeof body - 1);
    return 404;
  }
  int gz = a->gzip_size > 0 && a->gzip_size < a->size &&
           dlv_accepts_gzip(mg_get_header(r->conn, "Accept-Encoding"));
  char etag[40];
  snprintf(etag, sizeof etag, "\"%016llx%s\"",
           (unsigned long long)etag_hash[(a - dlv_web_assets) % MAX_ASSETS], gz ? "-gz" : "");
  const char *inm = mg_get_header(r->conn, "If-None-Match");
  int fresh = inm && strstr(inm, etag) != NULL;
  dlv_response_start(r, fresh ? 304 : 200, dlv_asset_type(a->path), 0);
  mg_response_header_add(r->conn, "Cache-Control", "no-cache", -1);
  mg_response_header_add(r->conn, "ETag", etag, -1);
  mg_response_header_add(r->conn, "Vary", "Accept-Encoding", -1);
  if (fresh) {
    mg_response_header_send(r->conn);
    return 304;
  }
  if (gz) mg_response_header_add(r->conn, "Content-Encoding", "gzip", -1);
  dlv_send_body(r, gz ? a->gzip : a->data, gz ? a->gzip_size : a->size);
  return 200;
}
