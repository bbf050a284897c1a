/* assets.c - serving the embedded web files (see assets.h). */
#include "assets.h"

#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_ASSETS 1024
#define FNV_BASIS 1469598103934665603ull
#define FNV_PRIME 1099511628211ull
#define TAG_LEN 16 /* hex digits of the build hash in /v/<tag>/ */

static uint64_t etag_hash[MAX_ASSETS]; /* FNV-1a of each asset's bytes */
static char build_tag[TAG_LEN + 1];     /* the hash of every asset, in hex */

/* index.html with its page files' URLs under /v/<build_tag>/ (the others
 * are found from there by relative URLs), served in place of the embedded
 * copy; its path NULL when it did not fit (the embedded one is served). */
static unsigned char index_text[32768];
static dl_asset index_versioned;

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t k = 0; k < n; k++) h = (h ^ p[k]) * FNV_PRIME;
  return h;
}

/* Copies index.html into index_text with `="/js/` and `="/css/` prefixed
 * by /v/<build_tag>. Returns 0, or -1 when it does not fit. */
static int version_index(const dl_asset *index) {
  static const char *const dirs[] = {"=\"/js/", "=\"/css/"};
  size_t n = 0;
  for (size_t i = 0; i < index->size;) {
    size_t skip = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0] && !skip; d++) {
      size_t len = strlen(dirs[d]);
      if (index->size - i >= len && memcmp(index->data + i, dirs[d], len) == 0) skip = 2;
    }
    if (skip) { /* ="  then /v/<tag>  then the rest of the URL as it was */
      if (n + skip + 3 + TAG_LEN >= sizeof index_text) return -1;
      memcpy(index_text + n, index->data + i, skip);
      n += skip;
      n += (size_t)snprintf((char *)index_text + n, sizeof index_text - n, "/v/%s", build_tag);
      i += skip;
      continue;
    }
    if (n + 1 >= sizeof index_text) return -1;
    index_text[n++] = index->data[i++];
  }
  index_versioned = (dl_asset){.path = index->path, .data = index_text, .size = n};
  return 0;
}

void dlv_assets_init(void) {
  uint64_t all = FNV_BASIS;
  for (int i = 0; dlv_web_assets[i].path && i < MAX_ASSETS; i++) {
    const dl_asset *a = &dlv_web_assets[i];
    etag_hash[i] = fnv(FNV_BASIS, a->data, a->size);
    all = fnv(all, (const unsigned char *)a->path, strlen(a->path) + 1);
    all = fnv(all, (const unsigned char *)&etag_hash[i], sizeof etag_hash[i]);
  }
  snprintf(build_tag, sizeof build_tag, "%016llx", (unsigned long long)all);
  const dl_asset *index = dlv_asset_find("/index.html");
  index_versioned.path = NULL;
  if (index) (void)version_index(index);
}

const char *dlv_assets_tag(void) {
  return build_tag;
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

/* The path without a /v/<tag> prefix (16 hex digits); *current: 1 when
 * the prefix names this build. A path without the prefix is returned as
 * is, *current 0. */
static const char *unversioned(const char *path, int *current) {
  *current = 0;
  if (strncmp(path, "/v/", 3) != 0) return path;
  const char *tag = path + 3;
  size_t n = strspn(tag, "0123456789abcdef");
  if (n != TAG_LEN || tag[TAG_LEN] != '/') return path;
  *current = memcmp(tag, build_tag, TAG_LEN) == 0;
  return tag + TAG_LEN;
}

int dlv_serve_asset(dlv_req *r) {
  int current;
  const dl_asset *a = dlv_asset_find(unversioned(r->path, &current));
  if (!a) {
    static const char body[] = "404 Not Found\n";
    dlv_response_start(r, 404, "text/plain; charset=utf-8", 0);
    dlv_send_body(r, body, sizeof body - 1);
    return 404;
  }
  int page = strcmp(a->path, "/index.html") == 0;
  uint64_t hash = etag_hash[(a - dlv_web_assets) % MAX_ASSETS];
  if (page && index_versioned.path) { /* its URLs name the build: its ETag too */
    a = &index_versioned;
    hash = fnv(FNV_BASIS, (const unsigned char *)build_tag, TAG_LEN);
  }
  int gz = a->gzip_size > 0 && a->gzip_size < a->size &&
           dlv_accepts_gzip(mg_get_header(r->conn, "Accept-Encoding"));
  char etag[40];
  snprintf(etag, sizeof etag, "\"%016llx%s\"", (unsigned long long)hash, gz ? "-gz" : "");
  const char *inm = mg_get_header(r->conn, "If-None-Match");
  int fresh = inm && strstr(inm, etag) != NULL;
  dlv_response_start(r, fresh ? 304 : 200, dlv_asset_type(a->path), 0);
  /* under this build's /v/<tag>/ a file never changes: no revalidation */
  mg_response_header_add(r->conn, "Cache-Control",
                         current && !page ? "public, max-age=31536000, immutable" : "no-cache", -1);
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
