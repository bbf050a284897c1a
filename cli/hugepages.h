/*
 * hugepages.h - dlprof's own memory in transparent huge pages. A run's
 * big arrays (tens of millions of records) are fresh memory, and where
 * each 4 KiB page's first write is a fault that costs microseconds (VMs
 * above all: docs/performance.md), the faults take seconds. glibc's
 * malloc advises huge pages for its mappings when its tunable
 * glibc.malloc.hugetlb=1 is set, which it reads only as the process
 * starts: dlprof sets it and executes itself again, once, at the start of
 * main. The program dlprof profiles gets the environment it was given.
 *
 * Nothing is done where the kernel gives no huge pages on advice (the
 * transparent huge page mode is not "madvise"), where GLIBC_TUNABLES
 * already names the tunable, under valgrind (its tools would not follow
 * the new process), or with DLPROF_HUGEPAGES=0. cli/ only; never prints.
 */
#ifndef DLPROF_HUGEPAGES_H
#define DLPROF_HUGEPAGES_H

#include <stddef.h>

/* The decision, from the environment's GLIBC_TUNABLES, LD_PRELOAD and
 * DLPROF_HUGEPAGES (NULL: unset) and the contents of
 * /sys/kernel/mm/transparent_hugepage/enabled (NULL: unreadable): 1 and
 * the new GLIBC_TUNABLES value in out (outlen bytes), or 0 (nothing to
 * do, or out too small). */
int dlprof_hugepages_plan(const char *tunables, const char *ld_preload, const char *opt,
                          const char *thp_mode, char *out, size_t outlen);

/* Executes dlprof again with the tunable set when the plan says so (the
 * original GLIBC_TUNABLES kept in DLPROF_GLIBC_TUNABLES); returns only
 * when it does not (nothing to do, or the exec failed: the environment is
 * as it was). */
void dlprof_hugepages_reexec(char **argv);

/* GLIBC_TUNABLES as dlprof was given it, for a program it starts. */
void dlprof_hugepages_restore_env(void);

#endif
