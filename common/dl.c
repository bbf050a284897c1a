/* dl.c - status codes and error lines (see dl.h). */
#include "dl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

const char *dl_strerror(int rc) {
  switch (rc) {
  case DL_OK: return "ok";
  case DL_ENOMEM: return "out of memory";
  case DL_EIO: return "I/O error";
  case DL_ENOTFOUND: return "not found";
  case DL_EFORMAT: return "unrecognised format";
  case DL_EVERSION: return "unsupported version";
  case DL_ECORRUPT: return "corrupt or truncated input";
  case DL_EINVAL: return "invalid argument";
  case DL_EDB: return "database error";
  case DL_EEXIST: return "output exists";
  default: return "unknown error";
  }
}

int dl_err(char *err, size_t errlen, int rc, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    /* One line, whatever the arguments held (SQLite messages quote schema
     * text; trace names are untrusted): line breaks become spaces. */
    for (char *c = err; *c; c++)
      if (*c == '\n' || *c == '\r') *c = ' ';
  }
  return rc;
}

int dl_csv_formula_like(const char *s) {
  if (!s || !s[0] || !strchr("=+-@\t\r", s[0])) return 0;
  if (strcmp(s, "-") == 0) return 0;
  if (s[0] == '-' || s[0] == '+') { /* a plain number is not a formula */
    char *end;
    (void)strtod(s, &end);
    if (end != s && *end == '\0' && strspn(s + 1, "0123456789.eE+-") == strlen(s + 1)) return 0;
  }
  return 1;
}

const char *dl_create_reason(const char *path, int errnum) {
  if (errnum == ENOENT && path) {
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    struct stat sb;
    if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
      return "its directory does not take new files";
  }
  return strerror(errnum);
}

void dl_advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (!p || bytes < ((size_t)8 << 20)) return;
  uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + bytes) & ~(huge - 1);
  if (e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

int dl_grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap : 64;
  while (c < need) {
    if (c > SIZE_MAX / 2) return -1;
    c *= 2;
  }
  if (size && c > SIZE_MAX / size) return -1;
  void *q = realloc(*p, c * size);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}
