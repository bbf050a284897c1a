/*
 * fuzz_nsysscan.c - libFuzzer harness for the Nsight Systems export scan
 * (import/nsys.c through dli_nsys_import_mem): the export is an in-memory
 * SQLite database over the bytes (sqlite3_deserialize, no file), read as
 * dli_nsys_import reads a file (strings, system facts, GPUs, threads, NVTX
 * ranges and domains, CUDA calls, kernels, memcpys, memsets, syncs, OS
 * runtime calls) into a dldb writer on an in-memory database (fuzz_writer.h); no
 * aggregation. fuzz_nsys is the end-to-end harness.
 *
 * Input: the bytes of an SQLite file, or SQL text that builds one
 * (fuzz_sql.h).
 *
 * Invariants checked besides the sanitizers: an error is one non-empty
 * line; the counts of an import that succeeds are not negative.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_write.h"
#include "dli.h"
#include "fuzz_common.h"
#include "fuzz_writer.h"
#include "fuzz_sql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t n;
  int owned;
  const unsigned char *bytes = fuzz_db_bytes(data, size, &n, &owned);
  if (!bytes) return 0;
  char err[1024];
  dldb_writer *w = fuzz_writer("export.sqlite");
  dli_opts o = {.mode = size % 2 ? "simple" : "pytorch", .profile_name = "fuzz",
                .command = "fuzz"};
  dli_stats st;
  err[0] = '\0';
  int rc = dli_nsys_import_mem(bytes, n, "export.sqlite", &o, w, &st, err, sizeof err);
  if (rc != DL_OK) {
    fuzz_one_line(err);
  } else if (st.kernels < 0 || st.memcpys < 0 || st.memsets < 0 || st.syncs < 0 ||
             st.api_calls < 0 || st.ranges < 0 || st.skipped < 0 || st.truncated < 0) {
    abort();
  }
  fuzz_writer_done(rc);
  if (owned) sqlite3_free((void *)(uintptr_t)bytes);
  return 0;
}
