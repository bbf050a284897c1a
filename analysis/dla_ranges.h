/*
 * dla_ranges.h - the analysis's first phases (analysis/ only): the NVTX
 * domain, then its ranges. What they load, c owns (dla__ctx_free).
 */
#ifndef DLA_RANGES_H
#define DLA_RANGES_H

#include "dla_ctx.h"

/* Finds the domain (dla_opts.domain) into c->domain_id and readies the
 * writer for the reads that follow. DL_ENOTFOUND: no such domain. */
int dla__ranges_domain(dla_ctx *c);

/* Loads the domain's ranges into c->r and their threads into c->thr,
 * sorted by (thread id, start, outer first). */
int dla__ranges_load(dla_ctx *c);

/* Sorts c->r (c->thr's ranks set) by (thread id rank, start, outer first),
 * as dla__ranges_load does once they are read. DL_OK or DL_ENOMEM. */
int dla__ranges_sort(dla_ctx *c);

#endif
