/*
 * dl_pipe.c - a bounded, in-order hand-off of batches (see dl_pipe.h).
 *
 * The batches form a ring: the producer fills batch w % nslots while fewer
 * than nslots are published and not yet released; the consumer uses batch
 * r % nslots. One mutex and one condition variable guard the counters and
 * the stop and close flags. A synchronous pipe (no thread) takes no lock.
 */
#include "dl_pipe.h"

#include <pthread.h>
#include <stdlib.h>

#include "dl.h"

enum { NO_THREAD, PRODUCER_THREAD, CONSUMER_THREAD };

struct dl_pipe {
  unsigned char *buf; /* nslots * batch_bytes */
  size_t batch_bytes;
  size_t *counts;             /* per batch: the count published with it */
  unsigned long nslots, w, r; /* batches published / released */
  int stopped, rc;            /* stopped, with the first stop's code */
  int closed, prod_rc;        /* the producer ended, with its result */
  int thread_kind, joined;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  dl_pipe_prod_fn prod;
  void *pctx;
  dl_pipe_cons_fn cons; /* the consumer thread's, or a synchronous pipe's */
  void *cctx;
};

int dl_pipe_new(size_t batch_bytes, int nslots, dl_pipe **out) {
  *out = NULL;
  if (nslots < 1 || batch_bytes == 0 || batch_bytes > SIZE_MAX / (size_t)nslots)
    return DL_EINVAL;
  dl_pipe *p = calloc(1, sizeof *p);
  if (!p) return DL_ENOMEM;
  p->buf = calloc((size_t)nslots, batch_bytes);
  p->counts = calloc((size_t)nslots, sizeof *p->counts);
  if (!p->buf || !p->counts || pthread_mutex_init(&p->mu, NULL) != 0) {
    free(p->buf);
    free(p->counts);
    free(p);
    return DL_ENOMEM;
  }
  if (pthread_cond_init(&p->cv, NULL) != 0) {
    pthread_mutex_destroy(&p->mu);
    free(p->buf);
    free(p->counts);
    free(p);
    return DL_ENOMEM;
  }
  p->batch_bytes = batch_bytes;
  p->nslots = (unsigned long)nslots;
  *out = p;
  return DL_OK;
}

void *dl_pipe_batch(dl_pipe *p, int i) { return p->buf + (size_t)i * p->batch_bytes; }

static void *producer_main(void *arg) {
  dl_pipe *p = arg;
  dl_pipe_close(p, p->prod(p->pctx, p));
  return NULL;
}

/* Stops before it releases, so that a drain never sees the batch done
 * without the error that came of it. */
static void *consumer_main(void *arg) {
  dl_pipe *p = arg;
  size_t n;
  void *b;
  while ((b = dl_pipe_take(p, &n))) {
    int rc = p->cons(p->cctx, b, n);
    if (rc) dl_pipe_stop(p, rc);
    dl_pipe_release(p);
  }
  return NULL;
}

/* The kind is set before the thread starts, which reads it. */
static int start(dl_pipe *p, int kind, void *(*fn)(void *)) {
  p->thread_kind = kind;
  if (pthread_create(&p->thread, NULL, fn, p) == 0) return 1;
  p->thread_kind = NO_THREAD;
  return 0;
}

int dl_pipe_start_producer(dl_pipe *p, dl_pipe_prod_fn prod, void *pctx) {
  p->prod = prod;
  p->pctx = pctx;
  return start(p, PRODUCER_THREAD, producer_main);
}

void dl_pipe_start_consumer(dl_pipe *p, dl_pipe_cons_fn cons, void *cctx) {
  p->cons = cons;
  p->cctx = cctx;
  start(p, CONSUMER_THREAD, consumer_main);
}

void *dl_pipe_claim(dl_pipe *p) {
  if (p->thread_kind == NO_THREAD) return p->stopped ? NULL : p->buf;
  pthread_mutex_lock(&p->mu);
  while (!p->stopped && p->w - p->r == p->nslots) pthread_cond_wait(&p->cv, &p->mu);
  void *b = p->stopped ? NULL : p->buf + (p->w % p->nslots) * p->batch_bytes;
  pthread_mutex_unlock(&p->mu);
  return b;
}

int dl_pipe_publish(dl_pipe *p, size_t n) {
  if (p->thread_kind == NO_THREAD) { /* synchronous: consumed here */
    if (p->stopped) return p->rc;
    int rc = p->cons ? p->cons(p->cctx, p->buf, n) : DL_OK;
    if (rc) {
      p->stopped = 1;
      p->rc = rc;
    }
    return rc;
  }
  pthread_mutex_lock(&p->mu);
  int rc = p->stopped ? p->rc : DL_OK;
  if (!p->stopped) {
    p->counts[p->w % p->nslots] = n;
    p->w++;
    pthread_cond_broadcast(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
  return rc;
}

void dl_pipe_close(dl_pipe *p, int rc) {
  pthread_mutex_lock(&p->mu);
  p->closed = 1;
  p->prod_rc = rc;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

int dl_pipe_drain(dl_pipe *p) {
  if (p->thread_kind == NO_THREAD) return p->stopped ? p->rc : 0;
  pthread_mutex_lock(&p->mu);
  while (!p->stopped && p->r != p->w) pthread_cond_wait(&p->cv, &p->mu);
  int rc = p->stopped ? p->rc : 0;
  pthread_mutex_unlock(&p->mu);
  return rc;
}

void *dl_pipe_take(dl_pipe *p, size_t *n) {
  pthread_mutex_lock(&p->mu);
  while (!p->stopped && !p->closed && p->r == p->w) pthread_cond_wait(&p->cv, &p->mu);
  void *b = NULL;
  if (!p->stopped && p->r != p->w) {
    unsigned long slot = p->r % p->nslots;
    *n = p->counts[slot];
    b = p->buf + slot * p->batch_bytes;
  }
  pthread_mutex_unlock(&p->mu);
  return b;
}

void dl_pipe_release(dl_pipe *p) {
  pthread_mutex_lock(&p->mu);
  p->r++;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

void dl_pipe_stop(dl_pipe *p, int rc) {
  pthread_mutex_lock(&p->mu);
  if (!p->stopped) {
    p->stopped = 1;
    p->rc = rc;
  }
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

int dl_pipe_error(dl_pipe *p) {
  pthread_mutex_lock(&p->mu);
  int rc = p->stopped ? p->rc : 0;
  pthread_mutex_unlock(&p->mu);
  return rc;
}

int dl_pipe_join(dl_pipe *p) {
  if (p->thread_kind != NO_THREAD && !p->joined) {
    if (p->thread_kind == CONSUMER_THREAD) dl_pipe_close(p, DL_OK);
    else dl_pipe_stop(p, DL_OK);
    pthread_join(p->thread, NULL);
    p->joined = 1;
  }
  return p->stopped && p->rc ? p->rc : p->prod_rc;
}

void dl_pipe_free(dl_pipe **pp) {
  dl_pipe *p = pp ? *pp : NULL;
  if (!p) return;
  dl_pipe_join(p);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  free(p->buf);
  free(p->counts);
  free(p);
  *pp = NULL;
}

int dl_pipe_run(size_t batch_bytes, int nslots, dl_pipe_prod_fn prod, void *pctx,
                dl_pipe_cons_fn cons, void *cctx) {
  dl_pipe *p = NULL;
  if (nslots > 0 && dl_pipe_new(batch_bytes, nslots, &p) == DL_OK &&
      dl_pipe_start_producer(p, prod, pctx)) {
    size_t n;
    void *b;
    while ((b = dl_pipe_take(p, &n))) {
      int rc = cons(cctx, b, n);
      if (rc) dl_pipe_stop(p, rc);
      dl_pipe_release(p);
    }
  } else { /* synchronous: one batch, the consumer called by publish */
    dl_pipe_free(&p);
    if (dl_pipe_new(batch_bytes, 1, &p) != DL_OK) return DL_ENOMEM;
    p->cons = cons;
    p->cctx = cctx;
    p->prod_rc = prod(pctx, p);
  }
  int rc = dl_pipe_join(p);
  dl_pipe_free(&p);
  return rc;
}
