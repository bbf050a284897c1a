/*
 * dla_tlahead.c - the timeline's tracks built on a second thread while the
 * analysis runs (dla_tlahead.h), as dla_loads.c loads the calls: a reader
 * connection (dldb_writer_reader) of the committed raw tables, its own
 * error buffer; the caller's writer commits nothing until the join.
 */
#include "dla_tlahead.h"

#include <pthread.h>
#include <stdlib.h>

#include "dla_tuning.h"

struct dla_tlahead {
  dldb_writer *reader;
  dldb_tl_built *built;
  pthread_t thread;
  int rc;
  char err[512];
};

static void *tlahead_main(void *arg) {
  dla_tlahead *a = arg;
  a->rc = dldb_timeline_build(a->reader, DLA_TL_AHEAD_BYTES, &a->built, a->err, sizeof a->err);
  dldb_writer_reader_close(&a->reader); /* its read ends here: the writer may commit */
  return NULL;
}

dla_tlahead *dla__tlahead_start(dla_ctx *c) {
  if (!dldb_timeline_has_tables(c->w)) return NULL;
  dla_tlahead *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  if (dldb_writer_reader(c->w, &a->reader, a->err, sizeof a->err) != DL_OK) {
    free(a);
    return NULL;
  }
  if (pthread_create(&a->thread, NULL, tlahead_main, a) != 0) {
    dldb_writer_reader_close(&a->reader);
    free(a);
    return NULL;
  }
  return a;
}

dldb_tl_built *dla__tlahead_finish(dla_tlahead *a) {
  if (!a) return NULL;
  pthread_join(a->thread, NULL);
  dldb_tl_built *b = a->rc == DL_OK ? a->built : NULL;
  if (!b) dldb_timeline_built_free(&a->built);
  free(a);
  return b;
}
