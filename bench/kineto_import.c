/*
 * kineto_import - bench helper: imports a Kineto trace into a new dldb
 * without the analysis (dli_kineto_import only), so its peak RSS shows the
 * parser's own memory. Usage: kineto_import TRACE OUT.sqlite
 * Built by bench/kineto_import.sh against a release build's libraries.
 */
#include <stdio.h>
#include <unistd.h>

#include "dli_kineto.h"

int main(int argc, char **argv) {
  char err[1024];
  int64_t origin = 0;
  dldb_writer *w = NULL;
  dli_kineto_stats st;
  if (argc != 3) {
    fprintf(stderr, "usage: kineto_import TRACE OUT.sqlite\n");
    return 2;
  }
  unlink(argv[2]);
  dldb_write_opts wo = {.force = 1, .producer = "kineto_import bench", .source = argv[1]};
  if (dli_kineto_origin(argv[1], &origin, err, sizeof err) != DL_OK) goto fail;
  wo.time_origin_ns = origin;
  if (dldb_writer_create(argv[2], &wo, &w, err, sizeof err) != DL_OK ||
      dli_kineto_import(argv[1], NULL, w, &st, err, sizeof err) != DL_OK ||
      dldb_writer_commit(&w, err, sizeof err) != DL_OK)
    goto fail;
  printf("events %lld ranges %lld api %lld kernels %lld\n", (long long)st.events,
         (long long)st.ranges, (long long)st.api_calls, (long long)st.kernels);
  return 0;
fail:
  dldb_writer_abort(&w);
  fprintf(stderr, "kineto_import: %s\n", err);
  return 1;
}
