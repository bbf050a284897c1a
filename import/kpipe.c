/* kpipe.c - an in-order producer/consumer hand-off of records (see kpipe.h). */
#include "kpipe.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"

typedef struct block {
  unsigned char *data;
  size_t used;
} block;

struct kpipe {
  kpipe_fn fn;
  void *ctx;
  block b[KPIPE_BLOCKS];
  /* blocks published so far (w) and handled so far (r); the producer fills
   * b[w % N] while w - r < N, the consumer handles b[r % N] while r < w */
  uint64_t w, r;
  int rc;       /* fn's first non-zero result */
  int stop;
  int threaded;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
};

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Calls fn on each record of b unless an error came before. */
static int handle(kpipe *p, const block *b, int rc) {
  for (size_t off = 0; off < b->used && rc == 0;) {
    size_t len;
    memcpy(&len, b->data + off, sizeof len);
    rc = p->fn(p->ctx, b->data + off + sizeof(size_t), len);
    off += sizeof(size_t) + align8(len);
  }
  return rc;
}

static void *consumer(void *arg) {
  kpipe *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->r == p->w && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
    if (p->r == p->w) break; /* stopped and drained */
    block *b = &p->b[p->r % KPIPE_BLOCKS];
    int rc = p->rc;
    pthread_mutex_unlock(&p->mu);
    rc = handle(p, b, rc);
    b->used = 0;
    pthread_mutex_lock(&p->mu);
    p->rc = rc;
    p->r++;
    pthread_cond_broadcast(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

int kpipe_start(kpipe **pp, kpipe_fn fn, void *ctx) {
  kpipe *p = calloc(1, sizeof *p);
  if (!p) return DL_ENOMEM;
  p->fn = fn;
  p->ctx = ctx;
  for (int i = 0; i < KPIPE_BLOCKS; i++)
    if (!(p->b[i].data = malloc(KPIPE_BLOCK))) {
      for (int k = 0; k < i; k++) free(p->b[k].data);
      free(p);
      return DL_ENOMEM;
    }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->threaded = pthread_create(&p->thread, NULL, consumer, p) == 0;
  *pp = p;
  return DL_OK;
}

/* Hands the block being filled to the consumer and waits for a free one. */
static void publish(kpipe *p) {
  pthread_mutex_lock(&p->mu);
  p->w++;
  pthread_cond_broadcast(&p->cv);
  while (p->w - p->r >= KPIPE_BLOCKS) pthread_cond_wait(&p->cv, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

static int error_now(kpipe *p) {
  pthread_mutex_lock(&p->mu);
  int rc = p->rc;
  pthread_mutex_unlock(&p->mu);
  return rc;
}

void *kpipe_reserve(kpipe *p, size_t len, int *rc) {
  size_t need = sizeof(size_t) + align8(len);
  if (need > KPIPE_BLOCK) {
    *rc = DL_EINVAL;
    return NULL;
  }
  block *b = &p->b[p->w % KPIPE_BLOCKS];
  if (p->threaded && b->used + need > KPIPE_BLOCK) {
    publish(p);
    if ((*rc = error_now(p)) != 0) return NULL;
    b = &p->b[p->w % KPIPE_BLOCKS];
  }
  memcpy(b->data + b->used, &len, sizeof len);
  return b->data + b->used + sizeof(size_t);
}

int kpipe_commit(kpipe *p, size_t len) {
  block *b = &p->b[p->w % KPIPE_BLOCKS];
  if (!p->threaded) { /* handled at once: the block holds one record */
    p->rc = handle(p, &(block){b->data, sizeof(size_t) + align8(len)}, p->rc);
    return p->rc;
  }
  b->used += sizeof(size_t) + align8(len);
  return 0;
}

int kpipe_flush(kpipe *p) {
  if (!p) return 0;
  if (!p->threaded) return p->rc;
  pthread_mutex_lock(&p->mu);
  if (p->b[p->w % KPIPE_BLOCKS].used) {
    p->w++;
    pthread_cond_broadcast(&p->cv);
  }
  while (p->r != p->w) pthread_cond_wait(&p->cv, &p->mu);
  int rc = p->rc;
  pthread_mutex_unlock(&p->mu);
  return rc;
}

int kpipe_stop(kpipe **pp) {
  kpipe *p = pp ? *pp : NULL;
  if (!p) return 0;
  int rc = kpipe_flush(p);
  if (p->threaded) {
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  for (int i = 0; i < KPIPE_BLOCKS; i++) free(p->b[i].data);
  free(p);
  *pp = NULL;
  return rc;
}
