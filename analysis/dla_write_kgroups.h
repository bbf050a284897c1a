/*
 * dla_write_kgroups.h - the aggregation's kernel groups, launch sequence
 * and launch-order marks (db/dldb_write_kgroups.h), computed from the
 * launches gathered for the duration order (dla_write_durs.h) rather than
 * read back from the written rows (analysis/ only).
 *
 * A group is the launches of one op with one kernel (short name, device,
 * grid, block, tensor-core use). Each launch gets a provisional group
 * while its kernel and call are still in memory (dla__kgroups_of);
 * dla__kgroups_number then orders the launches, numbers the groups by
 * their first launches and writes them; dla__kgroups_write writes the
 * orders' rows.
 * Ownership: a dla_kgroups borrows the context; dla__kgroups_free frees it.
 */
#ifndef DLA_WRITE_KGROUPS_H
#define DLA_WRITE_KGROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "dla_ctx.h"
#include "dla_write_durs.h"

typedef struct dla_kgroups dla_kgroups;

/* No groups yet, c's launch configurations classed by what a group shares;
 * NULL when out of memory. */
dla_kgroups *dla__kgroups_new(const dla_ctx *c);
/* The provisional group of a launch of op with launch configuration cfg
 * (c->kcfg index), added when new; out of memory is reported by
 * dla__kgroups_write. */
uint32_t dla__kgroups_of(dla_kgroups *g, int32_t op, int32_t cfg);
/* Numbers the groups of the launches v[0..n-1] (grp set by
 * dla__kgroups_of; c->kid or c->kid0 gives the ids), *ng of them, and
 * writes them and the marks inside the open aggregation aggr_id, after
 * dldb_aggr_kernel_groups_begin. Sorts v into launch order and overwrites
 * its grp with the group's number less 1. DL_OK, or an error with its line
 * in c->err. */
int dla__kgroups_number(dla_ctx *c, dla_kgroups *g, dla_kdur *v, size_t n, int64_t aggr_id,
                        uint32_t *ng);
/* Then writes the sequence and duration orders of those launches (ks, the
 * kernels' spans: the durations of DLA_LONG): their rows alone, so that
 * they may go to the file page by page (dldb_write_orders.h). */
int dla__kgroups_write(dla_ctx *c, const dla_kdur *v, size_t n, uint32_t ng, const dla_kspan *ks,
                       int64_t aggr_id);
void dla__kgroups_free(dla_kgroups *g);

#endif
