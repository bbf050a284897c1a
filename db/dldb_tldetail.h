/*
 * dldb_tldetail.h - one timeline event's details and links, in our files
 * (db/schema.sql view_dl_timeline_*_details, view_dl_timeline_launches):
 * every column of the event's row by category, and the CUDA call that
 * launched a kernel (with the kernel's op) or the kernels a CUDA call
 * launched, each with its track. The links go through the newest
 * aggregation's kernels (aggr_kernels): kernels outside its iterations have
 * none. Nothing is cached; each read is a few lookups by key or index.
 */
#ifndef DLDB_TLDETAIL_H
#define DLDB_TLDETAIL_H

#include <stdint.h>

#include "dldb.h"

enum { DLDB_TL_NULL, DLDB_TL_INT, DLDB_TL_REAL, DLDB_TL_TEXT };

/* One column of a details row; name and text borrowed for the callback. */
typedef struct dldb_tl_col {
  const char *name;
  int type; /* DLDB_TL_* */
  int64_t i;
  double d;
  const char *text;
} dldb_tl_col;

typedef int (*dldb_tl_col_fn)(void *ctx, const dldb_tl_col *c);

/* Calls fn for each column of the details of event event_id of category
 * (kernel, memcpy, memset, cuda_api, range, python_function). DL_ENOTFOUND with one line for
 * another category, a file without the views, or no such event. */
int dldb_timeline_detail(dldb *db, const char *category, int64_t event_id, dldb_tl_col_fn fn,
                         void *ctx, char *err, size_t errlen);

/* A linked event: role "call" (a kernel's launching CUDA call; op_* set:
 * the kernel's op, NULL when unknown), "kernel" (a call's kernel) or
 * "parent" (a Python frame's enclosing frame, outermost first).
 * Strings borrowed for the callback. */
typedef struct dldb_tl_link {
  const char *role, *category, *name;
  int64_t track_id, event_id, start_ns, dur_ns;
  int64_t iter_value; /* the kernel's iteration in the newest aggregation */
  const char *op_node_id, *op_node_name, *op_node_type;
} dldb_tl_link;

typedef int (*dldb_tl_link_fn)(void *ctx, const dldb_tl_link *l);

/* Calls fn for the links of event event_id of category (kernel, cuda_api
 * or python_function; none for the others). DL_OK when there are none. */
int dldb_timeline_links(dldb *db, const char *category, int64_t event_id, dldb_tl_link_fn fn,
                        void *ctx, char *err, size_t errlen);

#endif
