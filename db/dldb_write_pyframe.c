/* dldb_write_pyframe.c - a Python frame's row (see dldb_write_pyframe.h),
 * through the writer's batched inserts. */
#include "dldb_write_pyframe.h"

#include "dldb_write_internal.h"

int dldb_write_py_frame(dldb_writer *w, const dldb_py_frame *f, char *err, size_t errlen) {
  static const char *fn = "dldb_write_py_frame";
  int rc = dldb__row_begin(w, err, errlen, fn);
  int64_t name_id = 0;
  if (rc || (rc = dldb_writer_intern(w, f->name, &name_id, err, errlen))) return rc;
  const dldb__cell row[] = {
      DLDB__I(f->pid),
      DLDB__I(f->tid),
      DLDB__I(dldb__rel(w, f->start_ns)),
      DLDB__I(f->end_ns - w->origin),
      DLDB__I(name_id),
      f->has_python_id ? DLDB__I(f->python_id) : DLDB__N,
      f->has_parent_python_id ? DLDB__I(f->parent_python_id) : DLDB__N,
  };
  return dldb__batch_row(w, DLDB__B_PYFRAME, row, err, errlen, fn);
}
