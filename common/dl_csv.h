/*
 * dl_csv.h - the one CSV field encoder, shared by the reports (report/)
 * and the viewer's downloads (server/csv.h), which differ only in line
 * ends and in which columns are always quoted.
 *
 * A field is put in double quotes, inner quotes doubled, when the caller
 * asks for it or when it holds a comma, a double quote, CR or LF (RFC
 * 4180); else it is written bare. With guard set, text that a spreadsheet
 * would run as a formula (dl_csv_formula_like, common/dl.h) gets a ' in
 * front, inside the quotes (OWASP's CSV injection advice).
 *
 * Output goes to the caller's put(ctx, bytes, n) (n may be 0). Borrows s.
 * Never prints, never exits.
 */
#ifndef DL_CSV_H
#define DL_CSV_H

#include <stddef.h>

typedef void (*dl_csv_put_fn)(void *ctx, const char *s, size_t n);

/* Writes s as one field (no separator). */
void dl_csv_field(dl_csv_put_fn put, void *ctx, const char *s, int quote, int guard);

#endif
