/*
 * verdict.h - dlprof --compare_to's short verdict: the mean iteration
 * time of both runs, the change in % with its 95 % interval, the biggest
 * changes of kernels and ops, what differs between the runs, and the
 * gate's outcome when a threshold is given. Borrows res; writes to out.
 */
#ifndef DLPROF_VERDICT_H
#define DLPROF_VERDICT_H

#include <stdio.h>

#include "dlp_compare.h"

/* threshold_pct < 0: no gate. */
void dlprof_verdict(FILE *out, const dlp_compare_result *res, double threshold_pct);

#endif
