/*
 * dla_extcorr.h - exact op attribution from the live collector's external
 * correlation records (dldb_scan_extcorrs): each CUDA API call linked
 * to the NVTX range it was made in is attributed to that range, instead of
 * to the innermost range enclosing its start time on its thread (which
 * clock skew, or ranges that end and begin within one call, can get wrong).
 * Calls without a link keep the time-based range. Not public.
 */
#ifndef DLA_EXTCORR_H
#define DLA_EXTCORR_H

#include "dla_ctx.h"

/* The links of the domain, sorted by correlation id; *out stays NULL when
 * the dldb has none (then nothing changes). Free with dla__extcorr_free. */
typedef struct dla_links dla_links;
int dla__extcorr_load(dla_ctx *c, dla_links **out);
/* The range the call (correlation id, pid, tid) is linked to: the link of
 * its own process and thread names a loaded range; -1: no such link or
 * range (the call keeps its time-based range). c->r sorted by (tid, start,
 * end desc). */
int32_t dla__extcorr_range(const dla_ctx *c, const dla_links *l, int64_t corr, int64_t pid,
                           int64_t tid);
void dla__extcorr_free(dla_links **l);

#endif
