/*
 * rowpipe.h - steps a prepared statement on a second thread and hands its
 * rows, in order, to the calling thread, so that reading a foreign SQLite
 * file (an Nsight Systems export) and writing the dldb use two cores.
 *
 * Rows come in batches of RP_BATCH_ROWS; at most RP_BATCHES are in flight
 * (the reader waits when all are full). A row is an array of cells valid
 * until the next call of rowpipe_next. Text is copied only for the columns
 * named in text_cols (bit i: column i), as sqlite3_column_text gives it for
 * any non-NULL value; other columns keep their type, integer value
 * (sqlite3_column_int64) and, for REAL, double value. Without a thread
 * (pthread_create failed), rowpipe_next steps the statement itself.
 *
 * The pipe borrows the statement from open to close: the caller neither
 * steps nor finalizes it meanwhile. Owned by import/ (used by nsys.c).
 * Never prints, never exits.
 */
#ifndef ROWPIPE_H
#define ROWPIPE_H

#include <sqlite3.h>
#include <stdint.h>

#define RP_BATCH_ROWS 1024
#define RP_BATCHES 4
#define RP_MAX_COLS 32

typedef struct rp_cell {
  int type;      /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL */
  int64_t i;     /* sqlite3_column_int64 */
  double d;      /* sqlite3_column_double (REAL cells only) */
  const char *s; /* text columns: the text ("" for NULL); else NULL */
} rp_cell;

typedef struct rowpipe rowpipe;

/* Starts reading st's rows (at most RP_MAX_COLS columns). Returns DL_OK,
 * DL_EINVAL (too many columns) or DL_ENOMEM. */
int rowpipe_open(sqlite3_stmt *st, uint32_t text_cols, rowpipe **out);

/* The next row's cells, or NULL at the end: *step_rc is then SQLITE_DONE,
 * or the error code sqlite3_step returned (or SQLITE_NOMEM when copying a
 * text failed). */
const rp_cell *rowpipe_next(rowpipe *p, int *step_rc);

/* Stops the reader (rows not taken are dropped) and frees the pipe. */
void rowpipe_close(rowpipe **p);

#endif
