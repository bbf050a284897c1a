/* dlp_msg.c - the pipeline's error lines (dlp.h: dlp_plain). */
#include <stdio.h>
#include <string.h>

#include "dlp_internal.h"

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

const char *dlp_plain(const char *msg) { return msg + fn_prefix(msg); }

void dlp_name_input(char *err, size_t errlen, const char *file) {
  char msg[4096];
  snprintf(msg, sizeof msg, "%s", dlp_plain(err));
  snprintf(err, errlen, "%s: %s", file, msg);
}
