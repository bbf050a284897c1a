/* catalog.c - reads the catalog once at start (see catalog.h). */
#include "catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(char *err, size_t errlen) { return dl_err(err, errlen, DL_ENOMEM, "out of memory"); }

static int load_view(dldb *db, const dlv_view *v, dlv_viewcat *vc, char *err, size_t errlen) {
  const char *const *names;
  const dldb_coltype *types;
  int n = dldb_view_columns(db, v->sql_view, &names, &types);
  if (n == DL_ENOTFOUND) return DL_OK; /* absent: the endpoint answers view_missing */
  if (n < 0)
    return dl_err(err, errlen, n, "%s: cannot read the columns of %s", dldb_path(db), v->sql_view);
  vc->names = calloc((size_t)n, sizeof *vc->names);
  vc->types = calloc((size_t)n, sizeof *vc->types);
  if (!vc->names || !vc->types) return oom(err, errlen);
  for (int i = 0; i < n; i++) {
    vc->names[i] = strdup(names[i]);
    if (!vc->names[i]) return oom(err, errlen);
    vc->types[i] = types[i];
    vc->n = i + 1;
  }
  vc->present = 1;
  return DL_OK;
}

static int on_aggr(void *ctx, const dldb_row *row) {
  dlv_catalog *c = ctx;
  int64_t *ids = realloc(c->aggr_ids, (size_t)(c->n_aggr + 1) * sizeof *ids);
  if (!ids) return 1;
  c->aggr_ids = ids;
  ids[c->n_aggr++] = dldb_row_int(row, 0);
  return 0;
}

static int on_domain(void *ctx, const dldb_row *row) {
  dlv_catalog *c = ctx;
  char **d = realloc(c->domains, (size_t)(c->n_domains + 1) * sizeof *d);
  if (!d) return 1;
  c->domains = d;
  d[c->n_domains] = strdup(dldb_row_text(row, 0));
  return d[c->n_domains++] == NULL;
}

static int on_sysconfig(void *ctx, const dldb_row *row) {
  dlv_catalog *c = ctx;
  for (int i = 0; i < dldb_row_count(row); i++) {
    const char *name = dldb_row_name(row, i);
    if (strcmp(name, "mode_string") == 0)
      snprintf(c->mode, sizeof c->mode, "%s", dldb_row_text(row, i));
    else if (strcmp(name, "num_gpus") == 0)
      c->num_gpus = strtoll(dldb_row_text(row, i), NULL, 10);
  }
  return 1; /* one row */
}

/* Runs SELECT <col> FROM view ORDER BY <col> and passes each row to fn. */
static int read_list(dldb *db, const char *view, const char *col, dldb_row_fn fn, dlv_catalog *c,
                     char *err, size_t errlen) {
  dldb_query q = {.view = view, .aggr_id = -1, .sort = col, .limit = -1};
  return dldb_query_rows(db, &q, fn, c, err, errlen);
}

int dlv_catalog_load(dldb *db, dlv_catalog **out, char *err, size_t errlen) {
  int rc = DL_OK;
  dlv_catalog *c = calloc(1, sizeof *c);
  *out = NULL;
  if (!c) return oom(err, errlen);
  const char *path = dldb_path(db), *slash = strrchr(path, '/');
  c->db_name = strdup(slash ? slash + 1 : path);
  if (!c->db_name) {
    rc = oom(err, errlen);
    goto out;
  }
  c->info = *dldb_get_info(db);
  for (int i = 0; i < DLV_VIEW_COUNT; i++) {
    rc = load_view(db, &dlv_views[i], &c->views[i], err, errlen);
    if (rc) goto out;
  }
  rc = read_list(db, "view_aggregations", "aggr_id", on_aggr, c, err, errlen);
  if (rc) goto out;
  if (dldb_has_view(db, "view_domains")) {
    rc = read_list(db, "view_domains", "domain_name", on_domain, c, err, errlen);
    if (rc) goto out;
  }
  if (dldb_has_view(db, "view_system_config")) {
    dldb_query q = {.view = "view_system_config", .aggr_id = -1, .limit = 1};
    rc = dldb_query_rows(db, &q, on_sysconfig, c, err, errlen);
    if (rc) goto out;
  }
  *out = c;
  c = NULL;
out:
  dlv_catalog_free(&c);
  return rc;
}

void dlv_catalog_free(dlv_catalog **pc) {
  if (!pc || !*pc) return;
  dlv_catalog *c = *pc;
  for (int i = 0; i < DLV_VIEW_COUNT; i++) {
    for (int k = 0; k < c->views[i].n; k++) free(c->views[i].names[k]);
    free(c->views[i].names);
    free(c->views[i].types);
  }
  for (int i = 0; i < c->n_domains; i++) free(c->domains[i]);
  free(c->domains);
  free(c->aggr_ids);
  free(c->db_name);
  free(c);
  *pc = NULL;
}

const dlv_viewcat *dlv_catalog_view(const dlv_catalog *c, const dlv_view *v) {
  return &c->views[v - dlv_views];
}

int dlv_viewcat_column(const dlv_viewcat *vc, const char *name) {
  for (int i = 0; i < vc->n; i++)
    if (strcmp(vc->names[i], name) == 0) return i;
  return -1;
}

int dlv_catalog_has_aggr(const dlv_catalog *c, int64_t aggr_id) {
  for (int i = 0; i < c->n_aggr; i++)
    if (c->aggr_ids[i] == aggr_id) return 1;
  return 0;
}

int dlv_catalog_has_domain(const dlv_catalog *c, const char *domain) {
  if (c->n_domains == 0) return strcmp(domain, c->info.default_domain) == 0; /* no view_domains */
  for (int i = 0; i < c->n_domains; i++)
    if (strcmp(c->domains[i], domain) == 0) return 1;
  return 0;
}
