/*
 * test_collector_writer - the writer thread under load: four producer
 * threads submit batches concurrently while a source feeds NVTX records
 * (ends before their begins included); every row arrives, a full queue
 * drops and counts instead of blocking, and the store is a readable dldb.
 *
 * Usage: test_collector_writer WORKDIR
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

#include "ctest_util.h"
#include "dldb_write_live.h"
#include "test.h"
#include "writer.h"

enum { PRODUCERS = 4, BATCHES = 50, PER_BATCH = 2000 };

static const char *dir;
static dlc_writer *w;

static void *producer(void *arg) {
  int p = (int)(intptr_t)arg;
  for (int b = 0; b < BATCHES; b++) {
    dlc_batch *batch = dlc_batch_new(PER_BATCH);
    for (int i = 0; i < PER_BATCH; i++) {
      int64_t corr = ((int64_t)p * BATCHES + b) * PER_BATCH + i + 1;
      dlc_record *r = &batch->recs[batch->n++];
      if (i % 2) {
        r->kind = DLC_KERNEL;
        r->u.kernel = (dlc_kernel){.name = "_ZN2at6native29vectorized_elementwise_kernelILi4EEEviPf",
                                   .start_ns = corr * 10, .end_ns = corr * 10 + 5,
                                   .correlation_id = corr, .grid = {1, 1, 1}, .block = {128, 1, 1}};
      } else {
        r->kind = DLC_API;
        r->u.api = (dlc_api){.name = "cudaLaunchKernel_v7000", .start_ns = corr * 10,
                             .end_ns = corr * 10 + 2, .pid = 1, .tid = 100 + p,
                             .correlation_id = corr};
      }
    }
    while (dlc_writer_submit(w, batch) == DL_ENOMEM) {
      /* never happens with a large queue; the caller would lose the batch */
      return (void *)1;
    }
  }
  return NULL;
}

static atomic_int source_rounds;

/* NVTX records as the rings would give them: for ids 1..1000, the end of
 * every odd id arrives in one round and its begin in a later one. */
static void source(void *ctx, dlc_writer *wr) {
  (void)ctx;
  int round = atomic_fetch_add(&source_rounds, 1);
  if (round > 1) return;
  for (uint64_t id = 1; id <= 1000; id++) {
    dlc_record r = {0};
    int odd = id % 2;
    if (round == 0 && odd) { /* the end first (another thread's ring) */
      r.kind = DLC_NVTX_END;
      r.u.end = (dlc_nvtx_end){.id = id, .t_ns = 2000, .tid = 9};
    } else if (round == 1 && odd) {
      r.kind = DLC_NVTX_BEGIN;
      r.u.begin = (dlc_nvtx_begin){.range_kind = DLC_RANGE_STARTEND, .id = id, .name = "late",
                                   .t_ns = 1000, .tid = 8};
    } else if (round == 0) {
      r.kind = DLC_NVTX_BEGIN;
      r.u.begin = (dlc_nvtx_begin){.range_kind = DLC_RANGE_PUSHPOP, .id = id, .name = "pp",
                                   .t_ns = 1000, .tid = 8, .domain = "dom"};
      dlc_writer_put(wr, &r);
      r.kind = DLC_NVTX_END;
      r.u.end = (dlc_nvtx_end){.id = id, .t_ns = 1500, .tid = 8};
    } else {
      continue;
    }
    dlc_writer_put(wr, &r);
  }
}

static int test_load(void) {
  char store[4200], err[512];
  snprintf(store, sizeof store, "%s/writer-load.sqlite", dir);
  unlink(store);
  ASSERT_OK(dldb_live_create(store, NULL, NULL, err, sizeof err));
  dlc_writer_opts o = {.pid = 1, .source = source, .max_queued = 1000, .poll_ms = 5};
  ASSERT_OK(dlc_writer_open(store, &o, &w, NULL, err, sizeof err));
  ASSERT_OK(dlc_writer_start(w, err, sizeof err));
  pthread_t t[PRODUCERS];
  for (int i = 0; i < PRODUCERS; i++) pthread_create(&t[i], NULL, producer, (void *)(intptr_t)i);
  void *res;
  int bad = 0;
  for (int i = 0; i < PRODUCERS; i++) {
    pthread_join(t[i], &res);
    bad += res != NULL;
  }
  ASSERT_EQ(bad, 0);
  ASSERT_OK(dlc_writer_flush(w, 30000));
  dlc_writer_stats st;
  ASSERT_OK(dlc_writer_close(&w, 0, &st, err, sizeof err));
  ASSERT_NULL(w);
  ASSERT_EQ(st.dropped_records, 0);
  ASSERT_EQ(st.unmatched_ends, 0);
  ASSERT_EQ(st.ranges, 1000);
  int64_t n = (int64_t)PRODUCERS * BATCHES * PER_BATCH;
  ASSERT_EQ(q_int(store, "SELECT count(*) FROM kernels"), n / 2);
  ASSERT_EQ(q_int(store, "SELECT count(*) FROM cuda_api_calls"), n / 2);
  ASSERT_EQ(q_int(store, "SELECT count(*) FROM kernels k JOIN cuda_api_calls a ON "
                         "a.correlation_id = k.correlation_id - 1"),
            n / 2);
  /* demangled where the process has libstdc++'s __cxa_demangle, else raw */
  ASSERT_STR_EQ(q_text(store, "SELECT s.value FROM kernels k JOIN strings s ON s.id = "
                              "k.short_name_id LIMIT 1"),
                dlsym(RTLD_DEFAULT, "__cxa_demangle")
                    ? "vectorized_elementwise_kernel"
                    : "_ZN2at6native29vectorized_elementwise_kernelILi4EEEviPf");
  ASSERT_EQ(q_int(store, "SELECT count(*) FROM nvtx_ranges WHERE kind = 2 AND end_ns - "
                         "start_ns = 1000 AND end_tid = 9 AND tid = 8"),
            500);
  ASSERT_EQ(q_int(store, "SELECT count(*) FROM nvtx_ranges WHERE kind = 1"), 500);
  ASSERT_EQ(q_int(store, "SELECT count(DISTINCT tid) FROM threads"), PRODUCERS + 1);
  ASSERT_STR_EQ(q_text(store, "PRAGMA journal_mode"), "wal");
  return 0;
}

/* A full queue drops the batch and counts it; the producer never waits. */
static int test_full_queue(void) {
  char store[4200], err[512];
  snprintf(store, sizeof store, "%s/writer-full.sqlite", dir);
  unlink(store);
  ASSERT_OK(dldb_live_create(store, NULL, NULL, err, sizeof err));
  dlc_writer_opts o = {.pid = 1, .max_queued = 2};
  ASSERT_OK(dlc_writer_open(store, &o, &w, NULL, err, sizeof err));
  /* no thread: nothing drains */
  int dropped = 0;
  for (int i = 0; i < 5; i++) {
    dlc_batch *b = dlc_batch_new(4);
    b->recs[b->n++] = (dlc_record){.kind = DLC_API,
                                   .u.api = {.name = "cudaMalloc", .start_ns = 1, .end_ns = 2}};
    dropped += dlc_writer_submit(w, b) == DL_ENOMEM;
  }
  ASSERT_EQ(dropped, 3);
  dlc_writer_stats st;
  ASSERT_OK(dlc_writer_close(&w, 0, &st, err, sizeof err));
  ASSERT_EQ(st.dropped_batches, 3);
  ASSERT_EQ(q_int(store, "SELECT count(*) FROM cuda_api_calls"), 2);
  return 0;
}

/* Ranges still open at close get the end time given (a final flush). */
static int test_open_at_close(void) {
  char store[4200], err[512];
  snprintf(store, sizeof store, "%s/writer-open.sqlite", dir);
  unlink(store);
  ASSERT_OK(dldb_live_create(store, NULL, NULL, err, sizeof err));
  ASSERT_OK(dlc_writer_open(store, NULL, &w, NULL, err, sizeof err));
  dlc_record r = {.kind = DLC_NVTX_BEGIN,
                  .u.begin = {.range_kind = DLC_RANGE_PUSHPOP, .id = 5, .name = "open",
                              .t_ns = 100, .tid = 3}};
  ASSERT_OK(dlc_writer_put(w, &r));
  ASSERT_OK(dlc_writer_close(&w, 900, NULL, err, sizeof err));
  ASSERT_EQ(q_int(store, "SELECT end_ns - start_ns FROM nvtx_ranges WHERE id = 5"), 800);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  dir = argv[1];
  RUN(test_load);
  RUN(test_full_queue);
  RUN(test_open_at_close);
  TEST_DONE();
}
