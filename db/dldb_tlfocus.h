/*
 * dldb_tlfocus.h - where the Timeline page opens for a row of another page:
 * an op (its kernels in one iteration: from the first launch to the last
 * kernel's end, the first kernel selected), a kernel launch (from the
 * launching call's start to the kernel's end, the kernel selected), an
 * iteration (its range, its band selected) or an expert finding (the
 * evidence its rule quotes: a table of rule_id to the op, iteration or idle
 * gap it points at, view_dl_findings). Reads the views only
 * (view_dl_timeline_launches, view_dl_timeline_kernel_details,
 * view_iterations_all, ...); our files only: NVIDIA's have no launches.
 * Never prints, never exits.
 */
#ifndef DLDB_TLFOCUS_H
#define DLDB_TLFOCUS_H

#include <stdint.h>

#include "dldb.h"

typedef struct dldb_tl_focus {
  int64_t start_ns, end_ns; /* the range the row stands for, end > start */
  int64_t track_id;         /* the event to select: its track (0: none) */
  int64_t sel_start_ns;     /* and its start */
  const char *category;     /* the range's kind: kernel, iteration, gap (static) */
  int64_t event_id;         /* the selected event's id in its table (kernels) */
  char q[32];               /* names to highlight, "" none */
  char what[320];           /* what the range is, for a line on the page */
} dldb_tl_focus;

/* aggr_id 0 below: the newest aggregation. Each returns DL_OK, or
 * DL_ENOTFOUND with one line when the row has no range on the timeline. */

/* Op op_node_id in iteration iter (< 0: the first that runs a kernel of it). */
int dldb_timeline_focus_op(dldb *db, int64_t aggr_id, const char *op_node_id, int64_t iter,
                           dldb_tl_focus *f, char *err, size_t errlen);

/* The launch of a kernel named name on device_id whose call starts at
 * api_start_ns in iteration iter (a row of view_iteration_kernels). */
int dldb_timeline_focus_launch(dldb *db, int64_t aggr_id, int64_t iter, int64_t api_start_ns,
                               int64_t device_id, const char *name, dldb_tl_focus *f, char *err,
                               size_t errlen);

/* Iteration iter. */
int dldb_timeline_focus_iter(dldb *db, int64_t aggr_id, int64_t iter, dldb_tl_focus *f,
                             char *err, size_t errlen);

/* How many findings the aggregation has (view_dl_findings); 0 in a file
 * without the view. DL_OK or DL_EIO. */
int dldb_timeline_finding_count(dldb *db, int64_t aggr_id, int64_t *n, char *err, size_t errlen);

/* The nth (1 ..) finding of the aggregation, in view_expert_systems' order. */
int dldb_timeline_focus_finding(dldb *db, int64_t aggr_id, int64_t nth, dldb_tl_focus *f,
                                char *err, size_t errlen);

#endif
