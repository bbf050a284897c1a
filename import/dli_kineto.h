/*
 * dli_kineto.h - the PyTorch profiler (Kineto) JSON importer.
 *
 * Reads Kineto traces of all three generations (formats.md C) and the
 * autograd profiler's bare array of events (no "cat", "pid": "CPU
 * functions": ops of one process), plain or gzip, as a stream (import/kjson.h): memory does not grow with the trace,
 * every event becomes a raw dldb record as soon as it is read.
 *
 *   cpu_op / user_annotation   -> NVTX-like ranges (op instances); input
 *                                 dims, sequence number and data type ride
 *                                 in the text as ", sizes = ..., seq = N,
 *                                 dtype = float16" (dla_opname's syntax);
 *                                 a convolution's "Concrete Inputs" too
 *                                 (", concrete = [...]": its strides,
 *                                 padding, dilation and groups)
 *   cuda_runtime / cuda_driver -> CUDA API calls (correlation id)
 *   kernel, gpu_memcpy/memset  -> GPU activity (same correlation id); the
 *                                 trace's blocks per SM and est. achieved
 *                                 occupancy go to kernel_occupancy
 *   deviceProperties           -> GPUs (the devices the trace used)
 *   distributedInfo            -> rank and world size (absent: rank 0)
 *   thread_name metadata       -> threads
 * python_function, cuda_sync, flows, counters and gpu_user_annotation twins
 * are counted and left out; complete events of any other kind are counted
 * and said in a note ("N events of unknown kinds ignored"). A directory of
 * traces becomes one profile: the files of one tensorboard_trace_handler
 * worker (<worker>.<ms>.pt.trace.json) are the cycles of one process, in
 * timestamp order, each moved after the one before where their times
 * overlap (the autograd profiler counts from each cycle's start); different
 * workers (and files named otherwise) are ranks: GPU ids become
 * rank * 100 + device and each process's threads are kept apart, each
 * file's correlation ids too. A note says how the files were grouped.
 *
 * Times: the writer's time origin must be chosen before the first record,
 * so dli_kineto_origin() reads the head of the input(s) first.
 *
 * Ownership: everything is borrowed for the call. Errors: DL_OK or a
 * negative DL_E*, with one line in err naming the file: DL_EFORMAT for
 * JSON that is not a profiler trace (an Execution Trace is named as such)
 * and for broken JSON before the first event.
 */
#ifndef DLI_KINETO_H
#define DLI_KINETO_H

#include <stdint.h>

#include "dli.h"

/* What a Kineto import read and what was odd about it. */
typedef struct dli_kineto_stats {
  int64_t files, events, ranges, api_calls, kernels, memcpys, memsets, gpus, threads;
  int64_t nccl_kernels, gpu_annotations, python_events, skipped, repairs;
  int64_t stacks;    /* ops given a call stack from python_function events (kstack.h) */
  int generation;              /* 1, 2 or 3 (formats.md C.1), 0: the autograd profiler's
                                * array (no "cat", "pid": "CPU functions"); of the last file */
  int ranks;                   /* files read */
  int world_size;              /* from distributedInfo, 0 when absent */
  int missing_distributed_info;/* files without distributedInfo */
  int ranks_without_gpu;       /* files with no kernel, memcpy or memset */
  char notes[1024];            /* "; "-separated remarks for the user */
} dli_kineto_stats;

/* 1 if path is a directory holding at least one *.json or *.json.gz file. */
int dli_kineto_is_trace_dir(const char *path);

/* Reads the head of path (a file or a directory of traces) and sets
 * *origin_ns to the earliest event time seen there, on the trace's own
 * clock. Rejects files that are not profiler traces. */
int dli_kineto_origin(const char *path, int64_t *origin_ns, char *err, size_t errlen);

/* Imports path (a file or a directory of per-rank traces) into w.
 * stats may be NULL. While it runs, a second thread of its own makes the
 * calls on w (kineto.c); w must not be used by anyone else meanwhile. */
int dli_kineto_import(const char *path, const dli_opts *opts, dldb_writer *w,
                      dli_kineto_stats *stats, char *err, size_t errlen);

/* dli_kineto_import of one plain-JSON trace held in memory (size bytes at
 * data, borrowed), named name in errors and notes (NULL: "<memory>"), for
 * harnesses that feed the importer many small inputs (fuzz/): the same
 * top-level walk, event decoding and records, on the calling thread (no
 * file, no gzip, no second thread). The caller sets w's time origin. */
int dli_kineto_import_mem(const void *data, size_t size, const char *name, const dli_opts *opts,
                          dldb_writer *w, dli_kineto_stats *stats, char *err, size_t errlen);

#endif
