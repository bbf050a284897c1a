/*
 * dla_pipe.c - a producer thread's batches consumed by the calling thread
 * (see dla_pipe.h).
 *
 * The slots form a ring: the producer fills slot w % nslots while fewer than
 * nslots are published and not yet consumed; the consumer takes slot
 * r % nslots. One mutex and one condition variable guard the counters.
 */
#include "dla_pipe.h"

#include <pthread.h>
#include <stdlib.h>

#include "dl.h"

struct dla_pipe {
  char *buf; /* nslots * batch_bytes; NULL: no thread (synchronous) */
  size_t batch_bytes;
  size_t *rows; /* per slot */
  unsigned long nslots, r, w; /* slots consumed / published */
  int stop;     /* the consumer failed */
  int done;     /* the producer returned */
  int cons_rc;
  int (*cons)(void *cctx, void *batch, size_t n);
  void *cctx;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int (*prod)(void *pctx, dla_pipe *p);
  void *pctx;
  int prod_rc;
};

void *dla_pipe_claim(dla_pipe *p) {
  if (!p->nslots) return p->stop ? NULL : p->buf; /* synchronous: one buffer */
  pthread_mutex_lock(&p->mu);
  while (!p->stop && p->w - p->r == p->nslots) pthread_cond_wait(&p->cv, &p->mu);
  void *b = p->stop ? NULL : p->buf + (p->w % p->nslots) * p->batch_bytes;
  pthread_mutex_unlock(&p->mu);
  return b;
}

int dla_pipe_publish(dla_pipe *p, size_t n) {
  if (!p->nslots) {
    int rc = p->cons(p->cctx, p->buf, n);
    if (rc) {
      p->stop = 1;
      p->cons_rc = rc;
    }
    return rc;
  }
  pthread_mutex_lock(&p->mu);
  int rc = p->stop ? p->cons_rc : DL_OK;
  if (!p->stop) {
    p->rows[p->w % p->nslots] = n;
    p->w++;
    pthread_cond_broadcast(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
  return rc;
}

static void *producer(void *arg) {
  dla_pipe *p = arg;
  int rc = p->prod(p->pctx, p);
  pthread_mutex_lock(&p->mu);
  p->prod_rc = rc;
  p->done = 1;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* The calling thread: consumes batches until the producer is done and
 * every published batch is taken. */
static void consume(dla_pipe *p) {
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->r == p->w && !p->done) pthread_cond_wait(&p->cv, &p->mu);
    if (p->r == p->w) break; /* done, and nothing left */
    unsigned long slot = p->r % p->nslots;
    size_t n = p->rows[slot];
    int stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    int rc = stop ? DL_OK : p->cons(p->cctx, p->buf + slot * p->batch_bytes, n);
    pthread_mutex_lock(&p->mu);
    if (rc && !p->stop) {
      p->stop = 1;
      p->cons_rc = rc;
    }
    p->r++;
    pthread_cond_broadcast(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
}

int dla_pipe_run(size_t batch_bytes, int nslots, int (*prod)(void *pctx, dla_pipe *p),
                 void *pctx, int (*cons)(void *cctx, void *batch, size_t n), void *cctx) {
  dla_pipe p = {.batch_bytes = batch_bytes, .cons = cons, .cctx = cctx, .prod = prod,
                .pctx = pctx};
  int threaded = 0;
  if (nslots > 0) {
    p.buf = malloc((size_t)nslots * batch_bytes);
    p.rows = malloc((size_t)nslots * sizeof *p.rows);
    if (p.buf && p.rows && pthread_mutex_init(&p.mu, NULL) == 0) {
      if (pthread_cond_init(&p.cv, NULL) == 0) {
        p.nslots = (unsigned long)nslots;
        pthread_t t;
        threaded = pthread_create(&t, NULL, producer, &p) == 0;
        if (threaded) {
          consume(&p);
          pthread_join(t, NULL);
        }
        pthread_cond_destroy(&p.cv);
      }
      pthread_mutex_destroy(&p.mu);
    }
  }
  if (!threaded) { /* synchronous: one buffer, the consumer called by publish */
    free(p.buf);
    free(p.rows);
    p.rows = NULL;
    p.nslots = 0;
    p.stop = 0;
    if (!(p.buf = malloc(batch_bytes))) return DL_ENOMEM;
    p.prod_rc = prod(pctx, &p);
  }
  free(p.buf);
  free(p.rows);
  return p.cons_rc ? p.cons_rc : p.prod_rc;
}
