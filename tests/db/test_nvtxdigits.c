/*
 * test_nvtxdigits.c - name filters with digits on the NVTX statistics
 * views, answered from the names' digit runs (db/dldb_nvtxdigits.c writes
 * them, db/dldb_nvtxdmatch.c reads them), against a brute force reference:
 * the plain filter, the filter lower-cased found in the lower-cased name
 * (instr(lower(name), f), as the views are filtered otherwise). Names are
 * generated with digits at the start, the end, inside and alone, leading
 * zeros, runs of 1 to 40 digits, letters in either case, forms of one
 * value a slot (a dictionary) and of many; filters are pieces of names,
 * pieces with a digit changed, added or removed at either end, random
 * digit strings and a hand-picked list. Each is counted and paged (by
 * row_idx and by name) on both kinds, one of which lacks some names of a
 * form. In a copy whose names are all renamed the answers stay the same,
 * so they come from the stored runs, not the texts; an aggregation with a
 * run too long to store has no runs and is read the plain way.
 * Usage: test_nvtxdigits WORKDIR
 */
#include <ctype.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "dldb.h"
#include "dldb_aggr.h"
#include "dldb_scan.h"
#include "dldb_write.h"

static const char *workdir;

enum { NNAMES = 1500, NFILTERS = 260, LONG_RUN = 70000 };

static char *names[NNAMES + 1];
static char *lows[NNAMES + 1];
static int64_t name_ids[NNAMES + 1];
static int nnames;

typedef struct table {
  int64_t aggr_id;
  int kind;
  int name[2 * NNAMES]; /* by row_idx */
  int n;
} table;

static table tables[3];

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)rng;
}

/* n random digits into o, a leading zero now and then. */
static size_t digits(char *o, size_t n) {
  for (size_t i = 0; i < n; i++) o[i] = (char)('0' + next() % 10);
  if (n > 1 && next() % 5 == 0) o[0] = '0';
  return n;
}

/* A run: mostly short, from a small set (a dictionary) or wide; some long. */
static size_t run(char *o, int narrow) {
  if (narrow) return (size_t)sprintf(o, "%u", next() % 3 * 7);
  unsigned r = next() % 10;
  return digits(o, r < 6 ? 1 + next() % 6 : r < 9 ? 7 + next() % 10 : 17 + next() % 24);
}

static int add_name(const char *s) {
  for (int i = 0; i < nnames; i++)
    if (strcmp(names[i], s) == 0) return 0;
  names[nnames] = strdup(s);
  lows[nnames] = strdup(s);
  if (!names[nnames] || !lows[nnames]) return 1;
  for (char *p = lows[nnames]; *p; p++) *p = (char)tolower((unsigned char)*p);
  nnames++;
  return 0;
}

/* Names of a dozen templates (forms) with runs at every kind of place. */
static int make_names(void) {
  static const char *const fixed[] = {"0", "00", "007", "7", "70", "12345", "a1", "1a", "A1b",
                                      "seq = 0", "seq = 00", "x", "", "9 9", "99"};
  static const char *const words[] = {"aten::conv", "Seq = ", ", op_id = ", "[[", ", ", "]]",
                                      "ReLU", "x", "_", " "};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    if (add_name(fixed[i])) return 1;
  while (nnames < NNAMES) {
    unsigned t = next() % 12; /* the template: which words, where the runs are */
    char buf[512];
    size_t o = 0;
    int lead = t % 3 == 0, trail = t % 4 != 1, pieces = 1 + (int)(t % 5);
    if (lead) o += run(buf + o, 0);
    for (int p = 0; p < pieces; p++) {
      o += (size_t)sprintf(buf + o, "%s", words[(t * 7 + (unsigned)p * 3) % 10]);
      if (p + 1 < pieces || trail) o += run(buf + o, (t + (unsigned)p) % 3 == 1);
    }
    buf[o] = '\0';
    if (next() % 7 == 0) buf[next() % (o + 1)] = '\0'; /* cut: a run may end the name */
    if (next() % 4 == 0)
      for (char *q = buf; *q; q++) *q = (char)(next() % 2 ? toupper((unsigned char)*q) : *q);
    if (add_name(buf)) return 1;
  }
  return 0;
}

/* Rows over the names (some names twice, some left out), shuffled. */
static void make_table(table *t, int kind, int lack) {
  t->kind = kind;
  t->n = 0;
  for (int i = 0; i < nnames; i++) {
    if (lack && next() % lack == 0) continue;
    t->name[t->n++] = i;
    if (next() % 9 == 0) t->name[t->n++] = i; /* the other style */
  }
  for (int i = t->n - 1; i > 0; i--) {
    int j = (int)(next() % (uint32_t)(i + 1)), x = t->name[i];
    t->name[i] = t->name[j];
    t->name[j] = x;
  }
}

static int write_table(dldb_writer *w, const table *t) {
  char err[256];
  int seen[NNAMES + 1] = {0};
  for (int r = 0; r < t->n; r++) {
    int64_t total = 1000000 - r;
    dldb_stats_row s = {.kind = t->kind, .row_idx = r, .name_id = name_ids[t->name[r]],
                        .label = seen[t->name[r]]++ ? "StartEnd" : "PushPop",
                        .t = {.n = 1, .total = total, .min = total, .max = total,
                              .avg = (double)total, .med = (double)total},
                        .range_time = total};
    ASSERT_OK(dldb_aggr_stats(w, t->aggr_id, &s, 1, err, sizeof err));
  }
  return 0;
}

/* Aggregation 1: kind 6 has every name, kind 7 lacks some; aggregation 2
 * (kind 6) has a name with a run too long to store. */
static int write_file(const char *path) {
  char err[256];
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  char *longname = malloc(LONG_RUN + 8);
  ASSERT(longname != NULL);
  memcpy(longname, "long ", 5);
  memset(longname + 5, '3', LONG_RUN);
  longname[5 + LONG_RUN] = '\0';
  names[nnames] = longname;
  lows[nnames] = strdup(longname);
  for (int i = 0; i <= nnames; i++)
    ASSERT_OK(dldb_writer_intern(w, names[i], &name_ids[i], err, sizeof err));
  dldb_writer_begin_reads(w);
  int64_t dom = 0;
  ASSERT_OK(dldb_scan_first_domain(w, &dom, err, sizeof err));
  for (int a = 0; a < 2; a++) {
    dldb_aggr_row ar = {.domain_id = dom, .key_node_name = "", .user_name = "u",
                        .host_name = "h", .aggr_start = "2026-01-01 00:00:00", .tc_rules = "t"};
    int64_t aggr = 0;
    ASSERT_OK(dldb_aggr_begin(w, &ar, &aggr, err, sizeof err));
    for (int k = 0; k < (a ? 1 : 2); k++) {
      table *t = &tables[2 * a + k];
      t->aggr_id = aggr;
      make_table(t, k ? DLDB_STATS_NVTX_GPU_PROJ : DLDB_STATS_NVTX, k ? 3 : a ? 2 : 0);
      if (a) t->name[t->n++] = nnames; /* the long run */
      ASSERT_OK(write_table(w, t));
    }
    ASSERT_OK(dldb_aggr_end(w, err, sizeof err));
  }
  dldb_writer_end_reads(w);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  return 0;
}

/* ---- Filters ------------------------------------------------------------- */

static char *filters[NFILTERS];
static int nfilters;

static int add_filter(const char *f) {
  int digit = 0;
  for (const char *p = f; *p; p++) digit |= isdigit((unsigned char)*p);
  if (!digit || nfilters == NFILTERS) return 0;
  return !(filters[nfilters++] = strdup(f));
}

/* Pieces of names as they are, with a digit changed, added or dropped at
 * either end, in the other case; random digit strings; a fixed list. */
static int make_filters(void) {
  static const char *const fixed[] = {"0", "00", "000", "007", "7", "07", "70", "1", "12345",
                                      "2345", "1234", "234", "123456", "seq = 0", "Seq = 1",
                                      "= 0,", "= 00,", "e = 7, o", "a1", "1A", "9 9", "[[0",
                                      "0]]", "0, 7", ", 14]", "p_id = 1", "3333", "g 3"};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    if (add_filter(fixed[i])) return 1;
  while (nfilters < NFILTERS) {
    char f[64];
    unsigned how = next() % 8;
    if (how == 0) {
      f[digits(f, 1 + next() % 4)] = '\0';
    } else {
      const char *s = names[next() % (unsigned)nnames];
      size_t n = strlen(s);
      if (!n) continue;
      size_t b = next() % n, l = 1 + next() % (n - b < 12 ? n - b : 12);
      memcpy(f, s + b, l);
      f[l] = '\0';
      char *d = strpbrk(f, "0123456789");
      if (how == 1 && d) *d = (char)('0' + (*d - '0' + 1) % 10);
      if (how == 2 && l + 2 < sizeof f) { /* a digit more at the end or start */
        if (next() % 2) f[l] = (char)('0' + next() % 10), f[l + 1] = '\0';
        else memmove(f + 1, f, l + 1), f[0] = (char)('0' + next() % 10);
      }
      if (how == 3 && l > 1) f[next() % 2 ? l - 1 : 0] = 'x';
      if (how == 4)
        for (char *q = f; *q; q++) *q = (char)toupper((unsigned char)*q);
    }
    if (add_filter(f)) return 1;
  }
  return 0;
}

/* ---- Checks -------------------------------------------------------------- */

typedef struct got {
  int64_t row[2 * NNAMES + 2];
  int n;
} got;

static int collect(void *ctx, const dldb_row *r) {
  got *g = ctx;
  for (int i = 0; i < dldb_row_count(r); i++)
    if (strcmp(dldb_row_name(r, i), "row_idx") == 0 && g->n < 2 * NNAMES + 2)
      g->row[g->n++] = dldb_row_int(r, i);
  return 0;
}

/* BINARY order of the names of rows a and b, then row_idx. */
static const table *cmp_t;
static int cmp_desc;
static int cmp_rows(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  const char *s = names[cmp_t->name[a]], *u = names[cmp_t->name[b]];
  size_t ls = strlen(s), lu = strlen(u);
  int c = memcmp(s, u, ls < lu ? ls : lu);
  if (!c) c = (ls > lu) - (ls < lu);
  if (c) return cmp_desc ? -c : c;
  return (a > b) - (a < b);
}

/* The filter's count and its pages (row_idx ascending, name either way)
 * on table t, against the reference. */
static int check(dldb *db, const table *t, const char *f, int nsorts) {
  static got g, want;
  char lf[64], err[512] = "";
  size_t i = 0;
  for (; f[i]; i++) lf[i] = (char)tolower((unsigned char)f[i]);
  lf[i] = '\0';
  want.n = 0;
  for (int r = 0; r < t->n; r++)
    if (strstr(lows[t->name[r]], lf)) want.row[want.n++] = r;
  static const char *const sorts[] = {"row_idx", "name", "name"};
  for (int s = 0; s < nsorts; s++) {
    dldb_query q = {.view = t->kind == DLDB_STATS_NVTX ? "view_dl_stats_nvtx"
                                                       : "view_dl_stats_nvtx_gpu_proj",
                    .aggr_id = t->aggr_id, .filter = f, .filter_cols = {"name", NULL},
                    .sort = sorts[s], .desc = s == 2, .tiebreak = {"row_idx"},
                    .limit = 2 * NNAMES + 2};
    int64_t total = -1, filtered = -1;
    g.n = 0;
    int rc = dldb_query_count(db, &q, &total, &filtered, err, sizeof err);
    if (!rc) rc = dldb_query_rows(db, &q, collect, &g, err, sizeof err);
    if (s) {
      cmp_t = t;
      cmp_desc = s == 2;
      qsort(want.row, (size_t)want.n, sizeof *want.row, cmp_rows);
    }
    int same = !rc && filtered == want.n && g.n == want.n &&
               memcmp(g.row, want.row, (size_t)want.n * sizeof *want.row) == 0;
    if (!same) {
      fprintf(stderr, "aggr %lld kind %d filter '%s' by %s%s: rc %d %s; count %lld, %d rows "
              "(want %d)\n", (long long)t->aggr_id, t->kind, f, q.sort, q.desc ? " desc" : "",
              rc, err, (long long)filtered, g.n, want.n);
      for (int k = 0; k < want.n && k < 5; k++)
        fprintf(stderr, "  want row %lld '%.80s'\n", (long long)want.row[k],
                names[t->name[want.row[k]]]);
      for (int k = 0; k < g.n && k < 5; k++)
        fprintf(stderr, "  got  row %lld '%.80s'\n", (long long)g.row[k], names[t->name[g.row[k]]]);
      return 1;
    }
  }
  return 0;
}

static int64_t q_int(const char *path, const char *sql) {
  sqlite3 *s = NULL;
  sqlite3_stmt *st = NULL;
  int64_t v = -1;
  if (sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(s);
  return v;
}

/* Every filter on the tables of the file at path (ntables of them), in
 * the first nsorts orders. */
static int all_filters(const char *path, int ntables, int nsorts) {
  char err[512];
  dldb *db = NULL;
  ASSERT_OK(dldb_open_ro(path, &db, NULL, err, sizeof err));
  for (int t = 0; t < ntables; t++)
    for (int f = 0; f < nfilters; f++) {
      if (check(db, &tables[t], filters[f], nsorts)) {
        dldb_close(&db);
        return 1;
      }
    }
  dldb_close(&db);
  return 0;
}

static int test_digit_filters(void) {
  char path[4096], copy[4200], sql[8600];
  snprintf(path, sizeof path, "%s/nvtx_digits.dldb", workdir);
  ASSERT_OK(make_names());
  ASSERT_OK(make_filters());
  ASSERT_OK(write_file(path));
  /* aggregation 1 has runs, dictionaries and plain ones, and kind 7's
   * names where it lacks some; aggregation 2 none (its long run) */
  ASSERT(q_int(path, "SELECT count(*) FROM aggr_nvtx_digits WHERE aggr_id = 1 AND kind = 0 "
                     "AND substr(runs, 1, 1) = x'00'") > 3);
  ASSERT(q_int(path, "SELECT count(*) FROM aggr_nvtx_digits WHERE aggr_id = 1 AND kind = 0 "
                     "AND substr(runs, 1, 1) = x'01'") > 3);
  ASSERT(q_int(path, "SELECT count(*) FROM aggr_nvtx_digits WHERE aggr_id = 1 AND kind = 7") > 3);
  ASSERT_EQ(q_int(path, "SELECT count(*) FROM aggr_nvtx_digits WHERE aggr_id = 1 AND kind = 6"), 0);
  ASSERT_EQ(q_int(path, "SELECT count(*) FROM aggr_nvtx_digits WHERE aggr_id = 2"), 0);
  ASSERT(q_int(path, "SELECT count(*) FROM aggr_nvtx_forms WHERE aggr_id = 1 AND kind = 6") > 10);
  ASSERT_OK(all_filters(path, 3, 3));
  /* renamed: the same rows, from the stored runs and forms (a page by
   * name of few rows sorts them by the names the view has now) */
  snprintf(copy, sizeof copy, "%s/nvtx_digits_renamed.dldb", workdir);
  unlink(copy);
  snprintf(sql, sizeof sql, "VACUUM INTO '%s'", copy);
  sqlite3 *s = NULL;
  ASSERT_EQ(sqlite3_open(path, &s), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(s);
  ASSERT_EQ(sqlite3_open(copy, &s), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(s, "UPDATE strings SET value = 'renamed ' || id WHERE id IN (SELECT "
                            "key >> 1 FROM aggr_nvtx_runs WHERE aggr_id = 1)", NULL, NULL, NULL),
            SQLITE_OK);
  sqlite3_close(s);
  ASSERT_OK(all_filters(copy, 2, 1));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_nvtxdigits WORKDIR\n");
    return 2;
  }
  workdir = argv[1];
  RUN(test_digit_filters);
  TEST_DONE();
}
