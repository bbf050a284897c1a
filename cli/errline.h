/*
 * errline.h - dlprof's one-line errors on stderr, "dlprof: MESSAGE". A
 * library's message begins with the function that failed
 * ("dla_aggregate: ...", "dldb_writer_create: ..."), which tells users
 * nothing: it is left out (dlp_plain). Owns nothing.
 */
#ifndef DLPROF_ERRLINE_H
#define DLPROF_ERRLINE_H

#include <stdarg.h>

/* Prints the line; returns 1 (dlprof's exit status for an error). */
int dlprof_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int dlprof_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
