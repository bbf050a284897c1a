/*
 * catalog.h - what the viewer knows about its database, read once at start.
 *
 * The views present and their columns, the aggregation ids and the domains,
 * and the info of dldb_open_ro. Requests are validated against the catalog
 * (docs/api.md: parameters are checked before the database is touched), and
 * it never changes after dlv_catalog_load, so every worker thread reads it
 * without locks.
 *
 * Ownership: dlv_catalog_load returns a new catalog; free it with
 * dlv_catalog_free(&c). Everything it returns is borrowed from it.
 */
#ifndef DLV_CATALOG_H
#define DLV_CATALOG_H

#include <stdint.h>

#include "dldb.h"
#include "views.h"

typedef struct dlv_viewcat {
  int present;              /* 1 if the database has the view */
  int n;                    /* columns */
  char **names;             /* n column names */
  dldb_coltype *types;      /* n column types */
} dlv_viewcat;

typedef struct dlv_catalog {
  char *db_name;            /* the file name without its folder */
  dldb_info info;
  dlv_viewcat views[DLV_VIEW_COUNT]; /* in dlv_views order */
  int64_t *aggr_ids;        /* n_aggr, ascending */
  int n_aggr;
  char **domains;           /* n_domains */
  int n_domains;
  char mode[32];            /* view_system_config.mode_string, "" if none */
  int64_t num_gpus;         /* view_system_config.num_gpus (TEXT in DLProf), 0 if none */
} dlv_catalog;

/* Reads the catalog from db (a handle of dldb_open_ro). */
int dlv_catalog_load(dldb *db, dlv_catalog **out, char *err, size_t errlen);

void dlv_catalog_free(dlv_catalog **c);

/* The entry of view v (a row of dlv_views). */
const dlv_viewcat *dlv_catalog_view(const dlv_catalog *c, const dlv_view *v);

/* Index of column name in vc, or -1. */
int dlv_viewcat_column(const dlv_viewcat *vc, const char *name);

int dlv_catalog_has_aggr(const dlv_catalog *c, int64_t aggr_id);
int dlv_catalog_has_domain(const dlv_catalog *c, const char *domain);

#endif
