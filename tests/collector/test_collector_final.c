/*
 * test_collector_final - what the CUPTI part hands over in the final flush
 * at exit reaches the profile: dlc_core_shutdown runs the writer's final
 * round, whose before_final hook (CUPTI's forced flush, here a stand-in
 * that submits one batch through dlc_core_writer() as the buffer callback
 * does) still finds the writer. A Python application's CUPTI buffers come
 * back only in that flush, so losing it loses every kernel.
 *
 * Usage: test_collector_final WORKDIR
 */
#include "core.h"
#include "ctest_util.h"
#include "dldb_write_live.h"
#include "test.h"

static const char *dir;
static int submitted;

static void final_flush(void) {
  dlc_writer *w = dlc_core_writer();
  if (!w) return;
  dlc_batch *b = dlc_batch_new(4);
  if (!b) return;
  b->recs[b->n++] = (dlc_record){.kind = DLC_API,
                                 .u.api = {.name = "cudaLaunchKernel", .start_ns = 10,
                                           .end_ns = 20, .tid = 1, .correlation_id = 7}};
  submitted = dlc_writer_submit(w, b) == DL_OK;
}

static int test_final_flush_reaches_the_store(void) {
  char store[4200], err[512];
  snprintf(store, sizeof store, "%s/final-core.sqlite", dir);
  unlink(store);
  ASSERT_OK(dldb_live_create(store, NULL, NULL, err, sizeof err));
  setenv("DLPROF_COLLECTOR_STORE", store, 1);
  ASSERT_EQ(dlc_core_init(), 1);
  dlc_core_set_cupti_final(final_flush);
  dlc_core_shutdown();
  ASSERT_EQ(submitted, 1);
  ASSERT_EQ(q_int(store, "SELECT count(*) FROM cuda_api_calls WHERE correlation_id = 7"), 1);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_collector_final WORKDIR\n");
    return 2;
  }
  dir = argv[1];
  RUN(test_final_flush_reaches_the_store);
  TEST_DONE();
}
