/*
 * dlr_chrome.h - the timeline as Chrome trace JSON (dlprof
 * --export=chrome_trace; Perfetto and chrome://tracing open it): every
 * event of every track of view_dl_timeline_tracks that overlaps the window
 * (the whole profile, or iterations iter_start to iter_stop), one complete
 * ("X") event each, in µs with ns kept as 3 decimals; a process per GPU
 * (GPU streams), per host process (CPU tracks) and one for the iterations,
 * a thread per track, named by metadata ("M") events. Reads the views only
 * (db/dldb_timeline.h): NVIDIA's files too.
 *
 * Memory: the tracks' list and a 64 KiB buffer, never the events. Nothing
 * here opens files or prints. Owns nothing: db is borrowed.
 */
#ifndef DLR_CHROME_H
#define DLR_CHROME_H

#include <stdint.h>

#include "dldb.h"
#include "dlr.h"

/* Writes the trace of db to sink: iterations iter_start to iter_stop
 * (inclusive; < 0: from the first, to the last). DL_OK, or a negative DL_E*
 * with one line in err (DL_ENOTFOUND: no timeline, or no such iteration;
 * DL_EIO when the sink fails). */
int dlr_chrome_write(dldb *db, int64_t iter_start, int64_t iter_stop, dlr_sink_fn sink, void *ctx,
                     char *err, size_t errlen);

#endif
