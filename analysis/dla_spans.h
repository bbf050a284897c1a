/*
 * dla_spans.h - iterations from key-op spans (analysis/ only).
 */
#ifndef DLA_SPANS_H
#define DLA_SPANS_H

#include "dla_ctx.h"

/* Sets c->bound, c->iter_end, c->niter, c->iter_name (owned by c) and c->key_op_found
 * from the key op's spans, which op building marked (DLA_TEXT_STEP), over
 * the profile [pstart, pend]. */
int dla__split_spans(dla_ctx *c, int64_t pstart, int64_t pend);

#endif
