/*
 * test_dldb_rawmem - the scans of a new file's raw rows (dldb_scan.h) read
 * the rows its writer kept in memory (dldb_rawmem.h) exactly as they read
 * the file: the same records in the same order, after a rebase, from a
 * reader connection, past a budget (the largest tables left to the file),
 * with values too wide to keep, with rows written another way, and after
 * dldb_scan_done; and a reader reads the file as it was committed
 * while its writer writes past its cache.
 * Usage: test_dldb_rawmem WORK_DIR
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dldb_rawmem.h"
#include "dldb_scan.h"
#include "dldb_write.h"
#include "dldb_write_internal.h" /* the writer's kept rows and its sqlite3 handle */
#include "test.h"

static const char *work_dir;

/* Records of the scans, as text: two files' scans compare as strings. */
typedef struct {
  char *s;
  size_t n, cap;
} out;

/* Appends a line: tag and seven numbers. */
static int put(out *o, char tag, long long a, long long b, long long c, long long d, long long e,
               long long f, long long g) {
  char line[256];
  int k = snprintf(line, sizeof line, "%c %lld %lld %lld %lld %lld %lld %lld\n", tag, a, b, c, d,
                   e, f, g);
  if (o->n + (size_t)k + 1 > o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 1 << 16;
    while (cap < o->n + (size_t)k + 1) cap *= 2;
    char *s = realloc(o->s, cap);
    if (!s) return 1;
    o->s = s;
    o->cap = cap;
  }
  memcpy(o->s + o->n, line, (size_t)k + 1);
  o->n += (size_t)k;
  return 0;
}

static int on_range(void *ctx, const dldb_scan_range *r) {
  return put(ctx, 'r', r->id, r->name_id, r->start_ns,
             r->end_ns, r->pid, r->tid, r->kind);
}

static int on_api(void *ctx, const dldb_scan_api *a) {
  return put(ctx, 'a', a->id, a->name_id, a->start_ns,
             a->end_ns, a->pid, a->tid, a->correlation_id);
}

static int on_gpu(void *ctx, const dldb_scan_gpu_op *g) {
  return put(ctx, 'g', g->kind, g->id, g->short_name_id,
             g->long_name_id, g->gpu_start_ns, g->gpu_end_ns, g->correlation_id) ||
         put(ctx, '+', g->pid, g->device_id, g->bytes,
             g->grid[0] * 1000000LL + g->grid[1] * 1000 + g->grid[2],
             g->block[0] * 1000000LL + g->block[1] * 1000 + g->block[2], g->copy_kind,
             g->mem_kind);
}

/* Every scan of w: both domains' ranges, the calls, the GPU ops. */
static int scan_all(dldb_writer *w, out *o) {
  char err[256];
  for (int64_t dom = 1; dom <= 3; dom++)
    if (dldb_scan_ranges(w, dom, on_range, o, err, sizeof err)) return 1;
  if (dldb_scan_api_calls(w, on_api, o, err, sizeof err)) return 1;
  return dldb_scan_gpu_ops(w, on_gpu, o, err, sizeof err) != 0;
}

/* The pid of the rows write_rows writes (and one more). */
static int64_t row_pid = 10;

/* n rows of each kind, times from base (one range starts before it: the
 * rebase moves every time), names from a few. */
static int write_rows(dldb_writer *w, int n, int64_t base) {
  char err[256], name[32];
  static const char *const doms[] = {NULL, "other"};
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "op%d", i % 7);
    int64_t t = base + (int64_t)i * 1000 - (i == n / 2 ? base / 2 : 0);
    dldb_nvtx_range r = {.kind = i % 5 == 4 ? DLDB_NVTX_MARK : i % 3 == 2 ? DLDB_NVTX_STARTEND : 0,
                         .domain = doms[i % 2], .name = name, .start_ns = t, .end_ns = t + 700,
                         .pid = row_pid + i % 2, .tid = 100 + i % 3};
    ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
    dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = t + 10, .end_ns = t + 50,
                       .pid = row_pid, .tid = 100 + i % 3, .correlation_id = 5000 + i};
    ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
    dldb_kernel k = {.short_name = name, .device_id = i % 2, .gpu_start_ns = t + 60,
                     .gpu_end_ns = t + 90, .correlation_id = 5000 + i, .pid = row_pid,
                     .grid = {i % 9 + 1, 2, 1}, .block = {128, 1, 1}};
    ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
    if (i % 50 == 0) {
      dldb_memcpy m = {.copy_kind = 1, .bytes = 4096 + i, .gpu_start_ns = t + 95,
                       .gpu_end_ns = t + 99, .correlation_id = 9000 + i, .pid = row_pid};
      ASSERT_OK(dldb_write_memcpy(w, &m, err, sizeof err));
    }
  }
  return dldb_writer_rebase(w, err, sizeof err);
}

/* A new file of n rows of each kind with scan_mem_bytes mem, its scans in
 * *o; *kept: the rows the writer kept in memory at the scans. extra: SQL
 * run on the file before the scans. */
static int make(const char *name, int n, int64_t mem, const char *extra, out *o, size_t *kept) {
  char path[1024], err[256];
  snprintf(path, sizeof path, "%s/%s.sqlite", work_dir, name);
  dldb_write_opts opts = {.force = 1, .producer = "test", .time_origin_ns = 1000000000,
                          .scan_mem_bytes = mem};
  dldb_writer *w = NULL;
  ASSERT_OK(dldb_writer_create(path, &opts, &w, err, sizeof err));
  ASSERT_OK(write_rows(w, n, 1000000000)); /* one range before the origin: a rebase */
  if (extra) {
    char cerr[256];
    ASSERT_OK(dldb__flush(w, cerr, sizeof cerr, "test"));
    ASSERT_EQ(sqlite3_exec(w->db, extra, NULL, NULL, NULL), SQLITE_OK);
  }
  *kept = 0;
  int64_t first, last;
  for (int t = 0; t < DLDB__RAW_COUNT; t++) *kept += dldb__rawmem_rows(w->rawmem, t, &first, &last);
  ASSERT_OK(scan_all(w, o));
  /* the same from a reader connection, which borrows the kept rows */
  dldb_writer *r = NULL;
  ASSERT_OK(dldb_writer_reader(w, &r, err, sizeof err));
  out o2 = {0};
  ASSERT_OK(scan_all(r, &o2));
  dldb_writer_reader_close(&r);
  ASSERT(o2.s && strcmp(o->s, o2.s) == 0);
  free(o2.s);
  /* and once they are dropped, from the file */
  dldb_scan_done(w);
  ASSERT_EQ(dldb__rawmem_rows(w->rawmem, DLDB__RAW_RANGES, &first, &last), 0);
  out o3 = {0};
  ASSERT_OK(scan_all(w, &o3));
  ASSERT(o3.s && strcmp(o->s, o3.s) == 0);
  free(o3.s);
  dldb_writer_abort(&w);
  return 0;
}

static int test_kept_rows_scan_as_the_file(void) {
  out plain = {0}, kept = {0};
  size_t nplain, nkept;
  ASSERT_OK(make("plain", 3000, -1, NULL, &plain, &nplain));
  ASSERT_OK(make("kept", 3000, 0, NULL, &kept, &nkept));
  ASSERT_EQ(nplain, 0);
  ASSERT_EQ(nkept, 3 * 3000); /* ranges, calls, kernels */
  ASSERT(plain.n > 3000 * 3 * 20);
  ASSERT(strstr(plain.s, "r 1 ") && !strstr(plain.s, " -")); /* rebased: no time before 0 */
  ASSERT(strcmp(plain.s, kept.s) == 0);
  free(plain.s);
  free(kept.s);
  return 0;
}

/* Past the budget the largest tables are left to the file, whole, and
 * the others kept: the scans read both as the file. */
static int test_over_budget_reads_the_file(void) {
  out plain = {0}, small = {0}, tiny = {0};
  size_t nplain, nsmall, ntiny;
  ASSERT_OK(make("plain2", 70000, -1, NULL, &plain, &nplain));
  ASSERT_OK(make("small", 70000, 12 << 20, NULL, &small, &nsmall)); /* a few blocks */
  ASSERT(nsmall > 0 && nsmall < 3 * 70000 && nsmall % 70000 == 0);
  ASSERT(strcmp(plain.s, small.s) == 0);
  ASSERT_OK(make("tiny", 70000, 1 << 20, NULL, &tiny, &ntiny)); /* not one block */
  ASSERT_EQ(ntiny, 0);
  ASSERT(strcmp(plain.s, tiny.s) == 0);
  free(plain.s);
  free(small.s);
  free(tiny.s);
  return 0;
}

/* A pid past 32 bits does not fit a kept row: every table is left to the
 * file, and the scans read it. */
static int test_wide_values_read_the_file(void) {
  out plain = {0}, kept = {0};
  size_t nplain, nkept;
  row_pid = 5000000000;
  ASSERT_OK(make("plain4", 3000, -1, NULL, &plain, &nplain));
  ASSERT_OK(make("kept4", 3000, 0, NULL, &kept, &nkept));
  row_pid = 10;
  ASSERT_EQ(nkept, 0);
  ASSERT(strstr(plain.s, " 5000000000 "));
  ASSERT(strcmp(plain.s, kept.s) == 0);
  free(plain.s);
  free(kept.s);
  return 0;
}

/* Rows written by SQL (as a merge does) are not kept: the scans read the
 * file, with them. */
static int test_rows_written_otherwise(void) {
  static const char *const extra[] = {
      "INSERT INTO nvtx_ranges SELECT id + 100000, kind, domain_id, name_id, start_ns, end_ns, "
      "pid, tid, end_tid, parent_id, category, color, payload_kind, payload_int, payload_real "
      "FROM nvtx_ranges WHERE id < 10",
      "INSERT INTO cuda_api_calls(api_kind, name_id, start_ns, end_ns, pid, tid, "
      "correlation_id, return_value) SELECT api_kind, name_id, start_ns, end_ns, pid, tid, "
      "correlation_id, return_value FROM cuda_api_calls WHERE id < 10",
      "DELETE FROM kernels WHERE id = 1",
  };
  for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
    out plain = {0}, kept = {0};
    size_t nplain, nkept;
    ASSERT_OK(make("plain3", 500, -1, extra[i], &plain, &nplain));
    ASSERT_OK(make("kept3", 500, 0, extra[i], &kept, &nkept));
    ASSERT_EQ(nkept, 3 * 500); /* kept, but not the table's: not read */
    ASSERT(strcmp(plain.s, kept.s) == 0);
    free(plain.s);
    free(kept.s);
  }
  return 0;
}

/* A reader scanning a while after it opened, then closing. */
typedef struct held {
  dldb_writer *r;
  out o;
  int rc;
} held;

static void *scan_late(void *arg) {
  held *h = arg;
  struct timespec d = {0, 100 * 1000 * 1000}; /* the writer is most likely writing by then */
  nanosleep(&d, NULL);
  h->rc = scan_all(h->r, &h->o);
  dldb_writer_reader_close(&h->r);
  return NULL;
}

/* The writer changes the rows the reader scans, and writes far more than
 * its cache holds, in a transaction opened after the reader: the reader
 * still reads the rows as committed (the writer's pages wait for it), and
 * the writer commits once it has closed. */
static int test_reader_while_writing(void) {
  char path[1024], err[256];
  snprintf(path, sizeof path, "%s/held.sqlite", work_dir);
  dldb_write_opts opts = {.force = 1, .producer = "test", .time_origin_ns = 1000000000,
                          .scan_mem_bytes = -1};
  dldb_writer *w = NULL;
  ASSERT_OK(dldb_writer_create(path, &opts, &w, err, sizeof err));
  ASSERT_OK(write_rows(w, 3000, 1000000000));
  out before = {0}, after = {0};
  ASSERT_OK(scan_all(w, &before));
  held h = {0};
  ASSERT_OK(dldb_writer_reader(w, &h.r, err, sizeof err));
  pthread_t th;
  ASSERT_EQ(pthread_create(&th, NULL, scan_late, &h), 0);
  ASSERT_EQ(sqlite3_exec(w->db, "PRAGMA cache_size=-256", NULL, NULL, NULL), SQLITE_OK);
  ASSERT_OK(dldb__tx_begin(w, err, sizeof err));
  ASSERT_EQ(sqlite3_exec(w->db,
                         "UPDATE kernels SET gpu_end_ns = gpu_end_ns + 1; "
                         "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c "
                         "WHERE i < 20000) INSERT INTO strings(value) "
                         "SELECT printf('%.300c %d', 'x', i) FROM c",
                         NULL, NULL, NULL),
            SQLITE_OK);
  pthread_join(th, NULL);
  ASSERT_OK(h.rc);
  ASSERT(h.o.s && strcmp(before.s, h.o.s) == 0);
  ASSERT_OK(dldb__tx_commit(w, err, sizeof err));
  ASSERT_OK(scan_all(w, &after));
  ASSERT(after.s && strcmp(before.s, after.s) != 0);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(w->db, "SELECT count(*) FROM strings WHERE length(value) > 300",
                               -1, &st, NULL),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  ASSERT_EQ(sqlite3_column_int64(st, 0), 20000);
  sqlite3_finalize(st);
  free(before.s);
  free(after.s);
  free(h.o.s);
  dldb_writer_abort(&w);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_dldb_rawmem WORK_DIR\n");
    return 2;
  }
  work_dir = argv[1];
  RUN(test_kept_rows_scan_as_the_file);
  RUN(test_over_budget_reads_the_file);
  RUN(test_wide_values_read_the_file);
  RUN(test_rows_written_otherwise);
  RUN(test_reader_while_writing);
  TEST_DONE();
}
