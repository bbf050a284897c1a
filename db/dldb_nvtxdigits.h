/* dldb_nvtxdigits.h - the digit runs of an aggregation's NVTX names
 * (db/schema.sql aggr_nvtx_digits), so that a name filter with digits is
 * answered without reading the names' texts (dldb_nvtxdmatch.c). Internal
 * to db/.
 *
 * The names are handed over once each, in the order of the name order
 * (BINARY), with their form ids (dldb_nvtxforms.h); name h is the j-th of
 * its form. For each form and digit slot k of the form (its k-th '0'), the
 * k-th digit run of the form's names, in that order, CHUNK names a blob.
 * A kind whose rows lack some names of a form has, for that form, a bitset
 * of the names it has (bit j of the form's names).
 *
 * A run is packed in whole bytes, 4 bits a nibble, high nibble first: its
 * length (1..15; 0: the next 4 nibbles hold it, up to 65,535), then its
 * digits; an odd count ends with a 0 nibble. Leading zeros are kept. A
 * blob is a mode byte, then: mode 0 (runs), the names' runs in turn; mode 1
 * (a dictionary), the count of distinct runs less one (a byte), those runs,
 * and, when more than one, a byte a name: its run's index.
 *
 * Ownership: a dldb__digits borrows the writer; free it with
 * dldb__digits_close. */
#ifndef DLDB_NVTXDIGITS_H
#define DLDB_NVTXDIGITS_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

enum { DLDB__DIGITS_RUNS = 0, DLDB__DIGITS_DICT = 1, DLDB__DIGITS_RUN_MAX = 65535 };

/* The run packed at p (end: the blob's end): its digits into out (room for
 * DLDB__DIGITS_RUN_MAX) and their count into *len; the byte after it, or
 * NULL when it does not fit before end. */
const uint8_t *dldb__digits_unpack(const uint8_t *p, const uint8_t *end, char *out, size_t *len);

/* The byte after the run packed at p, or NULL past end. */
const uint8_t *dldb__digits_skip(const uint8_t *p, const uint8_t *end);

/* The run packed at p: its digit count into *len and the nibble its
 * digits start at into *first (digit i is dldb__digits_nibble(p, *first +
 * i)); the byte after it, or NULL when it does not fit before end. */
const uint8_t *dldb__digits_run(const uint8_t *p, const uint8_t *end, size_t *first, size_t *len);

static inline unsigned dldb__digits_nibble(const uint8_t *p, size_t k) {
  return k % 2 ? p[k / 2] & 15u : (unsigned)p[k / 2] >> 4;
}

typedef struct dldb__digits dldb__digits;

/* A new writer of aggregation aggr_id's digit runs into *out; *out is NULL
 * (and DL_OK) when the file has no aggr_nvtx_digits table. DL_ENOMEM. */
int dldb__digits_open(dldb_writer *w, int64_t aggr_id, dldb__digits **out);

/* The next name in order: text (len bytes, borrowed) of form `form`
 * (DLDB__NO_FORM: none, and no runs are kept), its digit runs (start and
 * length, nruns of them, as dldb__forms_of gives them). Its index is the
 * count of the names added before it. Touches no database: the rows are
 * kept in memory until dldb__digits_close, so names may be added on one
 * thread while the writer writes other rows on another. Running out of
 * memory or a run longer than DLDB__DIGITS_RUN_MAX leaves the aggregation
 * without runs. d may be NULL (nothing to do). */
void dldb__digits_add(dldb__digits *d, int form, const char *text, const uint32_t *runs,
                      size_t nruns);

/* Name h (an index of dldb__digits_add) is some row's of kind kk (0: kind
 * 6, 1: kind 7). */
void dldb__digits_has(dldb__digits *d, int kk, size_t h);

/* Writes the rows (keep: the runs are the aggregation's; nothing when
 * they were given up) or drops them (!keep), and frees *d. DL_OK or
 * DL_EDB. */
int dldb__digits_close(dldb__digits **d, int keep, char *err, size_t errlen);

#endif
