/*
 * fuzz_params.c - libFuzzer harness for the viewer's request parsing, the
 * pure functions of server/: query strings (params.c: dlv_params_parse,
 * dlv_url_decode), raw paths (http.c: dlv_path_decode), endpoint names
 * (views.c: dlv_view_find), asset paths (assets.c: dlv_asset_find,
 * dlv_asset_type), Accept-Encoding values (dlv_accepts_gzip), the access
 * token in queries and Cookie headers (auth.c) and CSV formula checks. The
 * catalog is built in memory: every view present, with its sort and
 * tie-break columns and a few of each type.
 *
 * Input: byte 0 picks the view (past the table: none), byte 1 the accepted
 * parameter classes; the rest up to the first newline is the query string,
 * the next line a raw path, and what follows a header value (Accept-Encoding,
 * Cookie, a token).
 *
 * Invariants checked besides the sanitizers: a refusal has a message; an
 * accepted query has limit 1..1000, offset >= 0, a filter of at most
 * DLV_FILTER_MAX bytes, and sort and exact-match columns of the view.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assets.h"
#include "auth.h"
#include "csv.h"
#include "fuzz_common.h"
#include "http.h"
#include "catalog.h"
#include "params.h"
#include "views.h"

static dlv_catalog cat;
static char *domains[] = {"default-domain", "dom\xc3\xa9 2"};
static int64_t aggr_ids[] = {1, 2, 7};

static void add_col(dlv_viewcat *vc, const char *name, dldb_coltype t) {
  if (!name || dlv_viewcat_column(vc, name) >= 0) return;
  vc->names = realloc(vc->names, (size_t)(vc->n + 1) * sizeof *vc->names);
  vc->types = realloc(vc->types, (size_t)(vc->n + 1) * sizeof *vc->types);
  if (!vc->names || !vc->types || !(vc->names[vc->n] = strdup(name))) abort();
  vc->types[vc->n++] = t;
}

static void init_catalog(void) {
  static int done;
  if (done) return;
  done = 1;
  cat.db_name = "fuzz.sqlite";
  cat.info.default_aggr_id = 7;
  snprintf(cat.info.default_domain, sizeof cat.info.default_domain, "default-domain");
  cat.aggr_ids = aggr_ids;
  cat.n_aggr = 3;
  cat.domains = domains;
  cat.n_domains = 2;
  for (int i = 0; i < DLV_VIEW_COUNT; i++) {
    const dlv_view *v = &dlv_views[i];
    dlv_viewcat *vc = &cat.views[i];
    vc->present = i % 7 != 6; /* a few views missing */
    if (v->scope & DLV_PER_AGGR) add_col(vc, "aggr_id", DLDB_COL_INTEGER);
    if (v->scope & DLV_PER_DOMAIN) add_col(vc, "domain_name", DLDB_COL_TEXT);
    add_col(vc, v->sort, DLDB_COL_INTEGER);
    for (int k = 0; k < DLDB_MAX_TIEBREAK && v->tiebreak[k]; k++)
      add_col(vc, v->tiebreak[k], DLDB_COL_TEXT);
    add_col(vc, "op_node_name", DLDB_COL_TEXT);
    add_col(vc, "gpu_utilization", DLDB_COL_REAL);
    add_col(vc, "num_calls", DLDB_COL_INTEGER);
  }
}

static void check_params(const dlv_params *p, const dlv_viewcat *vc) {
  if (p->limit < 1 || p->limit > DLV_LIMIT_MAX || p->offset < 0 || p->n_eq < 0 ||
      p->n_eq > DLDB_MAX_EQ || (p->filter && strlen(p->filter) > DLV_FILTER_MAX) || !p->domain ||
      !dlv_catalog_has_domain(&cat, p->domain) || !dlv_catalog_has_aggr(&cat, p->aggr_id))
    abort();
  if (p->sort && dlv_viewcat_column(vc, p->sort) < 0) abort();
  for (int i = 0; i < p->n_eq; i++)
    if (dlv_viewcat_column(vc, p->eq[i].column) < 0 || !p->eq[i].value) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const dlv_viewcat none = {0};
  init_catalog();
  if (size < 2) return 0;
  const dlv_view *view = data[0] < DLV_VIEW_COUNT ? &dlv_views[data[0]] : NULL;
  unsigned accept = data[1] & 3;
  char *text = malloc(size - 1);
  if (!text) return 0;
  memcpy(text, data + 2, size - 2);
  text[size - 2] = '\0';
  char *path = strchr(text, '\n'), *ae = NULL;
  if (path) {
    *path++ = '\0';
    if ((ae = strchr(path, '\n'))) *ae++ = '\0';
  }

  dlv_params p;
  char msg[256] = "";
  if (dlv_params_parse(text, &cat, view, accept, &p, msg, sizeof msg) == DL_OK)
    check_params(&p, view ? dlv_catalog_view(&cat, view) : &none);
  else if (!msg[0]) /* the message goes into a JSON error body; any text is fine */
    abort();
  dlv_params_free(&p);

  char *copy = strdup(text);
  if (copy && dlv_url_decode(copy) == 0 && strlen(copy) > strlen(text)) abort();
  free(copy);

  if (path) {
    /* the server decodes the raw path once, then matches it byte for byte */
    char dec[512];
    size_t cap = 1 + (size % sizeof dec);
    int d = dlv_path_decode(path, dec, cap);
    if (d == 0 && (strlen(dec) >= cap || strlen(dec) > strlen(path))) abort();
    if (d == 0) (void)dlv_asset_find(dec);
    const dl_asset *a = dlv_asset_find(path);
    if (a && (!a->path || a->path[0] != '/')) abort();
    (void)dlv_asset_type(path);
    if (strncmp(path, "/api/v1/", 8) == 0) {
      const dlv_view *v = dlv_view_find(path + 8);
      if (v && strcmp(v->name, path + 8) != 0) abort();
    }
  }
  const char *hdr = ae ? ae : text;
  (void)dlv_accepts_gzip(hdr);
  /* access token: query string, Cookie header, the token's own rules */
  static const char token[] = "s3cret-Token_0123";
  (void)dlv_auth_query_ok(text, token);
  (void)dlv_auth_cookie_ok(hdr, "dlprofviewer_token_8000", token);
  if (dlv_auth_cookie_ok(hdr, "dlprofviewer_token_8000", token) && !strstr(hdr, token)) abort();
  if (dlv_token_valid(hdr) &&
      (strlen(hdr) < DLV_TOKEN_MIN || strlen(hdr) > DLV_TOKEN_MAX ||
       strspn(hdr, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-") !=
           strlen(hdr)))
    abort();
  if (dlv_token_equal(hdr, text) != (strcmp(hdr, text) == 0)) abort();
  (void)dlv_addr_is_loopback(hdr);
  (void)dl_csv_formula_like(text);
  free(text);
  return 0;
}
