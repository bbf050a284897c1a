/*
 * test_nvtxorder.c - the NVTX statistics' name order and name forms that
 * the analysis sorts in memory and hands to the writer
 * (analysis/dla_nvtxorder.c, db/dldb_nvtxorder.c), in one part or in
 * parts spilled to a temporary file and merged (analysis/dla_nvtxspill.c),
 * are the tables that dldb_aggr_end's pass over `strings` in SQLite's
 * value order writes (db/dldb_nvtxidx.c). One dldb of ranges with names
 * that make a sort or a merge go wrong (empty, prefixes of each other,
 * lengths about 8 and 16 bytes, digits, case, bytes over 0x7f, one long
 * shared prefix, the same name of both styles, ranges with and without GPU
 * work, and, in one case, strings of equal texts under other ids, far
 * apart so that they fall in different parts) is aggregated with several
 * budgets: the default (one part, in memory), 1 byte (too small for
 * anything: left to dldb_aggr_end, written after the aggregation), and
 * ones the texts exceed (parts: a few KiB each, about a third of the texts
 * each, a few bytes a name). The aggregations' order, forms and row forms
 * must be the same (the names' digit runs too), the order's chunks
 * written in the same sequence; once with one chunk a kind, once with
 * several. And the spill and its merge by themselves, with a text longer
 * than the spill's write buffer.
 * Usage: test_nvtxorder WORK_DIR
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dla.h"
#include "dla_nvtxspill.h"
#include "dla_tuning.h"
#include "dldb_write.h"
#include "dldb_write_internal.h"
#include "test.h"
#include "test_sql.h"

static const char *work_dir;

enum { MAXNAMES = 70000 };
static char *names[MAXNAMES];
static int nnames, want; /* names made, names wanted */
static int reversed;      /* make_names gives them last first */

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)rng;
}

static void add_name(const char *s) {
  if (nnames < want) names[nnames++] = strdup(s);
}

/* n names: ones an order must tell apart, then emit_nvtx-like ones. */
static void make_names(int n) {
  for (int i = 0; i < nnames; i++) free(names[i]);
  nnames = 0;
  want = n;
  static const char *const fixed[] = {
      "", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefgh0", "abcdefghabcdefg",
      "abcdefghabcdefgh", "abcdefghabcdefgh1", "abcdefghabcdefgi", "abcdefgg",
      "ATEN::CONV", "aten::conv", "aten::conv2d", "aten::conv2D", "\xc3\xa9t\xc3\xa9",
      "\xc3\xa9t", "\xff", "\xfe\xff", "\x7f", "~", " ", "  ", "x1y22z333", "x9y9z9",
      "x10y2z3", "seq = 10", "seq = 9", "seq = 100", "50%_done", "50%", "0", "00", "007"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) add_name(fixed[i]);
  char buf[512], prefix[301];
  memset(prefix, 'p', 300);
  prefix[300] = '\0';
  for (int i = 0; i < 40; i++) { /* a long shared prefix, then the difference */
    snprintf(buf, sizeof buf, "%s%c%u", prefix, 'a' + (int)(next() % 4), next() % 50);
    add_name(buf);
  }
  static const char *const ops[] = {"aten::conv2d", "aten::batch_norm", "aten::relu_",
                                    "CudnnConvolutionBackward0", "aten::add_", "aten::addmm"};
  while (nnames < want) {
    snprintf(buf, sizeof buf, "%s, seq = %u, op_id = %u, sizes = [[%u, %u], [%u]]",
             ops[next() % 6], next() % 2000, next() % 100000, 1u << (next() % 10),
             next() % 300, next() % 7);
    add_name(buf); /* a repeat is a name with more instances */
  }
  for (int i = 0; reversed && i < nnames / 2; i++) {
    char *x = names[i];
    names[i] = names[nnames - 1 - i];
    names[nnames - 1 - i] = x;
  }
}

/* The aggregations' inserts into aggr_nvtx_name_order: while an
 * aggregation was open (the order handed over) or after (dldb_aggr_end's
 * pass). */
static int64_t inserts_open, inserts_after;

static void on_update(void *ctx, int op, const char *db, const char *table, sqlite3_int64 row) {
  const dldb_writer *w = ctx;
  (void)db, (void)row;
  if (op != SQLITE_INSERT || strcmp(table, "aggr_nvtx_name_order") != 0) return;
  if (w->in_aggr) inserts_open++;
  else inserts_after++;
}

/* A range of each name (some twice, some also start/end; both: every
 * name also start/end), seven in eight with a kernel launched inside. */
static int write_trace(dldb_writer *w, int both) {
  char err[256];
  dldb_gpu gpu = {.device_id = 0, .name = "GPU", .cc_major = 8, .sm_count = 108};
  ASSERT_OK(dldb_write_gpu(w, &gpu, err, sizeof err));
  int64_t t = 1000, corr = 1;
  for (int rep = 0; rep < 2; rep++)
    for (int i = 0; i < nnames; i++) {
      if (rep == 1 && i % 3 && !both) continue;
      int startend = rep == 1 && (i % 2 || both);
      int64_t dur = 1000 + (int64_t)(next() % 5000);
      dldb_nvtx_range r = {.kind = startend ? DLDB_NVTX_STARTEND : DLDB_NVTX_PUSHPOP,
                           .name = names[i], .start_ns = t, .end_ns = t + dur, .pid = 1,
                           .tid = 1};
      ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
      if (i % 8 != 7) {
        dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = t + 10, .end_ns = t + 60,
                           .pid = 1, .tid = 1, .correlation_id = corr};
        ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
        dldb_kernel k = {.short_name = "elementwise_kernel", .device_id = 0, .stream_id = 7,
                         .gpu_start_ns = t + 100, .gpu_end_ns = t + 100 + (int64_t)(next() % 900),
                         .correlation_id = corr++, .pid = 1, .grid = {4, 2, 1},
                         .block = {128, 1, 1}};
        ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
      }
      t += dur + 10;
    }
  return 0;
}


/* Rows of table (columns cols) of aggregation a not in aggregation b's. */
static int64_t differences(sqlite3 *db, const char *table, const char *cols, int a, int b) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM (SELECT %s FROM %s WHERE aggr_id = %d EXCEPT "
           "SELECT %s FROM %s WHERE aggr_id = %d)",
           cols, table, a, cols, table, b);
  return q_int(db, sql);
}

/* Aggregation a's order chunks in the order they were written (rowid). */
static int64_t chunk_sequence(sqlite3 *db, int a) {
  char sql[256];
  snprintf(sql, sizeof sql,
           "SELECT sum((kind * 1000 + chunk) * (1 + rowid - (SELECT min(rowid) FROM "
           "aggr_nvtx_name_order WHERE aggr_id = %d))) FROM aggr_nvtx_name_order WHERE aggr_id = %d",
           a, a);
  return q_int(db, sql);
}

/* Places of kind 6 that repeat the name before (bit 31), in aggregation a. */
static int64_t repeats(sqlite3 *db, int a) {
  sqlite3_stmt *st = NULL;
  int64_t n = 0;
  char sql[128];
  snprintf(sql, sizeof sql,
           "SELECT places FROM aggr_nvtx_name_order WHERE aggr_id = %d AND kind = 6", a);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const uint8_t *b = sqlite3_column_blob(st, 0);
    int len = sqlite3_column_bytes(st, 0);
    for (int i = 0; i + 3 < len; i += 4) n += b[i + 3] >> 7;
  }
  sqlite3_finalize(st);
  return n;
}

/* The budgets an aggregation is given: the default; 1 byte (the pass over
 * `strings`); 8 bytes a name and a few KiB (parts of a few dozen names);
 * 8 bytes a name and a third of the texts (three or four parts); 64 bytes
 * a name (room for the names' entries, not their texts: parts); a few
 * bytes short of one part (where the first names are shorter than the
 * rest, test_first_part_full, they do not show that all will not fit: the
 * first part takes the whole room and is spilled as it fills). */
enum { B_DEFAULT, B_SQL, B_TINY_PARTS, B_THIRD_PARTS, B_ENTRIES, B_NEARLY };

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t budget_of(int b) {
  size_t texts = 0, distinct = 0, dtexts = 0; /* the names' and their distinct ones' */
  for (int i = 0; i < nnames; i++) texts += strlen(names[i]);
  char **v = malloc((size_t)(nnames + 1) * sizeof *v);
  if (!v) return 0;
  memcpy(v, names, (size_t)nnames * sizeof *v);
  qsort(v, (size_t)nnames, sizeof *v, cmp_str);
  for (int i = 0; i < nnames; i++)
    if (!i || strcmp(v[i], v[i - 1]) != 0) distinct++, dtexts += strlen(v[i]);
  free(v);
  switch (b) {
  case B_SQL: return 1;
  case B_TINY_PARTS: return 8 * (size_t)nnames + 4096 + 1024;
  case B_THIRD_PARTS: return 8 * (size_t)nnames + texts / 3 + 32 * (size_t)nnames / 3;
  case B_ENTRIES: return 64 * (size_t)nnames;
  case B_NEARLY: return 8 * distinct + dtexts + 32 * distinct - 64;
  default: return 0;
  }
}

/* Gives every fifth of the first names' strings the text of a name half
 * the names on (the string of a later range), so that texts repeat under
 * other ids, far apart in id order. */
static int make_duplicates(dldb_writer *w) {
  char err[256];
  ASSERT_OK(dldb__flush(w, err, sizeof err, "test"));
  char sql[512];
  snprintf(sql, sizeof sql,
           "UPDATE strings SET value = (SELECT s.value FROM strings s WHERE s.id = strings.id + "
           "(SELECT (max(name_id) - min(name_id)) / 2 FROM nvtx_ranges)) WHERE id %% 5 = 0 AND id "
           "IN (SELECT name_id FROM nvtx_ranges) AND id + (SELECT (max(name_id) - min(name_id)) "
           "/ 2 FROM nvtx_ranges) IN (SELECT name_id FROM nvtx_ranges)");
  char *msg = NULL;
  if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    fprintf(stderr, "duplicates: %s\n", msg);
    sqlite3_free(msg);
    return 1;
  }
  ASSERT(sqlite3_changes(w->db) > 5);
  return 0;
}

/* Texts of kind 6 rows' names that more than one string id has, in
 * aggregation 1. */
static int64_t shared_texts(sqlite3 *db) {
  return q_int(db, "SELECT count(*) FROM (SELECT s.value FROM aggr_nvtx_runs r JOIN strings s ON "
                   "s.id = r.key >> 1 WHERE r.aggr_id = 1 AND r.kind = 6 GROUP BY s.value "
                   "HAVING count(DISTINCT s.id) > 1)");
}

/* The case: n names in file `file` (dups: some texts under two ids),
 * aggregated once with each of budgets[0..naggr-1] (budgets[0]: the
 * default); at least `chunks` order chunks of kind 7 (more than 1: every
 * name of both styles). */
static int order_case(const char *file, int n, int dups, const int *budgets, int naggr,
                      int64_t chunks) {
  char path[1024], err[256];
  make_names(n);
  snprintf(path, sizeof path, "%s/%s", work_dir, file);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  if (write_trace(w, chunks > 1) || (dups && make_duplicates(w))) {
    dldb_writer_abort(&w);
    return 1;
  }
  sqlite3_update_hook(w->db, on_update, w);
  int64_t open[8], after[8];
  for (int i = 0; i < naggr; i++) {
    dla_opts ao;
    dla_opts_init(&ao);
    ao.aggr_start = "2024-01-01 00:00:00";
    dla_tuning tune = {.nvtx_order_budget = budget_of(budgets[i])};
    inserts_open = inserts_after = 0;
    if (dla__aggregate_tuned(w, &ao, &tune, NULL, err, sizeof err)) {
      fprintf(stderr, "aggregation %d: %s\n", i + 1, err);
      dldb_writer_abort(&w);
      return 1;
    }
    open[i] = inserts_open;
    after[i] = inserts_after;
  }
  sqlite3_update_hook(w->db, NULL, NULL);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  for (int i = 0; i < naggr; i++) { /* handed over, or left to dldb_aggr_end */
    int sql = budgets[i] == B_SQL;
    ASSERT(sql ? open[i] == 0 : open[i] > 0);
    ASSERT(sql ? after[i] > 0 : after[i] == 0);
  }
  sqlite3 *db = NULL;
  ASSERT_OK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL));
  /* both kinds have rows, names of both styles, forms */
  ASSERT(q_int(db, "SELECT count(*) FROM aggr_nvtx_runs WHERE aggr_id = 1 AND kind = 7") > 100);
  ASSERT(q_int(db, "SELECT count(*) FROM aggr_nvtx_runs WHERE aggr_id = 1 AND kind = 6") >
         nnames / 2);
  ASSERT(repeats(db, 1) > 10);
  /* each kind's rows in their order (hundreds: the radix sort's, not only
   * the comparison sort's): total descending, then instances and key */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_nvtx_runs a JOIN aggr_nvtx_runs b ON b.aggr_id "
                      "= a.aggr_id AND b.kind = a.kind AND b.row_idx = a.row_idx + 1 WHERE "
                      "a.aggr_id = 1 AND (b.total > a.total OR (b.total = a.total AND "
                      "(b.instances < a.instances OR (b.instances = a.instances AND b.key < "
                      "a.key))))"),
            0);
  if (dups) ASSERT(shared_texts(db) > 5);
  ASSERT(q_int(db, "SELECT count(*) FROM aggr_nvtx_forms WHERE aggr_id = 1") > 10);
  ASSERT(q_int(db, "SELECT count(*) FROM aggr_nvtx_digits WHERE aggr_id = 1 AND kind = 0") > 10);
  ASSERT(q_int(db, "SELECT count(*) FROM aggr_nvtx_name_order WHERE aggr_id = 1 AND kind = 7") >=
         chunks);
  ASSERT(q_int(db, "SELECT count(*) FROM aggr_nvtx_name_order WHERE aggr_id = 1 AND kind = 6") >=
         chunks + (chunks > 1));
  for (int b = 2; b <= naggr; b++) ASSERT_EQ(chunk_sequence(db, b), chunk_sequence(db, 1));
  static const char *const tables[][2] = {
      {"aggr_nvtx_name_order", "kind, chunk, places"},
      {"aggr_nvtx_forms", "kind, form_id, form, rows"},
      {"aggr_nvtx_row_forms", "kind, chunk, forms"},
      {"aggr_nvtx_digits", "kind, form_id, slot, chunk, names, runs"},
      {"aggr_nvtx_runs", "kind, row_idx, key, instances, total"}};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (int b = 2; b <= naggr; b++) {
      char sql[256];
      snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE aggr_id = %d", tables[t][0], b);
      int64_t n1 = q_int(db, sql);
      snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE aggr_id = 1", tables[t][0]);
      ASSERT_EQ(q_int(db, sql), n1);
      if (differences(db, tables[t][0], tables[t][1], 1, b) ||
          differences(db, tables[t][0], tables[t][1], b, 1)) {
        fprintf(stderr, "%s: aggregations 1 and %d (budget kind %d) differ\n", tables[t][0], b,
                budgets[b - 1]);
        sqlite3_close(db);
        return 1;
      }
    }
  sqlite3_close(db);
  return 0;
}

static const int all_budgets[] = {B_DEFAULT, B_SQL, B_TINY_PARTS, B_THIRD_PARTS, B_ENTRIES,
                                  B_NEARLY};

static int test_handed_over_equals_sorted(void) {
  return order_case("nvtx_order.sqlite", 1200, 0, all_budgets, 6, 1);
}

/* Texts under two ids each, in different parts: one place for both. */
static int test_equal_texts_across_parts(void) {
  return order_case("nvtx_order_dups.sqlite", 1200, 1, all_budgets, 6, 1);
}

/* The first names shorter than the rest (the emit_nvtx-like ones first)
 * and a budget a few bytes short of one part: the first part fills the
 * whole room before it is spilled, the rest is a second part. */
static int test_first_part_full(void) {
  static const int budgets[] = {B_DEFAULT, B_NEARLY};
  reversed = 1;
  int rc = order_case("nvtx_order_full.sqlite", 1200, 0, budgets, 2, 1);
  reversed = 0;
  return rc;
}

/* Full chunks of both kinds (kind 6: 2, kind 7: 1, filled between
 * them) are written interleaved, as the pass over `strings` fills them,
 * then the partial ones (the table's rowids are part of its bytes). */
static int test_chunks_interleaved(void) {
  static const int budgets[] = {B_DEFAULT, B_SQL, B_THIRD_PARTS};
  return order_case("nvtx_order_chunks.sqlite", 70000, 0, budgets, 3, 2);
}

/* A new file's NVTX rows written as aggr_nvtx_runs' pages (a tree of three
 * levels here) equal those SQLite inserts (DLDB_WRITE=sqlite): every
 * aggr_ table row by row, and PRAGMA integrity_check passes. */
static int test_bulk_equals_sql(void) {
  char path[2][1024], err[256];
  for (int i = 0; i < 2; i++) {
    rng = 0x2545F4914F6CDD1Dull; /* the same names and trace in both */
    make_names(30000);
    snprintf(path[i], sizeof path[i], "%s/nvtx_bulk_%d.sqlite", work_dir, i);
    dldb_writer *w = NULL;
    dldb_write_opts o = {.force = 1, .producer = "test"};
    ASSERT_OK(dldb_writer_create(path[i], &o, &w, err, sizeof err));
    if (write_trace(w, 1)) {
      dldb_writer_abort(&w);
      return 1;
    }
    if (i) setenv("DLDB_WRITE", "sqlite", 1);
    dla_opts ao;
    dla_opts_init(&ao);
    ao.aggr_start = "2024-01-01 00:00:00";
    dla_tuning tune = {0};
    int rc = dla__aggregate_tuned(w, &ao, &tune, NULL, err, sizeof err);
    unsetenv("DLDB_WRITE");
    if (rc) {
      fprintf(stderr, "bulk: %s\n", err);
      dldb_writer_abort(&w);
      return 1;
    }
    ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  }
  sqlite3 *db = NULL;
  ASSERT_OK(sqlite3_open_v2(path[0], &db, SQLITE_OPEN_READONLY, NULL));
  char sql[2048];
  snprintf(sql, sizeof sql, "ATTACH '%s' AS q", path[1]);
  ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  int64_t rows = q_int(db, "SELECT count(*) FROM aggr_nvtx_runs");
  ASSERT(rows > 100000);
  ASSERT(q_int(db, "SELECT count(*) FROM dbstat WHERE name = 'aggr_nvtx_runs' AND "
                   "pagetype = 'internal' AND path LIKE '%/%/%'") > 0); /* three levels */
  /* the pages were built (full leaves), not split by SQLite's inserts */
  ASSERT(q_int(db, "SELECT (SELECT count(*) FROM dbstat WHERE name = 'aggr_nvtx_runs') * 10 < "
                   "(SELECT count(*) FROM dbstat('q') WHERE name = 'aggr_nvtx_runs') * 9") == 1);
  ASSERT(integrity_ok(db, "main"));
  ASSERT(integrity_ok(db, "q"));
  int tables = same_tables(db, "q", "aggr\\_%");
  ASSERT(tables > 20);
  sqlite3_close(db);
  return 0;
}

/* The spill and its merge by themselves: three parts of names in text
 * order (texts of 0 to 9,000 bytes, one of 1.5 MiB, longer than the write
 * buffer, equal texts in every part), merged through 4 KiB a part and
 * through large buffers, the file past the page cache (where its file
 * system allows) and through it (DL_DIRECT=0), give every name once with
 * its text, in text order, `same` where a text equals the one before. */
enum { SP_N = 3000, SP_PARTS = 3, SP_BIG = 7 };
typedef struct sp_got {
  uint32_t *i;
  char **t;
  size_t *len;
  int *same;
  size_t n;
} sp_got;

static int sp_collect(void *ctx, uint32_t i, const char *t, size_t len, int same) {
  sp_got *g = ctx;
  if (g->n == SP_N) return DL_EINVAL;
  g->i[g->n] = i;
  g->t[g->n] = malloc(len + 1);
  if (!g->t[g->n]) return DL_ENOMEM;
  memcpy(g->t[g->n], t, len);
  g->len[g->n] = len;
  g->same[g->n++] = same;
  return DL_OK;
}

/* Name i's text: made from i, or, for every 50th name after the first
 * part, the text of the first part's name at the same place. */
static char *sp_text(uint32_t i, size_t *len) {
  uint32_t r = i % 50 == 3 ? i % (SP_N / SP_PARTS) : i;
  uint64_t x = r * 0x9E3779B97F4A7C15ull + 1;
  size_t n = r == SP_BIG ? (size_t)3 << 19 : (size_t)(x >> 40) % (x % 97 == 0 ? 9000 : 200);
  char *t = malloc(n + 1);
  if (!t) return NULL;
  for (size_t k = 0; k < n; k++) t[k] = (char)("aab:, 09"[(x >> (k % 56)) & 7] + (k % 13 == 0));
  *len = n;
  return t;
}

static int test_spill_merge(void) {
  char *text[SP_N];
  size_t len[SP_N];
  for (uint32_t i = 0; i < SP_N; i++) ASSERT_NOT_NULL(text[i] = sp_text(i, &len[i]));
  ASSERT_EQ(len[SP_BIG], (size_t)3 << 19);
  int dups = 0; /* names whose text a name of an earlier part has */
  for (uint32_t i = SP_N / SP_PARTS; i < SP_N; i++)
    dups += len[i] == len[i - SP_N / SP_PARTS] &&
            memcmp(text[i], text[i - SP_N / SP_PARTS], len[i]) == 0;
  ASSERT_EQ(dups, 40);
  for (int mode = 0; mode < 4; mode++) {
    int big = mode & 1;
    if (mode == 2) setenv("DL_DIRECT", "0", 1);
    dla_nvtx_spill *sp = NULL;
    for (uint32_t p = 0; p < SP_PARTS; p++) {
      uint32_t lo = p * SP_N / SP_PARTS, hi = (p + 1) * SP_N / SP_PARTS;
      size_t bytes = 0;
      for (uint32_t i = lo; i < hi; i++) bytes += len[i];
      char *block = malloc(bytes + 1);
      dla_nvtx_ent *v = malloc((hi - lo) * sizeof *v);
      ASSERT(block && v);
      size_t at = 0;
      for (uint32_t i = lo; i < hi; i++) {
        memcpy(block + at, text[i], len[i]);
        v[i - lo] = (dla_nvtx_ent){.i = i, .off = (uint32_t)at, .len = (uint32_t)len[i]};
        at += len[i];
      }
      ASSERT_OK(dla__nvtx_sort(v, hi - lo, block));
      ASSERT_OK(dla__nvtx_spill_part(&sp, v, hi - lo, block));
      free(block);
      free(v);
    }
    ASSERT_EQ(dla__nvtx_spill_parts(sp), SP_PARTS);
    static uint32_t gi[SP_N];
    static char *gt[SP_N];
    static size_t glen[SP_N];
    static int gsame[SP_N];
    sp_got g = {gi, gt, glen, gsame, 0};
    ASSERT_OK(dla__nvtx_spill_merge(sp, big ? (size_t)64 << 20 : SP_PARTS * 4096,
                                    sp_collect, &g));
    dla__nvtx_spill_close(&sp);
    ASSERT_EQ(g.n, SP_N);
    static unsigned char seen[SP_N];
    memset(seen, 0, sizeof seen);
    int same_seen = 0;
    for (size_t k = 0; k < g.n; k++) {
      ASSERT(gi[k] < SP_N && !seen[gi[k]]);
      seen[gi[k]] = 1;
      ASSERT_EQ(glen[k], len[gi[k]]);
      ASSERT(memcmp(gt[k], text[gi[k]], glen[k]) == 0);
      int c = k ? dla__nvtx_cmp(gt[k - 1], glen[k - 1], gt[k], glen[k]) : -1;
      ASSERT(c <= 0);
      ASSERT_EQ(gsame[k], c == 0);
      same_seen += gsame[k];
    }
    ASSERT(same_seen >= dups);
    for (size_t k = 0; k < g.n; k++) free(gt[k]);
  }
  unsetenv("DL_DIRECT");
  for (uint32_t i = 0; i < SP_N; i++) free(text[i]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_nvtxorder WORK_DIR\n");
    return 2;
  }
  work_dir = argv[1];
  RUN(test_handed_over_equals_sorted);
  RUN(test_equal_texts_across_parts);
  RUN(test_first_part_full);
  RUN(test_chunks_interleaved);
  RUN(test_bulk_equals_sql);
  RUN(test_spill_merge);
  for (int i = 0; i < nnames; i++) free(names[i]);
  TEST_DONE();
}
