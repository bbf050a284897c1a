/*
 * dl_direct.h - a file opened a second time, to be written and read past
 * the page cache (O_DIRECT): for the big outputs a run does not read
 * again, whose cached pages would only take memory. On VMs each page the
 * cache takes is fresh memory, whose first write costs several times the
 * copy itself (bench/fresh_pages.sh). Direct transfers need buffers,
 * offsets and lengths in whole DL_DIRECT_ALIGN units; a caller goes through
 * its ordinary descriptor where one fails. DL_DIRECT=0 in the environment
 * turns them off (a benchmark's baseline, the tests' other path).
 * Never prints, never exits.
 */
#ifndef DL_DIRECT_H
#define DL_DIRECT_H

#define DL_DIRECT_ALIGN 4096

/* path opened O_DIRECT with flags (O_WRONLY or O_RDWR, O_CLOEXEC added),
 * or -1: no O_DIRECT on this system or file system (tmpfs before Linux
 * 6.6), DL_DIRECT=0, no such file. */
int dl_direct_open(const char *path, int flags);

/* dl_direct_open of the file behind descriptor fd (/proc/self/fd/FD): a
 * tmpfile()'s, which has no name. */
int dl_direct_reopen(int fd, int flags);

#endif
