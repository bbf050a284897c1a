/* dldb_nvtxdmatch.h - which NVTX statistics rows a name filter with ASCII
 * digits keeps, from the names' forms, digit runs and name order
 * (db/schema.sql aggr_nvtx_forms, aggr_nvtx_digits, aggr_nvtx_name_order,
 * aggr_nvtx_row_forms) without reading a name's text. Internal to db/;
 * dldb_nvtxpage.c calls it.
 *
 * The filter's form (its digit runs as one '0') is found in each form's
 * lower-cased text, at every place where it is; there its runs meet the
 * form's slots in turn, and a name matches when, at some place, each run
 * is in the name's run of its slot as the plain filter (instr of the
 * lower-cased name) has it: a run with a character of the filter on both
 * sides equals the name's run, the filter's first run ends the name's
 * run, its last run begins it, and a filter of digits only is anywhere in
 * one run. */
#ifndef DLDB_NVTXDMATCH_H
#define DLDB_NVTXDMATCH_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_read.h"

typedef struct dldb__dmatch {
  int64_t aggr_id;
  int kind;        /* 6 or 7 */
  int64_t n;       /* the kind's rows */
  const char *f;   /* the lower-cased filter (borrowed) */
  uint64_t *keep;  /* out: a bit by row_idx, n / 64 + 1 words, zeroed by the caller */
  int64_t matched; /* out: the rows kept */
} dldb__dmatch;

/* Fills m->keep and m->matched: 1 when answered, 0 when the file cannot
 * answer it (no digit runs, or they do not fit the rows: the caller reads
 * the view), or a negative DL_E*. */
int dldb__nvtx_dmatch(dldb *db, dldb__dmatch *m, char *err, size_t errlen);

#endif
