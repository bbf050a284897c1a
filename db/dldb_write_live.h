/*
 * dldb_write_live.h - a dldb built in place while a profiled application
 * runs (the live collector's raw store).
 *
 * dldb_writer_create() builds a file at a temporary path with journaling
 * off, which is right for importers but loses everything if the process
 * dies. The live store is instead created up front (dldb_live_create), in
 * WAL mode, and filled by one process (the collector) in batches that each
 * commit durably against a process crash: a SIGKILL of the application
 * leaves a file that opens with every committed batch (a committed WAL
 * frame is in the OS's page cache once write() returns). synchronous=OFF:
 * no fsync while recording (checkpoints stalled the writer for seconds on
 * large runs); an OS crash or power loss may lose or damage the profile,
 * which a profile can afford. dldb_live_finish syncs the final file.
 * When the application has ended, dldb_live_finish() checkpoints it back to
 * a rollback-journal file and moves it onto its final name; the analysis
 * then runs on it as on any dldb (dldb_writer_open_existing + dla).
 *
 * Besides the raw records of dldb_write.h the live store fills four side
 * tables of schema.sql for what CUPTI and NVTX report (contexts, CUPTI
 * overhead, external correlations, NVTX category names); the views ignore
 * them.
 *
 * Ownership: dldb_live_open returns a new handle, closed by
 * dldb_live_close(&l) (sets it to NULL). dldb_live_writer() lends the
 * handle's writer for the raw inserts of dldb_write.h; never commit or
 * abort it directly. Arguments are borrowed for the call. One thread uses
 * a handle at a time. Errors: DL_OK or a negative DL_E*, one line in err.
 */
#ifndef DLDB_WRITE_LIVE_H
#define DLDB_WRITE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "dl.h"
#include "dldb_write.h"

typedef struct dldb_live dldb_live;

/* Creates a new store at path (DL_EEXIST if it exists) with the schema,
 * dl_meta (from o; o->force is ignored) and, if c is not NULL, the system
 * config row; leaves it closed, in WAL mode. */
int dldb_live_create(const char *path, const dldb_write_opts *o, const dldb_sysconfig *c,
                     char *err, size_t errlen);

/* Opens a store made by dldb_live_create for appending raw records. Times
 * passed later are relative to its dl_meta time_origin_ns. *first_free_id
 * (may be NULL) receives 1 + the largest nvtx_ranges id present. */
int dldb_live_open(const char *path, dldb_live **out, int64_t *first_free_id, char *err,
                   size_t errlen);

/* The handle's writer (borrowed) for dldb_write_* raw inserts. */
dldb_writer *dldb_live_writer(dldb_live *l);

/* Inserts a range with a chosen id (the collector's range id, so that
 * parent_id and external correlation ids can name ranges not yet written);
 * r->name_id > 0 is used instead of interning r->name. DL_EDB if the id is
 * taken. */
int dldb_live_nvtx_range(dldb_live *l, int64_t id, const dldb_nvtx_range *r, char *err,
                         size_t errlen);

/* The collector's two hot kinds, cheaper per row than dldb_write_kernel
 * and dldb_write_api_call: names only by interned id (short_name_id and
 * long_name_id, name_id > 0: dldb_writer_intern once per name; DL_EINVAL
 * without), rows gathered and written by multi-row INSERTs. Gathered rows
 * are written by dldb_live_commit and dldb_live_close (so a commit holds
 * every row passed before it). */
int dldb_live_kernel(dldb_live *l, const dldb_kernel *k, char *err, size_t errlen);
int dldb_live_api_call(dldb_live *l, const dldb_api_call *a, char *err, size_t errlen);

/* Side tables. Times are on the producer clock like every raw record. */
int dldb_live_context(dldb_live *l, int64_t context_id, int32_t device_id,
                      int32_t null_stream_id, char *err, size_t errlen);
int dldb_live_overhead(dldb_live *l, int overhead_kind, int object_kind, int64_t start_ns,
                       int64_t end_ns, char *err, size_t errlen);
int dldb_live_external_correlation(dldb_live *l, int64_t correlation_id, int external_kind,
                                   int64_t external_id, char *err, size_t errlen);
int dldb_live_category(dldb_live *l, const char *domain, int64_t category, const char *name,
                       char *err, size_t errlen);

/* Commits the open batch (a no-op without one). */
int dldb_live_commit(dldb_live *l, char *err, size_t errlen);

/* Commits and closes; frees *l and sets it to NULL, also on failure. */
int dldb_live_close(dldb_live **l, char *err, size_t errlen);

/* After every handle on path is closed: checkpoints the WAL into the file,
 * switches it to a rollback journal and moves it onto final_path (refused
 * with DL_EEXIST if final_path exists and force is 0). */
int dldb_live_finish(const char *path, const char *final_path, int force, char *err,
                     size_t errlen);

typedef struct dldb_live_counts {
  int64_t nvtx_ranges, domains, threads;
  int64_t kernels, memcpys, memsets, api_calls, gpus;
} dldb_live_counts;

/* Counts the raw records of a store (any dldb of ours), read-only. */
int dldb_live_count(const char *path, dldb_live_counts *c, char *err, size_t errlen);

#endif
