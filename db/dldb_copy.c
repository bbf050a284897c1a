/* dldb_copy.c - a database copied beside itself (dldb_copy.h). */
#include "dldb_copy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "dl.h"

int dldb_copy_beside(const char *src, char *tmp, size_t tmplen, char *err, size_t errlen) {
  sqlite3 *from = NULL, *to = NULL;
  struct stat sb;
  int rc = DL_OK;
  snprintf(tmp, tmplen, "%s.tmp-XXXXXX", src);
  int fd = stat(src, &sb) == 0 ? mkstemp(tmp) : -1;
  if (fd < 0)
    return dl_err(err, errlen, DL_EIO, "%s: cannot create a file beside it: %s", src,
                  dl_create_reason(src, errno));
  (void)fchmod(fd, sb.st_mode & 0777);
  close(fd);
  if (sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_open_v2(tmp, &to, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    rc = dl_err(err, errlen, DL_EIO, "%s: cannot open: %s", src,
                sqlite3_errmsg(to ? to : from));
    goto out;
  }
  sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
  int s = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
  if (sqlite3_backup_finish(b) != SQLITE_OK || s != SQLITE_DONE ||
      sqlite3_exec(to, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) != SQLITE_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: copying to %s failed: %s", src, tmp,
                sqlite3_errmsg(to));
out:
  sqlite3_close(from);
  if (sqlite3_close(to) != SQLITE_OK && rc == DL_OK)
    rc = dl_err(err, errlen, DL_EIO, "%s: cannot close", tmp);
  if (rc != DL_OK) unlink(tmp);
  return rc;
}
