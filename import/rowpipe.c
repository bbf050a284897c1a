/*
 * rowpipe.c - a statement's rows read on a second thread (see rowpipe.h).
 *
 * Batches form a ring: the reader fills batch w % RP_BATCHES while fewer
 * than RP_BATCHES are full, the consumer drains batch r % RP_BATCHES. A
 * batch's texts live in its own arena; cells keep offsets while the arena
 * may grow, and become pointers when the batch is handed over.
 */
#include "rowpipe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"

typedef struct batch {
  rp_cell *cells;   /* RP_BATCH_ROWS * ncols */
  size_t *text_off; /* per cell: offset in text (SIZE_MAX: no text) */
  char *text;
  size_t text_used, text_cap;
  int rows;
  int end_rc; /* after the last row: 0 (more follow), SQLITE_DONE or an error */
} batch;

struct rowpipe {
  sqlite3_stmt *st;
  int ncols;
  uint32_t text_cols;
  uint64_t (*hash)(const char *, size_t);
  batch b[RP_BATCHES];
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  int threaded, stop;
  unsigned long r, w; /* batches taken / filled */
  int pos;            /* next row of batch r (consumer) */
  int done_rc;        /* the consumer reached the end: its step code */
};

/* Appends n bytes + NUL to the batch's arena; the offset, or SIZE_MAX when
 * out of memory. */
static size_t text_put(batch *b, const char *s, size_t n) {
  if (b->text_used + n + 1 > b->text_cap) {
    size_t cap = b->text_cap ? b->text_cap : 65536;
    while (b->text_used + n + 1 > cap) cap *= 2;
    char *nt = realloc(b->text, cap);
    if (!nt) return SIZE_MAX;
    b->text = nt;
    b->text_cap = cap;
  }
  size_t off = b->text_used;
  memcpy(b->text + off, s, n);
  b->text[off + n] = '\0';
  b->text_used += n + 1;
  return off;
}

/* Steps rows into b until it is full or the statement ends (b->end_rc). */
static void fill(rowpipe *p, batch *b) {
  b->rows = 0;
  b->text_used = 0;
  b->end_rc = 0;
  while (b->rows < RP_BATCH_ROWS) {
    int s = sqlite3_step(p->st);
    if (s != SQLITE_ROW) {
      b->end_rc = s;
      return;
    }
    rp_cell *c = b->cells + (size_t)b->rows * (size_t)p->ncols;
    size_t *off = b->text_off + (size_t)b->rows * (size_t)p->ncols;
    for (int i = 0; i < p->ncols; i++) {
      c[i].type = sqlite3_column_type(p->st, i);
      c[i].i = sqlite3_column_int64(p->st, i);
      c[i].d = c[i].type == SQLITE_FLOAT ? sqlite3_column_double(p->st, i) : 0.0;
      c[i].s = NULL;
      c[i].h = 0;
      off[i] = SIZE_MAX;
      if (!(p->text_cols >> i & 1u)) continue;
      const unsigned char *t = c[i].type == SQLITE_NULL ? NULL : sqlite3_column_text(p->st, i);
      size_t n = t ? (size_t)sqlite3_column_bytes(p->st, i) : 0;
      if ((off[i] = text_put(b, t ? (const char *)t : "", n)) == SIZE_MAX) {
        b->end_rc = SQLITE_NOMEM;
        return;
      }
      if (p->hash) { /* of the text up to its first NUL, as C strings are read */
        const char *v = b->text + off[i];
        c[i].h = p->hash(v, strlen(v));
      }
    }
    b->rows++;
  }
}

/* Turns the batch's text offsets into pointers (its arena no longer moves). */
static void seal(rowpipe *p, batch *b) {
  size_t n = (size_t)b->rows * (size_t)p->ncols;
  for (size_t k = 0; k < n; k++)
    if (b->text_off[k] != SIZE_MAX) b->cells[k].s = b->text + b->text_off[k];
}

static void *reader(void *arg) {
  rowpipe *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->w - p->r >= RP_BATCHES && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
    if (p->stop) break;
    batch *b = &p->b[p->w % RP_BATCHES];
    pthread_mutex_unlock(&p->mu);
    fill(p, b);
    seal(p, b);
    pthread_mutex_lock(&p->mu);
    p->w++;
    pthread_cond_broadcast(&p->cv);
    if (b->end_rc) break; /* the statement ended */
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static void free_batches(rowpipe *p) {
  for (int i = 0; i < RP_BATCHES; i++) {
    free(p->b[i].cells);
    free(p->b[i].text_off);
    free(p->b[i].text);
  }
}

int rowpipe_open(sqlite3_stmt *st, uint32_t text_cols, uint64_t (*hash)(const char *, size_t),
                 rowpipe **out) {
  *out = NULL;
  int ncols = sqlite3_column_count(st);
  if (ncols < 1 || ncols > RP_MAX_COLS) return DL_EINVAL;
  rowpipe *p = calloc(1, sizeof *p);
  if (!p) return DL_ENOMEM;
  p->st = st;
  p->ncols = ncols;
  p->text_cols = text_cols;
  p->hash = hash;
  size_t n = (size_t)RP_BATCH_ROWS * (size_t)ncols;
  for (int i = 0; i < RP_BATCHES; i++) {
    p->b[i].cells = malloc(n * sizeof *p->b[i].cells);
    p->b[i].text_off = malloc(n * sizeof *p->b[i].text_off);
    if (!p->b[i].cells || !p->b[i].text_off) {
      free_batches(p);
      free(p);
      return DL_ENOMEM;
    }
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->threaded = pthread_create(&p->thread, NULL, reader, p) == 0;
  *out = p;
  return DL_OK;
}

const rp_cell *rowpipe_next(rowpipe *p, int *step_rc) {
  if (p->done_rc) {
    *step_rc = p->done_rc;
    return NULL;
  }
  batch *b = &p->b[p->r % RP_BATCHES];
  if (p->pos == 0) { /* a new batch: wait for it (or fill it here) */
    if (p->threaded) {
      pthread_mutex_lock(&p->mu);
      while (p->w == p->r) pthread_cond_wait(&p->cv, &p->mu);
      pthread_mutex_unlock(&p->mu);
    } else {
      fill(p, b);
      seal(p, b);
    }
  }
  if (p->pos < b->rows) return b->cells + (size_t)p->pos++ * (size_t)p->ncols;
  /* the batch is used up: its end code, or the next batch */
  int end = b->end_rc;
  p->pos = 0;
  if (p->threaded) {
    pthread_mutex_lock(&p->mu);
    p->r++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
  } else {
    p->r++;
  }
  if (end) {
    p->done_rc = end;
    *step_rc = end;
    return NULL;
  }
  return rowpipe_next(p, step_rc);
}

const rp_cell *rowpipe_peek(const rowpipe *p, int ahead) {
  if (p->done_rc || p->pos == 0 || ahead <= 0) return NULL;
  const batch *b = &p->b[p->r % RP_BATCHES];
  int row = p->pos - 1 + ahead;
  return row < b->rows ? b->cells + (size_t)row * (size_t)p->ncols : NULL;
}

void rowpipe_close(rowpipe **pp) {
  rowpipe *p = pp ? *pp : NULL;
  if (!p) return;
  if (p->threaded) {
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free_batches(p);
  free(p);
  *pp = NULL;
}
