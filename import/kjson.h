/*
 * kjson.h - a small streaming (pull) JSON tokenizer for large traces.
 *
 * It never builds a tree: each kjson_next() returns one token and its text,
 * and memory stays at one read buffer plus the longest token. Input comes
 * through a read callback (plain files with fread, gzip with gzread).
 *
 * Tolerant where real Kineto traces are broken (formats.md C.4):
 *   - invalid UTF-8 bytes in strings become U+FFFD;
 *   - bad escapes (\x, \u12G4, lone surrogates) are kept as text / U+FFFD;
 *   - an unescaped '"' inside a string (old Kineto) is taken as text when
 *     what follows it cannot end a string (not , : } ] or the end);
 *   - numbers are returned as text (integers above int64 stay exact text),
 *     and bare words such as NaN or Infinity are returned as numbers;
 *   - strings longer than KJSON_MAX_STRING are truncated (and consumed).
 * Structural errors (an unexpected character, the file ending inside a
 * value) give KJ_ERROR with a message naming the byte offset.
 *
 * Ownership: kjson_open returns a new tokenizer; free it with kjson_free(),
 * which sets the pointer to NULL. The read context is borrowed. Token text
 * is borrowed until the next call.
 */
#ifndef KJSON_H
#define KJSON_H

#include <stddef.h>
#include <stdint.h>

#define KJSON_MAX_STRING (16u << 20) /* bytes kept of one string */
#define KJSON_MAX_DEPTH 256

typedef enum kj_tok {
  KJ_EOF = 0,   /* the end of the input after a complete top-level value */
  KJ_OBJ,       /* { */
  KJ_OBJ_END,   /* } */
  KJ_ARR,       /* [ */
  KJ_ARR_END,   /* ] */
  KJ_KEY,       /* a member name (text) */
  KJ_STR,       /* a string value (text) */
  KJ_NUM,       /* a number (text as written) */
  KJ_TRUE,
  KJ_FALSE,
  KJ_NULL,
  KJ_ERROR,     /* see kjson_error() */
} kj_tok;

/* Reads up to len bytes into buf; returns the count, 0 at the end, or a
 * negative value on a read error. */
typedef long (*kjson_read_fn)(void *ctx, void *buf, size_t len);

typedef struct kjson kjson;

/* A new tokenizer over read/ctx; NULL when out of memory. */
kjson *kjson_open(kjson_read_fn read, void *ctx);
void kjson_free(kjson **j);

kj_tok kjson_next(kjson *j);
/* The text of the last KEY, STR or NUM token (NUL-terminated) and its length. */
const char *kjson_text(const kjson *j);
size_t kjson_len(const kjson *j);
/* Its length as a C string: up to its first NUL (a "\u0000" or a raw NUL
 * byte inside a string), strlen(kjson_text(j)) without the scan where the
 * text has none. */
size_t kjson_clen(const kjson *j);
/* Nesting depth after the last token (0 at top level). */
int kjson_depth(const kjson *j);
/* After KJ_OBJ or KJ_ARR: consumes tokens up to the matching end. For other
 * tokens it does nothing. Returns KJ_ERROR on an error, else KJ_OBJ_END /
 * KJ_ARR_END (or the scalar token given). */
kj_tok kjson_skip(kjson *j, kj_tok t);
/* Skips the value whose first token is t and renders it compactly into buf
 * (truncated with "..." at cap). Returns as kjson_skip. */
kj_tok kjson_render(kjson *j, kj_tok t, char *buf, size_t cap);
/* The error message (one line) after KJ_ERROR. */
const char *kjson_error(const kjson *j);
/* Bytes consumed so far. */
uint64_t kjson_offset(const kjson *j);
/* Counts of repaired input: invalid UTF-8 bytes, bad escapes, stray quotes. */
uint64_t kjson_repairs(const kjson *j);

/* Helpers for number text. 1 if text is an integer that fits int64 (*out
 * set), 0 otherwise (non-integer or out of range). */
int kjson_int64(const char *text, int64_t *out);
/* The value of a number text as double (NaN for non-numbers). */
double kjson_double(const char *text);
/* Microseconds written in decimal (as Kineto's ts and dur) to integer
 * nanoseconds, exactly (rounded half away from zero at the ns digit).
 * Returns 0 when text is not a finite number in range. */
int kjson_us_to_ns(const char *text, int64_t *ns);

#endif
