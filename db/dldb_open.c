/*
 * dldb_open.c - opening a dldb read-only and deciding whether to serve it.
 *
 * dldb_open_ro walks the checks of dldb.h in order and stops at the first
 * that fails, with one line naming the file: the path is a readable regular
 * file; its header is SQLite's and its size covers the pages the header
 * announces; it has tables; PRAGMA quick_check passes (files up to
 * DLDB_QUICK_CHECK_MAX_BYTES); a
 * dldb marker table exists (dl_meta: ours, read_only_system_config: NVIDIA
 * DLProf; an Nsight Systems export gets its own hint); view_db_version says
 * 1.x; view_aggregations has a row. The connection is opened through a
 * `file:` URI with mode=ro and SQLITE_OPEN_READONLY, so SQLite never creates
 * or writes the file. A WAL database without a pending -wal file is opened
 * immutable, which needs no -shm file (a read-only folder works).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dldb_read.h"

#define BUSY_TIMEOUT_MS 2000

static const char SQLITE_MAGIC[16] = "SQLite format 3";

/* "file:" + the percent-escaped path + "?mode=ro" (+ "&immutable=1"). */
static char *make_uri(const char *path, int immutable) {
  size_t n = strlen(path);
  char *uri = malloc(n * 3 + 32);
  if (!uri) return NULL;
  char *o = uri + sprintf(uri, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("/._-~", *p))
      *o++ = (char)*p;
    else
      o += sprintf(o, "%%%02X", *p);
  }
  sprintf(o, "?mode=ro%s", immutable ? "&immutable=1" : "");
  return uri;
}

static int check_header(const char *path, const unsigned char *hdr, size_t got, int64_t size,
                        int *wal, char *err, size_t errlen);

/* Checks the path and the SQLite header without SQLite, so that the common
 * mistakes get precise words. Sets *wal when the file is in WAL mode. */
static int check_file(const char *path, struct stat *st, int *wal, char *err, size_t errlen) {
  if (stat(path, st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return dl_err(err, errlen, DL_ENOTFOUND, "%s: no such file", path);
    return dl_err(err, errlen, DL_EIO, "%s: %s", path, strerror(errno));
  }
  if (S_ISDIR(st->st_mode))
    return dl_err(err, errlen, DL_EINVAL, "%s is a directory, not a dldb file", path);
  if (!S_ISREG(st->st_mode))
    return dl_err(err, errlen, DL_EINVAL, "%s is not a regular file", path);
  if (st->st_size == 0)
    return dl_err(err, errlen, DL_EFORMAT, "%s is an empty file, not a dldb", path);
  FILE *f = fopen(path, "rb");
  if (!f) return dl_err(err, errlen, DL_EIO, "%s: %s", path, strerror(errno));
  unsigned char hdr[100];
  size_t got = fread(hdr, 1, sizeof hdr, f);
  fclose(f);
  return check_header(path, hdr, got, (int64_t)st->st_size, wal, err, errlen);
}

/* Checks the first got bytes (of 100) of a database of size bytes. */
static int check_header(const char *path, const unsigned char *hdr, size_t got, int64_t size,
                        int *wal, char *err, size_t errlen) {
  if (got < 100 || memcmp(hdr, SQLITE_MAGIC, sizeof SQLITE_MAGIC) != 0)
    return dl_err(err, errlen, DL_EFORMAT,
                  "%s is not an SQLite database (file is not a database)", path);
  *wal = hdr[18] == 2 || hdr[19] == 2;
  /* The header's page count (valid when its version-valid-for number equals
   * the change counter) against the file's size: a cut file (an interrupted
   * copy or download) is found here at once, whatever its size. A WAL file
   * may hold pages the main file does not have yet. */
  uint32_t psize = (uint32_t)hdr[16] << 8 | hdr[17];
  if (psize == 1) psize = 65536;
  uint32_t change = (uint32_t)hdr[24] << 24 | (uint32_t)hdr[25] << 16 | (uint32_t)hdr[26] << 8 | hdr[27];
  uint32_t pages = (uint32_t)hdr[28] << 24 | (uint32_t)hdr[29] << 16 | (uint32_t)hdr[30] << 8 | hdr[31];
  uint32_t valid = (uint32_t)hdr[92] << 24 | (uint32_t)hdr[93] << 16 | (uint32_t)hdr[94] << 8 | hdr[95];
  if (!*wal && valid == change && pages > 0 && psize >= 512 &&
      size < (int64_t)pages * psize)
    return dl_err(err, errlen, DL_ECORRUPT,
                  "%s is damaged or truncated: %lld of the %lld bytes its header announces", path,
                  (long long)size, (long long)pages * psize);
  return DL_OK;
}

/* 1 if a non-empty PATH-wal file exists (a WAL database with pending pages). */
static int has_pending_wal(const char *path) {
  char wal[4096];
  struct stat st;
  if (snprintf(wal, sizeof wal, "%s-wal", path) >= (int)sizeof wal) return 1;
  return stat(wal, &st) == 0 && st.st_size > 0;
}

/* Opens the connection of db (db->path, db->uri set). */
static int db_connect(dldb *db, char *err, size_t errlen) {
  int rc;
  if (!db->mem)
    rc = sqlite3_open_v2(db->uri, &db->sql,
                         SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
  else if ((rc = sqlite3_open_v2(":memory:", &db->sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                                 NULL)) == SQLITE_OK) /* read-only, no copy: */
    rc = sqlite3_deserialize(db->sql, "main", (unsigned char *)(uintptr_t)db->mem,
                             (sqlite3_int64)db->mem_n, (sqlite3_int64)db->mem_n,
                             SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) return dldb__sql_err(db, rc, "open", err, errlen);
  sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes(db->sql, 1);
  if (dldb__register_functions(db->sql, db->shared) != SQLITE_OK)
    return dldb__sql_err(db, SQLITE_ERROR, "register functions", err, errlen);
  if (dldb__timeline_views(db) != DL_OK)
    return dldb__sql_err(db, SQLITE_ERROR, "timeline views", err, errlen);
  return DL_OK;
}

static dldb *handle_new(const char *path, int immutable) {
  dldb *db = calloc(1, sizeof *db);
  if (!db) return NULL;
  db->path = strdup(path);
  db->uri = make_uri(path, immutable);
  db->shared = dldb__shared_new();
  if (!db->path || !db->uri || !db->shared) dldb_close(&db);
  return db;
}

/* What the table list says about the file. */
typedef struct tables_seen {
  int n_tables;
  int dl_meta, nvidia_marker, nsys_marker, db_version_view;
} tables_seen;

static int scan_tables(dldb *db, tables_seen *t, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  memset(t, 0, sizeof *t);
  int rc = sqlite3_prepare_v2(db->sql, "SELECT type, name FROM sqlite_master", -1, &st, NULL);
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    if ((rc = sqlite3_step(st)) != SQLITE_ROW) break;
    const char *type = (const char *)sqlite3_column_text(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    if (!type || !name) continue;
    if (strcmp(type, "table") == 0) {
      t->n_tables++;
      if (strcmp(name, "dl_meta") == 0) t->dl_meta = 1;
      if (strcmp(name, "read_only_system_config") == 0) t->nvidia_marker = 1;
      if (strcmp(name, "StringIds") == 0 || strcmp(name, "NVTX_EVENTS") == 0 ||
          strncmp(name, "CUPTI_ACTIVITY_KIND_", 20) == 0 || strncmp(name, "TARGET_INFO_", 12) == 0)
        t->nsys_marker = 1;
    } else if (strcmp(type, "view") == 0 && strcmp(name, "view_db_version") == 0) {
      t->db_version_view = 1;
    }
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return dldb__sql_err(db, rc, "read schema", err, errlen);
  return DL_OK;
}

/* The tables opening reads (where the file has them), checked alone in a
 * file too big for the whole quick check. */
static const char *const opened_tables[] = {
    "sqlite_schema", "dl_meta", "read_only_system_config", "aggregations", "domains",
};

/* 1 when the file has table name (the schema table always). */
static int has_table(dldb *db, const char *name) {
  sqlite3_stmt *st = NULL;
  if (strcmp(name, "sqlite_schema") == 0) return 1;
  int found = sqlite3_prepare_v2(db->sql,
                                 "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                                 -1, &st, NULL) == SQLITE_OK &&
              sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK &&
              sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

/* PRAGMA quick_check of the whole file (pragma "quick_check(1)") or of one
 * table ("quick_check('NAME')", a name of opened_tables). */
static int quick_check(dldb *db, const char *pragma, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  char sql[128];
  snprintf(sql, sizeof sql, "PRAGMA %s", pragma);
  int rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) {
    rc = dldb__sql_err(db, rc, "quick_check", err, errlen);
    goto out;
  }
  const char *res = (const char *)sqlite3_column_text(st, 0);
  if (!res || strcmp(res, "ok") != 0) {
    char what[256]; /* SQLite's answer can span lines: the error is one */
    snprintf(what, sizeof what, "%s", res ? res : "no answer");
    for (char *c = what; *c; c++)
      if (*c == '\n' || *c == '\r') *c = ' ';
    rc = dl_err(err, errlen, DL_ECORRUPT, "%s is damaged or truncated (quick_check: %s)", db->path,
                what);
    goto out;
  }
  rc = DL_OK;
out:
  sqlite3_finalize(st);
  return rc;
}

/* Runs sql (one row expected) and copies column 0 as text into buf (or
 * returns its integer through *num). Missing row: buf "" / *num 0. */
static int one_value(dldb *db, const char *sql, const char *what, char *buf, size_t buflen,
                     int64_t *num, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
  if (buf) buf[0] = '\0';
  if (num) *num = 0;
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(st, 0);
    if (buf) snprintf(buf, buflen, "%s", t ? t : "");
    if (num) *num = sqlite3_column_int64(st, 0);
    rc = SQLITE_DONE;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return dldb__sql_err(db, rc, what, err, errlen);
  return DL_OK;
}

/* The first row's first value of sql with ?1 (where it has one) bound to
 * text (NULL: to num),
 * as text in buf or as a number in *out; 0 when there is one that is not
 * NULL (buf and *out are left as they were otherwise). */
static int bound_value(dldb *db, const char *sql, const char *text, int64_t num, char *buf,
                       size_t buflen, int64_t *out) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) return 1;
  if (text) sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
  else sqlite3_bind_int64(st, 1, num);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
    const char *t = (const char *)sqlite3_column_text(st, 0);
    if (buf) snprintf(buf, buflen, "%s", t ? t : "");
    if (out) *out = sqlite3_column_int64(st, 0);
    found = 1;
  }
  sqlite3_finalize(st);
  return !found;
}

/* A file of several domains: dlprof aggregates each domain on its own, so
 * the newest aggregation need not be the default domain's. The default
 * domain is "default-domain" where it has aggregations, else that of the
 * oldest aggregation (the one dlprof made first); the default aggregation
 * the newest of that domain, with its key op. What the file does not say
 * (no view_performance_summary, no rows) is left as it was. */
static void default_of_domains(dldb *db) {
  static const char *const newest =
      "SELECT max(aggr_id) FROM view_performance_summary WHERE domain_name = ?1";
  dldb_info *info = &db->info;
  int64_t aggr = 0;
  if (!dldb_has_view(db, "view_performance_summary")) return;
  if (bound_value(db, newest, "default-domain", 0, NULL, 0, &aggr) != 0) {
    char d[sizeof info->default_domain] = "";
    if (bound_value(db, "SELECT domain_name FROM view_performance_summary ORDER BY aggr_id "
                    "LIMIT 1", NULL, 0, d, sizeof d, NULL) != 0 ||
        bound_value(db, newest, d, 0, NULL, 0, &aggr) != 0)
      return;
    snprintf(info->default_domain, sizeof info->default_domain, "%s", d);
  }
  if (aggr == info->default_aggr_id) return;
  info->default_aggr_id = aggr;
  info->default_key_op[0] = '\0';
  (void)bound_value(db, "SELECT coalesce(key_node_name, '') FROM view_aggregations WHERE aggr_id = ?1",
                    NULL, aggr, info->default_key_op, sizeof info->default_key_op, NULL);
}

/* Marker, version and aggregations: is this a dldb we can serve? */
static int check_dldb(dldb *db, const tables_seen *t, char *err, size_t errlen) {
  const char *path = db->path;
  dldb_info *info = &db->info;
  int rc;
  if (t->dl_meta) {
    int64_t uv = 0;
    info->producer = DLDB_PRODUCER_DLPROF;
    rc = one_value(db, "PRAGMA user_version", "read user_version", NULL, 0, &uv, err, errlen);
    if (rc) return rc;
    info->schema_version = (int)uv;
  } else if (t->nvidia_marker) {
    info->producer = DLDB_PRODUCER_NVIDIA;
  } else if (t->nsys_marker) {
    return dl_err(err, errlen, DL_EFORMAT,
                  "%s is an Nsight Systems export, not a dldb; convert it with dlprof --database=%s",
                  path, path);
  } else {
    return dl_err(err, errlen, DL_EFORMAT,
                  "%s is an SQLite database but not a dldb (no dl_meta or read_only_system_config "
                  "table)", path);
  }
  if (!t->db_version_view)
    return dl_err(err, errlen, DL_EVERSION,
                  "%s is a dldb of an older, unsupported version (no view_db_version); re-profile "
                  "with a newer dlprof", path);
  rc = one_value(db, "SELECT current_version FROM view_db_version", "read view_db_version",
                 info->current_version, sizeof info->current_version, NULL, err, errlen);
  if (rc) return rc;
  rc = one_value(db, "SELECT original_version FROM view_db_version", "read view_db_version",
                 info->original_version, sizeof info->original_version, NULL, err, errlen);
  if (rc) return rc;
  if (strncmp(info->current_version, "1.", 2) != 0)
    return dl_err(err, errlen, DL_EVERSION,
                  "%s has dldb version '%s'; this dlprofviewer reads versions 1.x", path,
                  info->current_version);
  int64_t n_aggr = 0;
  rc = one_value(db, "SELECT count(*) FROM view_aggregations", "read view_aggregations", NULL, 0,
                 &n_aggr, err, errlen);
  if (rc) return rc;
  if (n_aggr == 0)
    return dl_err(err, errlen, DL_ENOTFOUND,
                  "%s has no aggregations, so there is nothing to show: nothing was "
                  "analysed in it (an empty recording, or an analysis that did not finish); "
                  "dlprof --database=%s analyses the raw records it holds", path, path);
  rc = one_value(db, "SELECT max(aggr_id) FROM view_aggregations", "read view_aggregations", NULL,
                 0, &info->default_aggr_id, err, errlen);
  if (rc) return rc;
  /* optional: a file whose view lacks the column has no key op to offer */
  if (one_value(db, "SELECT coalesce(key_node_name, '') FROM view_aggregations "
                "ORDER BY aggr_id DESC LIMIT 1", "read view_aggregations",
                info->default_key_op, sizeof info->default_key_op, NULL, err, errlen) != DL_OK)
    info->default_key_op[0] = '\0';
  snprintf(info->default_domain, sizeof info->default_domain, "default-domain");
  if (dldb_has_view(db, "view_domains")) {
    int64_t n_dom = 0;
    rc = one_value(db, "SELECT count(*) FROM view_domains", "read view_domains", NULL, 0, &n_dom,
                   err, errlen);
    if (rc) return rc;
    if (n_dom == 1)
      rc = one_value(db, "SELECT domain_name FROM view_domains", "read view_domains",
                     info->default_domain, sizeof info->default_domain, NULL, err, errlen);
    else if (n_dom > 1)
      default_of_domains(db);
  }
  return rc;
}

int dldb_global_init(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK ? DL_OK : DL_EDB;
}

/* Connects db and checks what it holds, with (check 1) or without (check 0)
 * the quick check, for a database of size bytes. */
static int validate(dldb *db, int check, int64_t size, char *err, size_t errlen) {
  tables_seen tables;
  int rc = db_connect(db, err, errlen);
  if (rc) return rc;
  rc = scan_tables(db, &tables, err, errlen);
  if (rc) return rc;
  if (tables.n_tables == 0)
    return dl_err(err, errlen, DL_EFORMAT,
                  "%s is an empty SQLite database (no tables), not a dldb", db->path);
  /* the quick check reads every page: seconds per GB, so big files get the
   * header check above and the check of the tables opening reads (damage
   * elsewhere shows when a query reads it) */
  db->info.integrity_checked = check && size <= DLDB_QUICK_CHECK_MAX_BYTES;
  if (db->info.integrity_checked && (rc = quick_check(db, "quick_check(1)", err, errlen)))
    return rc;
  for (size_t i = 0; check && !db->info.integrity_checked && i < sizeof opened_tables /
                                                                 sizeof *opened_tables; i++) {
    char pragma[96];
    snprintf(pragma, sizeof pragma, "quick_check('%s')", opened_tables[i]);
    if (has_table(db, opened_tables[i]) && (rc = quick_check(db, pragma, err, errlen))) return rc;
  }
  return check_dldb(db, &tables, err, errlen);
}

/* dldb_open_ro, with (check 1) or without (check 0) the quick check. */
static int open_ro(const char *path, int check, dldb **out, dldb_info *info, char *err,
                   size_t errlen) {
  dldb *db = NULL;
  struct stat st;
  int wal = 0, rc;
  *out = NULL;
  if (!path || !*path) return dl_err(err, errlen, DL_EINVAL, "no database path given");
  rc = check_file(path, &st, &wal, err, errlen);
  if (rc) goto out;
  db = handle_new(path, wal && !has_pending_wal(path));
  if (!db) {
    rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", path);
    goto out;
  }
  db->dev = st.st_dev;
  db->ino = st.st_ino;
  rc = validate(db, check, (int64_t)st.st_size, err, errlen);
  if (rc) goto out;
  if (info) *info = db->info;
  *out = db;
  db = NULL;
out:
  dldb_close(&db);
  return rc;
}

int dldb_open_ro(const char *path, dldb **out, dldb_info *info, char *err, size_t errlen) {
  return open_ro(path, 1, out, info, err, errlen);
}

int dldb_open_ro_written(const char *path, dldb **out, dldb_info *info, char *err,
                         size_t errlen) {
  return open_ro(path, 0, out, info, err, errlen);
}

int dldb_open_mem(const void *data, size_t size, const char *name, dldb **out, dldb_info *info,
                  char *err, size_t errlen) {
  int wal = 0;
  *out = NULL;
  if (!name) name = "<memory>";
  if (size == 0) return dl_err(err, errlen, DL_EFORMAT, "%s is an empty file, not a dldb", name);
  int rc = check_header(name, data, size < 100 ? size : 100, (int64_t)size, &wal, err, errlen);
  if (rc) return rc;
  dldb *db = handle_new(name, 0);
  if (!db) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", name);
  db->mem = data;
  db->mem_n = size;
  rc = validate(db, 1, (int64_t)size, err, errlen);
  if (rc == DL_OK) {
    if (info) *info = db->info;
    *out = db;
    db = NULL;
  }
  dldb_close(&db);
  return rc;
}

int dldb_open_again(const dldb *src, dldb **out, char *err, size_t errlen) {
  *out = NULL;
  dldb *db = calloc(1, sizeof *db);
  if (!db) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", src->path);
  db->path = strdup(src->path);
  db->uri = strdup(src->uri);
  db->mem = src->mem;
  db->mem_n = src->mem_n;
  db->dev = src->dev;
  db->ino = src->ino;
  db->info = src->info;
  db->shared = dldb__shared_ref(src->shared);
  int rc = db->path && db->uri && db->shared ? db_connect(db, err, errlen)
                               : dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", src->path);
  if (rc) {
    dldb_close(&db);
    return rc;
  }
  *out = db;
  return DL_OK;
}

void dldb_close(dldb **pdb) {
  if (!pdb || !*pdb) return;
  dldb *db = *pdb;
  dldb__caches_free(db);
  if (db->sql) sqlite3_close(db->sql);
  dldb__shared_unref(db->shared); /* after the connection that uses it */
  free(db->path);
  free(db->uri);
  free(db);
  *pdb = NULL;
}

const char *dldb_path(const dldb *db) { return db->path; }

const dldb_info *dldb_get_info(const dldb *db) { return &db->info; }

int dldb_verify_file(const dldb *db, char *err, size_t errlen) {
  struct stat st;
  if (stat(db->path, &st) != 0)
    return dl_err(err, errlen, DL_ENOTFOUND,
                  "the database %s cannot be found any more; restart dlprofviewer pointing to a "
                  "database that exists", db->path);
  if (st.st_dev != db->dev || st.st_ino != db->ino)
    return dl_err(err, errlen, DL_EIO,
                  "the database %s was replaced since it was opened", db->path);
  return DL_OK;
}
