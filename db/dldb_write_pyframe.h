/*
 * dldb_write_pyframe.h - the Python frames of a PyTorch profiler trace
 * (db/schema.sql dl_python_frames): one row per python_function event,
 * written by the Kineto importer beside its other raw records. A trace
 * without such events writes no row. The timeline draws them as a
 * python_thread track per thread (db/dldb_tlwrite.c).
 *
 * Ownership: the frame and its name are borrowed for the call; the writer
 * is borrowed. Errors: DL_OK or a negative DL_E* with one line in err, as
 * every raw insert of dldb_write.h.
 */
#ifndef DLDB_WRITE_PYFRAME_H
#define DLDB_WRITE_PYFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "dldb_write.h"

typedef struct dldb_py_frame {
  const char *name;           /* "file(line): function", as the trace has it */
  int64_t start_ns, end_ns;   /* on the producer's clock (dldb_write.h) */
  int64_t pid, tid;           /* as stored for the trace's other events */
  int64_t python_id;          /* the trace's "Python id" ... */
  int64_t parent_python_id;   /* ... and "Python parent id" */
  int has_python_id, has_parent_python_id; /* 0: NULL (the trace has none) */
} dldb_py_frame;

int dldb_write_py_frame(dldb_writer *w, const dldb_py_frame *f, char *err, size_t errlen);

#endif
