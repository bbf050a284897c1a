/* outdir.c - creates the output folder with its parents (outdir.h). */
#include "outdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir that accepts a directory already there (made by someone else too). */
static int make_one(const char *dir) {
  struct stat sb;
  if (mkdir(dir, 0777) == 0) return 0;
  int e = errno;
  if (e == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)) return 0;
  errno = e == EEXIST ? ENOTDIR : e;
  return -1;
}

int dlprof_outdir_make(const char *path, char *err, size_t errlen) {
  char buf[PATH_MAX];
  struct stat sb;
  if (stat(path, &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) return 0;
    snprintf(err, errlen, "--output_path: %s is not a directory", path);
    return -1;
  }
  if (!*path || strlen(path) >= sizeof buf) {
    snprintf(err, errlen, "--output_path: '%s' is not a usable folder name", path);
    return -1;
  }
  snprintf(buf, sizeof buf, "%s", path);
  /* each parent in turn, then the folder itself */
  for (char *s = buf + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    int rc = make_one(buf);
    *s = '/';
    if (rc) {
      int e = errno;
      s[0] = '\0';
      snprintf(err, errlen, "--output_path: cannot create %s: %s (making %s)", buf, strerror(e),
               path);
      return -1;
    }
  }
  if (make_one(buf)) {
    snprintf(err, errlen, "--output_path: cannot create %s: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}
