/*
 * test_dldb_write - the dldb schema and writer: every view's columns equal
 * NVIDIA DLProf 1.8's (read from the real no_relu database), raw records
 * round-trip, and output is atomic (no final file before commit, old file
 * intact on failure, --force semantics); the raw tables written as pages
 * equal SQLite's.
 * Usage: test_dldb_write SHARED_DIR WORK_DIR
 */
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dldb_aggr.h"
#include "dldb_chunks.h"
#include "dldb_write.h"
#include "dldb_write_internal.h" /* the writer's sqlite3 handle, for its page cache */
#include "dldb_write_nvtx.h"
#include "test.h"
#include "test_sql.h"

static const char *shared_dir, *work_dir;
static char nvidia_db[1024];

static void path_in(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", work_dir, name);
}

static int make_empty(const char *path) {
  dldb_writer *w = NULL;
  char err[256];
  dldb_write_opts o = {.force = 1, .producer = "test"};
  if (dldb_writer_create(path, &o, &w, err, sizeof err)) return -1;
  return dldb_writer_commit(&w, err, sizeof err);
}

/* "name:TYPE,..." of a view, NVIDIA's STRING read as TEXT */
static void view_sig(sqlite3 *db, const char *view, char *buf, size_t n) {
  sqlite3_stmt *st = NULL;
  buf[0] = '\0';
  sqlite3_prepare_v2(db, "SELECT name, type FROM pragma_table_info(?1)", -1, &st, NULL);
  sqlite3_bind_text(st, 1, view, -1, SQLITE_STATIC);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(st, 1);
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s:%s,", sqlite3_column_text(st, 0),
             strcmp(t, "STRING") == 0 ? "TEXT" : t);
  }
  sqlite3_finalize(st);
}

static int test_views_match_nvidia(void) {
  char ours[1024];
  path_in(ours, sizeof ours, "views.sqlite");
  ASSERT_OK(make_empty(ours));
  sqlite3 *nv = NULL, *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(nvidia_db, &nv, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_open_v2(ours, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(nv,
                               "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name",
                               -1, &st, NULL),
            SQLITE_OK);
  int n = 0, bad = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *v = (const char *)sqlite3_column_text(st, 0);
    char a[2048], b[2048];
    view_sig(nv, v, a, sizeof a);
    view_sig(db, v, b, sizeof b);
    if (strcmp(a, b) != 0) {
      fprintf(stderr, "view %s differs:\n  nvidia %s\n  ours   %s\n", v, a, b);
      bad++;
    }
    n++;
  }
  sqlite3_finalize(st);
  int ours_views = 0;
  /* DLProf's views; our own view_dl_* extensions and view_op_cpu_times come on top */
  sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND "
                         "name NOT LIKE 'view\\_dl\\_%' ESCAPE '\\' AND name <> 'view_op_cpu_times'",
                     -1, &st, NULL);
  if (sqlite3_step(st) == SQLITE_ROW) ours_views = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(nv);
  sqlite3_close(db);
  ASSERT_EQ(n, 23);
  ASSERT_EQ(ours_views, 23);
  ASSERT_EQ(bad, 0);
  return 0;
}


static int q_text(sqlite3 *db, const char *sql, char *buf, size_t n) {
  sqlite3_stmt *st = NULL;
  buf[0] = '\0';
  int ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
           sqlite3_step(st) == SQLITE_ROW;
  if (ok) snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return ok;
}

static int test_round_trip(void) {
  char path[1024], err[256], buf[512];
  path_in(path, sizeof path, "roundtrip.sqlite");
  unlink(path);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.producer = "test 1", .source = "unit", .time_origin_ns = 1000000,
                       .batch_rows = 2};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  static const char hostile[] = "<script>alert(1)</script>\"'javascript:1e5";
  dldb_gpu g = {.device_id = 0, .name = "GPU X", .cc_major = 8, .cc_minor = 6, .sm_count = 84};
  ASSERT_OK(dldb_write_gpu(w, &g, err, sizeof err));
  int64_t rid = 0;
  dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = hostile, .start_ns = 1000100,
                       .end_ns = 1000900, .pid = 7, .tid = 8, .payload_kind = DLDB_PAYLOAD_INT,
                       .payload_int = 42};
  ASSERT_OK(dldb_write_nvtx_range(w, &r, &rid, err, sizeof err));
  ASSERT(rid > 0);
  dldb_api_call a = {.name = "cudaLaunchKernel_v7000", .start_ns = 1000200, .end_ns = 1000300,
                     .pid = 7, .tid = 8, .correlation_id = 5};
  ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
  dldb_kernel k = {.short_name = "k1", .long_name = "void k1<float>()", .device_id = 0,
                   .stream_id = 7, .gpu_start_ns = 1000400, .gpu_end_ns = 1000500,
                   .correlation_id = 5, .pid = 7, .grid = {2, 3, 4}, .block = {128, 1, 1}};
  ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  dldb_memcpy m = {.copy_kind = 1, .bytes = 4096, .gpu_start_ns = 1000600, .gpu_end_ns = 1000700,
                   .correlation_id = 6, .pid = 7};
  ASSERT_OK(dldb_write_memcpy(w, &m, err, sizeof err));
  int64_t id1, id2;
  ASSERT_OK(dldb_writer_intern(w, "k1", &id1, err, sizeof err));
  ASSERT_OK(dldb_writer_intern(w, "k1", &id2, err, sizeof err));
  ASSERT_EQ(id1, id2);
  ASSERT_STR_EQ(dldb_writer_string(w, id1), "k1");
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  ASSERT_NULL(w);

  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ASSERT_EQ(q_int(db, "PRAGMA user_version"), DLDB_SCHEMA_VERSION);
  ASSERT(q_text(db, "SELECT value FROM dl_meta WHERE key = 'format'", buf, sizeof buf));
  ASSERT_STR_EQ(buf, "dlprof-dldb");
  ASSERT(q_text(db, "SELECT value FROM dl_meta WHERE key = 'producer'", buf, sizeof buf));
  ASSERT_STR_EQ(buf, "test 1");
  ASSERT(q_text(db, "SELECT current_version FROM view_db_version", buf, sizeof buf));
  ASSERT_STR_EQ(buf, "1.8.0");
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = "
                      "'read_only_system_config'"),
            1);
  ASSERT_EQ(q_int(db, "SELECT start_ns FROM nvtx_ranges"), 100);
  ASSERT_EQ(q_int(db, "SELECT payload_int FROM nvtx_ranges"), 42);
  ASSERT(q_text(db, "SELECT s.value FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id", buf,
                sizeof buf));
  ASSERT_STR_EQ(buf, hostile);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM kernels"), 2);
  ASSERT_EQ(q_int(db, "SELECT count(DISTINCT short_name_id) FROM kernels"), 1);
  ASSERT_EQ(q_int(db, "SELECT gpu_end_ns - gpu_start_ns FROM kernels LIMIT 1"), 100);
  ASSERT_EQ(q_int(db, "SELECT grid_z FROM kernels LIMIT 1"), 4);
  ASSERT_EQ(q_int(db, "SELECT bytes FROM memcpys"), 4096);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_domains WHERE domain_name = 'default-domain'"),
            1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_gpu_names"), 1);
  sqlite3_close(db);
  return 0;
}

static int exists(const char *p) { return access(p, F_OK) == 0; }

static int producer_of(const char *path, char *buf, size_t n) {
  sqlite3 *db = NULL;
  int ok = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
           q_text(db, "SELECT value FROM dl_meta WHERE key = 'producer'", buf, n);
  sqlite3_close(db);
  return ok;
}

typedef struct ready_seen {
  int calls, rc;
  char tmp[1100], producer[128];
} ready_seen;

/* dldb_writer_commit_ready's hook: reads the producer of the file it gets
 * (not yet in place: its path does not exist yet) and returns r->rc. */
static int ready_hook(void *ctx, const char *path) {
  ready_seen *r = ctx;
  r->calls++;
  if (!producer_of(path, r->producer, sizeof r->producer)) r->producer[0] = '\0';
  return r->rc;
}

static int test_atomic_output(void) {
  char path[1024], err[256], buf[128];
  path_in(path, sizeof path, "atomic.sqlite");
  unlink(path);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.producer = "first"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  ASSERT(!exists(path));
  ASSERT(exists(dldb_writer_tmp_path(w)));
  ASSERT_CONTAINS(dldb_writer_tmp_path(w), "atomic.sqlite.tmp-");
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  ASSERT(exists(path));

  /* no force: refused up front */
  o.producer = "second";
  ASSERT_EQ(dldb_writer_create(path, &o, &w, err, sizeof err), DL_EEXIST);
  ASSERT_NULL(w);
  ASSERT_CONTAINS(err, "exists");

  /* force, then abort: old file intact, temporary file gone */
  o.force = 1;
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s", dldb_writer_tmp_path(w));
  dldb_kernel k = {.short_name = "k", .gpu_end_ns = 1};
  ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  dldb_writer_abort(&w);
  ASSERT_NULL(w);
  ASSERT(!exists(tmp));
  ASSERT(producer_of(path, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "first");

  /* a file that appears during the build is not replaced without force */
  unlink(path);
  o.force = 0;
  o.producer = "third";
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  snprintf(tmp, sizeof tmp, "%s", dldb_writer_tmp_path(w));
  ASSERT_OK(make_empty(path)); /* producer "test" */
  ASSERT_EQ(dldb_writer_commit(&w, err, sizeof err), DL_EEXIST);
  ASSERT(!exists(tmp));
  ASSERT(producer_of(path, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "test");

  /* force: replaced */
  o.force = 1;
  o.producer = "fourth";
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  ASSERT(producer_of(path, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "fourth");

  /* a hook between the finished file and its rename: it sees the complete
   * temporary file; when it fails, the old file stays and the new one goes */
  o.producer = "fifth";
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  ready_seen r = {0};
  snprintf(r.tmp, sizeof r.tmp, "%s", dldb_writer_tmp_path(w));
  r.rc = DL_EIO;
  err[0] = '\0';
  ASSERT_EQ(dldb_writer_commit_ready(&w, ready_hook, &r, err, sizeof err), DL_EIO);
  ASSERT_NULL(w);
  ASSERT_STR_EQ(err, "");
  ASSERT_EQ(r.calls, 1);
  ASSERT_STR_EQ(r.producer, "fifth");
  ASSERT(!exists(r.tmp));
  ASSERT(producer_of(path, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "fourth");
  /* and when it succeeds, the file is renamed after it */
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  r.rc = DL_OK;
  ASSERT_OK(dldb_writer_commit_ready(&w, ready_hook, &r, err, sizeof err));
  ASSERT_EQ(r.calls, 2);
  ASSERT(producer_of(path, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "fifth");

  /* a directory that does not exist */
  char bad[1100];
  snprintf(bad, sizeof bad, "%s/no/such/dir/x.sqlite", work_dir);
  ASSERT_EQ(dldb_writer_create(bad, &o, &w, err, sizeof err), DL_EIO);
  ASSERT_NULL(w);
  dldb_writer_abort(&w); /* NULL-safe */
  return 0;
}

static int test_open_existing(void) {
  char path[1024], err[256];
  path_in(path, sizeof path, "existing.sqlite");
  ASSERT_OK(make_empty(path));
  dldb_writer *w = NULL;
  ASSERT_OK(dldb_writer_open_existing(path, &w, err, sizeof err));
  dldb_kernel k = {.short_name = "k"};
  ASSERT_EQ(dldb_write_kernel(w, &k, err, sizeof err), DL_EINVAL);
  int64_t id;
  ASSERT_OK(dldb_writer_intern(w, "default-domain", &id, err, sizeof err));
  ASSERT(id > 0);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  char other[1024];
  path_in(other, sizeof other, "not_a_dldb.sqlite");
  unlink(other);
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open(other, &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  ASSERT_EQ(dldb_writer_open_existing(other, &w, err, sizeof err), DL_EFORMAT);
  ASSERT_NULL(w);
  return 0;
}

/* Texts past the writer's in-memory budget (32 MB) are found again through
 * the hash slots, before and after the writer's own table grows, and after
 * reopening the file; each text is stored once. */
#define NTEXT 400000 /* 120-byte texts: 48 MB */
static void text_of(char *buf, size_t n, int i) {
  snprintf(buf, n, "aten::linear, seq = %07d, op_id = %07d, sizes = [[64, 1024], [1024, 1024]], "
           "input_op_ids = [(%d, 0)]...", i, i, i);
}

static int test_intern_past_budget(void) {
  char path[1024], err[256], t[256];
  path_in(path, sizeof path, "strings.sqlite");
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  static int64_t ids[NTEXT];
  for (int i = 0; i < NTEXT; i++) {
    text_of(t, sizeof t, i);
    ASSERT_OK(dldb_writer_intern(w, t, &ids[i], err, sizeof err));
    ASSERT(i == 0 || ids[i] > ids[i - 1]);
  }
  /* pinned strings (domain names) past the budget grow the cached table */
  for (int i = 0; i < 300000; i++) {
    int64_t d;
    snprintf(t, sizeof t, "domain %d", i);
    ASSERT_OK(dldb_write_domain(w, t, &d, err, sizeof err));
  }
  int64_t d1, d2;
  text_of(t, sizeof t, NTEXT - 1); /* a domain named as an uncached text */
  ASSERT_OK(dldb_write_domain(w, t, &d1, err, sizeof err));
  ASSERT_OK(dldb_write_domain(w, t, &d2, err, sizeof err));
  ASSERT_EQ(d1, d2);
  for (int i = 0; i < NTEXT; i += 997) {
    int64_t id;
    text_of(t, sizeof t, i);
    ASSERT_OK(dldb_writer_intern(w, t, &id, err, sizeof err));
    ASSERT_EQ(id, ids[i]);
    ASSERT_STR_EQ(dldb_writer_string(w, id), t);
  }
  /* the table of uncached strings dropped (as the analysis does): interning
   * rebuilds it, old texts keep their ids, a new text gets a new one */
  dldb_writer_begin_reads(w);
  for (int i = 1; i < NTEXT; i += 1013) {
    int64_t id;
    text_of(t, sizeof t, i);
    ASSERT_STR_EQ(dldb_writer_string(w, ids[i]), t);
    ASSERT_OK(dldb_writer_intern(w, t, &id, err, sizeof err));
    ASSERT_EQ(id, ids[i]);
  }
  int64_t late, late2;
  ASSERT_OK(dldb_writer_intern(w, "a text after the drop", &late, err, sizeof err));
  ASSERT(late > ids[NTEXT - 1]);
  dldb_writer_begin_reads(w);
  ASSERT_OK(dldb_writer_intern(w, "a text after the drop", &late2, err, sizeof err));
  ASSERT_EQ(late2, late);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  /* reopened: the first texts are cached again, the others hashed when
   * the first intern needs them */
  ASSERT_OK(dldb_writer_open_existing(path, &w, err, sizeof err));
  for (int i = 0; i < NTEXT; i += 1009) {
    int64_t id;
    text_of(t, sizeof t, i);
    ASSERT_OK(dldb_writer_intern(w, t, &id, err, sizeof err));
    ASSERT_EQ(id, ids[i]);
  }
  int64_t fresh;
  ASSERT_OK(dldb_writer_intern(w, "a text never seen", &fresh, err, sizeof err));
  ASSERT(fresh > ids[NTEXT - 1] + 300000);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*), count(DISTINCT value) FROM strings", -1, &st,
                               NULL),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  ASSERT_EQ(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
  ASSERT(sqlite3_column_int64(st, 0) >= NTEXT + 300000);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}

/* The writer's page cache holds the 64 MiB its pragma asks for. Set before
 * the page size, the figure in KiB became a number of 4 KiB pages, then 8
 * KiB ones: 128 MiB, unseen by PRAGMA cache_size. 200 MiB of text (1 MiB
 * strings, most past the string cache's budget) fill either cache. */
static int test_page_cache(void) {
  char path[1024], err[256];
  path_in(path, sizeof path, "cache.sqlite");
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  size_t n = (size_t)1 << 20;
  static char t[1 << 20];
  for (int i = 0; i < 200; i++) {
    memset(t, 'a' + i % 26, n - 1);
    t[n - 1] = '\0';
    snprintf(t, 16, "%08d", i); /* distinct */
    t[8] = ' ';
    int64_t id;
    ASSERT_OK(dldb_writer_intern(w, t, &id, err, sizeof err));
  }
  int cur = 0, hi = 0;
  ASSERT_EQ(sqlite3_db_status(w->db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0), SQLITE_OK);
  ASSERT(cur > (48 << 20)); /* filled */
  ASSERT(cur < (72 << 20)); /* 64 MiB and the pages' headers */
  /* reading (the analysis): the pages over a small cache go, and a scan of
   * every string refills only that much; writing: the 64 MiB back */
  ASSERT_OK(dldb__tx_commit(w, err, sizeof err));
  dldb_writer_begin_reads(w);
  ASSERT_EQ(sqlite3_db_status(w->db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0), SQLITE_OK);
  ASSERT(cur < (DLDB__READ_CACHE_KIB + 512) * 1024);
  ASSERT_EQ(q_int(w->db, "SELECT sum(length(value)) FROM strings") > (199 << 20), 1);
  ASSERT_EQ(sqlite3_db_status(w->db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0), SQLITE_OK);
  ASSERT(cur < (DLDB__READ_CACHE_KIB + 512) * 1024);
  dldb_writer_end_reads(w);
  ASSERT_EQ(q_int(w->db, "PRAGMA cache_size"), -65536);
  ASSERT_EQ(q_int(w->db, "SELECT sum(length(value)) FROM strings") > (199 << 20), 1);
  ASSERT_EQ(sqlite3_db_status(w->db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0), SQLITE_OK);
  ASSERT(cur > (48 << 20));
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  unlink(path);
  return 0;
}

/* Checks that text i of dldb_aggr_nvtx_texts is text_of(base + i). */
typedef struct texts_seen {
  int base;
  size_t n, wrong;
} texts_seen;

static int check_text(void *ctx, size_t i, const char *text, size_t len) {
  texts_seen *s = ctx;
  char want[256];
  text_of(want, sizeof want, s->base + (int)i);
  if (i != s->n++ || len != strlen(want) || memcmp(text, want, len) != 0) s->wrong++;
  return DL_OK;
}

/* The texts of strings added inside the open aggregation's transaction read
 * back whole, from the file's pages (which hold them once SQLite has
 * written the changed pages) and stepped by SQLite, with the page cache
 * of the writer (nothing written before the read) and with a small one
 * (pages written while the b-tree splits, the rest at the read). */
static int test_texts_in_aggregation(void) {
  char path[1024], err[256], t[256];
  path_in(path, sizeof path, "texts.sqlite");
  enum { BEFORE = 20000, INSIDE = 30000 };
  static uint32_t ids[BEFORE + INSIDE];
  for (int way = 0; way < 4; way++) { /* way & 1: SQLite; way & 2: a small page cache */
    dldb_writer *w = NULL;
    dldb_write_opts o = {.force = 1, .producer = "test"};
    ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
    for (int i = 0; i < BEFORE + INSIDE; i++) {
      if (i == BEFORE) {
        dldb_aggr_row a = {.key_node_name = "", .user_name = "", .host_name = "",
                           .aggr_start = "", .tc_rules = ""};
        int64_t aggr_id;
        ASSERT_OK(dldb_aggr_begin(w, &a, &aggr_id, err, sizeof err));
        if (way & 2) ASSERT_EQ(sqlite3_exec(w->db, "PRAGMA cache_size=8", 0, 0, 0), SQLITE_OK);
      }
      int64_t id;
      text_of(t, sizeof t, 1000000 + i);
      ASSERT_OK(dldb_writer_intern(w, t, &id, err, sizeof err));
      ids[i] = (uint32_t)id;
      ASSERT(i == 0 || ids[i] > ids[i - 1]);
    }
    if (way & 1) setenv("DLDB_SCAN", "sqlite", 1);
    texts_seen seen = {.base = 1000000};
    int rc = dldb_aggr_nvtx_texts(w, ids, BEFORE + INSIDE, check_text, &seen, err, sizeof err);
    unsetenv("DLDB_SCAN");
    ASSERT_EQ(rc, DL_OK);
    ASSERT_EQ(seen.n, (size_t)(BEFORE + INSIDE));
    ASSERT_EQ(seen.wrong, (size_t)0);
    /* the ids from the middle on: the strings before them are passed by */
    seen = (texts_seen){.base = 1000000 + BEFORE / 2};
    ASSERT_EQ(dldb_aggr_nvtx_texts(w, ids + BEFORE / 2, BEFORE / 2 + INSIDE, check_text, &seen,
                                   err, sizeof err),
              DL_OK);
    ASSERT_EQ(seen.n, (size_t)(BEFORE / 2 + INSIDE));
    ASSERT_EQ(seen.wrong, (size_t)0);
    dldb_writer_abort(&w);
  }
  return 0;
}

/* ---- Raw tables written as pages (dldb_writer_raw_pages) ------------------ */

enum { RAW_ALL, RAW_MEMCPY, RAW_DOMAIN, RAW_READER };

/* One profile's raw records, the raw tables written as pages (sqlite: with
 * DLDB_WRITE=sqlite); how: what comes in the middle (a memcpy, a second
 * domain, a reader: each ends the pages, SQLite writes the rest). NVTX
 * texts all distinct, some long enough for overflow pages; API and kernel
 * names repeated; the three kinds interleaved unevenly. */
static int raw_profile(const char *path, int how, int sqlite) {
  char err[256], text[12000];
  if (sqlite) setenv("DLDB_WRITE", "sqlite", 1);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test", .time_origin_ns = 1000};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  dldb_gpu g = {.device_id = 0, .name = "GPU X", .cc_major = 9, .sm_count = 132};
  ASSERT_OK(dldb_write_gpu(w, &g, err, sizeof err));
  dldb_thread th = {.pid = 7, .tid = 8, .name = "main thread"};
  ASSERT_OK(dldb_write_thread(w, &th, err, sizeof err));
  ASSERT_OK(dldb_writer_raw_pages(w, 1, err, sizeof err));
  const int n = 30000;
  for (int i = 0; i < n; i++) {
    if (i == n / 2) {
      ASSERT_EQ(w->bulk_tab[DLDB__B_NVTX] != NULL, !sqlite); /* the pages so far */
      if (how == RAW_MEMCPY) {
        dldb_memcpy m = {.copy_kind = 1, .bytes = 64, .gpu_start_ns = 5000, .gpu_end_ns = 6000,
                         .correlation_id = 1, .pid = 7};
        ASSERT_OK(dldb_write_memcpy(w, &m, err, sizeof err));
      } else if (how == RAW_READER) {
        dldb_writer *r = NULL;
        ASSERT_OK(dldb_writer_reader(w, &r, err, sizeof err));
        ASSERT_EQ(q_int(r->db, "SELECT count(*) FROM nvtx_ranges"), n / 2);
        ASSERT_EQ(q_int(r->db, "SELECT max(id) = count(*) AND count(*) > 15000 FROM "
                               "cuda_api_calls"),
                  1);
        dldb_writer_reader_close(&r);
      }
      if (how == RAW_MEMCPY || how == RAW_READER) { /* SQLite's from here */
        ASSERT_NULL(w->bulk_tab[DLDB__B_NVTX]);
        ASSERT(integrity_ok(w->db, "main"));
      }
    }
    int long_text = i % 997 == 3;
    int len = snprintf(text, sizeof text, "aten::op, seq = %d, sizes = [[%d, 64]]", i, i % 13);
    for (; long_text && len < 9000; len++) text[len] = (char)('a' + len % 26);
    text[len] = '\0';
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = text, .start_ns = 2000 + i * 10,
                         .end_ns = 2000 + i * 10 + 5, .pid = 7, .tid = 8, .category = i % 3,
                         .payload_kind = i % 4 == 1 ? DLDB_PAYLOAD_INT
                                         : i % 4 == 2 ? DLDB_PAYLOAD_REAL : DLDB_PAYLOAD_NONE,
                         .payload_int = -i, .payload_real = i / 8.0,
                         .domain = how == RAW_DOMAIN && i >= n / 2 ? "second" : NULL};
    ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
    if (how == RAW_DOMAIN && i == n / 2) ASSERT_NULL(w->bulk_tab[DLDB__B_NVTX]);
    char name[64];
    snprintf(name, sizeof name, "cudaLaunchKernel_v%d", i % 50);
    for (int k = 0; k < 1 + i % 3; k++) {
      dldb_api_call a = {.name = name, .start_ns = 2000 + i * 10 + k, .end_ns = 2003 + i * 10,
                         .pid = 7, .tid = 8, .correlation_id = i * 3 + k, .return_value = k};
      ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
    }
    snprintf(name, sizeof name, "kernel_%d", i % 77);
    if (i % 5 != 4) {
      dldb_kernel k = {.short_name = name, .long_name = i % 2 ? NULL : "void k<float>()",
                       .stream_id = 7 + i % 2, .gpu_start_ns = 3000 + i * 10,
                       .gpu_end_ns = 3004 + i * 10, .correlation_id = i * 3, .pid = 7,
                       .grid = {i, 1, 1}, .block = {128, 1, 1}, .registers_per_thread = 32};
      ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
    }
  }
  ASSERT_OK(dldb_writer_raw_pages(w, 0, err, sizeof err));
  ASSERT_NULL(w->bulk);
  dldb_memcpy m = {.copy_kind = 2, .bytes = 128, .gpu_start_ns = 7000, .gpu_end_ns = 8000,
                   .correlation_id = 2, .pid = 7};
  ASSERT_OK(dldb_write_memcpy(w, &m, err, sizeof err));
  int rc = dldb_writer_commit(&w, err, sizeof err);
  unsetenv("DLDB_WRITE");
  ASSERT_OK(rc);
  return 0;
}

/* Every table of each way equals SQLite's, and the files pass
 * integrity_check. An abort in the middle of the pages leaves no file. */
static int test_raw_pages(void) {
  static const char *const hows[] = {"all pages", "a memcpy", "a second domain", "a reader"};
  for (int how = RAW_ALL; how <= RAW_READER; how++) {
    char a[1024], b[1024], sql[1100];
    path_in(a, sizeof a, "raw_pages.sqlite");
    path_in(b, sizeof b, "raw_sqlite.sqlite");
    if (raw_profile(a, how, 0) || raw_profile(b, how, 1)) {
      fprintf(stderr, "raw pages: %s\n", hows[how]);
      return 1;
    }
    sqlite3 *db = NULL;
    ASSERT_EQ(sqlite3_open_v2(a, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    snprintf(sql, sizeof sql, "ATTACH '%s' AS q", b);
    ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    ASSERT(integrity_ok(db, "main"));
    ASSERT(integrity_ok(db, "q"));
    ASSERT_EQ(q_int(db, "SELECT count(*) FROM nvtx_ranges"), 30000);
    ASSERT(q_int(db, "SELECT max(length(value)) FROM strings") >= 9000);
    int tables = same_tables(db, "q", "%");
    if (tables < 0) fprintf(stderr, "raw pages: %s\n", hows[how]);
    ASSERT(tables > 20);
    sqlite3_close(db);
  }
  /* texts past the string cache's budget, then again: found in the pages
   * being built (the build stays open), each stored once */
  char path2[1024], err2[256], t[256];
  path_in(path2, sizeof path2, "raw_budget.sqlite");
  dldb_writer *wb = NULL;
  dldb_write_opts ob = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(path2, &ob, &wb, err2, sizeof err2));
  ASSERT_OK(dldb_writer_raw_pages(wb, 1, err2, sizeof err2));
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < NTEXT; i += pass ? 7 : 1) {
      text_of(t, sizeof t, i);
      dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = t, .start_ns = i, .end_ns = i + 1,
                           .pid = 1, .tid = 1};
      ASSERT_OK(dldb_write_nvtx_range(wb, &r, NULL, err2, sizeof err2));
    }
  ASSERT_NOT_NULL(wb->bulk_tab[DLDB__B_STRING]);
  ASSERT_OK(dldb_writer_raw_pages(wb, 0, err2, sizeof err2));
  /* the texts read back by id, from the pages' leaves as far as they
   * reach, also after strings are added through SQLite: as SQLite reads */
  ASSERT_NOT_NULL(wb->str_leaf);
  int64_t added = 0, nids = wb->max_id + 2;
  ASSERT_OK(dldb_writer_intern(wb, "a text added after the pages", &added, err2, sizeof err2));
  ASSERT_OK(dldb_writer_intern(wb, "and another one", &added, err2, sizeof err2));
  ASSERT_EQ(added, nids);
  char **back = calloc((size_t)nids + 1, sizeof *back);
  ASSERT_NOT_NULL(back);
  int64_t uncached = 0;
  for (int64_t id = 1; id <= nids; id++) {
    uncached += (size_t)id >= wb->scap || !wb->strs[id];
    const char *v = dldb_writer_string(wb, id);
    ASSERT_NOT_NULL(v);
    ASSERT_NOT_NULL(back[id] = strdup(v));
  }
  ASSERT_NULL(dldb_writer_string(wb, nids + 1));
  ASSERT_NOT_NULL(wb->str_leaf);
  ASSERT(uncached > NTEXT / 4 && wb->leaf_blocks >= (uncached - 1000) / DLDB__AHEAD_ROWS);
  ASSERT_OK(dldb_writer_commit(&wb, err2, sizeof err2));
  sqlite3 *db2 = NULL;
  ASSERT_EQ(sqlite3_open_v2(path2, &db2, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ASSERT(integrity_ok(db2, "main"));
  sqlite3_stmt *st2 = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db2, "SELECT id, value FROM strings ORDER BY id", -1, &st2, NULL),
            SQLITE_OK);
  int64_t seen = 0;
  while (sqlite3_step(st2) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st2, 0);
    ASSERT(id >= 1 && id <= nids);
    ASSERT_STR_EQ(back[id], (const char *)sqlite3_column_text(st2, 1));
    seen++;
  }
  ASSERT_EQ(seen, nids);
  sqlite3_finalize(st2);
  for (int64_t id = 1; id <= nids; id++) free(back[id]);
  free(back);
  ASSERT_EQ(q_int(db2, "SELECT count(*) = count(DISTINCT value) FROM strings"), 1);
  ASSERT_EQ(q_int(db2, "SELECT count(*) FROM strings WHERE value LIKE 'aten::linear%'"), NTEXT);
  ASSERT_EQ(q_int(db2, "SELECT count(DISTINCT name_id) FROM nvtx_ranges"), NTEXT);
  sqlite3_close(db2);
  /* the file cannot grow (a full disk): one line naming the file and why */
  char full[1024];
  path_in(full, sizeof full, "raw_full.sqlite");
  unlink(full);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    struct rlimit rl = {(rlim_t)4 << 20, (rlim_t)4 << 20};
    signal(SIGXFSZ, SIG_IGN); /* the write fails (EFBIG) instead of killing */
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(3);
    dldb_writer *wf = NULL;
    dldb_write_opts of = {.producer = "test"};
    if (dldb_writer_create(full, &of, &wf, err2, sizeof err2) ||
        dldb_writer_raw_pages(wf, 1, err2, sizeof err2))
      _exit(4);
    dldb_kernel kf = {.short_name = "k", .gpu_start_ns = 10, .gpu_end_ns = 20,
                      .grid = {1, 1, 1}, .block = {1, 1, 1}};
    int rc = DL_OK;
    for (int i = 0; i < 400000 && rc == DL_OK; i++)
      rc = dldb_write_kernel(wf, &kf, err2, sizeof err2);
    if (rc == DL_OK) rc = dldb_writer_raw_pages(wf, 0, err2, sizeof err2);
    dldb_writer_abort(&wf);
    int named = strstr(err2, full) && strstr(err2, "failed") && strstr(err2, strerror(EFBIG)) &&
                !strchr(err2, '\n');
    if (!named) fprintf(stderr, "full disk: \"%s\"\n", err2);
    _exit(rc == DL_EIO && named ? 0 : 5);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  ASSERT(!exists(full));
  /* aborted with the pages open: no file, no temporary one */
  char path[1024], err[256];
  path_in(path, sizeof path, "raw_abort.sqlite");
  unlink(path);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.producer = "test"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s", dldb_writer_tmp_path(w));
  ASSERT_OK(dldb_writer_raw_pages(w, 1, err, sizeof err));
  dldb_kernel k = {.short_name = "k", .gpu_start_ns = 10, .gpu_end_ns = 20, .grid = {1, 1, 1},
                   .block = {1, 1, 1}};
  for (int i = 0; i < 5000; i++) ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  ASSERT_NOT_NULL(w->bulk_tab[DLDB__B_KERNEL]);
  dldb_writer_abort(&w);
  ASSERT(!exists(path));
  ASSERT(!exists(tmp));
  return 0;
}

/* The stored orders' numbers (dldb__put_int) as printf writes them: the
 * ends of each digit count, both signs, the extremes, and a spread. */
static int test_put_int(void) {
  int64_t v[200];
  size_t n = 0;
  int64_t p = 1;
  for (int d = 0; d < 19; d++) { /* 10^d, 10^18 last */
    v[n++] = p;
    v[n++] = p - 1;
    v[n++] = p + 1;
    v[n++] = -p;
    v[n++] = -(p - 1);
    if (d < 18) p *= 10;
  }
  v[n++] = INT64_MAX;
  v[n++] = INT64_MIN;
  v[n++] = INT64_MIN + 1;
  uint64_t x = 88172645463325252ull;
  while (n < sizeof v / sizeof v[0]) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v[n++] = (int64_t)(x >> (x % 60));
  }
  for (size_t i = 0; i < n; i++) {
    char got[32], want[32];
    size_t len = dldb__put_int(got, v[i]);
    got[len] = '\0';
    snprintf(want, sizeof want, "%lld", (long long)v[i]);
    ASSERT_STR_EQ(got, want);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_dldb_write SHARED_DIR WORK_DIR\n");
    return 2;
  }
  shared_dir = argv[1];
  work_dir = argv[2];
  snprintf(nvidia_db, sizeof nvidia_db, "%s/traces/dlprof/no_relu/dlprof_dldb.sqlite",
           shared_dir);
  RUN(test_put_int);
  RUN(test_round_trip);
  RUN(test_atomic_output);
  if (access(nvidia_db, R_OK) != 0) {
    printf("SKIP: %s not found; view checks skipped\n", nvidia_db);
    if (test__failed == 0) exit(77);
  } else {
    RUN(test_views_match_nvidia);
  }
  RUN(test_open_existing);
  RUN(test_intern_past_budget);
  RUN(test_page_cache);
  RUN(test_texts_in_aggregation);
  RUN(test_raw_pages);
  TEST_DONE();
}
