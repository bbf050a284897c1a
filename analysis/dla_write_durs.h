/*
 * dla_write_durs.h - the aggregation's kernel launches by GPU duration,
 * sorted in memory beside the other writers (analysis/ only; see
 * dla_write_durs.c).
 *
 * dla__durs_start reads c->k, c->a and the iteration bounds on a thread of
 * its own until dla__durs_write joins it: nothing may change them in
 * between. dla__durs_free joins (if still running) and frees; call it
 * after dla__durs_write or instead of it.
 */
#ifndef DLA_WRITE_DURS_H
#define DLA_WRITE_DURS_H

#include <pthread.h>
#include <stddef.h>

#include "dla_ctx.h"

typedef struct dla_durs {
  dla_ctx *c;
  int wanted;   /* 0: the records do not give the rows exactly; dldb_aggr_end writes them */
  int threaded; /* the thread runs (to be joined) */
  pthread_t thread;
  int rc;
  struct kdur *v; /* the sorted launches */
  size_t n;
} dla_durs;

/* Starts sorting c's aggregated launches (or notes that it cannot). */
void dla__durs_start(dla_ctx *c, dla_durs *d);
/* Waits for the sort and writes the rows inside the open aggregation
 * aggr_id. DL_OK, or an error with its line in c->err. */
int dla__durs_write(dla_durs *d, int64_t aggr_id);
void dla__durs_free(dla_durs *d);

#endif
