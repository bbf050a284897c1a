/*
 * dldb_write.h - the dldb writer: its life cycle, its interned strings, and
 * the raw records (layer a) that producers insert.
 *
 * db/'s public headers, one role each:
 *   dldb_write.h       the writer and raw records (importers, dlsample, the
 *                      collector through dldb_write_live.h)
 *   dldb_write_live.h  the live collector's store, built in place
 *   dldb_scan.h        raw records read back by the analysis
 *   dldb_aggr.h        derived rows (aggregations) written by the analysis
 *   dldb.h             the viewer's read side: the view_* views, read-only
 * dldb_write_internal.h, dldb_batch.h and dldb_read.h are db/'s own.
 *
 * Producers (dlsample, the CUPTI collector, the Nsight Systems and Kineto
 * importers) create a writer, insert raw records as plain C structs (no CUDA
 * types), let analysis/ add one or more aggregations, and commit. A new dldb
 * is built at `<out>.tmp-XXXXXX` in the target directory with journaling and
 * syncs off (a failed build is simply deleted), inside batched transactions
 * with prepared statements; the big tables' rows go 32 to an INSERT
 * (dldb_batch.h), so an insert's error (a full disk) may be reported by a
 * later call of the writer. dldb_writer_commit() finalises it and renames it
 * into place atomically. An existing file is never touched unless `force` is
 * set, and even then only replaced by the rename of a complete new file.
 * dldb_writer_open_existing() instead appends aggregations to an existing
 * dldb in place (WAL, one transaction per aggregation).
 *
 * Times are int64 nanoseconds. Producers pass them on their own clock and
 * set `time_origin_ns` (the profile start on that clock); the writer stores
 * `t - time_origin_ns` and records the origin in dl_meta. Sizes are bytes.
 *
 * Ownership: dldb_writer_create/open_existing return a new writer, freed
 * by dldb_writer_commit() or dldb_writer_abort(), which set the pointer to
 * NULL. dldb_occ_writer_open and dldb_osrt_writer_open return a new handle
 * bound to the writer (borrowed; it must outlive the handle), freed by
 * their _close, which sets the pointer to NULL, before the writer is
 * committed or aborted. Every const char * argument and struct is borrowed
 * for the call. Strings returned by dldb_writer_string() are borrowed from
 * the writer and live until it is freed. A writer is used by one thread at
 * a time.
 *
 * Errors: DL_OK or a negative DL_E*; err (if not NULL) receives one line
 * naming the function and, for SQLite errors, sqlite3_errmsg(). After a
 * failed insert the writer should be aborted.
 */
#ifndef DLDB_WRITE_H
#define DLDB_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "dl.h"

typedef struct dldb_writer dldb_writer;

/* Schema version of db/schema.sql (PRAGMA user_version). */
#define DLDB_SCHEMA_VERSION 7
/* The DLProf view layer we implement (db_version). */
#define DLDB_VIEW_VERSION "1.8.0"
/* dl_meta 'format'. */
#define DLDB_FORMAT_NAME "dlprof-dldb"

typedef struct dldb_write_opts {
  int force;               /* 1: commit may replace an existing file */
  const char *producer;    /* e.g. "dlsample 0.1.0"; NULL: "unknown" */
  const char *source;      /* what was read, e.g. a trace path; NULL: "" */
  int64_t time_origin_ns;  /* subtracted from every time passed in */
  int64_t batch_rows;      /* rows per transaction; <= 0: 100000 */
  int64_t scan_mem_bytes;  /* raw rows kept in memory for the scans that read them back
                              (dldb_scan.h), at most; 0: DLDB_SCAN_MEM_DEFAULT, < 0: none */
} dldb_write_opts;

/* The default of dldb_write_opts.scan_mem_bytes: the NVTX ranges, CUDA API
 * calls and kernels of a PyTorch profiler trace of about 1 GB, and the
 * calls and kernels of one of 2 GB (dldb_rawmem.c: 36 to 64 bytes a row). */
#define DLDB_SCAN_MEM_DEFAULT ((int64_t)128 << 20)

/* Starts a new dldb that will become `path` on commit. Fails with DL_EEXIST
 * if path exists and opts->force is 0 (checked again at commit), DL_EIO if
 * the directory is not writable. opts may be NULL (defaults). */
int dldb_writer_create(const char *path, const dldb_write_opts *opts, dldb_writer **out,
                       char *err, size_t errlen);

/* A writer on a new in-memory database (SQLite's ":memory:") with the
 * schema and initial rows of dldb_writer_create, for harnesses that feed
 * an importer many small inputs (fuzz/): no file is made, nothing is ever
 * published. Free it with dldb_writer_abort (dldb_writer_commit refuses it
 * with DL_EINVAL); dldb_writer_reader is not available on it. */
int dldb_writer_create_mem(const dldb_write_opts *opts, dldb_writer **out, char *err,
                           size_t errlen);

/* Opens an existing dldb written by this project for appending aggregations
 * (raw inserts are refused with DL_EINVAL). Fails with DL_EFORMAT for other
 * files and DL_EVERSION for another schema version. */
int dldb_writer_open_existing(const char *path, dldb_writer **out, char *err, size_t errlen);

/* Finishes the file: commits, checkpoints, closes and (for a new file)
 * renames it onto its path, honouring `force`. Frees *w and sets it to NULL,
 * also on failure (the temporary file is then removed, any old file kept). */
int dldb_writer_commit(dldb_writer **w, char *err, size_t errlen);

/* dldb_writer_commit, calling ready(ctx, path) once the file is complete
 * and closed and before it is renamed onto its path (path: the temporary
 * file; for an existing file, the file itself): the caller writes what
 * must appear together with it. A non-zero return (a DL_* code) fails the
 * commit as any other error does; the callee said why (err untouched). */
int dldb_writer_commit_ready(dldb_writer **w, int (*ready)(void *ctx, const char *path), void *ctx,
                             char *err, size_t errlen);

/* Discards everything (removes the temporary file; for an existing file,
 * rolls back the open transaction). Frees *w, sets it to NULL. NULL-safe. */
void dldb_writer_abort(dldb_writer **w);

/* The temporary path a new file is built at (borrowed), "" when appending. */
const char *dldb_writer_tmp_path(const dldb_writer *w);

/* A second, read-only connection to w's file, for the scans
 * (dldb_scan_*) and dldb_writer_string on another thread while w is used
 * on this one (a connection serves one thread at a time). Commits w's
 * rows first: the reader sees what is committed then, in one read held
 * until it closes. No aggregation may be open when it opens; one may
 * begin and write while it is open, but the pages w's cache cannot hold
 * wait for the reader to close (SQLite's busy wait, up to 5 s, then in
 * memory), and w must not commit before. Close it with
 * dldb_writer_reader_close, before w. */
int dldb_writer_reader(dldb_writer *w, dldb_writer **out, char *err, size_t errlen);
void dldb_writer_reader_close(dldb_writer **r);

/* ---- Strings ------------------------------------------------------------ */

/* Longest string the writer stores (bytes); longer ones fail with DL_EINVAL
 * (importers cut them first, see dli.h). */
#define DLDB_MAX_STRING_BYTES (1 << 20)

/* Interns s (NULL counts as "") and stores its id (> 0) in *id. Memory is
 * bounded: past a budget of cached text, new strings are deduplicated in
 * SQLite (slower, but a trace of millions of distinct NVTX texts fits). */
int dldb_writer_intern(dldb_writer *w, const char *s, int64_t *id, char *err, size_t errlen);

/* The hash the writer finds a string of n bytes by: the interning API's
 * fast path for an importer that computes it on its reading thread and
 * passes it with the string (dldb_nvtx_range.name_hash). */
uint64_t dldb_writer_hash(const char *s, size_t n);

/* Says that a string of hash h (dldb_writer_hash) will be interned some
 * rows from now, so that its lookup is ready when it comes. Only a hint:
 * it changes no result. */
void dldb_writer_will_intern(const dldb_writer *w, uint64_t h);

/* Says that the raw records are in: the caller now reads the raw tables
 * (dldb_scan_*), then writes derived rows (dldb_aggr_*), and adds no
 * strings. The writer gives back memory it kept for adding records; a
 * later dldb_writer_intern still finds every string (slower at first).
 * dldb_writer_end_reads() says the reads and derived rows are done. Both
 * may be called more than once; neither fails. */
void dldb_writer_begin_reads(dldb_writer *w);
void dldb_writer_end_reads(dldb_writer *w);

/* The string with that id, or NULL if there is none. Borrowed: strings
 * cached in memory live until the writer is freed, others are read from the
 * file into one of a few buffers that later calls reuse (the last 4 results
 * stay valid), so copy what you keep. */
const char *dldb_writer_string(dldb_writer *w, int64_t id);

/* ---- Raw records (layer a) ---------------------------------------------- */

/* on: the NVTX ranges, CUDA API calls, kernels and strings written next
 * may go straight into their tables' pages (common/dl_sqlbuild.h) instead
 * of through SQLite's statements: in a new file whose raw tables are
 * still empty (strings: no more than its root page holds), from the next
 * raw record on. The
 * caller writes only those records (and interns strings) until it calls
 * again with on = 0, which writes the rest of the pages; any other use of
 * the writer meanwhile first ends the build (correct, only slower), as
 * does DLDB_WRITE=sqlite in the environment (which keeps SQLite for the
 * tests' comparisons). DL_OK, or a failed write's error. */
int dldb_writer_raw_pages(dldb_writer *w, int on, char *err, size_t errlen);

typedef struct dldb_sysconfig {
  int num_gpus;
  const char *cpu_model, *driver_version, *framework, *cuda_version, *cudnn_version;
  const char *nsys_version, *dlprof_version, *dlprof_build, *profile_name;
  const char *mode_string;        /* "pytorch", "tensorflow2", "simple" */
  const char *original_command;
} dldb_sysconfig;

typedef struct dldb_gpu {
  int32_t device_id;
  const char *name;
  int cc_major, cc_minor;         /* compute capability */
  int sm_count;
  int64_t memory_bytes;           /* 0: unknown */
} dldb_gpu;

typedef struct dldb_thread {
  int64_t pid, tid;
  const char *name;               /* NULL: unnamed */
} dldb_thread;

enum { DLDB_NVTX_PUSHPOP = 1, DLDB_NVTX_STARTEND = 2, DLDB_NVTX_MARK = 3 };
enum { DLDB_PAYLOAD_NONE = 0, DLDB_PAYLOAD_INT = 1, DLDB_PAYLOAD_REAL = 2 };

typedef struct dldb_nvtx_range {
  int kind;                       /* DLDB_NVTX_* */
  const char *domain;             /* NULL: "default-domain" */
  const char *name;
  int64_t start_ns, end_ns;
  int64_t pid, tid, end_tid;      /* end_tid 0: same as tid */
  int64_t parent_id;              /* id returned for the enclosing range; 0: none */
  int64_t name_id;                /* > 0: an interned id used instead of name */
  uint64_t name_hash;             /* dldb_writer_hash of name, 0: not known */
  int32_t category;
  uint32_t color;                 /* ARGB */
  int payload_kind;               /* DLDB_PAYLOAD_* */
  int64_t payload_int;
  double payload_real;
} dldb_nvtx_range;

enum { DLDB_API_RUNTIME = 0, DLDB_API_DRIVER = 1 };

typedef struct dldb_api_call {
  int api_kind;                   /* DLDB_API_* */
  const char *name;               /* e.g. "cudaLaunchKernel_v7000" */
  int64_t name_id;                /* > 0: an interned id used instead of name */
  int64_t start_ns, end_ns;
  int64_t pid, tid;
  int64_t correlation_id;
  int32_t return_value;
} dldb_api_call;

typedef struct dldb_kernel {
  const char *short_name;         /* e.g. "implicit_convolve_sgemm" */
  const char *long_name;          /* demangled full name; NULL: short_name */
  int32_t device_id, context_id, stream_id;
  int64_t gpu_start_ns, gpu_end_ns;
  int64_t correlation_id, pid;
  int32_t grid[3], block[3];
  int32_t registers_per_thread;
  int32_t static_smem_bytes, dynamic_smem_bytes;
  int64_t short_name_id, long_name_id; /* > 0: interned ids used instead of the names */
} dldb_kernel;

typedef struct dldb_memcpy {
  int copy_kind, src_kind, dst_kind;   /* formats.md B.4 enums */
  int64_t bytes;
  int32_t device_id, stream_id;
  int64_t gpu_start_ns, gpu_end_ns;
  int64_t correlation_id, pid;
} dldb_memcpy;

typedef struct dldb_memset {
  int32_t value;
  int64_t bytes;
  int mem_kind;
  int32_t device_id, stream_id;
  int64_t gpu_start_ns, gpu_end_ns;
  int64_t correlation_id, pid;
} dldb_memset;

typedef struct dldb_sync {
  int sync_type;                  /* 0 unknown, 1 event, 2 wait, 3 stream, 4 context */
  int32_t device_id, stream_id;
  int64_t event_id;
  int64_t start_ns, end_ns;
  int64_t correlation_id, pid;
} dldb_sync;

/* Each insert appends one record; *id (may be NULL) receives its row id. */
int dldb_write_sysconfig(dldb_writer *w, const dldb_sysconfig *c, char *err, size_t errlen);
int dldb_write_gpu(dldb_writer *w, const dldb_gpu *g, char *err, size_t errlen);
int dldb_write_thread(dldb_writer *w, const dldb_thread *t, char *err, size_t errlen);
int dldb_write_nvtx_range(dldb_writer *w, const dldb_nvtx_range *r, int64_t *id, char *err,
                          size_t errlen);
/* The call stack recorded for range range_id (an id dldb_write_nvtx_range
 * returned), as the trace has it: stack_id > 0 (an interned id) or the text
 * stack; nothing for NULL or "". */
int dldb_write_range_stack(dldb_writer *w, int64_t range_id, const char *stack, int64_t stack_id,
                           char *err, size_t errlen);
int dldb_write_api_call(dldb_writer *w, const dldb_api_call *a, char *err, size_t errlen);
int dldb_write_kernel(dldb_writer *w, const dldb_kernel *k, char *err, size_t errlen);
int dldb_write_memcpy(dldb_writer *w, const dldb_memcpy *m, char *err, size_t errlen);
int dldb_write_memset(dldb_writer *w, const dldb_memset *m, char *err, size_t errlen);
int dldb_write_sync(dldb_writer *w, const dldb_sync *s, char *err, size_t errlen);

/* After the raw records of an import whose time_origin_ns was later than
 * some start (a trace not in time order): adds the same amount to every
 * stored time so that the earliest start is 0, and moves time_origin_ns
 * back by it. Nothing when no start is before the origin. */
int dldb_writer_rebase(dldb_writer *w, char *err, size_t errlen);

/* Sets a dl_meta key (replacing its value). */
int dldb_write_meta(dldb_writer *w, const char *key, const char *value, char *err,
                    size_t errlen);

/* Ensures the domain exists and stores its id in *id. */
int dldb_write_domain(dldb_writer *w, const char *name, int64_t *id, char *err, size_t errlen);

/* ---- Raw records of our extensions (db/schema.sql "dl extensions",
 * "nsys-stats-style statistics"). A dldb written before their tables
 * existed lacks them: see dldb_scan.h and dldb_aggr.h. ---------------------- */

/* Kernel launch facts (kernel_occupancy). */
typedef struct dldb_occ_writer dldb_occ_writer;

int dldb_occ_writer_open(dldb_writer *w, dldb_occ_writer **out, char *err, size_t errlen);
/* Attaches launch facts to the kernel written last (dldb_write_kernel).
 * NaN stands for unknown (stored as NULL). */
int dldb_occ_write(dldb_occ_writer *o, double blocks_per_sm, double est_occupancy_pct,
                   char *err, size_t errlen);
void dldb_occ_writer_close(dldb_occ_writer **o);

/* OS runtime calls (osrt_calls, from Nsight Systems' OSRT_API). */
typedef struct dldb_osrt_writer dldb_osrt_writer;

typedef struct dldb_osrt_call {
  int64_t name_id;              /* interned name (dldb_writer_intern), > 0 */
  int64_t start_ns, end_ns;     /* producer clock (the writer subtracts its origin) */
  int64_t pid, tid;
  int64_t return_value;
  int32_t nesting;              /* 0: outermost */
} dldb_osrt_call;

/* DL_EINVAL on a writer opened on an existing dldb (raw records are not
 * added there), DL_ENOTFOUND when the file has no osrt_calls table. */
int dldb_osrt_writer_open(dldb_writer *w, dldb_osrt_writer **out, char *err, size_t errlen);
/* Appends one call; rows are committed in the writer's batches. */
int dldb_osrt_write(dldb_osrt_writer *o, const dldb_osrt_call *c, char *err, size_t errlen);
void dldb_osrt_writer_close(dldb_osrt_writer **o);

#endif
