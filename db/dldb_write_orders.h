/*
 * dldb_write_orders.h - the open aggregation's kernel orders (db/schema.sql
 * aggr_dl_kernel_dur_chunks, aggr_dl_kernel_seq_chunks,
 * aggr_dl_kernel_dseq_chunks, rows the caller gives through
 * dldb_write_durs.h and dldb_write_kgroups.h) written page by page: their
 * chunks are the largest rows of a big aggregation, which SQLite's inserts
 * would encode on the caller's thread and copy through its cache and the
 * file's (dl_sqlbuild.h writes them on a thread of its own, past the page
 * cache). Between begin and end the caller writes nothing but those rows
 * (any other row ends the page writing, and SQLite takes the rest); the
 * rows read back the same either way.
 * Ownership: nothing is kept beyond the call; the writer is borrowed.
 */
#ifndef DLDB_WRITE_ORDERS_H
#define DLDB_WRITE_ORDERS_H

#include <stddef.h>

#include "dldb_write.h"

/* Commits the rows so far and begins the page writing where the file
 * takes it (a new file, its tables empty); else SQLite goes on. DL_OK, or
 * an error with one line in err. */
int dldb_aggr_kernel_orders_begin(dldb_writer *w, char *err, size_t errlen);

/* The chunks begun written, their pages' trees put in place and committed.
 * DL_OK, or an error with one line in err. */
int dldb_aggr_kernel_orders_end(dldb_writer *w, char *err, size_t errlen);

#endif
