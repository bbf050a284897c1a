/*
 * test_hugepages.c - cli/hugepages.c: when dlprof sets glibc's huge-page
 * tunable for itself and executes itself again, and the environment a
 * program it starts gets back.
 */
#include <stdlib.h>
#include <string.h>

#include "hugepages.h"
#include "test.h"

static const char *const MADVISE = "always [madvise] never\n";

static int test_plan(void) {
  char out[256];
  ASSERT_EQ(dlprof_hugepages_plan(NULL, NULL, NULL, MADVISE, out, sizeof out), 1);
  ASSERT_STR_EQ(out, "glibc.malloc.hugetlb=1");
  /* the user's tunables kept, the new one after them */
  ASSERT_EQ(dlprof_hugepages_plan("glibc.malloc.check=3", NULL, NULL, MADVISE, out, sizeof out), 1);
  ASSERT_STR_EQ(out, "glibc.malloc.check=3:glibc.malloc.hugetlb=1");
  ASSERT_EQ(dlprof_hugepages_plan("", "libfoo.so", "1", MADVISE, out, sizeof out), 1);
  ASSERT_STR_EQ(out, "glibc.malloc.hugetlb=1");
  /* nothing to do: set already (by dlprof's first start, or the user) */
  ASSERT_EQ(dlprof_hugepages_plan("glibc.malloc.hugetlb=0", NULL, NULL, MADVISE, out, sizeof out), 0);
  ASSERT_EQ(dlprof_hugepages_plan("a=1:glibc.malloc.hugetlb=1", NULL, NULL, MADVISE, out,
                                  sizeof out), 0);
  /* huge pages always, never, or the mode unknown */
  ASSERT_EQ(dlprof_hugepages_plan(NULL, NULL, NULL, "[always] madvise never\n", out, sizeof out), 0);
  ASSERT_EQ(dlprof_hugepages_plan(NULL, NULL, NULL, "always madvise [never]\n", out, sizeof out), 0);
  ASSERT_EQ(dlprof_hugepages_plan(NULL, NULL, NULL, NULL, out, sizeof out), 0);
  /* valgrind's preloads, the opt-out, no room */
  ASSERT_EQ(dlprof_hugepages_plan(NULL, "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so",
                                  NULL, MADVISE, out, sizeof out), 0);
  ASSERT_EQ(dlprof_hugepages_plan(NULL, NULL, "0", MADVISE, out, sizeof out), 0);
  ASSERT_EQ(dlprof_hugepages_plan(NULL, NULL, NULL, MADVISE, out, 8), 0);
  return 0;
}

/* What a started program gets: GLIBC_TUNABLES as it was, set or not. */
static int test_restore(void) {
  setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
  setenv("DLPROF_GLIBC_TUNABLES", "-", 1);
  dlprof_hugepages_restore_env();
  ASSERT(getenv("GLIBC_TUNABLES") == NULL);
  ASSERT(getenv("DLPROF_GLIBC_TUNABLES") == NULL);
  setenv("GLIBC_TUNABLES", "glibc.malloc.check=3:glibc.malloc.hugetlb=1", 1);
  setenv("DLPROF_GLIBC_TUNABLES", "+glibc.malloc.check=3", 1);
  dlprof_hugepages_restore_env();
  ASSERT_STR_EQ(getenv("GLIBC_TUNABLES"), "glibc.malloc.check=3");
  ASSERT(getenv("DLPROF_GLIBC_TUNABLES") == NULL);
  /* not set by dlprof: left alone */
  dlprof_hugepages_restore_env();
  ASSERT_STR_EQ(getenv("GLIBC_TUNABLES"), "glibc.malloc.check=3");
  unsetenv("GLIBC_TUNABLES");
  return 0;
}

int main(void) {
  RUN(test_plan);
  RUN(test_restore);
  TEST_DONE();
}
