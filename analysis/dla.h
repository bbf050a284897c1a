/*
 * dla.h - analysis: raw dldb records -> one aggregation.
 *
 * dla_aggregate() reads the raw tables of an open writer (db/dldb_write.h),
 * builds op nodes from NVTX ranges, attributes each kernel to the innermost
 * range enclosing its launching API call on the same thread (correlation id
 * + pid), splits the profile into iterations at the key op's stop times,
 * computes the DLProf metrics of the aggregated iterations and the expert
 * findings, and writes them as a new aggregation (a new aggr_id each call,
 * so re-aggregation appends). Definitions: docs/dldb.md.
 *
 * Work is streaming scans plus sorts and sweeps in C: O(n log n) in the
 * number of records. Memory: a compact record per range, API call, kernel
 * and memory op (dla_ctx.h states their sizes) held throughout, plus the
 * sort and sweep state of one phase at a time.
 *
 * Ownership: every argument is borrowed for the call. Errors: DL_OK or a
 * negative DL_E*, with one line in err; on error no aggregation is written.
 */
#ifndef DLA_H
#define DLA_H

#include <stddef.h>
#include <stdint.h>

#include "dl.h"
#include "dldb_write.h"

typedef struct dla_opts {
  const char *domain;     /* NVTX domain; NULL: "default-domain", else the first */
  const char *key_op;     /* op path, op type or range name; NULL/"": none */
  int64_t iter_start;     /* first aggregated iteration; < 0: 0 */
  int64_t iter_stop;      /* last aggregated iteration (inclusive); < 0: the last */
  const char *user_name;  /* NULL: $USER or "" */
  const char *host_name;  /* NULL: gethostname() */
  const char *aggr_start; /* "YYYY-MM-DD HH:MM:SS"; NULL: now (UTC) */
  const char *mode;       /* "pytorch" (NULL), "simple", "tensorflow1/2": rules, default key op */
  int nsys_rules;         /* 1: also run Nsight Systems' rules (not in DLProf's output) */
  int no_shapes;          /* 1: no op shapes, perf models or their finding (dlprof
                             --detailed_mode=false) */
  int key_op_spans;       /* 1: each key-op instance is one iteration, ended at the end of
                             the last kernel it launched (Kineto ProfilerStep#N); a key
                             ending in '#' matches "<key><digits>" (dla_comm.c) */
  /* Called now and then (about every 64 Ki records, and at the start and
   * end of each phase) with the phase, records done and an estimate of the
   * total (0: unknown). NULL: none. The library itself never prints. */
  void (*progress)(void *ctx, const char *what, int64_t done, int64_t total);
  void *progress_ctx;
} dla_opts;

/* DLProf's default key op of a mode (used when key_op is NULL): TensorFlow
 * "global_step"; PyTorch and simple have none (DLProf: "key op  not
 * found"). Returns a static string or NULL. */
const char *dla_default_key_op(const char *mode);

/* Initialises opts to the defaults above. */
void dla_opts_init(dla_opts *o);

/* Analyses the raw records in w and appends one aggregation; *aggr_id
 * (may be NULL) receives its id. DL_EINVAL for an empty iteration range
 * (iter_start > iter_stop or beyond the last iteration), DL_ENOTFOUND for
 * a missing domain. */
int dla_aggregate(dldb_writer *w, const dla_opts *o, int64_t *aggr_id, char *err,
                  size_t errlen);

#endif
