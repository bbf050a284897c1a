/* dldb_nvtxforms.h - the name forms of an aggregation's NVTX statistics
 * rows and the writers of their three tables (db/schema.sql
 * aggr_nvtx_name_order, aggr_nvtx_forms, aggr_nvtx_row_forms), shared by
 * the pass over `strings` (dldb_nvtxidx.c) and the order a caller hands
 * over (dldb_nvtxorder.c). Internal to db/.
 *
 * A name's form is the name with each run of ASCII digits as one '0'; form
 * ids are given in order of first sight, at most DLDB__FORMS_MAX of them.
 * Ownership: a dldb__forms owns its texts; free with dldb__forms_free. */
#ifndef DLDB_NVTXFORMS_H
#define DLDB_NVTXFORMS_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_nvtxidx.h"
#include "dldb_write_internal.h"

enum { DLDB__FORMS_MAX = 65535, DLDB__NO_FORM = 0xffff };

typedef struct dldb__forms {
  char **text;        /* by id, owned */
  size_t *len;
  int64_t *rows[2];   /* by id: rows of kinds 6 and 7 */
  int32_t *slot;      /* hash slots: id + 1, 0 empty */
  size_t n, cap, nslot;
  int last;           /* the id given last (when n > 0) */
  int full;           /* 1: more than DLDB__FORMS_MAX: no forms are written */
} dldb__forms;

/* The form id of text t (n bytes) in *id, added when new; DLDB__NO_FORM
 * once the forms are full. scratch holds at least n bytes; runs, unless
 * NULL, at least n + 1 values: it gets the digit runs (start and length,
 * in turn) and *nruns their count (0 when the forms are full). DL_OK or
 * DL_ENOMEM. */
int dldb__forms_of(dldb__forms *f, const char *t, size_t n, char *scratch, uint32_t *runs,
                   size_t *nruns, int *id);
void dldb__forms_free(dldb__forms *f);

/* Writes chunk `chunk` of a kind's name order: places[0..n-1] (row_idx,
 * bit 31 where the name equals the one before), n <= DLDB_NVTX_CHUNK.
 * *st is the statement, prepared on first use; finalize it after. */
int dldb__nvtx_put_order(dldb_writer *w, sqlite3_stmt **st, int64_t aggr_id, int kind,
                         int64_t chunk, const uint32_t *places, size_t n, char *err,
                         size_t errlen);

/* Writes a kind's forms (those f->rows[kk] counts rows of, kk = kind == 7)
 * and its rows' form ids (form[0..n-1], by row_idx). */
int dldb__nvtx_put_forms(dldb_writer *w, int64_t aggr_id, int kind, const dldb__forms *f,
                         const uint16_t *form, int64_t n, char *err, size_t errlen);

#endif
