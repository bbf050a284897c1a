/* ranks_gen.c - synthetic Kineto traces of a data-parallel job (ranks_gen.h). */
#include "ranks_gen.h"

#include <stdio.h>

#define T0_US 1000000LL /* the first step's start */
#define TAIL_US 10      /* idle after the all-gather, every rank */
#define LAUNCH_US 2     /* each launch call's duration */

static const char *const K_COMPUTE = "sm90_xmma_gemm_f16f16_f32_nn_n_tilesize128x128x64";
static const char *const K_ALLREDUCE =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
static const char *const K_ALLGATHER =
    "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";

void rg_defaults(rg_params *p) {
  *p = (rg_params){.ranks = 8, .iters = 6, .compute_us = 20000, .straggler = 3,
                   .straggler_us = 6000, .skew_rank = 5, .skew_us = 1500,
                   .allreduce_us = 2000, .allgather_us = 500,
                   .allreduce_bytes = 100 << 20, .allgather_bytes = 8 << 20,
                   .loader_rank = -1, .tail_rank = -1, .compute_kernels = 1};
}

static int64_t compute_of(const rg_params *p, int r) {
  return p->compute_us + (r == p->straggler ? p->straggler_us : 0);
}

/* Data loading before the compute kernel. */
static int64_t loader_of(const rg_params *p, int r) {
  return r == p->loader_rank ? p->loader_us : 0;
}

/* When rank r arrives at the all-reduce. */
static int64_t arrival(const rg_params *p, int r) { return loader_of(p, r) + compute_of(p, r); }

static int64_t max_compute(const rg_params *p) {
  int64_t m = 0;
  for (int r = 0; r < p->ranks; r++)
    if (arrival(p, r) > m) m = arrival(p, r);
  return m;
}

/* One iteration's times, relative to its start, µs. */
typedef struct rg_iter {
  int64_t ar_start, ar_end, ag_start, ag_end, len;
} rg_iter;

static rg_iter iter_of(const rg_params *p, int r) {
  rg_iter t;
  int64_t all_arrived = max_compute(p);
  t.ar_start = arrival(p, r);
  t.ar_end = all_arrived + p->allreduce_us;
  int64_t skew = p->skew_rank >= 0 && p->skew_rank < p->ranks ? p->skew_us : 0;
  t.ag_start = t.ar_end + (r == p->skew_rank ? p->skew_us : 0);
  t.ag_end = t.ar_end + skew + p->allgather_us;
  t.len = t.ag_end + TAIL_US + (r == p->tail_rank ? p->tail_us : 0);
  return t;
}

rg_expect rg_expected(const rg_params *p, int r) {
  rg_iter t = iter_of(p, r);
  int64_t comm = (t.ar_end - t.ar_start) + (t.ag_end - t.ag_start);
  int64_t n = p->iters;
  return (rg_expect){.compute_ns = compute_of(p, r) * 1000 * n, .comm_ns = comm * 1000 * n,
                     .exposed_ns = comm * 1000 * n,
                     .idle_ns = (t.len - compute_of(p, r) - comm) * 1000 * n,
                     .iter_ns = t.len * 1000, .loader_ns = loader_of(p, r) * 1000 * n};
}

/* extra: more "args" members (",\"k\":v..."), "" none. */
static void kernel(FILE *f, const char *name, int dev, int64_t ts, int64_t dur, int64_t corr,
                   const char *extra) {
  fprintf(f,
          ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":%d,\"tid\":7,\"ts\":%lld,"
          "\"dur\":%lld,\"args\":{\"device\":%d,\"stream\":7,\"correlation\":%lld,"
          "\"grid\":[132,1,1],\"block\":[256,1,1]%s}}",
          name, dev, (long long)ts, (long long)dur, dev, (long long)corr, extra);
}

/* The NCCL arguments the profiler records on a collective's kernel: an
 * all-gather's input is its output's share of one rank. */
static void coll_args(char *out, size_t n, const char *coll, int64_t bytes, int ranks,
                      int gather) {
  int64_t elems = bytes / 4;
  snprintf(out, n,
           ",\"Collective name\":\"%s\",\"In msg nelems\":%lld,\"Out msg nelems\":%lld,"
           "\"Group size\":%d,\"dtype\":\"Float\"",
           coll, (long long)(gather ? elems / ranks : elems), (long long)elems, ranks);
}

static void launch(FILE *f, int pid, int64_t ts, int64_t corr) {
  fprintf(f,
          ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":%d,"
          "\"tid\":1,\"ts\":%lld,\"dur\":%d,\"args\":{\"correlation\":%lld}}",
          pid, (long long)ts, LAUNCH_US, (long long)corr);
}

static void comms_op(FILE *f, int pid, int64_t ts, const char *coll, int64_t bytes, int ranks) {
  fprintf(f,
          ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":%d,"
          "\"tid\":1,\"ts\":%lld,\"dur\":1,\"args\":{\"Collective name\":\"%s\","
          "\"In msg nelems\":%lld,\"Out msg nelems\":%lld,\"dtype\":\"Float\","
          "\"Group size\":%d}}",
          pid, (long long)ts, coll, (long long)(bytes / 4), (long long)(bytes / 4), ranks);
}

int rg_write_rank(const rg_params *p, const char *dir, int r) {
  char path[1024];
  snprintf(path, sizeof path, "%s/rank-%d.pt.trace.json", dir, r);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int dev = r % 8, pid = 1000 + r;
  fprintf(f,
          "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":%d,\"name\":\"NVIDIA H100 80GB "
          "HBM3\",\"totalGlobalMem\":85029158912,\"computeMajor\":9,\"computeMinor\":0,"
          "\"numSms\":132}],\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,"
          "\"world_size\":%d},\"baseTimeNanoseconds\":1700000000000000000,\"traceEvents\":[\n"
          "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
          "\"python\"}}",
          dev, r, p->ranks, pid);
  rg_iter t = iter_of(p, r);
  int64_t corr = 1;
  char ar[256], ag[256];
  coll_args(ar, sizeof ar, "allreduce", p->allreduce_bytes, p->ranks, 0);
  coll_args(ag, sizeof ag, "all_gather", p->allgather_bytes, p->ranks, 1);
  for (int i = 0; i < p->iters; i++) {
    int64_t s = T0_US + (int64_t)i * t.len;
    fprintf(f,
            ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\","
            "\"pid\":%d,\"tid\":1,\"ts\":%lld,\"dur\":%lld,\"args\":{}}",
            i, pid, (long long)s, (long long)t.len);
    if (loader_of(p, r))
      fprintf(f,
              ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"enumerate(DataLoader)#"
              "_SingleProcessDataLoaderIter.__next__\",\"pid\":%d,\"tid\":1,\"ts\":%lld,"
              "\"dur\":%lld,\"args\":{}}",
              pid, (long long)s, (long long)loader_of(p, r));
    int nk = p->compute_kernels > 1 ? p->compute_kernels : 1;
    int64_t c0 = s + t.ar_start - compute_of(p, r), each = compute_of(p, r) / nk;
    for (int k = 0; k < nk; k++) { /* the last takes the remainder */
      int64_t d = k == nk - 1 ? compute_of(p, r) - each * (nk - 1) : each;
      launch(f, pid, s + 1 + loader_of(p, r), corr);
      kernel(f, K_COMPUTE, dev, c0 + each * k, d, corr++, "");
    }
    int64_t l = loader_of(p, r); /* the host's calls follow its data loading */
    comms_op(f, pid, s + 3 + l, "allreduce", p->allreduce_bytes, p->ranks);
    launch(f, pid, s + 4 + l, corr);
    kernel(f, K_ALLREDUCE, dev, s + t.ar_start, t.ar_end - t.ar_start, corr++, ar);
    comms_op(f, pid, s + 6 + l, "all_gather", p->allgather_bytes, p->ranks);
    launch(f, pid, s + 7 + l, corr);
    kernel(f, K_ALLGATHER, dev, s + t.ag_start, t.ag_end - t.ag_start, corr++, ag);
  }
  fprintf(f, "\n]}\n");
  return fclose(f) == 0 ? 0 : -1;
}

int rg_write(const rg_params *p, const char *dir) {
  for (int r = 0; r < p->ranks; r++)
    if (rg_write_rank(p, dir, r)) return -1;
  return 0;
}
