/*
 * fuzz_dldb.c - libFuzzer harness for opening a dldb as dlprofviewer does:
 * the bytes are an SQLite file (written to a file on tmpfs), validated by
 * dldb_open_ro (db/dldb_open.c), catalogued (server/catalog.c), then a few
 * bounded view queries (counts and pages of list views, with a filter,
 * a sort and an exact-match filter; object views: fuzz_views.h), then one
 * report made by the pipeline (pipeline/dlp.h) as `dlprof --database=profile.sqlite
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
#include "fuzz_views.h"
#include "views.h"

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
  if (dlp_run(p, &o, err, sizeof err) != DL_OK) fuzz_one_line(err);
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
    fuzz_one_line(err);
    goto out;
  }
  if (dlv_catalog_load(db, &cat, err, sizeof err) != DL_OK) {
    fuzz_one_line(err);
    goto out;
  }
  fuzz_query_views(db, cat, &info, size);
  opened = 1;
out:
  dlv_catalog_free(&cat);
  dldb_close(&db);
  if (opened) pipeline_report(path, size);
  fuzz_unlink(path);
  return 0;
}
