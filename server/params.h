/*
 * params.h - parsing and checking a request's query string.
 *
 * Pure: it reads only the query string and the catalog, never the database,
 * so every malformed, out-of-range or unknown parameter is answered 400
 * before any I/O (docs/api.md, "Parameters"). Fills defaults: the newest
 * aggregation, the database's domain, offset 0, limit 100, the view's
 * default order.
 *
 * Ownership: strings in dlv_params point into p->buf (a decoded copy of the
 * query string owned by p) or into the catalog; free with dlv_params_free(p).
 */
#ifndef DLV_PARAMS_H
#define DLV_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "views.h"

#define DLV_LIMIT_DEFAULT 100
#define DLV_LIMIT_MAX 1000
#define DLV_FILTER_MAX 256   /* bytes */

/* What an endpoint accepts besides `token`, `run` (the run it reads,
 * server.c) and `base` (a comparison's base run, api_compare.c). */
enum {
  DLV_ACCEPT_SCOPE = 1, /* aggr_id, domain */
  DLV_ACCEPT_LIST = 2,  /* offset, limit, sort, order, filter, format, <column>=<value>;
                           parent and top on a tree view (DLV_TREE) */
};

typedef struct dlv_params {
  char *buf;               /* owned decoded copy of the query string */
  int64_t aggr_id;         /* given or the catalog's default */
  const char *domain;      /* given or the catalog's default */
  int64_t offset;
  int64_t limit;
  const char *sort;        /* a column of the view, or NULL: the view's own order */
  int desc;
  const char *filter;      /* NULL: none */
  int csv;                 /* format=csv */
  const char *tree_parent; /* a tree view's parent=NAME, or "" for top=1; NULL: neither */
  int n_eq;
  struct {
    const char *column;
    const char *value;
  } eq[DLDB_MAX_EQ];
} dlv_params;

/* Parses query (the raw query string, NULL or "" for none) for an endpoint
 * that accepts `accept` (DLV_ACCEPT_* bits); view is the view of a view
 * endpoint (its columns come from cat) or NULL. Returns DL_OK, or DL_EINVAL
 * with the message for a 400 bad_param in msg. p is always initialised and
 * must be freed with dlv_params_free. */
int dlv_params_parse(const char *query, const dlv_catalog *cat, const dlv_view *view,
                     unsigned accept, dlv_params *p, char *msg, size_t msglen);

/* dlv_params_parse for a list or object whose columns are vc (not a
 * database view: a comparison's table), without aggr_id and domain. */
int dlv_params_parse_cols(const char *query, const dlv_viewcat *vc, const dlv_view *view,
                          unsigned accept, dlv_params *p, char *msg, size_t msglen);

void dlv_params_free(dlv_params *p);

/* The decoded value of parameter name in query into out (outlen bytes):
 * 1 when given, 0 when not, -1 when malformed or too long. */
int dlv_query_value(const char *query, const char *name, char *out, size_t outlen);

/* Decodes %XX and '+' of a query-string component in place. Returns 0, or -1
 * for a malformed escape or an encoded NUL. */
int dlv_url_decode(char *s);

#endif
