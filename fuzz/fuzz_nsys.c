/*
 * fuzz_nsys.c - libFuzzer harness for the pipeline on an Nsight Systems
 * export: the bytes are a file (on tmpfs) that goes through the pipeline
 * (pipeline/dlp.h) as `dlprof --database=export.sqlite` takes it: detected,
 * imported (import/nsys.c, or whatever else the bytes turn out to be),
 * aggregated (analysis/) and committed into a dldb, which is then removed.
 *
 * Invariants checked besides the sanitizers: an error is one non-empty line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dlp.h"
#include "fuzz_common.h"

static void one_line(const char *err) {
  if (!err[0] || strchr(err, '\n')) {
    fprintf(stderr, "error message is not one line: [%s]\n", err);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static dlp_pipeline *p; /* one for the whole run (half a MB) */
  char path[512], err[1024];
  if (!p && dlp_new(&p, err, sizeof err) != DL_OK) abort();
  if (fuzz_file(data, size, "export.sqlite", path, sizeof path) != 0) return 0;
  dlp_opts o;
  dlp_opts_init(&o);
  o.input = path;
  o.output_path = fuzz_tmpdir();
  o.profile_name = "nsys";
  o.command = "fuzz";
  o.mode = size % 2 ? "simple" : "pytorch";
  o.force = 1;
  o.reports = 0;
  o.aggr_start = "2024-01-01 00:00:00";
  o.user_name = o.host_name = "fuzz";
  err[0] = '\0';
  if (dlp_run(p, &o, err, sizeof err) != DL_OK) one_line(err);
  else fuzz_unlink(dlp_dldb_path(p));
  fuzz_unlink(path);
  return 0;
}
