/*
 * dla_internal.h - entry points of the analysis's phases that have no
 * header of their own (analysis/ only): op building, the API calls, the GPU
 * timeline, the nsys-style statistics, the time sweep and the scope groups.
 * Each works on the context of dla_ctx.h; dla_aggregate.c's phase table
 * and the writer (dla_write.c) run them. What they allocate, the context
 * owns unless said otherwise below.
 */
#ifndef DLA_INTERNAL_H
#define DLA_INTERNAL_H

#include "dla_ctx.h"
#include "dldb_aggr.h"

/* dla_pytorch.c: on ranges sorted by (tid, start, outer first): decides each
 * range's role, instance and op (creating ops), pairs backward ranges with
 * their forward op by sequence number. */
int dla__build_nodes(dla_ctx *c);

/* dla_calls.c: on sorted ranges (before or while dla__build_nodes runs:
 * it reads only their times, threads, processes and names), reads the
 * CUDA API calls into c->a (id order), each with its innermost range; *corr
 * receives the (pid, correlation id) -> call index (free with
 * dla__corr_free; NULL-safe), *pending what dla__calls_ops needs. After
 * dla__build_nodes, dla__calls_ops gives each call outside every op
 * instance its own op (c->own), and frees *pending
 * (dla__calls_pending_free on an error path). */
typedef struct dla_corr dla_corr;
typedef struct dla_calls_pending dla_calls_pending;
int dla__load_calls(dla_ctx *c, dla_corr **corr, dla_calls_pending **pending);
int dla__calls_ops(dla_ctx *c, dla_calls_pending **pending);
void dla__calls_pending_free(dla_calls_pending **pending);
/* The call with that process and correlation id, -1: none. */
int32_t dla__corr_get(const dla_corr *x, int64_t pid, int64_t corr);
void dla__corr_free(dla_corr **x);

/* dla_comm.c: the GPU timeline, communication and SM efficiency (after
 * dla__sweep; it fills c->gpu_busy, the union of a GPU's kernel intervals
 * in the window, and c->gpu_util), its facts for the rules, its rows, and
 * freeing it. */
int dla__comm_compute(dla_ctx *c);
void dla__comm_facts(const dla_ctx *c, dla_facts *f);
int dla__comm_write(dla_ctx *c, int64_t aggr_id);
void dla__comm_free(dla_ctx *c);
/* The GPU timeline rows of dla__comm_compute (NULL, *n 0: none). */
const dldb_dl_gpu_row *dla__comm_gpus(const dla_ctx *c, size_t *n);

/* dla_stats.c: writes the nsys-stats-style tables (aggr_stats,
 * aggr_nvtx_stats, aggr_stats_api_ops) of the aggregation; nothing on a
 * dldb without them. In three steps, so that the caller can free c->a and
 * shrink c->k in between (the NVTX tables, a row per distinct range name,
 * need the most memory):
 * dla__stats_write writes the API, kernel, memory and OS runtime tables;
 * dla__stats_project computes each range's GPU projection into *nvtx (NULL
 * without the tables) from c->r, c->m and ks[0..nk-1] (each kernel's span
 * and the range of its launching call: c->a and c->k may be gone);
 * dla__stats_write_nvtx writes the NVTX tables from c->r and *nvtx, starts
 * their name order (c->nvtx_order: dla_nvtxorder.h), and frees *nvtx (as
 * dla__stats_nvtx_free does on an error path). mem: an array
 * the caller is done with (NULL: none), freed by the call: the ranges'
 * pairs (16 bytes a range) go in its memory, resized, whose pages are in
 * memory already where it is that big (a first touch of fresh pages costs
 * about as much as the work on them at 10 M ranges). */
typedef struct dla_nvtx_proj dla_nvtx_proj;
int dla__stats_write(dla_ctx *c, int64_t aggr_id);
/* A kernel as the GPU projection reads it (no bigger than a dla_kern: the
 * kernels shrink to these, in place, once the rows that need the calls are written). */
typedef struct __attribute__((packed, aligned(4))) dla_kspan {
  int64_t start, end;
  int32_t range;             /* the launching call's innermost range, -1: none */
} dla_kspan;
_Static_assert(sizeof(dla_kspan) <= sizeof(dla_kern), "dla_kspan: in place of a dla_kern");
int dla__stats_project(dla_ctx *c, const dla_kspan *ks, size_t nk, dla_nvtx_proj **nvtx);
int dla__stats_write_nvtx(dla_ctx *c, int64_t aggr_id, void *mem, dla_nvtx_proj **nvtx);
void dla__stats_nvtx_free(dla_nvtx_proj **nvtx);

/* dla_sweep.c: fills cat_total, iter_cat, gpu_kernels (gpu_util and
 * gpu_busy: dla__comm_compute). */
int dla__sweep(dla_ctx *c);
/* dla_groups.c: writes aggr_group_ops and aggr_op_types rows. */
int dla__write_groups(dla_ctx *c, int64_t aggr_id);
int dla__write_op_types(dla_ctx *c, int64_t aggr_id);

#endif
