/*
 * dla_ranksteps.h - each GPU's own iterations in a profile of several
 * processes that each mark their steps (a folder of a distributed job's
 * Kineto traces; analysis/ only, below the phases: it reads the context).
 * The profile's iteration i is the ranks' ProfilerStep#N instances merged
 * (dla_spans.c); a rank whose steps are longer drifts from the others, so
 * its steps and the merged ones part. A GPU's own iteration i is the i-th
 * step of its process (the one whose ranges launch its kernels), as
 * dla_spans.c makes one iteration of a step, over that GPU's kernels: it
 * ends at the end of the last kernel of the GPU launched inside it, or
 * where the next one starts, whichever is later.
 */
#ifndef DLA_RANKSTEPS_H
#define DLA_RANKSTEPS_H

#include "dla_ctx.h"

/* One GPU's own iterations, as c->bound and c->iter_end (niter + 1 and
 * niter entries); bound NULL: the profile's. */
typedef struct dla_steps {
  int64_t *bound, *end;
} dla_steps;

/* Fills s[g] for each of the c->ngpus GPUs: its own iterations where its
 * process's steps are, in order, those of every iteration of the profile
 * (same names) and the profile has steps of two processes or more; else
 * bound NULL. DL_OK or DL_ENOMEM. */
int dla__gpu_steps(const dla_ctx *c, dla_steps *s);

/* The iteration of own iterations s holding t (clamped to [0, niter-1]). */
int32_t dla__steps_iter_of(const dla_steps *s, int64_t niter, int64_t t);

void dla__gpu_steps_free(dla_steps *s, int n);

#endif
