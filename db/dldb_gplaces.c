/*
 * dldb_gplaces.c - the open aggregation's Group Ops orders (db/schema.sql
 * aggr_dl_group_places): each aggr_group_ops row's place in every order a
 * page of view_group_ops can ask for, among all the rows and among its
 * parent's (aggr_dl_group_parents), from the written rows by SQL window
 * functions, so that the viewer reads any page as one range
 * (dldb_gopage.c). A few rows per group op, and group ops are few.
 * Ownership: nothing kept; the writer is borrowed.
 */
#include <stdio.h>

#include "dldb_write_internal.h"

/* view_group_ops' sortable columns (all but aggr_id and domain_name), in
 * BINARY order: the statements then append to the table's b-tree. */
static const char *const sort_cols[] = {
    "cpu_overhead_sum", "cpu_time_sum",     "gpu_idle_sum",           "gpu_time_sum",
    "level",            "num_op_instances", "num_supported_leaf_ops", "num_tc_leaf_ops",
    "row_full_id",      "row_full_name",    "row_trimmed_name",       "row_type",
};

/* The places of one order (column, direction) in one scope: tree 0, all
 * the aggregation's rows; tree 1, each parent's rows. The order is the
 * viewer's (the column, then row_full_id), row_idx last so that it is
 * total. */
static int write_order(dldb_writer *w, const char *col, int desc, int tree, char *err,
                       size_t errlen) {
  char sql[768];
  snprintf(sql, sizeof sql,
           "INSERT INTO aggr_dl_group_places(aggr_id, sort_column, sort_desc, tree, parent, "
           "place, row_idx) SELECT ?1, '%s', %d, %d, %s, row_number() OVER (%sORDER BY "
           "g.\"%s\"%s, g.row_full_id, g.row_idx) - 1, g.row_idx FROM %s WHERE g.aggr_id = ?1",
           col, desc, tree, tree ? "p.parent" : "''", tree ? "PARTITION BY p.parent " : "", col,
           desc ? " DESC" : "",
           tree ? "aggr_dl_group_parents p JOIN aggr_group_ops g ON g.aggr_id = p.aggr_id AND "
                  "g.row_idx = p.row_idx"
                : "aggr_group_ops g");
  return dldb__exec_aggr(w, sql, "group ops' orders", err, errlen);
}

int dldb__group_places(dldb_writer *w, char *err, size_t errlen) {
  if (!dldb__has_table(w, "aggr_dl_group_places") || !dldb__has_table(w, "aggr_dl_group_parents"))
    return DL_OK;
  int rc = DL_OK;
  for (size_t c = 0; rc == DL_OK && c < sizeof sort_cols / sizeof *sort_cols; c++)
    for (int desc = 0; rc == DL_OK && desc < 2; desc++)
      for (int tree = 0; rc == DL_OK && tree < 2; tree++)
        rc = write_order(w, sort_cols[c], desc, tree, err, errlen);
  return rc;
}
