/* params.c - query-string parsing and validation (see params.h). */
#include "params.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int dlv_url_decode(char *s) {
  char *o = s;
  for (const char *p = s; *p; p++) {
    if (*p == '+') {
      *o++ = ' ';
    } else if (*p == '%') {
      int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return -1;
      *o++ = (char)(hi << 4 | lo);
      p += 2;
    } else {
      *o++ = *p;
    }
  }
  *o = '\0';
  return 0;
}

/* Parses a whole decimal int64. */
static int parse_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || *s == ' ' || *s == '+') return -1;
  *out = v;
  return 0;
}

static int bad(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *msg, size_t msglen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, msglen, fmt, ap);
  va_end(ap);
  return DL_EINVAL;
}

/* Names seen so far, to refuse a parameter given twice. */
typedef struct seen {
  const char *names[64];
  int n;
} seen;

static int seen_add(seen *s, const char *name) {
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->names[i], name) == 0) return -1;
  if (s->n < (int)(sizeof s->names / sizeof s->names[0])) s->names[s->n++] = name;
  return 0;
}

/* One name=value pair, both decoded. */
static int one_param(const char *name, const char *value, const dlv_catalog *cat,
                     const dlv_view *view, const dlv_viewcat *vc, unsigned accept, dlv_params *p,
                     int *order_given, char *msg, size_t msglen) {
  int scope = (accept & DLV_ACCEPT_SCOPE) != 0, list = (accept & DLV_ACCEPT_LIST) != 0;
  if (strcmp(name, "token") == 0) return DL_OK; /* reserved for access tokens */
  if (strcmp(name, "run") == 0 || strcmp(name, "base") == 0) return DL_OK; /* the runs read */
  if (scope && strcmp(name, "aggr_id") == 0) {
    if (parse_int(value, &p->aggr_id) != 0)
      return bad(msg, msglen, "aggr_id must be an integer");
    if (!dlv_catalog_has_aggr(cat, p->aggr_id))
      return bad(msg, msglen, "unknown aggr_id %lld (see /api/v1/aggregations)",
                 (long long)p->aggr_id);
    return DL_OK;
  }
  if (scope && strcmp(name, "domain") == 0) {
    if (!dlv_catalog_has_domain(cat, value))
      return bad(msg, msglen, "unknown domain '%.64s' (see /api/v1/domains)", value);
    p->domain = value;
    return DL_OK;
  }
  if (!list) return bad(msg, msglen, "unknown parameter '%.64s'", name);
  if (strcmp(name, "offset") == 0) {
    if (parse_int(value, &p->offset) != 0 || p->offset < 0)
      return bad(msg, msglen, "offset must be an integer >= 0");
    return DL_OK;
  }
  if (strcmp(name, "limit") == 0) {
    if (parse_int(value, &p->limit) != 0 || p->limit < 1 || p->limit > DLV_LIMIT_MAX)
      return bad(msg, msglen, "limit must be an integer from 1 to %d", DLV_LIMIT_MAX);
    return DL_OK;
  }
  if (strcmp(name, "sort") == 0) {
    int c = dlv_viewcat_column(vc, value);
    if (c < 0) return bad(msg, msglen, "sort: %s has no column '%.64s'", view->name, value);
    p->sort = vc->names[c];
    if (!*order_given) p->desc = vc->types[c] != DLDB_COL_TEXT;
    return DL_OK;
  }
  if (strcmp(name, "order") == 0) {
    if (strcmp(value, "asc") != 0 && strcmp(value, "desc") != 0)
      return bad(msg, msglen, "order must be asc or desc");
    p->desc = value[0] == 'd';
    *order_given = 1;
    return DL_OK;
  }
  if (strcmp(name, "filter") == 0) {
    if (strlen(value) > DLV_FILTER_MAX)
      return bad(msg, msglen, "filter must be at most %d bytes", DLV_FILTER_MAX);
    p->filter = *value ? value : NULL;
    return DL_OK;
  }
  if ((view->scope & DLV_TREE) && (strcmp(name, "parent") == 0 || strcmp(name, "top") == 0)) {
    if (p->tree_parent)
      return bad(msg, msglen, "parent and top exclude each other");
    if (name[0] == 't' && strcmp(value, "1") != 0) return bad(msg, msglen, "top must be 1");
    if (name[0] == 'p' && !*value)
      return bad(msg, msglen, "parent must name a group (top=1: the top rows)");
    p->tree_parent = name[0] == 't' ? "" : value;
    return DL_OK;
  }
  if (strcmp(name, "format") == 0) {
    if (strcmp(value, "json") != 0 && strcmp(value, "csv") != 0)
      return bad(msg, msglen, "format must be json or csv");
    p->csv = value[0] == 'c';
    return DL_OK;
  }
  /* <column>=<value>: exact match on another column of the view */
  int c = dlv_viewcat_column(vc, name);
  if (c < 0 || strcmp(name, "aggr_id") == 0 || strcmp(name, "domain_name") == 0)
    return bad(msg, msglen, "unknown parameter '%.64s'", name);
  if (p->n_eq == DLDB_MAX_EQ)
    return bad(msg, msglen, "at most %d column filters are allowed", DLDB_MAX_EQ);
  int64_t iv;
  if (vc->types[c] == DLDB_COL_INTEGER && parse_int(value, &iv) != 0)
    return bad(msg, msglen, "%s must be an integer", vc->names[c]);
  if (vc->types[c] == DLDB_COL_REAL) {
    char *end;
    errno = 0;
    (void)strtod(value, &end);
    if (!*value || *end || errno) return bad(msg, msglen, "%s must be a number", vc->names[c]);
  }
  p->eq[p->n_eq].column = vc->names[c];
  p->eq[p->n_eq].value = value;
  p->n_eq++;
  return DL_OK;
}

/* dlv_params_parse with the view's columns vc; cat NULL: no aggr_id or
 * domain (accept without DLV_ACCEPT_SCOPE). */
static int parse(const char *query, const dlv_catalog *cat, const dlv_view *view,
                 const dlv_viewcat *vc, unsigned accept, dlv_params *p, char *msg, size_t msglen) {
  seen names = {.n = 0};
  int order_given = 0;
  memset(p, 0, sizeof *p);
  p->aggr_id = cat ? cat->info.default_aggr_id : -1;
  p->domain = cat ? cat->info.default_domain : NULL;
  p->limit = DLV_LIMIT_DEFAULT;
  if (view && dlv_viewcat_column(vc, view->sort ? view->sort : "") >= 0) {
    p->sort = view->sort;
    p->desc = view->desc;
  }
  if (!view || view->shape != DLV_LIST) accept &= ~(unsigned)DLV_ACCEPT_LIST;
  if (!query || !*query) return DL_OK;
  p->buf = strdup(query);
  if (!p->buf) return bad(msg, msglen, "out of memory");
  char *save = NULL;
  for (char *pair = strtok_r(p->buf, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
    char *eq = strchr(pair, '=');
    char *value = pair + strlen(pair); /* "" inside p->buf: decoded in place, so writable */
    if (eq) {
      *eq = '\0';
      value = eq + 1;
    }
    if (dlv_url_decode(pair) != 0 || dlv_url_decode(value) != 0)
      return bad(msg, msglen, "malformed percent-encoding in the query string");
    if (!*pair) return bad(msg, msglen, "a parameter without a name");
    if (seen_add(&names, pair) != 0) return bad(msg, msglen, "parameter '%.64s' is given twice", pair);
    int rc = one_param(pair, value, cat, view, vc, accept, p, &order_given, msg, msglen);
    if (rc) return rc;
  }
  return DL_OK;
}

int dlv_params_parse(const char *query, const dlv_catalog *cat, const dlv_view *view,
                     unsigned accept, dlv_params *p, char *msg, size_t msglen) {
  static const dlv_viewcat no_columns = {0};
  const dlv_viewcat *vc = view ? dlv_catalog_view(cat, view) : &no_columns;
  return parse(query, cat, view, vc, accept, p, msg, msglen);
}

int dlv_params_parse_cols(const char *query, const dlv_viewcat *vc, const dlv_view *view,
                          unsigned accept, dlv_params *p, char *msg, size_t msglen) {
  return parse(query, NULL, view, vc, accept & ~(unsigned)DLV_ACCEPT_SCOPE, p, msg, msglen);
}

int dlv_query_value(const char *query, const char *name, char *out, size_t outlen) {
  size_t nlen = strlen(name);
  for (const char *s = query ? query : ""; *s;) {
    size_t len = strcspn(s, "&");
    if (len > nlen && strncmp(s, name, nlen) == 0 && s[nlen] == '=') {
      size_t vlen = len - nlen - 1;
      if (vlen >= outlen) return -1;
      memcpy(out, s + nlen + 1, vlen);
      out[vlen] = '\0';
      return dlv_url_decode(out) == 0 ? 1 : -1;
    }
    s += len + (s[len] == '&');
  }
  return 0;
}

void dlv_params_free(dlv_params *p) {
  free(p->buf);
  p->buf = NULL;
}
