/*
 * fuzz_kjson.c - libFuzzer harness for the streaming JSON tokenizer alone
 * (import/kjson.c): every token of the bytes, read through short reads so
 * that tokens straddle buffer ends, with skip and render of nested values
 * and the number helpers on every number.
 *
 * Input: the JSON bytes; byte 0 also picks the read size (4 KiB, or for a
 * quarter of inputs 1 to 64 bytes) and which nested values are skipped or
 * rendered.
 *
 * Invariants checked besides the sanitizers: the offset never decreases
 * and never passes the input's size; the depth stays in 0..KJSON_MAX_DEPTH;
 * key, string and number texts are NUL-terminated at kjson_len; an error
 * has a one-line message; the end comes at depth 0 and stays; a render
 * fits its buffer; an integer that kjson_int64 accepts prints back to a
 * number with the same value.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "kjson.h"

typedef struct mem { const uint8_t *p; size_t n, at, chunk; } mem;

static long mem_read(void *ctx, void *buf, size_t len) {
  mem *m = ctx;
  size_t k = m->n - m->at;
  if (k > len) k = len;
  if (k > m->chunk) k = m->chunk;
  memcpy(buf, m->p + m->at, k);
  m->at += k;
  return (long)k;
}

static void check_number(const char *text) {
  int64_t v, ns;
  if (kjson_int64(text, &v)) {
    char back[32];
    snprintf(back, sizeof back, "%" PRId64, v);
    int64_t again;
    if (!kjson_int64(back, &again) || again != v) abort();
  }
  (void)kjson_double(text);
  (void)kjson_us_to_ns(text, &ns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned sel = size ? data[0] : 0;
  mem m = {data, size, 0, (sel & 0xc0) ? 4096 : 1 + (sel & 0x3f)};
  kjson *j = kjson_open(mem_read, &m);
  if (!j) return 0;
  char buf[128];
  uint64_t last = 0;
  unsigned n = 0;
  for (;;) {
    kj_tok t = kjson_next(j);
    uint64_t off = kjson_offset(j);
    int depth = kjson_depth(j);
    if (off < last || off > size || depth < 0 || depth > KJSON_MAX_DEPTH) abort();
    last = off;
    if (t == KJ_ERROR) {
      const char *e = kjson_error(j);
      if (!e || !e[0] || strchr(e, '\n')) abort();
      break;
    }
    if (t == KJ_EOF) {
      if (depth != 0 || kjson_next(j) != KJ_EOF) abort();
      break;
    }
    if (t == KJ_KEY || t == KJ_STR || t == KJ_NUM) {
      if (kjson_text(j)[kjson_len(j)] != '\0' || kjson_len(j) > KJSON_MAX_STRING) abort();
      if (t == KJ_NUM) check_number(kjson_text(j));
    }
    if ((t == KJ_OBJ || t == KJ_ARR) && depth > 1 && ((++n + sel) % 3) == 0) {
      size_t cap = 1 + (n + sel) % sizeof buf;
      memset(buf, 0x5a, sizeof buf);
      t = (n & 1) ? kjson_skip(j, t) : kjson_render(j, t, buf, cap);
      if (!(n & 1) && cap >= 8 && t != KJ_ERROR && !memchr(buf, 0, cap)) abort();
      if (t == KJ_ERROR) break;
    }
  }
  (void)kjson_repairs(j);
  kjson_free(&j);
  if (j) abort();
  return 0;
}
