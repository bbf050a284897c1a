/*
 * dldb_compare.h - two runs compared: a base dldb and a run dldb (ours or
 * NVIDIA DLProf 1.x's), each read only through its view_* views, for its
 * default aggregation (the newest) and default NVTX domain (dldb_info).
 *
 * The comparison is a read-only dldb handle on a small in-memory database
 * that holds these tables; query them like views, with dldb_query_rows and
 * dldb_query_count (dldb.h: view = the table's name; they have no aggr_id
 * or domain_name, so paging, sorting and filtering work as on any view).
 * Without a sort, rows come biggest change first (the absolute difference
 * of GPU time, then of calls, then by name).
 *
 *   dl_compare_kernels   kernel_name, base_calls, calls, base_gpu_time,
 *                        gpu_time (ns), status: kernels matched by name
 *                        (view_kernel_summaries summed per kernel name)
 *   dl_compare_ops       op_node_name, op_node_type, direction, base_calls,
 *                        calls, base_gpu_time, gpu_time (ns), status: ops
 *                        matched by name, type and direction (view_op_nodes)
 *   dl_compare_summary   one row: each side's iterations, mean, median and
 *                        standard deviation of iteration time, GPU and
 *                        tensor-core utilization, resource breakdown (the
 *                        base's columns start with base_), the difference
 *                        of the means with its 95 % Welch interval, the
 *                        expert findings that appeared and went away, and
 *                        notes on what differs between the runs
 *   dl_compare_iterations side ('base' or 'run'), iter_value, duration (ns):
 *                        the aggregated iterations of both
 *
 * status: 'added' (only in the run), 'removed' (only in the base), 'same'
 * (equal calls and GPU time within DLDB_COMPARE_SAME_PCT % of the base's),
 * 'changed'. A side that lacks a row counts 0 calls and 0 ns.
 *
 * Ownership: *out is a new handle, freed with dldb_close(); it holds no
 * reference to the two databases, which are attached only while it is
 * built. dldb_open_again and dldb_verify_file do not apply to it.
 */
#ifndef DLDB_COMPARE_H
#define DLDB_COMPARE_H

#include <stddef.h>

#include "dldb.h"

/* 'same': calls equal and GPU time within this many percent of the base's. */
#define DLDB_COMPARE_SAME_PCT 1.0

/* Compares two open databases (borrowed; opened from files, not
 * dldb_open_mem). names: what the summary's base_path and path say (NULL,
 * or a NULL entry: the handle's path), e.g. the trace a dldb was imported
 * from. DL_OK, or a negative DL_E* with one line in err naming the file. */
int dldb_compare_open(dldb *base, dldb *run, const char *const names[2], dldb **out, char *err,
                      size_t errlen);

/* dldb_compare_open on the files at base_path and run_path (dldb_open_ro). */
int dldb_compare_files(const char *base_path, const char *run_path, const char *const names[2],
                       dldb **out, char *err, size_t errlen);

#endif
