/*
 * collector_bench - the live collector's three figures (docs/performance.md):
 *
 *   decode  CUPTI records/s through libcupti's iterator + dlc_translate
 *           (hand-built CUDA 13.0 records: 1 kernel, 2 API calls, 1 memcpy
 *           per launch, in 8 MB buffers); target >= 20 M/s
 *   writer  rows/s stored by the collector's writer thread into a live
 *           store (kernels and API calls, batched, WAL); target >= 1 M/s
 *   nvtx    ns per nvtxRangePushA + nvtxRangePop, in a child without
 *           injection and in one with the collector injected (same run);
 *           target < 200 ns under injection
 *
 * Usage: collector_bench WORKDIR COLLECTOR_SO [writer]   (build without
 * sanitizers; "writer": only the writer figure, for profiling)
 */
#include <cupti.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "buffers.h"
#include "dldb_write_live.h"
#include "translate.h"
#include "writer.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int drop(void *ctx, dlc_batch *b) {
  *(int64_t *)ctx += (int64_t)b->n;
  dlc_batch_free(b);
  return 0;
}

static int bench_decode(void) {
  uint8_t *buf = NULL;
  size_t used = 0;
  if (posix_memalign((void **)&buf, DLC_BUFFER_ALIGN, DLC_BUFFER_BYTES)) return 1;
  static const char *names[] = {"_Z6kernelAPf", "volta_sgemm_128x64_nn",
                                "_ZN2at6native29vectorized_elementwise_kernelILi4EEEviPf"};
  int64_t per_buffer = 0;
  for (uint32_t i = 0; used + 216 + 40 + 40 + 96 <= DLC_BUFFER_BYTES; i++) {
    CUpti_ActivityAPI a = {.kind = CUPTI_ACTIVITY_KIND_RUNTIME,
                           .cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                           .start = 1000 + i, .end = 1500 + i, .processId = 1, .threadId = 2,
                           .correlationId = i};
    memcpy(buf + used, &a, sizeof a), used += sizeof a;
    a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    a.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    memcpy(buf + used, &a, sizeof a), used += sizeof a;
    CUpti_ActivityKernel10 k = {.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                .start = 2000 + i, .end = 3000 + i, .correlationId = i,
                                .name = names[i % 3], .gridX = 1, .blockX = 128};
    memcpy(buf + used, &k, sizeof k), used += sizeof k;
    CUpti_ActivityMemcpy6 m = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY, .bytes = 4096,
                               .start = 4000 + i, .end = 4100 + i, .correlationId = i};
    memcpy(buf + used, &m, sizeof m), used += sizeof m;
    per_buffer += 4;
  }
  dlc_strtab *tab = dlc_strtab_new();
  dlc_decoder *d = dlc_decoder_new(tab);
  int64_t got = 0, rounds = 0;
  dlc_decode_stats st = {0};
  double t0 = now_s(), t;
  do {
    dlc_buffers_decode(d, buf, used, INT64_MIN, INT64_MAX, drop, &got, &st);
    rounds++;
  } while ((t = now_s() - t0) < 2.0);
  printf("decode: %" PRId64 " records in %.2f s: %.1f M records/s (target >= 20 M/s); "
         "%" PRId64 " per 8 MB buffer\n",
         got, t, (double)got / t / 1e6, per_buffer);
  dlc_decoder_free(&d);
  dlc_strtab_free(&tab);
  free(buf);
  return got == rounds * per_buffer ? 0 : 1;
}

static int bench_writer(const char *dir) {
  enum { ROWS = 4000000, PER_BATCH = 16384 };
  char store[4200], err[512];
  snprintf(store, sizeof store, "%s/bench-writer.sqlite", dir);
  unlink(store);
  char side[4300];
  snprintf(side, sizeof side, "%s-wal", store);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", store);
  unlink(side);
  if (dldb_live_create(store, NULL, NULL, err, sizeof err)) return fprintf(stderr, "%s\n", err), 1;
  dlc_writer *w = NULL;
  dlc_writer_opts o = {.pid = 1, .max_queued = 1000};
  if (dlc_writer_open(store, &o, &w, NULL, err, sizeof err) ||
      dlc_writer_start(w, err, sizeof err))
    return fprintf(stderr, "%s\n", err), 1;
  /* batches are built first: the figure is the writer's, not the producer's */
  enum { NB = (ROWS + PER_BATCH - 1) / PER_BATCH };
  static dlc_batch *batches[NB];
  int64_t made = 0;
  for (int i = 0; i < NB; i++) {
    dlc_batch *b = batches[i] = dlc_batch_new(PER_BATCH);
    for (; b->n < PER_BATCH; made++) {
      dlc_record *r = &b->recs[b->n++];
      if (made % 2)
        *r = (dlc_record){.kind = DLC_KERNEL,
                          .u.kernel = {.name = "volta_sgemm_128x64_nn", .start_ns = made,
                                       .end_ns = made + 10, .correlation_id = made}};
      else
        *r = (dlc_record){.kind = DLC_API,
                          .u.api = {.name = "cudaLaunchKernel_v7000", .start_ns = made,
                                    .end_ns = made + 3, .tid = 7, .correlation_id = made}};
    }
  }
  double t0 = now_s(), c0 = cpu_s();
  for (int i = 0; i < NB; i++)
    if (dlc_writer_submit(w, batches[i]) == DL_ENOMEM) return fprintf(stderr, "queue full\n"), 1;
  dlc_writer_stats st;
  if (dlc_writer_close(&w, 0, &st, err, sizeof err)) return fprintf(stderr, "%s\n", err), 1;
  double t = now_s() - t0, c = cpu_s() - c0;
  /* the CPU figure (all threads: the writer's, and the submitting one's
   * few microseconds) does not depend on what else the machine runs */
  printf("writer: %" PRId64 " rows (kernels + API calls) in %.2f s: %.2f M rows/s "
         "(target >= 1 M/s); %.2f CPU s: %.2f M rows per CPU second; %" PRId64 " commits\n",
         st.records, t, (double)st.records / t / 1e6, c, (double)st.records / c / 1e6,
         st.commits);
  return st.records == made ? 0 : 1;
}

/* The child: times push+pop pairs in bursts that fit the thread's event
 * ring (the writer drains it between bursts, so nothing is dropped and
 * every pair pays the full recording path); prints the mean ns per pair. */
static int nvtx_child(void) {
  enum { BURST = 10000, BURSTS = 100 };
  for (int i = 0; i < 1000; i++) nvtxRangePushA("warm-up"), nvtxRangePop();
  double total = 0;
  for (int rep = 0; rep < BURSTS; rep++) {
    struct timespec pause = {0, 60000000};
    nanosleep(&pause, NULL);
    double t0 = now_s();
    for (int i = 0; i < BURST; i++) {
      nvtxRangePushA("aten::conv2d, seq = 12");
      nvtxRangePop();
    }
    total += now_s() - t0;
  }
  printf("%.1f\n", total * 1e9 / ((double)BURST * BURSTS));
  return 0;
}

static double nvtx_run(const char *self, const char *so, const char *store) {
  int fd[2];
  char out[64] = "";
  if (pipe(fd)) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    if (so) {
      setenv("NVTX_INJECTION64_PATH", so, 1);
      setenv("DLPROF_COLLECTOR_STORE", store, 1);
    } else {
      unsetenv("NVTX_INJECTION64_PATH");
    }
    execl(self, self, "--nvtx-child", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  ssize_t n = read(fd[0], out, sizeof out - 1);
  close(fd[0]);
  waitpid(pid, NULL, 0);
  return n > 0 ? atof(out) : -1;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--nvtx-child")) return nvtx_child();
  if (argc < 3) {
    fprintf(stderr, "usage: collector_bench WORKDIR COLLECTOR_SO\n");
    return 2;
  }
  if (argc > 3 && !strcmp(argv[3], "writer")) return bench_writer(argv[1]); /* profiling */
  int rc = bench_decode();
  rc |= bench_writer(argv[1]);
  char store[4200], err[512];
  snprintf(store, sizeof store, "%s/bench-nvtx.sqlite", argv[1]);
  unlink(store);
  if (dldb_live_create(store, NULL, NULL, err, sizeof err)) return fprintf(stderr, "%s\n", err), 1;
  double off = nvtx_run(argv[0], NULL, NULL), on = nvtx_run(argv[0], argv[2], store);
  dldb_live_counts cnt = {0};
  dldb_live_count(store, &cnt, NULL, 0);
  printf("nvtx: push+pop %.1f ns without injection, %.1f ns with the collector injected "
         "(target < 200 ns); %lld of 1001000 ranges recorded\n",
         off, on, (long long)cnt.nvtx_ranges);
  return rc || on < 0 || off < 0;
}
