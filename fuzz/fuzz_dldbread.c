/*
 * fuzz_dldbread.c - libFuzzer harness for the dldb reader as dlprofviewer
 * uses it, over a database in memory (db/dldb_open.c through
 * dldb_open_mem: header checks, quick check, marker, version and
 * aggregation checks, SQLite reading the bytes through sqlite3_deserialize,
 * no file): the viewer's catalog (server/catalog.c), then counts and pages
 * of every view present (db/dldb_query.c, fuzz_views.h), and the same
 * through a second handle (dldb_open_again). No reports: fuzz_dldb is the
 * end-to-end harness.
 *
 * Input: the bytes of an SQLite file, or SQL text that builds one
 * (fuzz_sql.h).
 *
 * Invariants checked besides the sanitizers: an error is one non-empty
 * line; an open handle's info says what dldb_open_mem returned.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "dldb.h"
#include "fuzz_common.h"
#include "fuzz_sql.h"
#include "fuzz_views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t n;
  int owned;
  const unsigned char *bytes = fuzz_db_bytes(data, size, &n, &owned);
  if (!bytes) return 0;
  char err[1024];
  dldb *db = NULL, *again = NULL;
  dlv_catalog *cat = NULL;
  dldb_info info;
  err[0] = '\0';
  if (dldb_open_mem(bytes, n, "profile.sqlite", &db, &info, err, sizeof err) != DL_OK) {
    fuzz_one_line(err);
    goto out;
  }
  if (dldb_get_info(db)->default_aggr_id != info.default_aggr_id) abort();
  if (dlv_catalog_load(db, &cat, err, sizeof err) != DL_OK) {
    fuzz_one_line(err);
    goto out;
  }
  fuzz_query_views(db, cat, &info, size);
  if (size % 4 == 0) { /* the viewer's other threads open the file again */
    if (dldb_open_again(db, &again, err, sizeof err) != DL_OK) fuzz_one_line(err);
    else fuzz_query_views(again, cat, &info, size / 4);
  }
out:
  dlv_catalog_free(&cat);
  dldb_close(&again);
  dldb_close(&db);
  if (owned) sqlite3_free((void *)(uintptr_t)bytes);
  return 0;
}
