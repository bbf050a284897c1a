/*
 * test_collector_window - the recording window of the collector's core
 * (core.h) as dlprof sets it up: -y/--delay and -d/--duration counted from
 * the launch (DLPROF_COLLECTOR_START_NS), and the profile range
 * (DLPROF_COLLECTOR_RANGE=cudaProfilerApi) opened by cudaProfilerStart and
 * closed by cudaProfilerStop. The CUPTI callback that calls
 * dlc_core_profiler_api needs a GPU; here it is called directly.
 *
 * Usage: test_collector_window WORKDIR
 */
#include "core.h"
#include "ctest_util.h"
#include "dldb_write_live.h"
#include "test.h"

static const char *dir;

static int test_range_and_window(void) {
  char store[4200], err[512], num[64];
  snprintf(store, sizeof store, "%s/window-core.sqlite", dir);
  unlink(store);
  ASSERT_OK(dldb_live_create(store, NULL, NULL, err, sizeof err));
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t launch = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - 10000000000LL; /* 10 s ago */
  snprintf(num, sizeof num, "%lld", (long long)launch);
  setenv("DLPROF_COLLECTOR_STORE", store, 1);
  setenv("DLPROF_COLLECTOR_START_NS", num, 1);
  setenv("DLPROF_COLLECTOR_DELAY_MS", "4000", 1);
  setenv("DLPROF_COLLECTOR_DURATION_MS", "30000", 1);
  setenv("DLPROF_COLLECTOR_RANGE", "cudaProfilerApi", 1);
  ASSERT_EQ(dlc_core_init(), 1);
  ASSERT_EQ(dlc_core_range_mode(), 1);
  int64_t from, to;
  dlc_core_window(&from, &to);
  ASSERT_EQ(from, launch + 4000000000LL);
  ASSERT_EQ(to, launch + 34000000000LL);
  int64_t now = dlc_now_ns();
  /* inside the window, but no cudaProfilerStart yet */
  ASSERT_EQ(dlc_core_recording(now), 0);
  dlc_core_profiler_api(1);
  ASSERT_EQ(dlc_core_recording(now), 1);
  ASSERT_EQ(dlc_core_recording(launch + 3000000000LL), 0);  /* before the delay */
  ASSERT_EQ(dlc_core_recording(launch + 35000000000LL), 0); /* after the duration */
  dlc_core_profiler_api(0);
  ASSERT_EQ(dlc_core_recording(now), 0);
  dlc_core_profiler_api(1);
  ASSERT_EQ(dlc_core_recording(now), 1);
  dlc_core_shutdown();
  ASSERT_EQ(dlc_core_active(), 0);
  ASSERT_EQ(dlc_core_recording(now), 0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_collector_window WORKDIR\n");
    return 2;
  }
  dir = argv[1];
  RUN(test_range_and_window);
  TEST_DONE();
}
