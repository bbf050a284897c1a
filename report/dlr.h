/*
 * dlr.h - DLProf's reports (CSV and JSON), built only from a dldb's views.
 *
 * Used by dlprofviewer (downloads) and by dlprof (files). Because the reports
 * read only view_* views, they work on databases of ours and of NVIDIA DLProf
 * 1.x alike. Report names are DLProf's --reports names; file names, section
 * titles, CSV headers, quoting and number formats are DLProf 1.8's (the
 * dlprof_<name>.csv files beside the dldbs in ../shared/traces/dlprof).
 * A column no 1.8 view carries is read from our superset view view_dl_<view>
 * when the database has one, else left empty (docs/compat.md lists them).
 *
 * CSV: as DLProf writes it. An empty cell means "not known"; a known empty
 * string in an always-quoted column prints as "".
 * JSON: one object per report, {"report", "aggr_id", "domain", "title",
 * "rows": [{<CSV header>: value}]}; the summary has "sections": [{"title",
 * "rows"}] instead (key/value blocks: {"name", "value"}; tables: the first
 * column is "name"). Numbers are JSON numbers (averages and percentages
 * unrounded), yes/no are booleans, unknown cells null.
 *
 * Output streams to a caller's sink through a 64 KiB buffer; memory is
 * O(ops of the aggregation), never O(kernel launches). Nothing here opens
 * files or prints. Errors: DL_OK or a negative DL_E*, with one line in err.
 */
#ifndef DLR_H
#define DLR_H

#include <stddef.h>
#include <stdint.h>

#include "dldb.h"

typedef enum dlr_format { DLR_CSV = 0, DLR_JSON = 1 } dlr_format;

/* Number of reports, and their names in DLProf's order: "summary", "detail",
 * "iteration", "kernel", "tensor", "op_type", "group_node", "expert_systems". */
int dlr_report_count(void);
const char *dlr_report_name(int i);

/* DLProf's file name for report `name` in `fmt`, e.g. "dlprof_detailed.csv",
 * or NULL for an unknown name. Static storage. */
const char *dlr_report_file(const char *name, dlr_format fmt);

/* Receives output; returns 0 to go on, non-zero to abort (dlr_write then
 * returns DL_EIO). */
typedef int (*dlr_sink_fn)(void *ctx, const char *buf, size_t len);

/* Writes report `name` for aggregation aggr_id (< 0: all) and NVTX domain
 * `domain` (NULL: all) of db to sink. DL_ENOTFOUND for an unknown report
 * name, aggregation or domain; DL_EIO when the sink fails; what the views
 * lack is left empty (docs/compat.md). */
int dlr_write(dldb *db, const char *name, dlr_format fmt, int64_t aggr_id, const char *domain,
              dlr_sink_fn sink, void *ctx, char *err, size_t errlen);

#endif
