/*
 * json.h - pure converters from dldb rows to JSON: cJSON trees for small
 * answers, and a JSON text writer (dlv_jbuf) for lists, which writes rows
 * straight into one growing buffer (no tree, one allocation per doubling).
 *
 * Values keep their storage class: INTEGER -> a JSON integer printed
 * exactly (a raw number, so int64 survives cJSON's doubles), REAL -> a
 * number (NaN and infinities -> null), TEXT -> a string, NULL -> null.
 * Each function returns a new tree (free with cJSON_Delete) or NULL when
 * out of memory; nothing here writes to a socket.
 */
#ifndef DLV_JSON_H
#define DLV_JSON_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "dldb.h"

/* An exact integer. */
cJSON *dlv_json_int(int64_t v);

/* A number, or null for NaN and infinities. */
cJSON *dlv_json_real(double v);

/* Column i of row. */
cJSON *dlv_json_value(const dldb_row *row, int i);

/* The row as an object keyed by column name. */
cJSON *dlv_json_row(const dldb_row *row);

/* Collects rows: pass dlv_json_rows_append and a dlv_json_rows as the
 * callback of dldb_query_rows. Borrows array; failed is set (and the query
 * stopped) when out of memory. */
typedef struct dlv_json_rows {
  cJSON *array;
  int failed;
} dlv_json_rows;
int dlv_json_rows_append(void *ctx, const dldb_row *row);

/* ---- JSON text, written directly --------------------------------------- */

/* A growing text buffer. Zero-initialise; free with dlv_jbuf_free. After an
 * allocation failure every call does nothing and oom stays set. Output is
 * byte for byte what cJSON_PrintUnformatted prints for the same values:
 * strings escape ", \ and control characters (\b \f \n \r \t, others as
 * \u00XX) and pass other bytes through; integers print exactly; reals print
 * as cJSON does (%1.15g unless that reads back more than DBL_EPSILON
 * relative away, then %1.17g), NaN and infinities as null. */
typedef struct dlv_jbuf {
  char *s;
  size_t len, cap;
  int oom;
} dlv_jbuf;

void dlv_jbuf_raw(dlv_jbuf *b, const char *s, size_t n);
void dlv_jbuf_lit(dlv_jbuf *b, const char *s); /* raw, NUL-terminated */
void dlv_jbuf_str(dlv_jbuf *b, const char *s); /* a quoted, escaped string */
void dlv_jbuf_int(dlv_jbuf *b, int64_t v);
void dlv_jbuf_real(dlv_jbuf *b, double v);
/* Column i of row (as dlv_json_value would give it). */
void dlv_jbuf_value(dlv_jbuf *b, const dldb_row *row, int i);
/* The row as an object keyed by column name. */
void dlv_jbuf_row(dlv_jbuf *b, const dldb_row *row);
/* Hands the text over (NUL-terminated, *len its length; free()) and
 * empties b; NULL after an allocation failure. */
char *dlv_jbuf_take(dlv_jbuf *b, size_t *len);
void dlv_jbuf_free(dlv_jbuf *b);

/* A dldb_row_fn appending rows as a JSON array's items: pass a dlv_jbuf_rows.
 * Writes "," between rows; stops the query when out of memory. */
typedef struct dlv_jbuf_rows {
  dlv_jbuf *buf;
  int64_t n;   /* rows written */
} dlv_jbuf_rows;
int dlv_jbuf_rows_append(void *ctx, const dldb_row *row);

#endif
