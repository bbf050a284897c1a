/*
 * dla_write_durs.h - the aggregation's kernel launches by GPU duration
 * (aggr_dl_kernel_dur_chunks), sorted in memory and written in that order
 * (analysis/ only; see dla_write_durs.c).
 *
 * The launches are gathered where the calls were: when the kernels shrink
 * to their spans (dla_write.c), each aggregated launch (20 bytes) goes in
 * place of a call already read (20 bytes), so that sorting them
 * takes no memory beyond what the analysis holds.
 */
#ifndef DLA_WRITE_DURS_H
#define DLA_WRITE_DURS_H

#include <stddef.h>
#include <stdint.h>

#include "dla_ctx.h"
#include "dla_internal.h"

/* One aggregated launch: its call's start, its duration (DLA_LONG: in its
 * span), its kernel's index and its kernel group (dla_write_kgroups.h). */
typedef struct __attribute__((packed, aligned(4))) dla_kdur {
  int64_t start;
  uint32_t dur;
  uint32_t idx;
  uint32_t grp;
} dla_kdur;
_Static_assert(sizeof(dla_kdur) == sizeof(dla_api), "dla_kdur: one in place of each call");

/* 1 when c's records give the table's rows exactly and the launches fit
 * in place of the calls as the kernels shrink (in kernel order, no launch
 * overwrites a call that a later kernel still reads); 0: dldb_aggr_end
 * fills the table with its own sorted statement. */
int dla__durs_fit(const dla_ctx *c);

/* Sorts v[0..n-1] and writes them inside the open aggregation aggr_id; ks
 * (the kernels' spans) gives the long durations, c->kid or c->kid0 the
 * ids. DL_OK, or an error with its line in c->err. */
int dla__durs_write(dla_ctx *c, dla_kdur *v, size_t n, const dla_kspan *ks, int64_t aggr_id);

#endif
