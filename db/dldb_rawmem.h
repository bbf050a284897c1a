/*
 * dldb_rawmem.h - the raw rows a new file's writer keeps in memory for the
 * scans that read them back (dldb_scan.h): NVTX ranges, CUDA API calls and
 * kernels, as the scans return them, up to a budget of bytes. Internal to
 * db/.
 *
 * The import writes every raw row through the writer, and the analysis
 * then reads them all back in one pass each: from memory, those passes
 * cost no SQLite reads. A table's rows answer a scan only while they are
 * the table, which the scan checks first (dldb_scan.c): rows kept with ids
 * one apart from the first, and the table's least and greatest rowid the
 * same. Rows written any other way (a merge's INSERT ... SELECT) or out of
 * order, or with an id of a string or a pid past 32 bits, leave the table
 * to SQLite; so does the budget, a table at a time, the largest first, so
 * that the others stay whole.
 *
 * Ownership: the writer that made it frees it (dldb__rawmem_free); a
 * reader connection (dldb_writer_reader) borrows its parent's, which no
 * longer changes. Not thread-safe: rows are added on one thread, before
 * any scan.
 */
#ifndef DLDB_RAWMEM_H
#define DLDB_RAWMEM_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_scan.h"

enum { DLDB__RAW_RANGES, DLDB__RAW_API, DLDB__RAW_KERNELS, DLDB__RAW_COUNT };

typedef struct dldb__rawmem dldb__rawmem;

/* Keeps up to budget bytes of rows; NULL without memory (nothing kept). */
dldb__rawmem *dldb__rawmem_new(size_t budget);
void dldb__rawmem_free(dldb__rawmem **m);

/* Adds a row (m may be NULL: nothing). Ranges carry their domain; an API
 * call's id is the next one after the first (the table gives them). */
void dldb__rawmem_range(dldb__rawmem *m, int64_t domain_id, const dldb_scan_range *r);
void dldb__rawmem_api(dldb__rawmem *m, const dldb_scan_api *a);
void dldb__rawmem_kernel(dldb__rawmem *m, const dldb_scan_gpu_op *k);
/* Every time kept moves by d (dldb_writer_rebase). */
void dldb__rawmem_shift(dldb__rawmem *m, int64_t d);
/* Forgets every row (the analysis has read them). */
void dldb__rawmem_drop(dldb__rawmem *m);

/* The rows of table t (DLDB__RAW_*) kept, and the ids they have (first,
 * last): 0 when there are none or they no longer answer for the table. */
size_t dldb__rawmem_rows(const dldb__rawmem *m, int t, int64_t *first, int64_t *last);

/* Calls fn on the kept rows of table t in id order (ranges: those of
 * domain_id of kinds 1 and 2, as dldb_scan_ranges reads them); fn's
 * nonzero return ends the walk and is returned. */
int dldb__rawmem_ranges(const dldb__rawmem *m, int64_t domain_id,
                        int (*fn)(void *ctx, const dldb_scan_range *r), void *ctx);
int dldb__rawmem_apis(const dldb__rawmem *m, int (*fn)(void *ctx, const dldb_scan_api *a),
                      void *ctx);
int dldb__rawmem_kernels(const dldb__rawmem *m, int (*fn)(void *ctx, const dldb_scan_gpu_op *g),
                         void *ctx);

#endif
