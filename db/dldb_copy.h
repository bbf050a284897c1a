/*
 * dldb_copy.h - a copy of an SQLite database (a dldb) made with SQLite's
 * online backup, for work that must not touch the original until it is
 * complete: a new aggregation is added to the copy, which is then renamed
 * over the original.
 *
 * Ownership: every argument is borrowed; the copy is a file the caller
 * owns (renames or removes it). Errors: DL_OK or a negative DL_E* with one
 * line in err naming the file; on error no copy is left behind.
 */
#ifndef DLDB_COPY_H
#define DLDB_COPY_H

#include <stddef.h>

/* Copies the database at src to a new file `<src>.tmp-XXXXXX` beside it
 * (in rollback-journal mode, with src's permission bits) and puts its path
 * in tmp (tmplen: at least strlen(src) + 12). DL_EIO when the file cannot
 * be created, opened, copied or closed. */
int dldb_copy_beside(const char *src, char *tmp, size_t tmplen, char *err, size_t errlen);

#endif
