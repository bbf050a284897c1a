/*
 * dldb_errmsg.c - the message and the one-line error of the writer's last
 * SQLite error (dldb_write_internal.h): a leaf, so that every db/ module
 * that writes may use them without depending on the writer's life cycle.
 */
#include <stdio.h>
#include <string.h>

#include "dldb_write_internal.h"

const char *dldb__errmsg(dldb_writer *w) {
  /* A failed write (full disk, file size limit) names the file and the cause. */
  int code = sqlite3_errcode(w->db) & 0xff, sys = sqlite3_system_errno(w->db);
  if (code != SQLITE_IOERR && code != SQLITE_FULL) return sqlite3_errmsg(w->db);
  snprintf(w->errbuf, sizeof w->errbuf, "writing %s failed: %s (%s)",
           w->path ? w->path : "the dldb", sqlite3_errmsg(w->db),
           sys ? strerror(sys) : "disk full or file size limit reached?");
  return w->errbuf;
}

int dldb__sqlerr(dldb_writer *w, char *err, size_t errlen, const char *fn) {
  if (!w || !w->db) return dl_err(err, errlen, DL_EDB, "%s: no db", fn);
  return dl_err(err, errlen, DL_EDB, "%s: %s", fn, dldb__errmsg(w));
}
