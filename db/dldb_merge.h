/*
 * dldb_merge.h - dldbs written one per rank (each node imports its own
 * ranks' traces) merged into a new dldb as the processes of one profile,
 * without reading the traces again: the raw records of each are appended
 * to the writer the way the Kineto importer keeps the processes of a
 * folder of traces apart, so that the merged file aggregates as the folder
 * imported at once would.
 *
 * Ownership: every function borrows the writer and the paths.
 */
#ifndef DLDB_MERGE_H
#define DLDB_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

/* The time origin (dl_meta time_origin_ns, ns on the producer's clock) of
 * the dldb at path, which must be a dldb written by this project with raw
 * records. DL_OK, or DL_EFORMAT / DL_EIO with one line in err. */
int dldb_merge_origin(const char *path, int64_t *origin_ns, char *err, size_t errlen);

/* Appends the raw records of the dldb at src to the new file of w as its
 * index-th process (0, 1, ...): strings and domains by their text, device
 * ids as rank x 100 + local device (dl_gpu_ranks; a GPU without a rank:
 * index x 100 + its id), process and thread ids as the Kineto importer
 * maps a folder's (index << 22 | pid, index << 32 | tid), range and kernel
 * ids after those already there, times moved from src's origin to w's. The
 * first source also gives the system configuration and the import's
 * dl_meta keys. DL_OK or a negative DL_E* with one line in err. */
int dldb_merge_add(dldb_writer *w, const char *src, int index, char *err, size_t errlen);

/* After the merge: the system configuration's command line is the merge's
 * (NULL: left as the first source's). */
int dldb_merge_command(dldb_writer *w, const char *command, char *err, size_t errlen);

#endif
