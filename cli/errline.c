/*
 * errline.c - dlprof's one-line errors (errline.h).
 */
#include "errline.h"

#include <stdio.h>
#include <string.h>

/* The length of a leading "dl*_name: " (a library function's name), else 0. */
static size_t fn_prefix(const char *s) {
  static const char *const libs[] = {"dldb_", "dla_", "dli_", "dlr_", "dl_"};
  for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
    size_t n = strlen(libs[i]);
    if (strncmp(s, libs[i], n) != 0) continue;
    n += strspn(s + n, "abcdefghijklmnopqrstuvwxyz0123456789_");
    return s[n] == ':' && s[n + 1] == ' ' ? n + 2 : 0;
  }
  return 0;
}

const char *dlprof_plain(const char *msg) { return msg + fn_prefix(msg); }

int dlprof_verror(const char *fmt, va_list ap) {
  char line[4096];
  vsnprintf(line, sizeof line, fmt, ap);
  fprintf(stderr, "dlprof: %s\n", dlprof_plain(line));
  return 1;
}

int dlprof_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dlprof_verror(fmt, ap);
  va_end(ap);
  return 1;
}

void dlprof_name_input(char *err, size_t errlen, const char *file) {
  char msg[4096];
  snprintf(msg, sizeof msg, "%s", dlprof_plain(err));
  snprintf(err, errlen, "%s: %s", file, msg);
}
