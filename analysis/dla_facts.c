/*
 * dla_facts.c - the facts phase: everything the rules read (dla_facts),
 * computed from the context once the figures, the time sweep and the GPU
 * timeline are done. The rules (dla_rules.c) read only these facts.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dla_facts.h"
#include "dla_internal.h"
#include "dla_nsysfacts.h"
#include "dla_shapes.h"

static int ci_contains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; hay && *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return 1;
  return 0;
}

/* The key op, the iterations and the window's, and a cut-off last step. */
static int iteration_facts(const dla_ctx *c, const dla_cut *cut, dla_facts *f,
                           int64_t **durations) {
  f->key_op = dla__key_op(c);
  if (!f->key_op) f->key_op = "";
  f->key_op_found = c->key_op_found;
  f->total_iterations = c->niter;
  f->iter_start = c->iter_start;
  f->iter_stop = c->iter_stop;
  f->cut_last_step = cut->last;
  f->cut_step_ns = cut->len;
  f->step_median_ns = cut->median;
  f->cut_step_name = cut->last && c->iter_name && c->iter_name[c->niter - 1] > 0
                         ? dldb_writer_string(c->w, c->iter_name[c->niter - 1])
                         : "";
  f->n_iter_durations = c->iter_stop - c->iter_start + 1;
  int64_t *d = *durations = malloc((size_t)f->n_iter_durations * sizeof *d);
  if (!d) return DL_ENOMEM;
  for (int64_t i = 0; i < f->n_iter_durations; i++)
    d[i] = dla__iter_dur(c, c->iter_start + i);
  f->iter_durations = d;
  return DL_OK;
}

/* The time breakdown's shares, the GPUs and their use. */
static void gpu_facts(const dla_ctx *c, dla_facts *f) {
  int64_t wall = c->wall_ns;
  for (int k = 0; k < DLA_NCAT; k++)
    f->pct[k] = wall > 0 ? 100.0 * (double)c->cat_total[k] / (double)wall : 0.0;
  if (wall <= 0) f->pct[DLA_CAT_OTHER] = 100.0;
  f->n_gpus = c->ngpus;
  f->amd_gpus = c->ngpus_listed > 0 && c->ngpus_amd == c->ngpus_listed;
  double util = 0;
  for (int g = 0; g < c->ngpus; g++) {
    f->gpu_ids[g] = c->gpu_ids[g];
    f->gpu_util[g] = c->gpu_util[g];
    f->gpu_kernels[g] = c->gpu_kernels[g];
    util += c->gpu_util[g];
  }
  f->gpu_utilization = c->ngpus ? util / c->ngpus : 0.0;
  for (int g = 0; g < c->ngpus; g++) f->gpu_mem_total += c->gpu_mem[g];
}

/* The ops and the model: bad data types, DALI and convolution ops, NVTX
 * ranges and model_config marks. */
static void model_facts(const dla_ctx *c, dla_facts *f) {
  for (size_t i = 0; i < c->nops; i++) {
    if (!c->ops[i].bad) continue;
    f->bad_data_type_ops++;
    f->bad_data_type_gpu_time += c->ops[i].gpu;
  }
  f->mode = c->o->mode;
  f->nsys_rules = c->o->nsys_rules;
  f->n_ranges = (int64_t)c->nr;
  f->n_emit_ranges = c->n_emit_ranges;
  f->n_dlprof_ops = c->n_dlprof_ops;
  f->model_emit_nvtx = c->model_config.emit_nvtx;
  f->model_cudnn_benchmark = c->model_config.cudnn_benchmark;
  for (size_t i = 0; i < c->nops; i++) {
    const dla_op *op = &c->ops[i];
    if (op->num_calls == 0 && op->kernel_calls == 0) continue;
    f->n_dali_ops += ci_contains(op->path, "dali");
    f->n_conv_ops += ci_contains(op->type, "conv");
  }
}

int dla__facts_fill(const dla_ctx *c, const dla_cut *cut, int64_t kernel_gpu_time, dla_facts *f,
                    int64_t **durations) {
  memset(f, 0, sizeof *f);
  int rc = iteration_facts(c, cut, f, durations);
  if (rc) return rc;
  gpu_facts(c, f);
  model_facts(c, f);
  f->kernel_gpu_time = kernel_gpu_time;
  if (f->nsys_rules && (rc = dla__nsys_facts(c, f))) return rc;
  dla__comm_facts(c, f);
  dla__shapes_facts(c, f);
  return DL_OK;
}
