/*
 * test_dl_csv.c - the CSV field encoder (common/dl_csv.h) byte for byte:
 * bare fields, fields quoted because they hold , " CR or LF or because the
 * caller asks, inner quotes doubled, and the formula guard inside the
 * quotes, only when asked for and not on plain numbers.
 */
#include <stdio.h>
#include <string.h>

#include "dl_csv.h"
#include "test.h"

typedef struct out {
  char buf[256];
  size_t len;
  int calls;
} out;

static void put(void *ctx, const char *s, size_t n) {
  out *o = ctx;
  if (o->len + n < sizeof o->buf) {
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
  }
  o->calls++;
}

static const char *enc(out *o, const char *s, int quote, int guard) {
  o->len = 0;
  o->buf[0] = '\0';
  dl_csv_field(put, o, s, quote, guard);
  return o->buf;
}

static int test_fields(void) {
  out o = {{0}, 0, 0};
  ASSERT_STR_EQ(enc(&o, "", 0, 0), "");
  ASSERT_STR_EQ(enc(&o, "", 1, 0), "\"\"");
  ASSERT_STR_EQ(enc(&o, "plain text", 0, 1), "plain text");
  ASSERT_STR_EQ(enc(&o, "plain", 1, 1), "\"plain\"");
  ASSERT_STR_EQ(enc(&o, "a,b", 0, 0), "\"a,b\"");
  ASSERT_STR_EQ(enc(&o, "a\rb", 0, 0), "\"a\rb\"");
  ASSERT_STR_EQ(enc(&o, "a\nb", 0, 0), "\"a\nb\"");
  ASSERT_STR_EQ(enc(&o, "say \"hi\"", 0, 0), "\"say \"\"hi\"\"\"");
  ASSERT_STR_EQ(enc(&o, "\"", 0, 0), "\"\"\"\"");
  ASSERT_STR_EQ(enc(&o, "\"\"x\"", 1, 0), "\"\"\"\"\"x\"\"\"");
  /* the guard: formula-like text only, inside the quotes */
  ASSERT_STR_EQ(enc(&o, "=SUM(A1)", 0, 1), "'=SUM(A1)");
  ASSERT_STR_EQ(enc(&o, "=SUM(A1)", 0, 0), "=SUM(A1)");
  ASSERT_STR_EQ(enc(&o, "=A1,B1", 0, 1), "\"'=A1,B1\"");
  ASSERT_STR_EQ(enc(&o, "@x", 1, 1), "\"'@x\"");
  ASSERT_STR_EQ(enc(&o, "-1.5", 0, 1), "-1.5");
  ASSERT_STR_EQ(enc(&o, "-", 0, 1), "-");
  ASSERT_STR_EQ(enc(&o, "-1+2", 0, 1), "'-1+2");
  ASSERT_STR_EQ(enc(&o, "\t\"q\"", 0, 1), "\"'\t\"\"q\"\"\"");
  return 0;
}

int main(void) {
  RUN(test_fields);
  TEST_DONE();
}
