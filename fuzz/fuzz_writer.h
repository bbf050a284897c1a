/*
 * fuzz_writer.h - the dldb writer the importer harnesses (fuzz_kevents,
 * fuzz_nsysscan) write into: one on an in-memory database
 * (dldb_writer_create_mem), kept for several inputs, because making one
 * (the schema's 80 statements) costs far more than importing a small
 * input. It is made anew after DL_FUZZ_WRITER_INPUTS inputs (default 256;
 * 1: a fresh writer for every input, for replaying a crash exactly) and
 * after any failure that is not about the input (a failed insert leaves a
 * writer that must be aborted).
 */
#ifndef DL_FUZZ_WRITER_H
#define DL_FUZZ_WRITER_H

#include <stdio.h>
#include <stdlib.h>

#include "dldb_write.h"

static dldb_writer *fuzz__w;
static long fuzz__w_uses;

static void fuzz__writer_free(void) { dldb_writer_abort(&fuzz__w); }

/* The writer for this input (aborts the run when none can be made). */
static inline dldb_writer *fuzz_writer(const char *source) {
  static long max_uses;
  if (!max_uses) {
    const char *e = getenv("DL_FUZZ_WRITER_INPUTS");
    max_uses = e && atol(e) > 0 ? atol(e) : 256;
    atexit(fuzz__writer_free);
  }
  if (fuzz__w && fuzz__w_uses >= max_uses) dldb_writer_abort(&fuzz__w);
  if (!fuzz__w) {
    char err[512];
    dldb_write_opts wo = {.producer = "fuzz", .source = source};
    if (dldb_writer_create_mem(&wo, &fuzz__w, err, sizeof err) != DL_OK) {
      fprintf(stderr, "dldb_writer_create_mem: %s\n", err);
      abort();
    }
    fuzz__w_uses = 0;
  }
  fuzz__w_uses++;
  return fuzz__w;
}

/* After the import of one input returned rc. */
static inline void fuzz_writer_done(int rc) {
  if (rc != DL_OK && rc != DL_EFORMAT && rc != DL_ECORRUPT && rc != DL_EVERSION &&
      rc != DL_ENOTFOUND)
    dldb_writer_abort(&fuzz__w);
}

#endif
