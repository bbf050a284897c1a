/*
 * ranks_gen.h - synthetic PyTorch profiler (Kineto) traces of a
 * data-parallel job: one rank-R.pt.trace.json per rank, each iteration a
 * compute kernel, an all-reduce and an all-gather, with a planted
 * straggler (extra compute on one rank), planted skew (one rank starts its
 * all-gather late after idling), optionally a rank that loads data before
 * its compute, and known collective sizes (the NCCL
 * arguments the profiler records on each collective's kernel). Every rank
 * waits in each collective for the last to arrive, so the figures each
 * rank must show are known exactly (rg_expect).
 */
#ifndef RANKS_GEN_H
#define RANKS_GEN_H

#include <stdint.h>

typedef struct rg_params {
  int ranks, iters;
  int64_t compute_us;        /* every rank's compute per iteration */
  int compute_kernels;       /* kernels the compute is split into, back to back (sizes
                                traces for benchmarks; the figures do not change) */
  int straggler;             /* -1: none */
  int64_t straggler_us;      /* its extra compute per iteration */
  int skew_rank;             /* -1: none */
  int64_t skew_us;           /* its idle time before the all-gather */
  int loader_rank;           /* -1: none */
  int64_t loader_us;         /* its data loading (a DataLoader op) before its compute */
  int tail_rank;             /* -1: none */
  int64_t tail_us;           /* its idle host time at the end of each step (its steps
                                are longer: its iterations drift from the others') */
  int64_t allreduce_us, allgather_us; /* transfer time once all arrived */
  int64_t allreduce_bytes, allgather_bytes; /* multiples of 4 x ranks (float elements) */
} rg_params;

/* What rank r must show over all iterations, ns (iter_ns: per iteration). */
typedef struct rg_expect {
  int64_t compute_ns, comm_ns, exposed_ns, idle_ns, iter_ns, loader_ns;
} rg_expect;

void rg_defaults(rg_params *p);

/* The expected figures of rank r. */
rg_expect rg_expected(const rg_params *p, int r);

/* Writes dir/rank-R.pt.trace.json for every rank (dir must exist).
 * 0 or -1 (errno set). */
int rg_write(const rg_params *p, const char *dir);

/* Writes the trace of rank r alone (0 or -1, errno set). */
int rg_write_rank(const rg_params *p, const char *dir, int r);

#endif
