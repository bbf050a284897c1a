/*
 * dldb_tlgaps.h - a GPU's longest idle gaps: the stretches between two of
 * its events (kernels, memcpys, memsets on any of its streams) when none
 * runs, from the timeline's stored bins (view_dl_timeline_tracks,
 * dldb_timeline.h). The bins of all the device's streams, on a grid of a
 * DLDB_TL_GAP_CELLS-th of the profile, find the idle stretches (bins longer
 * than a cell: see device_gaps); the raw events at each one's two ends give
 * its exact start (the last end before it) and end (the next start). A gap
 * shorter than two cells of that grid may be missed; the idle time before
 * the first event and after the last is no gap. Nothing is cached.
 */
#ifndef DLDB_TLGAPS_H
#define DLDB_TLGAPS_H

#include <stdint.h>

#include "dldb.h"

#define DLDB_TL_GAP_CELLS 65536
#define DLDB_TL_GAPS_MAX 100

/* One gap: [start_ns, end_ns) on the timeline's clock, on device_id. */
typedef struct dldb_tl_gap {
  int64_t device_id, start_ns, end_ns;
} dldb_tl_gap;

/* Fills out (room for limit, 1 .. DLDB_TL_GAPS_MAX) with the longest gaps
 * of device device_id (every device's when all is nonzero; then the
 * longest of each device's gaps), longest first; *n receives how many.
 * DL_ENOTFOUND with one line when the file has no timeline views;
 * DL_ENOMEM; DL_EIO. */
int dldb_timeline_gaps(dldb *db, int all, int64_t device_id, int limit, dldb_tl_gap *out, int *n,
                       char *err, size_t errlen);

#endif
