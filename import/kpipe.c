/* kpipe.c - records packed into blocks that a dl_pipe hands to its
 * consumer thread (see kpipe.h). A record is its length (size_t), then its
 * bytes padded to 8. */
#include "kpipe.h"

#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dl_pipe.h"

struct kpipe {
  dl_pipe *pipe;
  kpipe_fn fn;
  void *ctx;
  unsigned char *cur; /* the block being filled (claimed), NULL: none */
  size_t used;        /* its bytes so far */
};

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* The pipe's consumer: calls fn on each record of a block, up to an error. */
static int handle(void *arg, void *block, size_t used) {
  kpipe *p = arg;
  const unsigned char *b = block;
  int rc = 0;
  for (size_t off = 0; off < used && rc == 0;) {
    size_t len;
    memcpy(&len, b + off, sizeof len);
    rc = p->fn(p->ctx, b + off + sizeof(size_t), len);
    off += sizeof(size_t) + align8(len);
  }
  return rc;
}

int kpipe_start(kpipe **pp, kpipe_fn fn, void *ctx) {
  kpipe *p = calloc(1, sizeof *p);
  if (!p || dl_pipe_new(KPIPE_BLOCK, KPIPE_BLOCKS, &p->pipe) != DL_OK) {
    free(p);
    return DL_ENOMEM;
  }
  p->fn = fn;
  p->ctx = ctx;
  dl_pipe_start_consumer(p->pipe, handle, p);
  *pp = p;
  return DL_OK;
}

/* Hands the block being filled over (if it holds anything). */
static int publish(kpipe *p) {
  if (!p->cur || !p->used) return DL_OK;
  int rc = dl_pipe_publish(p->pipe, p->used);
  p->cur = NULL;
  p->used = 0;
  return rc;
}

void *kpipe_reserve(kpipe *p, size_t len, int *rc) {
  size_t need = sizeof(size_t) + align8(len);
  if (need > KPIPE_BLOCK) {
    *rc = DL_EINVAL;
    return NULL;
  }
  if (p->cur && p->used + need > KPIPE_BLOCK && (*rc = publish(p)) != DL_OK) return NULL;
  if (!p->cur && !(p->cur = dl_pipe_claim(p->pipe))) {
    *rc = dl_pipe_error(p->pipe);
    return NULL;
  }
  memcpy(p->cur + p->used, &len, sizeof len);
  return p->cur + p->used + sizeof(size_t);
}

int kpipe_commit(kpipe *p, size_t len) {
  p->used += sizeof(size_t) + align8(len);
  return 0;
}

int kpipe_flush(kpipe *p) {
  if (!p) return 0;
  int rc = publish(p);
  return rc ? rc : dl_pipe_drain(p->pipe);
}

int kpipe_stop(kpipe **pp) {
  kpipe *p = pp ? *pp : NULL;
  if (!p) return 0;
  int rc = kpipe_flush(p);
  int jrc = dl_pipe_join(p->pipe);
  dl_pipe_free(&p->pipe);
  free(p);
  *pp = NULL;
  return rc ? rc : jrc;
}
