/*
 * dldb_write_kgroups.h - the open aggregation's kernel groups, launch
 * sequence, launch-order marks and each group's duration order
 * (db/schema.sql aggr_dl_kernel_groups, aggr_dl_kernel_seq_chunks,
 * aggr_dl_kernel_marks, aggr_dl_kernel_dseq_chunks) from rows the caller computed
 * in memory, instead of the passes over its written launches that
 * dldb_aggr_end makes otherwise (dldb_kgroups.c, dldb_kgdurs.c).
 *
 * The rows are those that pass would write: groups numbered from 1 in the
 * order of their first launches (launch order: api_start_ns, then
 * iter_value, then kernel_id), each launch's place in its group (seq from
 * 0), a mark every 1024th launch. Seq rows come in key order (group,
 * seq), each group's places in turn from 0: they are stored a chunk of
 * places a row (dldb_pchunks.c), and a place out of turn is an error.
 * Ownership: nothing is kept beyond the call; the writer is borrowed.
 */
#ifndef DLDB_WRITE_KGROUPS_H
#define DLDB_WRITE_KGROUPS_H

#include <stdint.h>

#include "dldb_write.h"

/* Launches between two marks. */
#define DLDB_KGROUP_MARK_EVERY 1024

/* 1 when the file has the three tables: the caller then writes all their
 * rows of the open aggregation through the calls below (dldb_aggr_end no
 * longer does); 0 when it has not (nothing to write). */
int dldb_aggr_kernel_groups_begin(dldb_writer *w);

/* A group: its first launch's kernel_id, op and tensor-core use, and its
 * number of launches. */
int dldb_aggr_kernel_group(dldb_writer *w, int64_t aggr_id, int64_t group_id, int64_t op_idx,
                           int64_t kernel_id, int uses_tc, int64_t calls, char *err,
                           size_t errlen);
/* A launch: its group and place in it, its iteration and kernel. */
int dldb_aggr_kernel_seq(dldb_writer *w, int64_t aggr_id, int64_t group_id, int64_t seq,
                         int64_t iter_value, int64_t kernel_id, char *err, size_t errlen);
/* The mark of the launch at place (a multiple of DLDB_KGROUP_MARK_EVERY)
 * in launch order: its call's start. */
int dldb_aggr_kernel_mark(dldb_writer *w, int64_t aggr_id, int64_t place, int64_t api_start_ns,
                          char *err, size_t errlen);

/* After dldb_aggr_kernel_groups_begin: 1 when the file has
 * aggr_dl_kernel_dseq_chunks, and the caller then writes all its rows of
 * the open aggregation through dldb_aggr_kernel_dseq; 0 when it has not. */
int dldb_aggr_kernel_dseq_begin(dldb_writer *w);
/* A launch at place dseq of its group in duration order (equal durations
 * in launch order): its duration and its place seq in launch order. In
 * key order (group, dseq), as the seq rows. */
int dldb_aggr_kernel_dseq(dldb_writer *w, int64_t aggr_id, int64_t group_id, int64_t dseq,
                          int64_t gpu_dur_ns, int64_t seq, char *err, size_t errlen);

#endif
