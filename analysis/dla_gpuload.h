/*
 * dla_gpuload.h - GPU work (analysis/ only): kernels, memory ops and the
 * GPUs, into arrays that c owns (dla__ctx_free).
 */
#ifndef DLA_GPULOAD_H
#define DLA_GPULOAD_H

#include "dla_ctx.h"

typedef struct dla_corr dla_corr;

/* Reads the kernels and memory ops into c->k, c->m and c->kcfg, each joined
 * to its launching call through corr (borrowed; dla_calls.c). Runs beside
 * op building (dla_loads.c): it reads the calls and the ranges' times only. */
int dla__gpu_scan(dla_ctx *c, const dla_corr *corr);

/* Once the op nodes and the calls' own ops exist: the op of each kernel of
 * no op (c->nocall_op) and the op instance and op of each memory op, then
 * the GPUs (c->gpu_ids, gpus table first, then the kernels' devices). */
int dla__gpu_work(dla_ctx *c);

#endif
