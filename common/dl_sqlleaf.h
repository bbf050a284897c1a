/*
 * dl_sqlleaf.h - a rowid table's rows found by rowid straight in the file's
 * leaf pages, through a directory of the leaves (each one's page and its
 * range of rowids) read once from the table's interior pages: for reading
 * rows at random from a table no one changes any more (a new dldb's
 * strings, whose texts the analysis reads by id) without a statement step
 * per row.
 *
 * The directory leaves out the table's last leaf, the only one that rows
 * appended later (larger rowids, through SQLite) change; every other leaf
 * keeps its rows for as long as no row of the table is deleted or updated
 * and the file is not vacuumed, which the caller promises. Each leaf read
 * is checked against the directory (a table leaf whose first and last
 * rowids are those of its range, in order), so a leaf that changed all the
 * same is an error, not rows missed or mistaken. dl_sqlleaf_open reads the
 * tree as the file holds
 * it: the caller makes sure that is what db sees (nothing db wrote is
 * still only in its cache). Records on overflow pages are not read here
 * (the reader stops before them: the caller asks SQLite).
 *
 * Ownership: dl_sqlleaf_open returns a new directory with its own file
 * descriptor and page buffer, freed by dl_sqlleaf_close; one thread at a
 * time. Never prints, never exits.
 */
#ifndef DL_SQLLEAF_H
#define DL_SQLLEAF_H

#include <sqlite3.h>
#include <stdint.h>

#include "dl_sqlpage.h"

typedef struct dl_sqlleaf dl_sqlleaf;

/* The directory of table's leaves in db's main file. DL_OK, DL_ENOTFOUND
 * (no such rowid table, no leaf but the last, an in-memory or WAL
 * database, UTF-16), DL_ECORRUPT (a tree that does not parse) or
 * DL_ENOMEM. */
int dl_sqlleaf_open(sqlite3 *db, const char *table, dl_sqlleaf **out);

/* The largest rowid the directory answers for: its last leaf's bound. */
int64_t dl_sqlleaf_last(const dl_sqlleaf *l);

/* Column col of the rows whose rowids are from `from` to `to`, in rowid
 * order: fn(ctx, rowid, &v) for each (v's text or BLOB points into the
 * page, valid during the call). The read ends at to, at the directory's
 * end, before a row whose record is on overflow pages, or before a row for
 * which fn returns nonzero; *upto is then the last rowid it answered for:
 * each rowid from `from` to *upto that fn was not given has no row (*upto <
 * from: none answered). DL_OK, DL_ECORRUPT (a leaf that is not what the
 * directory says, a record that does not parse) or DL_EIO. */
int dl_sqlleaf_rows(dl_sqlleaf *l, int64_t from, int64_t to, int col,
                    int (*fn)(void *ctx, int64_t rowid, const dl_sqlpage_val *v), void *ctx,
                    int64_t *upto);

/* NULL-safe. */
void dl_sqlleaf_close(dl_sqlleaf **l);

#endif
