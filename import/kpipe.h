/*
 * kpipe.h - hands records from the thread that parses a trace to a thread
 * that writes them, in order, so parsing and SQLite writes use two cores.
 *
 * The producer asks for room for one record (kpipe_reserve), fills it and
 * commits it; records go in blocks of KPIPE_BLOCK bytes, at most
 * KPIPE_BLOCKS of them in flight (the producer waits when all are full).
 * The consumer thread calls fn(ctx, record, len) for each record in the
 * order they were committed; after fn returns non-zero it calls fn no more
 * (the rest is dropped) and that code comes back from the next reserve,
 * flush or stop. kpipe_flush returns once every committed record has been
 * handled: only then may the producer touch what fn touches. Without a
 * thread (pthread_create failed), a full block is handled inside the
 * reserve that needs a new one, the rest by flush.
 *
 * Records in blocks over common/dl_pipe.h, which does the hand-off. Owned
 * by import/ (used by kineto.c). Never prints, never exits.
 */
#ifndef KPIPE_H
#define KPIPE_H

#include <stddef.h>

#define KPIPE_BLOCK ((size_t)1 << 20)
#define KPIPE_BLOCKS 4

typedef int (*kpipe_fn)(void *ctx, const void *rec, size_t len);
typedef struct kpipe kpipe;

/* Starts the consumer. Returns 0, or DL_ENOMEM. */
int kpipe_start(kpipe **p, kpipe_fn fn, void *ctx);

/* Room for a record of len bytes (8-byte aligned), or NULL with *rc set to
 * the consumer's error (or DL_EINVAL when len exceeds a block). */
void *kpipe_reserve(kpipe *p, size_t len, int *rc);

/* Commits the record just reserved (len as reserved). Returns 0. */
int kpipe_commit(kpipe *p, size_t len);

/* Waits until every committed record is handled; returns fn's first
 * non-zero result, or 0. */
int kpipe_flush(kpipe *p);

/* Flushes, stops the thread and frees the pipe (NULL-safe); returns as
 * kpipe_flush. */
int kpipe_stop(kpipe **p);

#endif
