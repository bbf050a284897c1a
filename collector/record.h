/*
 * record.h - what the collector's parts hand each other: vendor-neutral
 * records with no CUDA or NVTX types.
 *
 *   cupti/translate.c  CUpti_Activity   -> dlc_record (kernels, copies, API...)
 *   nvtx/hooks.c       NVTX callbacks   -> per-thread event rings -> dlc_record
 *   writer.c           dlc_record       -> dldb (db/dldb_write_live.h)
 *
 * Times are int64 nanoseconds on CUPTI's clock (CLOCK_REALTIME on Linux
 * unless a timestamp callback says otherwise); sizes are bytes. String
 * pointers in a record are borrowed: names from CUPTI records point into a
 * dlc_strtab (they live until the strtab is freed), NVTX strings into the
 * event they were read from (they live until the record is consumed).
 */
#ifndef DLC_RECORD_H
#define DLC_RECORD_H

#include <stddef.h>
#include <stdint.h>

typedef enum dlc_kind {
  DLC_KERNEL = 1,
  DLC_MEMCPY,
  DLC_MEMSET,
  DLC_API,
  DLC_DEVICE,
  DLC_CONTEXT,
  DLC_SYNC,
  DLC_OVERHEAD,
  DLC_EXTCORR,
  DLC_NVTX_BEGIN,   /* a push, a start or a mark */
  DLC_NVTX_END,     /* a pop or an end */
  DLC_THREAD_NAME,
  DLC_CATEGORY,
} dlc_kind;

typedef struct dlc_kernel {
  const char *name;               /* mangled as CUPTI gave it */
  int32_t device_id, context_id, stream_id;
  int64_t start_ns, end_ns;
  int64_t correlation_id;
  int32_t grid[3], block[3];
  int32_t registers_per_thread, static_smem_bytes, dynamic_smem_bytes;
} dlc_kernel;

typedef struct dlc_memcpy {
  int copy_kind, src_kind, dst_kind; /* CUPTI's enums (formats.md B.4) */
  int64_t bytes;
  int32_t device_id, context_id, stream_id;
  int32_t src_device_id, dst_device_id; /* -1 unless a peer copy */
  int64_t start_ns, end_ns, correlation_id;
} dlc_memcpy;

typedef struct dlc_memset {
  int32_t value;
  int64_t bytes;
  int mem_kind;
  int32_t device_id, context_id, stream_id;
  int64_t start_ns, end_ns, correlation_id;
} dlc_memset;

typedef struct dlc_api {
  int driver;                     /* 0 runtime, 1 driver */
  uint32_t cbid;
  const char *name;               /* e.g. "cudaLaunchKernel_v7000"; static */
  int64_t start_ns, end_ns;
  int64_t pid, tid, correlation_id;
  int32_t return_value;
} dlc_api;

typedef struct dlc_device {
  int32_t id;
  const char *name;
  int cc_major, cc_minor, sm_count;
  int64_t memory_bytes;
} dlc_device;

typedef struct dlc_context {
  int64_t context_id;
  int32_t device_id, null_stream_id;
} dlc_context;

typedef struct dlc_sync {
  int type;                       /* 0 unknown, 1 event, 2 wait, 3 stream, 4 context */
  int32_t context_id, stream_id;
  int64_t event_id, start_ns, end_ns, correlation_id;
} dlc_sync;

typedef struct dlc_overhead {
  int overhead_kind, object_kind;
  int64_t start_ns, end_ns;
} dlc_overhead;

typedef struct dlc_extcorr {
  int external_kind;
  int64_t external_id, correlation_id;
} dlc_extcorr;

enum { DLC_RANGE_PUSHPOP = 1, DLC_RANGE_STARTEND = 2, DLC_RANGE_MARK = 3 };
enum { DLC_PAYLOAD_NONE = 0, DLC_PAYLOAD_INT = 1, DLC_PAYLOAD_REAL = 2 };

typedef struct dlc_nvtx_begin {
  int range_kind;                 /* DLC_RANGE_* */
  uint64_t id, parent_id;         /* parent_id 0: outermost */
  const char *domain;             /* NULL: default domain */
  const char *name;
  int64_t t_ns, tid;
  uint32_t category, color;
  int payload_kind;
  int64_t payload_int;
  double payload_real;
} dlc_nvtx_begin;

typedef struct dlc_nvtx_end {
  uint64_t id;
  int64_t t_ns, tid;
} dlc_nvtx_end;

typedef struct dlc_thread_name {
  int64_t tid;
  const char *name;
} dlc_thread_name;

typedef struct dlc_category {
  const char *domain;             /* NULL: default domain */
  uint32_t category;
  const char *name;
} dlc_category;

typedef struct dlc_record {
  dlc_kind kind;
  union {
    dlc_kernel kernel;
    dlc_memcpy memcpy;
    dlc_memset memset;
    dlc_api api;
    dlc_device device;
    dlc_context context;
    dlc_sync sync;
    dlc_overhead overhead;
    dlc_extcorr extcorr;
    dlc_nvtx_begin begin;
    dlc_nvtx_end end;
    dlc_thread_name thread;
    dlc_category category;
  } u;
} dlc_record;

/* A batch of records handed from CUPTI's thread to the writer. */
typedef struct dlc_batch {
  dlc_record *recs;
  size_t n, cap;
  struct dlc_batch *next;         /* the writer's queue link */
} dlc_batch;

/* Returns a new empty batch with room for cap records, or NULL; free with
 * dlc_batch_free(). */
dlc_batch *dlc_batch_new(size_t cap);
void dlc_batch_free(dlc_batch *b);

#endif
