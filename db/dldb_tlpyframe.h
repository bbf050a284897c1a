/*
 * dldb_tlpyframe.h - the enclosing frames of a Python frame on the
 * timeline (db/ internal; dldb_tldetail.c's links of a python_function
 * event). Read from the frame's python_thread track: the frames that cover
 * its start and end (a couple of ns of slack: the trace's times are µs
 * with three decimals), ordered by the trace's "Python parent id" chain
 * where it has one, else outermost first. Each is a few lookups by index.
 */
#ifndef DLDB_TLPYFRAME_H
#define DLDB_TLPYFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "dldb.h"
#include "dldb_tldetail.h"

/* Calls fn with role "parent" for each frame enclosing python_function
 * event event_id, outermost first. DL_OK when there are none (or the file
 * has no Python frames), else an error with one line in err. */
int dldb__timeline_py_parents(dldb *db, int64_t event_id, dldb_tl_link_fn fn, void *ctx,
                              char *err, size_t errlen);

#endif
