/*
 * errline.h - dlprof's one-line errors on stderr, "dlprof: MESSAGE". A
 * library's message begins with the function that failed
 * ("dla_aggregate: ...", "dldb_writer_create: ..."), which tells users
 * nothing: it is left out. Owns nothing.
 */
#ifndef DLPROF_ERRLINE_H
#define DLPROF_ERRLINE_H

#include <stdarg.h>
#include <stddef.h>

/* Prints the line; returns 1 (dlprof's exit status for an error). */
int dlprof_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int dlprof_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* msg without its leading library function name (a pointer into msg). */
const char *dlprof_plain(const char *msg);

/* Rewrites err (an analysis error, which names no file) as "file: msg". */
void dlprof_name_input(char *err, size_t errlen, const char *file);

#endif
