/* detect.c - what a trace file is, by its content (see dli.h). */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "dli.h"
#include "dli_kineto.h"

/* 1 if a table named like `like` exists, 0 if not, -1 if sqlite_master
 * cannot be read (a damaged file). */
static int table_exists(sqlite3 *db, const char *like) {
  sqlite3_stmt *st = NULL;
  int found = -1;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name LIKE ?1",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, like, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    found = s == SQLITE_ROW ? 1 : s == SQLITE_DONE ? 0 : -1;
  }
  sqlite3_finalize(st);
  return found;
}

static int sqlite_kind(const char *path, dli_kind *kind, char *err, size_t errlen) {
  sqlite3 *db = NULL;
  int rc = DL_OK;
  *kind = DLI_SQLITE_OTHER;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
    rc = dl_err(err, errlen, DL_EIO, "%s: cannot open: %s", path,
                db ? sqlite3_errmsg(db) : "out of memory");
    goto out;
  }
  int meta = table_exists(db, "dl_meta");
  if (meta < 0) {
    rc = dl_err(err, errlen, DL_ECORRUPT, "%s: a damaged SQLite file: %s", path,
                sqlite3_errmsg(db));
    goto out;
  }
  if (meta > 0 || table_exists(db, "read_only_system_config") > 0)
    *kind = DLI_DLDB;
  else if (table_exists(db, "StringIds") > 0 &&
           (table_exists(db, "CUPTI_ACTIVITY_KIND_%") > 0 || table_exists(db, "NVTX_EVENTS") > 0 ||
            table_exists(db, "TARGET_INFO_%") > 0 || table_exists(db, "EXPORT_META_DATA") > 0 ||
            table_exists(db, "META_DATA_EXPORT") > 0))
    *kind = DLI_NSYS_SQLITE;
out:
  sqlite3_close(db);
  return rc;
}

int dli_detect(const char *path, dli_kind *kind, char *err, size_t errlen) {
  struct stat sb;
  unsigned char head[64];
  *kind = DLI_UNKNOWN;
  if (stat(path, &sb) != 0)
    return dl_err(err, errlen, errno == ENOENT ? DL_ENOTFOUND : DL_EIO, "%s: %s", path,
                  strerror(errno));
  if (S_ISDIR(sb.st_mode)) {
    if (dli_kineto_is_trace_dir(path)) { /* per-rank PyTorch profiler traces */
      *kind = DLI_JSON;
      return DL_OK;
    }
    return dl_err(err, errlen, DL_EIO,
                  "%s: a directory without PyTorch profiler traces (*.json, *.json.gz) in it",
                  path);
  }
  FILE *f = fopen(path, "rb");
  if (!f) return dl_err(err, errlen, DL_EIO, "%s: %s", path, strerror(errno));
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
    return sqlite_kind(path, kind, err, errlen);
  } else if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
    *kind = DLI_JSON; /* gzip: the JSON importer checks what is inside */
  } else {
    size_t i = 0;
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3; /* UTF-8 BOM */
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) i++;
    if (i < n && (head[i] == '{' || head[i] == '[')) *kind = DLI_JSON;
  }
  return DL_OK;
}
