/*
 * rowpipe.h - steps a prepared statement (or reads a table's pages,
 * dl_sqlpage.h) on a second thread and hands its rows, in order, to the
 * calling thread, so that reading a foreign SQLite file (an Nsight Systems
 * export) and writing the dldb use two cores.
 *
 * Rows come in batches of RP_BATCH_ROWS; at most RP_BATCHES are in flight
 * (the reader waits when all are full). A row is an array of cells valid
 * until the next call of rowpipe_next. Text is copied only for the columns
 * named in text_cols (bit i: column i), as sqlite3_column_text gives it for
 * any non-NULL value; other columns keep their type, integer value
 * (sqlite3_column_int64) and, for REAL, double value. Without a thread
 * (pthread_create failed), rowpipe_next steps the statement (or reads the
 * pages) itself.
 *
 * The pipe borrows the statement from open to close: the caller neither
 * steps nor finalizes it meanwhile. The hand-off is common/dl_pipe.h's.
 * Owned by import/ (used by nsys.c). Never prints, never exits.
 */
#ifndef ROWPIPE_H
#define ROWPIPE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "dl_sqlpage.h"

#define RP_BATCH_ROWS 1024
#define RP_BATCHES 4
#define RP_MAX_COLS 32

typedef struct rp_cell {
  int type;      /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL */
  int64_t i;     /* sqlite3_column_int64 */
  double d;      /* sqlite3_column_double (REAL cells only) */
  const char *s; /* text columns: the text ("" for NULL); else NULL */
  uint64_t h;    /* text columns of a pipe with a hash function: hash(s), else 0 */
} rp_cell;

typedef struct rowpipe rowpipe;

/* Starts reading st's rows (at most RP_MAX_COLS columns). hash (NULL:
 * none) is applied to each text on the reading thread. Returns DL_OK,
 * DL_EINVAL (too many columns) or DL_ENOMEM. */
int rowpipe_open(sqlite3_stmt *st, uint32_t text_cols, uint64_t (*hash)(const char *, size_t),
                 rowpipe **out);

/* The same for the rows of a page scan (dl_sqlpage.h) of ncols columns, which
 * the pipe takes over (closed on failure too); *step_rc at the end is the
 * scan's code. */
int rowpipe_open_pages(dl_sqlpage *pg, int ncols, uint32_t text_cols,
                       uint64_t (*hash)(const char *, size_t), rowpipe **out);

/* The next row's cells, or NULL at the end: *step_rc is then SQLITE_DONE,
 * or the error code sqlite3_step returned (or SQLITE_NOMEM when copying a
 * text failed). */
const rp_cell *rowpipe_next(rowpipe *p, int *step_rc);

/* The cells of the row `ahead` rows (> 0) after the one rowpipe_next last
 * returned, when it is in the same batch (already read), else NULL: a
 * look ahead for prefetching; the rows are still returned in turn. */
const rp_cell *rowpipe_peek(const rowpipe *p, int ahead);

/* Stops the reader (rows not taken are dropped) and frees the pipe. */
void rowpipe_close(rowpipe **p);

#endif
