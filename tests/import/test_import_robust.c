/*
 * test_import_robust.c - bad Nsight Systems exports through the real dlprof.
 *
 * Usage: test_import_robust DLPROF WORKDIR
 *
 * Each case builds an export from SQL (a small valid one, then damages it:
 * wrong column types, NULL names, reversed or absurd times, duplicate
 * correlation ids, a 10 MB kernel name, missing tables or columns, a
 * truncated or overwritten file), runs dlprof on it (built with ASan and
 * UBSan in the test build) and checks: no crash and no sanitizer report;
 * either exit 1 with one "dlprof: <file>: <problem>" line, or exit 0 with
 * the skipped rows counted on stderr; an output dldb only when the run
 * succeeded (and then complete), and never a temporary file left behind.
 */
#include <dirent.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static const char *dlprof, *workdir;
static char out_dir[4096], errtxt[1 << 16];

static const char *const base_sql =
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
    "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
    "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2'),"
    " ('EXPORT_PRODUCT_VERSION', '2024.5.1.113');"
    "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, computeMajor INTEGER, "
    " computeMinor INTEGER, smCount INTEGER, totalMemory INTEGER);"
    "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA A100', 8, 0, 108, 85899345920);"
    "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
    " correlationId, globalPid, demangledName, shortName, gridX, gridY, gridZ, blockX, "
    " blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
    " correlationId, nameId, returnValue);"
    "CREATE TABLE NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, textId, "
    " domainId, category, color);"
    "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'volta_h884gemm_64x64'),"
    " (3, 'void volta_h884gemm_64x64<float>(int)'), (4, 'python');";

/* Appends n launches (API row + kernel row) and an NVTX range around each. */
static int add_rows(sqlite3 *db, int n, int64_t first_corr) {
  char sql[1024];
  int64_t g = ((int64_t)1 << 48) | ((int64_t)4242 << 24) | 4242, gp = g & ~(int64_t)0xFFFFFF;
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) return 1;
  for (int i = 0; i < n; i++) {
    int64_t t = 1000000 + (int64_t)i * 100000, corr = first_corr + i;
    snprintf(sql, sizeof sql,
             "INSERT INTO NVTX_EVENTS VALUES (%" PRId64 ", %" PRId64 ", 59, "
             "'aten::mm, seq = %d', %" PRId64 ", NULL, NULL, 0, 0, 0);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (%" PRId64 ", %" PRId64
             ", 0, %" PRId64 ", %" PRId64 ", 1, 0);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%" PRId64 ", %" PRId64
             ", 0, 1, 7, %" PRId64 ", %" PRId64 ", 3, 2, 1, 1, 1, 128, 1, 1, 32, 0, 0);",
             t, t + 50000, i, g, t + 1000, t + 6000, g, corr, t + 20000, t + 40000, corr, gp);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) return 1;
  }
  return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK;
}

/* Builds WORKDIR/name.sqlite: base tables, n good launches, then `damage`. */
static const char *fixture(const char *name, int n, const char *damage) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s.sqlite", workdir, name);
  remove(path);
  sqlite3 *db = NULL;
  int bad = sqlite3_open(path, &db) != SQLITE_OK ||
            sqlite3_exec(db, base_sql, NULL, NULL, NULL) != SQLITE_OK || add_rows(db, n, 1);
  if (!bad && damage && sqlite3_exec(db, damage, NULL, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "fixture %s: %s\n", name, sqlite3_errmsg(db));
    bad = 1;
  }
  sqlite3_close(db);
  return bad ? NULL : path;
}

static int count_files(const char *dir, const char *part) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strstr(e->d_name, part)) n++;
  if (d) closedir(d);
  return n;
}

/* Runs dlprof on path into a fresh out_dir; returns its exit status (-1 on
 * a signal) with its stderr in errtxt. */
static int run(const char *path, const char *extra) {
  char cmd[16384], errfile[4096];
  snprintf(out_dir, sizeof out_dir, "%s/out", workdir);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out_dir, out_dir);
  if (system(cmd) != 0) return -2;
  snprintf(errfile, sizeof errfile, "%s/stderr.txt", workdir);
  snprintf(cmd, sizeof cmd, "'%s' --database='%s' --output_path='%s' %s 2>'%s' >/dev/null",
           dlprof, path, out_dir, extra ? extra : "", errfile);
  int st = system(cmd);
  FILE *f = fopen(errfile, "r");
  size_t n = f ? fread(errtxt, 1, sizeof errtxt - 1, f) : 0;
  errtxt[n] = '\0';
  if (f) fclose(f);
  if (st == -1 || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

/* The aggregations of the last dldb sane() checked. */
static int naggr;

/* Common checks after a run: no sanitizer report, no temporary file, and
 * the dldb present exactly when the run succeeded (then complete). */
static int sane(int status) {
  ASSERT(strstr(errtxt, "Sanitizer") == NULL);
  ASSERT(strstr(errtxt, "runtime error") == NULL);
  ASSERT(status == 0 || status == 1);
  ASSERT_EQ(count_files(out_dir, ".tmp"), 0);
  char db[4200];
  snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", out_dir);
  ASSERT_EQ(access(db, F_OK) == 0, status == 0);
  if (status == 0) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    ASSERT_OK(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL));
    /* one aggregation per NVTX domain with ranges */
    ASSERT_OK(sqlite3_prepare_v2(h, "SELECT count(*) FROM view_aggregations", -1, &st, NULL));
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    naggr = sqlite3_column_int(st, 0);
    ASSERT(naggr >= 1);
    sqlite3_finalize(st);
    sqlite3_close(h);
  } else {
    /* exactly one error line, naming the problem */
    const char *last = strstr(errtxt, "dlprof: ");
    ASSERT_NOT_NULL(last);
  }
  return 0;
}

/* The error line mentions the file and the words given. */
static int error_names(const char *path, const char *words) {
  ASSERT_CONTAINS(errtxt, path);
  ASSERT_CONTAINS(errtxt, words);
  return 0;
}

/* Runs dlprof on path, which must succeed (its stderr shown when not). */
static int run_ok(const char *path) {
  int st = run(path, NULL);
  if (st) fprintf(stderr, "%s", errtxt);
  ASSERT_EQ(st, 0);
  ASSERT_OK(sane(st));
  return 0;
}

static int test_good(void) {
  const char *p = fixture("good", 50, NULL);
  ASSERT_NOT_NULL(p);
  ASSERT_OK(run_ok(p));
  ASSERT_CONTAINS(errtxt, "read 50 kernels");
  ASSERT_CONTAINS(errtxt, "0 unusable rows skipped");
  return 0;
}

static int test_text_times(void) {
  const char *p = fixture("text_times", 20,
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid = 3;"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = '12' WHERE rowid = 4;"
                          "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 1.5e6 WHERE rowid = 5;"
                          "UPDATE NVTX_EVENTS SET end = x'00ff' WHERE rowid = 6;");
  ASSERT_NOT_NULL(p);
  int st = run(p, NULL);
  ASSERT_EQ(st, 0);
  ASSERT_OK(sane(st));
  ASSERT_CONTAINS(errtxt, "read 18 kernels");
  ASSERT_CONTAINS(errtxt, "4 unusable rows skipped");
  return 0;
}

static int test_real_ids(void) {
  const char *p = fixture("real_ids", 20,
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 3.0 WHERE rowid = 3;"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 4.5 WHERE rowid = 4;"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 'gpu0' WHERE rowid = 5;"
                          "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = 1e300 WHERE rowid = 6;");
  ASSERT_NOT_NULL(p);
  int st = run(p, NULL);
  ASSERT_EQ(st, 0);
  ASSERT_OK(sane(st));
  ASSERT_CONTAINS(errtxt, "read 18 kernels");
  ASSERT_CONTAINS(errtxt, "3 unusable rows skipped");
  return 0;
}

static int test_null_names(void) {
  const char *p = fixture("null_names", 10,
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = NULL, "
                          " shortName = NULL WHERE rowid <= 3;"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 999 WHERE rowid = 4;"
                          "UPDATE NVTX_EVENTS SET text = NULL WHERE rowid <= 2;"
                          "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = NULL WHERE rowid = 5;"
                          "INSERT INTO StringIds VALUES (7, NULL);"
                          "INSERT INTO ThreadNames VALUES (NULL, 0, 281543696187400);");
  ASSERT_NOT_NULL(p);
  int st = run(p, NULL);
  ASSERT_EQ(st, 0);
  ASSERT_OK(sane(st));
  ASSERT_CONTAINS(errtxt, "read 10 kernels");
  return 0;
}

static int test_reversed_and_absurd(void) {
  const char *p = fixture("absurd", 20,
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 10 WHERE rowid = 2;"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -5 WHERE rowid = 3;"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 4611686018427387904 "
                          " WHERE rowid = 4;"
                          "UPDATE NVTX_EVENTS SET end = start - 1 WHERE rowid = 5;"
                          "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = 9223372036854775807 "
                          " WHERE rowid = 6;");
  ASSERT_NOT_NULL(p);
  int st = run(p, NULL);
  ASSERT_EQ(st, 0);
  ASSERT_OK(sane(st));
  ASSERT_CONTAINS(errtxt, "read 17 kernels");
  ASSERT_CONTAINS(errtxt, "5 unusable rows skipped");
  return 0;
}

static int test_duplicate_corr(void) {
  const char *p = fixture("dupes", 20,
                          "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME "
                          " SELECT start + 7, end + 7, eventClass, globalTid, correlationId, "
                          " nameId, returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid <= 4;"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 1 WHERE rowid = 2;");
  ASSERT_NOT_NULL(p);
  int st = run(p, NULL);
  ASSERT_EQ(st, 0);
  ASSERT_OK(sane(st));
  ASSERT_CONTAINS(errtxt, "20 API calls");
  ASSERT_CONTAINS(errtxt, "4 unusable rows skipped");
  return 0;
}

static int test_huge_name(void) {
  const char *p = fixture("huge", 5,
                          "UPDATE StringIds SET value = 'void k<' || "
                          " replace(hex(zeroblob(5000000)), '00', 'ab') || '>()' WHERE id = 3;"
                          "UPDATE NVTX_EVENTS SET text = hex(zeroblob(300000)) WHERE rowid = 1;");
  ASSERT_NOT_NULL(p);
  int st = run(p, NULL);
  ASSERT_EQ(st, 0);
  ASSERT_OK(sane(st));
  ASSERT_CONTAINS(errtxt, "2 over-long names cut");
  return 0;
}

/* The domain of each range, by the range's name, as "name=domain;...". */
static int range_domains(char *buf, size_t len) {
  char db[4200];
  snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", out_dir);
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  ASSERT_OK(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL));
  ASSERT_OK(sqlite3_prepare_v2(h,
                               "SELECT group_concat(n.value || '=' || s.value, ';') FROM "
                               "(SELECT * FROM nvtx_ranges ORDER BY start_ns) r "
                               "JOIN strings n ON n.id = r.name_id JOIN domains d ON "
                               "d.id = r.domain_id JOIN strings s ON s.id = d.name_id "
                               "WHERE n.value LIKE 'in %'",
                               -1, &st, NULL));
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return 0;
}

/* Domains (eventType 75 rows) are read in the ranges' own scan; one stored
 * after a range that names it is still found, an unknown one is the
 * default domain, and an unusable 75 row is counted once. */
static int test_domain_order(void) {
  const char *p = fixture(
      "domains", 5,
      "INSERT INTO NVTX_EVENTS SELECT 900, NULL, 75, 'early', globalTid, NULL, NULL, 6, 0, 0 "
      " FROM NVTX_EVENTS LIMIT 1;"
      "INSERT INTO NVTX_EVENTS SELECT 2000000, 2000100, 59, 'in late', globalTid, NULL, NULL, "
      " 5, 0, 0 FROM NVTX_EVENTS LIMIT 1;"
      "INSERT INTO NVTX_EVENTS SELECT 2000200, 2000300, 59, 'in early', globalTid, NULL, NULL, "
      " 6, 0, 0 FROM NVTX_EVENTS LIMIT 1;"
      "INSERT INTO NVTX_EVENTS SELECT 2000400, 2000500, 59, 'in none', globalTid, NULL, NULL, "
      " 9, 0, 0 FROM NVTX_EVENTS LIMIT 1;"
      "INSERT INTO NVTX_EVENTS SELECT 900, NULL, 75, 'bad', globalTid, NULL, NULL, 'x', 0, 0 "
      " FROM NVTX_EVENTS LIMIT 1;"
      "INSERT INTO NVTX_EVENTS SELECT 900, NULL, 75, 'late', globalTid, NULL, NULL, 5, 0, 0 "
      " FROM NVTX_EVENTS LIMIT 1;");
  ASSERT_NOT_NULL(p);
  ASSERT_OK(run_ok(p));
  ASSERT_CONTAINS(errtxt, "8 NVTX ranges");
  ASSERT_CONTAINS(errtxt, "1 unusable rows skipped");
  ASSERT_EQ(naggr, 3); /* every domain with ranges: default-domain, late, early */
  char got[512];
  ASSERT_OK(range_domains(got, sizeof got));
  ASSERT_STR_EQ(got, "in late=late;in early=early;in none=default-domain");
  return 0;
}

static int test_missing_tables(void) {
  const char *p = fixture("no_strings", 3, "DROP TABLE StringIds;");
  ASSERT_NOT_NULL(p);
  int st = run(p, NULL);
  ASSERT_EQ(st, 1);
  ASSERT_OK(sane(st));
  ASSERT_OK(error_names(p, "neither an Nsight Systems export"));
  p = fixture("no_activity", 3,
              "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;"
              "DROP TABLE NVTX_EVENTS;");
  ASSERT_NOT_NULL(p);
  st = run(p, NULL);
  ASSERT_EQ(st, 1);
  ASSERT_OK(sane(st));
  ASSERT_OK(error_names(p, "no CUDA or NVTX activity"));
  /* only kernels: imports (no API calls, no ranges) */
  p = fixture("only_kernels", 3,
              "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; DROP TABLE NVTX_EVENTS;");
  ASSERT_NOT_NULL(p);
  st = run(p, NULL);
  ASSERT_EQ(st, 0);
  ASSERT_OK(sane(st));
  return 0;
}

static int test_missing_column(void) {
  const char *p = fixture("no_start", 3,
                          "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN start;");
  ASSERT_NOT_NULL(p);
  int st = run(p, NULL);
  ASSERT_EQ(st, 1);
  ASSERT_OK(sane(st));
  ASSERT_OK(error_names(p, "CUPTI_ACTIVITY_KIND_KERNEL has no column start"));
  return 0;
}

/* The text of a one-value query on the output dldb ("" when none). */
static const char *out_query(const char *sql) {
  static char val[4096];
  char db[4200];
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  val[0] = '\0';
  snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", out_dir);
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_text(st, 0))
    snprintf(val, sizeof val, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return val;
}

/* Memory copies, memsets and synchronizations (one table-driven scan): each
 * field from its named column, a missing optional column read as 0, and
 * rows with an unusable interval or id skipped. */
static int test_activities(void) {
  const char *p = fixture(
      "activities", 5,
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, streamId, correlationId,"
      " globalPid, bytes, copyKind, srcKind, dstKind);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
      " (100, 200, 0, 7, 5, (1 << 48) | (4242 << 24), 4096, 1, 0, 2),"
      " (300, 400, 1.0, 7, 6, (1 << 48) | (4242 << 24), 8, 2, 3, 4),"
      " (500, 400, 0, 7, 7, (1 << 48) | (4242 << 24), 8, 1, 1, 1),"
      " (600, 700, 'x', 7, 8, (1 << 48) | (4242 << 24), 8, 1, 1, 1);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, streamId, correlationId,"
      " globalPid, bytes, value);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES"
      " (1000, 1100, 0, 7, 9, (1 << 48) | (4242 << 24), 256, 255),"
      " (NULL, 1200, 0, 7, 10, (1 << 48) | (4242 << 24), 1, 1);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, streamId,"
      " correlationId, globalPid, syncType, eventId);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES"
      " (2000, 2500, 0, 7, 11, (1 << 48) | (4242 << 24), 3, 99),"
      " (2600, 2700, 0, 7, 12.5, (1 << 48) | (4242 << 24), 1, 0);");
  ASSERT_NOT_NULL(p);
  ASSERT_OK(run_ok(p));
  ASSERT_CONTAINS(errtxt, "2 memcpys, 1 memsets");
  ASSERT_CONTAINS(errtxt, "4 unusable rows skipped");
  ASSERT_STR_EQ(out_query("SELECT group_concat(copy_kind || ',' || src_kind || ',' || dst_kind ||"
                          " ',' || bytes || ',' || device_id || ',' || stream_id || ',' ||"
                          " gpu_start_ns || ',' || gpu_end_ns || ',' || correlation_id || ',' ||"
                          " pid, '|') FROM (SELECT * FROM memcpys ORDER BY id)"),
                "1,0,2,4096,0,7,100,200,5,4242|2,3,4,8,1,7,300,400,6,4242");
  ASSERT_STR_EQ(out_query("SELECT group_concat(value || ',' || bytes || ',' || mem_kind || ',' ||"
                          " device_id || ',' || stream_id || ',' || gpu_start_ns || ',' ||"
                          " gpu_end_ns || ',' || correlation_id || ',' || pid, '|') FROM memsets"),
                "255,256,0,0,7,1000,1100,9,4242");
  ASSERT_STR_EQ(out_query("SELECT group_concat(sync_type || ',' || device_id || ',' || stream_id"
                          " || ',' || event_id || ',' || start_ns || ',' || end_ns || ',' ||"
                          " correlation_id || ',' || pid, '|') FROM syncs"),
                "3,0,7,99,2000,2500,11,4242");
  return 0;
}

/* Copies src to dst keeping `keep` bytes (all when < 0), then overwrites
 * `len` bytes at `at` with garbage. */
static int damage_copy(const char *src, const char *dst, long keep, long at, long len) {
  FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
  if (!in || !out) return 1;
  char buf[4096];
  long done = 0;
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
    if (keep >= 0 && done + (long)n > keep) n = (size_t)(keep - done);
    for (size_t i = 0; i < n; i++)
      if (done + (long)i >= at && done + (long)i < at + len) buf[i] = (char)(0x5a ^ (i * 7));
    fwrite(buf, 1, n, out);
    done += (long)n;
    if (keep >= 0 && done >= keep) break;
  }
  fclose(in);
  return fclose(out) != 0;
}

static int test_truncated_and_corrupt(void) {
  const char *p = fixture("big", 3000, NULL);
  ASSERT_NOT_NULL(p);
  char src[4096], dst[4200];
  snprintf(src, sizeof src, "%s", p);
  struct stat sb;
  ASSERT_OK(stat(src, &sb));
  long size = (long)sb.st_size;
  /* truncated at several points, and overwritten in the middle and in the schema page */
  const long cases[][3] = {{size / 2, -1, 0},  {size / 5, -1, 0},     {4096 + 100, -1, 0},
                           {-1, size / 2, 8192}, {-1, 120, 300},       {-1, size / 3, 50000},
                           {size - 4096, -1, 0}, {-1, 4096, 4096},     {-1, 60000, 9}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(dst, sizeof dst, "%s/damaged_%zu.sqlite", workdir, i);
    ASSERT_OK(damage_copy(src, dst, cases[i][0], cases[i][1], cases[i][2]));
    int st = run(dst, NULL);
    if (sane(st)) {
      fprintf(stderr, "case %zu: status %d: %s\n", i, st, errtxt);
      return 1;
    }
    if (st == 1) ASSERT_CONTAINS(errtxt, dst);
  }
  /* not SQLite at all, and an empty file */
  snprintf(dst, sizeof dst, "%s/garbage.sqlite", workdir);
  ASSERT_OK(damage_copy(src, dst, 10000, 0, 10000));
  ASSERT_EQ(run(dst, NULL), 1);
  ASSERT_OK(sane(1));
  snprintf(dst, sizeof dst, "%s/empty.sqlite", workdir);
  ASSERT_OK(damage_copy(src, dst, 0, 0, 0));
  ASSERT_EQ(run(dst, NULL), 1);
  ASSERT_OK(sane(1));
  return 0;
}

/* An existing output is kept: refused without --force, replaced whole with it. */
static int test_existing_output(void) {
  const char *p = fixture("good2", 10, NULL);
  ASSERT_NOT_NULL(p);
  ASSERT_EQ(run(p, NULL), 0);
  char db[4200], cmd[9000];
  snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", out_dir);
  snprintf(cmd, sizeof cmd, "'%s' --database='%s' --output_path='%s' 2>/dev/null", dlprof, p,
           out_dir);
  struct stat before, after;
  ASSERT_OK(stat(db, &before));
  ASSERT(system(cmd) != 0);
  ASSERT_OK(stat(db, &after));
  ASSERT_EQ(before.st_ino, after.st_ino);
  ASSERT_EQ(count_files(out_dir, ".tmp"), 0);
  /* a failing import with --force leaves the old file in place */
  const char *bad = fixture("bad_force", 3, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN end;");
  ASSERT_NOT_NULL(bad);
  snprintf(cmd, sizeof cmd, "'%s' --database='%s' --output_path='%s' --force=true 2>/dev/null",
           dlprof, bad, out_dir);
  ASSERT(system(cmd) != 0);
  ASSERT_OK(stat(db, &after));
  ASSERT_EQ(before.st_ino, after.st_ino);
  ASSERT_EQ(count_files(out_dir, ".tmp"), 0);
  return 0;
}

static int test_quiet_and_progress(void) {
  const char *p = fixture("quiet", 10, NULL);
  ASSERT_NOT_NULL(p);
  ASSERT_EQ(run(p, "--verbosity=quiet"), 0);
  ASSERT_STR_EQ(errtxt, "");
  ASSERT_EQ(run(p, "--verbosity=minimal"), 0);
  ASSERT_CONTAINS(errtxt, "dlprof: kernels: 100% (10 of 10)");
  ASSERT_CONTAINS(errtxt, "dlprof: loading kernels: 100%");
  ASSERT(strstr(errtxt, "\r") == NULL); /* not a terminal: plain lines */
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_import_robust DLPROF WORKDIR\n");
    return 2;
  }
  dlprof = argv[1];
  workdir = argv[2];
  if (access(dlprof, X_OK) != 0) SKIP("dlprof is not built");
  RUN(test_good);
  RUN(test_text_times);
  RUN(test_real_ids);
  RUN(test_null_names);
  RUN(test_reversed_and_absurd);
  RUN(test_duplicate_corr);
  RUN(test_huge_name);
  RUN(test_domain_order);
  RUN(test_missing_tables);
  RUN(test_missing_column);
  RUN(test_activities);
  RUN(test_truncated_and_corrupt);
  RUN(test_existing_output);
  RUN(test_quiet_and_progress);
  TEST_DONE();
}
