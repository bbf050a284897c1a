/*
 * lod.h - the timeline's level of detail: the events of one track in a
 * window, in start order, kept as they are while they fit the width (one
 * per pixel), else summed into at most width bins of equal length (busy
 * time: the union of the events clipped to the bin; count: the events that
 * start in it; name: the one covering most of it).
 */
#ifndef DLV_LOD_H
#define DLV_LOD_H

#include <stdint.h>

#include "dldb_timeline.h"
#include "json.h"

typedef struct dlv_lod_ev dlv_lod_ev;
typedef struct dlv_lod_bin dlv_lod_bin;

typedef struct dlv_lod {
  int64_t start_ns, end_ns; /* the window [start, end), end > start */
  int width;                /* pixels: at most this many events or bins */
  dlv_lod_ev *ev;           /* events mode: the events so far */
  int n_ev;
  dlv_lod_bin *bins;        /* bins mode: width bins; NULL in events mode */
  int64_t cur_start_ns, cur_end_ns; /* the busy union's open interval; equal: none */
  int oom;
} dlv_lod;

/* Starts an empty summary of [start_ns, end_ns) at width (>= 1). */
void dlv_lod_init(dlv_lod *l, int64_t start_ns, int64_t end_ns, int width);

/* A dldb_tl_event_fn: adds e (events in start order). Copies what it keeps. */
int dlv_lod_add(void *l, const dldb_tl_event *e);

/* Appends `"events":[...]` or `"bins":[...]` to b. */
void dlv_lod_json(dlv_lod *l, dlv_jbuf *b);

/* Frees what l holds. */
void dlv_lod_free(dlv_lod *l);

#endif
