/*
 * dldb_kgdurs.h - each kernel group's launches in duration order
 * (db/schema.sql aggr_dl_kernel_dseq), written by dldb_aggr_end after the
 * kernel groups (dldb_kgroups.c) from what they wrote.
 * Ownership: nothing is kept beyond the call; the writer is borrowed.
 */
#ifndef DLDB_KGDURS_H
#define DLDB_KGDURS_H

#include <stddef.h>

#include "dldb_write.h"

/* Writes the open aggregation's aggr_dl_kernel_dseq rows where the file
 * has that table and aggr_dl_kernel_seq (else nothing). DL_OK, or an error
 * with one line in err. */
int dldb__kernel_group_durs(dldb_writer *w, char *err, size_t errlen);

#endif
