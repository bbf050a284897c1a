/*
 * dla_rules.c - the expert-system rule table. A rule is a row: id and a
 * function that reads dla_facts and fills at most a few dla_findings.
 *
 * DLProf's detectors come first, in DLProf's order and with DLProf's exact
 * wording where it is known (peers.md B.3; w_Relu's dlprof_expert_systems.csv
 * is reproduced byte for byte): DLProf's sentences already quote what was
 * measured (op counts, percentages). Our own detectors and the detectors
 * whose DLProf text carries no number also quote the measurement and the
 * threshold. Nsight Systems' `nsys analyze` rules follow when
 * dla_facts.nsys_rules is set (they are not part of DLProf's output).
 * Thresholds: the DLA_* constants in dla_rules.h, documented in docs/dldb.md.
 */
#include "dla_rules.h"
#include "dla_rules_perf.h"
#include "dla_rules_tc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


typedef size_t (*dla_rule_fn)(const dla_facts *f, dla_finding *out, size_t cap);

static const char *const category_names[7] = {
    "Tensor Core kernels", "Non-Tensor Core kernels", "Memory", "Dataloader", "I/O", "CPU",
    "\"Other\"",
};

static int is_pytorch(const dla_facts *f) { return !f->mode || !*f->mode || !strcmp(f->mode, "pytorch"); }

/* ---- DLProf's detectors ------------------------------------------------------- */

static size_t rule_amp(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || f->bad_data_type_ops < 1) return 0;
  snprintf(o->problem, sizeof o->problem,
           "%lld ops were eligible to use tensor cores but none are using FP16",
           (long long)f->bad_data_type_ops);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Try enabling AMP (Automatic Mixed Precision). For more information: "
           "https://developer.nvidia.com/automatic-mixed-precision");
  snprintf(o->js_function, sizeof o->js_function, "ShowBadDataTypeOps");
  return 1;
}

/* Only with evidence: the run's model_config says benchmark mode was off. */
static size_t rule_cudnn_benchmark(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || f->model_cudnn_benchmark != 0 || f->n_conv_ops < 1) return 0;
  snprintf(o->problem, sizeof o->problem,
           "Convolution operations were detected but torch.backends.cudnn.benchmark was not "
           "enabled.");
  snprintf(o->recommendation, sizeof o->recommendation,
           "Try setting torch.backends.cudnn.benchmark = True in your network. For best "
           "performance, the input shapes should be relatively stable.");
  return 1;
}

static size_t rule_batch_size(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || f->gpu_mem_total <= 0 || f->gpu_mem_used <= 0) return 0;
  double pct = 100.0 * (double)f->gpu_mem_used / (double)f->gpu_mem_total;
  if (pct >= DLA_GPU_MEM_LOW_PCT) return 0;
  int64_t factor = f->gpu_mem_total / f->gpu_mem_used;
  if (factor > DLA_BATCH_FACTOR_MAX) factor = DLA_BATCH_FACTOR_MAX;
  if (factor < 2) return 0;
  snprintf(o->problem, sizeof o->problem, "GPU Memory is underutilized: Only %d%% of GPU Memory is used",
           (int)pct); /* DLProf truncates: 23.6 % -> 23 % */
  snprintf(o->recommendation, sizeof o->recommendation,
           "Try increasing batch size by %lldx to increase data throughput", (long long)factor);
  return 1;
}

/* A profile of CPU ops only (no kernel, memcpy or memset anywhere): one
 * finding says so (no_gpu_activity_detector), and the GPU rules, which would
 * only restate it as "0.0 %" and every listed device as unused, stay quiet.
 * A Kineto trace's deviceProperties lists the machine's GPUs even when the
 * process used none (docs/dldb.md, "Kineto mapping"). */
static int no_gpu_activity(const dla_facts *f) {
  return f->gpu_activity <= 0 && f->n_cpu_ranges > 0;
}

static size_t rule_underutilized_gpu(const dla_facts *f, dla_finding *o, size_t cap) {
  size_t k = 0;
  if (no_gpu_activity(f)) return 0;
  if (cap > k && f->n_gpus > 0 && f->gpu_utilization < DLA_UNDERUTILIZED_GPU_PCT) {
    int best = 6;
    for (int c = 3; c < 7; c++)
      if (f->pct[c] > f->pct[best]) best = c;
    if (f->n_gpus == 1) { /* DLProf's sentence */
      snprintf(o[k].problem, sizeof o[k].problem,
               "The GPU is underutilized: Only %.1f%% of the profiled time is spent on GPU "
               "kernel operations",
               f->gpu_utilization);
    } else { /* the mean of the GPUs' shares, idle GPUs included: say so */
      int busiest = 0;
      for (int i = 1; i < f->n_gpus; i++)
        if (f->gpu_util[i] > f->gpu_util[busiest]) busiest = i;
      snprintf(o[k].problem, sizeof o[k].problem,
               "The GPUs are underutilized: Only %.1f%% of the profiled time, averaged over the "
               "%d GPUs, is spent on GPU kernel operations (the busiest, GPU %d: %.1f%%)",
               f->gpu_utilization, f->n_gpus, f->gpu_ids[busiest], f->gpu_util[busiest]);
    }
    const char *advice =
        best == 5   ? "Consider swapping ops that are running on the CPU for equivalent GPU ops"
        : best == 3 ? "Focus on reducing time spent in the training data input process"
        : best == 4 ? "Reduce or overlap file reads and writes with GPU work"
                    : "Investigate the dataloading pipeline and host code that runs outside "
                      "of profiled ops";
    snprintf(o[k].recommendation, sizeof o[k].recommendation,
             "%s has the highest (non-GPU) usage at %.1f%%. %s",
             best == 5 ? "CPU" : category_names[best], f->pct[best], advice);
    k++;
  }
  /* DLProf reports unused devices under the same detector */
  char ids[256] = "";
  size_t len = 0;
  int n = 0;
  for (int i = 0; i < f->n_gpus; i++) {
    if (f->gpu_kernels[i] > 0) continue;
    int w = snprintf(ids + len, sizeof ids - len, "%s%d", n ? ", " : "", f->gpu_ids[i]);
    if (w > 0 && (size_t)w < sizeof ids - len) len += (size_t)w;
    n++;
  }
  if (n > 0 && cap > k) {
    snprintf(o[k].problem, sizeof o[k].problem,
             "The following GPU device IDs are not being used: %s", ids);
    snprintf(o[k].recommendation, sizeof o[k].recommendation,
             "Make sure to pass the necessary options to docker, the framework, and the model "
             "to use all available GPUs");
    k++;
  }
  return k;
}

static size_t rule_imbalanced_gpus(const dla_facts *f, dla_finding *o, size_t cap) {
  int hi = -1, lo = -1;
  for (int i = 0; i < f->n_gpus; i++) {
    if (f->gpu_kernels[i] == 0) continue;
    if (hi < 0 || f->gpu_util[i] > f->gpu_util[hi]) hi = i;
    if (lo < 0 || f->gpu_util[i] < f->gpu_util[lo]) lo = i;
  }
  if (cap == 0 || hi < 0 || hi == lo || f->gpu_util[hi] < DLA_GPU_IMBALANCE_MIN_PCT) return 0;
  double diff = 100.0 * (f->gpu_util[hi] - f->gpu_util[lo]) / f->gpu_util[hi];
  if (diff <= DLA_GPU_IMBALANCE_PCT) return 0;
  snprintf(o->problem, sizeof o->problem,
           "The GPUs are imbalanced: GPU %d runs kernels %.1f%% of the time but GPU %d only "
           "%.1f%% (%.0f%% less; rule fires above %.0f%%)",
           f->gpu_ids[hi], f->gpu_util[hi], f->gpu_ids[lo], f->gpu_util[lo], diff,
           DLA_GPU_IMBALANCE_PCT);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Balance the work between GPUs: give each rank an equal share of the data and the "
           "same batch size, and make sure each process uses its own GPU");
  return 1;
}

static size_t rule_dataloader(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0) return 0;
  if (f->pct[3] > DLA_DATALOADER_PCT) {
    snprintf(o->problem, sizeof o->problem,
             "%.1f%% of the aggregated run was spent in the dataloader while not simultaneously "
             "running on the GPU",
             f->pct[3]);
    if (f->amd_gpus) /* DALI runs on NVIDIA GPUs only */
      snprintf(o->recommendation, sizeof o->recommendation,
               "Focus on reducing time spent in the training data input process: more "
               "DataLoader workers (num_workers), pinned memory (pin_memory=True), and "
               "prefetching the next batch while the GPU computes");
    else
      snprintf(o->recommendation, sizeof o->recommendation,
               "Focus on reducing time spent in the training data input process. Consider using "
               "NVIDIA DALI, a library that is a high performance alternative to built-in data "
               "loaders and data iterators. Learn more here: https://developer.nvidia.com/DALI");
    return 1;
  }
  if (f->n_dali_ops > 0 || !is_pytorch(f) || f->amd_gpus) return 0;
  snprintf(o->problem, sizeof o->problem, "No DALI ops detected");
  snprintf(o->recommendation, sizeof o->recommendation,
           "Consider using NVIDIA DALI, a library that is a high performance alternative to "
           "built-in data loaders and data iterators. Learn more here: "
           "https://developer.nvidia.com/DALI");
  return 1;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static size_t rule_bad_iteration_range(const dla_facts *f, dla_finding *o, size_t cap) {
  int64_t n = f->n_iter_durations;
  if (cap == 0 || n < DLA_MIN_ITERS_FOR_RANGE) return 0;
  double mean = 0, var = 0;
  for (int64_t i = 0; i < n; i++) mean += (double)f->iter_durations[i];
  mean /= (double)n;
  for (int64_t i = 0; i < n; i++) {
    double d = (double)f->iter_durations[i] - mean;
    var += d * d;
  }
  double cv = mean > 0 ? 100.0 * sqrt(var / (double)n) / mean : 0.0;
  if (cv <= DLA_ITER_CV_PCT) return 0;
  int64_t *sorted = malloc((size_t)n * sizeof *sorted);
  if (!sorted) return 0;
  memcpy(sorted, f->iter_durations, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_i64);
  /* of an even count, the mean of the two middle values */
  double median = n % 2 ? (double)sorted[n / 2]
                        : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2.0;
  free(sorted);
  /* the longest run of steady iterations */
  int64_t best_s = -1, best_len = 0, run_s = 0;
  for (int64_t i = 0; i <= n; i++) {
    int steady = i < n && fabs((double)f->iter_durations[i] - median) <=
                              median * DLA_STEADY_TOL_PCT / 100.0;
    if (steady) continue;
    if (i - run_s > best_len) {
      best_len = i - run_s;
      best_s = run_s;
    }
    run_s = i + 1;
  }
  if (best_s < 0 || best_len >= n || best_len < 1) return 0;
  int64_t is = f->iter_start + best_s, ie = f->iter_start + best_s + best_len - 1;
  snprintf(o->problem, sizeof o->problem,
           "The aggregated iteration range of %lld to %lld contains a lot of variation "
           "(iteration times: standard deviation %.1f%% of the mean; rule fires above %.0f%%)",
           (long long)f->iter_start, (long long)f->iter_stop, cv, DLA_ITER_CV_PCT);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Try limiting the iteration range to a steady range by rerunning with the --database "
           "option and setting --iter_start=%lld --iter_stop=%lld",
           (long long)is, (long long)ie);
  snprintf(o->js_function, sizeof o->js_function, "ShowBadIterationRange");
  snprintf(o->js_args, sizeof o->js_args, "{\"ideal_start\":%lld,\"ideal_stop\":%lld}",
           (long long)is, (long long)ie);
  return 1;
}

static size_t rule_cut_last_step(const dla_facts *f, dla_finding *o, size_t cap) {
  if (!f->cut_last_step || cap == 0) return 0;
  const char *name = f->cut_step_name ? f->cut_step_name : "";
  int64_t last = f->total_iterations - 1;
  snprintf(o->problem, sizeof o->problem,
           "The last iteration (%lld%s%s) was cut short by the end of profiling: it lasts %.3f "
           "ms and runs no GPU work, against a median of %.3f ms for the others (rule: under "
           "%.0f%% of the median)",
           (long long)last, *name ? ", " : "", name, (double)f->cut_step_ns / 1e6,
           (double)f->step_median_ns / 1e6, DLA_CUT_STEP_PCT);
  snprintf(o->recommendation, sizeof o->recommendation,
           "It is left out of the aggregation (iterations %lld to %lld). To aggregate it too, "
           "rerun with the --database option and --iter_stop=%lld",
           (long long)f->iter_start, (long long)f->iter_stop, (long long)last);
  return 1;
}

/* DLProf's words when the key op named is missing; without one named, what
 * was done instead (the whole profile is one iteration). */
static size_t rule_no_iterations(const dla_facts *f, dla_finding *o, size_t cap) {
  if (f->key_op_found || cap == 0) return 0;
  if (f->key_op && *f->key_op) {
    snprintf(o->problem, sizeof o->problem,
             "Unable to split profile into training iterations: key op %s not found", f->key_op);
    snprintf(o->recommendation, sizeof o->recommendation,
             "Specify key op by setting the --key_op argument");
  } else {
    snprintf(o->problem, sizeof o->problem,
             "Unable to split profile into training iterations: no key op was set, so the "
             "whole profile is one iteration");
    snprintf(o->recommendation, sizeof o->recommendation,
             "Specify key op by setting the --key_op argument to the op or NVTX range that "
             "marks each training step");
  }
  return 1;
}

static size_t rule_emit_nvtx(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !is_pytorch(f)) return 0;
  if (f->n_emit_ranges > 0 && f->model_emit_nvtx != 0) return 0;
  snprintf(o->problem, sizeof o->problem,
           "PyTorch's emit_nvtx ranges are missing: %lld of %lld NVTX ranges are aten:: op "
           "ranges%s, so kernels cannot be correlated with the ops that launched them",
           (long long)f->n_emit_ranges, (long long)f->n_ranges,
           f->model_emit_nvtx == 0 ? " and the model reports emit_nvtx off" : "");
  snprintf(o->recommendation, sizeof o->recommendation,
           "Run the profiled iterations inside `with torch.autograd.profiler.emit_nvtx():` "
           "(and call nvidia_dlprof_pytorch_nvtx.init() for module scopes)");
  return 1;
}

/* ---- Nsight Systems' `nsys analyze` rules ------------------------------------------ */

static size_t rule_nsys_memcpy_sync(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !f->nsys_rules || f->sync_memcpy_n < 1) return 0;
  snprintf(o->problem, sizeof o->problem,
           "%lld synchronous memcpy calls moved %lld bytes in %.3f ms of GPU time and blocked "
           "the CPU (host-to-device copies of %d bytes or less are not counted)",
           (long long)f->sync_memcpy_n, (long long)f->sync_memcpy_bytes,
           (double)f->sync_memcpy_ns / 1e6, DLA_NSYS_MEMCPY_SYNC_HTOD_MAX);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Use cudaMemcpy*Async() APIs instead.");
  return 1;
}

static size_t rule_nsys_memset_sync(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !f->nsys_rules || f->sync_memset_n < 1) return 0;
  snprintf(o->problem, sizeof o->problem,
           "%lld synchronous memset calls on pinned or managed memory took %.3f ms of GPU time",
           (long long)f->sync_memset_n, (double)f->sync_memset_ns / 1e6);
  snprintf(o->recommendation, sizeof o->recommendation, "Use cudaMemset*Async() APIs instead.");
  return 1;
}

static size_t rule_nsys_memcpy_async(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !f->nsys_rules || f->pageable_memcpy_n < 1) return 0;
  snprintf(o->problem, sizeof o->problem,
           "%lld asynchronous memcpy calls used pageable host memory (%lld bytes): they run "
           "synchronously with the CPU",
           (long long)f->pageable_memcpy_n, (long long)f->pageable_memcpy_bytes);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Use PINNED memory instead (cudaMallocHost, or pin_memory=True on the DataLoader).");
  return 1;
}

static size_t rule_nsys_api_sync(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !f->nsys_rules || f->sync_calls_n < 1) return 0;
  snprintf(o->problem, sizeof o->problem,
           "%lld device or stream synchronization calls blocked the CPU for %.3f ms",
           (long long)f->sync_calls_n, (double)f->sync_calls_ns / 1e6);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Avoid excessive use of synchronization. Use asynchronous CUDA event calls, such as "
           "cudaStreamWaitEvent() and cudaEventSynchronize()");
  return 1;
}

static size_t rule_nsys_gpu_gaps(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !f->nsys_rules || f->gpu_gaps_n < 1) return 0;
  snprintf(o->problem, sizeof o->problem,
           "GPU %d was idle %lld times for %.0f ms or more between GPU operations (longest %.1f "
           "ms)",
           f->gpu_gap_device, (long long)f->gpu_gaps_n, (double)DLA_NSYS_GPU_GAP_NS / 1e6,
           (double)f->gpu_gap_max_ns / 1e6);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Find what the CPU does in the gaps: use CPU sampling, OS runtime backtraces, or add "
           "NVTX ranges");
  return 1;
}

static size_t rule_nsys_gpu_time_util(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !f->nsys_rules || f->low_util_chunks < 1) return 0;
  snprintf(o->problem, sizeof o->problem,
           "GPU %d: %lld of %d time chunks of its active range (%lld regions) have an average "
           "GPU utilization below %.0f%% (lowest %.1f%%)",
           f->low_util_device, (long long)f->low_util_chunks, DLA_NSYS_UTIL_CHUNKS,
           (long long)f->low_util_regions, DLA_NSYS_LOW_UTIL_PCT, f->low_util_min_pct);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Look at these time regions on the timeline: the CPU may be starving the GPU, or "
           "the work may be too small to fill it");
  return 1;
}

/* Kineto traces (dla_comm.c): exposed communication, and no GPU activity at all. */
#define DLA_EXPOSED_COMM_PCT 10.0 /* NCCL time not overlapped with compute, % of step time */

/* Across ranks, exposed communication is partly waiting for a later rank
 * (a straggler, skew: their rules say so): only what no rank waits in
 * counts here (dla_ranks.c). */
static size_t rule_exposed_comm(const dla_facts *f, dla_finding *o, size_t cap) {
  int ranked = f->n_ranks >= 2 && f->unexplained_known;
  double pct = ranked ? f->unexplained_comm_pct : f->exposed_comm_pct;
  int32_t dev = ranked ? f->unexplained_comm_device : f->exposed_comm_device;
  if (cap == 0 || dev < 0 || f->exposed_comm_device < 0 || pct <= DLA_EXPOSED_COMM_PCT)
    return 0;
  snprintf(o->problem, sizeof o->problem,
           "Communication is exposed: on GPU %d, %.1f%% of the step time is spent in NCCL "
           "kernels that do not overlap with computation (rule fires above %.0f%%)%s",
           dev, pct, DLA_EXPOSED_COMM_PCT,
           ranked ? ", not counting the waiting for later ranks" : "");
  snprintf(o->recommendation, sizeof o->recommendation,
           "Overlap communication with computation (DistributedDataParallel bucket_cap_mb, "
           "no_sync with gradient accumulation), or reduce it: larger batch per GPU, gradient "
           "compression (DDP communication hooks), fewer parameter synchronisations");
  return 1;
}

static size_t rule_no_gpu_activity(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !no_gpu_activity(f)) return 0;
  snprintf(o->problem, sizeof o->problem,
           "No GPU activity: the profile holds %lld CPU op ranges and no kernel, memory copy or "
           "memset, so only CPU time is shown",
           (long long)f->n_cpu_ranges);
  snprintf(o->recommendation, sizeof o->recommendation,
           "If the model should run on a GPU, check that it and its inputs are moved to the "
           "device, and record with torch.profiler activities=[ProfilerActivity.CPU, "
           "ProfilerActivity.CUDA]");
  return 1;
}

/* Ranks of a distributed job (dla_ranks.c). */
static const char *const cause_names[] = {"compute", "GPU idle (host) time", "data loading"};

static size_t rule_straggler(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || f->straggler_excess_ns <= 0) return 0;
  int cause = f->straggler_cause >= 0 && f->straggler_cause < 3 ? f->straggler_cause : 0;
  double it = f->rank_iterations > 0 ? (double)f->rank_iterations : 1.0;
  snprintf(o->problem, sizeof o->problem,
           "rank %d is a straggler: its %s is %.3f ms per iteration above the median rank's "
           "(its own time %.3f ms per iteration against a median of %.3f ms, over %lld "
           "iterations), and the other %d ranks lose %.3f ms per iteration in all waiting for "
           "it inside their collectives",
           f->straggler_rank, cause_names[cause], (double)f->straggler_cause_ns / 1e6 / it,
           (double)(f->straggler_median_ns + f->straggler_excess_ns) / 1e6 / it,
           (double)f->straggler_median_ns / 1e6 / it, (long long)f->rank_iterations,
           f->n_ranks - 1, (double)f->straggler_lost_ns / 1e6 / it);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Speed up rank %d rather than the communication: balance the work or the data "
           "across ranks (uneven batches or sequence lengths), check its GPU (clocks, "
           "thermals, a slower part) and what its host does between kernels (data loading, "
           "logging, checkpoints)",
           f->straggler_rank);
  snprintf(o->js_function, sizeof o->js_function, "ShowRanks");
  return 1;
}

static size_t rule_collective_skew(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !f->skew_kernel[0]) return 0;
  snprintf(o->problem, sizeof o->problem,
           "Collective skew: %s starts on average %.3f ms apart across its %lld ranks (at most "
           "%.3f ms; it runs %.3f ms on average); rank %d starts last in %lld of %lld instances",
           f->skew_kernel, (double)f->skew_avg_ns / 1e6, (long long)f->skew_ranks,
           (double)f->skew_max_ns / 1e6, (double)f->skew_dur_avg_ns / 1e6, f->skew_last_rank,
           (long long)f->skew_last_count, (long long)f->skew_instances);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Look at what rank %d does before this collective: the earlier ranks wait for it. "
           "Balance the work before the collective, or remove host-side delays on that rank",
           f->skew_last_rank);
  snprintf(o->js_function, sizeof o->js_function, "ShowRanks");
  return 1;
}

/* Sizes as a person reads them: MiB from 1 MiB, else KiB. */
static void fmt_bytes(char *out, size_t n, int64_t b) {
  if (b >= (1LL << 20)) snprintf(out, n, "%.1f MiB", (double)b / (1 << 20));
  else snprintf(out, n, "%.1f KiB", (double)b / 1024);
}

static size_t rule_collective_bandwidth(const dla_facts *f, dla_finding *o, size_t cap) {
  if (cap == 0 || !f->bw_kernel[0] || !(f->bw_link_bps > 0)) return 0;
  char size[32];
  fmt_bytes(size, sizeof size, f->bw_avg_bytes);
  snprintf(o->problem, sizeof o->problem,
           "Collective bandwidth: %s (%s of %s on average, %lld ranks, %lld instances) reaches "
           "a bus bandwidth of %.1f GB/s (algorithm bandwidth %.1f GB/s), %.1f%% of its GPU's "
           "link (%.1f GB/s in one direction; rule fires below %.0f%%)",
           f->bw_kernel, f->bw_collective ? f->bw_collective : "collective", size,
           (long long)f->bw_ranks, (long long)f->bw_instances, f->bw_bus_bps / 1e9,
           f->bw_alg_bps / 1e9, 100.0 * f->bw_bus_bps / f->bw_link_bps, f->bw_link_bps / 1e9,
           DLA_BUSBW_PCT);
  snprintf(o->recommendation, sizeof o->recommendation,
           "Where the ranks span machines the network bounds it (check the NICs per GPU, "
           "NCCL_IB_HCA, GPUDirect RDMA); within one machine check that NCCL uses NVLink "
           "(NCCL_DEBUG=INFO, NCCL_P2P_DISABLE unset) and that the messages are large "
           "enough (DDP bucket_cap_mb, FSDP's bucketing)");
  snprintf(o->js_function, sizeof o->js_function, "ShowRanks");
  return 1;
}

static const struct {
  const char *id;
  dla_rule_fn fn;
} rules[] = {
    {"amp_detector", rule_amp},
    {"cudnn_benchmark_detector", rule_cudnn_benchmark},
    {"batch_size_detector", rule_batch_size},
    {"underutilized_gpu_detector", rule_underutilized_gpu},
    {"imbalanced_gpus_detector", rule_imbalanced_gpus},
    {"dataloader_detector", rule_dataloader},
    {"bad_iteration_range_detector", rule_bad_iteration_range},
    {"no_iterations_detector", rule_no_iterations},
    {"emit_nvtx_detector", rule_emit_nvtx},
    {"nsys_cuda_memcpy_sync", rule_nsys_memcpy_sync},
    {"nsys_cuda_memset_sync", rule_nsys_memset_sync},
    {"nsys_cuda_memcpy_async", rule_nsys_memcpy_async},
    {"nsys_cuda_api_sync", rule_nsys_api_sync},
    {"nsys_gpu_gaps", rule_nsys_gpu_gaps},
    {"nsys_gpu_time_util", rule_nsys_gpu_time_util},
    {"straggler_detector", rule_straggler},
    {"collective_skew_detector", rule_collective_skew},
    {"collective_bandwidth_detector", rule_collective_bandwidth},
    {"exposed_communication_detector", rule_exposed_comm},
    {"no_gpu_activity_detector", rule_no_gpu_activity},
    {"cut_last_step_detector", rule_cut_last_step},
    {"tensor_core_shapes_detector", dla__rule_tensor_core_shapes},
    {"unfused_attention_detector", dla__rule_unfused_attention},
    {"elementwise_fusion_detector", dla__rule_elementwise_fusion},
    {"small_gemm_detector", dla__rule_small_gemms},
};

size_t dla_rules_count(void) { return sizeof rules / sizeof rules[0]; }

const char *dla_rules_id(size_t i) { return i < dla_rules_count() ? rules[i].id : NULL; }

size_t dla_rules_run(const dla_facts *f, dla_finding *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < dla_rules_count() && n < cap; i++) {
    for (size_t j = n; j < cap; j++) memset(&out[j], 0, sizeof out[j]);
    size_t k = rules[i].fn(f, out + n, cap - n);
    for (size_t j = 0; j < k; j++) out[n + j].rule_id = rules[i].id;
    n += k;
  }
  return n;
}
