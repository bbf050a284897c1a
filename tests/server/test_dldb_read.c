/*
 * test_dldb_read.c - the dldb read side on files made here: every way a file
 * can fail dldb_open_ro (with the words of the error), and the query builder
 * (whitelist, binding, filter, sort, paging, counts) on tests/server/mini.dldb.sql.
 * Usage: server_test_dldb_read WORKDIR
 */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "dldb.h"
#include "fixture.h"

static const char *workdir;
static char mini[4096];

static const char *wpath(const char *name) {
  static char buf[8][4096];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 4096, "%s/%s", workdir, name);
  return p;
}

/* Opens path and expects failure rc with a message containing want. */
static int expect_fail(const char *path, int rc_want, const char *want) {
  dldb *db = NULL;
  char err[1024] = "";
  int rc = dldb_open_ro(path, &db, NULL, err, sizeof err);
  ASSERT_NULL(db);
  ASSERT_EQ(rc, rc_want);
  ASSERT_CONTAINS(err, path);
  ASSERT_CONTAINS(err, want);
  ASSERT(strchr(err, '\n') == NULL);
  return 0;
}

static int test_missing(void) {
  const char *p = wpath("does-not-exist.sqlite");
  ASSERT_OK(expect_fail(p, DL_ENOTFOUND, "no such file"));
  struct stat st;
  ASSERT(stat(p, &st) != 0); /* never created */
  return 0;
}

static int test_directory(void) { return expect_fail(workdir, DL_EINVAL, "is a directory"); }

static int test_not_sqlite(void) {
  const char *p = wpath("text.sqlite");
  const char text[] = "aggr_id,gpu_time\n1,2\n this is a CSV file, not SQLite, and long enough "
                      "to hold a 100-byte header.........................................\n";
  ASSERT_OK(fixture_write(p, text, sizeof text - 1));
  return expect_fail(p, DL_EFORMAT, "file is not a database");
}

static int test_zero_bytes(void) {
  const char *p = wpath("zero.sqlite");
  ASSERT_OK(fixture_write(p, "", 0));
  return expect_fail(p, DL_EFORMAT, "empty file");
}

static int test_no_tables(void) {
  const char *p = wpath("notables.sqlite");
  ASSERT_OK(fixture_make(p, NULL, "CREATE TABLE t(x); DROP TABLE t;"));
  return expect_fail(p, DL_EFORMAT, "empty SQLite database (no tables)");
}

static int test_not_dldb(void) {
  const char *p = wpath("other.sqlite");
  ASSERT_OK(fixture_make(p, NULL, "CREATE TABLE people(name TEXT);"));
  return expect_fail(p, DL_EFORMAT, "not a dldb");
}

static int test_nsys_like(void) {
  const char *p = wpath("nsys-like.sqlite");
  ASSERT_OK(fixture_make(p, NULL, "CREATE TABLE StringIds(id INTEGER, value TEXT);"
                                  "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER);"));
  return expect_fail(p, DL_EFORMAT, "is an Nsight Systems export, not a dldb; convert it with "
                                    "dlprof --database=");
}

static int test_no_version_view(void) {
  const char *p = wpath("noversion.sqlite");
  ASSERT_OK(fixture_make(p, mini, "DROP VIEW view_db_version;"));
  return expect_fail(p, DL_EVERSION, "older, unsupported version");
}

static int test_new_version(void) {
  const char *p = wpath("v2.sqlite");
  ASSERT_OK(fixture_make(p, mini, "UPDATE db_version SET current_version = '2.0.0';"));
  return expect_fail(p, DL_EVERSION, "'2.0.0'");
}

static int test_no_aggregations(void) {
  const char *p = wpath("noaggr.sqlite");
  ASSERT_OK(fixture_make(p, mini, "DELETE FROM aggregations;"));
  /* in the user's words: no internal function names */
  ASSERT_OK(expect_fail(p, DL_ENOTFOUND, "nothing to show"));
  dldb *db = NULL;
  char err[1024] = "";
  ASSERT(dldb_open_ro(p, &db, NULL, err, sizeof err) != DL_OK);
  ASSERT(strstr(err, "DLPROF_") == NULL);
  ASSERT_CONTAINS(err, "dlprof --database=");
  return 0;
}

static int test_corrupt(void) {
  const char *p = wpath("corrupt.sqlite");
  size_t len = 0;
  ASSERT_OK(fixture_make(p, mini, NULL));
  char *buf = fixture_read(p, &len);
  ASSERT_NOT_NULL(buf);
  ASSERT(len > 4096);
  memset(buf + 4096, 0xA5, len - 4096); /* every page after the first */
  int rc = fixture_write(p, buf, len);
  free(buf);
  ASSERT_OK(rc);
  dldb *db = NULL;
  char err[1024] = "";
  rc = dldb_open_ro(p, &db, NULL, err, sizeof err);
  ASSERT_NULL(db);
  ASSERT(rc == DL_ECORRUPT || rc == DL_EFORMAT);
  ASSERT_CONTAINS(err, p);
  return 0;
}

/* A cut file is found from its header's page count, before any page is read. */
static int test_truncated_header(void) {
  const char *p = wpath("cut.sqlite");
  struct stat sb;
  ASSERT_OK(fixture_make(p, mini, NULL));
  ASSERT_OK(stat(p, &sb));
  size_t len = (size_t)sb.st_size;
  ASSERT(len > 8192);
  ASSERT_OK(truncate(p, (off_t)(len - 4096))); /* the last page gone */
  dldb *db = NULL;
  char err[1024] = "", want[128];
  ASSERT_EQ(dldb_open_ro(p, &db, NULL, err, sizeof err), DL_ECORRUPT);
  ASSERT_NULL(db);
  snprintf(want, sizeof want, "%zu of the %zu bytes its header announces", len - 4096, len);
  ASSERT_CONTAINS(err, want);
  ASSERT_CONTAINS(err, p);
  return 0;
}

static int test_ours_and_info(void) {
  const char *p = wpath("ours.sqlite");
  ASSERT_OK(fixture_make(p, mini, "CREATE TABLE dl_meta(key TEXT PRIMARY KEY, value TEXT);"
                                  "PRAGMA user_version = 7;"));
  dldb *db = NULL;
  dldb_info info;
  char err[1024] = "";
  ASSERT_OK(dldb_open_ro(p, &db, &info, err, sizeof err));
  ASSERT_EQ(info.producer, DLDB_PRODUCER_DLPROF);
  ASSERT_EQ(info.schema_version, 7);
  ASSERT_STR_EQ(info.current_version, "1.8.0");
  ASSERT_STR_EQ(info.original_version, "1.7.0");
  ASSERT_EQ(info.default_aggr_id, 2);
  ASSERT_STR_EQ(info.default_domain, "default-domain"); /* two domains */
  ASSERT_EQ(info.integrity_checked, 1); /* small: quick_check ran */
  ASSERT_STR_EQ(dldb_path(db), p);
  ASSERT_OK(dldb_verify_file(db, err, sizeof err));
  dldb_close(&db);
  ASSERT_NULL(db);
  dldb_close(&db);
  dldb_close(NULL);
  return 0;
}

static int test_verify_file(void) {
  const char *p = wpath("verify.sqlite"), *q = wpath("verify2.sqlite");
  ASSERT_OK(fixture_make(p, mini, NULL));
  ASSERT_OK(fixture_make(q, mini, NULL));
  dldb *db = NULL, *again = NULL;
  char err[1024] = "";
  ASSERT_OK(dldb_open_ro(p, &db, NULL, err, sizeof err));
  ASSERT_OK(dldb_open_again(db, &again, err, sizeof err));
  ASSERT_EQ(dldb_get_info(again)->default_aggr_id, 2);
  ASSERT_OK(rename(q, p)); /* replaced */
  ASSERT_EQ(dldb_verify_file(db, err, sizeof err), DL_EIO);
  ASSERT_CONTAINS(err, "replaced");
  ASSERT_OK(unlink(p)); /* removed */
  ASSERT_EQ(dldb_verify_file(db, err, sizeof err), DL_ENOTFOUND);
  ASSERT_CONTAINS(err, "cannot be found");
  dldb_close(&again);
  dldb_close(&db);
  return 0;
}

static int test_wal_readonly(void) {
  const char *p = wpath("wal.sqlite");
  ASSERT_OK(fixture_make(p, mini, "PRAGMA journal_mode = WAL;"));
  dldb *db = NULL;
  char err[1024] = "", shm[4200];
  ASSERT_OK(dldb_open_ro(p, &db, NULL, err, sizeof err));
  ASSERT_EQ(dldb_aggr_exists(db, 2), 1);
  snprintf(shm, sizeof shm, "%s-shm", p);
  struct stat st;
  ASSERT(stat(shm, &st) != 0); /* opened immutable: no -shm file */
  dldb_close(&db);
  return 0;
}

/* ---- queries on the mini fixture ----------------------------------------- */

static dldb *mini_db;

typedef struct collected {
  int n;
  char names[16][64];
  int64_t ints[16];
} collected;

/* Collects column `col` of each row: names as text, ints as integers. */
static int collect_col(void *ctx, const dldb_row *row) {
  collected *c = ctx;
  for (int i = 0; i < dldb_row_count(row) && c->n < 16; i++) {
    if (strcmp(dldb_row_name(row, i), c->names[15]) != 0) continue;
    snprintf(c->names[c->n], 64, "%s", dldb_row_text(row, i));
    c->ints[c->n] = dldb_row_int(row, i);
  }
  c->n++;
  return c->n >= 15;
}

static int run(dldb_query *q, const char *col, collected *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->names[15], 64, "%s", col);
  char err[512] = "";
  int rc = dldb_query_rows(mini_db, q, collect_col, c, err, sizeof err);
  if (rc) fprintf(stderr, "query: %s\n", err);
  return rc;
}

static int test_columns(void) {
  const char *const *names;
  const dldb_coltype *types;
  int n = dldb_view_columns(mini_db, "view_iteration_kernels", &names, &types);
  ASSERT_EQ(n, 9);
  ASSERT_STR_EQ(names[6], "kernel_duration");
  ASSERT_EQ(types[6], DLDB_COL_INTEGER); /* untyped: sampled */
  ASSERT_STR_EQ(names[7], "grid");
  ASSERT_EQ(types[7], DLDB_COL_TEXT);
  ASSERT_EQ(dldb_view_columns(mini_db, "view_group_ops", &names, &types), DL_ENOTFOUND);
  ASSERT_EQ(dldb_has_view(mini_db, "view_group_ops"), 0);
  ASSERT_EQ(dldb_has_view(mini_db, "view_op_nodes"), 1);
  n = dldb_view_columns(mini_db, "view_performance_summary", &names, &types);
  ASSERT_EQ(types[3], DLDB_COL_REAL);
  return 0;
}

static int test_sort_filter_page(void) {
  collected c;
  dldb_query q = {.view = "view_op_nodes", .aggr_id = 2, .domain = "default-domain",
                  .sort = "gpu_time", .desc = 1, .tiebreak = {"op_node_id"}, .limit = 10};
  ASSERT_OK(run(&q, "op_node_id", &c));
  ASSERT_EQ(c.n, 5);
  ASSERT_STR_EQ(c.names[0], "CONV2D_1");
  ASSERT_STR_EQ(c.names[1], "LINEAR_1"); /* tie on 300: op_node_id ascending */
  ASSERT_STR_EQ(c.names[2], "LINEAR_2");
  q.offset = 1;
  q.limit = 2;
  ASSERT_OK(run(&q, "op_node_id", &c));
  ASSERT_EQ(c.n, 2);
  ASSERT_STR_EQ(c.names[0], "LINEAR_1");
  /* % and _ are literal, case does not matter */
  q.offset = 0;
  q.limit = 10;
  q.filter = "100%_D";
  memcpy(q.filter_cols, (const char *[]){"op_node_name", "kernel_name", NULL},
         3 * sizeof(const char *));
  ASSERT_OK(run(&q, "op_node_id", &c));
  ASSERT_EQ(c.n, 1);
  ASSERT_STR_EQ(c.names[0], "LINEAR_1");
  q.filter = "_";
  ASSERT_OK(run(&q, "op_node_id", &c));
  ASSERT_EQ(c.n, 2); /* 100%_done and x_y, not every row as LIKE '%_%' would */
  return 0;
}

static int test_counts(void) {
  char err[512];
  int64_t total = -1, filtered = -1;
  dldb_query q = {.view = "view_op_nodes", .aggr_id = 2, .domain = "default-domain",
                  .filter_cols = {"op_node_name", "op_node_type", NULL}, .limit = 1};
  ASSERT_OK(dldb_query_count(mini_db, &q, &total, &filtered, err, sizeof err));
  ASSERT_EQ(total, 5);
  ASSERT_EQ(filtered, 5);
  q.filter = "LINEAR";
  ASSERT_OK(dldb_query_count(mini_db, &q, &total, &filtered, err, sizeof err));
  ASSERT_EQ(total, 5);
  ASSERT_EQ(filtered, 2);
  q.filter = "'";
  ASSERT_OK(dldb_query_count(mini_db, &q, &total, &filtered, err, sizeof err));
  ASSERT_EQ(filtered, 1); /* Weird'Type */
  ASSERT_OK(dldb_query_count(mini_db, &q, &total, &filtered, err, sizeof err)); /* cached */
  ASSERT_EQ(filtered, 1);
  q.domain = "other domain";
  q.filter = NULL;
  ASSERT_OK(dldb_query_count(mini_db, &q, &total, &filtered, err, sizeof err));
  ASSERT_EQ(total, 1);
  return 0;
}

/* A view whose name is looked up in `strings` and that has the id as
 * name_id filters through dldb_strmatch (one read of strings, a bitset) and
 * sorts by name through dldb_strrank (each string's place in value order);
 * a view without name_id through instr(lower(name)) and ORDER BY name. Both
 * must give the same rows in the same order: names with case, %, _, a
 * backslash, non-ASCII bytes, a NULL value and an id with no string. */
static const char names_sql[] =
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO strings VALUES (1, 'aten::conv2d, seq = 1'), (2, 'ATEN::CONV2D, seq = 2'),"
    " (3, '100%_done'), (4, 'x_y'), (5, 'back\\slash'), (6, '\xc3\x89lan conv'), (7, NULL),"
    " (8, 'relu'), (9, 'conv');"
    "CREATE TABLE runs(aggr_id INTEGER, row_idx INTEGER, key INTEGER, total INTEGER);"
    "INSERT INTO runs VALUES (1, 0, 2, 50), (1, 1, 18, 40), (1, 2, 6, 30), (1, 3, 4, 30),"
    " (1, 4, 8, 20), (1, 5, 10, 15), (1, 6, 12, 12), (1, 7, 14, 10), (1, 8, 16, 9), (1, 9, 3, 8),"
    " (1, 10, 200, 5), (2, 0, 2, 1), (1, 11, 17, 4);"
    "CREATE VIEW view_dl_names AS SELECT r.aggr_id, r.row_idx, r.total,"
    " (SELECT n.value FROM strings n WHERE n.id = r.key >> 1) AS name, r.key >> 1 AS name_id"
    " FROM runs r;"
    "CREATE VIEW view_dl_names_plain AS SELECT aggr_id, row_idx, total, name FROM view_dl_names;"
    "CREATE VIEW view_dl_stats_nvtx AS SELECT * FROM view_dl_names;"; /* counted by row_idx */

/* The row_idx of the rows of view (filter f, by sort, then row_idx) as
 * "a,b,c", and the filtered count. */
static int names_sorted(dldb *db, const char *view, const char *f, const char *sort, int desc,
                        char *out, size_t len, int64_t *count) {
  collected c;
  memset(&c, 0, sizeof c);
  snprintf(c.names[15], 64, "row_idx");
  dldb_query q = {.view = view, .aggr_id = 1, .filter = f, .filter_cols = {"name", NULL},
                  .sort = sort, .desc = desc, .tiebreak = {"row_idx"}, .limit = 14};
  char err[512] = "";
  int64_t total = -1;
  int rc = dldb_query_rows(db, &q, collect_col, &c, err, sizeof err);
  if (!rc) rc = dldb_query_count(db, &q, &total, count, err, sizeof err);
  if (rc) fprintf(stderr, "%s %s: %s\n", view, f, err);
  out[0] = '\0';
  for (int i = 0; i < c.n; i++)
    snprintf(out + strlen(out), len - strlen(out), "%s%lld", i ? "," : "", (long long)c.ints[i]);
  return rc;
}

static int names_rows(dldb *db, const char *view, const char *f, char *out, size_t len,
                      int64_t *count) {
  return names_sorted(db, view, f, "total", 1, out, len, count);
}

static int test_name_filter(void) {
  char err[512];
  const char *p = wpath("names.sqlite");
  ASSERT_OK(fixture_make(p, mini, names_sql));
  dldb *db = NULL, *db2 = NULL;
  ASSERT_OK(dldb_open_ro(p, &db, NULL, err, sizeof err));
  static const char *const filters[] = {"conv", "CONV2D", "seq = 2", "%_", "_", "\\",
                                        "\xc3\x89lan", "\xc3\xa9lan", "r", "xyz", "conv"};
  static const char *const want[] = {"0,1,3,6,9", "0,3,9", "3", "2", "2,4", "5",
                                     "6", "", "8,11", "", "0,1,3,6,9"};
  for (size_t i = 0; i < sizeof filters / sizeof *filters; i++) {
    char fast[256], plain[256];
    int64_t nfast = -1, nplain = -2;
    ASSERT_OK(names_rows(db, "view_dl_names", filters[i], fast, sizeof fast, &nfast));
    ASSERT_OK(names_rows(db, "view_dl_names_plain", filters[i], plain, sizeof plain, &nplain));
    if (strcmp(fast, want[i]) != 0 || strcmp(plain, want[i]) != 0 || nfast != nplain) {
      fprintf(stderr, "filter '%s': name_id %s (%lld), plain %s (%lld), want %s\n", filters[i],
              fast, (long long)nfast, plain, (long long)nplain, want[i]);
      return 1;
    }
  }
  /* view_dl_stats_nvtx numbers each aggregation's rows 0..n-1: its count is
   * 1 + the last row_idx (none: 0), the same as count(*); over every
   * aggregation (aggr_id -1), the sum */
  static const int64_t nrows[] = {13, 0, 12, 1, 0};
  for (int64_t a = -1; a < 4; a++) {
    int64_t total = -1, filtered = -1;
    dldb_query q = {.view = "view_dl_stats_nvtx", .aggr_id = a, .limit = 1};
    ASSERT_OK(dldb_query_count(db, &q, &total, &filtered, err, sizeof err));
    ASSERT_EQ(total, nrows[a + 1]);
    ASSERT_EQ(filtered, nrows[a + 1]);
    q.filter = "conv";
    memcpy(q.filter_cols, (const char *[]){"name", NULL}, 2 * sizeof(const char *));
    ASSERT_OK(dldb_query_count(db, &q, &total, &filtered, err, sizeof err));
    ASSERT_EQ(total, nrows[a + 1]);
    ASSERT_EQ(filtered, a == -1 ? 6 : a == 1 ? 5 : a == 2 ? 1 : 0);
  }
  /* The order of name (dldb_strrank on name_id): NULL names first (a NULL
   * value, a missing id), bytewise, equal names by row_idx. */
  static const char *const by_name[2] = {"7,10,2,3,0,9,5,1,8,11,4,6",
                                         "6,4,8,11,1,5,0,9,3,2,7,10"};
  for (int desc = 0; desc < 2; desc++) {
    char fast[256], plain[256];
    int64_t nfast = -1, nplain = -2;
    ASSERT_OK(names_sorted(db, "view_dl_names", NULL, "name", desc, fast, sizeof fast, &nfast));
    ASSERT_OK(names_sorted(db, "view_dl_names_plain", NULL, "name", desc, plain, sizeof plain,
                           &nplain));
    ASSERT_STR_EQ(fast, by_name[desc]);
    ASSERT_STR_EQ(plain, by_name[desc]);
    ASSERT_EQ(nfast, 12);
    ASSERT_EQ(nplain, 12);
  }
  /* Handles of one file share the bitset, the places and the counts: after
   * 'relu' is renamed 'a_gelu' in the file (which the viewer never sees
   * happen), a second handle still filters and sorts "relu" by what the
   * first one read. */
  char rows[256];
  int64_t n = -1;
  ASSERT_OK(names_rows(db, "view_dl_names", "relu", rows, sizeof rows, &n));
  ASSERT_STR_EQ(rows, "8,11");
  sqlite3 *w = NULL;
  ASSERT_EQ(sqlite3_open(p, &w), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w, "UPDATE strings SET value = 'a_gelu' WHERE id = 8", NULL, NULL, NULL),
            SQLITE_OK);
  sqlite3_close(w);
  ASSERT_OK(dldb_open_again(db, &db2, err, sizeof err));
  ASSERT_OK(names_rows(db2, "view_dl_names", "relu", rows, sizeof rows, &n));
  ASSERT_STR_EQ(rows, "8,11");
  ASSERT_EQ(n, 2);
  ASSERT_OK(names_rows(db2, "view_dl_names_plain", "relu", rows, sizeof rows, &n));
  ASSERT_STR_EQ(rows, ""); /* the plain path reads the name itself */
  ASSERT_OK(names_sorted(db2, "view_dl_names", NULL, "name", 0, rows, sizeof rows, &n));
  ASSERT_STR_EQ(rows, by_name[0]);
  ASSERT_OK(names_sorted(db2, "view_dl_names_plain", NULL, "name", 0, rows, sizeof rows, &n));
  ASSERT_STR_EQ(rows, "7,10,2,3,8,11,0,9,5,1,4,6"); /* 'a_gelu' before 'aten::' */
  dldb_close(&db);
  ASSERT_OK(names_rows(db2, "view_dl_names", "gelu", rows, sizeof rows, &n)); /* rebuilt */
  ASSERT_STR_EQ(rows, "8,11");
  dldb_close(&db2);
  return 0;
}

static int test_eq_and_whitelist(void) {
  collected c;
  char err[512];
  dldb_query q = {.view = "view_iteration_kernels", .aggr_id = 2, .domain = "default-domain",
                  .n_eq = 1, .eq = {{"iter_value", "4"}}, .sort = "kernel_name", .limit = 10};
  ASSERT_OK(run(&q, "kernel_name", &c));
  ASSERT_EQ(c.n, 2);
  ASSERT_STR_EQ(c.names[0], "k_c");
  q.eq[0].value = "four";
  ASSERT_EQ(dldb_query_rows(mini_db, &q, collect_col, &c, err, sizeof err), DL_EINVAL);
  ASSERT_CONTAINS(err, "iter_value must be an integer");
  q.eq[0].value = "4";
  q.sort = "kernel_name; DROP TABLE kernels";
  ASSERT_EQ(dldb_query_rows(mini_db, &q, collect_col, &c, err, sizeof err), DL_EINVAL);
  q.sort = NULL;
  q.eq[0].column = "\"iter_value\"";
  ASSERT_EQ(dldb_query_rows(mini_db, &q, collect_col, &c, err, sizeof err), DL_EINVAL);
  q.view = "view_group_ops";
  q.n_eq = 0;
  ASSERT_EQ(dldb_query_rows(mini_db, &q, collect_col, &c, err, sizeof err), DL_ENOTFOUND);
  ASSERT_EQ(dldb_aggr_exists(mini_db, 2), 1);
  ASSERT_EQ(dldb_aggr_exists(mini_db, 3), 0);
  ASSERT_EQ(dldb_domain_exists(mini_db, "other domain"), 1);
  ASSERT_EQ(dldb_domain_exists(mini_db, "x"), 0);
  return 0;
}

static int test_dim3_sort(void) {
  collected c;
  dldb_query q = {.view = "view_iteration_kernels", .aggr_id = 2, .domain = "default-domain",
                  .sort = "grid", .limit = 10};
  ASSERT_OK(run(&q, "kernel_name", &c));
  ASSERT_EQ(c.n, 4);
  /* 1,8,1 < 1,64,1 < 2,1,1 < 10,1,1 (as text: "1, 64" < "1, 8" < "10" < "2") */
  ASSERT_STR_EQ(c.names[0], "k_d");
  ASSERT_STR_EQ(c.names[1], "k_c");
  ASSERT_STR_EQ(c.names[2], "k_b");
  ASSERT_STR_EQ(c.names[3], "k_a");
  q.desc = 1;
  q.sort = "block";
  ASSERT_OK(run(&q, "kernel_name", &c));
  ASSERT_STR_EQ(c.names[0], "k_c"); /* 256 */
  ASSERT_STR_EQ(c.names[3], "k_d"); /* 32 */
  return 0;
}

static int test_values(void) {
  collected c;
  dldb_query q = {.view = "view_performance_summary", .aggr_id = 2, .domain = "default-domain",
                  .limit = 1};
  ASSERT_OK(run(&q, "wall_clock_time", &c));
  ASSERT_EQ(c.n, 1);
  ASSERT(c.ints[0] == INT64_MAX);
  q.aggr_id = 1;
  ASSERT_OK(run(&q, "wall_clock_time", &c));
  ASSERT(c.ints[0] == INT64_MIN);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
    return 2;
  }
  workdir = argv[1];
  snprintf(mini, sizeof mini, "%s", DLV_FIXTURE_SQL);
  RUN(test_missing);
  RUN(test_directory);
  RUN(test_not_sqlite);
  RUN(test_zero_bytes);
  RUN(test_no_tables);
  RUN(test_not_dldb);
  RUN(test_nsys_like);
  RUN(test_no_version_view);
  RUN(test_new_version);
  RUN(test_no_aggregations);
  RUN(test_corrupt);
  RUN(test_truncated_header);
  RUN(test_ours_and_info);
  RUN(test_verify_file);
  RUN(test_wal_readonly);
  char err[1024];
  const char *p = wpath("mini.sqlite");
  if (fixture_make(p, mini, NULL) != 0 || dldb_open_ro(p, &mini_db, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "cannot open the mini fixture: %s\n", err);
    return 1;
  }
  RUN(test_columns);
  RUN(test_sort_filter_page);
  RUN(test_counts);
  RUN(test_name_filter);
  RUN(test_eq_and_whitelist);
  RUN(test_dim3_sort);
  RUN(test_values);
  dldb_close(&mini_db);
  TEST_DONE();
}
