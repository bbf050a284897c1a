/*
 * dla_nodeid.h - the op node id phase (analysis/ only).
 */
#ifndef DLA_NODEID_H
#define DLA_NODEID_H

#include "dla_ctx.h"

/* Gives every op its node_id (malloc'd; c owns it): the upper-cased type and
 * a counter per type, over all ops in the order of their first instance. */
int dla__nodeid_assign(dla_ctx *c);

#endif
