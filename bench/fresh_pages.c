/*
 * fresh_pages.c - what memory costs on this machine, apart from dlprof: the
 * first write of fresh anonymous pages (each a page fault), the same after
 * MADV_POPULATE_WRITE, a second write of pages already touched, and
 * write() of a fresh file into the page cache against writing the same
 * range of it again. A run of dlprof touches its peak memory fresh and
 * writes its dldb once, so these price its system time.
 * Usage: fresh_pages MIB DIR  (a scratch file is made in DIR and removed)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void line(const char *what, double s, size_t bytes) {
  double pages = (double)bytes / 4096.0;
  printf("%-40s %7.3f s  %7.0f MB/s  %6.2f us a 4 KiB page\n", what, s,
         (double)bytes / s / 1e6, s / pages * 1e6);
}

static char *map(size_t n) {
  char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("fresh_pages: mmap");
    exit(1);
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fresh_pages MIB DIR\n");
    return 2;
  }
  size_t n = (size_t)atol(argv[1]) << 20;
  if (!n) return 2;
  char *p = map(n);
  double t0 = now();
  memset(p, 1, n);
  double t1 = now();
  memset(p, 2, n);
  double t2 = now();
  line("anonymous, first write (faults)", t1 - t0, n);
  line("anonymous, second write", t2 - t1, n);
  munmap(p, n);

  p = map(n);
  t0 = now();
  int pop = madvise(p, n, MADV_POPULATE_WRITE);
  t1 = now();
  memset(p, 3, n);
  t2 = now();
  if (pop == 0) {
    line("anonymous, MADV_POPULATE_WRITE", t1 - t0, n);
    line("  then the first write", t2 - t1, n);
  } else {
    printf("MADV_POPULATE_WRITE: not supported here\n");
  }

  char path[4096];
  snprintf(path, sizeof path, "%s/fresh_pages.XXXXXX", argv[2]);
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("fresh_pages: mkstemp");
    return 1;
  }
  unlink(path);
  const size_t chunk = 1 << 20;
  for (int pass = 0; pass < 2; pass++) {
    t0 = now();
    for (size_t off = 0; off < n; off += chunk)
      if (pwrite(fd, p + off, chunk, (off_t)off) != (ssize_t)chunk) {
        perror("fresh_pages: pwrite");
        return 1;
      }
    t1 = now();
    line(pass ? "file, the same range written again" : "file, written fresh (page cache)", t1 - t0,
         n);
  }
  close(fd);
  munmap(p, n);
  return 0;
}
