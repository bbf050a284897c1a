/*
 * test_collector_dlprof - `dlprof APP` end to end on a machine without a
 * GPU: every NVTX range of nvtx_test_app lands in the dldb (names, nesting,
 * threads, domains), the GPU message is printed, the app's exit code comes
 * back, and the profile goes through the analysis (an aggregation exists).
 * Then the app is killed midway: SIGKILL keeps what was committed, SIGTERM
 * and SIGINT flush everything (the open range too).
 *
 * Usage: test_collector_dlprof DLPROF NVTX_TEST_APP WORKDIR
 */
#include "ctest_util.h"
#include "test.h"

static const char *dlprof, *app, *dir;

static int run_dlprof(const char *name, char *const extra[], const char *errp, int *status) {
  char out[4200], nameopt[256], db[4300];
  snprintf(out, sizeof out, "--output_path=%s", dir);
  snprintf(nameopt, sizeof nameopt, "--profile_name=%s", name);
  snprintf(db, sizeof db, "%s/%s_dldb.sqlite", dir, name);
  unlink(db);
  char *argv[16] = {(char *)dlprof, out, nameopt, "--force=true", "--mode=simple"};
  int n = 5;
  for (int i = 0; extra[i] && n < 15; i++) argv[n++] = extra[i];
  argv[n] = NULL;
  int ws = wait_for(spawn(argv, NULL, errp), 60000);
  if (ws == -1 || !WIFEXITED(ws)) return -1;
  *status = WEXITSTATUS(ws);
  return 0;
}

static int test_nvtx_app(void) {
  char errp[4200], db[4300];
  int status = -1;
  snprintf(errp, sizeof errp, "%s/e2e.err", dir);
  snprintf(db, sizeof db, "%s/e2e_dldb.sqlite", dir);
  char *extra[] = {(char *)app, "all", "3", NULL};
  ASSERT_OK(run_dlprof("e2e", extra, errp, &status));
  const char *err = slurp(errp);
  ASSERT_EQ(status, 3); /* the application's exit code */
  ASSERT_CONTAINS(err, "dlprof: no GPU activity was recorded");
  ASSERT(strstr(err, "dlprof: collector:") == NULL); /* only at --verbosity=diagnostic */
  /* single 5 + threads 400 + domains 5 + startend 2 */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges"), 412);
  ASSERT_EQ(q_int(db, "SELECT count(DISTINCT tid) FROM nvtx_ranges"), 5); /* main + 4 workers */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges WHERE end_tid != tid"), 1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM domains d JOIN strings s ON s.id = d.name_id "
                      "WHERE s.value IN ('dom-one', 'dom-two', 'default-domain')"),
            3);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges c JOIN nvtx_ranges p ON p.id = "
                      "c.parent_id"),
            204); /* middle, inner-ex, wide, 200 ops, two-inner */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges c JOIN strings s ON s.id = c.name_id "
                      "JOIN nvtx_ranges p ON p.id = c.parent_id JOIN strings ps ON ps.id = "
                      "p.name_id WHERE s.value = 'op' AND ps.value = 'step'"),
            200);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM threads t JOIN strings s ON s.id = t.name_id "
                      "WHERE s.value IN ('main-thread', 'worker-0', 'worker-3')"),
            3);
  /* the same analysis as --database: an aggregation, the views answer */
  ASSERT(q_int(db, "SELECT count(*) FROM aggregations") >= 1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_aggregations") >= 1, 1);
  return 0;
}

/* --verbosity=diagnostic: the collector says what it does. */
static int test_diagnostic(void) {
  char errp[4200];
  int status = -1;
  snprintf(errp, sizeof errp, "%s/diag.err", dir);
  char *extra[] = {"--verbosity=diagnostic", (char *)app, "single", NULL};
  ASSERT_OK(run_dlprof("diag", extra, errp, &status));
  ASSERT_EQ(status, 0);
  ASSERT_CONTAINS(slurp(errp), "dlprof: collector: process ");
  return 0;
}

static int64_t count_named(const char *db, const char *name) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id "
           "WHERE s.value = '%s'",
           name);
  return q_int(db, sql);
}

/* -y/--delay and -d/--duration: ranges before the delay and after the end
 * of the duration are not recorded (counted from the launch). The app's
 * ranges come at about 0, 2.9 and 5 s after its start; windows of 2 s
 * leave ~1 s for a slow start (sanitizers, a loaded machine). */
static int test_delay_duration(void) {
  char errp[4200], db[4300];
  int status = -1;
  snprintf(errp, sizeof errp, "%s/window.err", dir);
  snprintf(db, sizeof db, "%s/window_dldb.sqlite", dir);
  char *extra[] = {"-y", "2", "--duration=2", (char *)app, "timed", NULL};
  ASSERT_OK(run_dlprof("window", extra, errp, &status));
  ASSERT_EQ(status, 0);
  ASSERT_EQ(count_named(db, "before"), 0);
  ASSERT_EQ(count_named(db, "inside"), 5);
  ASSERT_EQ(count_named(db, "after"), 0);
  /* only a delay: everything after it */
  snprintf(db, sizeof db, "%s/delayed_dldb.sqlite", dir);
  char *extra2[] = {"--delay", "2", (char *)app, "timed", NULL};
  ASSERT_OK(run_dlprof("delayed", extra2, errp, &status));
  ASSERT_EQ(status, 0);
  ASSERT_EQ(count_named(db, "before"), 0);
  ASSERT_EQ(count_named(db, "inside"), 5);
  ASSERT_EQ(count_named(db, "after"), 7);
  /* only a duration: everything before its end */
  snprintf(db, sizeof db, "%s/short_dldb.sqlite", dir);
  char *extra3[] = {"-d2", (char *)app, "timed", NULL};
  ASSERT_OK(run_dlprof("short", extra3, errp, &status));
  ASSERT_EQ(status, 0);
  ASSERT_EQ(count_named(db, "before"), 3);
  ASSERT_EQ(count_named(db, "inside"), 0);
  ASSERT_EQ(count_named(db, "after"), 0);
  /* bad values are refused before anything runs */
  char *bad[] = {"--delay=-3", (char *)app, "timed", NULL};
  ASSERT_OK(run_dlprof("bad", bad, errp, &status));
  ASSERT_EQ(status, 1);
  ASSERT_CONTAINS(slurp(errp), "--delay: expected a number of seconds");
  return 0;
}

/* --nsys_profile_range=true: only between cudaProfilerStart and Stop. An
 * NVTX-only application never calls them: nothing is recorded, dlprof says
 * why, writes no dldb and exits with the application's status. (The window
 * logic itself: test_collector_window.) */
static int test_profile_range(void) {
  char errp[4200], db[4300];
  int status = -1;
  snprintf(errp, sizeof errp, "%s/range.err", dir);
  snprintf(db, sizeof db, "%s/range_dldb.sqlite", dir);
  char *extra[] = {"--nsys_profile_range=true", (char *)app, "single", NULL};
  ASSERT_OK(run_dlprof("range", extra, errp, &status));
  ASSERT_EQ(status, 0);
  ASSERT_CONTAINS(slurp(errp), "cudaProfilerStart");
  ASSERT_CONTAINS(slurp(errp), "no dldb was written");
  ASSERT(access(db, F_OK) != 0);
  return 0;
}

/* Starts dlprof on `nvtx_test_app hang READY n`, waits for READY, lets
 * settle_ms pass, sends sig to the application (dlprof's child). */
static int kill_midway(const char *name, int sig, int settle_ms, int *status) {
  char errp[4200], ready[4200], out[4200], nameopt[256], db[4300], pidcmd[4400];
  snprintf(errp, sizeof errp, "%s/%s.err", dir, name);
  snprintf(ready, sizeof ready, "%s/%s.ready", dir, name);
  snprintf(out, sizeof out, "--output_path=%s", dir);
  snprintf(nameopt, sizeof nameopt, "--profile_name=%s", name);
  snprintf(db, sizeof db, "%s/%s_dldb.sqlite", dir, name);
  unlink(ready);
  unlink(db);
  char *argv[] = {(char *)dlprof, out, nameopt, "--force=true", "--mode=simple",
                  (char *)app, "hang", ready, "100", NULL};
  pid_t dl = spawn(argv, NULL, errp);
  if (wait_file(ready, 20000)) return -1;
  struct timespec ts = {settle_ms / 1000, (settle_ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
  /* the application is dlprof's only child */
  snprintf(pidcmd, sizeof pidcmd, "/proc/%d/task/%d/children", (int)dl, (int)dl);
  int child = atoi(slurp(pidcmd));
  if (child <= 0 || kill(child, sig) != 0) return -1;
  int ws = wait_for(dl, 60000);
  if (ws == -1 || !WIFEXITED(ws)) return -1;
  *status = WEXITSTATUS(ws);
  return 0;
}

static int test_sigkill(void) {
  char db[4300];
  int status = -1;
  snprintf(db, sizeof db, "%s/killed_dldb.sqlite", dir);
  ASSERT_OK(kill_midway("killed", SIGKILL, 1000, &status));
  ASSERT_EQ(status, 128 + SIGKILL);
  /* committed before the kill (every 200 ms): the 100 done ranges; the
   * open range died with the process */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges"), 100);
  return 0;
}

static int test_sigterm(void) {
  char db[4300];
  int status = -1;
  snprintf(db, sizeof db, "%s/termed_dldb.sqlite", dir);
  ASSERT_OK(kill_midway("termed", SIGTERM, 0, &status));
  ASSERT_EQ(status, 128 + SIGTERM);
  /* everything, at once: the 100 done ranges and the open one, closed */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges"), 101);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id "
                      "WHERE s.value = 'open-range' AND end_ns >= start_ns"),
            1);
  return 0;
}

static int test_sigint(void) {
  char db[4300];
  int status = -1;
  snprintf(db, sizeof db, "%s/inted_dldb.sqlite", dir);
  ASSERT_OK(kill_midway("inted", SIGINT, 0, &status));
  ASSERT_EQ(status, 128 + SIGINT);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges"), 101);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_collector_dlprof DLPROF NVTX_TEST_APP WORKDIR\n");
    return 2;
  }
  dlprof = argv[1];
  app = argv[2];
  dir = argv[3];
  RUN(test_nvtx_app);
  RUN(test_diagnostic);
  RUN(test_delay_duration);
  RUN(test_profile_range);
  RUN(test_sigkill);
  RUN(test_sigterm);
  RUN(test_sigint);
  TEST_DONE();
}
