/*
 * dldb_timeline.h - the timeline's events and bins of one track in a time
 * window. Our files: read by index from the packed blocks the analysis
 * wrote (view_dl_timeline_tracks, view_dl_timeline_blocks,
 * view_dl_timeline_names; db/dldb_tlpack.h). NVIDIA DLProf's files: from
 * view_dl_timeline_tracks and view_dl_timeline_events made TEMP over their
 * read_only_* tables when the handle opens (dldb__timeline_views), a scan.
 */
#ifndef DLDB_TIMELINE_H
#define DLDB_TIMELINE_H

#include <stdint.h>

#include "dldb.h"

/* One event; name and category are borrowed, valid only inside the callback.
 * name is NULL until asked for (dldb_tl_event_name reads it then): a
 * summary of many events names few of them. */
typedef struct dldb_tl_event {
  int64_t start_ns;
  int64_t dur_ns;
  const char *name;
  const char *category; /* kernel, memcpy, memset, cuda_api, range, iteration, python_function */
  int64_t event_id;     /* the row id in its own table */
  int nccl;             /* 1: an NCCL kernel */
  int64_t name_id;      /* what dldb_tl_event_name reads when name is NULL */
  void *reader;
} dldb_tl_event;

/* e's name, read now when not yet ("" when it cannot be read). Valid only
 * inside the callback that got e. */
const char *dldb_tl_event_name(const dldb_tl_event *e);

/* Return 0 to go on, nonzero to stop. */
typedef int (*dldb_tl_event_fn)(void *ctx, const dldb_tl_event *e);

/* Calls fn, in start order, for every event of track track_id (a track_id
 * of view_dl_timeline_tracks) that overlaps [start_ns, end_ns): starts
 * before end_ns and ends after start_ns (an event of no length: starts in
 * the window). DL_ENOTFOUND with one line when the track does not exist
 * or the file has no timeline views. */
int dldb_timeline_events(dldb *db, int64_t track_id, int64_t start_ns, int64_t end_ns,
                         dldb_tl_event_fn fn, void *ctx, char *err, size_t errlen);

/* One track (a row of view_dl_timeline_tracks); has_*: 0 where the column
 * is NULL. name and kind are borrowed, valid only inside the callback. */
typedef struct dldb_tl_track_row {
  int64_t track_id, device_id, stream_id, pid, tid, event_count;
  int has_device, has_stream, has_pid, has_tid;
  const char *kind, *name;
} dldb_tl_track_row;

typedef int (*dldb_tl_track_fn)(void *ctx, const dldb_tl_track_row *t);

/* Calls fn for every track in track_id order. DL_ENOTFOUND with one line
 * when the file has no timeline views. */
int dldb_timeline_tracks(dldb *db, dldb_tl_track_fn fn, void *ctx, char *err, size_t errlen);

/* What a track offers beyond its events: bins on grids of bin_ns << 2 (l -
 * 1) ns for levels l = 1 .. levels (levels 0: none; always so in NVIDIA's
 * files). */
typedef struct dldb_tl_track {
  int64_t bin_ns;
  int levels;
} dldb_tl_track;

/* DL_ENOTFOUND with one line when the track does not exist or the file has
 * no timeline views. */
int dldb_timeline_track(dldb *db, int64_t track_id, dldb_tl_track *out, char *err, size_t errlen);

/* One bin of a level: [index x g, (index + 1) x g) with g its grid; busy:
 * the union of the track's events clipped to it (ns); count: the events
 * that start in it; the name of the one of them with the longest part
 * inside it (best ns): name, or dldb_tl_event_name(named) (both NULL when
 * none starts in it). Borrowed, valid only inside the callback. */
typedef struct dldb_tl_bin_row {
  int64_t index, busy, count, best;
  const char *name;          /* NULL: none, or not read yet (named) */
  const dldb_tl_event *named; /* the event whose name it is: dldb_tl_event_name reads it */
} dldb_tl_bin_row;

typedef int (*dldb_tl_bin_fn)(void *ctx, const dldb_tl_bin_row *b);

/* Calls fn, in index order, for the bins of level (1 .. levels) of track
 * track_id with an index in [lo, hi) that hold an event or busy time. */
int dldb_timeline_bins(dldb *db, int64_t track_id, int level, int64_t lo, int64_t hi,
                       dldb_tl_bin_fn fn, void *ctx, char *err, size_t errlen);

#endif
