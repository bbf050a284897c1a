/*
 * test.h - a tiny assert header for the C tests.
 *
 * Each ASSERT prints file, line, the expression and both values, then
 * returns 1 from the enclosing test function (which returns int). A test
 * program runs its tests with RUN(fn) in main() and ends with TEST_DONE(),
 * which prints "N passed, M failed" and exits non-zero on any failure.
 * SKIP(why) exits 77, which ctest reports as skipped (SKIP_RETURN_CODE 77).
 * test_copy_file(src, dst) copies a file (0 on success).
 */
#ifndef DL_TEST_H
#define DL_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test__passed, test__failed;

#define ASSERT(expr)                                                                \
  do {                                                                              \
    if (!(expr)) {                                                                  \
      fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #expr); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

#define ASSERT_EQ(a, b)                                                              \
  do {                                                                               \
    int64_t test__a = (int64_t)(a), test__b = (int64_t)(b);                          \
    if (test__a != test__b) {                                                        \
      fprintf(stderr, "%s:%d: %s == %s failed: %" PRId64 " != %" PRId64 "\n",        \
              __FILE__, __LINE__, #a, #b, test__a, test__b);                         \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

#define ASSERT_NEAR(a, b, tol)                                                       \
  do {                                                                               \
    double test__a = (double)(a), test__b = (double)(b);                             \
    if (!(test__a - test__b <= (tol) && test__b - test__a <= (tol))) {               \
      fprintf(stderr, "%s:%d: %s ~= %s failed: %.9g vs %.9g (tolerance %g)\n",       \
              __FILE__, __LINE__, #a, #b, test__a, test__b, (double)(tol));          \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

#define ASSERT_OK(expr) ASSERT_EQ((expr), 0)
#define ASSERT_NULL(p) ASSERT((p) == NULL)
#define ASSERT_NOT_NULL(p) ASSERT((p) != NULL)

#define ASSERT_STR_EQ(a, b)                                                          \
  do {                                                                               \
    const char *test__a = (a), *test__b = (b);                                       \
    if (!test__a || !test__b || strcmp(test__a, test__b) != 0) {                     \
      fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,        \
              __LINE__, #a, #b, test__a ? test__a : "(null)",                        \
              test__b ? test__b : "(null)");                                         \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

#define ASSERT_CONTAINS(hay, needle)                                                 \
  do {                                                                               \
    const char *test__h = (hay), *test__n = (needle);                                \
    if (!test__h || !strstr(test__h, test__n)) {                                     \
      fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,           \
              __LINE__, test__h ? test__h : "(null)", test__n);                      \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

#define RUN(fn)                                                                      \
  do {                                                                               \
    if ((fn)() == 0) {                                                               \
      test__passed++;                                                                \
    } else {                                                                         \
      fprintf(stderr, "FAIL %s\n", #fn);                                             \
      test__failed++;                                                                \
    }                                                                                \
  } while (0)

#define TEST_DONE()                                                                  \
  do {                                                                               \
    printf("%d passed, %d failed\n", test__passed, test__failed);                    \
    return test__failed ? 1 : 0;                                                     \
  } while (0)

#define SKIP(why)                                                                    \
  do {                                                                               \
    printf("SKIP: %s\n", (why));                                                     \
    exit(77);                                                                        \
  } while (0)

/* Copies the file src to dst: 0, or -1 when it could not be read or
 * written. */
static inline int test_copy_file(const char *src, const char *dst) {
  FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
  char buf[65536];
  size_t n;
  int bad = !in || !out;
  while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0) bad = fwrite(buf, 1, n, out) != n;
  if (in && ferror(in)) bad = 1;
  if (in) fclose(in);
  if (out && fclose(out)) bad = 1;
  return bad ? -1 : 0;
}

#endif
