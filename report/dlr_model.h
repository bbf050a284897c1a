/*
 * dlr_model.h - the model data of one aggregation as JSON (dlprof
 * --dump_model_data=true, DLProf's "raw, correlated model data"): its
 * iterations, and its ops, each with the kernels it launched. Built from
 * the views only (view_iterations_profiled, view_op_nodes,
 * view_kernel_summaries), so it works on NVIDIA's databases too. Layout:
 * docs/compat.md "Model data (--dump_model_data)".
 *
 * Memory: one JSON tree of the ops and their kernel summaries and of the
 * iterations (never one entry per kernel launch). Nothing here opens files
 * or prints. Owns nothing: db is borrowed.
 */
#ifndef DLR_MODEL_H
#define DLR_MODEL_H

#include <stdint.h>

#include "dldb.h"
#include "dlr.h"

/* Writes the model data of aggregation aggr_id and NVTX domain `domain`
 * (NULL: every domain's rows of that aggregation) to sink. DL_OK, or a
 * negative DL_E* with one line in err (DL_EIO when the sink fails). */
int dlr_model_write(dldb *db, int64_t aggr_id, const char *domain, dlr_sink_fn sink, void *ctx,
                    char *err, size_t errlen);

#endif
