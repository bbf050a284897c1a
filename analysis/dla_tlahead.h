/*
 * dla_tlahead.h - the timeline's tracks built ahead (dldb_timeline_build)
 * on a second thread, through a second connection, while the analysis
 * computes and writes its other rows, from loading its records until the
 * timeline's writer (analysis/ only).
 * Ownership: dla__tlahead_start returns the thread's state; the caller
 * joins it once with dla__tlahead_finish, which frees it.
 */
#ifndef DLA_TLAHEAD_H
#define DLA_TLAHEAD_H

#include "dla_ctx.h"
#include "dldb_tlwrite.h"

typedef struct dla_tlahead dla_tlahead;

/* Starts the build on c's file; NULL when it does not start (no second
 * connection or thread): the writer then builds the tracks itself. c's
 * writer may write meanwhile (what its cache cannot hold waits for the
 * build's read) but must not commit until dla__tlahead_finish. */
dla_tlahead *dla__tlahead_start(dla_ctx *c);

/* Waits for the build and frees a; its tracks (the caller's), or NULL
 * when none were built (too many for the memory budget, or a failure:
 * the writer then builds them the plain way and reports any error). */
dldb_tl_built *dla__tlahead_finish(dla_tlahead *a);

#endif
