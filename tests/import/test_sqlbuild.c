/*
 * test_sqlbuild.c - a WITHOUT ROWID table and a rowid table built page by
 * page (common/dl_sqlbuild.h), each alone and both in one set with their
 * rows interleaved, against the same rows inserted by SQLite into twin
 * tables of the same file: every value and its type, the rowids, the
 * records' bytes (dbstat's payload), PRAGMA integrity_check, and SQLite
 * inserting into the built trees afterwards; page sizes of 512 to 65,536
 * bytes, reserved bytes, overflow chains, every row count up to three
 * levels of small pages (each way a page can be left full when the rows
 * end); the declines and the rows refused. A set written past the page
 * cache (dl_sqlbuild_uncached) reads back the same, and where the file
 * system takes direct writes its pages are not left in the cache.
 */
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "dl.h"
#include "dl_direct.h"
#include "dl_sqlbuild.h"
#include "test.h"
#include "test_sql.h"

static const char *workdir;
static char path[4096];
static int uncached; /* build_case's sets: dl_sqlbuild_uncached */

#define COLS "(a INTEGER NOT NULL, b INT NOT NULL, c INTEGER, r REAL, d DOUBLE, x TEXT, " \
             "y BLOB, z, n NUMERIC, PRIMARY KEY (a, b)) WITHOUT ROWID"
/* the rowid tables: the rowid is column id */
#define RCOLS "(id INTEGER PRIMARY KEY, b INT NOT NULL, c INTEGER, r REAL, d DOUBLE, x TEXT, " \
              "y BLOB, z, n NUMERIC)"
enum { NC = 9 };
/* what build_case builds: t alone, rt alone, or both in one set */
enum { ONLY_T, ONLY_RT, BOTH };

static uint64_t rnd_state;
static uint64_t rnd(void) {
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 7;
  rnd_state ^= rnd_state << 17;
  return rnd_state;
}

/* An integer of a random width (0, 1, negatives, up to 64 bits). */
static int64_t any_int(void) {
  static const int bits[] = {0, 1, 2, 7, 8, 15, 16, 23, 24, 31, 32, 47, 48, 62, 63};
  int b = bits[rnd() % (sizeof bits / sizeof bits[0])];
  int64_t v = b ? (int64_t)(rnd() >> (64 - b)) : 0;
  return rnd() % 3 == 0 ? -v : v;
}

/* Row i's values (texts and BLOBs in buf). big: long texts (overflow). */
static void row_of(int64_t i, dl_sqlpage_val *v, char *buf, int big) {
  memset(v, 0, NC * sizeof *v);
  v[0] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = i / 3 - 1000};
  v[1] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = i % 3 * 1000003 - 7};
  for (int c = 2; c < NC; c++) {
    int k = (int)(rnd() % 7);
    if (k == 0) v[c].type = SQLITE_NULL;
    else if (k <= 2) v[c] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = any_int()};
    else if (k == 3) v[c] = (dl_sqlpage_val){.type = SQLITE_FLOAT, .d = (double)any_int()};
    else if (k == 4)
      v[c] = (dl_sqlpage_val){.type = SQLITE_FLOAT, .d = (double)any_int() / 8.0 + 0.25};
    else if (k == 5) v[c] = (dl_sqlpage_val){.type = SQLITE_FLOAT, .d = rnd() % 9 ? 1e300 : NAN};
    else v[c] = (dl_sqlpage_val){.type = SQLITE_FLOAT, .d = -0.0};
  }
  /* texts and BLOBs only where SQLite keeps them as they are */
  v[5].type = SQLITE_NULL;
  if (rnd() % 4) {
    size_t n = big && rnd() % 3 == 0 ? 100 + rnd() % 150000 : rnd() % 40;
    for (size_t k = 0; k < n; k++) buf[k] = (char)('a' + (i + (int64_t)k) % 26);
    v[5] = (dl_sqlpage_val){.type = SQLITE_TEXT, .s = buf, .n = n};
  }
  if (rnd() % 3 == 0) {
    size_t n = big && rnd() % 3 == 0 ? 3000 + rnd() % 20000 : rnd() % 20;
    for (size_t k = 0; k < n; k++) buf[200000 + k] = (char)(k * 7 + (size_t)i);
    v[6] = (dl_sqlpage_val){.type = SQLITE_BLOB, .s = buf + 200000, .n = n};
  }
  if (rnd() % 5 == 0) v[7] = (dl_sqlpage_val){.type = SQLITE_TEXT, .s = "zz", .n = 2};
  if (rnd() % 2 == 0) { /* half the rows numbers and NULLs alone (the builds' common rows) */
    v[5].type = SQLITE_NULL;
    for (int c = 6; c <= 7; c++)
      v[c] = rnd() % 2 ? (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = any_int()}
                       : (dl_sqlpage_val){.type = SQLITE_NULL};
  }
}

/* Rows 0 .. n - 1 (row_of, long texts) from seed into b: DL_OK, or the
 * first row's failure. */
static int add_rows(dl_sqlbuild *b, int64_t n, uint64_t seed) {
  static char buf[400000];
  dl_sqlpage_val v[NC];
  rnd_state = seed;
  for (int64_t i = 0; i < n; i++) {
    row_of(i, v, buf, 1);
    int rc = dl_sqlbuild_row(b, v);
    if (rc) return rc;
  }
  return DL_OK;
}

/* Row i of the rowid tables: row_of's with rowids in steps of 1 or 4 from
 * -1000 (negative, zero and up). */
static void rrow_of(int64_t i, dl_sqlpage_val *v, char *buf, int big) {
  row_of(i, v, buf, big);
  v[0] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = i * 3 + i % 3 - 1000};
}

static void bind_row(sqlite3_stmt *st, const dl_sqlpage_val *v) {
  sqlite3_reset(st);
  for (int c = 0; c < NC; c++) {
    if (v[c].type == SQLITE_INTEGER) sqlite3_bind_int64(st, c + 1, v[c].i);
    else if (v[c].type == SQLITE_FLOAT) sqlite3_bind_double(st, c + 1, v[c].d);
    else if (v[c].type == SQLITE_TEXT)
      sqlite3_bind_text(st, c + 1, v[c].s, (int)v[c].n, SQLITE_STATIC);
    else if (v[c].type == SQLITE_BLOB)
      sqlite3_bind_blob(st, c + 1, v[c].s, (int)v[c].n, SQLITE_STATIC);
    else sqlite3_bind_null(st, c + 1);
  }
}

/* A digest of the columns a rowid table stores as given (the rowid, b, x,
 * y; NaN is NULL): what dl_sqlbuild_read gives back is checked by it. */
static uint64_t digest(const dl_sqlpage_val *v, const int *cols, int ncols) {
  uint64_t h = 1469598103934665603ull;
  for (int k = 0; k < ncols; k++) {
    const dl_sqlpage_val *c = &v[cols[k]];
    int type = c->type == SQLITE_FLOAT && isnan(c->d) ? SQLITE_NULL : c->type;
    uint64_t x = (uint64_t)type;
    if (type == SQLITE_INTEGER) x ^= (uint64_t)c->i * 31;
    if (type == SQLITE_FLOAT) memcpy(&x, &c->d, 8);
    if (type == SQLITE_TEXT || type == SQLITE_BLOB)
      for (size_t i = 0; i < c->n; i++) x = (x ^ (unsigned char)c->s[i]) * 1099511628211ull;
    h = (h ^ x) * 1099511628211ull;
  }
  return h;
}

/* Every row of rb read back (dl_sqlbuild_read) against its digest. */
static int read_back(dl_sqlbuild *rb, const int64_t *ids, const uint64_t *sums, int64_t n) {
  static const int cols[] = {0, 1, 5, 6};
  for (int64_t j = 0; j < n; j += 1 + j % 3) {
    dl_sqlpage_val v[NC];
    for (int k = 0; k < 4; k++) {
      if (dl_sqlbuild_read(rb, ids[j], cols[k], &v[cols[k]]) != DL_OK) {
        fprintf(stderr, "row %lld (rowid %lld) column %d not read\n", (long long)j,
                (long long)ids[j], cols[k]);
        return 1;
      }
      dl_sqlpage_val *c = &v[cols[k]];
      if (c->type == SQLITE_TEXT || c->type == SQLITE_BLOB) { /* the next read reuses it */
        char *copy = malloc(c->n + 1);
        memcpy(copy, c->s, c->n);
        c->s = copy;
      }
    }
    uint64_t d = digest(v, cols, 4);
    for (int k = 0; k < 4; k++)
      if (v[cols[k]].type == SQLITE_TEXT || v[cols[k]].type == SQLITE_BLOB)
        free((char *)v[cols[k]].s);
    if (d != sums[j]) {
      fprintf(stderr, "row %lld (rowid %lld) read back differs\n", (long long)j, (long long)ids[j]);
      return 1;
    }
  }
  dl_sqlpage_val v;
  ASSERT_EQ(dl_sqlbuild_read(rb, n ? ids[n - 1] + 1 : 1, 1, &v), DL_ENOTFOUND);
  ASSERT_EQ(dl_sqlbuild_read(rb, -5000, 1, &v), DL_ENOTFOUND);
  if (n > 1 && ids[1] > ids[0] + 1)
    ASSERT_EQ(dl_sqlbuild_read(rb, ids[0] + 1, 1, &v), DL_ENOTFOUND);
  return 0;
}

/* A new file of page size ps with reserve bytes per page, tables t and s,
 * rt and rs. */
static int new_file(sqlite3 **db, int ps, int reserve, const char *journal) {
  snprintf(path, sizeof path, "%s/sqlbuild.sqlite", workdir);
  unlink(path);
  ASSERT_EQ(sqlite3_open(path, db), SQLITE_OK);
  char sql[256];
  snprintf(sql, sizeof sql, "PRAGMA page_size=%d; PRAGMA journal_mode=%s", ps, journal);
  ASSERT_EQ(sqlite3_exec(*db, sql, NULL, NULL, NULL), SQLITE_OK);
  if (reserve)
    ASSERT_EQ(sqlite3_file_control(*db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(*db,
                         "CREATE TABLE t" COLS "; CREATE TABLE s" COLS "; CREATE TABLE rt" RCOLS
                         "; CREATE TABLE rs" RCOLS,
                         NULL, NULL, NULL),
            SQLITE_OK);
  return 0;
}

/* The built table against SQLite's twin, value by value (rowids too) and
 * record by record. */
static int same_as_twin(sqlite3 *db, const char *built, const char *twin, int64_t n) {
  char sql[1024];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", built);
  ASSERT_EQ(q_int(db, sql), n);
  const char *pairs[][2] = {{built, twin}, {twin, built}};
  for (int k = 0; k < 2; k++) {
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT *, typeof(c), typeof(r), typeof(d), typeof(x), "
             "typeof(y), typeof(z), typeof(n) FROM %s EXCEPT SELECT *, typeof(c), typeof(r), "
             "typeof(d), typeof(x), typeof(y), typeof(z), typeof(n) FROM %s)",
             pairs[k][0], pairs[k][1]);
    ASSERT_EQ(q_int(db, sql), 0);
  }
  snprintf(sql, sizeof sql,
           "SELECT (SELECT sum(payload) FROM dbstat WHERE name = '%s') IS "
           "(SELECT sum(payload) FROM dbstat WHERE name = '%s')",
           built, twin);
  ASSERT_EQ(q_int(db, sql), 1);
  return 0;
}

/* Both built tables against their twins (nt, nr rows). */
static int same_as_sqlite(sqlite3 *db, int64_t nt, int64_t nr) {
  ASSERT(integrity_ok(db, "main"));
  return same_as_twin(db, "t", "s", nt) || same_as_twin(db, "rt", "rs", nr);
}

/* Whether an uncached set of page size ps writes past the cache here: the
 * file system takes O_DIRECT and the pages are whole blocks. Only on file
 * systems whose direct writes are known to leave no cached pages (tmpfs
 * takes O_DIRECT and keeps every page; some others ignore it). */
static int set_was_direct(int ps) {
  static const long bypass[] = {0xEF53 /* ext2-4 */, 0x58465342 /* XFS */,
                                0x9123683E /* Btrfs */};
  struct statfs fs;
  int known = 0;
  for (size_t i = 0; statfs(path, &fs) == 0 && i < sizeof bypass / sizeof bypass[0]; i++)
    known |= (long)fs.f_type == bypass[i];
  int fd = known ? dl_direct_open(path, O_WRONLY) : -1;
  if (fd >= 0) close(fd);
  return fd >= 0 && ps % DL_DIRECT_ALIGN == 0;
}

/* The file's pages from page first on (1-based) that the page cache holds
 * (mincore of a map of the file), -1 on an error. */
static int64_t cached_pages(int64_t first, int ps) {
  int fd = open(path, O_RDONLY);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) return -1;
  size_t len = (size_t)sb.st_size, from = (size_t)(first - 1) * (size_t)ps, vm = 4096;
  void *m = len ? mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  close(fd);
  if (m == MAP_FAILED) return -1;
  size_t nvm = (len + vm - 1) / vm;
  unsigned char *in = malloc(nvm);
  int64_t n = -1;
  if (in && mincore(m, len, in) == 0) {
    n = 0;
    for (size_t i = from / vm; i < nvm; i++) n += in[i] & 1;
  }
  free(in);
  munmap(m, len);
  return n;
}

/* n rows into s and rs by SQLite and into t, rt, or both interleaved, by
 * builds (what); then more rows into all four by SQLite. lock: a filler
 * table first brings the file to just below 1 GiB, so that the build
 * passes the page SQLite leaves unused there. */
static int build_case(int ps, int reserve, const char *journal, int64_t n, int big, int lock,
                      int what) {
  sqlite3 *db = NULL;
  if (new_file(&db, ps, reserve, journal)) return 1;
  static char buf[400000];
  dl_sqlpage_val v[NC];
  int64_t nt = what != ONLY_RT ? n : 0, nr = what != ONLY_T ? n : 0;
  sqlite3_stmt *ins = NULL, *rins = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO s VALUES (?,?,?,?,?,?,?,?,?)", -1, &ins, NULL),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO rs VALUES (?,?,?,?,?,?,?,?,?)", -1, &rins, NULL),
            SQLITE_OK);
  uint64_t seed = rnd_state;
  ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
  for (int64_t i = 0; i < nt; i++) {
    row_of(i, v, buf, big);
    bind_row(ins, v);
    ASSERT_EQ(sqlite3_step(ins), SQLITE_DONE);
  }
  for (int64_t i = 0; i < nr; i++) {
    rrow_of(i, v, buf, big);
    bind_row(rins, v);
    ASSERT_EQ(sqlite3_step(rins), SQLITE_DONE);
  }
  ASSERT_EQ(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  if (lock) {
    int64_t lock_page = 0x40000000 / ps + 1, pages = q_int(db, "PRAGMA page_count");
    int64_t half = (lock_page - 40 - pages - 8) * (ps - 4) / 2;
    char sql[160];
    snprintf(sql, sizeof sql, "CREATE TABLE filler(z); INSERT INTO filler VALUES "
             "(zeroblob(%lld)), (zeroblob(%lld))", (long long)half, (long long)half);
    ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    ASSERT(q_int(db, "PRAGMA page_count") < lock_page);
    ASSERT(q_int(db, "PRAGMA page_count") > lock_page - 60);
  }
  /* the same rows again: t's from seed, rt's from where t's ended */
  dl_sqlbuild *b = NULL, *rb = NULL;
  dl_sqlbuild_set *set = NULL;
  int64_t pages_before = q_int(db, "PRAGMA page_count");
  if (what == BOTH) {
    ASSERT_EQ(dl_sqlbuild_begin(db, &set), DL_OK);
    if (uncached) dl_sqlbuild_uncached(set);
    ASSERT_EQ(dl_sqlbuild_add(set, "t", NC, &b), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add(set, "rt", NC, &rb), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add(set, "t", NC, &(dl_sqlbuild *){NULL}), DL_ENOTFOUND); /* in it */
  } else {
    ASSERT_EQ(dl_sqlbuild_open(db, what == ONLY_T ? "t" : "rt", NC, what == ONLY_T ? &b : &rb),
              DL_OK);
  }
  uint64_t tstate = seed, rstate = seed;
  int64_t *ids = malloc((size_t)(nr + 1) * sizeof *ids); /* rt's rowids and digests */
  uint64_t *sums = malloc((size_t)(nr + 1) * sizeof *sums);
  if (what == BOTH) { /* rt's rows follow t's in the random stream */
    rnd_state = seed;
    for (int64_t i = 0; i < nt; i++) row_of(i, v, buf, big);
    rstate = rnd_state;
  }
  /* t's and rt's rows interleaved unevenly: a run of 0-3 of one, then the other */
  for (int64_t i = 0, j = 0; i < nt || j < nr;) {
    int64_t ti = i + (int64_t)(i * 7 % 4), rj = j + (int64_t)(j * 5 % 4);
    for (; i < nt && i <= ti; i++) {
      rnd_state = tstate;
      row_of(i, v, buf, big);
      tstate = rnd_state;
      ASSERT_EQ(dl_sqlbuild_row(b, v), DL_OK);
    }
    for (; j < nr && j <= rj; j++) {
      rnd_state = rstate;
      rrow_of(j, v, buf, big);
      rstate = rnd_state;
      ASSERT_EQ(dl_sqlbuild_row(rb, v), DL_OK);
      static const int cols[] = {0, 1, 5, 6};
      ids[j] = v[0].i;
      sums[j] = digest(v, cols, 4);
    }
  }
  if (b) ASSERT_EQ(dl_sqlbuild_rows(b), nt);
  if (rb) ASSERT_EQ(dl_sqlbuild_rows(rb), nr);
  /* (an uncached set's pages read back would be cached: its check is of the file) */
  if (rb && !uncached && read_back(rb, ids, sums, nr)) return 1;
  free(ids);
  free(sums);
  if (set) ASSERT_EQ(dl_sqlbuild_close(&b, 1), DL_EINVAL); /* a set's build ends with it */
  ASSERT_EQ(set ? dl_sqlbuild_end(&set, 1) : dl_sqlbuild_close(b ? &b : &rb, 1), DL_OK);
  if (lock) ASSERT(q_int(db, "PRAGMA page_count") > 0x40000000 / ps + 1);
  if (uncached && set_was_direct(ps)) { /* the build's pages follow the file's before */
    int64_t cached = cached_pages(pages_before + 1, ps);
    if (cached != 0) {
      fprintf(stderr, "page size %d: %lld pages written directly are cached\n", ps,
              (long long)cached);
      return 1;
    }
  }
  if (same_as_sqlite(db, nt, nr)) return 1;
  sqlite3_stmt *ins_t = NULL, *ins_rt = NULL; /* SQLite goes on in the built trees */
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?)", -1, &ins_t, NULL),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO rt VALUES (?,?,?,?,?,?,?,?,?)", -1, &ins_rt,
                               NULL),
            SQLITE_OK);
  for (int64_t i = n; i < n + 50; i++) {
    row_of(i * 7 + 1000000, v, buf, 0);
    sqlite3_stmt *pair[][2] = {{ins, ins_t}, {rins, ins_rt}};
    for (int k = 0; k < 2; k++) {
      if (k) v[0].type = SQLITE_NULL; /* SQLite picks the rowid after the largest */
      for (int m = 0; m < 2; m++) {
        bind_row(pair[k][m], v);
        ASSERT_EQ(sqlite3_step(pair[k][m]), SQLITE_DONE);
      }
    }
  }
  sqlite3_finalize(ins);
  sqlite3_finalize(rins);
  sqlite3_finalize(ins_t);
  sqlite3_finalize(ins_rt);
  if (same_as_sqlite(db, nt + 50, nr + 50)) return 1;
  sqlite3_close(db);
  sqlite3 *other = NULL; /* a new connection reads it too */
  ASSERT_EQ(sqlite3_open_v2(path, &other, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  if (same_as_sqlite(other, nt + 50, nr + 50)) return 1;
  sqlite3_close(other);
  return 0;
}

static int test_page_sizes(void) {
  static const struct {
    int ps, reserve, big;
    int64_t n;
    const char *journal;
    int lock;
  } cases[] = {
      {512, 0, 0, 20000, "memory", 0},  {512, 32, 0, 5000, "delete", 0},
      {1024, 0, 1, 3000, "memory", 0},  {4096, 12, 1, 2000, "delete", 0},
      {8192, 0, 1, 3000, "memory", 0},  {8192, 0, 0, 200000, "memory", 0},
      {8192, 0, 0, 20000, "memory", 1}, {65536, 0, 1, 1500, "memory", 0},
      {65536, 200, 0, 40000, "delete", 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    rnd_state = 0x9E3779B97F4A7C15ull + k;
    if (build_case(cases[k].ps, cases[k].reserve, cases[k].journal, cases[k].n, cases[k].big,
                   cases[k].lock, BOTH)) {
      fprintf(stderr, "page size %d, reserve %d, %lld rows\n", cases[k].ps, cases[k].reserve,
              (long long)cases[k].n);
      return 1;
    }
  }
  return 0;
}

/* Every row count from 0 on, 512-byte pages: each level left full, or one
 * entry over, when the rows end, in both kinds of tree (a set of both);
 * larger counts each way in turn. */
static int test_every_count(void) {
  for (int64_t n = 0; n <= 400; n++) {
    rnd_state = 0xC0FFEEull + (uint64_t)n;
    if (build_case(512, 0, "memory", n, 0, 0, BOTH)) {
      fprintf(stderr, "%lld rows\n", (long long)n);
      return 1;
    }
  }
  for (int64_t n = 401; n <= 12000; n += 97) {
    rnd_state = 0xC0FFEEull + (uint64_t)n;
    if (build_case(512, 0, "memory", n, 0, 0, (int)(n % 3))) {
      fprintf(stderr, "%lld rows\n", (long long)n);
      return 1;
    }
  }
  return 0;
}

/* open on table sql (created in a new file) with a setup before it. */
static int try_open(const char *table_sql, const char *setup, int in_tx) {
  sqlite3 *db = NULL;
  snprintf(path, sizeof path, "%s/decline.sqlite", workdir);
  unlink(path);
  if (sqlite3_open(path, &db) != SQLITE_OK) return -1;
  sqlite3_exec(db, setup, NULL, NULL, NULL);
  sqlite3_exec(db, table_sql, NULL, NULL, NULL);
  if (in_tx) sqlite3_exec(db, "BEGIN; INSERT INTO other VALUES (1)", NULL, NULL, NULL);
  dl_sqlbuild *b = NULL;
  int rc = dl_sqlbuild_open(db, "t", 2, &b);
  dl_sqlbuild_close(&b, 0);
  if (in_tx) sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  sqlite3_close(db);
  return rc;
}

static int test_declines(void) {
  static const char *const base = "CREATE TABLE other(x)";
  static const struct {
    const char *why, *sql, *setup;
    int in_tx;
  } cases[] = {
      {"rowid, two keys", "CREATE TABLE t(a INTEGER, b INTEGER, PRIMARY KEY (a, b))", "", 0},
      {"rowid, INT key", "CREATE TABLE t(a INT PRIMARY KEY, b INTEGER)", "", 0},
      {"rowid, DESC key", "CREATE TABLE t(a INTEGER PRIMARY KEY DESC, b INT)", "", 0},
      {"rowid, index", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT); CREATE INDEX tb ON t(b)",
       "", 0},
      {"rowid, autoincrement", "CREATE TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, b INT)", "",
       0},
      {"rowid, rows past the root", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT); WITH RECURSIVE "
                                     "c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < "
                                     "2000) INSERT INTO t SELECT x, x FROM c",
       "", 0},
      {"index", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT) WITHOUT ROWID; "
                "CREATE INDEX tb ON t(b)", "", 0},
      {"unique", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT UNIQUE) WITHOUT ROWID", "", 0},
      {"rows", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT) WITHOUT ROWID; "
               "INSERT INTO t VALUES (1, 2)", "", 0},
      {"desc", "CREATE TABLE t(a INTEGER, b INT, PRIMARY KEY (a DESC)) WITHOUT ROWID", "", 0},
      {"text key", "CREATE TABLE t(a TEXT PRIMARY KEY, b INT) WITHOUT ROWID", "", 0},
      {"check", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT CHECK (b > 0)) WITHOUT ROWID", "",
       0},
      {"trigger", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT) WITHOUT ROWID; CREATE TRIGGER "
                  "tr AFTER INSERT ON t BEGIN SELECT 1; END",
       "", 0},
      {"generated", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT AS (a + 1)) WITHOUT ROWID", "",
       0},
      {"wal", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT) WITHOUT ROWID",
       "PRAGMA journal_mode=WAL", 0},
      {"transaction", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT) WITHOUT ROWID", "", 1},
      {"columns", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT, c INT) WITHOUT ROWID", "", 0},
  };
  ASSERT_EQ(try_open("CREATE TABLE other(x); CREATE TABLE t(a INTEGER PRIMARY KEY, b INT) "
                     "WITHOUT ROWID",
                     "", 0),
            DL_OK);
  ASSERT_EQ(try_open("CREATE TABLE other(x); CREATE TABLE t(a integer PRIMARY KEY, b INT)", "", 0),
            DL_OK);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char sql[512];
    snprintf(sql, sizeof sql, "%s; %s", base, cases[k].sql);
    int rc = try_open(sql, cases[k].setup, cases[k].in_tx);
    if (rc != DL_ENOTFOUND) {
      fprintf(stderr, "not declined: %s (%d)\n", cases[k].why, rc);
      return 1;
    }
  }
  sqlite3 *db = NULL; /* in memory */
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT) WITHOUT ROWID", NULL,
                         NULL, NULL),
            SQLITE_OK);
  dl_sqlbuild *b = NULL;
  ASSERT_EQ(dl_sqlbuild_open(db, "t", 2, &b), DL_ENOTFOUND);
  sqlite3_close(db);
  return 0;
}

/* Rows SQLite would refuse or convert, in both kinds of tree: the build is
 * abandoned, the file as it was. */
static int test_refused(void) {
#define I(x) {.type = SQLITE_INTEGER, .i = (x)}
#define N {.type = SQLITE_NULL}
  static const struct {
    const char *why;
    dl_sqlpage_val v[2][2];
  } cases[] = {
      {"same key", {{I(5), I(1)}, {I(5), I(2)}}},
      {"key before", {{I(5), I(1)}, {I(4), I(2)}}},
      {"NULL key", {{I(5), I(1)}, {N, I(2)}}},
      {"NOT NULL", {{I(5), I(1)}, {I(6), N}}},
      {"text in INTEGER", {{I(5), I(1)}, {I(6), {.type = SQLITE_TEXT, .s = "7", .n = 1}}}},
      {"REAL key", {{I(5), I(1)}, {{.type = SQLITE_FLOAT, .d = 6.5}, I(2)}}},
  };
  static const char *const tables[] = {
      "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT NOT NULL) WITHOUT ROWID",
      "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT NOT NULL)"};
  for (size_t k = 0; k < 2 * sizeof cases / sizeof cases[0]; k++) {
    const char *table = tables[k % 2];
    sqlite3 *db = NULL;
    snprintf(path, sizeof path, "%s/refused.sqlite", workdir);
    unlink(path);
    ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, table, NULL, NULL, NULL), SQLITE_OK);
    struct stat before, after;
    ASSERT_EQ(stat(path, &before), 0);
    dl_sqlbuild *b = NULL;
    ASSERT_EQ(dl_sqlbuild_open(db, "t", 2, &b), DL_OK);
    for (int i = 0; i < 3000; i++) { /* pages written before the bad row */
      dl_sqlpage_val v[2] = {I(i - 5000), I(i)};
      ASSERT_EQ(dl_sqlbuild_row(b, v), DL_OK);
    }
    ASSERT_EQ(dl_sqlbuild_row(b, cases[k / 2].v[0]), DL_OK);
    if (dl_sqlbuild_row(b, cases[k / 2].v[1]) != DL_EINVAL) {
      fprintf(stderr, "not refused: %s (%s)\n", cases[k / 2].why, table);
      return 1;
    }
    ASSERT_EQ(dl_sqlbuild_row(b, cases[k / 2].v[0]), DL_EINVAL); /* a failed build takes no more */
    ASSERT_EQ(dl_sqlbuild_close(&b, 1), DL_EINVAL);
    ASSERT_EQ(stat(path, &after), 0);
    ASSERT_EQ(after.st_size, before.st_size);
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM t"), 0);
    ASSERT(integrity_ok(db, "main"));
    sqlite3_close(db);
  }
  return 0;
#undef I
#undef N
}

/* Row i of test_prefilled: row 1 longer than a cell (an overflow chain). */
static void prow_of(int64_t i, dl_sqlpage_val *v, char *buf) {
  rrow_of(i, v, buf, 0);
  if (i != 1) return;
  memset(buf, 'q', 3000);
  v[5] = (dl_sqlpage_val){.type = SQLITE_TEXT, .s = buf, .n = 3000};
}

/* A rowid table's rows in its root leaf (one with an overflow chain): the
 * build keeps them and goes on after them; a table past its root page is
 * declined. */
static int test_prefilled(void) {
  static char buf[400000];
  dl_sqlpage_val v[NC];
  for (int ps = 512; ps <= 4096; ps *= 8) {
    for (int pre = 1; pre <= 3; pre++) {
      for (int64_t n = 0; n <= 300; n += 50) {
        sqlite3 *db = NULL;
        if (new_file(&db, ps, 0, "memory")) return 1;
        sqlite3_stmt *twin = NULL, *ins = NULL;
        ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO rs VALUES (?,?,?,?,?,?,?,?,?)", -1, &twin,
                                     NULL),
                  SQLITE_OK);
        ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO rt VALUES (?,?,?,?,?,?,?,?,?)", -1, &ins,
                                     NULL),
                  SQLITE_OK);
        rnd_state = 0xF00Dull + (uint64_t)(pre * 1000 + n);
        uint64_t at_pre = 0;
        for (int64_t i = 0; i < pre + n; i++) {
          if (i == pre) at_pre = rnd_state;
          prow_of(i, v, buf);
          bind_row(twin, v);
          ASSERT_EQ(sqlite3_step(twin), SQLITE_DONE);
          if (i >= pre) continue;
          bind_row(ins, v);
          ASSERT_EQ(sqlite3_step(ins), SQLITE_DONE);
        }
        sqlite3_finalize(twin);
        sqlite3_finalize(ins);
        int64_t next = q_int(db, "SELECT max(id) + 1 FROM rt");
        dl_sqlbuild *b = NULL;
        ASSERT_EQ(dl_sqlbuild_open(db, "rt", NC, &b), DL_OK);
        ASSERT_EQ(dl_sqlbuild_next_rowid(b), next);
        rnd_state = at_pre;
        for (int64_t i = pre; i < pre + n; i++) {
          prow_of(i, v, buf);
          ASSERT_EQ(dl_sqlbuild_row(b, v), DL_OK);
        }
        if (pre + n > 1) { /* row 1, kept or built, read back through its overflow chain */
          dl_sqlpage_val x;
          ASSERT_EQ(dl_sqlbuild_read(b, 1 * 3 + 1 - 1000, 5, &x), DL_OK);
          ASSERT_EQ(x.type, SQLITE_TEXT);
          ASSERT_EQ(x.n, 3000);
          ASSERT(x.s[0] == 'q' && x.s[2999] == 'q');
          ASSERT_EQ(dl_sqlbuild_read(b, 1 * 3 + 1 - 1000, 0, &x), DL_OK);
          ASSERT_EQ(x.i, 1 * 3 + 1 - 1000);
        }
        ASSERT_EQ(dl_sqlbuild_close(&b, 1), DL_OK);
        ASSERT(integrity_ok(db, "main"));
        if (same_as_twin(db, "rt", "rs", pre + n)) {
          fprintf(stderr, "page size %d, %d rows kept, %lld built\n", ps, pre, (long long)n);
          return 1;
        }
        if (n == 300) { /* now past its root: declined */
          ASSERT_EQ(dl_sqlbuild_open(db, "rt", NC, &b), DL_ENOTFOUND);
        }
        sqlite3_close(db);
      }
    }
  }
  return 0;
}

/* Two queries give the same first column, row by row. */
static int same_rows(sqlite3 *db, const char *q1, const char *q2) {
  sqlite3_stmt *a = NULL, *b = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, q1, -1, &a, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, q2, -1, &b, NULL), SQLITE_OK);
  int64_t n = 0;
  for (;;) {
    int ra = sqlite3_step(a), rb = sqlite3_step(b);
    ASSERT_EQ(ra, rb);
    if (ra != SQLITE_ROW) break;
    ASSERT_EQ(sqlite3_column_int64(a, 0), sqlite3_column_int64(b, 0));
    n++;
  }
  sqlite3_finalize(a);
  sqlite3_finalize(b);
  return n > 0 ? 0 : 1;
}

typedef struct ientry {
  int64_t k[3];
} ientry;

static int ientry_cmp(const void *x, const void *y) {
  const ientry *a = x, *b = y;
  for (int i = 0; i < 3; i++)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return 0;
}

/* A WITHOUT ROWID table with a partial index and a rowid table with an
 * index, each built with its index in one set (the index records sorted
 * here), against twins SQLite filled: the rows, integrity_check (which
 * checks every index entry against its row), and each index's order. A
 * table whose index is not in the set, and indexes of other kinds, are
 * declined. */
static int test_indexed(void) {
  static const char *const schema =
      "CREATE TABLE k(a INTEGER NOT NULL, b INTEGER NOT NULL, c INTEGER NOT NULL, d REAL, "
      "PRIMARY KEY (a, b)) WITHOUT ROWID; CREATE INDEX k_by_c ON k(a, c) WHERE a > -1; "
      "CREATE TABLE kt(a INTEGER NOT NULL, b INTEGER NOT NULL, c INTEGER NOT NULL, d REAL, "
      "PRIMARY KEY (a, b)) WITHOUT ROWID; CREATE INDEX kt_by_c ON kt(a, c) WHERE a > -1; "
      "CREATE TABLE r(id INTEGER PRIMARY KEY, c INTEGER NOT NULL, x TEXT); "
      "CREATE INDEX r_by_c ON r(c); "
      "CREATE TABLE rt(id INTEGER PRIMARY KEY, c INTEGER NOT NULL, x TEXT); "
      "CREATE INDEX rt_by_c ON rt(c); "
      "CREATE TABLE q(a INTEGER PRIMARY KEY, t TEXT); CREATE INDEX q_t ON q(t); "
      "CREATE INDEX q_desc ON q(a DESC); CREATE INDEX q_expr ON q(a + 1)";
  for (int ps = 512; ps <= 8192; ps *= 16) {
    for (int64_t n = 0; n <= 20000; n = n ? n * 10 : 2) {
      snprintf(path, sizeof path, "%s/indexed.sqlite", workdir);
      unlink(path);
      sqlite3 *db = NULL;
      ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
      char sql[64];
      snprintf(sql, sizeof sql, "PRAGMA page_size=%d", ps);
      ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
      ASSERT_EQ(sqlite3_exec(db, schema, NULL, NULL, NULL), SQLITE_OK);
      rnd_state = 0xABCDull + (uint64_t)n;
      ientry *ke = malloc((size_t)(n + 1) * sizeof *ke), *re = malloc((size_t)(n + 1) * sizeof *re);
      int64_t *kc = malloc((size_t)(n + 1) * sizeof *kc);
      int64_t *rc_ = malloc((size_t)(n + 1) * sizeof *rc_);
      sqlite3_stmt *ik = NULL, *ir = NULL;
      ASSERT_EQ(
          sqlite3_prepare_v2(db, "INSERT INTO kt VALUES (1, ?1, ?2, ?1 / 4.0)", -1, &ik, NULL),
          SQLITE_OK);
      ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO rt VALUES (?1, ?2, 'row ' || ?1)", -1, &ir,
                                   NULL),
                SQLITE_OK);
      ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
      for (int64_t i = 0; i < n; i++) {
        kc[i] = (int64_t)(rnd() % 97) - 40; /* ties */
        rc_[i] = any_int();
        sqlite3_bind_int64(ik, 1, i * 2);
        sqlite3_bind_int64(ik, 2, kc[i]);
        ASSERT_EQ(sqlite3_step(ik), SQLITE_DONE);
        sqlite3_reset(ik);
        sqlite3_bind_int64(ir, 1, i * 3 + 1);
        sqlite3_bind_int64(ir, 2, rc_[i]);
        ASSERT_EQ(sqlite3_step(ir), SQLITE_DONE);
        sqlite3_reset(ir);
        ke[i] = (ientry){{1, kc[i], i * 2}};
        re[i] = (ientry){{rc_[i], i * 3 + 1, 0}};
      }
      ASSERT_EQ(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
      sqlite3_finalize(ik);
      sqlite3_finalize(ir);
      qsort(ke, (size_t)n, sizeof *ke, ientry_cmp);
      qsort(re, (size_t)n, sizeof *re, ientry_cmp);
      dl_sqlbuild_set *set = NULL;
      dl_sqlbuild *bk = NULL, *bki = NULL, *br = NULL, *bri = NULL, *no = NULL;
      ASSERT_EQ(dl_sqlbuild_begin(db, &set), DL_OK);
      ASSERT_EQ(dl_sqlbuild_add(set, "k", 4, &no), DL_ENOTFOUND); /* its index first */
      ASSERT_EQ(dl_sqlbuild_add(set, "q", 2, &no), DL_ENOTFOUND);
      ASSERT_EQ(dl_sqlbuild_add_index(set, "q_t", 2, &no), DL_ENOTFOUND);    /* TEXT */
      ASSERT_EQ(dl_sqlbuild_add_index(set, "q_desc", 2, &no), DL_ENOTFOUND); /* DESC */
      ASSERT_EQ(dl_sqlbuild_add_index(set, "q_expr", 2, &no), DL_ENOTFOUND); /* expression */
      ASSERT_EQ(dl_sqlbuild_add_index(set, "k_by_c", 2, &no), DL_ENOTFOUND); /* 3 columns */
      ASSERT_EQ(dl_sqlbuild_add_index(set, "k_by_c", 3, &bki), DL_OK);
      ASSERT_EQ(dl_sqlbuild_add(set, "k", 4, &bk), DL_OK);
      ASSERT_EQ(dl_sqlbuild_add_index(set, "r_by_c", 2, &bri), DL_OK);
      ASSERT_EQ(dl_sqlbuild_add(set, "r", 3, &br), DL_OK);
      char text[64];
      for (int64_t i = 0; i < n; i++) {
        dl_sqlpage_val kv[4] = {{.type = SQLITE_INTEGER, .i = 1},
                                {.type = SQLITE_INTEGER, .i = i * 2},
                                {.type = SQLITE_INTEGER, .i = kc[i]},
                                {.type = SQLITE_FLOAT, .d = (double)(i * 2) / 4.0}};
        ASSERT_EQ(dl_sqlbuild_row(bk, kv), DL_OK);
        int len = snprintf(text, sizeof text, "row %lld", (long long)(i * 3 + 1));
        dl_sqlpage_val rv[3] = {{.type = SQLITE_INTEGER, .i = i * 3 + 1},
                                {.type = SQLITE_INTEGER, .i = rc_[i]},
                                {.type = SQLITE_TEXT, .s = text, .n = (size_t)len}};
        ASSERT_EQ(dl_sqlbuild_row(br, rv), DL_OK);
      }
      for (int64_t i = 0; i < n; i++) { /* the index records, in order */
        dl_sqlpage_val e[3];
        for (int k = 0; k < 3; k++)
          e[k] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = ke[i].k[k]};
        ASSERT_EQ(dl_sqlbuild_row(bki, e), DL_OK);
        for (int k = 0; k < 2; k++)
          e[k] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = re[i].k[k]};
        ASSERT_EQ(dl_sqlbuild_row(bri, e), DL_OK);
      }
      ASSERT_EQ(dl_sqlbuild_end(&set, 1), DL_OK);
      free(ke);
      free(re);
      free(kc);
      free(rc_);
      ASSERT(integrity_ok(db, "main"));
      ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT * FROM k EXCEPT SELECT * FROM kt)"), 0);
      ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT * FROM kt EXCEPT SELECT * FROM k)"), 0);
      ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT * FROM r EXCEPT SELECT * FROM rt)"), 0);
      ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT * FROM rt EXCEPT SELECT * FROM r)"), 0);
      ASSERT_EQ(q_int(db, "SELECT count(*) FROM k"), n);
      if (n && (same_rows(db, "SELECT b FROM k INDEXED BY k_by_c WHERE a > -1 ORDER BY a, c",
                          "SELECT b FROM kt INDEXED BY kt_by_c WHERE a > -1 ORDER BY a, c") ||
                same_rows(db, "SELECT id FROM r INDEXED BY r_by_c WHERE c > -9e18 ORDER BY c",
                          "SELECT id FROM rt INDEXED BY rt_by_c WHERE c > -9e18 ORDER BY c"))) {
        fprintf(stderr, "page size %d, %lld rows: an index's order differs\n", ps, (long long)n);
        return 1;
      }
      sqlite3_close(db);
    }
  }
  return 0;
}

/* A new file name in the work folder, of 1 KiB pages (trees of several
 * levels from few rows), with schema: 0, or 1 with db closed. */
static int schema_file(const char *name, const char *schema, sqlite3 **db) {
  snprintf(path, sizeof path, "%s/%s", workdir, name);
  unlink(path);
  *db = NULL;
  if (sqlite3_open(path, db) == SQLITE_OK &&
      sqlite3_exec(*db, "PRAGMA page_size=1024", NULL, NULL, NULL) == SQLITE_OK &&
      sqlite3_exec(*db, schema, NULL, NULL, NULL) == SQLITE_OK)
    return 0;
  fprintf(stderr, "%s: %s\n", name, *db ? sqlite3_errmsg(*db) : "no memory");
  sqlite3_close(*db);
  *db = NULL;
  return 1;
}

/* A rowid table without an INTEGER PRIMARY KEY: its rows get rowids in
 * turn, after those its root held, as SQLite's INSERT gives them; with an
 * index whose records end with the rowid (dl_sqlbuild_next_rowid). Each
 * compared, rowid and all, with the same rows inserted by SQLite. */
static int test_no_key(void) {
  static const char *const schema =
      "CREATE TABLE n(a INTEGER NOT NULL, b TEXT, c BLOB); CREATE INDEX n_by_a ON n(a); "
      "CREATE TABLE nt(a INTEGER NOT NULL, b TEXT, c BLOB); CREATE INDEX nt_by_a ON nt(a); "
      "CREATE TABLE p(a INTEGER, b TEXT); CREATE TABLE pt(a INTEGER, b TEXT); "
      "INSERT INTO p VALUES (7, 'before'), (8, 'before'); "
      "INSERT INTO pt VALUES (7, 'before'), (8, 'before')";
  for (int64_t n = 0; n <= 20000; n = n ? n * 10 : 2) {
    sqlite3 *db = NULL;
    if (schema_file("nokey.sqlite", schema, &db)) return 1;
    rnd_state = 0x4E4Bull + (uint64_t)n;
    int64_t *a = malloc((size_t)(n + 1) * sizeof *a);
    ientry *e = malloc((size_t)(n + 1) * sizeof *e);
    sqlite3_stmt *in = NULL, *ip = NULL;
    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO nt VALUES (?1, 'row ' || ?1, zeroblob(?2))", -1,
                                 &in, NULL),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO pt VALUES (?1, 'after')", -1, &ip, NULL),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    for (int64_t i = 0; i < n; i++) {
      a[i] = (int64_t)(rnd() % 101) - 50; /* ties: the rowid orders them */
      sqlite3_bind_int64(in, 1, a[i]);
      sqlite3_bind_int64(in, 2, (int64_t)(i % 7) * 300); /* some on overflow pages */
      ASSERT_EQ(sqlite3_step(in), SQLITE_DONE);
      sqlite3_reset(in);
      sqlite3_bind_int64(ip, 1, a[i]);
      ASSERT_EQ(sqlite3_step(ip), SQLITE_DONE);
      sqlite3_reset(ip);
      e[i] = (ientry){{a[i], i + 1, 0}};
    }
    ASSERT_EQ(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_finalize(in);
    sqlite3_finalize(ip);
    qsort(e, (size_t)n, sizeof *e, ientry_cmp);
    dl_sqlbuild_set *set = NULL;
    dl_sqlbuild *bn = NULL, *bi = NULL, *bp = NULL;
    ASSERT_EQ(dl_sqlbuild_begin(db, &set), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add_index(set, "n_by_a", 2, &bi), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add(set, "n", 3, &bn), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add(set, "p", 2, &bp), DL_OK);
    ASSERT_EQ(dl_sqlbuild_next_rowid(bn), 1);
    ASSERT_EQ(dl_sqlbuild_next_rowid(bp), 3);
    static char zeros[2000];
    char text[64];
    for (int64_t i = 0; i < n; i++) {
      int len = snprintf(text, sizeof text, "row %lld", (long long)a[i]);
      dl_sqlpage_val v[3] = {{.type = SQLITE_INTEGER, .i = a[i]},
                             {.type = SQLITE_TEXT, .s = text, .n = (size_t)len},
                             {.type = SQLITE_BLOB, .s = zeros, .n = (size_t)(i % 7) * 300}};
      ASSERT_EQ(dl_sqlbuild_row(bn, v), DL_OK);
      dl_sqlpage_val w[2] = {{.type = SQLITE_INTEGER, .i = a[i]},
                             {.type = SQLITE_TEXT, .s = "after", .n = 5}};
      ASSERT_EQ(dl_sqlbuild_row(bp, w), DL_OK);
    }
    ASSERT_EQ(dl_sqlbuild_next_rowid(bn), n + 1);
    for (int64_t i = 0; i < n; i++) { /* (a, rowid), in order */
      dl_sqlpage_val x[2] = {{.type = SQLITE_INTEGER, .i = e[i].k[0]},
                             {.type = SQLITE_INTEGER, .i = e[i].k[1]}};
      ASSERT_EQ(dl_sqlbuild_row(bi, x), DL_OK);
    }
    ASSERT_EQ(dl_sqlbuild_end(&set, 1), DL_OK);
    free(a);
    free(e);
    ASSERT(integrity_ok(db, "main"));
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM n"), n);
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM p"), n + 2);
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT rowid, * FROM n EXCEPT SELECT rowid, * FROM "
                        "nt)"),
              0);
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT rowid, * FROM p EXCEPT SELECT rowid, * FROM "
                        "pt)"),
              0);
    if (n && same_rows(db, "SELECT rowid FROM n INDEXED BY n_by_a WHERE a > -99 ORDER BY a",
                       "SELECT rowid FROM nt INDEXED BY nt_by_a WHERE a > -99 ORDER BY a")) {
      fprintf(stderr, "%lld rows: the index's order differs\n", (long long)n);
      return 1;
    }
    /* SQLite's next insert goes after the built rows */
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO n VALUES (1, 'x', NULL); INSERT INTO nt VALUES (1, "
                               "'x', NULL)",
                           NULL, NULL, NULL),
              SQLITE_OK);
    ASSERT_EQ(q_int(db, "SELECT max(rowid) FROM n"), n + 1);
    ASSERT_EQ(q_int(db, "SELECT max(rowid) FROM nt"), n + 1);
    ASSERT(integrity_ok(db, "main"));
    sqlite3_close(db);
  }
  return 0;
}

/* The name of the index of table's PRIMARY KEY (PRAGMA index_list). */
static const char *key_index_name(sqlite3 *db, const char *table, char *buf, size_t cap) {
  sqlite3_stmt *st = NULL;
  buf[0] = '\0';
  if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_index_list(?1) WHERE origin = 'pk'", -1,
                         &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
      snprintf(buf, cap, "%s", (const char *)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  return buf;
}

/* Rowid tables whose PRIMARY KEY is not the rowid (two columns; one
 * declared INT) with that key's index built in the set: the same rows,
 * rowids and index entries as SQLite's inserts, the index enforcing the
 * key afterwards, SQLite's next rows after the built ones. */
static int test_key_index(void) {
  static const char *const schema =
      "CREATE TABLE k(a INTEGER NOT NULL, b INTEGER NOT NULL, c TEXT, PRIMARY KEY (a, b)); "
      "CREATE TABLE kt(a INTEGER NOT NULL, b INTEGER NOT NULL, c TEXT, PRIMARY KEY (a, b)); "
      "CREATE TABLE m(a INT PRIMARY KEY, c TEXT); CREATE TABLE mt(a INT PRIMARY KEY, c TEXT)";
  static char text[3000];
  memset(text, 'k', sizeof text);
  for (int64_t n = 0; n <= 2000; n = n ? n * 10 : 2) {
    sqlite3 *db = NULL;
    if (schema_file("keyindex.sqlite", schema, &db)) return 1;
    sqlite3_stmt *ik = NULL, *im = NULL;
    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO kt VALUES (?1, ?2, substr(?3, 1, ?4))", -1,
                                 &ik, NULL),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO mt VALUES (?1, substr(?2, 1, ?3))", -1, &im,
                                 NULL),
              SQLITE_OK);
    /* keys ascending, as the build takes them: a in runs, b from 0 in each */
    ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    for (int64_t i = 0, a = -3, b = 0; i < n; i++, b++) {
      if (i % 7 == 0) a++, b = 0;
      int len = (int)(i % 5) * 700; /* some on overflow pages */
      sqlite3_bind_int64(ik, 1, a);
      sqlite3_bind_int64(ik, 2, b);
      sqlite3_bind_text(ik, 3, text, (int)sizeof text, SQLITE_STATIC);
      sqlite3_bind_int(ik, 4, len);
      ASSERT_EQ(sqlite3_step(ik), SQLITE_DONE);
      sqlite3_reset(ik);
      sqlite3_bind_int64(im, 1, 2 * i - n);
      sqlite3_bind_text(im, 2, text, (int)sizeof text, SQLITE_STATIC);
      sqlite3_bind_int(im, 3, len);
      ASSERT_EQ(sqlite3_step(im), SQLITE_DONE);
      sqlite3_reset(im);
    }
    ASSERT_EQ(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_finalize(ik);
    sqlite3_finalize(im);
    char kname[128], mname[128];
    key_index_name(db, "k", kname, sizeof kname);
    key_index_name(db, "m", mname, sizeof mname);
    ASSERT(kname[0] && mname[0]);
    dl_sqlbuild_set *set = NULL;
    dl_sqlbuild *bk = NULL, *bki = NULL, *bm = NULL, *bmi = NULL;
    ASSERT_EQ(dl_sqlbuild_begin(db, &set), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add(set, "k", 3, &bk), DL_ENOTFOUND); /* its index first */
    ASSERT_EQ(dl_sqlbuild_add_index(set, kname, 3, &bki), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add(set, "k", 3, &bk), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add_index(set, mname, 2, &bmi), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add(set, "m", 2, &bm), DL_OK);
    for (int64_t i = 0, a = -3, b = 0; i < n; i++, b++) {
      if (i % 7 == 0) a++, b = 0;
      size_t len = (size_t)(i % 5) * 700;
      int64_t rk = dl_sqlbuild_next_rowid(bk), rm = dl_sqlbuild_next_rowid(bm);
      ASSERT_EQ(rk, i + 1);
      dl_sqlpage_val vk[3] = {{.type = SQLITE_INTEGER, .i = a},
                              {.type = SQLITE_INTEGER, .i = b},
                              {.type = SQLITE_TEXT, .s = text, .n = len}};
      ASSERT_EQ(dl_sqlbuild_row(bk, vk), DL_OK);
      dl_sqlpage_val xk[3] = {{.type = SQLITE_INTEGER, .i = a},
                              {.type = SQLITE_INTEGER, .i = b},
                              {.type = SQLITE_INTEGER, .i = rk}};
      ASSERT_EQ(dl_sqlbuild_row(bki, xk), DL_OK);
      dl_sqlpage_val vm[2] = {{.type = SQLITE_INTEGER, .i = 2 * i - n},
                              {.type = SQLITE_TEXT, .s = text, .n = len}};
      ASSERT_EQ(dl_sqlbuild_row(bm, vm), DL_OK);
      dl_sqlpage_val xm[2] = {{.type = SQLITE_INTEGER, .i = 2 * i - n},
                              {.type = SQLITE_INTEGER, .i = rm}};
      ASSERT_EQ(dl_sqlbuild_row(bmi, xm), DL_OK);
    }
    ASSERT_EQ(dl_sqlbuild_end(&set, 1), DL_OK);
    ASSERT(integrity_ok(db, "main"));
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM k"), n);
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT rowid, * FROM k EXCEPT SELECT rowid, * FROM "
                        "kt)"),
              0);
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT rowid, * FROM m EXCEPT SELECT rowid, * FROM "
                        "mt)"),
              0);
    if (n && (same_rows(db, "SELECT rowid FROM k WHERE a > -99 ORDER BY a, b",
                        "SELECT rowid FROM kt WHERE a > -99 ORDER BY a, b") ||
              same_rows(db, "SELECT rowid FROM m WHERE a > -1e9 ORDER BY a",
                        "SELECT rowid FROM mt WHERE a > -1e9 ORDER BY a"))) {
      fprintf(stderr, "%lld rows: the key's order differs\n", (long long)n);
      return 1;
    }
    if (n) { /* a key looked up through the index; the index refuses it again */
      ASSERT_EQ(q_int(db, "SELECT length(c) FROM k WHERE a = -2 AND b = 1"), 700);
      ASSERT(sqlite3_exec(db, "INSERT INTO k VALUES (-2, 1, NULL)", NULL, NULL, NULL) ==
             SQLITE_CONSTRAINT);
      ASSERT(sqlite3_exec(db, "INSERT INTO m VALUES (0, NULL)", NULL, NULL, NULL) ==
             SQLITE_CONSTRAINT);
    }
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO k VALUES (1000000, 0, 'x'); INSERT INTO kt VALUES "
                               "(1000000, 0, 'x')",
                           NULL, NULL, NULL),
              SQLITE_OK);
    ASSERT_EQ(q_int(db, "SELECT max(rowid) FROM k"), n + 1);
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT rowid, * FROM k EXCEPT SELECT rowid, * FROM "
                        "kt)"),
              0);
    ASSERT(integrity_ok(db, "main"));
    sqlite3_close(db);
  }
  return 0;
}

/* A statement of the connection still stepping when the set ends would
 * keep SQLite's view of the file from before it (its next write stores the
 * old page count): the end refuses (DL_EINVAL) and the file is as before;
 * the same set ends once the statement is reset. */
static int test_reader_at_end(void) {
  for (int reset = 0; reset < 2; reset++) {
    sqlite3 *db = NULL;
    if (new_file(&db, 4096, 0, "memory")) return 1;
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE o(x); INSERT INTO o VALUES (1), (2)", NULL, NULL,
                           NULL),
              SQLITE_OK);
    struct stat before, after;
    ASSERT_EQ(stat(path, &before), 0);
    dl_sqlbuild_set *set = NULL;
    dl_sqlbuild *b = NULL;
    ASSERT_EQ(dl_sqlbuild_begin(db, &set), DL_OK);
    ASSERT_EQ(dl_sqlbuild_add(set, "t", NC, &b), DL_OK);
    sqlite3_stmt *st = NULL; /* a table the set does not build: readable meanwhile */
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT x FROM o", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ(add_rows(b, 3000, 78), DL_OK);
    if (reset) sqlite3_reset(st);
    ASSERT_EQ(dl_sqlbuild_end(&set, 1), reset ? DL_OK : DL_EINVAL);
    sqlite3_finalize(st);
    ASSERT_EQ(stat(path, &after), 0);
    if (!reset) ASSERT_EQ(after.st_size, before.st_size);
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM t"), reset ? 3000 : 0);
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO o VALUES (3)", NULL, NULL, NULL), SQLITE_OK);
    ASSERT(integrity_ok(db, "main"));
    sqlite3_close(db);
  }
  return 0;
}

/* An uncached set: the same rows and file as test_page_sizes's, directly
 * written where the file system and the page size allow (4096 and more),
 * else through the cache; and with DL_DIRECT=0, through the cache. */
static int test_uncached(void) {
  static const struct {
    int ps, reserve, big;
    int64_t n;
  } cases[] = {{512, 0, 0, 3000}, {4096, 12, 1, 500}, {8192, 0, 0, 30000},
               {8192, 0, 1, 800}, {65536, 200, 0, 5000}};
  uncached = 1;
  for (int off = 0; off < 2; off++) {
    if (off) setenv("DL_DIRECT", "0", 1);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      rnd_state = 0x5851F42D4C957F2Dull + k;
      if (build_case(cases[k].ps, cases[k].reserve, "memory", cases[k].n, cases[k].big, 0,
                     BOTH)) {
        fprintf(stderr, "uncached, DL_DIRECT %s: page size %d, %lld rows\n", off ? "0" : "unset",
                cases[k].ps, (long long)cases[k].n);
        return 1;
      }
    }
  }
  unsetenv("DL_DIRECT");
  uncached = 0;
  return 0;
}

/* keep = 0: nothing of the build stays. */
static int test_abandoned(void) {
  sqlite3 *db = NULL;
  if (new_file(&db, 4096, 0, "memory")) return 1;
  struct stat before, after;
  ASSERT_EQ(stat(path, &before), 0);
  dl_sqlbuild *b = NULL;
  ASSERT_EQ(dl_sqlbuild_open(db, "t", NC, &b), DL_OK);
  ASSERT_EQ(add_rows(b, 5000, 77), DL_OK);
  ASSERT_EQ(dl_sqlbuild_close(&b, 0), DL_OK);
  ASSERT_EQ(stat(path, &after), 0);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM t"), 0);
  ASSERT(integrity_ok(db, "main"));
  sqlite3_close(db);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_sqlbuild WORK_DIR\n");
    return 2;
  }
  workdir = argv[1];
  RUN(test_page_sizes);
  RUN(test_every_count);
  RUN(test_declines);
  RUN(test_refused);
  RUN(test_abandoned);
  RUN(test_prefilled);
  RUN(test_indexed);
  RUN(test_uncached);
  RUN(test_no_key);
  RUN(test_key_index);
  RUN(test_reader_at_end);
  TEST_DONE();
}
