/*
 * test_sqlleaf.c - a rowid table's rows found by rowid in its leaf pages
 * (common/dl_sqlleaf.h) against SQLite: tables written by SQLite and by
 * dl_sqlbuild, page sizes of 512, 4,096 and 65,536 bytes with and without
 * reserved bytes, rowids with gaps, empty texts, BLOBs and records on
 * overflow pages (the read stops before them); every range of rowids
 * answered as SQLite answers it, also after rows are appended through
 * SQLite with its cache spilling to the file mid-transaction; a reader that
 * stops early; a leaf zeroed or whose last row is deleted (an error, never
 * rows missed); the tables and files it declines.
 *
 * Usage: test_sqlleaf WORKDIR
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dl.h"
#include "dl_sqlbuild.h"
#include "dl_sqlleaf.h"
#include "test.h"

static const char *workdir;
static char path[4096];

enum { ROWS = 12000 };

/* Row x's rowid: from 1, with gaps (every seventh number is skipped). */
static int64_t rowid_of(int x) { return 1 + x + x / 6; }

/* Row x's value: texts of many lengths (some empty, some on overflow
 * pages on pages of 512 and 4,096 bytes), a BLOB now and then. */
static void value_of(int x, char *buf, size_t cap, int *blob, size_t *n) {
  size_t len = x % 97 == 0 ? 1500 + (size_t)x % 300 : (size_t)(x * 7919) % 160;
  if (x % 997 == 0) len = 5000;
  if (len + 1 > cap) len = cap - 1;
  for (size_t i = 0; i < len; i++) buf[i] = (char)('a' + (x + (int)i) % 26);
  if (len > 12) snprintf(buf, 12, "%010d", x), buf[10] = ':';
  if (x % 113 == 0) len = 0;
  buf[len] = '\0';
  *blob = x % 41 == 0;
  *n = len;
}

/* A file of page size ps (reserve bytes a page) whose table s has ROWS
 * rows, written by SQLite (build = 0, interleaved with another table's
 * rows) or by dl_sqlbuild (which takes no BLOB in a TEXT column). */
static int make_file(int ps, int reserve, int build) {
  snprintf(path, sizeof path, "%s/leaf_%d_%d_%d.sqlite", workdir, ps, reserve, build);
  unlink(path);
  sqlite3 *db = NULL;
  char sql[256], v[8192];
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  snprintf(sql, sizeof sql, "PRAGMA page_size=%d", ps);
  ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  if (reserve) ASSERT_EQ(sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve),
                         SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE s(id INTEGER PRIMARY KEY, v TEXT NOT NULL);"
                             "CREATE TABLE other(x INTEGER PRIMARY KEY, y TEXT)",
                         NULL, NULL, NULL),
            SQLITE_OK);
  if (build) {
    dl_sqlbuild *b = NULL;
    ASSERT_OK(dl_sqlbuild_open(db, "s", 2, &b));
    for (int x = 0; x < ROWS; x++) {
      int blob;
      size_t n;
      value_of(x, v, sizeof v, &blob, &n);
      (void)blob;
      dl_sqlpage_val row[2] = {{.type = SQLITE_INTEGER, .i = rowid_of(x)},
                               {.type = SQLITE_TEXT, .s = v, .n = n}}; /* no BLOBs here */
      ASSERT_OK(dl_sqlbuild_row(b, row));
    }
    ASSERT_OK(dl_sqlbuild_close(&b, 1));
  } else {
    sqlite3_stmt *st = NULL, *o = NULL;
    ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO s VALUES (?1, ?2)", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO other(y) VALUES (printf('%.*c', ?1, 'o'))", -1,
                                 &o, NULL),
              SQLITE_OK);
    for (int x = 0; x < ROWS; x++) {
      int blob;
      size_t n;
      value_of(x, v, sizeof v, &blob, &n);
      sqlite3_bind_int64(st, 1, rowid_of(x));
      if (blob) sqlite3_bind_blob(st, 2, v, (int)n, SQLITE_TRANSIENT);
      else sqlite3_bind_text(st, 2, v, (int)n, SQLITE_TRANSIENT);
      ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
      sqlite3_reset(st);
      sqlite3_bind_int(o, 1, x % 300);
      ASSERT_EQ(sqlite3_step(o), SQLITE_DONE);
      sqlite3_reset(o);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(o);
    ASSERT_EQ(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  }
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

/* What the reader was given. */
typedef struct got {
  int64_t rowid[300];
  int type[300];
  size_t n[300];
  char v[300][8192];
  int count, stop_at; /* stop_at: the call that returns nonzero (-1: none) */
} got;

static int take(void *ctx, int64_t rowid, const dl_sqlpage_val *v) {
  got *g = ctx;
  if (g->count == g->stop_at) return 1;
  int i = g->count++;
  g->rowid[i] = rowid;
  g->type[i] = v->type;
  g->n[i] = v->n < sizeof g->v[i] ? v->n : sizeof g->v[i];
  memcpy(g->v[i], v->s, g->n[i]);
  return 0;
}

/* Rows from..to read through l answer as SQLite does: each rowid from
 * `from` to *upto given if and only if SQLite has it, with its type and
 * bytes; *answered: rowids answered. */
static int same_range(dl_sqlleaf *l, sqlite3_stmt *ref, int64_t from, int64_t to, int stop_at,
                      int64_t *answered) {
  static got g;
  g.count = 0;
  g.stop_at = stop_at;
  int64_t upto = 0;
  ASSERT_OK(dl_sqlleaf_rows(l, from, to, 1, take, &g, &upto));
  ASSERT(upto <= to && upto >= from - 1);
  if (stop_at >= 0 && g.count == stop_at && upto >= from) { /* ended before the next row */
    sqlite3_bind_int64(ref, 1, upto);
    ASSERT_EQ(sqlite3_step(ref), SQLITE_ROW);
    ASSERT(upto < to);
    sqlite3_reset(ref);
  }
  int k = 0;
  for (int64_t id = from; id <= upto; id++) {
    sqlite3_bind_int64(ref, 1, id);
    int rc = sqlite3_step(ref);
    if (rc == SQLITE_ROW) {
      if (k >= g.count || g.rowid[k] != id) {
        fprintf(stderr, "rowid %lld missed (from %lld to %lld)\n", (long long)id,
                (long long)from, (long long)upto);
        return 1;
      }
      ASSERT_EQ(g.type[k], sqlite3_column_type(ref, 0));
      ASSERT_EQ(g.n[k], sqlite3_column_bytes(ref, 0));
      ASSERT(!g.n[k] || memcmp(g.v[k], sqlite3_column_blob(ref, 0), g.n[k]) == 0);
      k++;
    } else {
      ASSERT_EQ(rc, SQLITE_DONE);
    }
    sqlite3_reset(ref);
  }
  ASSERT_EQ(k, g.count);
  *answered = upto - from + 1;
  return 0;
}

/* Every rowid up to the directory's last, in ranges of several sizes:
 * answered as SQLite answers; all but those before an overflowing row are
 * answered at once. */
static int check_all(sqlite3 *db, dl_sqlleaf *l) {
  sqlite3_stmt *ref = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT v FROM s WHERE id = ?1", -1, &ref, NULL), SQLITE_OK);
  int64_t last = dl_sqlleaf_last(l), total = 0;
  static const int64_t spans[] = {1, 7, 256};
  for (size_t s = 0; s < sizeof spans / sizeof *spans; s++)
    for (int64_t from = 1; from <= last;) {
      int64_t a = 0;
      if (same_range(l, ref, from, from + spans[s] - 1, -1, &a)) return 1;
      total += a;
      from += a > 0 ? a : 1;
    }
  sqlite3_finalize(ref);
  ASSERT(total >= 3 * last * 9 / 10); /* overflowing rows are few */
  return 0;
}

static int test_same_rows(void) {
  static const int layouts[][2] = {{512, 0}, {512, 8}, {4096, 0}, {4096, 32}, {65536, 0}};
  for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++)
    for (int build = 0; build < 2; build++) {
      if (make_file(layouts[k][0], layouts[k][1], build)) return 1;
      sqlite3 *db = NULL;
      ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
      dl_sqlleaf *l = NULL;
      int rc = dl_sqlleaf_open(db, "s", &l);
      if (layouts[k][0] == 65536 && rc == DL_ENOTFOUND) { /* a root leaf and one more */
        sqlite3_close(db);
        continue;
      }
      ASSERT_OK(rc);
      int64_t last = dl_sqlleaf_last(l);
      ASSERT(last >= rowid_of(ROWS / 2) && last < rowid_of(ROWS - 1)); /* not the last leaf */
      if (check_all(db, l)) return 1;
      /* rows appended through SQLite, its cache spilling mid-transaction:
       * the leaves in the directory stay as they were */
      ASSERT_EQ(sqlite3_exec(db, "PRAGMA cache_size=10; BEGIN;"
                                 "WITH RECURSIVE q(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM q "
                                 " WHERE x < 20000) "
                                 "INSERT INTO s SELECT 100000 + x, printf('%.*c', x % 700, 'n') "
                                 "FROM q; INSERT INTO other(y) SELECT v FROM s WHERE id % 5 = 0",
                             NULL, NULL, NULL),
                SQLITE_OK);
      if (check_all(db, l)) return 1;
      ASSERT_EQ(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
      if (check_all(db, l)) return 1;
      dl_sqlleaf_close(&l);
      ASSERT_NULL(l);
      ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
    }
  return 0;
}

/* A reader that stops: the rows before it answered, the rest not. */
static int test_stop(void) {
  if (make_file(4096, 0, 1)) return 1;
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  dl_sqlleaf *l = NULL;
  ASSERT_OK(dl_sqlleaf_open(db, "s", &l));
  sqlite3_stmt *ref = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT v FROM s WHERE id = ?1", -1, &ref, NULL), SQLITE_OK);
  for (int stop = 0; stop < 40; stop += 3) {
    int64_t a = 0;
    if (same_range(l, ref, 10, 200, stop, &a)) return 1;
    ASSERT(a < 191);
  }
  sqlite3_finalize(ref);
  dl_sqlleaf_close(&l);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

/* The first and last rowid of leaf page pg (4,096 bytes) of the file. */
static int leaf_rowids(int64_t pg, int64_t *first, int64_t *last) {
  unsigned char b[4096];
  int fd = open(path, O_RDONLY);
  ASSERT(fd >= 0);
  ASSERT_EQ(pread(fd, b, sizeof b, (off_t)(pg - 1) * 4096), 4096);
  close(fd);
  ASSERT_EQ(b[0], 0x0d);
  int n = b[3] << 8 | b[4];
  ASSERT(n > 1);
  for (int k = 0; k < 2; k++) {
    int c = k ? n - 1 : 0, off = b[8 + 2 * c] << 8 | b[9 + 2 * c];
    uint64_t size, id;
    int a = dl_sqlpage_varint(b + off, b + sizeof b, &size);
    ASSERT(a > 0 && dl_sqlpage_varint(b + off + a, b + sizeof b, &id) > 0);
    *(k ? last : first) = (int64_t)id;
  }
  return 0;
}

/* A leaf that changed: zeroed in the file, or its last row deleted (the
 * leaf's rows end before its bound): an error, never rows missed. */
static int test_changed(void) {
  for (int how = 0; how < 2; how++) {
    if (make_file(4096, 0, 1)) return 1;
    sqlite3 *db = NULL;
    ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    dl_sqlleaf *l = NULL;
    ASSERT_OK(dl_sqlleaf_open(db, "s", &l));
    int64_t page = 0, first = 0, lastrow = 0;
    sqlite3_stmt *st = NULL; /* a leaf in the middle: its page, first and last rowid */
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT pageno FROM dbstat WHERE name = 's' AND "
                                     "pagetype = 'leaf' ORDER BY path LIMIT 1 OFFSET 5",
                                 -1, &st, NULL),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    page = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (leaf_rowids(page, &first, &lastrow)) return 1;
    ASSERT(first > 0 && lastrow > first);
    char sql[256];
    if (how == 0) {
      int fd = open(path, O_WRONLY);
      static const char zeros[4096];
      ASSERT(fd >= 0);
      ASSERT_EQ(pwrite(fd, zeros, sizeof zeros, (off_t)(page - 1) * 4096), 4096);
      close(fd);
    } else {
      snprintf(sql, sizeof sql, "DELETE FROM s WHERE id = %lld", (long long)lastrow);
      ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    static got g;
    g.count = 0;
    g.stop_at = -1;
    int64_t upto = 0;
    ASSERT_EQ(dl_sqlleaf_rows(l, first, lastrow, 1, take, &g, &upto), DL_ECORRUPT);
    ASSERT(upto < first);
    dl_sqlleaf_close(&l);
    ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  }
  return 0;
}

/* What it declines: no such table, a WITHOUT ROWID table, a table in one
 * leaf, an in-memory database, a WAL file. */
static int test_declines(void) {
  snprintf(path, sizeof path, "%s/leaf_declines.sqlite", workdir);
  unlink(path);
  sqlite3 *db = NULL;
  dl_sqlleaf *l = NULL;
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE w(a INTEGER PRIMARY KEY, b TEXT) WITHOUT ROWID;"
                             "CREATE TABLE one(a INTEGER PRIMARY KEY, b TEXT);"
                             "INSERT INTO one VALUES (1, 'x'), (2, 'y');"
                             "WITH RECURSIVE q(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM q "
                             " WHERE x < 5000) INSERT INTO w SELECT x, 'w' || x FROM q",
                         NULL, NULL, NULL),
            SQLITE_OK);
  ASSERT_EQ(dl_sqlleaf_open(db, "absent", &l), DL_ENOTFOUND);
  ASSERT_EQ(dl_sqlleaf_open(db, "w", &l), DL_ENOTFOUND);
  ASSERT_EQ(dl_sqlleaf_open(db, "one", &l), DL_ENOTFOUND);
  ASSERT_NULL(l);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t(a INTEGER PRIMARY KEY, b);"
                             "WITH RECURSIVE q(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM q "
                             " WHERE x < 5000) INSERT INTO t SELECT x, 't' || x FROM q",
                         NULL, NULL, NULL),
            SQLITE_OK);
  ASSERT_EQ(dl_sqlleaf_open(db, "t", &l), DL_ENOTFOUND);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b);"
                             "WITH RECURSIVE q(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM q "
                             " WHERE x < 5000) INSERT INTO t SELECT x, 't' || x FROM q",
                         NULL, NULL, NULL),
            SQLITE_OK);
  ASSERT_EQ(dl_sqlleaf_open(db, "t", &l), DL_ENOTFOUND);
  ASSERT_NULL(l);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  dl_sqlleaf_close(NULL);
  dl_sqlleaf_close(&l);
  return 0;
}

int main(int argc, char **argv) {
  workdir = argc > 1 ? argv[1] : ".";
  RUN(test_same_rows);
  RUN(test_stop);
  RUN(test_changed);
  RUN(test_declines);
  TEST_DONE();
}
