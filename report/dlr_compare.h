/*
 * dlr_compare.h - the comparison of two runs (db/dldb_compare.h) as CSV or
 * JSON: dlprof --compare_to's dlprof_compare.csv and .json.
 *
 * CSV: sections, each a title line, a header line and rows, with a blank
 * line between sections: "Summary" (name,value: one line per column of
 * dl_compare_summary), "Kernels" (dl_compare_kernels), "Ops"
 * (dl_compare_ops) and "Iterations" (dl_compare_iterations), the headers
 * being the tables' column names, the rows in the tables' order (biggest
 * change first). Empty cells are NULL (not known). Trace-derived text that
 * a spreadsheet would run as a formula gets a ' in front.
 * JSON: {"summary": {column: value}, "kernels": [row], "ops": [row],
 * "iterations": [row]}, rows as objects keyed by column name; the
 * summary's newline-separated lists (findings_appeared, findings_gone,
 * notes) become arrays of strings; NULL is null.
 *
 * Reads the comparison handle (borrowed); output goes to sink. Never opens
 * files or prints. DL_OK, or a negative DL_E* with one line in err.
 */
#ifndef DLR_COMPARE_H
#define DLR_COMPARE_H

#include <stddef.h>

#include "dldb.h"
#include "dlr.h"

int dlr_compare_write(dldb *cmp, dlr_format fmt, dlr_sink_fn sink, void *ctx, char *err,
                      size_t errlen);

#endif
