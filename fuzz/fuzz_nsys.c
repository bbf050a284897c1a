/*
 * fuzz_nsys.c - libFuzzer harness for the Nsight Systems importer: the
 * bytes are an SQLite file (written to a file on tmpfs), imported with
 * dli_nsys_import (import/nsys.c) into a dldb writer and, when that
 * succeeds, aggregated (analysis/) as `dlprof --database=export.sqlite`
 * does. The writer is always aborted.
 *
 * Invariants checked besides the sanitizers: an error is one non-empty line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dla.h"
#include "dldb_write.h"
#include "dli.h"
#include "fuzz_common.h"

static void one_line(const char *err) {
  if (!err[0] || strchr(err, '\n')) {
    fprintf(stderr, "error message is not one line: [%s]\n", err);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[512], out[512], err[1024];
  if (fuzz_file(data, size, "export.sqlite", path, sizeof path) != 0) return 0;
  dli_kind kind = DLI_UNKNOWN;
  err[0] = '\0';
  if (dli_detect(path, &kind, err, sizeof err) != DL_OK) one_line(err);
  snprintf(out, sizeof out, "%s/nsys_dldb.sqlite", fuzz_tmpdir());
  dldb_write_opts wo = {.force = 1, .producer = "fuzz", .source = path};
  dli_opts io = {.mode = "pytorch", .profile_name = "fuzz", .command = "fuzz"};
  dli_stats st;
  dldb_writer *w = NULL;
  /* The writer (a new dldb: its schema) costs most of a run; an input that
   * is not SQLite fails before the importer touches it, so it gets none. */
  int sqlite = size >= 100 && memcmp(data, "SQLite format 3", 16) == 0;
  if (sqlite && dldb_writer_create(out, &wo, &w, err, sizeof err) != DL_OK) abort();
  err[0] = '\0';
  if (dli_nsys_import(path, &io, w, &st, err, sizeof err) != DL_OK) {
    one_line(err);
  } else if (!w) {
    abort(); /* imported something that is not SQLite */
  } else {
    dla_opts ao;
    int64_t aggr = -1;
    dla_opts_init(&ao);
    ao.mode = size % 2 ? "simple" : "pytorch";
    ao.aggr_start = "2024-01-01 00:00:00";
    ao.user_name = ao.host_name = "fuzz";
    err[0] = '\0';
    if (dla_aggregate(w, &ao, &aggr, err, sizeof err) != DL_OK) one_line(err);
  }
  dldb_writer_abort(&w);
  fuzz_unlink(path);
  return 0;
}
