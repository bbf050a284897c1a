/*
 * test_kineto - PyTorch profiler (Kineto) traces end to end: dlprof
 * --database on the real traces of ../shared/traces/kineto, checked against
 * the reference numbers beside them (TraceLens's kernel_summary.csv and
 * gpu_timeline.csv, the TensorBoard plugin's gpu_metrics_expected.json),
 * plus the streaming tokenizer on broken JSON.
 *
 * Usage: test_kineto DLPROF SHARED_DIR WORK_DIR
 * Skips (77) naming the path when SHARED_DIR/traces/kineto is absent; the
 * tokenizer tests run first either way.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl.h"
#include "kjson.h"
#include "kpipe.h"
#include "kstack.h"
#include "test.h"

static const char *dlprof_bin, *work;
static char kdir[1024];
static int case_no;

/* ---- helpers ---------------------------------------------------------------- */

typedef struct run_result {
  int status;
  char out[1 << 14]; /* stderr */
  char db[1200];
} run_result;

/* Runs dlprof --database=trace in a fresh folder; extra: more options. */
static void run(const char *trace, const char *extra, run_result *r) {
  char dir[1100], cmd[4096], log[1200];
  snprintf(dir, sizeof dir, "%s/case%d", work, ++case_no);
  mkdir(dir, 0755);
  snprintf(log, sizeof log, "%s/stderr.txt", dir);
  snprintf(r->db, sizeof r->db, "%s/dlprof_dldb.sqlite", dir);
  unlink(r->db); /* an earlier run's, in the same numbered folder */
  snprintf(cmd, sizeof cmd, "'%s' --database='%s' --output_path='%s' --force=true %s 2>'%s' >/dev/null",
           dlprof_bin, trace, dir, extra ? extra : "", log);
  int st = system(cmd);
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r->out[0] = '\0';
  FILE *f = fopen(log, "r");
  if (f) {
    size_t n = fread(r->out, 1, sizeof r->out - 1, f);
    r->out[n] = '\0';
    fclose(f);
  }
}

static double q_real(const char *db, const char *sql) {
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  double v = NAN;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_double(st, 0);
  else if (!st)
    fprintf(stderr, "sql error: %s: %s\n", sql, h ? sqlite3_errmsg(h) : "?");
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

static int64_t q_int(const char *db, const char *sql) {
  double v = q_real(db, sql);
  return isnan(v) ? -999 : (int64_t)llround(v);
}

static void trace_path(char *buf, size_t n, const char *rel) { snprintf(buf, n, "%s/%s", kdir, rel); }

/* A copy of db as an older schema wrote it: db.schema<version>.sqlite, with
 * drop (SQL) run on it and the version markers set back. 0, or -1. */
static int old_schema_copy(const char *db, int version, const char *drop, char *old, size_t n) {
  char sql[1600];
  snprintf(old, n, "%s.schema%d.sqlite", db, version);
  unlink(old);
  sqlite3 *h = NULL;
  snprintf(sql, sizeof sql, "VACUUM INTO '%s'", old);
  int ok = sqlite3_open(db, &h) == SQLITE_OK && sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK;
  sqlite3_close(h);
  h = NULL;
  snprintf(sql, sizeof sql,
           "%s; UPDATE dl_meta SET value = '%d' WHERE key = 'schema_version'; "
           "PRAGMA user_version = %d",
           drop, version, version);
  ok = ok && sqlite3_open(old, &h) == SQLITE_OK && sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK;
  sqlite3_close(h);
  return ok ? 0 : -1;
}

/* Splits one CSV line (quotes, doubled quotes) into at most max fields. */
static int csv_fields(char *line, char **f, int max) {
  int n = 0;
  char *p = line, *o;
  while (n < max) {
    f[n++] = o = p;
    if (*p == '"') {
      p++;
      for (;;) {
        if (*p == '"' && p[1] == '"') { *o++ = '"'; p += 2; }
        else if (*p == '"') { p++; break; }
        else if (!*p) break;
        else *o++ = *p++;
      }
    } else {
      while (*p && *p != ',' && *p != '\n' && *p != '\r') *o++ = *p++;
    }
    int more = *p == ',';
    *o = '\0';
    if (!more) break;
    p++;
  }
  return n;
}

/* ---- tokenizer ---------------------------------------------------------------- */

typedef struct membuf {
  const char *p;
  size_t n, pos, chunk;
} membuf;

static long mem_read(void *ctx, void *buf, size_t len) {
  membuf *m = ctx;
  size_t k = m->n - m->pos;
  if (k > len) k = len;
  if (k > m->chunk) k = m->chunk; /* tiny reads: tokens straddle refills */
  memcpy(buf, m->p + m->pos, k);
  m->pos += k;
  return (long)k;
}

/* Tokenizes s; writes "T:text|" per token into out. Returns the last token. */
static kj_tok tokenize(const char *s, size_t chunk, char *out, size_t cap) {
  membuf m = {s, strlen(s), 0, chunk};
  kjson *j = kjson_open(mem_read, &m);
  kj_tok t;
  size_t n = 0;
  out[0] = '\0';
  static const char names[] = "E{}[]KSNtfn!";
  while ((t = kjson_next(j)) != KJ_EOF && t != KJ_ERROR) {
    int w = snprintf(out + n, cap - n, "%c%s%s|", names[t],
                     (t == KJ_KEY || t == KJ_STR || t == KJ_NUM) ? ":" : "",
                     (t == KJ_KEY || t == KJ_STR || t == KJ_NUM) ? kjson_text(j) : "");
    if (w > 0 && (size_t)w < cap - n) n += (size_t)w;
  }
  if (t == KJ_ERROR) snprintf(out + n, cap - n, "ERROR:%s", kjson_error(j));
  kjson_free(&j);
  return t;
}

/* The vector string scanners (kjson.c) agree with the byte loop: a quote,
 * backslash, control or non-ASCII byte at every offset of a string longer
 * than two AVX2 blocks, in one read and in reads of 7 bytes. */
static int test_tokenizer_scanners(void) {
  static const char *const specials[] = {"\\\"", "\\n", "\x01", "\xc3\xa9", "\xff", "\x7f",
                                         "\"", "\\u00e9"};
  static const char *const scans[] = {"sse2", "avx2"};
  char doc[256], want[1024], got[1024], body[128];
  for (size_t k = 0; k < sizeof specials / sizeof *specials; k++)
    for (int at = 0; at < 70; at++) {
      memset(body, 'a', 70);
      body[70] = '\0';
      snprintf(doc, sizeof doc, "{\"k\": \"%.*s%s%s\", \"n\": 7}", at, body, specials[k],
               body + at);
      for (size_t chunk = 7; chunk <= 4096; chunk += 4089) {
        setenv("KJSON_SCAN", "scalar", 1);
        kj_tok tw = tokenize(doc, chunk, want, sizeof want);
        for (size_t s = 0; s < sizeof scans / sizeof *scans; s++) {
          setenv("KJSON_SCAN", scans[s], 1);
          ASSERT_EQ(tokenize(doc, chunk, got, sizeof got), tw);
          ASSERT_STR_EQ(got, want);
        }
      }
    }
  unsetenv("KJSON_SCAN");
  /* one of them spelled out: the escape decoded, the text around it kept */
  ASSERT_EQ(tokenize("[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\tb\"]", 4096, got, sizeof got), KJ_EOF);
  ASSERT_STR_EQ(got, "[|S:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\tb|]|");
  return 0;
}

/* Renders arr, the first value of the array [arr, 7], into a buffer of cap
 * bytes; writes the render, its token and the tokens after it into out.
 * With reads of one byte the buffer never holds arr whole. */
static void render_doc(const char *arr, size_t chunk, size_t cap, char *out, size_t outcap) {
  char doc[512], buf[256];
  snprintf(doc, sizeof doc, "[%s, 7]", arr);
  membuf m = {doc, strlen(doc), 0, chunk};
  kjson *j = kjson_open(mem_read, &m);
  kjson_next(j); /* [ */
  kj_tok t = kjson_render(j, kjson_next(j), buf, cap);
  size_t n = (size_t)snprintf(out, outcap, "%d:%s|", (int)t, buf);
  while ((t = kjson_next(j)) != KJ_EOF && t != KJ_ERROR && n < outcap)
    n += (size_t)snprintf(out + n, outcap - n, "%d:%s|", (int)t, t == KJ_NUM ? kjson_text(j) : "");
  if (n < outcap) snprintf(out + n, outcap - n, "%s", t == KJ_ERROR ? kjson_error(j) : "end");
  kjson_free(&j);
}

/* A render of an array held whole in the read buffer and written as
 * kjson_render writes it is its text as is: the same as token by token
 * (reads of one byte never hold it whole), at every cap around the cut. */
static int test_tokenizer_render(void) {
  static const char *const arrays[] = {
      "[[96], [1024, 512], [512, 96], [], []]", "[]", "[[]]", "[-1, 12-4]", "[1,2]",
      "[ 1, 2 ]", "[1,\n 2]", "[1,, 2]", "[[1, 2], \"x\"]", "[1.5, 2]", "[true, 1]",
      "[1, [2, [3, [4, [5, [6, [7, [8, [9]]]]]]]]]", "[[1, 2], [3, 4]],"};
  char want[1024], got[1024];
  for (size_t a = 0; a < sizeof arrays / sizeof *arrays; a++)
    for (size_t cap = 8; cap < 64; cap++) {
      render_doc(arrays[a], 1, cap, want, sizeof want);
      render_doc(arrays[a], 4096, cap, got, sizeof got);
      ASSERT_STR_EQ(got, want);
    }
  render_doc("[[96], [1024, 512], []]", 4096, 64, got, sizeof got);
  ASSERT_STR_EQ(got, "4:[[96], [1024, 512], []]|7:7|4:|end");
  render_doc("[1,2]", 4096, 64, got, sizeof got);
  ASSERT_STR_EQ(got, "4:[1, 2]|7:7|4:|end");
  /* blank runs longer than the vector skip's 16 bytes */
  ASSERT_EQ(tokenize("[1,                      \n\n   2  ,\t\r\n 3]", 4096, got, sizeof got),
            KJ_EOF);
  ASSERT_STR_EQ(got, "[|N:1|N:2|N:3|]|");
  /* words longer than the vector word scan's 16 bytes, every word byte in them */
  for (size_t chunk = 1; chunk <= 4096; chunk *= 4096) {
    ASSERT_EQ(tokenize("[123456789012345678901234567890123,abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
                       "KLMNOPQRSTUVWXYZ_+-.09 ]", chunk, got, sizeof got),
              KJ_EOF);
    ASSERT_STR_EQ(got, "[|N:123456789012345678901234567890123|N:abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
                       "KLMNOPQRSTUVWXYZ_+-.09|]|");
  }
  return 0;
}

/* Every token of doc as "T:text|", in a new string; reads of chunk bytes,
 * scan "" (the CPU's) or a KJSON_SCAN name. */
static char *tokens_all(const char *doc, size_t n, size_t chunk, const char *scan) {
  if (scan[0]) setenv("KJSON_SCAN", scan, 1);
  else unsetenv("KJSON_SCAN");
  membuf m = {doc, n, 0, chunk};
  kjson *j = kjson_open(mem_read, &m);
  size_t cap = 2 * n + 256, len = 0;
  char *out = malloc(cap);
  if (!j || !out) abort();
  static const char names[] = "E{}[]KSNtfn!";
  kj_tok t;
  while ((t = kjson_next(j)) != KJ_EOF && t != KJ_ERROR) {
    int text = t == KJ_KEY || t == KJ_STR || t == KJ_NUM;
    size_t tl = text ? kjson_len(j) : 0;
    if (len + tl + 8 > cap) {
      cap = 2 * (len + tl + 8);
      out = realloc(out, cap);
      if (!out) abort();
    }
    len += (size_t)sprintf(out + len, "%c%d:", names[t], kjson_depth(j));
    memcpy(out + len, kjson_text(j), tl);
    len += tl;
    out[len++] = '|';
  }
  snprintf(out + len, cap - len, "%s@%llu", t == KJ_ERROR ? kjson_error(j) : "end",
           (unsigned long long)kjson_repairs(j));
  kjson_free(&j);
  unsetenv("KJSON_SCAN");
  return out;
}

/* 0 if a and b are equal; else prints where they part. */
static int same_tokens(const char *what, const char *a, const char *b) {
  size_t i = 0;
  while (a[i] && a[i] == b[i]) i++;
  if (!a[i] && !b[i]) return 0;
  size_t from = i > 60 ? i - 60 : 0;
  fprintf(stderr, "%s: tokens differ at %zu:\n  %.120s\n  %.120s\n", what, i, a + from, b + from);
  return 1;
}

/* lcg: the same pseudo-random document every run. */
static unsigned rnd(unsigned long long *st, unsigned n) {
  *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(*st >> 33) % n;
}

/* A document of 700 KB (beyond two read buffers): events whose strings
 * hold escapes, invalid UTF-8, controls, stray quotes and long plain runs
 * at every offset of a 16- and 32-byte step, numbers of 1 to 40 bytes,
 * bare words, blank runs of 0 to 40 bytes, nested arrays and objects. */
static char *fuzz_doc(size_t *n) {
  static const char *const special[] = {
      "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\q", "\xff", "\xc3(",
      "\xc3\xa9", "\xe2\x82\xac", "\x01", "\" now", "\"x", "\"", "\\/", "\\u12G4", "\x7f"};
  static const char *const word[] = {"true", "false", "null", "nul", "NaN", "-Infinity", "t",
                                     "1e5", "-1.5E-3", "12e+7", "0x1F", "-", "1_000"};
  /* a comma between members: a quote followed by no , : } ] is text */
  static const char *const blank[] = {",", " ,", ", ", ",  ", ",\n", ",\t", ",\r\n"};
  static const char *const colon[] = {":", ": ", " : ", ":\n\t\t"};
  size_t cap = 800000, len = 0;
  char *d = malloc(cap);
  unsigned long long st = 42;
  if (!d) abort();
  len += (size_t)sprintf(d, "{\"traceEvents\": [");
  while (len < 700000) {
    d[len++] = '{';
    if (rnd(&st, 2)) d[len++] = '\n';
    unsigned members = 1 + rnd(&st, 8);
    for (unsigned m = 0; m < members; m++) {
      unsigned b = rnd(&st, 10);
      if (m == 0) len += (size_t)sprintf(d + len, "%*s", (int)rnd(&st, 3), "");
      else if (b < 7) len += (size_t)sprintf(d + len, "%s", blank[b]);
      else len += (size_t)sprintf(d + len, ",\n%*s", (int)rnd(&st, 40), "");
      unsigned kind = rnd(&st, 6);
      len += (size_t)sprintf(d + len, kind == 5 ? "\"k\\u0041%u\"" : "\"key%u\"", m);
      len += (size_t)sprintf(d + len, "%s", colon[rnd(&st, 4)]);
      unsigned v = rnd(&st, 10);
      if (v < 4) { /* a string: a plain run, maybe a special, another run */
        d[len++] = '"';
        for (unsigned i = rnd(&st, 70); i > 0; i--) d[len++] = (char)('a' + i % 26);
        if (v < 3) len += (size_t)sprintf(d + len, "%s", special[rnd(&st, 18)]);
        for (unsigned i = rnd(&st, 40); i > 0; i--) d[len++] = (char)('A' + i % 26);
        d[len++] = '"';
      } else if (v < 7) { /* a number of 1 to 40 bytes */
        if (rnd(&st, 4) == 0) d[len++] = '-';
        unsigned digits = 1 + rnd(&st, 40);
        for (unsigned i = 0; i < digits; i++) d[len++] = (char)('0' + rnd(&st, 10));
        if (rnd(&st, 4) == 0) len += (size_t)sprintf(d + len, ".%u", rnd(&st, 100000));
      } else if (v < 8) {
        len += (size_t)sprintf(d + len, "%s", word[rnd(&st, 13)]);
      } else if (v < 9) {
        len += (size_t)sprintf(d + len, "[[%u], [%u, %u], []]", rnd(&st, 9999), rnd(&st, 99),
                               rnd(&st, 9));
      } else {
        len += (size_t)sprintf(d + len, "{\"a\": [1, {\"b\": \"c\"}], \"d\": %u}", rnd(&st, 99));
      }
    }
    len += (size_t)sprintf(d + len, "}, ");
  }
  len += (size_t)sprintf(d + len, "{}]}");
  *n = len;
  return d;
}

/* kjson_next's fast path (a token with 64 bytes after it in the buffer)
 * and its vector steps give what the byte-by-byte path gives: the fuzz
 * document read 7 bytes at a time (never 64 bytes ahead: every token
 * takes the checking path) against whole reads, reads that end at every
 * kind of token, and the narrower scanners. */
static int test_tokenizer_paths(void) {
  size_t n;
  char *doc = fuzz_doc(&n);
  char *want = tokens_all(doc, n, 7, "scalar");
  int whole = strstr(want + strlen(want) - 20, "end@") != NULL; /* no error */
  static const struct { size_t chunk; const char *scan; } runs[] = {
      {1u << 30, ""}, {1u << 30, "sse2"}, {1u << 30, "scalar"}, {7, ""}, {100, ""},
      {129, "sse2"}, {4093, ""}, {4093, "scalar"}};
  int bad = 0;
  for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
    char *got = tokens_all(doc, n, runs[r].chunk, runs[r].scan);
    char what[64];
    snprintf(what, sizeof what, "chunk %zu scan '%s'", runs[r].chunk, runs[r].scan);
    bad += same_tokens(what, want, got);
    free(got);
  }
  free(want);
  free(doc);
  ASSERT(whole);
  ASSERT_EQ(bad, 0);
  /* short documents with room after every token (the fast path) against
   * reads of one byte: nesting, member names after an inner value, the
   * errors the fast path leaves to the checking one */
  static const char *const docs[] = {
      "[{\"a\": 1}, \"x\", {\"b\": \"y\"}, [\"z\"], 2]",
      "{\"a\": [1, {\"b\": 2}], \"c\": \"d\", \"e\": {\"f\": [[]]}}",
      "{\"k\": }", "{\"k\": 1]", "[1, 2}", "{1: 2}", "{\"a\": 1, {}}", "{\"a\": 1, [2]}",
      "{\"a\" 1 \"b\"}", "[-, 12e5, 1.5E-3, 0x1F, 12345678901234567890123456789012345, -Infinity]",
      "[1234567890123456, 12345678901234567890123456789012, -1234567890123456789012345678901]",
      "[\"say \"hi\" now\", \"end\"  , \"q\"]", "\"top\"", "42", "[]", "{}", "[1 2 3]"};
  char doc2[512], out1[2048], out2[2048];
  for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
    snprintf(doc2, sizeof doc2, "%s%80s", docs[i], ""); /* blanks after the end are ignored */
    kj_tok t1 = tokenize(doc2, 1, out1, sizeof out1);
    ASSERT_EQ(tokenize(doc2, 4096, out2, sizeof out2), t1);
    ASSERT_STR_EQ(out2, out1);
  }
  tokenize("[{\"a\": 1}, \"x\", {\"b\": \"y\"}, [\"z\"], 2]                                  "
           "                                                    ", 4096, out1, sizeof out1);
  ASSERT_STR_EQ(out1, "[|{|K:a|N:1|}|S:x|{|K:b|S:y|}|[|S:z|]|N:2|]|");
  return 0;
}

/* kjson_clen is strlen(kjson_text) for every text: keys and strings with
 * a "\u0000", a raw NUL byte or a bad escape of one (copied), plain ones
 * after them (in place), numbers, at every read size. */
static int test_tokenizer_clen(void) {
  static const char doc[] = "{\"a\\u0000b\": \"x\\u0000yz\", \"plain\": \"in place\", \"n\": 12, "
                            "\"r\": \"p\0q\", \"e\": \"\\\0z\", \"s\": \"\\u00e9\", \"k\\u0000\": 1.5}";
  for (size_t chunk = 1; chunk <= 4096; chunk *= 4) {
    membuf m = {doc, sizeof doc - 1, 0, chunk};
    kjson *j = kjson_open(mem_read, &m);
    ASSERT(j);
    kj_tok t;
    int texts = 0, cut = 0;
    while ((t = kjson_next(j)) != KJ_EOF && t != KJ_ERROR) {
      if (t != KJ_KEY && t != KJ_STR && t != KJ_NUM) continue;
      texts++;
      cut += kjson_clen(j) < kjson_len(j);
      ASSERT_EQ(kjson_clen(j), strlen(kjson_text(j)));
    }
    ASSERT_EQ(t, KJ_EOF);
    ASSERT_EQ(texts, 14);
    ASSERT_EQ(cut, 5); /* a\0b, x\0yz, p\0q, \\\0z, k\0 */
    kjson_free(&j);
  }
  return 0;
}

static int test_tokenizer(void) {
  char out[2048];
  for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
    ASSERT_EQ(tokenize("{\"a\": [1, -2.5e3, true, null], \"b\": \"x\\u00e9\\ud83d\\ude00\"}", chunk,
                       out, sizeof out),
              KJ_EOF);
    ASSERT_STR_EQ(out, "{|K:a|[|N:1|N:-2.5e3|t|n|]|K:b|S:x\xc3\xa9\xf0\x9f\x98\x80|}|");
    /* integers above int64 stay exact text */
    ASSERT_EQ(tokenize("[18446744073709551616123]", chunk, out, sizeof out), KJ_EOF);
    ASSERT_STR_EQ(out, "[|N:18446744073709551616123|]|");
    /* invalid UTF-8 becomes U+FFFD; bad escapes stay text; lone surrogates U+FFFD */
    ASSERT_EQ(tokenize("[\"a\xff" "b\xc3\", \"\\x41\\q\", \"\\ud800z\"]", chunk, out, sizeof out),
              KJ_EOF);
    ASSERT_STR_EQ(out, "[|S:a\xef\xbf\xbd" "b\xef\xbf\xbd|S:\\x41\\q|S:\xef\xbf\xbdz|]|");
    /* an unescaped quote inside a string (old Kineto) */
    ASSERT_EQ(tokenize("{\"name\": \"say \"hi\" now\", \"n\": 1}", chunk, out, sizeof out), KJ_EOF);
    ASSERT_STR_EQ(out, "{|K:name|S:say \"hi\" now|K:n|N:1|}|");
    /* NaN and Infinity as numbers */
    ASSERT_EQ(tokenize("[NaN, -Infinity]", chunk, out, sizeof out), KJ_EOF);
    ASSERT_STR_EQ(out, "[|N:NaN|N:-Infinity|]|");
  }
  ASSERT_EQ(tokenize("{\"a\": [1, 2", 4096, out, sizeof out), KJ_ERROR);
  ASSERT_CONTAINS(out, "truncated");
  ASSERT_EQ(tokenize("[1, }", 4096, out, sizeof out), KJ_ERROR);
  ASSERT_CONTAINS(out, "unexpected '}'");
  int64_t ns;
  ASSERT(kjson_us_to_ns("1414456661859.938", &ns));
  ASSERT_EQ(ns, 1414456661859938LL);
  ASSERT(kjson_us_to_ns("2.0004", &ns));
  ASSERT_EQ(ns, 2000);
  ASSERT(kjson_us_to_ns("2.0005", &ns));
  ASSERT_EQ(ns, 2001);
  ASSERT(kjson_us_to_ns("1621401187223197", &ns));
  ASSERT_EQ(ns, 1621401187223197000LL);
  ASSERT(kjson_us_to_ns("1.5e3", &ns));
  ASSERT_EQ(ns, 1500000);
  ASSERT(!kjson_us_to_ns("abc", &ns));
  int64_t v;
  ASSERT(!kjson_int64("18446744073709551616123", &v));
  ASSERT(kjson_int64("-42", &v));
  ASSERT_EQ(v, -42);
  /* the digit fast path and what it hands to strtoll/strtod */
  ASSERT(kjson_int64("123456789012345678", &v)); /* 18 digits */
  ASSERT_EQ(v, 123456789012345678LL);
  ASSERT(kjson_int64("9223372036854775807", &v)); /* 19 digits */
  ASSERT_EQ(v, INT64_MAX);
  ASSERT(kjson_int64("-9223372036854775808", &v));
  ASSERT_EQ(v, INT64_MIN);
  ASSERT(!kjson_int64("9223372036854775808", &v));
  ASSERT(kjson_int64("0", &v));
  ASSERT_EQ(v, 0);
  ASSERT(kjson_int64("12.0", &v));
  ASSERT_EQ(v, 12);
  ASSERT(!kjson_int64("12.5", &v));
  ASSERT(!kjson_int64("-", &v));
  ASSERT(!kjson_int64("", &v));
  ASSERT(!kjson_int64("12abc", &v));
  /* kjson_double's exact fast path (up to 15 digits) and strtod agree bit
   * for bit, on either side of its limits */
  unsigned long long st = 7;
  for (int i = 0; i < 20000; i++) {
    char num[64];
    int len = 0, digits = 1 + (int)rnd(&st, 18), point = (int)rnd(&st, (unsigned)digits + 2);
    if (rnd(&st, 3) == 0) num[len++] = '-';
    for (int d = 0; d < digits; d++) {
      if (d == point && d > 0) num[len++] = '.';
      num[len++] = (char)('0' + rnd(&st, 10));
    }
    num[len] = '\0';
    double want = strtod(num, NULL), got = kjson_double(num);
    if (memcmp(&want, &got, sizeof got) != 0) fprintf(stderr, "kjson_double(%s)\n", num);
    ASSERT(memcmp(&want, &got, sizeof got) == 0);
  }
  static const char *const reals[] = {"0.5925926", "-0", "0.1", "12.", ".5", "1e3", "4",
                                      "999999999999999", "9999999999999999", "0.000000000000001",
                                      "123456789012345.6", "-2.5", "1.7976931348623157e308"};
  for (size_t i = 0; i < sizeof reals / sizeof *reals; i++) {
    double want = strtod(reals[i], NULL), got = kjson_double(reals[i]);
    ASSERT(memcmp(&want, &got, sizeof got) == 0);
  }
  ASSERT(isnan(kjson_double("x")));
  /* words that only start like a literal are numbers (tokens), not literals */
  ASSERT_EQ(tokenize("[true, false, null, nul, t, fals]", 4096, out, sizeof out), KJ_EOF);
  ASSERT_STR_EQ(out, "[|t|f|n|N:nul|N:t|N:fals|]|");
  return 0;
}

/* A broken trace written here: big ints, bad bytes, stray quotes, truncated. */
/* Backward work the autograd engine runs is no forward op for seq pairing:
 * an AccumulateGrad that carries a sequence number inside the engine, then
 * a backward node with that number. Paired with it, the backward made a
 * second "AccumulateGrad" bprop node (the bprop of a bprop). */
static int test_engine_seq(void) {
  char path[1100];
  snprintf(path, sizeof path, "%s/engine_seq.pt.trace.json", work);
  FILE *f = fopen(path, "w");
  ASSERT_NOT_NULL(f);
  fputs("{\"schemaVersion\": 1, \"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, "
        "\"tid\": 1, \"ts\": 100, \"dur\": 900},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 110, \"dur\": 20, \"args\": {\"Sequence number\": 8}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"autograd::engine::evaluate_function: "
        "torch::autograd::AccumulateGrad\", \"pid\": 1, \"tid\": 2, \"ts\": 500, \"dur\": 100},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"torch::autograd::AccumulateGrad\", "
        "\"pid\": 1, \"tid\": 2, \"ts\": 505, \"dur\": 90, \"args\": {\"Sequence number\": 9}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"autograd::engine::evaluate_function: "
        "AddBackward0\", \"pid\": 1, \"tid\": 2, \"ts\": 700, \"dur\": 100},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"AddBackward0\", \"pid\": 1, \"tid\": 2, "
        "\"ts\": 705, \"dur\": 90, \"args\": {\"Sequence number\": 9, \"Fwd thread id\": 1}}\n"
        "]}\n",
        f);
  fclose(f);
  run_result r;
  run(path, NULL, &r);
  if (r.status) fprintf(stderr, "%s\n", r.out);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE "
                        "op_node_name = 'torch::autograd::AccumulateGrad'"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE op_node_name = "
                        "'torch::autograd::AccumulateGrad' AND direction = 'bprop'"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE op_node_name = 'AddBackward0' "
                        "AND direction = 'bprop'"), 1);
  return 0;
}

static int test_broken_trace(void) {
  char path[1100];
  snprintf(path, sizeof path, "%s/broken.pt.trace.json", work);
  FILE *f = fopen(path, "w");
  ASSERT_NOT_NULL(f);
  fputs("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU X\", "
        "\"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 100}],\n\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, "
        "\"tid\": 1, \"ts\": 100, \"dur\": 100},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm \xff bad\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 110, \"dur\": 20, \"args\": {\"Comms Id\": 340282366920938463463374607431768211456, "
        "\"Input Dims\": [[4, 8], [8, 2]], \"Input type\": [\"float\", \"float\"], \"Sequence number\": 5}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 112, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm \"quoted\" \\x kernel\", \"pid\": 0, \"tid\": 7, "
        "\"ts\": 120, \"dur\": 30, \"args\": {\"correlation\": 7, \"device\": 0, \"stream\": 7, "
        "\"grid\": [50, 1, 1], \"block\": [128, 1, 1]}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"late\", \"pid\": 0, \"tid\": 7, \"ts\": 160, \"du",
        f);
  fclose(f);
  run_result r;
  run(path, NULL, &r);
  ASSERT_EQ(r.status, 0);
  ASSERT_CONTAINS(r.out, "kept the 4 events before it");
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM kernels"), 1);
  /* names are valid UTF-8 in the file; the stray quotes and the bad escape are text */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE kernel_name = "
                        "'gemm \"quoted\" \\x kernel'"),
            1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM strings WHERE value LIKE 'aten::mm ' || "
                        "char(65533) || ' bad, seq = 5, sizes = [[4, 8], [8, 2]], dtype = float32'"),
            1);
  /* the op's kernel: blocks per SM from grid / numSms = 0.5 -> SM efficiency 50 % */
  ASSERT_NEAR(q_real(r.db, "SELECT est_sm_efficiency FROM view_dl_kernel_efficiency"), 50.0, 1e-9);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all"), 1);
  /* what was lost is said at -v minimal too (not at quiet) */
  run(path, "-v minimal", &r);
  ASSERT_EQ(r.status, 0);
  ASSERT_CONTAINS(r.out, "kept the 4 events before it");
  run(path, "-v quiet", &r);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(r.out[0], '\0');
  return 0;
}

/* ---- H100 traces vs TraceLens ------------------------------------------------ */

static int check_tracelens(const char *base) {
  char trace[1200], csv[1300];
  snprintf(trace, sizeof trace, "%s/tracelens_h100/%s.json.gz", kdir, base);
  run_result r;
  run(trace, NULL, &r);
  if (r.status != 0) fprintf(stderr, "%s\n", r.out);
  ASSERT_EQ(r.status, 0);
  /* per-kernel totals and counts (TraceLens groups by op too: sum its rows by name) */
  snprintf(csv, sizeof csv, "%s/tracelens_h100/%s_perf_report_csvs/kernel_summary.csv", kdir, base);
  FILE *f = fopen(csv, "r");
  ASSERT_NOT_NULL(f);
  static char line[1 << 16];
  ASSERT_NOT_NULL(fgets(line, sizeof line, f)); /* header */
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(r.db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  int rows = 0, names = 0;
  double ref_total = 0;
  while (fgets(line, sizeof line, f)) {
    char *fl[16];
    if (csv_fields(line, fl, 16) < 6) continue;
    const char *name = fl[2];
    /* all rows of this name */
    double sum_us = 0;
    int64_t count = 0;
    FILE *g = fopen(csv, "r");
    static char l2[1 << 16];
    ASSERT_NOT_NULL(fgets(l2, sizeof l2, g));
    int first = 0, seen = 0;
    while (fgets(l2, sizeof l2, g)) {
      char *f2[16];
      if (csv_fields(l2, f2, 16) < 6 || strcmp(f2[2], name) != 0) continue;
      if (!seen++) first = 1;
      sum_us += atof(f2[4]);
      count += atoll(f2[5]);
    }
    fclose(g);
    rows++;
    /* check each name once (on its first row) */
    static char done[64][2048];
    int dup = 0;
    for (int i = 0; i < names && i < 64; i++) dup |= strcmp(done[i], name) == 0;
    if (dup || !first) continue;
    if (names < 64) snprintf(done[names], sizeof done[names], "%s", name);
    names++;
    ref_total += sum_us;
    sqlite3_stmt *st = NULL;
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT sum(calls), sum(gpu_time) FROM view_dl_kernel_efficiency "
                                 "WHERE kernel_name = ?1 AND aggr_id = (SELECT max(aggr_id) FROM "
                                 "view_aggregations)",
                                 -1, &st, NULL),
              SQLITE_OK);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    int64_t calls = sqlite3_column_int64(st, 0), ns = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    if (calls != count) fprintf(stderr, "kernel %s\n", name);
    ASSERT_EQ(calls, count);
    ASSERT_NEAR((double)ns, sum_us * 1000.0, 0.5 * (double)count + 1e-6);
  }
  fclose(f);
  sqlite3_close(db);
  ASSERT(names > 5);
  /* nothing else ran */
  ASSERT_NEAR(q_real(r.db, "SELECT sum(gpu_time) FROM view_dl_kernel_efficiency"), ref_total * 1000.0,
              names + 1e-6);
  /* GPU busy time within 1 % of gpu_timeline.csv */
  snprintf(csv, sizeof csv, "%s/tracelens_h100/%s_perf_report_csvs/gpu_timeline.csv", kdir, base);
  f = fopen(csv, "r");
  ASSERT_NOT_NULL(f);
  double busy_ms = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "busy_time,", 10) == 0) busy_ms = atof(line + 10);
  fclose(f);
  ASSERT(busy_ms > 0);
  double busy_ns = q_real(r.db, "SELECT busy_time FROM view_dl_communication");
  ASSERT_NEAR(busy_ns, busy_ms * 1e6, busy_ms * 1e6 * 0.01);
  /* tensor cores: flash attention and (if present) wmma kernels are recognised */
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE kernel_name LIKE "
                     "'%flash_fwd_kernel%' AND uses_tc = 1") >= 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE kernel_name LIKE "
                        "'%wmma%' AND uses_tc = 0"),
            0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE kernel_name LIKE "
                        "'%tensorop%' AND uses_tc = 0"),
            0);
  /* ProfilerStep#6 is the one iteration; kernels carry est. SM efficiency */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all"), 1);
  ASSERT(q_real(r.db, "SELECT est_sm_efficiency FROM view_dl_gpu_efficiency") > 0);
  ASSERT(q_real(r.db, "SELECT est_achieved_occupancy FROM view_dl_gpu_efficiency") > 0);
  return 0;
}

static int test_h100_falconsai(void) { return check_tracelens("Falconsai_nsfw_image_detection__1016002"); }

/* PyTorch 2's with_stack=True: the stack is the python_function events
 * around an op (the trace's ops carry no "Call stack"). Every one of the
 * 1259 cpu_op and user_annotation events is inside some python_function
 * event of its thread (counted from the JSON with a script); ViT's patch
 * embedding conv2d inside 26 frames, from the process's "<string>(1):
 * <module>" to torch's "<built-in method conv2d ...>" */
static int test_h100_python_stacks(void) {
  char trace[1200];
  trace_path(trace, sizeof trace, "tracelens_h100/Falconsai_nsfw_image_detection__1016002.json.gz");
  run_result r;
  run(trace, NULL, &r);
  if (r.status) fprintf(stderr, "%s\n", r.out);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM nvtx_range_stacks"), 1259);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM nvtx_ranges"), 1259);
  const char *conv = "SELECT count(*) FROM view_op_nodes WHERE op_node_name = 'aten::conv2d' AND ";
  char sql[1024];
  snprintf(sql, sizeof sql, "%s length(stack_trace) - length(replace(stack_trace, char(10), '')) = 25", conv);
  ASSERT_EQ(q_int(r.db, sql), 1);
  snprintf(sql, sizeof sql, "%s stack_trace LIKE '<string>:1' || char(10) || 'multiprocessing/spawn.py:122' || "
                            "char(10) || '%%' || char(10) || 'nn.Module: Conv2d_0' || char(10) || "
                            "'torch/nn/modules/module.py:1743' || char(10) || 'torch/nn/modules/conv.py:553' "
                            "|| char(10) || 'torch/nn/modules/conv.py:536' || char(10) || "
                            "'<built-in method conv2d of type object at 0x7bcd86e1df60>'", conv);
  ASSERT_EQ(q_int(r.db, sql), 1);
  /* every op node has a stack trace */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE stack_trace = '' AND "
                        "op_node_name NOT LIKE 'unassociated_%'"), 0);
  return 0;
}

static int test_h100_bert(void) {
  int rc = check_tracelens("gaunernst_bert-small-uncased__1016001");
  if (rc) return rc;
  /* bert has a wmma kernel: recognised */
  char trace[1200];
  trace_path(trace, sizeof trace, "tracelens_h100/gaunernst_bert-small-uncased__1016001.json.gz");
  run_result r;
  run(trace, NULL, &r);
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE kernel_name LIKE "
                     "'%wmma%' AND uses_tc = 1") >= 1);
  return 0;
}

/* ---- resnet50 (TensorBoard plugin) ------------------------------------------ */

static double integral(cJSON *events, const char *counter, const char *arg) {
  double sum = 0, prev_t = 0, prev_v = 0;
  int have = 0;
  cJSON *e;
  cJSON_ArrayForEach(e, events) {
    cJSON *ph = cJSON_GetObjectItem(e, "ph"), *name = cJSON_GetObjectItem(e, "name");
    if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "C") || !cJSON_IsString(name) ||
        strcmp(name->valuestring, counter))
      continue;
    double t = cJSON_GetObjectItem(e, "ts")->valuedouble;
    double v = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), arg)->valuedouble;
    if (have) sum += prev_v * (t - prev_t);
    prev_t = t;
    prev_v = v;
    have = 1;
  }
  return sum;
}

static int test_resnet50_gpu_metrics(void) {
  char input[1200], expected[1200];
  trace_path(input, sizeof input, "resnet50_v100/gpu_metrics_input.json");
  trace_path(expected, sizeof expected, "resnet50_v100/gpu_metrics_expected.json");
  FILE *f = fopen(expected, "rb");
  ASSERT_NOT_NULL(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  ASSERT_EQ(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = '\0';
  fclose(f);
  cJSON *root = cJSON_Parse(text);
  free(text);
  ASSERT_NOT_NULL(root);
  cJSON *events = cJSON_GetObjectItem(root, "traceEvents"), *e;
  double step_us = 0;
  cJSON_ArrayForEach(e, events) {
    cJSON *name = cJSON_GetObjectItem(e, "name");
    if (cJSON_IsString(name) && strncmp(name->valuestring, "ProfilerStep#", 13) == 0)
      step_us += cJSON_GetObjectItem(e, "dur")->valuedouble;
  }
  /* The plugin's test scales its counters for display: GPU utilization by 100 and
   * est. SM efficiency by 10 ("Real data values are 1/100 / 1/10 of these",
   * tb_plugin test_profiler.py test_dump_gpu_metrics). */
  double util_pct = 100.0 * integral(events, "GPU 0 Utilization", "GPU Utilization") / 100.0 / step_us;
  double sm_pct = 100.0 * integral(events, "GPU 0 Est. SM Efficiency", "Est. SM Efficiency") / 10.0 / step_us;
  cJSON_Delete(root);
  ASSERT(step_us > 0);
  run_result r;
  run(input, NULL, &r);
  if (r.status) fprintf(stderr, "%s\n", r.out);
  ASSERT_EQ(r.status, 0);
  double ours_util = q_real(r.db, "SELECT gpu_utilization FROM view_dl_gpu_efficiency WHERE device_id = 0");
  double ours_sm = q_real(r.db, "SELECT est_sm_efficiency FROM view_dl_gpu_efficiency WHERE device_id = 0");
  fprintf(stderr, "resnet50 gpu_metrics: GPU utilization %.4f%% (plugin %.4f%%), est. SM efficiency "
                  "%.5f%% (plugin %.5f%%)\n",
          ours_util, util_pct, ours_sm, sm_pct);
  ASSERT_NEAR(ours_util, util_pct, 1.0);
  ASSERT_NEAR(ours_sm, sm_pct, 1.0);
  /* and much closer than the 1 pp the issue asks */
  ASSERT_NEAR(ours_util, util_pct, 0.01);
  ASSERT_NEAR(ours_sm, sm_pct, 0.001);
  ASSERT_NEAR(q_real(r.db, "SELECT gpu_utilization FROM view_performance_summary"), util_pct, 1.0);
  return 0;
}

static int test_resnet50_iterations(void) {
  const char *files[] = {"resnet50_v100/worker0.1623143089861.pt.trace.json.gz",
                         "resnet50_v100/worker0.1623143566756.pt.trace.json.gz"};
  for (int i = 0; i < 2; i++) {
    char trace[1200];
    trace_path(trace, sizeof trace, files[i]);
    run_result r;
    run(trace, NULL, &r);
    if (r.status) fprintf(stderr, "%s\n", r.out);
    ASSERT_EQ(r.status, 0);
    ASSERT_CONTAINS(r.out, "generation 1");
    /* progress, as for Nsight Systems exports: the file, then the analysis */
    ASSERT_CONTAINS(r.out, "dlprof: trace bytes: 0% (0 of ");
    ASSERT_CONTAINS(r.out, "dlprof: trace bytes: 100% (");
    ASSERT_CONTAINS(r.out, "dlprof: loading kernels: 100% (");
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all"), 6);
    ASSERT_EQ(q_int(r.db, "SELECT total_iterations FROM view_performance_summary"), 6);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_iteration_efficiency"), 6);
    ASSERT(q_real(r.db, "SELECT gpu_utilization FROM view_performance_summary") > 10);
    ASSERT(q_real(r.db, "SELECT min(est_sm_efficiency) FROM view_dl_iteration_efficiency") > 0);
    ASSERT(q_real(r.db, "SELECT est_sm_efficiency FROM view_dl_gpu_efficiency") <=
           q_real(r.db, "SELECT gpu_utilization FROM view_dl_gpu_efficiency") + 1e-9);
    ASSERT(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE op_node_name = 'aten::conv2d'") >= 1);
    ASSERT(q_int(r.db, "SELECT total_count FROM view_kernel_summary") > 10);
    /* the steps are the iterations, not ops: as six ops (one per step name)
     * each covering its whole step they doubled "All ops" CPU time and led
     * the top ops; the step's own calls outside every op are unassociated */
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE op_node_name LIKE 'ProfilerStep%'"), 0);
    /* each iteration keeps its step's name, which users match to their logs:
     * iteration i is ProfilerStep#(first + i) */
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_iteration_names n JOIN view_iterations_all a "
                          "ON a.aggr_id = n.aggr_id AND a.iter_value = n.iter_value"), 6);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_iteration_names WHERE name = "
                          "'ProfilerStep#' || (iter_value + (SELECT CAST(substr(name, 14) AS INTEGER) "
                          "FROM view_dl_iteration_names WHERE iter_value = 0))"), 6);
    /* each backward pairs with the op that created its autograd node: the
     * running-stats add before batch_norm and the zero_/view before the
     * first conv report the same seq but create none (they took every
     * CudnnBatchNormBackward: an aten::add bprop of 318 calls) */
    ASSERT_EQ(q_int(r.db, "SELECT num_calls FROM view_op_nodes WHERE "
                          "op_node_name = 'aten::batch_norm' AND direction = 'bprop'"), 318);
    ASSERT_EQ(q_int(r.db, "SELECT num_calls FROM view_op_nodes WHERE "
                          "op_node_name = 'aten::conv2d' AND direction = 'bprop'"), 318);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE direction = 'bprop' AND "
                          "op_node_name = 'aten::zero_'"), 0);
    ASSERT_EQ(q_int(r.db, "SELECT num_calls FROM view_op_nodes WHERE "
                          "op_node_name = 'aten::add' AND direction = 'fprop'"), 318);
    /* this PyTorch (2021) ran backward work on the engine's thread without
     * evaluate_function wrappers: a thread with backward ops and no forward
     * op that numbers a node is the engine's, and all its work is bprop:
     * AccumulateGrad (it was 966 fprop calls) and the residual blocks'
     * gradient sums (16 a step; they were counted as forward adds) */
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE "
                          "op_node_name = 'torch::autograd::AccumulateGrad' AND direction = 'fprop'"), 0);
    ASSERT_EQ(q_int(r.db, "SELECT num_calls FROM view_op_nodes WHERE "
                          "op_node_name = 'torch::autograd::AccumulateGrad' AND direction = 'bprop'"), 966);
    ASSERT_EQ(q_int(r.db, "SELECT num_calls FROM view_op_nodes WHERE "
                          "op_node_name = 'aten::add' AND direction = 'bprop'"), 16 * 6);
    if (i) {
      ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE "
                            "op_node_name = 'unassociated_cudaDeviceSynchronize'"), 1);
      /* "Input Dims" become the node's input shapes where every call has the
       * same (the classifier's linear layer), and none where they differ */
      ASSERT_EQ(q_int(r.db, "SELECT count(DISTINCT iter_value) FROM view_dl_iteration_op_kernels WHERE "
                            "op_node_name = 'aten::linear' AND direction = 'fprop' AND "
                            "input_shapes = '<32, 2048>; <1000, 2048>; <1000>'"), 6);
      ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM aggr_ops WHERE op_node_name = 'aten::conv2d' "
                            "AND direction = 'fprop' AND input_shapes IS NULL"), 1);
      continue;
    }
    /* Aggregated again: its key op (ProfilerStep#, one iteration per span)
     * without --key_op, so the same six iterations */
    run_result r2;
    run(r.db, "--iter_start=1 --iter_stop=3", &r2);
    if (r2.status) fprintf(stderr, "%s\n", r2.out);
    ASSERT_EQ(r2.status, 0);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_aggregations WHERE aggr_id = 2 AND "
                          "key_node_name = 'ProfilerStep#' AND iter_start = 1 AND iter_stop = 3"), 1);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all WHERE aggr_id = 2"), 6);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_iteration_names a JOIN view_dl_iteration_names b "
                          "ON b.aggr_id = 2 AND b.iter_value = a.iter_value AND b.name = a.name "
                          "WHERE a.aggr_id = 1"), 6);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE aggr_id = 2 AND "
                          "op_node_name LIKE 'ProfilerStep%'"), 0);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all a JOIN view_iterations_all b "
                          "ON b.aggr_id = 2 AND b.iter_value = a.iter_value AND "
                          "b.start_time = a.start_time AND b.stop_time = a.stop_time "
                          "WHERE a.aggr_id = 1"), 6);
    /* a dldb of schema 3 (before iteration names) aggregates again, without names */
    char old[1300];
    ASSERT_OK(old_schema_copy(r.db, 3,
                              "DROP TABLE nvtx_range_stacks; DROP VIEW view_dl_iteration_names; "
                              "DROP TABLE aggr_dl_iter_names",
                              old, sizeof old));
    run_result r4;
    run(old, "--iter_start=2 --iter_stop=4", &r4);
    if (r4.status) fprintf(stderr, "%s\n", r4.out);
    ASSERT_EQ(r4.status, 0);
    ASSERT_EQ(q_int(old, "SELECT count(*) FROM view_aggregations WHERE iter_start = 2 AND iter_stop = 4"), 1);
    ASSERT_EQ(q_int(old, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%iter_names'"), 0);
    unlink(old);
    /* and with no option that shapes an aggregation: the reports, no copy */
    run_result r3;
    run(r.db, NULL, &r3);
    ASSERT_EQ(r3.status, 0);
    ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_aggregations"), 2);
    char sum[1200];
    snprintf(sum, sizeof sum, "%s", r3.db);
    char *slash = strrchr(sum, '/');
    ASSERT(slash != NULL);
    snprintf(slash, sizeof sum - (size_t)(slash - sum), "/dlprof_summary.csv");
    ASSERT(access(sum, F_OK) == 0);
  }
  return 0;
}

/* Call stacks (the trace was recorded with_stack=True): each op's stack
 * trace in DLProf's form, the stack most of its calls came from. */
static int test_resnet50_stacks(void) {
  char trace[1200];
  trace_path(trace, sizeof trace, "resnet50_v100/worker0.1623143566756.pt.trace.json.gz");
  run_result r;
  run(trace, NULL, &r);
  if (r.status) fprintf(stderr, "%s\n", r.out);
  ASSERT_EQ(r.status, 0);
  /* every "Operator" event of the trace has a "Call stack" (14994) */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM nvtx_range_stacks"), 14994);
  /* 318 conv2d calls from 17 stacks (ResNet's stem, each layer's blocks):
   * the stack of 36 of them, outermost frame first, "file:line" */
  const char *conv = "SELECT count(*) FROM view_op_nodes WHERE op_node_name = 'aten::conv2d' AND ";
  char sql[2048];
  snprintf(sql, sizeof sql, "%s stack_trace LIKE 'resnet50_profiler_api.py:46' || char(10) || "
                            "'%%/torch/nn/modules/module.py:1051' || char(10) || '%%' AND stack_trace LIKE "
                            "'%%/torch/nn/modules/conv.py:443' || char(10) || '%%/torch/nn/modules/conv.py:440' "
                            "|| char(10) || '(this stack: 36 of 318 calls; 16 other stacks)'", conv);
  ASSERT_EQ(q_int(r.db, sql), 2); /* bprop shows its forward op's */
  snprintf(sql, sizeof sql, "%s direction = 'fprop' AND stack_trace = (SELECT stack_trace FROM view_op_nodes "
                            "WHERE op_node_name = 'aten::conv2d' AND direction = 'bprop')", conv);
  ASSERT_EQ(q_int(r.db, sql), 1);
  /* one stack for every call: no count line (the optimizer's zero_grad, an
   * op of its own that owns the aten::zero_ calls inside it) */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE op_node_name = "
                        "'Optimizer.zero_grad#SGD.zero_grad' AND stack_trace LIKE "
                        "'resnet50_profiler_api.py:49' || char(10) || '%' || "
                        "'/torch/optim/optimizer.py:205' || char(10) || '%' AND "
                        "instr(stack_trace, '(this stack') = 0"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE op_node_name = 'aten::zero_'"), 0);
  /* the autograd engine's thread has no Python stack */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE "
                        "op_node_name = 'torch::autograd::AccumulateGrad' AND stack_trace = ''"), 1);
  /* the same stacks aggregated again from the dldb */
  run_result r2;
  run(r.db, "--iter_start=1 --iter_stop=2", &r2);
  ASSERT_EQ(r2.status, 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes a JOIN view_op_nodes b ON b.aggr_id = 2 AND "
                        "b.op_node_id = a.op_node_id AND b.stack_trace = a.stack_trace WHERE a.aggr_id = 1"),
            q_int(r.db, "SELECT count(*) FROM view_op_nodes a JOIN view_op_nodes b ON b.aggr_id = 2 AND "
                        "b.op_node_id = a.op_node_id WHERE a.aggr_id = 1"));
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE aggr_id = 2 AND stack_trace != ''") > 30);
  /* a dldb of schema 4 (before stacks) aggregates again, without them */
  char old[1300];
  ASSERT_OK(old_schema_copy(r.db, 4, "DROP TABLE nvtx_range_stacks", old, sizeof old));
  run_result r3;
  run(old, "--iter_start=0 --iter_stop=3", &r3);
  if (r3.status) fprintf(stderr, "%s\n", r3.out);
  ASSERT_EQ(r3.status, 0);
  ASSERT_EQ(q_int(old, "SELECT count(*) FROM view_op_nodes WHERE aggr_id = 3 AND stack_trace != ''"), 0);
  ASSERT(q_int(old, "SELECT count(*) FROM view_op_nodes WHERE aggr_id = 3") > 30);
  unlink(old);
  /* a trace whose stacks are all empty stores none */
  trace_path(trace, sizeof trace, "hta/trace_diff_control_control.json.gz");
  run(trace, NULL, &r);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM nvtx_range_stacks"), 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE stack_trace != ''"), 0);
  return 0;
}

/* ---- HTA traces --------------------------------------------------------------- */

static int test_hta_control(void) {
  char trace[1200];
  trace_path(trace, sizeof trace, "hta/trace_diff_control_control.json.gz");
  run_result r;
  run(trace, NULL, &r);
  if (r.status) fprintf(stderr, "%s\n", r.out);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all"), 6);
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_iteration_kernels WHERE uses_tc = 1") >= 1000);
  ASSERT(q_real(r.db, "SELECT tc_utilization FROM view_tc_utilization") > 0);
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE is_communication = 1") >= 1);
  /* what the autograd engine runs is backward work, whatever its name: a
   * C++ autograd node, AccumulateGrad (inside evaluate_function wrappers) */
  ASSERT_EQ(q_int(r.db, "SELECT num_calls FROM view_op_nodes WHERE direction = 'bprop' AND "
                        "op_node_name = 'torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>'"), 12);
  ASSERT_EQ(q_int(r.db, "SELECT num_calls FROM view_op_nodes WHERE direction = 'bprop' AND "
                        "op_node_name = 'torch::autograd::AccumulateGrad'"), 1554);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE direction = 'fprop' AND "
                        "(op_node_name LIKE 'torch::autograd::CppNode<%' OR "
                        "op_node_name = 'torch::autograd::AccumulateGrad')"), 0);
  /* and at any depth inside the engine: DDP's gradient all-reduce
   * (evaluate_function > c10d::allreduce_ > record_param_comms > nccl:all_reduce) */
  ASSERT_EQ(q_int(r.db, "SELECT num_calls FROM view_op_nodes WHERE direction = 'bprop' AND "
                        "op_node_name = 'nccl:all_reduce'"), 18);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE direction = 'fprop' AND "
                        "op_node_name IN ('nccl:all_reduce', 'c10d::allreduce_')"), 0);
  return 0;
}

/* The earliest time of the imported records: never negative when the
 * origin is the trace's earliest event (one found after thousands of later
 * ones, or after an event with arrays in its members, included). */
#define MIN_TIME_SQL                                                                    \
  "SELECT min(m) FROM (SELECT min(gpu_start_ns) m FROM kernels UNION ALL SELECT "       \
  "min(start_ns) FROM nvtx_ranges UNION ALL SELECT min(start_ns) FROM cuda_api_calls " \
  "UNION ALL SELECT min(gpu_start_ns) FROM memcpys UNION ALL SELECT min(gpu_start_ns) "  \
  "FROM memsets UNION ALL SELECT min(start_time) FROM view_iterations_all)"

static int test_hta_nccl(void) {
  char trace[1200];
  trace_path(trace, sizeof trace, "hta/nccl_parser_config_nccl_data.json.gz");
  run_result r;
  run(trace, NULL, &r);
  if (r.status) fprintf(stderr, "%s\n", r.out);
  ASSERT_EQ(r.status, 0);
  ASSERT(q_int(r.db, "SELECT communication_time FROM view_dl_communication") > 0);
  double comm = q_real(r.db, "SELECT communication_time FROM view_dl_communication");
  double exposed = q_real(r.db, "SELECT exposed_communication_time FROM view_dl_communication");
  ASSERT(exposed >= 0 && exposed <= comm);
  ASSERT_NEAR(q_real(r.db, "SELECT exposed_communication_pct FROM view_dl_communication"),
              100.0 * exposed / q_real(r.db, "SELECT wall_clock_time FROM view_dl_communication"),
              1e-6);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all"), 3);
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE is_communication = 1 "
                     "AND kernel_name LIKE 'ncclKernel%'") >= 1 ||
         q_int(r.db, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE is_communication = 1") >= 1);
  /* the rule fires exactly when exposed communication is above 10 % of the step time */
  int fires = q_int(r.db, "SELECT count(*) FROM aggr_findings WHERE rule_id = "
                          "'exposed_communication_detector'") > 0;
  ASSERT_EQ(fires, q_real(r.db, "SELECT max(exposed_communication_pct) FROM view_dl_communication") > 10.0);
  ASSERT_EQ(q_int(r.db, "SELECT value FROM dl_meta WHERE key = 'kineto_world_size'"), 2);
  /* its earliest events come after its first 4096 */
  ASSERT(q_int(r.db, MIN_TIME_SQL) >= 0);
  return 0;
}

static int test_hta_two_ranks(void) {
  char dir[1100], a[1200], b[1200], la[1300], lb[1300];
  snprintf(dir, sizeof dir, "%s/two_ranks", work);
  mkdir(dir, 0755);
  trace_path(a, sizeof a, "hta/trace_filter_sampled_rank-0.json.gz");
  trace_path(b, sizeof b, "hta/trace_filter_sampled_rank-1.json.gz");
  snprintf(la, sizeof la, "%s/rank-0.json.gz", dir);
  snprintf(lb, sizeof lb, "%s/rank-1.json.gz", dir);
  unlink(la);
  unlink(lb);
  ASSERT_OK(symlink(a, la));
  ASSERT_OK(symlink(b, lb));
  run_result r;
  run(dir, NULL, &r);
  if (r.status) fprintf(stderr, "%s\n", r.out);
  ASSERT_EQ(r.status, 0);
  ASSERT_CONTAINS(r.out, "from 2 file(s)");
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_gpu_names"), 2);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_gpu_names WHERE gpu_name LIKE 'rank 0, GPU %'"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_gpu_names WHERE gpu_name LIKE 'rank 1, GPU %'"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_gpu_devices"), 2);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_communication"), 2);
  /* the ranks' ProfilerStep#551/#552 merge: two iterations, not four */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all"), 2);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_iteration_names WHERE "
                        "(iter_value = 0 AND name = 'ProfilerStep#551') OR "
                        "(iter_value = 1 AND name = 'ProfilerStep#552')"), 2);
  ASSERT_EQ(q_int(r.db, "SELECT value FROM dl_meta WHERE key = 'kineto_world_size'"), 128);
  /* every kernel found its launch on its own rank */
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_op_nodes WHERE op_node_name LIKE 'unassociated%' "
                     "AND gpu_time > 0") == 0);
  return 0;
}

static int test_hta_corner_cases(void) {
  char trace[1200];
  run_result r;
  /* CPU only: ops and CPU time, "no GPU activity" */
  trace_path(trace, sizeof trace, "hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  run(trace, NULL, &r);
  ASSERT_EQ(r.status, 0);
  ASSERT_CONTAINS(r.out, "no GPU activity");
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_op_nodes") > 0);
  ASSERT(q_int(r.db, "SELECT sum(cpu_time) FROM view_op_nodes") > 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM aggr_findings WHERE rule_id = 'no_gpu_activity_detector'"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT value FROM dl_meta WHERE key = 'kineto_world_size'"), 300);
  /* a rank without GPU events */
  trace_path(trace, sizeof trace, "hta/rank_non_gpu_rank_non_gpu.json.gz");
  run(trace, NULL, &r);
  ASSERT_EQ(r.status, 0);
  ASSERT_CONTAINS(r.out, "rank 0 has no GPU activity");
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM aggr_findings WHERE rule_id = 'no_gpu_activity_detector'"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all"), 1);
  /* AMD MI250: the GPU's compute units are known but no kernel has a grid,
   * so est. SM efficiency is unknown (NULL), not 0.0 %; the Tensile GEMMs
   * run on matrix cores */
  trace_path(trace, sizeof trace, "hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  run(trace, NULL, &r);
  ASSERT_EQ(r.status, 0);
  ASSERT(q_int(r.db, "SELECT sm_count FROM view_gpu_devices") > 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_gpu_efficiency WHERE est_sm_efficiency IS NULL"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_dl_iteration_efficiency WHERE est_sm_efficiency IS NOT NULL"), 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_kernel_summaries WHERE kernel_name LIKE 'Cijk_%' AND uses_tc = 0"), 0);
  ASSERT(q_int(r.db, "SELECT count(*) FROM view_kernel_summaries WHERE kernel_name LIKE 'Cijk_%'") >= 1);
  /* its last step, ProfilerStep#2, is 49 us of CPU work cut off by the end of
   * profiling (no GPU work): an iteration, but out of the default aggregation,
   * which the average iteration time (4.69 ms with it) no longer halves */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_iterations_all"), 2);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_aggregations WHERE iter_start = 0 AND iter_stop = 0"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT iter_avg FROM view_performance_summary"),
            q_int(r.db, "SELECT duration FROM view_iterations_all WHERE iter_value = 0"));
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_expert_systems WHERE problem LIKE "
                        "'The last iteration (1, ProfilerStep#2) was cut short by the end of profiling: "
                        "it lasts 0.049 ms and runs no GPU work, against a median of 9.288 ms%' AND "
                        "recommendation LIKE '%(iterations 0 to 0)%--iter_stop=1'"), 1);
  /* asked for, it is aggregated, and nothing is said */
  run_result r2;
  run(r.db, "--iter_stop=1", &r2);
  ASSERT_EQ(r2.status, 0);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_aggregations WHERE aggr_id = 2 AND iter_stop = 1"), 1);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_expert_systems WHERE aggr_id = 2 AND problem LIKE '%cut short%'"), 0);
  /* an AMD GPU: no advice to use NVIDIA DALI (it ran "No DALI ops detected") */
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_expert_systems WHERE aggr_id = 1"), 2);
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_expert_systems WHERE problem || recommendation LIKE '%DALI%'"), 0);
  /* missing distributedInfo: rank 0 */
  trace_path(trace, sizeof trace, "hta/distributed_info_unavailable_distributed_info_not_found.json.gz");
  run(trace, NULL, &r);
  ASSERT_EQ(r.status, 0);
  ASSERT_CONTAINS(r.out, "no distributedInfo, taken as rank 0");
  ASSERT_EQ(q_int(r.db, "SELECT value FROM dl_meta WHERE key = 'kineto_ranks'"), 0);
  /* an Execution Trace: refused, nothing left behind */
  trace_path(trace, sizeof trace, "hta/execution_trace_benchmark_simple_add_et.json.gz");
  run(trace, NULL, &r);
  ASSERT_EQ(r.status, 1);
  ASSERT_CONTAINS(r.out, "Execution Trace");
  ASSERT(access(r.db, F_OK) != 0);
  /* a directory with a GPU rank and a rank without GPU events */
  char dir[1100], a[1200], b[1200], la[1300], lb[1300];
  snprintf(dir, sizeof dir, "%s/mixed_ranks", work);
  mkdir(dir, 0755);
  trace_path(a, sizeof a, "hta/trace_diff_control_control.json.gz");
  trace_path(b, sizeof b, "hta/rank_non_gpu_rank_non_gpu.json.gz");
  snprintf(la, sizeof la, "%s/a.json.gz", dir);
  snprintf(lb, sizeof lb, "%s/b.json.gz", dir);
  unlink(la);
  unlink(lb);
  ASSERT_OK(symlink(a, la));
  ASSERT_OK(symlink(b, lb));
  run(dir, NULL, &r);
  ASSERT_EQ(r.status, 0);
  ASSERT_CONTAINS(r.out, "rank 0 has no GPU activity");
  ASSERT_EQ(q_int(r.db, "SELECT count(*) FROM view_gpu_names WHERE gpu_name LIKE 'rank 3, GPU %'"), 1);
  return 0;
}

static int test_hta_every_trace(void) {
  /* every other HTA trace imports */
  const char *ok[] = {"amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz",
                      "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
                      "critical_path_cuda_event_sync_event_sync_trace.json.gz",
                      "triton_example_triton_example.json.gz"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    char trace[1200];
    snprintf(trace, sizeof trace, "%s/hta/%s", kdir, ok[i]);
    run_result r;
    run(trace, NULL, &r);
    if (r.status) fprintf(stderr, "%s: %s\n", ok[i], r.out);
    ASSERT_EQ(r.status, 0);
    ASSERT(q_int(r.db, "SELECT count(*) FROM kernels") > 0);
    ASSERT(q_int(r.db, "SELECT count(*) FROM view_dl_gpu_efficiency") >= 1);
    ASSERT(q_int(r.db, MIN_TIME_SQL) >= 0);
  }
  return 0;
}

/* ---- kstack: an op's stack from the python_function events around it ------ */

static char stack_of[8][256];

static int read_stacks(const char *db) {
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  memset(stack_of, 0, sizeof stack_of);
  ASSERT_EQ(sqlite3_open(db, &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT x.range_id, s.value FROM nvtx_range_stacks x "
                                  "JOIN strings s ON s.id = x.stack_id", -1, &st, NULL),
            SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    if (id >= 1 && id < 8) snprintf(stack_of[id], sizeof stack_of[id], "%s", sqlite3_column_text(st, 1));
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return 0;
}

static int test_kstack(void) {
  char db[1200], err[256];
  snprintf(db, sizeof db, "%s/kstack.sqlite", work);
  unlink(db);
  dldb_write_opts o = {.force = 1};
  dldb_writer *w = NULL;
  ASSERT_OK(dldb_writer_create(db, &o, &w, err, sizeof err));
  /* ranges 1..7: on thread 1 inside main > f > g, inside main > f, a range
   * outlasting a frame by 1 ns (the trace's rounding), before every frame; on
   * thread 2 inside its own frame; in another process with thread 1's tid;
   * on a thread without frames (range 3 outlasts the frame h by 1 ns) */
  static const struct { int64_t pid, tid, start, end; } rg[] = {
      {10, 1, 120, 130}, {10, 1, 105, 108}, {10, 1, 150, 181}, {10, 1, 50, 60},
      {10, 2, 110, 115}, {11, 1, 120, 130}, {10, 3, 120, 130},
  };
  for (size_t i = 0; i < sizeof rg / sizeof rg[0]; i++) {
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = "op", .start_ns = rg[i].start,
                         .end_ns = rg[i].end, .pid = rg[i].pid, .tid = rg[i].tid};
    int64_t id;
    ASSERT_OK(dldb_write_nvtx_range(w, &r, &id, err, sizeof err));
    ASSERT_EQ(id, (int64_t)i + 1);
  }
  kstack *s = kstack_new();
  ASSERT(s != NULL);
  /* frames and ranges in no order */
  ASSERT_OK(kstack_range(s, 3, 10, 1, 150, 181));
  ASSERT_OK(kstack_frame(s, 10, 1, 110, 140, "m.py(3): g"));
  ASSERT_OK(kstack_frame(s, 10, 1, 100, 200, "m.py(1): main"));
  ASSERT_OK(kstack_range(s, 1, 10, 1, 120, 130));
  ASSERT_OK(kstack_frame(s, 10, 2, 100, 120, "t.py(9): worker"));
  ASSERT_OK(kstack_frame(s, 10, 1, 101, 190, "m.py(2): f"));
  ASSERT_OK(kstack_frame(s, 10, 1, 145, 180, "m.py(4): h"));
  for (int64_t i = 2; i <= 7; i++)
    if (i != 3) ASSERT_OK(kstack_range(s, i, rg[i - 1].pid, rg[i - 1].tid, rg[i - 1].start, rg[i - 1].end));
  int64_t n = -1;
  ASSERT_OK(kstack_write(s, w, &n, err, sizeof err));
  kstack_free(&s);
  ASSERT(s == NULL);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  ASSERT_EQ(n, 4);
  ASSERT_OK(read_stacks(db));
  ASSERT_STR_EQ(stack_of[1], "m.py(3): g;m.py(2): f;m.py(1): main");
  ASSERT_STR_EQ(stack_of[2], "m.py(2): f;m.py(1): main");
  ASSERT_STR_EQ(stack_of[3], "m.py(2): f;m.py(1): main"); /* h ends 1 ns before it */
  ASSERT_STR_EQ(stack_of[4], "");
  ASSERT_STR_EQ(stack_of[5], "t.py(9): worker");
  ASSERT_STR_EQ(stack_of[6], "");
  ASSERT_STR_EQ(stack_of[7], "");
  /* no frames: nothing written, nothing kept */
  s = kstack_new();
  ASSERT_OK(kstack_range(s, 1, 10, 1, 120, 130));
  ASSERT_OK(dldb_writer_create(db, &o, &w, err, sizeof err));
  ASSERT_OK(kstack_write(s, w, &n, err, sizeof err));
  ASSERT_EQ(n, 0);
  kstack_free(&s);
  dldb_writer_abort(&w);
  unlink(db);
  return 0;
}

/* ---- kpipe: records cross to the writing thread in order ----------------- */

typedef struct pipe_check {
  uint64_t next;   /* the sequence number expected next */
  uint64_t fail_at;
  size_t bytes;
  int bad;
} pipe_check;

/* Record i: its sequence number, then (i * 7919) % 3000 bytes of (i & 0xff). */
static size_t rec_len(uint64_t i) { return sizeof i + (size_t)((i * 7919) % 3000); }

static int pipe_fn(void *ctx, const void *rec, size_t len) {
  pipe_check *c = ctx;
  uint64_t i;
  memcpy(&i, rec, sizeof i);
  if (i != c->next || len != rec_len(i)) c->bad = 1;
  for (size_t k = sizeof i; k < len; k++)
    if (((const unsigned char *)rec)[k] != (unsigned char)(i & 0xff)) c->bad = 1;
  c->next++;
  c->bytes += len;
  return i == c->fail_at ? DL_EIO : 0;
}

static int put_rec(kpipe *p, uint64_t i) {
  int rc = 0;
  size_t len = rec_len(i);
  unsigned char *r = kpipe_reserve(p, len, &rc);
  if (!r) return rc;
  memcpy(r, &i, sizeof i);
  memset(r + sizeof i, (int)(i & 0xff), len - sizeof i);
  return kpipe_commit(p, len);
}

static int test_kpipe(void) {
  /* 20,000 records of 8 B to 3 KB (about 30 MB: many blocks, all in flight) */
  pipe_check c = {.fail_at = UINT64_MAX};
  kpipe *p = NULL;
  ASSERT_OK(kpipe_start(&p, pipe_fn, &c));
  for (uint64_t i = 0; i < 20000; i++) ASSERT_OK(put_rec(p, i));
  ASSERT_OK(kpipe_flush(p));
  ASSERT_EQ(c.next, 20000);
  ASSERT_EQ(c.bad, 0);
  /* the pipe goes on after a flush */
  for (uint64_t i = 20000; i < 20100; i++) ASSERT_OK(put_rec(p, i));
  ASSERT_OK(kpipe_stop(&p));
  ASSERT(p == NULL);
  ASSERT_EQ(c.next, 20100);
  ASSERT_EQ(c.bad, 0);
  /* a record larger than a block is refused */
  ASSERT_OK(kpipe_start(&p, pipe_fn, &c));
  int rc = 0;
  ASSERT(kpipe_reserve(p, KPIPE_BLOCK, &rc) == NULL);
  ASSERT_EQ(rc, DL_EINVAL);
  ASSERT_OK(kpipe_stop(&p));
  /* the consumer's error stops the calls and comes back to the producer */
  pipe_check f = {.fail_at = 1000};
  ASSERT_OK(kpipe_start(&p, pipe_fn, &f));
  int first = 0;
  for (uint64_t i = 0; i < 20000 && !first; i++) first = put_rec(p, i);
  int flushed = kpipe_flush(p);
  ASSERT_EQ(first ? first : flushed, DL_EIO);
  ASSERT_EQ(f.next, 1001); /* nothing after the failing record */
  ASSERT_EQ(kpipe_stop(&p), DL_EIO);
  ASSERT_EQ(f.bad, 0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_kineto DLPROF SHARED_DIR WORK_DIR\n");
    return 2;
  }
  dlprof_bin = argv[1];
  static char wbuf[1024];
  snprintf(wbuf, sizeof wbuf, "%s/kineto-work", argv[3]);
  work = wbuf;
  mkdir(work, 0755);
  RUN(test_tokenizer);
  RUN(test_tokenizer_clen);
  RUN(test_tokenizer_scanners);
  RUN(test_tokenizer_render);
  RUN(test_tokenizer_paths);
  RUN(test_kpipe);
  RUN(test_kstack);
  RUN(test_broken_trace);
  RUN(test_engine_seq);
  snprintf(kdir, sizeof kdir, "%s/traces/kineto", argv[2]);
  struct stat sb;
  if (stat(kdir, &sb) != 0) {
    fprintf(stderr, "SKIP real traces: %s not found\n", kdir);
    if (test__failed) TEST_DONE();
    return 77;
  }
  RUN(test_h100_falconsai);
  RUN(test_h100_bert);
  RUN(test_h100_python_stacks);
  RUN(test_resnet50_gpu_metrics);
  RUN(test_resnet50_iterations);
  RUN(test_resnet50_stacks);
  RUN(test_hta_control);
  RUN(test_hta_nccl);
  RUN(test_hta_two_ranks);
  RUN(test_hta_corner_cases);
  RUN(test_hta_every_trace);
  TEST_DONE();
}
