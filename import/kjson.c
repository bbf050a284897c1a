/* kjson.c - a streaming JSON tokenizer (see kjson.h).
 *
 * The bytes of a string up to its first quote, backslash, control or
 * non-ASCII byte are found by a vector scan (AVX2 or SSE2 where the CPU has
 * it, chosen once per tokenizer, else a table); a plain string that ends
 * inside the read buffer is returned in place (its closing quote becomes
 * the NUL), every other token text is copied into the token buffer. The
 * blanks between tokens and the bytes of a number are classified 16 at a
 * time (SSE2) where the buffer holds them; an array of integers written as
 * kjson_render writes it is rendered by a copy of its bytes.
 *
 * kjson_next has two paths: a token with KJ_FAST bytes after it in the
 * buffer (nearly all) and of a common kind (a plain string, a number of
 * digits and dots, a brace or bracket in its place) is read inline,
 * without refills or end-of-input checks; every other token, the buffer's
 * end, the input's end and every error go to next_token, which checks
 * everything. Both give the same tokens (test_kineto:
 * test_tokenizer_paths). */
#include "kjson.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KJ_SIMD 1
#endif

#define KJ_BUF (256u << 10)
#define KJ_LOOKAHEAD 64

/* Returns the first byte in [p, e) that is not plain string text (see
 * plain_byte), or e. */
typedef const unsigned char *(*kj_scan_fn)(const unsigned char *p, const unsigned char *e);

struct kjson {
  kjson_read_fn rd;
  void *ctx;
  unsigned char *buf;
  size_t pos, len;
  int eof;
  uint64_t base;      /* input offset of buf[0] */
  kj_scan_fn scan;    /* the string scanner this CPU runs best */
  const char *txt;    /* the token's text: tb, or a string in place in buf */
  char *tb;           /* copied token text */
  size_t tlen, tcap;
  int nul;            /* tb may hold a NUL before its end: set by the string that put it there */
  unsigned char stack[KJSON_MAX_DEPTH]; /* 'o' object, 'a' array */
  int depth;
  unsigned char top;  /* stack[depth - 1], 0 at depth 0 */
  int expect_key;     /* a member name comes next (only ever set inside an object) */
  int done;           /* the top-level value is complete */
  int stop;           /* done, or an error: kjson_next takes the checking path */
  int simd;           /* blanks and numbers classified 16 bytes at a time */
  uint64_t repairs;
  char errmsg[200];
};

/* Byte classes: 1 plain string text (printable ASCII other than '"' and
 * '\\'), 2 part of a number or bare word, 4 a blank or separator, 8 what
 * may follow a string's closing quote (, : } ]). */
static const unsigned char cls[256] = {
    ['\t'] = 4, ['\n'] = 4, ['\r'] = 4, [' '] = 5, ['!'] = 1, ['#'] = 1, ['$'] = 1,
    ['%'] = 1, ['&'] = 1, ['\''] = 1, ['('] = 1, [')'] = 1, ['*'] = 1, ['+'] = 3,
    [','] = 13, ['-'] = 3, ['.'] = 3, ['/'] = 1, ['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3,
    ['4'] = 3, ['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3, [':'] = 13, [';'] = 1,
    ['<'] = 1, ['='] = 1, ['>'] = 1, ['?'] = 1, ['@'] = 1, ['A'] = 3, ['B'] = 3, ['C'] = 3,
    ['D'] = 3, ['E'] = 3, ['F'] = 3, ['G'] = 3, ['H'] = 3, ['I'] = 3, ['J'] = 3, ['K'] = 3,
    ['L'] = 3, ['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3, ['Q'] = 3, ['R'] = 3, ['S'] = 3,
    ['T'] = 3, ['U'] = 3, ['V'] = 3, ['W'] = 3, ['X'] = 3, ['Y'] = 3, ['Z'] = 3, ['['] = 1,
    [']'] = 9, ['^'] = 1, ['_'] = 3, ['`'] = 1, ['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3,
    ['e'] = 3, ['f'] = 3, ['g'] = 3, ['h'] = 3, ['i'] = 3, ['j'] = 3, ['k'] = 3, ['l'] = 3,
    ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3, ['s'] = 3, ['t'] = 3,
    ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3, ['y'] = 3, ['z'] = 3, ['{'] = 1, ['|'] = 1,
    ['}'] = 9, ['~'] = 1, [0x7F] = 1,
};

static int plain_byte(unsigned char c) { return cls[c] & 1; }
static int word_char(unsigned char c) { return cls[c] & 2; }
static int blank_char(unsigned char c) { return cls[c] & 4; }
static int ends_string(unsigned char c) { return cls[c] & 8; }

static const unsigned char *scan_scalar(const unsigned char *p, const unsigned char *e) {
  while (p < e && plain_byte(*p)) p++;
  return p;
}

#ifdef KJ_SIMD
/* 16 bytes at a time: a byte is flagged when it is '"' or '\\', or below
 * 0x20 as a signed byte (the controls and every byte >= 0x80). */
static const unsigned char *scan_sse2(const unsigned char *p, const unsigned char *e) {
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), sp = _mm_set1_epi8(0x20);
  for (; e - p >= 16; p += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
                             _mm_cmplt_epi8(v, sp));
    unsigned bits = (unsigned)_mm_movemask_epi8(m);
    if (bits) return p + __builtin_ctz(bits);
  }
  return scan_scalar(p, e);
}

/* The same, 32 bytes at a time (signed greater-than: 0x20 > v). */
__attribute__((target("avx2"))) static const unsigned char *scan_avx2(const unsigned char *p,
                                                                     const unsigned char *e) {
  const __m256i q = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\'),
                sp = _mm256_set1_epi8(0x20);
  for (; e - p >= 32; p += 32) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i m = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, q), _mm256_cmpeq_epi8(v, bs)),
                                _mm256_cmpgt_epi8(sp, v));
    unsigned bits = (unsigned)_mm256_movemask_epi8(m);
    if (bits) return p + __builtin_ctz(bits);
  }
  return scan_sse2(p, e);
}
#endif

/* The scanner for this CPU; KJSON_SCAN=scalar|sse2 in the environment
 * forces a narrower one (tests compare them). */
static kj_scan_fn pick_scan(void) {
  const char *want = getenv("KJSON_SCAN");
  if (want && strcmp(want, "scalar") == 0) return scan_scalar;
#ifdef KJ_SIMD
  if (want && strcmp(want, "sse2") == 0) return scan_sse2;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return scan_avx2;
  return scan_sse2;
#else
  return scan_scalar;
#endif
}

kjson *kjson_open(kjson_read_fn rd, void *ctx) {
  kjson *j = calloc(1, sizeof *j);
  if (!j) return NULL;
  j->buf = malloc(KJ_BUF);
  j->tcap = 4096;
  j->tb = malloc(j->tcap);
  if (!j->buf || !j->tb) {
    kjson_free(&j);
    return NULL;
  }
  j->rd = rd;
  j->ctx = ctx;
  j->scan = pick_scan();
  j->simd = j->scan != scan_scalar;
  j->tb[0] = '\0';
  j->txt = j->tb;
  return j;
}

void kjson_free(kjson **pj) {
  if (!pj || !*pj) return;
  free((*pj)->buf);
  free((*pj)->tb);
  free(*pj);
  *pj = NULL;
}

const char *kjson_text(const kjson *j) { return j->txt; }
size_t kjson_len(const kjson *j) { return j->tlen; }
/* A string in place in buf never holds a NUL (the scanner stops at every
 * control byte and the copying path takes it). */
size_t kjson_clen(const kjson *j) {
  return j->txt == j->tb && j->nul ? strlen(j->txt) : j->tlen;
}
int kjson_depth(const kjson *j) { return j->depth; }
const char *kjson_error(const kjson *j) { return j->errmsg; }
uint64_t kjson_offset(const kjson *j) { return j->base + j->pos; }
uint64_t kjson_repairs(const kjson *j) { return j->repairs; }

static kj_tok fail(kjson *j, const char *what) {
  j->stop = 1;
  if (!j->errmsg[0])
    snprintf(j->errmsg, sizeof j->errmsg, "%s at byte %llu", what,
             (unsigned long long)(j->base + j->pos));
  return KJ_ERROR;
}

/* Makes at least `need` bytes available from pos (fewer only at the end).
 * May move the buffer contents: pos becomes 0. Returns the bytes available;
 * sets errmsg on a read error. */
static size_t fill(kjson *j, size_t need) {
  if (j->len - j->pos >= need || j->eof) return j->len - j->pos;
  if (j->pos > 0) {
    memmove(j->buf, j->buf + j->pos, j->len - j->pos);
    j->base += j->pos;
    j->len -= j->pos;
    j->pos = 0;
  }
  while (j->len < need && !j->eof) {
    long n = j->rd(j->ctx, j->buf + j->len, KJ_BUF - j->len);
    if (n < 0) {
      snprintf(j->errmsg, sizeof j->errmsg, "read error at byte %llu",
               (unsigned long long)(j->base + j->len));
      j->eof = 2;
      j->stop = 1;
    } else if (n == 0) {
      j->eof = 1;
    } else {
      j->len += (size_t)n;
    }
  }
  return j->len - j->pos;
}

static int tb_reserve(kjson *j, size_t add) {
  if (j->tlen + add + 1 <= j->tcap) return 0;
  size_t ncap = j->tcap;
  while (j->tlen + add + 1 > ncap) ncap *= 2;
  char *p = realloc(j->tb, ncap);
  if (!p) return -1;
  j->tb = p;
  j->txt = p; /* only the copying paths grow it, and their text is tb */
  j->tcap = ncap;
  return 0;
}

/* Appends n bytes to the token (silently truncating strings at the cap). */
static int tb_add(kjson *j, const void *s, size_t n) {
  if (j->tlen + n > KJSON_MAX_STRING) {
    n = j->tlen < KJSON_MAX_STRING ? KJSON_MAX_STRING - j->tlen : 0;
    if (!n) return 0;
  }
  if (tb_reserve(j, n)) return -1;
  memcpy(j->tb + j->tlen, s, n);
  j->tlen += n;
  return 0;
}

/* After a value: a member name follows inside an object; at depth 0 the
 * input is complete. */
static void after_value(kjson *j) {
  j->expect_key = j->top == 'o';
  if (j->depth == 0) j->done = j->stop = 1;
}

static void push(kjson *j, unsigned char c) {
  j->stack[j->depth++] = j->top = c == '{' ? 'o' : 'a';
  j->expect_key = c == '{';
}

static void pop(kjson *j) {
  j->depth--;
  j->top = j->depth ? j->stack[j->depth - 1] : 0;
  after_value(j);
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* 4 hex digits at p, or -1. */
static long hex4(const unsigned char *p) {
  long v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(p[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

static int put_utf8(kjson *j, unsigned long cp) {
  unsigned char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = (unsigned char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (unsigned char)(0xC0 | (cp >> 6));
    b[1] = (unsigned char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (unsigned char)(0xE0 | (cp >> 12));
    b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (unsigned char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    b[0] = (unsigned char)(0xF0 | (cp >> 18));
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (unsigned char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return tb_add(j, b, n);
}

static const unsigned char replacement[3] = {0xEF, 0xBF, 0xBD};

/* Length of a valid UTF-8 sequence at p (avail bytes), or 0. */
static size_t utf8_len(const unsigned char *p, size_t avail) {
  unsigned c = p[0];
  size_t n;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (avail < n) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < n; i++)
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  return n;
}

/* 1 if the quote at pos ends the string: what follows (after blanks) can
 * follow a string in JSON. */
static int quote_ends_string(kjson *j) {
  size_t avail = fill(j, KJ_LOOKAHEAD + 1);
  for (size_t k = 1; k < avail && k <= KJ_LOOKAHEAD; k++) {
    unsigned char c = j->buf[j->pos + k];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == ',' || c == ':' || c == '}' || c == ']';
  }
  return 1; /* the end of input, or a long run of blanks */
}

/* The token after a string's closing quote: a member name where an object
 * expects one, else a string value. */
static kj_tok string_token(kjson *j) {
  if (j->expect_key) {
    j->expect_key = 0;
    return KJ_KEY;
  }
  after_value(j);
  return KJ_STR;
}

/* 1 if the quote at buf[q] ends the string, judged from the bytes after it
 * in the buffer; -1 when they do not tell (quote_ends_string decides). */
static int quote_ends_here(const kjson *j, size_t q) {
  for (size_t k = q + 1; k < j->len && k <= q + KJ_LOOKAHEAD; k++) {
    unsigned char c = j->buf[k];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == ',' || c == ':' || c == '}' || c == ']';
  }
  return -1;
}

/* j->scan(p, e), with the first 16 bytes classified here: most strings
 * (member names, categories, numbers as text) end within them, and then
 * cost no call. KJSON_SCAN=scalar keeps the byte loop throughout. */
static const unsigned char *scan_string(const kjson *j, const unsigned char *p,
                                        const unsigned char *e) {
#ifdef KJ_SIMD
  if (e - p >= 16 && j->simd) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                             _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    unsigned bits = (unsigned)_mm_movemask_epi8(m);
    if (bits) return p + __builtin_ctz(bits);
    p += 16;
  }
#endif
  return j->scan(p, e);
}

/* A string of plain bytes that ends inside the buffer is its own text:
 * the closing quote, consumed, becomes its NUL. Returns 0 when the string
 * needs the copying path (lex_string_copy). */
static int lex_string_inplace(kjson *j, kj_tok *tok) {
  size_t start = j->pos + 1;
  const unsigned char *e = j->buf + j->len;
  size_t q = (size_t)(scan_string(j, j->buf + start, e) - j->buf);
  if (q + 1 >= j->len || j->buf[q] != '"') return 0;
  if (!ends_string(j->buf[q + 1]) && quote_ends_here(j, q) != 1) return 0;
  j->buf[q] = '\0';
  j->txt = (const char *)j->buf + start;
  j->tlen = q - start;
  j->pos = q + 1;
  *tok = string_token(j);
  return 1;
}

/* Out of line: the in-place path is inlined into kjson_next, and this one
 * would cost it the saving of registers on every token. */
__attribute__((noinline)) static kj_tok lex_string_copy(kjson *j) {
  j->pos++; /* opening quote */
  j->tlen = 0;
  j->txt = j->tb;
  j->nul = 0;
  for (;;) {
    if (j->pos >= j->len && fill(j, 1) == 0)
      return fail(j, j->eof == 2 ? "read error" : "the input ends inside a string");
    const unsigned char *p = j->buf + j->pos, *e = j->buf + j->len, *s = p;
    p = j->scan(p, e);
    if (p > s && tb_add(j, s, (size_t)(p - s))) return fail(j, "out of memory");
    j->pos = (size_t)(p - j->buf);
    if (p == e) continue;
    unsigned char c = *p;
    if (c == '"') {
      if (quote_ends_string(j)) {
        j->pos++;
        break;
      }
      j->repairs++;
      if (tb_add(j, "\"", 1)) return fail(j, "out of memory");
      j->pos++;
    } else if (c == '\\') {
      size_t avail = fill(j, 12);
      if (avail < 2) return fail(j, "the input ends inside a string");
      const unsigned char *q = j->buf + j->pos;
      char one = 0;
      switch (q[1]) {
      case '"': one = '"'; break;
      case '\\': one = '\\'; break;
      case '/': one = '/'; break;
      case 'b': one = '\b'; break;
      case 'f': one = '\f'; break;
      case 'n': one = '\n'; break;
      case 'r': one = '\r'; break;
      case 't': one = '\t'; break;
      default: break;
      }
      if (one) {
        if (tb_add(j, &one, 1)) return fail(j, "out of memory");
        j->pos += 2;
        continue;
      }
      long cp = q[1] == 'u' && avail >= 6 ? hex4(q + 2) : -1;
      if (cp < 0) { /* a bad escape: keep it as text */
        j->repairs++;
        j->nul |= q[1] == 0;
        if (tb_add(j, q, 2)) return fail(j, "out of memory");
        j->pos += 2;
        continue;
      }
      size_t used = 6;
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        long lo = avail >= 12 && q[6] == '\\' && q[7] == 'u' ? hex4(q + 8) : -1;
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          used = 12;
        } else {
          cp = -1;
        }
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        cp = -1;
      }
      if (cp < 0) {
        j->repairs++;
        if (tb_add(j, replacement, 3)) return fail(j, "out of memory");
      } else if (put_utf8(j, (unsigned long)cp)) {
        return fail(j, "out of memory");
      }
      j->nul |= cp == 0;
      j->pos += used;
    } else if (c < 0x20) { /* a raw control character: keep it */
      j->repairs++;
      j->nul |= c == 0;
      if (tb_add(j, p, 1)) return fail(j, "out of memory");
      j->pos++;
    } else {
      size_t avail = fill(j, 4);
      size_t n = utf8_len(j->buf + j->pos, avail);
      if (n) {
        if (tb_add(j, j->buf + j->pos, n)) return fail(j, "out of memory");
        j->pos += n;
      } else {
        j->repairs++;
        if (tb_add(j, replacement, 3)) return fail(j, "out of memory");
        j->pos++;
      }
    }
  }
  j->tb[j->tlen] = '\0';
  return string_token(j);
}

static kj_tok lex_string(kjson *j) {
  kj_tok t;
  return lex_string_inplace(j, &t) ? t : lex_string_copy(j);
}

/* The first byte in [p, e) that is no part of a number or bare word, or e:
 * 16 bytes classified at once where the buffer holds them (a time stamp is
 * 16 digits) and simd is set. */
static const unsigned char *skip_word(const unsigned char *p, const unsigned char *e, int simd) {
#ifdef KJ_SIMD
  for (; simd && e - p >= 16; p += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* signed compares: bytes >= 0x80 are below every bound */
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
    __m128i low = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)),
                                   _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1)));
    __m128i sign = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('+')), _mm_cmpeq_epi8(v, _mm_set1_epi8('-'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')), _mm_cmpeq_epi8(v, _mm_set1_epi8('_'))));
    unsigned other =
        ~(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(digit, letter), sign)) & 0xFFFFu;
    if (other) return p + __builtin_ctz(other);
  }
#else
  (void)simd;
#endif
  while (p < e && word_char(*p)) p++;
  return p;
}

/* The end of the digits and dots from p + 1 (p is a word's first byte),
 * where e - p >= 32: what numbers are made of, found with fewer operations
 * than skip_word's every word byte. The caller goes on with skip_word when
 * the byte returned is a word byte still (an exponent, a bare word). */
static const unsigned char *skip_digits(const unsigned char *p, const unsigned char *e, int simd) {
#ifdef KJ_SIMD
  if (simd) {
    for (unsigned k = 0, first = 1; k < 2; k++, first = 0) {
      __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
      /* v - '0' <= 9 as an unsigned byte: a digit */
      __m128i d = _mm_subs_epu8(_mm_sub_epi8(v, _mm_set1_epi8('0')), _mm_set1_epi8(9));
      __m128i num = _mm_or_si128(_mm_cmpeq_epi8(d, _mm_setzero_si128()),
                                 _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
      unsigned other = ~(unsigned)_mm_movemask_epi8(num) & (first ? 0xFFFEu : 0xFFFFu);
      if (other) return p + 16 * k + __builtin_ctz(other);
    }
    return p + 32;
  }
#else
  (void)simd;
#endif
  p++;
  while (p < e && ((*p >= '0' && *p <= '9') || *p == '.')) p++;
  return p;
}

static kj_tok lex_word(kjson *j) {
  j->tlen = 0;
  j->txt = j->tb;
  const unsigned char *w = j->buf + j->pos, *we = j->buf + j->len, *ws = w;
  w = skip_word(w, we, j->simd);
  if (w < we && (size_t)(w - ws) < j->tcap) { /* the whole word is in the buffer */
    j->tlen = (size_t)(w - ws);
    memcpy(j->tb, ws, j->tlen);
    j->pos = (size_t)(w - j->buf);
  } else {
    for (;;) {
      if (j->pos >= j->len && fill(j, 1) == 0) break;
      const unsigned char *p = j->buf + j->pos, *e = j->buf + j->len, *s = p;
      while (p < e && word_char(*p)) p++;
      if (p > s && tb_add(j, s, (size_t)(p - s))) return fail(j, "out of memory");
      j->pos = (size_t)(p - j->buf);
      if (p < e) break;
      if (j->tlen > 4096) return fail(j, "an over-long number");
    }
  }
  j->tb[j->tlen] = '\0';
  kj_tok t = KJ_NUM; /* most words are numbers: compare only what could be a literal */
  if (j->tb[0] == 't' && strcmp(j->tb, "true") == 0) t = KJ_TRUE;
  else if (j->tb[0] == 'f' && strcmp(j->tb, "false") == 0) t = KJ_FALSE;
  else if (j->tb[0] == 'n' && strcmp(j->tb, "null") == 0) t = KJ_NULL;
  if (j->expect_key) return fail(j, "a member name is not a string");
  after_value(j);
  return t;
}

/* The next token from pos: blanks and separators, refills, the end. Out
 * of line: kjson_next's fast path stays small. */
__attribute__((noinline)) static kj_tok next_token(kjson *j) {
  if (j->errmsg[0]) return KJ_ERROR;
  for (;;) {
    if (j->pos >= j->len && fill(j, 1) == 0) {
      if (j->eof == 2) return KJ_ERROR;
      if (j->done) return KJ_EOF;
      return fail(j, j->depth ? "the input ends inside a value (truncated file?)"
                              : "the input is empty");
    }
    if (j->done) return KJ_EOF; /* trailing bytes after the value are ignored */
    unsigned char c = j->buf[j->pos];
    switch (c) {
    case ' ': case '\t': case '\n': case '\r': case ',': case ':': {
      /* the whole run of blanks and separators in one loop */
      const unsigned char *p = j->buf + j->pos + 1, *e = j->buf + j->len;
      while (p < e && blank_char(*p)) p++;
      j->pos = (size_t)(p - j->buf);
      continue;
    }
    case '{': case '[':
      if (j->depth >= KJSON_MAX_DEPTH) return fail(j, "nesting too deep");
      if (j->expect_key) return fail(j, "a member name is not a string");
      push(j, c);
      j->pos++;
      return c == '{' ? KJ_OBJ : KJ_ARR;
    case '}': case ']': {
      unsigned char want = c == '}' ? 'o' : 'a';
      if (j->top != want) return fail(j, c == '}' ? "an unexpected '}'" : "an unexpected ']'");
      if (want == 'o' && !j->expect_key) /* {"k": } would leave readers out of step */
        return fail(j, "a member without a value");
      j->pos++;
      pop(j);
      return c == '}' ? KJ_OBJ_END : KJ_ARR_END;
    }
    case '"':
      return lex_string(j);
    default:
      if (word_char(c)) return lex_word(j);
      if (c == 0xEF && fill(j, 3) >= 3 && j->buf[j->pos + 1] == 0xBB &&
          j->buf[j->pos + 2] == 0xBF && j->base + j->pos == 0) {
        j->pos += 3; /* a UTF-8 byte order mark */
        continue;
      }
      {
        char what[64];
        if (c >= 0x20 && c < 0x7F) snprintf(what, sizeof what, "an unexpected character '%c'", c);
        else snprintf(what, sizeof what, "an unexpected byte 0x%02X", c);
        return fail(j, what);
      }
    }
  }
}

/* The first byte in [p, e) that is no blank or separator, or e. The runs
 * between tokens are short: ": " and ", " (two bytes) before most tokens,
 * a line break and an indent before some. The first three bytes are looked
 * at one by one; a longer run is classified 16 bytes at a time (simd). */
static const unsigned char *skip_blanks(const unsigned char *p, const unsigned char *e, int simd) {
  if (e - p >= 3) {
    if (!blank_char(p[0])) return p;
    if (!blank_char(p[1])) return p + 1;
    if (!blank_char(p[2])) return p + 2;
    p += 3;
  }
#ifdef KJ_SIMD
  for (; simd && e - p >= 16; p += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                  _mm_cmpeq_epi8(v, _mm_set1_epi8(','))),
                     _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')),
                                  _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
    unsigned other = ~(unsigned)_mm_movemask_epi8(m) & 0xFFFFu;
    if (other) return p + __builtin_ctz(other);
  }
#endif
  while (p < e && blank_char(*p)) p++;
  return p;
}

/* Bytes the fast path of kjson_next wants in the buffer from a token's
 * first byte: a number's 32 bytes, a string's first 16, the byte after a
 * closing quote. Nearer the buffer's end, and after the end or an error,
 * every token takes next_token. */
#define KJ_FAST 64

/* A number of digits and dots (an optional sign first) whose end lies
 * within 32 bytes: its text copied in two 16-byte moves. 0 when the word
 * is anything else (lex_word reads it). */
static int fast_number(kjson *j, const unsigned char *p, const unsigned char *e) {
  const unsigned char *w = skip_digits(p, e, j->simd);
  if (w - p >= 32 || word_char(*w)) return 0;
  size_t n = (size_t)(w - p);
#ifdef KJ_SIMD
  _mm_storeu_si128((__m128i *)(void *)j->tb, _mm_loadu_si128((const __m128i *)(const void *)p));
  _mm_storeu_si128((__m128i *)(void *)(j->tb + 16),
                   _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
#else
  memcpy(j->tb, p, n);
#endif
  j->tb[n] = '\0';
  j->txt = j->tb;
  j->tlen = n;
  j->pos = (size_t)(w - j->buf);
  after_value(j);
  return 1;
}

kj_tok kjson_next(kjson *j) {
  const unsigned char *b = j->buf, *e = b + j->len, *p = b + j->pos;
  if (j->stop) return next_token(j);
  /* the run of blanks and separators before most tokens, without a dispatch */
  p = skip_blanks(p, e, j->simd);
  j->pos = (size_t)(p - b);
  if (e - p < KJ_FAST) return next_token(j);
  unsigned char c = *p;
  if (c == '"') { /* lex_string_inplace, with what is known here */
    const unsigned char *s = p + 1, *q = scan_string(j, s, e);
    if (q + 1 < e && *q == '"' && (ends_string(q[1]) || quote_ends_here(j, (size_t)(q - b)) == 1)) {
      j->buf[q - b] = '\0';
      j->txt = (const char *)s;
      j->tlen = (size_t)(q - s);
      j->pos = (size_t)(q + 1 - b);
      return string_token(j);
    }
    return lex_string_copy(j);
  }
  if (((c >= '0' && c <= '9') || c == '-') && !j->expect_key && fast_number(j, p, e))
    return KJ_NUM;
  if ((c == '{' || c == '[') && !j->expect_key && j->depth < KJSON_MAX_DEPTH) {
    push(j, c);
    j->pos++;
    return c == '{' ? KJ_OBJ : KJ_ARR;
  }
  if ((c == '}' && j->top == 'o' && j->expect_key) || (c == ']' && j->top == 'a')) {
    j->pos++;
    pop(j);
    return c == '}' ? KJ_OBJ_END : KJ_ARR_END;
  }
  return next_token(j);
}

kj_tok kjson_skip(kjson *j, kj_tok t) {
  if (t != KJ_OBJ && t != KJ_ARR) return t;
  int target = j->depth - 1;
  for (;;) {
    kj_tok k = kjson_next(j);
    if (k == KJ_ERROR) return k;
    if (k == KJ_EOF) return fail(j, "the input ends inside a value");
    if ((k == KJ_OBJ_END || k == KJ_ARR_END) && j->depth == target) return k;
  }
}

typedef struct rbuf {
  char *p;
  size_t cap, n;
  int full;
} rbuf;

static void remit(rbuf *b, const char *s, size_t n) {
  if (b->full) return;
  if (b->n + n + 4 >= b->cap) {
    size_t k = b->cap > b->n + 4 ? b->cap - b->n - 4 : 0;
    if (k > n) k = n;
    memcpy(b->p + b->n, s, k);
    b->n += k;
    memcpy(b->p + b->n, "...", 3);
    b->n += 3;
    b->full = 1;
    return;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
}

static void remit_scalar(rbuf *b, kjson *j, kj_tok t) {
  switch (t) {
  case KJ_STR: case KJ_KEY:
    remit(b, "\"", 1);
    remit(b, j->txt, j->tlen);
    remit(b, "\"", 1);
    break;
  case KJ_NUM: remit(b, j->txt, j->tlen); break;
  case KJ_TRUE: remit(b, "true", 4); break;
  case KJ_FALSE: remit(b, "false", 5); break;
  default: remit(b, "null", 4); break;
  }
}

/* The end (one past the closing ']') of the array whose '[' was just
 * consumed, when it lies whole in the buffer and is written exactly as
 * kjson_render writes it: integers, nested arrays and ", " between
 * elements, nothing else ("[[96], [1024, 512], []]", as Kineto writes
 * "Input Dims"). NULL otherwise (nothing is consumed). */
static const unsigned char *canonical_array(const kjson *j) {
  enum { OPEN, VALUE, AFTER }; /* after '[', after ", ", after a value */
  const unsigned char *p = j->buf + j->pos, *e = j->buf + j->len;
  int depth = 1, state = OPEN;
  if (j->depth + 8 > KJSON_MAX_DEPTH) return NULL;
  while (p < e) {
    unsigned char c = *p;
    if (state == AFTER && c == ',') {
      if (e - p < 3 || p[1] != ' ') return NULL;
      p += 2;
      state = VALUE;
    } else if (c == ']' && state != VALUE) {
      p++;
      if (--depth == 0) return p;
      state = AFTER;
    } else if (c == '[' && state != AFTER) {
      if (++depth > 8) return NULL;
      p++;
      state = OPEN;
    } else if (((c >= '0' && c <= '9') || c == '-') && state != AFTER) {
      while (p < e && ((*p >= '0' && *p <= '9') || *p == '-')) p++;
      state = AFTER;
    } else {
      return NULL;
    }
  }
  return NULL;
}

kj_tok kjson_render(kjson *j, kj_tok t, char *buf, size_t cap) {
  rbuf b = {.p = buf, .cap = cap, .n = 0, .full = 0};
  if (cap < 8) return kjson_skip(j, t);
  const unsigned char *end = t == KJ_ARR ? canonical_array(j) : NULL;
  size_t raw = end ? (size_t)(end - (j->buf + j->pos)) : 0;
  if (end && raw + 5 < cap) { /* its text as is: no token of it would be cut */
    buf[0] = '[';
    memcpy(buf + 1, j->buf + j->pos, raw);
    buf[raw + 1] = '\0';
    j->pos += raw;
    pop(j);
    return KJ_ARR_END;
  }
  if (t != KJ_OBJ && t != KJ_ARR) {
    remit_scalar(&b, j, t);
    buf[b.n] = '\0';
    return t;
  }
  int base = j->depth - 1, after_key = 0;
  unsigned char first[KJSON_MAX_DEPTH + 1];
  first[1] = 1;
  remit(&b, t == KJ_OBJ ? "{" : "[", 1);
  kj_tok k;
  for (;;) {
    k = kjson_next(j);
    if (k == KJ_ERROR) break;
    if (k == KJ_EOF) {
      k = fail(j, "the input ends inside a value");
      break;
    }
    if (k == KJ_OBJ_END || k == KJ_ARR_END) {
      remit(&b, k == KJ_OBJ_END ? "}" : "]", 1);
      if (j->depth == base) break;
      continue;
    }
    int level = (k == KJ_OBJ || k == KJ_ARR) ? j->depth - 1 - base : j->depth - base;
    if (after_key) after_key = 0;
    else if (!first[level]) remit(&b, ", ", 2);
    first[level] = 0;
    if (k == KJ_OBJ || k == KJ_ARR) {
      remit(&b, k == KJ_OBJ ? "{" : "[", 1);
      first[level + 1] = 1;
    } else if (k == KJ_KEY) {
      remit_scalar(&b, j, k);
      remit(&b, ": ", 2);
      after_key = 1;
    } else {
      remit_scalar(&b, j, k);
    }
  }
  buf[b.n < cap ? b.n : cap - 1] = '\0';
  return k;
}

/* ---- Number text ---------------------------------------------------------- */

int kjson_int64(const char *text, int64_t *out) {
  /* the common case, up to 18 plain digits, without strtoll */
  const char *p = text + (text[0] == '-');
  int64_t fast = 0;
  int n = 0;
  while (n < 18 && p[n] >= '0' && p[n] <= '9') fast = fast * 10 + (p[n++] - '0');
  if (n > 0 && p[n] == '\0') {
    *out = text[0] == '-' ? -fast : fast;
    return 1;
  }
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end != text && *end == '\0' && errno == 0) {
    *out = v;
    return 1;
  }
  if (errno == ERANGE) return 0;
  double d = strtod(text, &end);
  if (end == text || *end || !isfinite(d) || d != floor(d) || d < -9.2e18 || d > 9.2e18)
    return 0;
  *out = (int64_t)d;
  return 1;
}

/* 10^0 .. 10^22: each exact as a double. */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

double kjson_double(const char *text) {
  /* [-]digits[.digits], at most 15 digits: the digits as an integer and the
   * power of ten are exact doubles, so one division rounds as strtod does
   * (the trace's occupancies, "0.5925926"); anything else goes to strtod */
  const char *p = text + (text[0] == '-');
  int64_t m = 0;
  int digits = 0, frac = 0;
  for (; *p >= '0' && *p <= '9' && digits <= 15; p++, digits++) m = m * 10 + (*p - '0');
  if (digits > 0 && *p == '.' && p[1] >= '0' && p[1] <= '9')
    for (p++; *p >= '0' && *p <= '9' && digits <= 15; p++, digits++, frac++)
      m = m * 10 + (*p - '0');
  if (digits > 0 && digits <= 15 && *p == '\0') {
    double d = (double)m / pow10_exact[frac];
    return text[0] == '-' ? -d : d;
  }
  char *end;
  double d = strtod(text, &end);
  return end == text ? NAN : d;
}

int kjson_us_to_ns(const char *text, int64_t *ns) {
  const char *p = text;
  int neg = 0;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  if (!(*p >= '0' && *p <= '9') && *p != '.') return 0;
  int64_t ip = 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (ip > (INT64_MAX / 1000 - 9) / 10) return 0;
    ip = ip * 10 + (*p - '0');
  }
  int64_t frac = 0;
  int digits = 0, round_up = 0;
  if (*p == '.') {
    for (p++; *p >= '0' && *p <= '9'; p++) {
      if (digits < 3) frac = frac * 10 + (*p - '0');
      else if (digits == 3) round_up = *p >= '5';
      digits++;
    }
  }
  if (*p == 'e' || *p == 'E') {
    double d = strtod(text, NULL) * 1000.0;
    if (!isfinite(d) || fabs(d) > 9.2e18) return 0;
    *ns = (int64_t)llround(d);
    return 1;
  }
  if (*p) return 0;
  for (int d = digits; d < 3; d++) frac *= 10;
  int64_t v = ip * 1000 + frac + round_up;
  *ns = neg ? -v : v;
  return 1;
}
