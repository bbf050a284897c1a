/*
 * dl_sqlbuild.h - an empty WITHOUT ROWID table of an SQLite file filled by
 * writing its b-tree's pages directly, the rows given in primary-key order:
 * the writing counterpart of dl_sqlpage.h, for the big tables of a new
 * dldb. SQLite's statement machinery costs several times the encoding of
 * the records and pages themselves.
 *
 * The rows read back exactly as SQLite's INSERT of the same values would
 * store them: each column's affinity applied (an integral REAL in an
 * INTEGER column is an integer, a REAL column's integral value is stored as
 * an integer where that is shorter), NaN as NULL, records longer than a
 * cell allows on overflow pages. The new pages go after the file's last
 * page, the tree's top into the table's root page, and the header's page
 * count and change counter are updated last, so SQLite (this connection and
 * any other) reads the table from its next transaction on.
 *
 * dl_sqlbuild_open declines (DL_ENOTFOUND: insert through SQLite instead)
 * what it does not write the same way: a transaction open on db, a WAL or
 * in-memory database, UTF-16, a schema format other than 4, a table with
 * rowid, with hidden or generated columns, CHECK constraints, triggers,
 * indexes besides its primary key, a primary key column that is not
 * INTEGER-affine or is DESC, or rows already; or an exclusive lock SQLite
 * cannot take. From open to close the build holds that lock (a "BEGIN
 * EXCLUSIVE" on db, committed by close): db must not be used meanwhile.
 *
 * A row is DL_EINVAL (and the build is abandoned: close with keep = 0)
 * when its key is not greater than the row's before, a NOT NULL column is
 * NULL, or a text or BLOB is given for a column that is not TEXT or BLOB
 * affine (SQLite would convert it). Ownership: dl_sqlbuild_open returns a
 * new build, ended by dl_sqlbuild_close; values are read during the call.
 * Never prints, never exits.
 */
#ifndef DL_SQLBUILD_H
#define DL_SQLBUILD_H

#include <sqlite3.h>

#include "dl_sqlpage.h"

typedef struct dl_sqlbuild dl_sqlbuild;

/* A build of table (of db's main database), whose rows have ncols values
 * in the order of the table's declared columns. DL_OK, DL_ENOTFOUND (see
 * above), DL_ENOMEM or DL_EIO. */
int dl_sqlbuild_open(sqlite3 *db, const char *table, int ncols, dl_sqlbuild **out);

/* Adds a row: v[0 .. ncols - 1], each value's type one of SQLITE_INTEGER
 * (i), SQLITE_FLOAT (d), SQLITE_TEXT or SQLITE_BLOB (s, n bytes) or
 * SQLITE_NULL. DL_OK, DL_EINVAL, DL_ENOMEM or DL_EIO. */
int dl_sqlbuild_row(dl_sqlbuild *b, const dl_sqlpage_val *v);

/* Rows added so far. */
int64_t dl_sqlbuild_rows(const dl_sqlbuild *b);

/* keep: writes the rest of the tree, its top into the root page and the
 * header, then commits db's exclusive transaction (DL_OK or DL_EIO);
 * keep = 0 (or a failed build): the file is cut back to its pages before
 * the build and the table stays empty. Frees *b; NULL is fine. */
int dl_sqlbuild_close(dl_sqlbuild **b, int keep);

#endif
