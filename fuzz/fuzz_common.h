/*
 * fuzz_common.h - helpers shared by the libFuzzer harnesses (fuzz/).
 *
 * fuzz_tmpdir() is a private directory (on tmpfs when /dev/shm exists),
 * removed at exit; fuzz_file() writes the fuzzer's bytes to a file there
 * that the code under test opens by path (the end-to-end harnesses; the
 * others read the bytes in memory). (Not a memfd: SQLite resolves
 * /proc/self/fd/N to the memfd's name, which it then cannot open.)
 * fuzz_one_line() checks that an error message is one line.
 */
#ifndef DL_FUZZ_COMMON_H
#define DL_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz__dir[256];

static inline void fuzz__rmdir(void) {
  if (fuzz__dir[0]) rmdir(fuzz__dir); /* empty: inputs are removed, outputs aborted */
}

/* A private directory for outputs (created once; removed at exit). */
static inline const char *fuzz_tmpdir(void) {
  if (!fuzz__dir[0]) {
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(fuzz__dir, sizeof fuzz__dir, "%s/dlfuzz-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(fuzz__dir)) abort();
    atexit(fuzz__rmdir);
  }
  return fuzz__dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes data to fuzz_tmpdir()/NAME and puts its path in path; returns 0,
 * or -1 when it cannot. */
static inline int fuzz_file(const uint8_t *data, size_t size, const char *name, char *path,
                            size_t pathlen) {
  snprintf(path, pathlen, "%s/%s", fuzz_tmpdir(), name);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int bad = size && fwrite(data, 1, size, f) != size;
  bad |= fclose(f) != 0;
  return bad ? -1 : 0;
}

static inline void fuzz_unlink(const char *path) { unlink(path); }

/* Aborts (a finding) unless err is one non-empty line, as every error of
 * the libraries must be. */
static inline void fuzz_one_line(const char *err) {
  if (!err[0] || strchr(err, '\n')) {
    fprintf(stderr, "error message is not one line: [%s]\n", err);
    abort();
  }
}

#endif
