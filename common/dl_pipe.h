/*
 * dl_pipe.h - a bounded, in-order hand-off of batches between two threads,
 * so that one core produces (parses a trace, steps a foreign statement,
 * computes rows) while another consumes (writes SQLite).
 *
 * The pipe is a ring of nslots batch buffers of batch_bytes each. The
 * producer claims an empty batch (dl_pipe_claim, waiting while all are
 * published and not yet released), fills it and publishes it with a count
 * (dl_pipe_publish); the consumer takes the oldest published batch
 * (dl_pipe_take), uses it and releases it (dl_pipe_release). Batches go in
 * the order they were published. A batch is the producer's from claim to
 * publish and the consumer's from take to release; a batch's buffer is
 * reused after release.
 *
 * Errors: either side may stop the pipe with a code (dl_pipe_stop; the
 * first stop's code stays): claim then returns NULL, take returns NULL,
 * batches not yet taken are dropped, publish and drain return the code.
 * The producer ends the stream with dl_pipe_close (take returns NULL once
 * the last batch is released).
 *
 * One of the two sides may run on a thread of the pipe's own:
 * dl_pipe_run (producer on a thread, consumer callback on the caller),
 * dl_pipe_start_producer (producer on a thread, caller takes) or
 * dl_pipe_start_consumer (consumer callback on a thread, caller claims and
 * publishes). Where no thread can be started the pipe is synchronous:
 * dl_pipe_run and a consumer pipe then call the consumer inside publish
 * (claim gives batch 0 each time); dl_pipe_start_producer returns 0 and the
 * caller produces itself (dl_pipe_batch).
 *
 * Ownership: dl_pipe_new returns a new pipe that owns its buffers (zeroed
 * at first); free it with dl_pipe_free, which stops and joins its thread.
 * What a batch's bytes point to is the user's. Never prints, never exits.
 */
#ifndef DL_PIPE_H
#define DL_PIPE_H

#include <stddef.h>

typedef struct dl_pipe dl_pipe;

/* The producer: fills batches with claim/publish, returns its result. */
typedef int (*dl_pipe_prod_fn)(void *pctx, dl_pipe *p);
/* The consumer: one published batch with its count; non-zero stops. */
typedef int (*dl_pipe_cons_fn)(void *cctx, void *batch, size_t n);

/* A new pipe of nslots (>= 1) zeroed batches of batch_bytes (> 0) each:
 * DL_OK, DL_EINVAL or DL_ENOMEM. */
int dl_pipe_new(size_t batch_bytes, int nslots, dl_pipe **out);

/* Batch i's buffer (0 <= i < nslots), e.g. to set up batches that hold
 * pointers of their own before the pipe starts. */
void *dl_pipe_batch(dl_pipe *p, int i);

/* Runs prod(pctx, p) on a new thread; 1 when started (its return closes
 * the pipe with its result), 0 when no thread could be started. */
int dl_pipe_start_producer(dl_pipe *p, dl_pipe_prod_fn prod, void *pctx);

/* Starts a thread that passes each published batch, in order, to
 * cons(cctx, batch, n) until the pipe is closed and drained or stopped (a
 * non-zero result stops it with that code). Without a thread, publish
 * calls cons itself. */
void dl_pipe_start_consumer(dl_pipe *p, dl_pipe_cons_fn cons, void *cctx);

/* Producer: the next empty batch (waits while none is free), or NULL once
 * the pipe is stopped. */
void *dl_pipe_claim(dl_pipe *p);
/* Producer: hands the claimed batch (count n) over. DL_OK, or the stop
 * code (nothing is handed over). */
int dl_pipe_publish(dl_pipe *p, size_t n);
/* Producer: no more batches; rc: the producer's result. */
void dl_pipe_close(dl_pipe *p, int rc);
/* Producer: waits until every published batch is released (or the pipe
 * stopped); returns the stop code, or 0. */
int dl_pipe_drain(dl_pipe *p);

/* Consumer: the oldest published batch and its count (waits for one), or
 * NULL once the pipe is closed and drained, or stopped. */
void *dl_pipe_take(dl_pipe *p, size_t *n);
/* Consumer: the taken batch is done with (the producer may reuse it). */
void dl_pipe_release(dl_pipe *p);

/* Either side: stops the pipe with rc (the first stop's code stays). */
void dl_pipe_stop(dl_pipe *p, int rc);
/* The stop code (0: not stopped, or stopped with 0). */
int dl_pipe_error(dl_pipe *p);

/* Closes (consumer thread) or stops (producer thread) the pipe and waits
 * for its thread; returns the stop code, else the producer's result. A
 * pipe without a thread returns the same at once. */
int dl_pipe_join(dl_pipe *p);

/* Joins (dl_pipe_join), frees the pipe and its buffers and sets *p to NULL
 * (NULL-safe). */
void dl_pipe_free(dl_pipe **p);

/* prod(pctx, pipe) on a new thread, its batches passed in order to
 * cons(cctx, batch, n) on the calling thread until prod returns; a
 * consumer's non-zero result stops the pipe (claim returns NULL, the
 * producer should return). nslots <= 0, or no thread or memory for the
 * slots: prod runs on the calling thread with one batch and each publish
 * calls cons. Returns the consumer's error, else prod's result, else
 * DL_ENOMEM when not even one batch could be had. */
int dl_pipe_run(size_t batch_bytes, int nslots, dl_pipe_prod_fn prod, void *pctx,
                dl_pipe_cons_fn cons, void *cctx);

#endif
