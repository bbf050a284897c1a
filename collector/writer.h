/*
 * writer.h - the collector's writer: dlc_records -> the live dldb store
 * (db/dldb_write_live.h), on its own thread, in batched transactions.
 *
 * Producers on any thread hand over whole batches (dlc_writer_submit, from
 * CUPTI's buffer-completed callback); the writer thread also calls a
 * `source` callback each round, which drains the NVTX event rings through
 * dlc_writer_put. NVTX begin and end records are joined here by range id
 * (an end may arrive before its begin when a start/end range ends on
 * another thread); ranges are stored with their collector id as row id so
 * that parent ids and external correlation ids name them exactly. The
 * thread commits every `commit_ms` and on request (dlc_writer_flush).
 *
 * No I/O happens on the caller's thread except in open and close. On the
 * first SQLite or memory failure the writer calls on_error once (from the
 * writer thread), stops writing and drops what it receives.
 *
 * Ownership: dlc_writer_open returns a new writer, freed by
 * dlc_writer_close(&w) (sets it to NULL). submit takes ownership of the
 * batch (also on failure). put borrows the record. Strings in records are
 * copied. Callbacks run on the writer thread.
 */
#ifndef DLC_WRITER_H
#define DLC_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "dl.h"
#include "record.h"

typedef struct dlc_writer dlc_writer;

typedef struct dlc_writer_opts {
  int64_t pid;                 /* stamped on GPU records */
  int64_t commit_ms;           /* <= 0: 200 */
  int64_t poll_ms;             /* rounds without work; <= 0: 20 */
  size_t max_queued;           /* batches waiting; beyond: dropped; 0: 64 */
  /* Each round: feed records with dlc_writer_put. May be NULL. */
  void (*source)(void *ctx, dlc_writer *w);
  /* Once, before the final round (e.g. a forced CUPTI flush). May be NULL. */
  void (*before_final)(void *ctx);
  /* Once, on the first failure, with one line. May be NULL. */
  void (*on_error)(void *ctx, const char *msg);
  void *ctx;
} dlc_writer_opts;

typedef struct dlc_writer_stats {
  int64_t records;             /* records written */
  int64_t ranges;              /* NVTX ranges written */
  int64_t dropped_batches, dropped_records; /* queue over its cap, or after a failure */
  int64_t unmatched_ends;      /* ends whose begin never came */
  int64_t commits;
} dlc_writer_stats;

/* Opens the store at path (made by dldb_live_create). *first_id receives
 * the first free NVTX range id. No thread yet. */
int dlc_writer_open(const char *path, const dlc_writer_opts *o, dlc_writer **out,
                    uint64_t *first_id, char *err, size_t errlen);

/* Starts the writer thread. Without it, the caller writes with put and
 * commits with dlc_writer_flush (benchmarks, tests). */
int dlc_writer_start(dlc_writer *w, char *err, size_t errlen);

/* Any thread: queues b for the writer (takes ownership). DL_EINVAL after
 * a failure, DL_ENOMEM when the queue is full (b is freed and counted). */
int dlc_writer_submit(dlc_writer *w, dlc_batch *b);

/* The writer thread (or the only thread before start): writes one record. */
int dlc_writer_put(dlc_writer *w, const dlc_record *r);

/* Asks for a round and a commit and waits up to timeout_ms for it
 * (without a thread: does it now). DL_OK, or DL_EIO on timeout/failure. */
int dlc_writer_flush(dlc_writer *w, int timeout_ms);

/* Async-signal-safe: asks the writer thread for a round and a commit, or,
 * with final set, for the final round (before_final, drain, close open
 * ranges at the current time, commit), then writes one byte to ack_fd
 * (if >= 0). Never blocks. */
void dlc_writer_signal(dlc_writer *w, int final, int ack_fd);

/* Stops the thread, runs the final round (unless a signal already did),
 * writes ranges still open with end_ns (> 0) or drops them (0), commits
 * and closes. *w stays valid until the final round is done (its
 * before_final may submit through it), then is set to NULL and freed.
 * *st (may be NULL) receives the counts. */
int dlc_writer_close(dlc_writer **w, int64_t end_ns, dlc_writer_stats *st, char *err,
                     size_t errlen);

#endif
