/*
 * dla_nsysfacts.h - Nsight Systems' rule facts (analysis/ only).
 */
#ifndef DLA_NSYSFACTS_H
#define DLA_NSYSFACTS_H

#include "dla_ctx.h"

/* Fills f's Nsight Systems fields (sync_*, pageable_*, gpu_gap*, low_util*)
 * from c's aggregated window. DL_OK or DL_ENOMEM. */
int dla__nsys_facts(const dla_ctx *c, dla_facts *f);

#endif
