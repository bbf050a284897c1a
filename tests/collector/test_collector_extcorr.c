/*
 * test_collector_extcorr - exact op attribution: hand-built collector
 * records (NVTX ranges, runtime-API calls, kernels and CUPTI external
 * correlation records linking calls to range ids) go through the
 * collector's writer into a live store; the analysis then attributes each
 * call, and its kernel, to the range its link names, over the time-based
 * guess (here made wrong on purpose: the call's timestamp is skewed into
 * the previous range). Without links, or with links that name another
 * thread or a range of another domain, the time-based attribution stays.
 *
 * Usage: test_collector_extcorr WORKDIR
 */
#include "ctest_util.h"
#include "dla.h"
#include "dldb_write.h"
#include "dldb_write_live.h"
#include "test.h"
#include "writer.h"

static const char *dir;

enum { PID = 100, TID = 7 };

static int put(dlc_writer *w, dlc_record r) { return dlc_writer_put(w, &r); }

static int range(dlc_writer *w, uint64_t id, const char *domain, const char *name, int64_t t0,
                 int64_t t1) {
  if (put(w, (dlc_record){.kind = DLC_NVTX_BEGIN,
                          .u.begin = {.range_kind = DLC_RANGE_PUSHPOP, .id = id,
                                      .domain = domain, .name = name, .t_ns = t0, .tid = TID}}))
    return -1;
  return put(w, (dlc_record){.kind = DLC_NVTX_END, .u.end = {.id = id, .t_ns = t1, .tid = TID}});
}

/* A launch at api_start (corr) on thread TID with its kernel, and its link
 * to the range ext_id (0: none). */
static int launch(dlc_writer *w, int64_t corr, int64_t api_start, uint64_t ext_id) {
  if (ext_id &&
      put(w, (dlc_record){.kind = DLC_EXTCORR,
                          .u.extcorr = {.external_kind = 3, .external_id = (int64_t)ext_id,
                                        .correlation_id = corr}}))
    return -1;
  if (put(w, (dlc_record){.kind = DLC_API,
                          .u.api = {.name = "cudaLaunchKernel_v7000", .start_ns = api_start,
                                    .end_ns = api_start + 5, .pid = PID, .tid = TID,
                                    .correlation_id = corr}}))
    return -1;
  return put(w, (dlc_record){.kind = DLC_KERNEL,
                             .u.kernel = {.name = "volta_sgemm_128x64_nn",
                                          .start_ns = 10000 + corr * 100,
                                          .end_ns = 10000 + corr * 100 + 50,
                                          .correlation_id = corr, .grid = {1, 1, 1},
                                          .block = {128, 1, 1}}});
}

/* Builds a store: ranges opA [1000, 2000] and opB [2000, 3000] (default
 * domain), other [2000, 3000] in domain "other"; calls 1 (at 1990, in opA
 * by its time) and 2 (at 2500) and 3 (at 1500). links: 0 none; 1 call 1 ->
 * opB; 2 call 1 -> the "other" range; 3 call 1 -> a range id that does not
 * exist, and call 1 -> opB with an external kind that is not the
 * collector's. With links, call 3 -> opA (agreeing with its time).
 * Aggregates it and returns the kernel calls of opA and opB. */
static int build(const char *name, int links, int64_t *a_calls, int64_t *b_calls) {
  char store[4200], err[512];
  snprintf(store, sizeof store, "%s/%s.sqlite", dir, name);
  unlink(store);
  dldb_write_opts wo = {.producer = "test_collector_extcorr"};
  dldb_sysconfig sc = {.num_gpus = 1, .mode_string = "simple"};
  if (dldb_live_create(store, &wo, &sc, err, sizeof err)) return fprintf(stderr, "%s\n", err), -1;
  dlc_writer *w = NULL;
  uint64_t first = 0;
  dlc_writer_opts o = {.pid = PID};
  if (dlc_writer_open(store, &o, &w, &first, err, sizeof err))
    return fprintf(stderr, "%s\n", err), -1;
  uint64_t a = first, b = first + 1, other = first + 2;
  uint64_t link1 = links == 1 || links == 3 ? b : links == 2 ? other : 0;
  int rc = range(w, a, NULL, "opA", 1000, 2000) || range(w, b, NULL, "opB", 2000, 3000) ||
           range(w, other, "other", "other-range", 2000, 3000) ||
           launch(w, 1, 1990, links == 3 ? 0 : link1) || launch(w, 2, 2500, 0) ||
           launch(w, 3, 1500, links ? a : 0);
  if (!rc && links == 3) /* a link naming a range id that does not exist */
    rc = put(w, (dlc_record){.kind = DLC_EXTCORR,
                             .u.extcorr = {.external_kind = 3, .external_id = 999999,
                                           .correlation_id = 1}});
  if (!rc && links == 3) {
    /* opB's id, but under CUSTOM1 (another tool's ids): ignored */
    rc = put(w, (dlc_record){.kind = DLC_EXTCORR,
                             .u.extcorr = {.external_kind = 4, .external_id = (int64_t)b,
                                           .correlation_id = 1}});
  }
  dlc_writer_put(w, &(dlc_record){.kind = DLC_DEVICE, .u.device = {.id = 0, .name = "GPU"}});
  if (dlc_writer_close(&w, 0, NULL, err, sizeof err) || rc)
    return fprintf(stderr, "writer: %s\n", err), -1;
  dldb_writer *dw = NULL;
  dla_opts ao;
  dla_opts_init(&ao);
  ao.mode = "simple";
  if (dldb_writer_open_existing(store, &dw, err, sizeof err) ||
      dla_aggregate(dw, &ao, NULL, err, sizeof err) || dldb_writer_commit(&dw, err, sizeof err)) {
    dldb_writer_abort(&dw);
    return fprintf(stderr, "analysis: %s\n", err), -1;
  }
  *a_calls = q_int(store, "SELECT kernel_calls FROM view_op_nodes WHERE op_node_name = 'opA'");
  *b_calls = q_int(store, "SELECT kernel_calls FROM view_op_nodes WHERE op_node_name = 'opB'");
  return 0;
}

static int test_time_based_without_links(void) {
  int64_t a = -1, b = -1;
  ASSERT_OK(build("extcorr-none", 0, &a, &b));
  ASSERT_EQ(a, 2); /* calls 1 (skewed into opA) and 3 */
  ASSERT_EQ(b, 1);
  return 0;
}

static int test_link_wins(void) {
  int64_t a = -1, b = -1;
  ASSERT_OK(build("extcorr-linked", 1, &a, &b));
  ASSERT_EQ(a, 1); /* call 3 */
  ASSERT_EQ(b, 2); /* calls 1 (by its link) and 2 (by its time) */
  return 0;
}

static int test_link_to_other_domain_ignored(void) {
  int64_t a = -1, b = -1;
  ASSERT_OK(build("extcorr-domain", 2, &a, &b));
  ASSERT_EQ(a, 2); /* the link names a range the default-domain analysis does not see */
  ASSERT_EQ(b, 1);
  return 0;
}

static int test_foreign_links_ignored(void) {
  int64_t a = -1, b = -1;
  ASSERT_OK(build("extcorr-foreign", 3, &a, &b));
  ASSERT_EQ(a, 2); /* an unknown range id, and a kind other than the collector's */
  ASSERT_EQ(b, 1);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_collector_extcorr WORKDIR\n");
    return 2;
  }
  dir = argv[1];
  RUN(test_time_based_without_links);
  RUN(test_link_wins);
  RUN(test_link_to_other_domain_ignored);
  RUN(test_foreign_links_ignored);
  TEST_DONE();
}
