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
  int64_t grid_ns, c0, group; /* grid mode: bin i is cells [c0 + i group, c0 + (i + 1) group)
                               * of the grid of grid_ns ns, clipped; 0: bins of equal length */
  int64_t clip_lo, clip_hi;   /* dlv_lod_add_edge: the part of the window it fills */
  int64_t cell_ns;            /* dlv_lod_add_cell: the grid of the cells it gets */
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

/* Starts an empty summary of [start_ns, end_ns) in bins mode whose bins
 * are whole cells of a grid of grid_ns ns (cells c0 = floor(start / grid)
 * to floor((end - 1) / grid), grouped so that at most width bins remain):
 * each bin's busy time is then the sum of the stored cells inside it
 * (dlv_lod_add_cell: of this grid, or, in the window's first and last
 * cell, of finer ones) and of the raw events of what no whole cell covers
 * at the window's two ends (dlv_lod_add_edge). */
void dlv_lod_init_grid(dlv_lod *l, int64_t start_ns, int64_t end_ns, int64_t grid_ns, int width);

/* A dldb_tl_bin_fn: adds a whole stored cell of a grid of l->cell_ns ns
 * that lies inside the window. */
int dlv_lod_add_cell(void *l, const dldb_tl_bin_row *b);

/* Sets the part [lo, hi) of the window that dlv_lod_add_edge fills. */
void dlv_lod_clip(dlv_lod *l, int64_t lo, int64_t hi);

/* A dldb_tl_event_fn for the events that overlap the part set: adds the
 * part of e inside it, and counts e when it starts there (or, for a part
 * at the window's start, before it: the window holds it). Events in start
 * order; parts in time order. */
int dlv_lod_add_edge(void *l, const dldb_tl_event *e);

/* The events the summary counted (events and bins modes). */
int64_t dlv_lod_count(const dlv_lod *l);

/* Appends `"events":[...]` or `"bins":[...]` to b. */
void dlv_lod_json(dlv_lod *l, dlv_jbuf *b);

/* Frees what l holds. */
void dlv_lod_free(dlv_lod *l);

#endif
