/*
 * fresh_pages.c - what memory costs on this machine, apart from dlprof: the
 * first write of fresh anonymous pages (each a page fault), the same in
 * transparent huge pages (MADV_HUGEPAGE) and after MADV_POPULATE_WRITE, a
 * second write of pages already touched, write() of a fresh file into the
 * page cache against writing the same range of it again, and a file
 * written past the page cache (O_DIRECT) and read back
 * through the cache (fresh pages again) and past it. A run of dlprof
 * touches its peak memory fresh and writes its dldb once, so these price
 * its system time. Each line: the step's wall time, its rate, and the CPU
 * time (user + system) the process spent in it.
 * Usage: fresh_pages MIB DIR  (a scratch file is made in DIR and removed)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double wall_at, cpu_at; /* when the step began */

static double cpu(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void step(void) {
  wall_at = now();
  cpu_at = cpu();
}

/* The step since step(): a line, and the next step begins. */
static void line(const char *what, size_t bytes) {
  double s = now() - wall_at, c = cpu() - cpu_at, pages = (double)bytes / 4096.0;
  printf("%-42s %7.3f s  %7.0f MB/s  %6.2f us a 4 KiB page  CPU %6.3f s\n", what, s,
         (double)bytes / s / 1e6, s / pages * 1e6, c);
  step();
}

static char *map(size_t n) {
  char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("fresh_pages: mmap");
    exit(1);
  }
  return p;
}

/* n bytes of fd in 1 MiB transfers from or to p (page-aligned), at offset 0. */
static int transfer(int fd, char *p, size_t n, int out) {
  const size_t chunk = 1 << 20;
  for (size_t off = 0; off < n; off += chunk) {
    ssize_t r = out ? pwrite(fd, p + off, chunk, (off_t)off) : pread(fd, p + off, chunk, (off_t)off);
    if (r != (ssize_t)chunk) return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fresh_pages MIB DIR\n");
    return 2;
  }
  size_t n = ((size_t)atol(argv[1]) << 20) & ~(((size_t)1 << 20) - 1);
  if (!n) return 2;
  char *p = map(n);
  step();
  memset(p, 1, n);
  line("anonymous, first write (faults)", n);
  memset(p, 2, n);
  line("anonymous, second write", n);
  munmap(p, n);

  /* transparent huge pages on advice (what glibc.malloc.hugetlb=1 gives
   * malloc's mappings, cli/hugepages.h): a fault a 2 MiB page */
  p = map(n + ((size_t)2 << 20));
  char *h = (char *)(((uintptr_t)p + ((uintptr_t)2 << 20) - 1) & ~(((uintptr_t)2 << 20) - 1));
  if (madvise(h, n, MADV_HUGEPAGE) == 0) {
    step();
    memset(h, 1, n);
    line("anonymous, MADV_HUGEPAGE, first write", n);
  } else {
    printf("MADV_HUGEPAGE: not supported here\n");
  }
  munmap(p, n + ((size_t)2 << 20));

  p = map(n);
  step();
  int pop = madvise(p, n, MADV_POPULATE_WRITE);
  if (pop == 0) {
    line("anonymous, MADV_POPULATE_WRITE", n);
    memset(p, 3, n);
    line("  then the first write", n);
  } else {
    memset(p, 3, n);
    printf("MADV_POPULATE_WRITE: not supported here\n");
  }

  char path[4096];
  snprintf(path, sizeof path, "%s/fresh_pages.XXXXXX", argv[2]);
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("fresh_pages: mkstemp");
    return 1;
  }
  step();
  if (transfer(fd, p, n, 1)) goto failed;
  line("file, written fresh (page cache)", n);
  if (transfer(fd, p, n, 1)) goto failed;
  line("file, the same range written again", n);
  close(fd);
  unlink(path); /* its cached pages go */

  /* past the cache: O_DIRECT, where the file system takes it */
  snprintf(path, sizeof path, "%s/fresh_pages.XXXXXX", argv[2]);
  fd = mkstemp(path);
  int dfd = fd < 0 ? -1 : open(path, O_RDWR | O_DIRECT);
  if (dfd < 0) {
    printf("O_DIRECT: not supported in %s\n", argv[2]);
  } else {
    step();
    if (transfer(dfd, p, n, 1)) goto failed;
    line("file, written past the cache (O_DIRECT)", n);
    if (transfer(fd, p, n, 0)) goto failed;
    line("  read back through the cache (fresh)", n);
    if (transfer(fd, p, n, 0)) goto failed;
    line("  read again from the cache", n);
    posix_fadvise(fd, 0, (off_t)n, POSIX_FADV_DONTNEED);
    step();
    if (transfer(dfd, p, n, 0)) goto failed;
    line("  read past the cache (O_DIRECT)", n);
    close(dfd);
  }
  if (fd >= 0) close(fd);
  unlink(path);
  munmap(p, n);
  return 0;
failed:
  perror("fresh_pages: a transfer");
  unlink(path);
  return 1;
}
