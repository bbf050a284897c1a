/*
 * dldb_tlwrite.h - writes the timeline's tables of a file (db/schema.sql
 * dl_timeline_tracks, dl_timeline_blocks) from its raw tables and the
 * open aggregation's iterations: the tracks with their counts and busy
 * time, each track's events packed in start order, and its bins at a few
 * resolutions (db/dldb_tlpack.h), so that the viewer reads any window by
 * index. Replaces what an earlier aggregation wrote. Holds one kind of
 * track's events in memory at a time (32 bytes an event).
 *
 * The tracks of the raw tables (all but the iterations') can also be built
 * ahead, on another thread through a second connection
 * (dldb_writer_reader), while the analysis runs: they are then kept in
 * memory, packed, until dldb_timeline_write stores them.
 * Ownership: a dldb_tl_built is the caller's (dldb_timeline_built_free).
 */
#ifndef DLDB_TLWRITE_H
#define DLDB_TLWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

/* Whether the file has the timeline's tables (files written before they
 * existed do not: dldb_timeline_write then writes nothing). */
int dldb_timeline_has_tables(dldb_writer *w);

typedef struct dldb_tl_built dldb_tl_built;

/* Bytes an event is counted for in a built timeline's blocks (packed
 * events and their bins): what dldb_timeline_build's budget counts. */
#define DLDB_TL_BUILT_BYTES 16

/* Builds the tracks of r's raw tables into *out, reading through r (a
 * reader: dldb_writer_reader). *out stays NULL, and DL_OK is returned,
 * when the file has no timeline tables or the build would hold more than
 * budget bytes (its largest kind's events at 32 bytes each and
 * DLDB_TL_BUILT_BYTES an event of every kind): dldb_timeline_write then
 * builds them itself, a kind at a time. DL_OK, or an error with one line
 * in err. */
int dldb_timeline_build(dldb_writer *r, size_t budget, dldb_tl_built **out, char *err,
                        size_t errlen);
void dldb_timeline_built_free(dldb_tl_built **b);

/* Writes the tables inside the open aggregation aggr_id's transaction,
 * with the tracks of built when not NULL (built from this file's raw
 * tables, as they are now). DL_OK, or an error with one line in err. */
int dldb_timeline_write(dldb_writer *w, int64_t aggr_id, const dldb_tl_built *built, char *err,
                        size_t errlen);

#endif
