/*
 * errline.c - dlprof's one-line errors (errline.h).
 */
#include "errline.h"

#include <stdio.h>

#include "dlp.h"

int dlprof_verror(const char *fmt, va_list ap) {
  char line[4096];
  vsnprintf(line, sizeof line, fmt, ap);
  fprintf(stderr, "dlprof: %s\n", dlp_plain(line));
  return 1;
}

int dlprof_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dlprof_verror(fmt, ap);
  va_end(ap);
  return 1;
}
