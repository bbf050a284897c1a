/*
 * test_sqlpage.c - a table's rows read from its pages (common/dl_sqlpage.h),
 * through the row pipe, against SQLite stepping the same query: page sizes
 * of 512, 4,096 and 65,536 bytes with and without reserved bytes, a
 * b-tree of several levels, records on chains of overflow pages, every
 * integer width, REALs SQLite stores as integers, texts that read as
 * numbers, BLOBs, NULLs, records shorter than the table (a column added
 * later), IN and NOT IN filters, two at once, the rowid as a column;
 * tables whose leaves follow one another in the file, alternate with
 * another table's or lie in no order (the pages read ahead); the
 * files and queries it must decline; damaged pages (an error or rows,
 * never a crash: ASan in the test build).
 *
 * Usage: test_sqlpage WORKDIR
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dl.h"
#include "rowpipe.h"
#include "test.h"

static const char *workdir;
static char path[4096];

#define ROWS 6000

/* A file of page size ps (reserve bytes kept at each page's end) with
 * table t: ROWS rows of every kind of value, then a column added and more
 * rows. */
static int make_file(int ps, int reserve) {
  snprintf(path, sizeof path, "%s/pages_%d_%d.sqlite", workdir, ps, reserve);
  unlink(path);
  sqlite3 *db = NULL;
  char sql[256];
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  snprintf(sql, sizeof sql, "PRAGMA page_size=%d", ps);
  ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  if (reserve) ASSERT_EQ(sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve),
                         SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(
                db,
                "CREATE TABLE t(a INTEGER NOT NULL, r REAL, s TEXT, b BLOB, n, k INTEGER, "
                " d DOUBLE PRECISION);"
                "WITH RECURSIVE q(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM q WHERE x < 6000) "
                "INSERT INTO t SELECT "
                " CASE x % 15 WHEN 0 THEN 0 WHEN 1 THEN 1 WHEN 2 THEN -1 WHEN 3 THEN 127 "
                "  WHEN 4 THEN -129 WHEN 5 THEN 32767 WHEN 6 THEN 8388608 WHEN 7 THEN -2147483649 "
                "  WHEN 8 THEN 140737488355327 WHEN 9 THEN 4611686018427387904 "
                "  WHEN 10 THEN -9223372036854775807 - 1 WHEN 11 THEN -8388608 "
                "  WHEN 12 THEN -8388609 WHEN 13 THEN -140737488355328 ELSE x * 1000003 END, "
                " CASE x % 4 WHEN 0 THEN x WHEN 1 THEN x + 0.25 WHEN 2 THEN NULL "
                "  ELSE -x * 1e300 END, "
                " CASE x % 6 WHEN 0 THEN NULL WHEN 1 THEN ' 12abc' WHEN 2 THEN '-7' "
                "  WHEN 3 THEN printf('%.*c', x % 9000, 'x') "
                "  WHEN 4 THEN 'aten::mm, seq = ' || x ELSE '3.5e2' END, "
                " CASE x % 3 WHEN 0 THEN randomblob(x % 700) WHEN 1 THEN x ELSE NULL END, "
                " CASE x % 5 WHEN 0 THEN NULL WHEN 1 THEN x * 0.5 WHEN 2 THEN 'n' || x "
                "  WHEN 3 THEN zeroblob(3) ELSE 1e20 END, "
                " CASE x % 7 WHEN 0 THEN 'seven' WHEN 1 THEN 2.5 WHEN 2 THEN NULL "
                "  WHEN 3 THEN 3.0 ELSE x % 9 END, "
                " CASE x % 2 WHEN 0 THEN x ELSE 0.0 / 0.0 END FROM q;"
                "ALTER TABLE t ADD COLUMN late INTEGER;"
                "INSERT INTO t(a, s, k, late) SELECT a + 1, s, k, a FROM t WHERE rowid % 10 = 0;",
                NULL, NULL, NULL),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

static const char *const cols[] = {"a", "r", "s", "b", "n", "k", "d", "late", "absent"};
enum { NCOLS = 9 };

/* Reads the query's rows through a page scan and compares each cell with
 * SQLite stepping the same query; *rows: how many. */
static int same_rows(sqlite3 *db, const char *where, const dl_sqlpage_filter *f, int *rows) {
  char sql[512];
  snprintf(sql, sizeof sql, "SELECT a, r, s, b, n, k, d, late, NULL AS absent FROM t%s%s",
           where ? " WHERE " : "", where ? where : "");
  sqlite3_stmt *st = NULL, *ref = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &ref, NULL), SQLITE_OK);
  dl_sqlpage *pg = NULL;
  uint32_t text = (1u << NCOLS) - 1 - (1u << 5); /* k: its integer only */
  ASSERT_OK(dl_sqlpage_open(db, st, "t", cols, NCOLS, text, f, f ? 1 : 0, &pg));
  rowpipe *p = NULL;
  ASSERT_OK(rowpipe_open_pages(pg, NCOLS, text, NULL, &p));
  const rp_cell *c;
  int rc = 0;
  *rows = 0;
  while ((c = rowpipe_next(p, &rc))) {
    ASSERT_EQ(sqlite3_step(ref), SQLITE_ROW);
    for (int i = 0; i < NCOLS; i++) {
      int type = sqlite3_column_type(ref, i);
      ASSERT_EQ(c[i].type, type);
      ASSERT_EQ(c[i].i, sqlite3_column_int64(ref, i));
      if (type == SQLITE_FLOAT) {
        double d = sqlite3_column_double(ref, i);
        ASSERT(memcmp(&c[i].d, &d, sizeof d) == 0);
      }
      if (!(text >> i & 1u)) {
        ASSERT_NULL(c[i].s);
        continue;
      }
      const unsigned char *t = type == SQLITE_NULL ? NULL : sqlite3_column_text(ref, i);
      size_t n = t ? (size_t)sqlite3_column_bytes(ref, i) : 0;
      ASSERT_NOT_NULL(c[i].s);
      ASSERT_EQ(strlen(c[i].s), strnlen(t ? (const char *)t : "", n));
      ASSERT(memcmp(c[i].s, t ? (const char *)t : "", strlen(c[i].s)) == 0);
    }
    ++*rows;
  }
  ASSERT_EQ(rc, SQLITE_DONE);
  ASSERT_EQ(sqlite3_step(ref), SQLITE_DONE);
  rowpipe_close(&p);
  sqlite3_finalize(st);
  sqlite3_finalize(ref);
  return 0;
}

/* Every layout gives SQLite's rows, whole and filtered. */
static int test_same_rows(void) {
  static const int layouts[][2] = {{512, 0}, {512, 8}, {4096, 0}, {4096, 32}, {65536, 0}};
  for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
    if (make_file(layouts[l][0], layouts[l][1])) return 1;
    sqlite3 *db = NULL;
    ASSERT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL),
              SQLITE_OK);
    int all, in, out;
    static const dl_sqlpage_filter f_in = {"k", 1, 3, {3, 5, 2}}, f_out = {"k", 0, 2, {3, 5}};
    if (same_rows(db, NULL, NULL, &all) || same_rows(db, "k IN (3, 5, 2)", &f_in, &in) ||
        same_rows(db, "k NOT IN (3, 5)", &f_out, &out))
      return 1;
    ASSERT_EQ(all, ROWS + ROWS / 10);
    ASSERT(in > 500 && out > 2000 && in + out < all); /* NULLs are in neither */
    ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  }
  return 0;
}

/* The rowid as a column, and two filters at once. */
static int test_rowid_and_filters(void) {
  if (make_file(4096, 0)) return 1;
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL),
            SQLITE_OK);
  const char *sql = "SELECT rowid, k, a FROM t WHERE k IN (2, 3, 5) AND a NOT IN (0, 1, -1) "
                    "ORDER BY rowid";
  static const char *const names[] = {"rowid", "k", "a"};
  static const dl_sqlpage_filter f[] = {{"k", 1, 3, {2, 3, 5}}, {"a", 0, 3, {0, 1, -1}}};
  sqlite3_stmt *st = NULL, *ref = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &ref, NULL), SQLITE_OK);
  dl_sqlpage *pg = NULL;
  ASSERT_OK(dl_sqlpage_open(db, st, "t", names, 3, 1u, f, 2, &pg));
  dl_sqlpage_val v[3];
  int rc, rows = 0;
  while ((rc = dl_sqlpage_next(pg, v)) == SQLITE_ROW) {
    ASSERT_EQ(sqlite3_step(ref), SQLITE_ROW);
    for (int i = 0; i < 3; i++) {
      ASSERT_EQ(v[i].type, sqlite3_column_type(ref, i));
      ASSERT_EQ(v[i].i, sqlite3_column_int64(ref, i));
    }
    ASSERT_STR_EQ(v[0].s, (const char *)sqlite3_column_text(ref, 0));
    rows++;
  }
  ASSERT_EQ(rc, SQLITE_DONE);
  ASSERT_EQ(sqlite3_step(ref), SQLITE_DONE);
  ASSERT(rows > 1000);
  dl_sqlpage_close(&pg);
  sqlite3_finalize(st);
  sqlite3_finalize(ref);
  /* a sort the table's order does not give is SQLite's to do */
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT rowid, k, a FROM t ORDER BY a", -1, &st, NULL),
            SQLITE_OK);
  ASSERT_EQ(dl_sqlpage_open(db, st, "t", names, 3, 0, NULL, 0, &pg), DL_ENOTFOUND);
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

/* Opens a scan of "SELECT a FROM t [where]" on the file at path with
 * filter f: dl_sqlpage_open's result. */
static int try_open(const char *file, const char *where, const dl_sqlpage_filter *f) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT a FROM t%s%s", where ? " WHERE " : "", where ? where : "");
  if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return -1;
  }
  static const char *const a[] = {"a"};
  dl_sqlpage *pg = NULL;
  int rc = dl_sqlpage_open(db, st, "t", a, 1, 0, f, f ? 1 : 0, &pg);
  dl_sqlpage_close(&pg);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rc;
}

/* A file with table t made by sql, then try_open on it. */
static int open_made(const char *name, const char *sql, const char *where,
                     const dl_sqlpage_filter *f) {
  char file[4096];
  snprintf(file, sizeof file, "%s/%s.sqlite", workdir, name);
  unlink(file);
  sqlite3 *db = NULL;
  int ok = sqlite3_open(file, &db) == SQLITE_OK &&
           sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
  sqlite3_close(db);
  return ok ? try_open(file, where, f) : -1;
}

/* What the scan does not read the same way, it declines: each file (its
 * schema, then two rows) and the query's WHERE with its filter. */
static int test_declines(void) {
  static const dl_sqlpage_filter on_a = {"a", 1, 1, {1}}, on_u = {"u", 1, 1, {1}};
  static const struct {
    const char *name, *schema, *where;
    const dl_sqlpage_filter *filter;
    int rc;
  } cases[] = {
      {"plain", "CREATE TABLE t(a INTEGER, u)", "a IN (1)", &on_a, DL_OK},
      {"untyped", "CREATE TABLE t(a INTEGER, u)", "u IN (1)", &on_u, DL_ENOTFOUND},
      {"wal", "PRAGMA journal_mode=WAL; CREATE TABLE t(a INTEGER)", NULL, NULL, DL_ENOTFOUND},
      {"norowid", "CREATE TABLE t(a INTEGER PRIMARY KEY, b) WITHOUT ROWID", NULL, NULL,
       DL_ENOTFOUND},
      {"pk", "CREATE TABLE t(a INTEGER PRIMARY KEY, b)", NULL, NULL, DL_ENOTFOUND},
      {"default", "CREATE TABLE t(a INTEGER DEFAULT 3, b)", NULL, NULL, DL_ENOTFOUND},
      {"generated", "CREATE TABLE t(a INTEGER, b AS (a + 1))", NULL, NULL, DL_ENOTFOUND},
      {"utf16", "PRAGMA encoding='UTF-16le'; CREATE TABLE t(a INTEGER)", NULL, NULL,
       DL_ENOTFOUND},
      /* an index answers the filter: its order is not the table's */
      {"indexed", "CREATE TABLE t(a INTEGER); CREATE INDEX t_a ON t(a)", "a IN (1)", &on_a,
       DL_ENOTFOUND},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char sql[512];
    snprintf(sql, sizeof sql, "%s; INSERT INTO t(a) VALUES (1), (2);", cases[i].schema);
    int rc = open_made(cases[i].name, sql, cases[i].where, cases[i].filter);
    if (rc != cases[i].rc) fprintf(stderr, "declines: %s\n", cases[i].name);
    ASSERT_EQ(rc, cases[i].rc);
  }
  ASSERT_EQ(try_open(":memory:", NULL, NULL), -1); /* no table t: never opened */
  return 0;
}

/* Damaged pages: every scan ends in rows or SQLITE_CORRUPT, never a read
 * out of bounds (ASan). */
static int test_damaged(void) {
  if (make_file(512, 0)) return 1;
  char copy[4096];
  snprintf(copy, sizeof copy, "%s/damaged.sqlite", workdir);
  FILE *in = fopen(path, "rb");
  ASSERT_NOT_NULL(in);
  static unsigned char file[8 << 20];
  size_t size = fread(file, 1, sizeof file, in);
  fclose(in);
  ASSERT(size > 100 * 512 && size < sizeof file);
  uint64_t seed = 88172645463325252ull;
  int corrupt = 0, scans = 0;
  for (int round = 0; round < 120; round++) {
    static unsigned char bad[8 << 20];
    memcpy(bad, file, size);
    for (int k = 0; k < 1 + round % 7; k++) { /* a few bytes of pages past the schema */
      seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
      size_t at = 512 + (size_t)(seed % (size - 512));
      bad[at] = (unsigned char)(seed >> 40);
      if (round % 3 == 0) bad[at - at % 512] = (unsigned char)(seed >> 48); /* a page type */
    }
    FILE *out = fopen(copy, "wb");
    ASSERT_NOT_NULL(out);
    ASSERT_EQ(fwrite(bad, 1, size, out), size);
    fclose(out);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT a, r, s, b, n, k, d, late, NULL AS absent FROM t";
    if (sqlite3_open_v2(copy, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) ==
            SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
      dl_sqlpage *pg = NULL;
      if (dl_sqlpage_open(db, st, "t", cols, NCOLS, (1u << NCOLS) - 1, NULL, 0, &pg) == DL_OK) {
        dl_sqlpage_val v[NCOLS];
        int rc, rows = 0;
        while ((rc = dl_sqlpage_next(pg, v)) == SQLITE_ROW) rows++;
        ASSERT(rc == SQLITE_DONE || rc == SQLITE_CORRUPT);
        corrupt += rc == SQLITE_CORRUPT;
        scans++;
        dl_sqlpage_close(&pg);
      }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  ASSERT(scans > 60 && corrupt > 10);
  unlink(copy);
  return 0;
}

/* The rows of table `table` (rowid, s) read from its pages are SQLite's. */
static int same_table(sqlite3 *db, const char *table, int *rows) {
  static const char *const tcols[] = {"rowid", "s"};
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT rowid, s FROM %s", table);
  sqlite3_stmt *st = NULL, *ref = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &ref, NULL), SQLITE_OK);
  dl_sqlpage *pg = NULL;
  ASSERT_OK(dl_sqlpage_open(db, st, table, tcols, 2, 1u << 1, NULL, 0, &pg));
  dl_sqlpage_val v[2];
  int s;
  *rows = 0;
  while ((s = dl_sqlpage_next(pg, v)) == SQLITE_ROW) {
    ASSERT_EQ(sqlite3_step(ref), SQLITE_ROW);
    ASSERT_EQ(v[0].i, sqlite3_column_int64(ref, 0));
    ASSERT_EQ(v[1].n, (size_t)sqlite3_column_bytes(ref, 1));
    ASSERT(memcmp(v[1].s, sqlite3_column_text(ref, 1), v[1].n) == 0);
    ++*rows;
  }
  ASSERT_EQ(s, SQLITE_DONE);
  ASSERT_EQ(sqlite3_step(ref), SQLITE_DONE);
  dl_sqlpage_close(&pg);
  sqlite3_finalize(st);
  sqlite3_finalize(ref);
  return 0;
}

/* Leaves in any order in the file: a table written alone (its leaves one
 * after the other, read ahead to the file's end), two tables written in
 * turn (their leaves alternate) and one of random rowids (its leaves in no
 * order): every row as SQLite has it. */
static int test_page_order(void) {
  snprintf(path, sizeof path, "%s/order.sqlite", workdir);
  unlink(path);
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(
                db,
                "PRAGMA page_size=512; BEGIN;"
                "CREATE TABLE a(s TEXT); CREATE TABLE b(s TEXT); CREATE TABLE c(s TEXT);"
                "CREATE TABLE d(s TEXT);"
                "WITH RECURSIVE q(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM q WHERE x < 3000) "
                "INSERT INTO c(rowid, s) SELECT x * 7919 % 3001, " /* a permutation of 1..3000 */
                " printf('%.*c', 20 + x % 150, 'c') FROM q;"
                "COMMIT;",
                NULL, NULL, NULL),
            SQLITE_OK);
  sqlite3_stmt *ia = NULL, *ib = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO a(s) VALUES (?1)", -1, &ia, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO b(s) VALUES (?1)", -1, &ib, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
  char text[256];
  for (int i = 0; i < 3000; i++) { /* a leaf of a, then one of b, ... */
    sqlite3_stmt *st = i / 4 % 2 ? ib : ia;
    snprintf(text, sizeof text, "%0*d", 80 + i % 50, i);
    sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  ASSERT_EQ(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_finalize(ia);
  sqlite3_finalize(ib);
  ASSERT_EQ(sqlite3_exec(db,
                         "WITH RECURSIVE q(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM q "
                         "WHERE x < 4000) INSERT INTO d(s) SELECT printf('%.*c', x % 300, 'd') "
                         "FROM q",
                         NULL, NULL, NULL),
            SQLITE_OK);
  int na, nb, nc, nd;
  if (same_table(db, "a", &na) || same_table(db, "b", &nb) || same_table(db, "c", &nc) ||
      same_table(db, "d", &nd))
    return 1;
  ASSERT_EQ(na + nb, 3000);
  ASSERT_EQ(nc, 3000);
  ASSERT_EQ(nd, 4000);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  return 0;
}

int main(int argc, char **argv) {
  workdir = argc > 1 ? argv[1] : ".";
  RUN(test_same_rows);
  RUN(test_rowid_and_filters);
  RUN(test_page_order);
  RUN(test_declines);
  RUN(test_damaged);
  TEST_DONE();
}
