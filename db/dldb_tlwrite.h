/*
 * dldb_tlwrite.h - writes the timeline's tables of a file (db/schema.sql
 * dl_timeline_tracks, dl_timeline_blocks) from its raw tables and the
 * open aggregation's iterations: the tracks with their counts and busy
 * time, each track's events packed in start order, and its bins at a few
 * resolutions (db/dldb_tlpack.h), so that the viewer reads any window by
 * index. Replaces what an earlier aggregation wrote. Holds one kind of
 * track's events in memory at a time (32 bytes an event).
 */
#ifndef DLDB_TLWRITE_H
#define DLDB_TLWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

/* Whether the file has the timeline's tables (files written before they
 * existed do not: dldb_timeline_write then writes nothing). */
int dldb_timeline_has_tables(dldb_writer *w);

/* Writes the tables inside the open aggregation aggr_id's transaction.
 * DL_OK, or an error with one line in err. */
int dldb_timeline_write(dldb_writer *w, int64_t aggr_id, char *err, size_t errlen);

#endif
