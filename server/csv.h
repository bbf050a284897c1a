/*
 * csv.h - RFC 4180 CSV of dldb rows, streamed through a caller's writer.
 *
 * Fields holding a comma, a double quote, CR or LF are quoted, with quotes
 * doubled; lines end with CRLF. TEXT values that a spreadsheet would run as
 * a formula (first character = + - @ TAB or CR) get a single quote in front
 * (OWASP's CSV injection advice); numbers are never touched, so -5 stays -5.
 * INTEGER prints exactly, REAL as the shortest text that reads back the
 * same, NULL as an empty field. Fields are encoded by common/dl_csv.h, as
 * the reports' are. Output is buffered
 * (DLV_CSV_BUF bytes) and handed to write() in pieces, so a list of any
 * length streams in constant memory. Borrows the writer and its context.
 */
#ifndef DLV_CSV_H
#define DLV_CSV_H

#include <stddef.h>

#include "dldb.h"

#define DLV_CSV_BUF 32768

/* Receives output; returns 0 to go on, non-zero when the peer went away. */
typedef int (*dlv_write_fn)(void *ctx, const char *data, size_t len);

typedef struct dlv_csv {
  dlv_write_fn write;
  void *ctx;
  int rows;        /* rows written, the header line included */
  int failed;      /* a write failed: the rest is dropped */
  size_t len;
  char buf[DLV_CSV_BUF];
} dlv_csv;

void dlv_csv_init(dlv_csv *c, dlv_write_fn write, void *ctx);

/* Appends one field (first: no comma before it). */
void dlv_csv_field(dlv_csv *c, const char *s, int first);

/* Appends one TEXT value (trace-derived, untrusted): as dlv_csv_field, with
 * a ' in front when dl_csv_formula_like (common/dl.h). */
void dlv_csv_text_field(dlv_csv *c, const char *s, int first);


/* Writes the header line: n column names. */
void dlv_csv_header(dlv_csv *c, const char *const *names, int n);

/* A dldb_row_fn (csv: a dlv_csv *): writes one row. Returns non-zero (stop)
 * once a write failed. */
int dlv_csv_row(void *csv, const dldb_row *row);

/* Writes out what is buffered. Returns 0, or -1 if any write failed. */
int dlv_csv_flush(dlv_csv *c);

/* Formats v as the shortest %.*g text that reads back exactly. */
void dlv_format_real(char *buf, size_t len, double v);

#endif
