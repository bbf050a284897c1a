/*
 * dla_pipe.h - a producer on a second thread, its batches consumed in order
 * by the calling thread: the analysis computes rows on one core while the
 * other writes them to SQLite (whose connection stays on the calling thread).
 *
 * dla_pipe_run starts prod(pctx, pipe) on a new thread. The producer fills
 * batch buffers of batch_bytes each: dla_pipe_claim gives it an empty one
 * (waiting while all nslots are full), dla_pipe_publish hands it over with
 * its row count. The calling thread passes each batch, in order, to
 * cons(cctx, batch, n) until the producer returns. A batch is the
 * consumer's during its call only; the producer may reuse it after.
 *
 * Errors: a consumer's non-zero return stops the pipe (dla_pipe_claim then
 * returns NULL and the producer should return); dla_pipe_run returns the
 * consumer's error, else the producer's, else DL_OK. Without a thread or
 * memory for the slots, the producer runs on the calling thread and each
 * publish calls the consumer directly (same results, one core).
 *
 * The producer must not touch what the consumer uses (the dldb writer, the
 * analysis's error buffer) and reports only return codes. The analysis's
 * names for common/dl_pipe.h's dl_pipe_run, whose hand-off this is. Owned
 * by analysis/. Never prints, never exits.
 */
#ifndef DLA_PIPE_H
#define DLA_PIPE_H

#include <stddef.h>

#include "dl_pipe.h"

typedef dl_pipe dla_pipe;

int dla_pipe_run(size_t batch_bytes, int nslots, int (*prod)(void *pctx, dla_pipe *p),
                 void *pctx, int (*cons)(void *cctx, void *batch, size_t n), void *cctx);

/* The producer's next empty batch, or NULL once the consumer has failed. */
static inline void *dla_pipe_claim(dla_pipe *p) { return dl_pipe_claim(p); }
/* Hands the claimed batch (n rows) to the consumer; DL_OK, or the
 * consumer's error (the pipe is then stopped). */
static inline int dla_pipe_publish(dla_pipe *p, size_t n) { return dl_pipe_publish(p, n); }

#endif
