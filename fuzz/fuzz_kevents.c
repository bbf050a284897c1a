/*
 * fuzz_kevents.c - libFuzzer harness for the Kineto importer's decoding
 * (import/kineto.c through dli_kineto_import_mem): the top-level members
 * (devices, distributedInfo, versions, metadata), every event of
 * traceEvents decoded into a record, the record encoded and decoded as the
 * importer's second thread gets it, and written (ranges, CUDA calls,
 * kernels with their launch facts, memcpys, memsets, threads, call stacks)
 * into a dldb writer on an in-memory database (fuzz_writer.h); no file, no thread, no
 * aggregation. fuzz_kineto is the end-to-end harness.
 *
 * Input: plain JSON bytes (dictionary fuzz/kineto.dict).
 *
 * Invariants checked besides the sanitizers: an error is one non-empty
 * line; an import that succeeds wrote at most one record per complete
 * ('X') event and has notes that are one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_write.h"
#include "dli_kineto.h"
#include "fuzz_common.h"
#include "fuzz_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[1024];
  dldb_writer *w = fuzz_writer("trace.json");
  dli_opts o = {.mode = "pytorch", .profile_name = "fuzz", .command = "fuzz"};
  dli_kineto_stats st;
  err[0] = '\0';
  int rc = dli_kineto_import_mem(data, size, "trace.json", &o, w, &st, err, sizeof err);
  if (rc != DL_OK) {
    fuzz_one_line(err);
  } else {
    int64_t records = st.ranges + st.api_calls + st.kernels + st.memcpys + st.memsets;
    if (records > st.events || strchr(st.notes, '\n')) abort();
  }
  fuzz_writer_done(rc);
  return 0;
}
