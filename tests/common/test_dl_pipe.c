/*
 * test_dl_pipe.c - the bounded batch hand-off (common/dl_pipe.h) in its
 * three shapes: a producer thread with the consumer on the caller
 * (dl_pipe_run, threaded and synchronous), a producer thread the caller
 * takes from, and a consumer thread the caller publishes to. Each checks
 * order, counts, that the first error stops the other side and comes back,
 * and that a stopped pipe frees without hanging.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"
#include "dl_pipe.h"
#include "test.h"

#define BATCH_INTS 64

typedef struct prod_state {
  int batches;  /* how many to publish */
  int fail_rc;  /* the producer's own result */
  int claimed;  /* batches claimed */
  int null_claim; /* claim returned NULL (stopped) */
} prod_state;

typedef struct cons_state {
  int64_t next;  /* the value expected next */
  int calls;
  int fail_at;   /* the call that fails (-1: none) */
  int bad;       /* values out of order */
} cons_state;

/* Batch b holds b * BATCH_INTS ... with count b % BATCH_INTS + 1. */
static int producer(void *arg, dl_pipe *p) {
  prod_state *s = arg;
  int64_t v = 0;
  for (int b = 0; b < s->batches; b++) {
    int64_t *x = dl_pipe_claim(p);
    if (!x) {
      s->null_claim = 1;
      return DL_OK;
    }
    s->claimed++;
    size_t n = (size_t)(b % BATCH_INTS) + 1;
    for (size_t i = 0; i < n; i++) x[i] = v++;
    int rc = dl_pipe_publish(p, n);
    if (rc) return DL_OK; /* the consumer's error: it comes back from run */
  }
  return s->fail_rc;
}

static int consumer(void *arg, void *batch, size_t n) {
  cons_state *s = arg;
  const int64_t *x = batch;
  if (s->calls++ == s->fail_at) return DL_EIO;
  for (size_t i = 0; i < n; i++)
    if (x[i] != s->next++) s->bad++;
  return 0;
}

static int64_t total_values(int batches) {
  int64_t t = 0;
  for (int b = 0; b < batches; b++) t += b % BATCH_INTS + 1;
  return t;
}

static int test_run(int nslots) {
  prod_state p = {.batches = 5000};
  cons_state c = {.fail_at = -1};
  ASSERT_OK(dl_pipe_run(BATCH_INTS * sizeof(int64_t), nslots, producer, &p, consumer, &c));
  ASSERT_EQ(c.calls, 5000);
  ASSERT_EQ(c.next, total_values(5000));
  ASSERT_EQ(c.bad, 0);
  /* the producer's error comes back when the consumer had none */
  prod_state pf = {.batches = 10, .fail_rc = DL_ECORRUPT};
  cons_state cf = {.fail_at = -1};
  ASSERT_EQ(dl_pipe_run(BATCH_INTS * sizeof(int64_t), nslots, producer, &pf, consumer, &cf),
            DL_ECORRUPT);
  ASSERT_EQ(cf.calls, 10);
  /* the consumer's error stops the producer and wins over its result */
  prod_state pe = {.batches = 5000, .fail_rc = DL_ECORRUPT};
  cons_state ce = {.fail_at = 100};
  ASSERT_EQ(dl_pipe_run(BATCH_INTS * sizeof(int64_t), nslots, producer, &pe, consumer, &ce),
            DL_EIO);
  ASSERT_EQ(ce.calls, 101); /* never called after the failing batch */
  ASSERT(pe.claimed < 5000);
  ASSERT_EQ(ce.bad, 0);
  return 0;
}

static int test_run_threaded(void) { return test_run(4); }
static int test_run_sync(void) { return test_run(0); }

/* A producer thread; the caller takes batches in order, then stops early. */
static int test_take(void) {
  dl_pipe *p = NULL;
  ASSERT_OK(dl_pipe_new(BATCH_INTS * sizeof(int64_t), 3, &p));
  prod_state s = {.batches = 2000};
  ASSERT(dl_pipe_start_producer(p, producer, &s));
  cons_state c = {.fail_at = -1};
  size_t n;
  void *b;
  while ((b = dl_pipe_take(p, &n))) {
    ASSERT_OK(consumer(&c, b, n));
    dl_pipe_release(p);
  }
  ASSERT_EQ(c.calls, 2000);
  ASSERT_EQ(c.next, total_values(2000));
  ASSERT_EQ(c.bad, 0);
  ASSERT_OK(dl_pipe_join(p));
  dl_pipe_free(&p);
  ASSERT_NULL(p);
  /* stopped after a few batches: the producer's claim returns NULL */
  ASSERT_OK(dl_pipe_new(BATCH_INTS * sizeof(int64_t), 3, &p));
  prod_state e = {.batches = 1000000};
  ASSERT(dl_pipe_start_producer(p, producer, &e));
  for (int i = 0; i < 5; i++) {
    ASSERT_NOT_NULL(dl_pipe_take(p, &n));
    dl_pipe_release(p);
  }
  dl_pipe_free(&p); /* stops and joins */
  ASSERT_EQ(e.null_claim, 1);
  ASSERT(e.claimed < 1000000);
  return 0;
}

/* A consumer thread; the caller claims, publishes and drains. */
static int test_consumer_thread(void) {
  dl_pipe *p = NULL;
  cons_state c = {.fail_at = -1};
  ASSERT_OK(dl_pipe_new(BATCH_INTS * sizeof(int64_t), 4, &p));
  dl_pipe_start_consumer(p, consumer, &c);
  int64_t v = 0;
  for (int b = 0; b < 3000; b++) {
    int64_t *x = dl_pipe_claim(p);
    ASSERT_NOT_NULL(x);
    x[0] = v++;
    ASSERT_OK(dl_pipe_publish(p, 1));
    if (b == 1000) { /* a drain: everything published is consumed */
      ASSERT_OK(dl_pipe_drain(p));
      ASSERT_EQ(c.calls, 1001);
    }
  }
  ASSERT_OK(dl_pipe_drain(p));
  ASSERT_EQ(c.calls, 3000);
  ASSERT_EQ(c.bad, 0);
  ASSERT_OK(dl_pipe_join(p));
  dl_pipe_free(&p);
  /* the consumer's error: claim returns NULL, publish and drain return it */
  cons_state f = {.fail_at = 10};
  ASSERT_OK(dl_pipe_new(BATCH_INTS * sizeof(int64_t), 4, &p));
  dl_pipe_start_consumer(p, consumer, &f);
  int rc = 0, b = 0;
  for (; b < 100000 && rc == 0; b++) {
    int64_t *x = dl_pipe_claim(p);
    if (!x) break;
    x[0] = b;
    rc = dl_pipe_publish(p, 1);
  }
  ASSERT(b < 100000);
  ASSERT_EQ(dl_pipe_drain(p), DL_EIO);
  ASSERT_NULL(dl_pipe_claim(p));
  ASSERT_EQ(dl_pipe_error(p), DL_EIO);
  ASSERT_EQ(f.calls, 11);
  ASSERT_EQ(dl_pipe_join(p), DL_EIO);
  dl_pipe_free(&p);
  return 0;
}

static int test_bad_args(void) {
  dl_pipe *p = (dl_pipe *)&p;
  ASSERT_EQ(dl_pipe_new(0, 4, &p), DL_EINVAL);
  ASSERT_NULL(p);
  ASSERT_EQ(dl_pipe_new(64, 0, &p), DL_EINVAL);
  ASSERT_EQ(dl_pipe_new(SIZE_MAX / 2, 4, &p), DL_EINVAL);
  dl_pipe_free(&p); /* NULL-safe */
  dl_pipe_free(NULL);
  return 0;
}

int main(void) {
  RUN(test_run_threaded);
  RUN(test_run_sync);
  RUN(test_take);
  RUN(test_consumer_thread);
  RUN(test_bad_args);
  TEST_DONE();
}
