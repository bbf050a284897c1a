/*
 * hugepages.c - glibc's huge-page tunable for dlprof's own process (see
 * hugepages.h).
 */
#include "hugepages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TUNABLE "glibc.malloc.hugetlb"
#define SAVED "DLPROF_GLIBC_TUNABLES" /* "-": unset; "+VALUE": VALUE */

int dlprof_hugepages_plan(const char *tunables, const char *ld_preload, const char *opt,
                          const char *thp_mode, char *out, size_t outlen) {
  if (opt && strcmp(opt, "0") == 0) return 0;
  if (!thp_mode || !strstr(thp_mode, "[madvise]")) return 0; /* "always": already; "never" */
  if (tunables && strstr(tunables, TUNABLE)) return 0;          /* the user's choice */
  if (ld_preload && strstr(ld_preload, "vgpreload")) return 0;  /* valgrind */
  int n = tunables && *tunables ? snprintf(out, outlen, "%s:" TUNABLE "=1", tunables)
                                : snprintf(out, outlen, TUNABLE "=1");
  return n > 0 && (size_t)n < outlen;
}

void dlprof_hugepages_reexec(char **argv) {
  char mode[128] = {0};
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (f) {
    if (!fgets(mode, sizeof mode, f)) mode[0] = '\0';
    fclose(f);
  }
  const char *was = getenv("GLIBC_TUNABLES");
  char value[4096], saved[4096];
  if (!dlprof_hugepages_plan(was, getenv("LD_PRELOAD"), getenv("DLPROF_HUGEPAGES"),
                             f ? mode : NULL, value, sizeof value))
    return;
  int n = snprintf(saved, sizeof saved, "%s%s", was ? "+" : "-", was ? was : "");
  if (n < 0 || (size_t)n >= sizeof saved) return;
  if (setenv(SAVED, saved, 1) || setenv("GLIBC_TUNABLES", value, 1)) {
    dlprof_hugepages_restore_env();
    return;
  }
  /* The file itself, not /proc/self/exe: the kernel names the process
   * after the file executed, and ps, top and pkill look for "dlprof". */
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) {
    self[len] = '\0';
    execv(self, argv);
  }
  execv("/proc/self/exe", argv);
  dlprof_hugepages_restore_env(); /* no exec: on as before */
}

void dlprof_hugepages_restore_env(void) {
  const char *saved = getenv(SAVED);
  if (!saved) return;
  if (saved[0] == '+') setenv("GLIBC_TUNABLES", saved + 1, 1);
  else unsetenv("GLIBC_TUNABLES");
  unsetenv(SAVED);
}
