/*
 * dli.h - offline importers: a trace file becomes raw dldb records.
 *
 * dli_detect() recognises what a file is by its content, never its name.
 * dli_nsys_import() reads an Nsight Systems SQLite export (schema 2.9 to
 * 3.x, formats.md B) without changing it and feeds every kernel, memcpy,
 * memset, synchronization, CUDA runtime/driver call, NVTX range, GPU, thread
 * and the system facts to a dldb writer (db/dldb_write.h). Records that are
 * unusable (NULL or wrong-typed times or ids, an end before its start, absurd
 * times, repeated correlation ids) are skipped and counted in dli_stats,
 * never fatal; over-long names are cut and counted. A damaged file, or one
 * that lacks a required column, is an error naming the file and the table.
 * Rows stream from the export to the writer: memory does not grow with
 * the number of rows (except one bit per API correlation id).
 *
 * Ownership: the writer is borrowed for the call; the caller commits or
 * aborts it. Errors: DL_OK or a negative DL_E*, with one line in err that
 * names the file and the problem.
 */
#ifndef DLI_H
#define DLI_H

#include <stdint.h>

#include "dl.h"
#include "dldb_write.h"

typedef enum dli_kind {
  DLI_UNKNOWN = 0,
  DLI_NSYS_SQLITE = 1,  /* an Nsight Systems SQLite export */
  DLI_DLDB = 2,         /* a dldb (ours or NVIDIA DLProf's) */
  DLI_SQLITE_OTHER = 3, /* SQLite, but neither of the above */
  DLI_JSON = 4,         /* JSON text, possibly gzip-compressed */
} dli_kind;

/* Looks at path's content and sets *kind. DL_ENOTFOUND / DL_EIO when the
 * file cannot be read; DL_OK with DLI_UNKNOWN for anything unrecognised. */
int dli_detect(const char *path, dli_kind *kind, char *err, size_t errlen);

/* What an import read (rows written) and skipped. */
typedef struct dli_stats {
  int64_t kernels, memcpys, memsets, syncs, api_calls, ranges, gpus, threads;
  int64_t skipped;            /* unusable rows, all tables together: NULL or non-integer
                               * times or ids, an end before its start, a time outside
                               * [0, DLI_MAX_TIME_NS], a repeated API correlation id */
  int64_t truncated;          /* names longer than DLI_MAX_NAME_BYTES, cut */
  char product_version[64];   /* e.g. "2022.1.3.3" */
  char schema_version[32];    /* e.g. "2.9.1" */
} dli_stats;

/* What the producer knows that the trace does not (all borrowed, may be NULL). */
typedef struct dli_opts {
  const char *mode;          /* "pytorch", "simple", ... -> system config mode_string */
  const char *profile_name;  /* -> system config profile_name */
  const char *command;       /* the dlprof command line -> original_command */
  /* Called now and then (about every 64 Ki rows, and at the start and end of
   * each table) with what is being read, rows done and an estimate of the
   * total (0: unknown). NULL: none. The library itself never prints. */
  void (*progress)(void *ctx, const char *what, int64_t done, int64_t total);
  void *progress_ctx;
} dli_opts;

/* Names (kernel, API, NVTX texts) longer than this are cut to it. */
#define DLI_MAX_NAME_BYTES 65536
/* Times outside [0, DLI_MAX_TIME_NS] (about 36 years of ns) are unusable. */
#define DLI_MAX_TIME_NS ((int64_t)1 << 60)

/* Imports the Nsight Systems export at path into w. Fails with DL_EFORMAT
 * when the file is not an export or has no CUDA or NVTX activity at all
 * (such as an export of an empty capture). opts may be NULL. */
int dli_nsys_import(const char *path, const dli_opts *opts, dldb_writer *w, dli_stats *stats,
                    char *err, size_t errlen);

/* dli_nsys_import of an export held in memory (size bytes at data,
 * borrowed, never written), named name in errors (NULL: "<memory>"): SQLite
 * reads it through sqlite3_deserialize, read-only and without a copy. For
 * harnesses that feed the importer many small inputs (fuzz/). */
int dli_nsys_import_mem(const void *data, size_t size, const char *name, const dli_opts *opts,
                        dldb_writer *w, dli_stats *stats, char *err, size_t errlen);

#endif
