/*
 * dldb_timeline.h - the timeline's events of one track in a time window,
 * read from view_dl_timeline_tracks and view_dl_timeline_events (ours) or,
 * in NVIDIA DLProf's files, from the same views made TEMP over its
 * read_only_* tables when the handle opens (dldb__timeline_views).
 */
#ifndef DLDB_TIMELINE_H
#define DLDB_TIMELINE_H

#include <stdint.h>

#include "dldb.h"

/* One event; name and category are borrowed, valid only inside the callback. */
typedef struct dldb_tl_event {
  int64_t start_ns;
  int64_t dur_ns;
  const char *name;
  const char *category; /* kernel, memcpy, memset, cuda_api, range, iteration */
  int64_t event_id;     /* the row id in its own table */
  int nccl;             /* 1: an NCCL kernel */
} dldb_tl_event;

/* Return 0 to go on, nonzero to stop. */
typedef int (*dldb_tl_event_fn)(void *ctx, const dldb_tl_event *e);

/* Calls fn, in start order, for every event of track track_id (a track_id
 * of view_dl_timeline_tracks) that overlaps [start_ns, end_ns): starts
 * before end_ns and ends after start_ns (an event of no length: starts in
 * the window). DL_ENOTFOUND with one line when the track does not exist
 * or the file has no timeline views. */
int dldb_timeline_events(dldb *db, int64_t track_id, int64_t start_ns, int64_t end_ns,
                         dldb_tl_event_fn fn, void *ctx, char *err, size_t errlen);

#endif
