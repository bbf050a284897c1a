/* dlp_domains.c - the NVTX domains a run aggregates (dlp_internal.h): those
 * of --domains (a comma-separated list), else every domain with ranges, the
 * default one first; the domains of a dldb's aggregations; and the
 * file-name part that keeps each domain's reports apart. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "dldb_scan.h"
#include "dlp_internal.h"

int dlp_domain_count(const dlp_opts *o) {
  char buf[DLP_DOMAIN_MAX];
  int n = 0;
  while (n < DLP_MAX_DOMAINS && dlp_domain_at(o, n, buf, sizeof buf)) n++;
  return n;
}

int dlp_domain_at(const dlp_opts *o, int i, char *buf, size_t len) {
  const char *s = o->domains;
  if (!s || !*s) return 0;
  for (int k = 0; k < i; k++) {
    s = strchr(s, ',');
    if (!s) return 0;
    s++;
  }
  size_t n = strcspn(s, ",");
  if (n == 0 || n >= len) return 0;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return 1;
}

void dlp_domain_infix(const char *domain, char *buf, size_t len) {
  size_t k = 0;
  if (len) buf[0] = '\0';
  if (!domain || len < 2) return;
  buf[k++] = '_';
  for (const char *s = domain; *s && k + 1 < len; s++)
    buf[k++] = isalnum((unsigned char)*s) || *s == '-' || *s == '.' ? *s : '_';
  buf[k] = '\0';
}

/* What dlp_domains_found collects: the lowest-id domain, whether there is
 * "default-domain", and the first domains with ranges other than it. */
typedef struct found {
  char lowest[DLP_DOMAIN_MAX];
  int any, has_default;
  char with[DLP_MAX_DOMAINS + 1][DLP_DOMAIN_MAX];
  int n, left;
} found;

static int found_domain(void *ctx, int64_t id, const char *name, int has_ranges) {
  found *f = ctx;
  (void)id; /* rows come in id order */
  if (!f->any && strlen(name) < sizeof f->lowest) /* else "": the dldb's default */
    snprintf(f->lowest, sizeof f->lowest, "%s", name);
  f->any = 1;
  if (!strcmp(name, "default-domain")) {
    f->has_default = 1;
    return 0;
  }
  if (!has_ranges) return 0;
  if (strlen(name) >= DLP_DOMAIN_MAX || f->n == DLP_MAX_DOMAINS + 1) f->left++;
  else snprintf(f->with[f->n++], DLP_DOMAIN_MAX, "%s", name);
  return 0;
}

int dlp_domains_found(dlp_pipeline *p, char *first, char (*other)[DLP_DOMAIN_MAX], int max,
                      int *n, int *left) {
  found f = {.n = 0};
  *n = *left = 0;
  first[0] = '\0';
  int rc = dldb_scan_domains(p->w, found_domain, &f, p->err, p->errlen);
  if (rc != DL_OK || !f.any) return rc;
  /* dla_aggregate's rule for no domain: "default-domain", else the lowest id */
  snprintf(first, DLP_DOMAIN_MAX, "%s", f.has_default ? "default-domain" : f.lowest);
  for (int k = 0; k < f.n; k++) {
    if (!strcmp(f.with[k], first)) continue;
    if (*n < max) snprintf(other[(*n)++], DLP_DOMAIN_MAX, "%s", f.with[k]);
    else (*left)++;
  }
  *left += f.left;
  return DL_OK;
}

/* The newest aggregation of each domain in view_performance_summary's rows. */
typedef struct newest {
  dlp_pipeline *p;
  const char *domain; /* the default one's: p->dom[0] */
} newest;

static int newest_row(void *ctx, const dldb_row *row) {
  newest *x = ctx;
  dlp_pipeline *p = x->p;
  int64_t aggr = -1;
  const char *domain = NULL;
  for (int i = 0; i < dldb_row_count(row); i++) {
    if (!strcmp(dldb_row_name(row, i), "aggr_id")) aggr = dldb_row_int(row, i);
    else if (!strcmp(dldb_row_name(row, i), "domain_name")) domain = dldb_row_text(row, i);
  }
  if (!domain || aggr < 0 || !strcmp(domain, x->domain) || strlen(domain) >= DLP_DOMAIN_MAX)
    return 0;
  for (int k = 1; k < p->n_domains; k++)
    if (!strcmp(p->dom[k].name, domain)) {
      if (aggr > p->dom[k].aggr_id) p->dom[k].aggr_id = aggr;
      return 0;
    }
  if (p->n_domains == DLP_MAX_DOMAINS) return 0;
  dlp_domain_aggr *d = &p->dom[p->n_domains++];
  snprintf(d->name, sizeof d->name, "%s", domain);
  dlp_domain_infix(domain, d->infix, sizeof d->infix);
  d->aggr_id = aggr;
  return 0;
}

int dlp_domains_of_dldb(dlp_pipeline *p, dldb *db, int64_t aggr_id, const char *domain) {
  dlp_domain_aggr *d = &p->dom[0];
  snprintf(d->name, sizeof d->name, "%s", domain);
  d->infix[0] = '\0';
  d->aggr_id = aggr_id;
  p->n_domains = 1;
  if (!dldb_has_view(db, "view_performance_summary")) return DL_OK;
  newest x = {.p = p, .domain = domain};
  dldb_query q = {.view = "view_performance_summary", .aggr_id = -1, .sort = "aggr_id",
                  .limit = -1};
  return dldb_query_rows(db, &q, newest_row, &x, p->err, p->errlen);
}
