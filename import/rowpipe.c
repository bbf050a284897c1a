/*
 * rowpipe.c - a statement's rows read on a second thread (see rowpipe.h).
 *
 * The batches are those of a dl_pipe (common/dl_pipe.h), which hands them
 * from the reading thread to the caller in order. A batch's texts live in
 * its own arena; cells keep offsets while the arena may grow, and become
 * pointers when the batch is handed over.
 */
#include "rowpipe.h"

#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dl_pipe.h"

typedef struct batch {
  rp_cell *cells;   /* RP_BATCH_ROWS * ncols */
  size_t *text_off; /* per cell: offset in text (SIZE_MAX: no text) */
  char *text;
  size_t text_used, text_cap;
  int rows;
  int end_rc; /* after the last row: 0 (more follow), SQLITE_DONE or an error */
} batch;

/* The pipe's slots are BATCH_SLOT bytes apart, so that no two batches share
 * a cache line (64 bytes; the pipe's buffer is 16-byte aligned): the
 * reading thread counts a batch's rows and text as it fills it while the
 * caller reads the batch before, and on one line each row's count would
 * move the line between the cores twice. */
#define BATCH_SLOT 128
_Static_assert(sizeof(batch) <= 64, "batch: a slot's first 64 bytes, lines of its own");

struct rowpipe {
  sqlite3_stmt *st;
  dl_sqlpage *pg; /* rowpipe_open_pages: the rows' source instead of st */
  int ncols;
  uint32_t text_cols;
  uint64_t (*hash)(const char *, size_t);
  dl_pipe *pipe; /* RP_BATCHES batches */
  int threaded;
  batch *cur;  /* the batch being read (consumer), NULL: none */
  int pos;     /* next row of cur */
  int done_rc; /* the consumer reached the end: its step code */
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

/* Stores cell i of b's next row; text (n bytes; NULL: "") for the text
 * columns. 0, or -1 out of memory. */
static int put_cell(rowpipe *p, batch *b, int i, int type, int64_t iv, double d, const char *text,
                    size_t n) {
  rp_cell *c = b->cells + (size_t)b->rows * (size_t)p->ncols + i;
  size_t *off = b->text_off + (size_t)b->rows * (size_t)p->ncols + i;
  c->type = type;
  c->i = iv;
  c->d = type == SQLITE_FLOAT ? d : 0.0;
  c->s = NULL;
  c->h = 0;
  *off = SIZE_MAX;
  if (!(p->text_cols >> i & 1u)) return 0;
  if ((*off = text_put(b, text ? text : "", text ? n : 0)) == SIZE_MAX) return -1;
  if (p->hash) { /* of the text up to its first NUL, as C strings are read */
    const char *v = b->text + *off;
    c->h = p->hash(v, strlen(v));
  }
  return 0;
}

/* Steps rows into b until it is full or the statement (or page scan)
 * ends (b->end_rc). */
static void fill(rowpipe *p, batch *b) {
  b->rows = 0;
  b->text_used = 0;
  b->end_rc = 0;
  dl_sqlpage_val v[RP_MAX_COLS];
  while (b->rows < RP_BATCH_ROWS) {
    int s = p->pg ? dl_sqlpage_next(p->pg, v) : sqlite3_step(p->st);
    if (s != SQLITE_ROW) {
      b->end_rc = s;
      return;
    }
    for (int i = 0; i < p->ncols; i++) {
      int bad;
      if (p->pg) {
        bad = put_cell(p, b, i, v[i].type, v[i].i, v[i].d, v[i].s, v[i].n);
      } else {
        /* the connection has no mutex (SQLITE_OPEN_NOMUTEX): its column
         * values may be read with sqlite3_value_*, one call fewer a cell */
        sqlite3_value *cv = sqlite3_column_value(p->st, i);
        int type = sqlite3_value_type(cv);
        const unsigned char *t = type != SQLITE_NULL && p->text_cols >> i & 1u
                                     ? sqlite3_column_text(p->st, i)
                                     : NULL;
        bad = put_cell(p, b, i, type, sqlite3_value_int64(cv),
                       type == SQLITE_FLOAT ? sqlite3_value_double(cv) : 0.0, (const char *)t,
                       t ? (size_t)sqlite3_column_bytes(p->st, i) : 0);
      }
      if (bad) {
        b->end_rc = SQLITE_NOMEM;
        return;
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

/* The reading thread: batches filled until the statement ends or the pipe
 * stops. */
static int reader(void *arg, dl_pipe *pipe) {
  rowpipe *p = arg;
  batch *b;
  while ((b = dl_pipe_claim(pipe))) {
    fill(p, b);
    seal(p, b);
    if (dl_pipe_publish(pipe, 1) != DL_OK || b->end_rc) break;
  }
  return DL_OK;
}

static void free_batches(rowpipe *p) {
  for (int i = 0; i < RP_BATCHES; i++) {
    batch *b = dl_pipe_batch(p->pipe, i);
    free(b->cells);
    free(b->text_off);
    free(b->text);
  }
}

static int open_pipe(sqlite3_stmt *st, dl_sqlpage *pg, int ncols, uint32_t text_cols,
                     uint64_t (*hash)(const char *, size_t), rowpipe **out) {
  *out = NULL;
  if (ncols < 1 || ncols > RP_MAX_COLS) return DL_EINVAL;
  rowpipe *p = calloc(1, sizeof *p);
  if (!p || dl_pipe_new(BATCH_SLOT, RP_BATCHES, &p->pipe) != DL_OK) {
    free(p);
    return DL_ENOMEM;
  }
  p->st = st;
  p->pg = pg;
  p->ncols = ncols;
  p->text_cols = text_cols;
  p->hash = hash;
  size_t n = (size_t)RP_BATCH_ROWS * (size_t)ncols;
  for (int i = 0; i < RP_BATCHES; i++) {
    batch *b = dl_pipe_batch(p->pipe, i);
    b->cells = malloc(n * sizeof *b->cells);
    b->text_off = malloc(n * sizeof *b->text_off);
    if (!b->cells || !b->text_off) {
      free_batches(p);
      dl_pipe_free(&p->pipe);
      free(p);
      return DL_ENOMEM;
    }
  }
  p->threaded = dl_pipe_start_producer(p->pipe, reader, p);
  *out = p;
  return DL_OK;
}

int rowpipe_open(sqlite3_stmt *st, uint32_t text_cols, uint64_t (*hash)(const char *, size_t),
                 rowpipe **out) {
  return open_pipe(st, NULL, sqlite3_column_count(st), text_cols, hash, out);
}

int rowpipe_open_pages(dl_sqlpage *pg, int ncols, uint32_t text_cols,
                       uint64_t (*hash)(const char *, size_t), rowpipe **out) {
  int rc = open_pipe(NULL, pg, ncols, text_cols, hash, out);
  if (rc != DL_OK) dl_sqlpage_close(&pg);
  return rc;
}

const rp_cell *rowpipe_next(rowpipe *p, int *step_rc) {
  for (;;) {
    if (p->done_rc) {
      *step_rc = p->done_rc;
      return NULL;
    }
    if (!p->cur) { /* a new batch: wait for it (or fill it here) */
      size_t n;
      if (!p->threaded) {
        p->cur = dl_pipe_batch(p->pipe, 0);
        fill(p, p->cur);
        seal(p, p->cur);
      } else if (!(p->cur = dl_pipe_take(p->pipe, &n))) {
        p->done_rc = SQLITE_MISUSE; /* the reader stopped early (never seen) */
        continue;
      }
      p->pos = 0;
    }
    batch *b = p->cur;
    if (p->pos < b->rows) return b->cells + (size_t)p->pos++ * (size_t)p->ncols;
    /* the batch is used up: its end code, or the next batch */
    p->done_rc = b->end_rc;
    p->cur = NULL;
    if (p->threaded) dl_pipe_release(p->pipe);
  }
}

const rp_cell *rowpipe_peek(const rowpipe *p, int ahead) {
  if (p->done_rc || !p->cur || p->pos == 0 || ahead <= 0) return NULL;
  const batch *b = p->cur;
  int row = p->pos - 1 + ahead;
  return row < b->rows ? b->cells + (size_t)row * (size_t)p->ncols : NULL;
}

void rowpipe_close(rowpipe **pp) {
  rowpipe *p = pp ? *pp : NULL;
  if (!p) return;
  dl_pipe_join(p->pipe); /* stops the reader: rows not taken are dropped */
  dl_sqlpage_close(&p->pg);
  free_batches(p);
  dl_pipe_free(&p->pipe);
  free(p);
  *pp = NULL;
}
