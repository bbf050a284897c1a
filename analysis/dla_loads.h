/*
 * dla_loads.h - op building beside the loading of calls and GPU work
 * (analysis/ only). What it loads and builds, c owns (dla__ctx_free).
 */
#ifndef DLA_LOADS_H
#define DLA_LOADS_H

#include "dla_ctx.h"

/* On sorted ranges: builds the op nodes (dla__build_nodes) while the API
 * calls, kernels and memory ops load on a second thread through a second
 * connection (or after it, without one), then gives each call outside
 * every op instance its own op (dla__calls_ops). */
int dla__loads_run(dla_ctx *c);

#endif
