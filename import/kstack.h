/*
 * kstack.h - Python call stacks of a PyTorch profiler trace's ops from its
 * python_function events (PyTorch 1.13 and later, with_stack=True), which
 * replaced the ops' own "Call stack" argument: an op's stack is the chain
 * of python_function events enclosing it on its thread.
 *
 * The Kineto importer hands over each python_function event (a frame,
 * "file(line): function" or "nn.Module: Conv2d_0") and each op range it
 * wrote without a stack of its own; kstack_write then stores the stack of
 * every range that some frame encloses (dldb_write_range_stack), as the old
 * argument read: the frames' names joined by ';', innermost first. Events
 * may come in any order; times are the trace's (ns), pid and tid as stored.
 *
 * Ownership: kstack_new returns a new collector, freed by kstack_free
 * (NULL-safe). Names are copied. Used by one thread at a time. Never
 * prints, never exits.
 */
#ifndef KSTACK_H
#define KSTACK_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

typedef struct kstack kstack;

/* A new collector, or NULL when out of memory. */
kstack *kstack_new(void);
void kstack_free(kstack **s);

/* A python_function event. DL_OK or DL_ENOMEM. */
int kstack_frame(kstack *s, int64_t pid, int64_t tid, int64_t start, int64_t end,
                 const char *name);

/* An op range written as range_id, without a stack of its own. DL_OK or
 * DL_ENOMEM. */
int kstack_range(kstack *s, int64_t range_id, int64_t pid, int64_t tid, int64_t start,
                 int64_t end);

/* Writes the stacks (nothing when no frame was seen); *n receives how many
 * ranges got one. DL_OK or the writer's error. */
int kstack_write(kstack *s, dldb_writer *w, int64_t *n, char *err, size_t errlen);

#endif
