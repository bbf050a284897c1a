/*
 * dl_direct.c - files opened past the page cache (see dl_direct.h).
 */
#include "dl_direct.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dl_direct_open(const char *path, int flags) {
  const char *off = getenv("DL_DIRECT");
  if (!path || (off && !strcmp(off, "0"))) return -1;
#ifdef O_DIRECT
  return open(path, flags | O_CLOEXEC | O_DIRECT);
#else
  (void)flags;
  return -1;
#endif
}

int dl_direct_reopen(int fd, int flags) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return fd < 0 ? -1 : dl_direct_open(path, flags);
}
