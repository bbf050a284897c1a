/*
 * test_collector_nvtx - NVTX capture from a real program through
 * injection. ctest sets NVTX_INJECTION64_PATH (ENVIRONMENT property); each
 * case creates a live store, runs nvtx_test_app with
 * DLPROF_COLLECTOR_STORE pointing at it, finishes the store and checks
 * names, nesting (parent ids), threads, domains, categories, payloads.
 *
 * Usage: test_collector_nvtx NVTX_TEST_APP WORKDIR
 */
#include "ctest_util.h"
#include "dldb_write_live.h"
#include "test.h"

static const char *app, *dir;
static char db[4096];

/* Runs the app in `mode` under the collector; db receives the finished store. */
static int record(const char *mode) {
  char store[4200], err[512];
  snprintf(db, sizeof db, "%s/nvtx-%s.sqlite", dir, mode);
  snprintf(store, sizeof store, "%s.live", db);
  unlink(db);
  unlink(store);
  dldb_write_opts o = {.producer = "test_collector_nvtx"};
  if (dldb_live_create(store, &o, NULL, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  char *argv[] = {(char *)app, (char *)mode, NULL};
  const char *env[] = {"DLPROF_COLLECTOR_STORE", store, NULL};
  int ws = wait_for(spawn(argv, env, NULL), 20000);
  if (ws == -1 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
    fprintf(stderr, "%s %s: status %d\n", app, mode, ws);
    return -1;
  }
  if (dldb_live_finish(store, db, 1, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  return 0;
}

#define RANGE(name, col)                                                                 \
  "SELECT " col " FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id WHERE s.value = '" \
  name "'"

static int test_single(void) {
  ASSERT_OK(record("single"));
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges"), 5);
  ASSERT_EQ(q_int(db, RANGE("outer", "parent_id IS NULL")), 1);
  ASSERT_EQ(q_int(db, RANGE("middle", "parent_id")), q_int(db, RANGE("outer", "r.id")));
  ASSERT_EQ(q_int(db, RANGE("inner-ex", "parent_id")), q_int(db, RANGE("middle", "r.id")));
  ASSERT_EQ(q_int(db, RANGE("wide-\xc3\xa9", "parent_id")), q_int(db, RANGE("middle", "r.id")));
  ASSERT_EQ(q_int(db, RANGE("a-mark", "kind")), 3);
  ASSERT_EQ(q_int(db, RANGE("a-mark", "end_ns = start_ns")), 1);
  ASSERT_EQ(q_int(db, RANGE("inner-ex", "category")), 7);
  ASSERT_EQ(q_int(db, RANGE("inner-ex", "color")), 0xFF00FF00u);
  ASSERT_EQ(q_int(db, RANGE("inner-ex", "payload_kind")), 1);
  ASSERT_EQ(q_int(db, RANGE("inner-ex", "payload_int")), 42);
  /* nesting in time, too */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges c JOIN nvtx_ranges p ON p.id = "
                      "c.parent_id WHERE c.start_ns < p.start_ns OR c.end_ns > p.end_ns"),
            0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges WHERE end_ns < start_ns"), 0);
  ASSERT_STR_EQ(q_text(db, "SELECT s.value FROM threads t JOIN strings s ON s.id = t.name_id"),
                "main-thread");
  ASSERT_STR_EQ(q_text(db, "SELECT s.value FROM nvtx_categories c JOIN strings s ON s.id = "
                           "c.name_id WHERE c.category = 7"),
                "compute");
  return 0;
}

static int test_threads(void) {
  ASSERT_OK(record("threads"));
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges"), 400);
  ASSERT_EQ(q_int(db, "SELECT count(DISTINCT tid) FROM nvtx_ranges"), 4);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM threads t JOIN strings s ON s.id = t.name_id "
                      "WHERE s.value LIKE 'worker-%'"),
            4);
  /* every op's parent is a step of the same thread that encloses it */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges c JOIN strings cs ON cs.id = c.name_id "
                      "JOIN nvtx_ranges p ON p.id = c.parent_id JOIN strings ps ON ps.id = "
                      "p.name_id WHERE cs.value = 'op' AND ps.value = 'step' AND p.tid = c.tid "
                      "AND p.start_ns <= c.start_ns AND c.end_ns <= p.end_ns"),
            200);
  ASSERT_EQ(q_int(db, RANGE("step", "count(*)") " AND parent_id IS NULL"), 200);
  return 0;
}

static int test_domains(void) {
  ASSERT_OK(record("domains"));
  const char *by_domain =
      "SELECT group_concat(s.value, ',') FROM (SELECT r.name_id, r.domain_id FROM nvtx_ranges r "
      "ORDER BY r.start_ns) r JOIN strings s ON s.id = r.name_id JOIN domains d ON d.id = "
      "r.domain_id JOIN strings ds ON ds.id = d.name_id WHERE ds.value = ";
  char sql[1024];
  snprintf(sql, sizeof sql, "%s'dom-one'", by_domain);
  ASSERT_STR_EQ(q_text(db, sql), "registered-name,dom-mark");
  snprintf(sql, sizeof sql, "%s'dom-two'", by_domain);
  ASSERT_STR_EQ(q_text(db, sql), "two-outer,two-inner");
  snprintf(sql, sizeof sql, "%s'default-domain'", by_domain);
  ASSERT_STR_EQ(q_text(db, sql), "default-in-between");
  /* stacks are per domain: the default range has no parent in dom-one */
  ASSERT_EQ(q_int(db, RANGE("default-in-between", "parent_id IS NULL")), 1);
  ASSERT_EQ(q_int(db, RANGE("two-inner", "parent_id")), q_int(db, RANGE("two-outer", "r.id")));
  ASSERT_EQ(q_int(db, RANGE("two-outer", "category")), 3);
  ASSERT_STR_EQ(q_text(db, "SELECT s.value FROM nvtx_categories c JOIN strings s ON s.id = "
                           "c.name_id JOIN domains d ON d.id = c.domain_id JOIN strings ds ON "
                           "ds.id = d.name_id WHERE ds.value = 'dom-two' AND c.category = 3"),
                "io");
  return 0;
}

static int test_startend(void) {
  ASSERT_OK(record("startend"));
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges WHERE kind = 2"), 2);
  ASSERT_EQ(q_int(db, RANGE("cross-thread", "end_tid != tid")), 1);
  ASSERT_EQ(q_int(db, RANGE("same-thread", "end_tid = tid")), 1);
  ASSERT_EQ(q_int(db, RANGE("cross-thread", "end_ns >= start_ns")), 1);
  return 0;
}

/* Without DLPROF_COLLECTOR_STORE the collector says so once and stays off. */
static int test_no_store(void) {
  char errp[4200];
  snprintf(errp, sizeof errp, "%s/nvtx-nostore.err", dir);
  char *argv[] = {(char *)app, "single", NULL};
  const char *env[] = {"DLPROF_COLLECTOR_STORE", "", NULL};
  int ws = wait_for(spawn(argv, env, errp), 20000);
  ASSERT(ws != -1 && WIFEXITED(ws));
  ASSERT_EQ(WEXITSTATUS(ws), 0);
  const char *out = slurp(errp);
  ASSERT_CONTAINS(out, "dlprof: DLPROF_COLLECTOR_STORE is not set");
  ASSERT_NULL(strstr(strstr(out, "dlprof:") + 1, "dlprof:")); /* once */
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_collector_nvtx NVTX_TEST_APP WORKDIR\n");
    return 2;
  }
  app = argv[1];
  dir = argv[2];
  const char *inj = getenv("NVTX_INJECTION64_PATH");
  if (!inj || access(inj, R_OK) != 0) SKIP("NVTX_INJECTION64_PATH does not name the collector");
  RUN(test_single);
  RUN(test_threads);
  RUN(test_domains);
  RUN(test_startend);
  RUN(test_no_store);
  TEST_DONE();
}
