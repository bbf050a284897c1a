/*
 * dl.h - basics shared by every module: status codes and their names.
 *
 * Fallible functions return int: DL_OK (0) or a negative DL_E* code. When a
 * cause needs words, the caller passes `char *err, size_t errlen` (NULL: does
 * not care) and receives one line naming the operation and the cause.
 * Libraries never print and never exit.
 */
#ifndef DL_H
#define DL_H

#include <stddef.h>
#include <stdint.h>

enum {
  DL_OK = 0,
  DL_ENOMEM = -1,    /* out of memory */
  DL_EIO = -2,       /* a file could not be read or written */
  DL_ENOTFOUND = -3, /* a path, table, view or row does not exist */
  DL_EFORMAT = -4,   /* input is not of the expected format */
  DL_EVERSION = -5,  /* a format version we do not support */
  DL_ECORRUPT = -6,  /* input is damaged or truncated */
  DL_EINVAL = -7,    /* an invalid argument */
  DL_EDB = -8,       /* an SQLite error */
  DL_EEXIST = -9,    /* an output exists and may not be replaced */
};

/* Returns a static, human-readable name for a DL_* code. */
const char *dl_strerror(int rc);

/* Formats one line into err (if err is not NULL; line breaks in the
 * arguments become spaces) and returns rc, so that
 * callers can write `return dl_err(err, errlen, DL_EIO, "open %s: %s", ...)`. */
int dl_err(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Why a new file at path could not be created, from its errno: strerror,
 * except where the directory exists but refuses new files with ENOENT (a
 * pseudo file system such as /proc), which strerror would call "No such
 * file or directory". Static text. */
const char *dl_create_reason(const char *path, int errnum);

/* 1 if a CSV cell holding s would be read as a formula by a spreadsheet:
 * s starts with = + - @ TAB or CR, and is not a plain number ("-1.5") or a
 * lone "-". Writers put a ' in front of such trace-derived text (OWASP's
 * advice against CSV injection). */
int dl_csv_formula_like(const char *s);

/* Asks the kernel to back the 2 MiB-aligned part of a large array
 * (bytes >= 8 MiB, not yet touched) with transparent huge pages, where
 * the system leaves them to madvise (the default of many distributions):
 * the analysis's arrays of millions of records then take 512 times fewer
 * page faults and TLB misses. A hint: nothing happens where it is not
 * supported. */
void dl_advise_huge(void *p, size_t bytes);

/* Grows the array *p of *cap items of size bytes (doubling, from at least
 * 64 items) so that it holds need items; 0, or -1 when out of memory or
 * the size overflows (*p and *cap are then unchanged). */
int dl_grow(void **p, size_t *cap, size_t need, size_t size);

#endif
