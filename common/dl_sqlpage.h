/*
 * dl_sqlpage.h - an SQLite table's rows read straight from the file's pages
 * (the table b-tree's leaves, in rowid order), for the big scans of a table
 * (an Nsight Systems export's, a dldb's raw tables): SQLite's statement
 * machinery and column calls cost several times the decoding of the
 * records themselves.
 *
 * A scan gives exactly what "SELECT c1, c2, ... FROM table [WHERE a IN
 * (...) AND b NOT IN (...)]" stepped by SQLite would, cell by cell: each
 * value's type, sqlite3_column_int64's integer, the double of a REAL, and
 * for the columns asked for, sqlite3_column_text's text. A column named
 * "rowid" is the row's rowid. It declines (dl_sqlpage_open returns
 * DL_ENOTFOUND: the caller steps SQLite) whatever it does not read the
 * same way: an in-memory or WAL database, UTF-16 text, a table without
 * rowid or with hidden or generated columns, a selected primary key or
 * column with a default, a filter on a column whose affinity is not
 * INTEGER, and a query SQLite would not answer by a plain scan of the
 * table in rowid order (an index, a sort).
 *
 * The scan holds a read transaction on db (a stepped statement) from open
 * to close, so that the file does not change under it; the caller makes
 * sure the file holds what db sees (nothing db wrote is still only in its
 * cache). db is used by no one else meanwhile. Values (texts) are valid
 * until the next dl_sqlpage_next. Ownership: dl_sqlpage_open returns a new
 * scan, freed by dl_sqlpage_close. Never prints, never exits.
 */
#ifndef DL_SQLPAGE_H
#define DL_SQLPAGE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define DL_SQLPAGE_MAX_COLS 32
#define DL_SQLPAGE_MAX_KEYS 8
#define DL_SQLPAGE_MAX_FILTERS 4

/* Rows kept: those whose column col holds (in) or does not hold (!in) one of
 * the integers keys[0 .. nkeys - 1], as SQL's IN and NOT IN (a NULL is
 * neither). */
typedef struct dl_sqlpage_filter {
  const char *col;
  int in;
  int nkeys;
  int64_t keys[DL_SQLPAGE_MAX_KEYS];
} dl_sqlpage_filter;

typedef struct dl_sqlpage_val {
  int type;      /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL */
  int64_t i;     /* as sqlite3_column_int64 */
  double d;      /* REAL values */
  const char *s; /* the text columns: as sqlite3_column_text (NULL for NULL) */
  size_t n;      /* ... its bytes */
} dl_sqlpage_val;

typedef struct dl_sqlpage dl_sqlpage;

/* SQLite's column affinity of a declared type (its rules, in their order). */
enum { DL_SQLPAGE_BLOB, DL_SQLPAGE_TEXT, DL_SQLPAGE_NUMERIC, DL_SQLPAGE_INTEGER, DL_SQLPAGE_REAL };
int dl_sqlpage_affinity(const char *type);

/* SQLite's varint at p (at most 9 bytes, none at or past end): its length,
 * 0 if it runs past end. */
int dl_sqlpage_varint(const unsigned char *p, const unsigned char *end, uint64_t *v);

/* Column col of the record rec[0 .. len - 1] (its header of serial types,
 * then the values): *out as SQLite stores it, a text or BLOB pointing into
 * rec. DL_OK or DL_ECORRUPT (a record that does not parse, or has fewer
 * than col + 1 fields). */
int dl_sqlpage_record_col(const unsigned char *rec, size_t len, int col, dl_sqlpage_val *out);
/* An SQLite file's header, read from fd: its page size, usable bytes a
 * page (the size less the reserved bytes) and pages (the file's size over
 * the page size). DL_OK, or DL_ENOTFOUND for a file this module does not
 * read: not SQLite's header, UTF-16 text, or WAL. */
int dl_sqlpage_header(int fd, uint32_t *page_size, uint32_t *usable, uint32_t *npages);
/* A scan of table's columns cols[0 .. ncols - 1] (NULL or a name the table
 * lacks: NULL values) in the rows that all nfilters filters keep,
 * answering the query st (whose plan must be a scan of the table);
 * text_cols: bit i, column i's text is wanted. DL_OK, DL_ENOTFOUND (not a
 * table read this way: step st instead) or DL_ENOMEM. */
int dl_sqlpage_open(sqlite3 *db, sqlite3_stmt *st, const char *table, const char *const *cols,
                    int ncols, uint32_t text_cols, const dl_sqlpage_filter *filters,
                    int nfilters, dl_sqlpage **out);

/* The next row's values into v[0 .. ncols - 1]: SQLITE_ROW, SQLITE_DONE at
 * the end, or SQLITE_CORRUPT (a page or record that does not parse),
 * SQLITE_IOERR or SQLITE_NOMEM. */
int dl_sqlpage_next(dl_sqlpage *p, dl_sqlpage_val *v);

/* Ends the scan and its read transaction; NULL-safe. */
void dl_sqlpage_close(dl_sqlpage **p);

#endif
