/*
 * test_sqlbuild.c - a WITHOUT ROWID table built page by page
 * (common/dl_sqlbuild.h) against the same rows inserted by SQLite into a
 * twin table of the same file: every value and its type, the records'
 * bytes (dbstat's payload), PRAGMA integrity_check, and SQLite inserting
 * into the built tree afterwards; page sizes of 512 to 65,536 bytes,
 * reserved bytes, overflow chains, every row count up to three levels of
 * small pages (each way a page can be left full when the rows end); the
 * declines and the rows refused.
 */
#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl.h"
#include "dl_sqlbuild.h"
#include "test.h"
#include "test_sql.h"

static const char *workdir;
static char path[4096];

#define COLS "(a INTEGER NOT NULL, b INT NOT NULL, c INTEGER, r REAL, d DOUBLE, x TEXT, " \
             "y BLOB, z, n NUMERIC, PRIMARY KEY (a, b)) WITHOUT ROWID"
enum { NC = 9 };

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

/* A new file of page size ps with reserve bytes per page, tables t and s. */
static int new_file(sqlite3 **db, int ps, int reserve, const char *journal) {
  snprintf(path, sizeof path, "%s/sqlbuild.sqlite", workdir);
  unlink(path);
  ASSERT_EQ(sqlite3_open(path, db), SQLITE_OK);
  char sql[256];
  snprintf(sql, sizeof sql, "PRAGMA page_size=%d; PRAGMA journal_mode=%s", ps, journal);
  ASSERT_EQ(sqlite3_exec(*db, sql, NULL, NULL, NULL), SQLITE_OK);
  if (reserve)
    ASSERT_EQ(sqlite3_file_control(*db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(*db, "CREATE TABLE t" COLS "; CREATE TABLE s" COLS, NULL, NULL, NULL),
            SQLITE_OK);
  return 0;
}

/* The built t against SQLite's s, value by value and record by record. */
static int same_as_sqlite(sqlite3 *db, int64_t n) {
  ASSERT(integrity_ok(db, "main"));
  char sql[1024];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM t");
  ASSERT_EQ(q_int(db, sql), n);
  static const char *const pairs[][2] = {{"t", "s"}, {"s", "t"}};
  for (int k = 0; k < 2; k++) {
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT a, b, c, typeof(c), r, typeof(r), d, typeof(d), x, "
             "typeof(x), y, typeof(y), z, typeof(z), n, typeof(n) FROM %s EXCEPT SELECT a, b, c, "
             "typeof(c), r, typeof(r), d, typeof(d), x, typeof(x), y, typeof(y), z, typeof(z), "
             "n, typeof(n) FROM %s)",
             pairs[k][0], pairs[k][1]);
    ASSERT_EQ(q_int(db, sql), 0);
  }
  ASSERT_EQ(q_int(db, "SELECT (SELECT sum(payload) FROM dbstat WHERE name = 't') IS "
                      "(SELECT sum(payload) FROM dbstat WHERE name = 's')"),
            1);
  return 0;
}

/* n rows into s by SQLite and into t by a build; then more rows into both
 * by SQLite. lock: a filler table first brings the file to just below 1
 * GiB, so that the build passes the page SQLite leaves unused there. */
static int build_case(int ps, int reserve, const char *journal, int64_t n, int big, int lock) {
  sqlite3 *db = NULL;
  if (new_file(&db, ps, reserve, journal)) return 1;
  static char buf[400000];
  dl_sqlpage_val v[NC];
  sqlite3_stmt *ins = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO s VALUES (?,?,?,?,?,?,?,?,?)", -1, &ins, NULL),
            SQLITE_OK);
  uint64_t seed = rnd_state;
  ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
  for (int64_t i = 0; i < n; i++) {
    row_of(i, v, buf, big);
    bind_row(ins, v);
    ASSERT_EQ(sqlite3_step(ins), SQLITE_DONE);
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
  rnd_state = seed;
  dl_sqlbuild *b = NULL;
  ASSERT_EQ(dl_sqlbuild_open(db, "t", NC, &b), DL_OK);
  for (int64_t i = 0; i < n; i++) {
    row_of(i, v, buf, big);
    ASSERT_EQ(dl_sqlbuild_row(b, v), DL_OK);
  }
  ASSERT_EQ(dl_sqlbuild_rows(b), n);
  ASSERT_EQ(dl_sqlbuild_close(&b, 1), DL_OK);
  if (lock) ASSERT(q_int(db, "PRAGMA page_count") > 0x40000000 / ps + 1);
  if (same_as_sqlite(db, n)) return 1;
  sqlite3_stmt *ins_t = NULL; /* SQLite goes on in the built tree */
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?)", -1, &ins_t, NULL),
            SQLITE_OK);
  for (int64_t i = n; i < n + 50; i++) {
    row_of(i * 7 + 1000000, v, buf, 0);
    bind_row(ins, v);
    ASSERT_EQ(sqlite3_step(ins), SQLITE_DONE);
    bind_row(ins_t, v);
    ASSERT_EQ(sqlite3_step(ins_t), SQLITE_DONE);
  }
  sqlite3_finalize(ins);
  sqlite3_finalize(ins_t);
  if (same_as_sqlite(db, n + 50)) return 1;
  sqlite3_close(db);
  sqlite3 *other = NULL; /* a new connection reads it too */
  ASSERT_EQ(sqlite3_open_v2(path, &other, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  if (same_as_sqlite(other, n + 50)) return 1;
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
                   cases[k].lock)) {
      fprintf(stderr, "page size %d, reserve %d, %lld rows\n", cases[k].ps, cases[k].reserve,
              (long long)cases[k].n);
      return 1;
    }
  }
  return 0;
}

/* Every row count from 0 on, 512-byte pages: each level left full, or one
 * entry over, when the rows end. */
static int test_every_count(void) {
  for (int64_t n = 0; n <= 400; n++) {
    rnd_state = 0xC0FFEEull + (uint64_t)n;
    if (build_case(512, 0, "memory", n, 0, 0)) {
      fprintf(stderr, "%lld rows\n", (long long)n);
      return 1;
    }
  }
  for (int64_t n = 401; n <= 12000; n += 97) {
    rnd_state = 0xC0FFEEull + (uint64_t)n;
    if (build_case(512, 0, "memory", n, 0, 0)) {
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
      {"rowid", "CREATE TABLE t(a INTEGER, b INTEGER, PRIMARY KEY (a, b))", "", 0},
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

/* Rows SQLite would refuse or convert: the build is abandoned, the file
 * as it was. */
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
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    sqlite3 *db = NULL;
    snprintf(path, sizeof path, "%s/refused.sqlite", workdir);
    unlink(path);
    ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b INT NOT NULL) "
                               "WITHOUT ROWID",
                           NULL, NULL, NULL),
              SQLITE_OK);
    struct stat before, after;
    ASSERT_EQ(stat(path, &before), 0);
    dl_sqlbuild *b = NULL;
    ASSERT_EQ(dl_sqlbuild_open(db, "t", 2, &b), DL_OK);
    for (int i = 0; i < 3000; i++) { /* pages written before the bad row */
      dl_sqlpage_val v[2] = {I(i - 5000), I(i)};
      ASSERT_EQ(dl_sqlbuild_row(b, v), DL_OK);
    }
    ASSERT_EQ(dl_sqlbuild_row(b, cases[k].v[0]), DL_OK);
    if (dl_sqlbuild_row(b, cases[k].v[1]) != DL_EINVAL) {
      fprintf(stderr, "not refused: %s\n", cases[k].why);
      return 1;
    }
    ASSERT_EQ(dl_sqlbuild_row(b, cases[k].v[0]), DL_EINVAL); /* a failed build takes no more */
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

/* keep = 0: nothing of the build stays. */
static int test_abandoned(void) {
  sqlite3 *db = NULL;
  if (new_file(&db, 4096, 0, "memory")) return 1;
  struct stat before, after;
  ASSERT_EQ(stat(path, &before), 0);
  dl_sqlbuild *b = NULL;
  ASSERT_EQ(dl_sqlbuild_open(db, "t", NC, &b), DL_OK);
  static char buf[400000];
  dl_sqlpage_val v[NC];
  rnd_state = 77;
  for (int64_t i = 0; i < 5000; i++) {
    row_of(i, v, buf, 1);
    ASSERT_EQ(dl_sqlbuild_row(b, v), DL_OK);
  }
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
  TEST_DONE();
}
