/*
 * compares.h - a small cache of comparisons of two runs (dldb_compare.h),
 * so that paging, sorting and filtering a comparison does not build it
 * again.
 *
 * An entry is keyed by both files' identities (device, inode, size and
 * modification time: a replaced file is another key) and holds the
 * comparison's read-only in-memory handle and the columns of its tables.
 * At most `cap` entries are kept, the least recently used dropped first
 * (once no request holds it). A comparison is built outside the table's
 * lock; two requests for the same new pair may both build it, and the
 * second keeps the first's.
 *
 * Thread safety: one mutex guards the table; an entry's handle is used by
 * one thread at a time (dlv_compares_lock / unlock around queries).
 *
 * Ownership: dlv_compares_new returns a new cache (NULL: out of memory, and
 * every function then builds without keeping); free it with
 * dlv_compares_free(&c) once no request uses it. dlv_compares_get returns
 * a reference the caller gives back with dlv_compares_release.
 */
#ifndef DLV_COMPARES_H
#define DLV_COMPARES_H

#include <stddef.h>

#include "catalog.h"
#include "dldb.h"

#define DLV_COMPARE_TABLES 4

/* The tables of a comparison, in the order of dlv_compare_entry.cols. */
extern const char *const dlv_compare_tables[DLV_COMPARE_TABLES];

typedef struct dlv_compares dlv_compares;

/* One comparison (read-only for its holders but for the handle, which is
 * used under dlv_compares_lock). */
typedef struct dlv_compare_entry {
  dldb *db;
  dlv_viewcat cols[DLV_COMPARE_TABLES]; /* the columns of dlv_compare_tables */
  unsigned id;                          /* unique per entry: in answer cache keys */
} dlv_compare_entry;

dlv_compares *dlv_compares_new(int cap);
void dlv_compares_free(dlv_compares **c);

/* The comparison of the files at paths[0] (base) and paths[1] (run), whose
 * identities are idents[0] and idents[1], named names[0] and names[1] in
 * its summary: a cached one or a new one. DL_OK with *out referenced, or
 * an error with err set. */
int dlv_compares_get(dlv_compares *c, const char *const paths[2], const char *const idents[2],
                     const char *const names[2], dlv_compare_entry **out, char *err,
                     size_t errlen);
void dlv_compares_release(dlv_compares *c, dlv_compare_entry *e);

/* Around every query on e->db. */
void dlv_compares_lock(dlv_compare_entry *e);
void dlv_compares_unlock(dlv_compare_entry *e);

#endif
