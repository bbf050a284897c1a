/*
 * fuzz_dldb.c - libFuzzer harness for opening a dldb as dlprofviewer does:
 * the bytes are an SQLite file (written to a file on tmpfs), validated by
 * dldb_open_ro (db/dldb_open.c), catalogued (server/catalog.c), then a few
 * bounded view queries (counts and pages of list views, with a filter,
 * a sort and an exact-match filter; object views), then one report made
 * by the pipeline (pipeline/dlp.h) as `dlprof --database=profile.sqlite
 * --reports=R` makes it (the reports of a dldb, or a new aggregation of
 * one of ours first), into files that are then removed.
 *
 * Invariants checked besides the sanitizers: an error is one non-empty line.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "dldb.h"
#include "dlp.h"
#include "fuzz_common.h"
#include "views.h"

static void one_line(const char *err) {
  if (!err[0] || strchr(err, '\n')) {
    fprintf(stderr, "error message is not one line: [%s]\n", err);
    abort();
  }
}

static int on_row(void *ctx, const dldb_row *row) {
  size_t *sum = ctx;
  for (int i = 0; i < dldb_row_count(row); i++) {
    *sum += strlen(dldb_row_name(row, i)) + strlen(dldb_row_text(row, i));
    (void)dldb_row_int(row, i);
    (void)dldb_row_real(row, i);
    (void)dldb_row_type(row, i);
  }
  return 0;
}

/* Removes the pipeline's outputs (named "dldb_...") from fuzz_tmpdir(). */
static void remove_outputs(void) {
  DIR *d = opendir(fuzz_tmpdir());
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));)
    if (!strncmp(e->d_name, "dldb_", 5)) unlinkat(dirfd(d), e->d_name, 0);
  closedir(d);
}

/* One report of the dldb at path, through the pipeline. */
static void pipeline_report(const char *path, size_t size) {
  static dlp_pipeline *p; /* one for the whole run (half a MB) */
  char err[1024];
  if (!p && dlp_new(&p, err, sizeof err) != DL_OK) abort();
  dlp_opts o;
  dlp_opts_init(&o);
  o.input = path;
  o.output_path = fuzz_tmpdir();
  o.profile_name = "dldb";
  o.command = "fuzz";
  o.force = 1;
  o.reports = 1u << (size % (size_t)dlp_report_count());
  o.csv = !(size & 2);
  o.json = !!(size & 2);
  o.aggr_start = "2024-01-01 00:00:00";
  o.user_name = o.host_name = "fuzz";
  err[0] = '\0';
  if (dlp_run(p, &o, err, sizeof err) != DL_OK) one_line(err);
  remove_outputs();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[512], err[1024];
  if (fuzz_file(data, size, "profile.sqlite", path, sizeof path) != 0) return 0;
  dldb *db = NULL;
  dlv_catalog *cat = NULL;
  dldb_info info;
  int opened = 0; /* a dldb the viewer opens: dlprof makes its reports */
  err[0] = '\0';
  if (dldb_open_ro(path, &db, &info, err, sizeof err) != DL_OK) {
    one_line(err);
    goto out;
  }
  if (dlv_catalog_load(db, &cat, err, sizeof err) != DL_OK) {
    one_line(err);
    goto out;
  }
  size_t sum = 0;
  for (int i = 0; i < DLV_VIEW_COUNT; i++) {
    const dlv_view *v = &dlv_views[i];
    const dlv_viewcat *vc = dlv_catalog_view(cat, v);
    if (!vc->present) continue;
    dldb_query q = {.view = v->sql_view,
                    .aggr_id = (v->scope & DLV_PER_AGGR) ? info.default_aggr_id : -1,
                    .domain = (v->scope & DLV_PER_DOMAIN) ? info.default_domain : NULL,
                    .sort = v->sort, .desc = v->desc, .limit = 5};
    for (int k = 0; k < DLDB_MAX_TIEBREAK && v->tiebreak[k]; k++) q.tiebreak[k] = v->tiebreak[k];
    for (int k = 0; k < DLDB_MAX_FILTER_COLS && dlv_filter_columns[k]; k++)
      q.filter_cols[k] = dlv_filter_columns[k];
    if (v->shape == DLV_LIST) {
      int64_t total = 0, filtered = 0;
      q.filter = (size & 1) ? "a%_" : "conv";
      if (dldb_query_count(db, &q, &total, &filtered, err, sizeof err) != DL_OK) one_line(err);
      if (vc->n > 0) { /* sort by, and match on, a column picked by the input */
        int c = (int)(size % (size_t)vc->n);
        q.sort = vc->names[c];
        q.n_eq = 1;
        q.eq[0].column = vc->names[c];
        q.eq[0].value = vc->types[c] == DLDB_COL_TEXT ? "x" : "1";
        if (dldb_query_rows(db, &q, on_row, &sum, err, sizeof err) != DL_OK) one_line(err);
        q.n_eq = 0;
        q.sort = v->sort;
      }
      q.filter = NULL;
      q.offset = 2;
    }
    if (dldb_query_rows(db, &q, on_row, &sum, err, sizeof err) != DL_OK) one_line(err);
  }
  opened = 1;
out:
  dlv_catalog_free(&cat);
  dldb_close(&db);
  if (opened) pipeline_report(path, size);
  fuzz_unlink(path);
  return 0;
}
