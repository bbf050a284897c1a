/*
 * dla_write.h - the write phase (analysis/ only): the aggregation's rows.
 */
#ifndef DLA_WRITE_H
#define DLA_WRITE_H

#include "dla_accum.h"
#include "dla_ctx.h"
#include "dla_rules.h"

/* Writes the aggregation in one transaction from c, s, f and the findings
 * fd[0..nfd-1] (borrowed); *aggr_id_out (may be NULL) receives its id.
 * Frees c->k and c->a once their rows are written (the NVTX statistics
 * come last). On an error, nothing of the aggregation is kept. */
int dla__write(dla_ctx *c, const dla_accum *s, const dla_facts *f, const dla_finding *fd,
               size_t nfd, int64_t *aggr_id_out);

#endif
