/*
 * dldb_batch.h - rows of one INSERT gathered and written many to a statement
 * (db/ internal): the big tables of an import and of an aggregation go
 * through a batch.
 *
 * A batch copies each row pushed (texts included) and writes the rows
 * DLDB__BATCH_ROWS to one statement (fewer where their texts pass
 * DLDB__BATCH_TEXT bytes); dldb__batch_flush writes what is left.
 * The statement is "INSERT ... SELECT ... FROM dldb_rows(?)": an eponymous
 * virtual table (dldb__batch_register makes it known to the connection)
 * yields the batch's stored rows, so no value is bound per cell
 * (bench/sqlite_insert.c measures both ways: docs/performance.md,
 * "Helpers"). Rows reach the file in the order pushed, so rowids the table
 * assigns itself follow that order; a row is in the table only once
 * flushed (a reader of the table flushes first).
 *
 * A batch made with dldb__batch_init_ids writes its first column, the
 * table's INTEGER PRIMARY KEY, as NULL where the table would choose that
 * id itself (one more than its largest, as SQLite does): an id SQLite
 * picks costs it no look-up, 15-20 % of such a row (docs/performance.md).
 * Every row of the table must then come through the batch, and after a
 * rollback dldb__batch_forget_ids must be called.
 *
 * A batch may give each row of its INSERT a template of its own
 * (dldb__batch_set_row): literals for the columns that have one value in
 * every row, and its first cells bound once per statement (as ?1, ?2, ...)
 * rather than read for each row.
 *
 * Ownership: the batch owns its statements, cells and text copies; the
 * sqlite3 handle is borrowed for each call and must be the same every time.
 * dldb__batch_free finalizes and frees (the batch can be initialized again).
 * Errors: SQLite result codes (SQLITE_OK; otherwise the handle's errmsg
 * says why). After a failed write the batch is empty: the rows it did not
 * write are dropped (the caller rolls back).
 */
#ifndef DLDB_BATCH_H
#define DLDB_BATCH_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define DLDB__BATCH_ROWS 256
/* ... or sooner, once its rows' texts pass this many bytes */
#define DLDB__BATCH_TEXT (1 << 20)

enum { DLDB__NULL = 0, DLDB__INT, DLDB__REAL, DLDB__TEXT };

typedef struct dldb__cell {
  int type; /* DLDB__* */
  int n;    /* text: bytes, < 0: up to the NUL */
  union {
    int64_t i;
    double d;
    const char *s; /* pushed: borrowed (stored: v.i is the copy's offset) */
  } v;
} dldb__cell;

#define DLDB__I(x) ((dldb__cell){.type = DLDB__INT, .v.i = (x)})
#define DLDB__R(x) ((dldb__cell){.type = DLDB__REAL, .v.d = (x)})
#define DLDB__T(x, len) ((dldb__cell){.type = DLDB__TEXT, .n = (len), .v.s = (x)})
#define DLDB__N ((dldb__cell){.type = DLDB__NULL})

typedef struct dldb__batch {
  const char *head;  /* "INSERT INTO t(a, b) VALUES ", static */
  int ncols, nrows;
  sqlite3_stmt *st;  /* INSERT ... SELECT ... FROM dldb_rows(?) */
  dldb__cell *cells; /* DLDB__BATCH_ROWS rows of ncols */
  char *text;        /* the rows' texts, each followed by a NUL */
  size_t tlen, tcap;
  const char *row_sql;  /* dldb__batch_set_row: a row's "(...)", static; NULL: "(?, ...)" */
  int shared;           /* ... and how many leading cells it binds once a statement */
  const char *id_table; /* dldb__batch_init_ids: the table, static; else NULL */
  int64_t next_id;      /* the id SQLite would choose next, 0: not read yet */
  int64_t first_id;     /* ... when the first row not yet written was pushed */
} dldb__batch;

/* Makes the batches' dldb_rows table known to db: once per connection,
 * before its first batch is written (SQLITE_OK or SQLite's error). */
int dldb__batch_register(sqlite3 *db);
/* head must stay valid (a string literal); ncols <= 64. */
void dldb__batch_init(dldb__batch *b, const char *head, int ncols);
/* The same, for a table (a name, static) whose INTEGER PRIMARY KEY is the
 * first column. */
void dldb__batch_init_ids(dldb__batch *b, const char *head, int ncols, const char *table);
/* Each row of the INSERT is row_sql (static), a parenthesised list of
 * literals and parameters: ?1 .. ?shared, the first shared cells of a row,
 * shared by every row of a statement (a row whose first cells differ from
 * the batch's is written in a statement of its own), then one plain ? for
 * each of the other ncols - shared cells, in order. Call before the first
 * push. */
void dldb__batch_set_row(dldb__batch *b, const char *row_sql, int shared);
/* The table's largest id is to be read again (a rollback dropped rows). */
void dldb__batch_forget_ids(dldb__batch *b);
/* Copies row (ncols cells); writes the batch when it is full (rows or texts). */
int dldb__batch_push(dldb__batch *b, sqlite3 *db, const dldb__cell *row);
/* Writes the rows pushed and not yet written. */
int dldb__batch_flush(dldb__batch *b, sqlite3 *db);
/* The rows pushed and not yet written, in order, each to fn (an id left
 * to the table given as the id it would get): for a caller that writes
 * them some other way and then drops them. fn's first nonzero, or 0. */
int dldb__batch_each(const dldb__batch *b, int (*fn)(void *ctx, const dldb__cell *row),
                     void *ctx);
/* Forgets the rows not yet written (a rolled-back transaction). */
static inline void dldb__batch_drop(dldb__batch *b) {
  b->nrows = 0;
  b->tlen = 0;
}
void dldb__batch_free(dldb__batch *b);

#endif
