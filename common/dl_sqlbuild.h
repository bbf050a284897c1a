/*
 * dl_sqlbuild.h - tables of an SQLite file filled by writing their
 * b-trees' pages directly, the rows given in key order: the writing
 * counterpart of dl_sqlpage.h, for the big tables of a new dldb. SQLite's
 * statement machinery costs several times the encoding of the records and
 * pages themselves. A WITHOUT ROWID table's rows come in primary-key
 * order; a rowid table's in the order of their INTEGER PRIMARY KEY (the
 * rowid), each row giving it, or, in a table without one, rowids 1, 2, ...
 * (after the largest the table held) in turn, as SQLite's INSERT gives
 * them (dl_sqlbuild_next_rowid: the row's, for its index entries).
 *
 * The rows read back exactly as SQLite's INSERT of the same values would
 * store them: each column's affinity applied (an integral REAL in an
 * INTEGER column is an integer, a REAL column's integral value is stored as
 * an integer where that is shorter), NaN as NULL, records longer than a
 * cell allows on overflow pages. The new pages go after the file's last
 * page, each tree's top into its table's root page, and the header's page
 * count and change counter are updated last, so SQLite (this connection and
 * any other) reads the tables from its next transaction on.
 *
 * A set builds several tables of one file at once, their rows in any
 * interleaving (each table's in its own key order). dl_sqlbuild_begin
 * declines (DL_ENOTFOUND: insert through SQLite instead) a transaction open
 * on db, a WAL or in-memory database, UTF-16, a schema format other than
 * 4, or an exclusive lock SQLite cannot take; dl_sqlbuild_add declines a
 * table with hidden or generated columns, CHECK constraints, triggers,
 * AUTOINCREMENT, an index not built in the same set (added before it;
 * a WITHOUT ROWID table's primary key is the table itself, a rowid table's
 * PRIMARY KEY of several columns, or of one not declared INTEGER, an index
 * like any other, named in PRAGMA index_list, the table's rowids given in
 * turn), a key column that is not INTEGER-affine or is DESC, a table
 * already in the set, or rows already (but a rowid table's rows that its
 * root page holds, which the build keeps, its rows going after them). An
 * index's build (dl_sqlbuild_add_index) takes
 * its records, every column of which must be an INTEGER-affine column or
 * the rowid, ascending, in the order of the whole record: the caller gives
 * one for each row of the table (a partial index's: each row that meets
 * its condition), the same rows. From begin to end the set holds that
 * lock (a "BEGIN EXCLUSIVE" on db, committed by end): db must not write
 * meanwhile (but by add), nor read the tables the set builds; the file's
 * other pages stay as they were, so reading other tables is fine.
 *
 * A row is DL_EINVAL (and the set is abandoned: end with keep = 0) when
 * its key is not greater than the row's before, a NOT NULL column is NULL,
 * or a text or BLOB is given for a column that is not TEXT or BLOB affine
 * (SQLite would convert it). After DL_EIO errno says why (the failed
 * write's: ENOSPC, EFBIG, ...). A set writes its pages on a thread of
 * its own, from its first full buffer of them to dl_sqlbuild_end.
 * Ownership: dl_sqlbuild_begin returns a new set, ended (and its builds
 * freed) by dl_sqlbuild_end; dl_sqlbuild_open returns a build in a set of
 * its own, ended by dl_sqlbuild_close. Values are read during the call.
 * Never prints, never exits.
 */
#ifndef DL_SQLBUILD_H
#define DL_SQLBUILD_H

#include <sqlite3.h>

#include "dl_sqlpage.h"

typedef struct dl_sqlbuild_set dl_sqlbuild_set;
typedef struct dl_sqlbuild dl_sqlbuild;

/* A set of builds of db's main database. DL_OK, DL_ENOTFOUND (see above)
 * or DL_ENOMEM. */
int dl_sqlbuild_begin(sqlite3 *db, dl_sqlbuild_set **out);

/* The set's pages go to the file past the page cache (O_DIRECT), where
 * its file system takes such writes: for tables the run does not read
 * again, whose pages would only fill the cache (each page of it memory
 * that is fresh, and dear, on VMs). The pages read back the same either
 * way: the kernel drops the file's cached pages of a range written so.
 * A write the file system refuses (tmpfs before Linux 6.6, blocks larger
 * than the page size) goes through the cache, and so does every write
 * after it. */
void dl_sqlbuild_uncached(dl_sqlbuild_set *s);

/* A build of table in set s, whose rows have ncols values in the order of
 * the table's declared columns. DL_OK, DL_ENOTFOUND (see above; the set
 * goes on without it) or DL_ENOMEM. */
int dl_sqlbuild_add(dl_sqlbuild_set *s, const char *table, int ncols, dl_sqlbuild **out);

/* A build of index (of a table built in s, added after it) whose records
 * have ncols values: the index's columns and then those of the table's
 * key that it lacks (as PRAGMA index_xinfo lists them). DL_OK,
 * DL_ENOTFOUND (see above) or DL_ENOMEM. */
int dl_sqlbuild_add_index(dl_sqlbuild_set *s, const char *index, int ncols, dl_sqlbuild **out);

/* keep: writes the rest of each tree, its top into its root page and the
 * header, then commits db's exclusive transaction (DL_OK; DL_EINVAL when a
 * build refused a row, or a statement of db is still stepping: SQLite
 * would keep the file's old page count; DL_EIO); keep = 0 (or a failure):
 * the file is cut back to its pages before the set and every table stays
 * as it was. Frees *s and its builds; NULL is fine. */
int dl_sqlbuild_end(dl_sqlbuild_set **s, int keep);

/* A set of one build: dl_sqlbuild_begin and dl_sqlbuild_add in one. */
int dl_sqlbuild_open(sqlite3 *db, const char *table, int ncols, dl_sqlbuild **out);

/* Adds a row: v[0 .. ncols - 1], each value's type one of SQLITE_INTEGER
 * (i), SQLITE_FLOAT (d), SQLITE_TEXT or SQLITE_BLOB (s, n bytes) or
 * SQLITE_NULL. DL_OK, DL_EINVAL, DL_ENOMEM or DL_EIO. */
int dl_sqlbuild_row(dl_sqlbuild *b, const dl_sqlpage_val *v);

/* Rows added so far. */
int64_t dl_sqlbuild_rows(const dl_sqlbuild *b);

/* A rowid table's: the rowid SQLite would give a row inserted now (one
 * more than the largest, 1 in an empty table). */
int64_t dl_sqlbuild_next_rowid(const dl_sqlbuild *b);

/* A rowid table's row so far (one added, or one its root held), column col
 * of the row with that rowid: *out as SQLite stores it (a text or BLOB
 * points into the build, valid until its next call). DL_OK, DL_ENOTFOUND
 * (no such row), DL_EINVAL (a WITHOUT ROWID table, no such column),
 * DL_ENOMEM, DL_EIO or DL_ECORRUPT. */
int dl_sqlbuild_read(dl_sqlbuild *b, int64_t rowid, int col, dl_sqlpage_val *out);

/* dl_sqlbuild_end of dl_sqlbuild_open's set (DL_EINVAL for a build of a
 * set of dl_sqlbuild_begin's). Frees *b; NULL is fine. */
int dl_sqlbuild_close(dl_sqlbuild **b, int keep);

#endif
