/*
 * nsys.c - the Nsight Systems SQLite export importer (see dli.h).
 *
 * Exports differ by version only additively, and tables exist only when they
 * have rows (formats.md B.1), so every table is probed in sqlite_master and
 * every column selected by name, with NULL standing in for a missing one.
 * The export's SQL stays in this file: it reads a foreign schema, not ours.
 * Times are the export's session-clock nanoseconds, stored as they are.
 */
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_kname.h"
#include "dldb_write.h"
#include "dli.h"
#include "rowpipe.h"

#define WRAP_SLOTS 256
#define PREFETCH_ROWS 16 /* NVTX texts: how far ahead their slots are prefetched */

typedef struct nsys {
  sqlite3 *db;
  const char *path;
  dldb_writer *w;
  dli_stats *st;
  const dli_opts *opts;
  /* StringIds: text in one buffer, offsets by id (-1: absent); the dldb id
   * of each once interned (0: not yet) */
  char *text;
  int64_t *off;
  int64_t *dl_id;
  int64_t nstrings; /* array length (max id + 1) */
  /* API correlation ids seen, one bit each, per process (dupes are skipped) */
  struct corr_seen { int64_t pid; uint64_t *bits; size_t nwords; } seen[16];
  int nseen;
  char *cut;        /* a buffer for cutting over-long names */
  /* CUTLASS wrapper kernels (dl_kname.h): a direct-mapped cache by the
   * demangled name's StringId (slot id % WRAP_SLOTS; key id + 1, 0: empty)
   * of the dldb id of the short name derived from it (0: the rule does not
   * apply), so that each name (up to ~5 KB) is parsed once, not per row */
  struct wrap_seen { int64_t key, short_id; } wrap[WRAP_SLOTS];
  char *err;
  size_t errlen;
  const void *mem;  /* dli_nsys_import_mem: the export's bytes (path names them) */
  size_t mem_n;
} nsys;

/* A read-only connection to the export: the file at x->path, or a copy-free
 * in-memory database over x->mem. An error names the file. */
static int open_export(nsys *x, sqlite3 **db) {
  int rc;
  if (!x->mem)
    rc = sqlite3_open_v2(x->path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
  else if ((rc = sqlite3_open_v2(":memory:", db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                                 NULL)) == SQLITE_OK)
    rc = sqlite3_deserialize(*db, "main", (unsigned char *)(uintptr_t)x->mem,
                             (sqlite3_int64)x->mem_n, (sqlite3_int64)x->mem_n,
                             SQLITE_DESERIALIZE_READONLY);
  if (rc == SQLITE_OK) return DL_OK;
  rc = dl_err(x->err, x->errlen, DL_EIO, "%s: cannot open: %s", x->path,
              *db ? sqlite3_errmsg(*db) : "out of memory");
  sqlite3_close(*db);
  *db = NULL;
  return rc;
}

/* The export encodes pid and tid in one integer (formats.md B.3). */
static int64_t gpid(int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
static int64_t gtid(int64_t global_id) { return global_id & 0xFFFFFF; }

static const char *str(const nsys *x, int64_t id) {
  if (id < 0 || id >= x->nstrings || x->off[id] < 0) return "";
  return x->text + x->off[id];
}

/* s, cut to DLI_MAX_NAME_BYTES (counted) in x->cut when longer. */
static const char *fit(nsys *x, const char *s) {
  size_t n = strlen(s);
  if (n <= DLI_MAX_NAME_BYTES) return s;
  x->st->truncated++;
  memcpy(x->cut, s, DLI_MAX_NAME_BYTES);
  size_t k = DLI_MAX_NAME_BYTES;
  while (k > 0 && ((unsigned char)x->cut[k] & 0xC0) == 0x80) k--; /* whole UTF-8 chars */
  x->cut[k] = '\0';
  return x->cut;
}

/* The dldb id of StringIds[id] (interned once). */
static int name_id(nsys *x, int64_t id, int64_t *out) {
  if (id >= 0 && id < x->nstrings && x->dl_id[id] > 0) {
    *out = x->dl_id[id];
    return DL_OK;
  }
  int rc = dldb_writer_intern(x->w, fit(x, str(x, id)), out, x->err, x->errlen);
  if (rc == DL_OK && id >= 0 && id < x->nstrings) x->dl_id[id] = *out;
  return rc;
}

/* The dldb id of the short name that the CUTLASS rule (dl_kname.h) derives
 * from StringIds[lid] in *out, or 0 there when the rule does not apply. */
static int wrapper_short_id(nsys *x, int64_t lid, int64_t *out) {
  struct wrap_seen *w = lid >= 0 && lid < x->nstrings ? &x->wrap[lid % WRAP_SLOTS] : NULL;
  if (w && w->key == lid + 1) {
    *out = w->short_id;
    return DL_OK;
  }
  const char *s = str(x, lid);
  size_t off, len;
  int64_t id = 0;
  if (dl_kname_cutlass_span(s, &off, &len)) {
    if (len > DLI_MAX_NAME_BYTES) { /* identifier characters only: ASCII */
      len = DLI_MAX_NAME_BYTES;
      x->st->truncated++;
    }
    memcpy(x->cut, s + off, len);
    x->cut[len] = '\0';
    int rc = dldb_writer_intern(x->w, x->cut, &id, x->err, x->errlen);
    if (rc != DL_OK) return rc;
  }
  if (w) *w = (struct wrap_seen){.key = lid + 1, .short_id = id};
  *out = id;
  return DL_OK;
}

static void progress(nsys *x, const char *what, int64_t done, int64_t total) {
  if (x->opts && x->opts->progress) x->opts->progress(x->opts->progress_ctx, what, done, total);
}

static int has_table(nsys *x, const char *table) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(x->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1,
                         &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return found;
}

static int has_column(nsys *x, const char *table, const char *column) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(x->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name=?2", -1, &st,
                         NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return found;
}

/* Prepares "SELECT c1, c2, ... FROM table [where]" with NULL for missing
 * columns; a column named "!x" is required (its absence is an error).
 * Table and column names come from this file, never from input. */
static int prepare_select(nsys *x, const char *table, const char *const *cols, const char *where,
                          sqlite3_stmt **st) {
  char sql[2048];
  size_t n = (size_t)snprintf(sql, sizeof sql, "SELECT ");
  for (int i = 0; cols[i]; i++) {
    const char *c = cols[i][0] == '!' ? cols[i] + 1 : cols[i];
    int have = has_column(x, table, c);
    if (!have && cols[i][0] == '!')
      return dl_err(x->err, x->errlen, DL_EFORMAT, "%s: table %s has no column %s", x->path,
                    table, c);
    n += (size_t)snprintf(sql + n, sizeof sql - n, "%s%s\"%s\"", i ? ", " : "",
                          have ? "" : "NULL AS ", c);
  }
  snprintf(sql + n, sizeof sql - n, " FROM %s%s%s", table, where ? " WHERE " : "",
           where ? where : "");
  if (sqlite3_prepare_v2(x->db, sql, -1, st, NULL) != SQLITE_OK)
    return dl_err(x->err, x->errlen, DL_ECORRUPT, "%s: cannot read table %s: %s", x->path, table,
                  sqlite3_errmsg(x->db));
  return DL_OK;
}

/* Accessors of a row read through the row pipe (rowpipe.h). */
static int64_t c_int(const rp_cell *c, int i) { return c[i].i; }
static int c_is_int(const rp_cell *c, int i) { return c[i].type == SQLITE_INTEGER; }
/* A text column's text ("" for NULL). */
static const char *c_text(const rp_cell *c, int i) { return c[i].s ? c[i].s : ""; }
/* An id column: INTEGER, or a REAL holding an integer; NULL counts as 0. */
static int c_id_ok(const rp_cell *c, int i) {
  int t = c[i].type;
  if (t == SQLITE_INTEGER || t == SQLITE_NULL) return 1;
  if (t != SQLITE_FLOAT) return 0;
  double d = c[i].d;
  return d > -9.2e18 && d < 9.2e18 && d == (double)(int64_t)d;
}
/* Columns s (start) and s + 1 (end) hold a usable interval. */
static int c_times_ok(const rp_cell *c, int s) {
  if (c[s].type != SQLITE_INTEGER || c[s + 1].type != SQLITE_INTEGER) return 0;
  int64_t a = c[s].i, b = c[s + 1].i;
  return a >= 0 && b >= a && b <= DLI_MAX_TIME_NS;
}
/* Every listed column (-1 ends) is a usable id. */
static int c_ids_ok(const rp_cell *c, const int *cols) {
  for (int i = 0; cols[i] >= 0; i++)
    if (!c_id_ok(c, cols[i])) return 0;
  return 1;
}
/* Row estimate of a table (its largest rowid: exports never delete). */
static int64_t row_estimate(nsys *x, const char *table) {
  char sql[160];
  sqlite3_stmt *st = NULL;
  int64_t n = 0;
  snprintf(sql, sizeof sql, "SELECT max(rowid) FROM %s", table);
  if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}
static int col_is_int(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_INTEGER;
}
static const char *col_text(sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? (const char *)t : "";
}

/* A table scan: its rows are stepped on a second thread (rowpipe.h), so
 * that reading the export overlaps writing the dldb. s: the last step code.
 * With cols (prepare_select's) the rows are read from the table's pages
 * when dl_sqlpage.h reads it (filter: its WHERE, NULL: none); the
 * environment's NSYS_SCAN=sqlite makes SQLite step them (tests compare). */
typedef struct scan {
  sqlite3_stmt *st;
  rowpipe *rp;
  int s;
  uint64_t (*hash)(const char *, size_t); /* of text columns, on the reading thread */
  const char *table;
  const char *const *cols;
  const dl_sqlpage_filter *filter;
} scan;

/* A page scan of sc's table, or NULL (SQLite steps its statement); *rc:
 * DL_ENOMEM when memory ran out. */
static dl_sqlpage *scan_pages(const scan *sc, uint32_t text_cols, int *rc) {
  const char *how = getenv("NSYS_SCAN");
  const char *names[DL_SQLPAGE_MAX_COLS];
  int n = 0;
  *rc = DL_OK;
  if (!sc->cols || (how && !strcmp(how, "sqlite"))) return NULL;
  for (; sc->cols[n]; n++) {
    if (n == DL_SQLPAGE_MAX_COLS) return NULL;
    names[n] = sc->cols[n] + (sc->cols[n][0] == '!');
  }
  dl_sqlpage *pg = NULL;
  int r = dl_sqlpage_open(sqlite3_db_handle(sc->st), sc->st, sc->table, names, n, text_cols,
                          sc->filter, sc->filter ? 1 : 0, &pg);
  if (r == DL_ENOMEM) *rc = r;
  return r == DL_OK ? pg : NULL;
}

/* The scan's next row (columns in text_cols keep their text), or NULL at
 * the end or on an error (sc->s tells which). */
static const rp_cell *scan_row(scan *sc, uint32_t text_cols) {
  if (!sc->rp) { /* the first row: start the reader */
    int rc;
    dl_sqlpage *pg = scan_pages(sc, text_cols, &rc);
    if (rc == DL_OK)
      rc = pg ? rowpipe_open_pages(pg, sqlite3_column_count(sc->st), text_cols, sc->hash, &sc->rp)
              : rowpipe_open(sc->st, text_cols, sc->hash, &sc->rp);
    if (rc != DL_OK) {
      sc->s = rc == DL_ENOMEM ? SQLITE_NOMEM : SQLITE_MISUSE;
      return NULL;
    }
  }
  const rp_cell *c = rowpipe_next(sc->rp, &sc->s);
  if (c) sc->s = SQLITE_ROW;
  return c;
}

/* Ends a table scan: SQLITE_DONE is success, anything else a read error. */
static int scan_end(nsys *x, scan *sc, int rc, const char *table) {
  rowpipe_close(&sc->rp);
  sqlite3_finalize(sc->st);
  sc->st = NULL;
  if (rc != DL_OK) return rc;
  if (sc->s != SQLITE_DONE)
    return dl_err(x->err, x->errlen, DL_ECORRUPT, "%s: reading %s failed: %s", x->path, table,
                  sqlite3_errstr(sc->s));
  return DL_OK;
}

static int load_strings(nsys *x) {
  sqlite3_stmt *st = NULL;
  int64_t max_id = -1, bytes = 0;
  if (!has_table(x, "StringIds")) return DL_OK;
  if (sqlite3_prepare_v2(x->db, "SELECT max(id), sum(length(CAST(value AS BLOB)) + 1) FROM StringIds",
                         -1, &st, NULL) != SQLITE_OK)
    return dl_err(x->err, x->errlen, DL_ECORRUPT, "%s: cannot read StringIds: %s", x->path,
                  sqlite3_errmsg(x->db));
  int s = sqlite3_step(st);
  if (s == SQLITE_ROW) {
    max_id = sqlite3_column_type(st, 0) == SQLITE_INTEGER ? sqlite3_column_int64(st, 0) : -1;
    bytes = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  if (s != SQLITE_ROW && s != SQLITE_DONE)
    return dl_err(x->err, x->errlen, DL_ECORRUPT, "%s: reading StringIds failed: %s", x->path,
                  sqlite3_errstr(s));
  /* Ids are dense from 0 in every export seen; refuse absurd ones. */
  if (max_id < 0) return DL_OK;
  if (max_id > 100000000)
    return dl_err(x->err, x->errlen, DL_ECORRUPT, "%s: StringIds has an absurd id %lld", x->path,
                  (long long)max_id);
  x->nstrings = max_id + 1;
  x->off = malloc((size_t)x->nstrings * sizeof *x->off);
  x->dl_id = calloc((size_t)x->nstrings, sizeof *x->dl_id);
  x->text = malloc((size_t)bytes + 1);
  if (!x->off || !x->dl_id || !x->text)
    return dl_err(x->err, x->errlen, DL_ENOMEM, "%s: out of memory for StringIds", x->path);
  for (int64_t i = 0; i < x->nstrings; i++) x->off[i] = -1;
  if (sqlite3_prepare_v2(x->db, "SELECT id, value FROM StringIds", -1, &st, NULL) != SQLITE_OK)
    return dl_err(x->err, x->errlen, DL_ECORRUPT, "%s: cannot read StringIds: %s", x->path,
                  sqlite3_errmsg(x->db));
  int64_t used = 0;
  scan sc = {.st = st, .s = SQLITE_DONE};
  const rp_cell *c;
  while ((c = scan_row(&sc, 1u << 1))) {
    int64_t id = c[0].i;
    const char *v = c_text(c, 1);
    int64_t n = (int64_t)strlen(v);
    if (c[0].type != SQLITE_INTEGER || id < 0 || id >= x->nstrings ||
        x->off[id] >= 0 || used + n + 1 > bytes + 1)
      continue;
    memcpy(x->text + used, v, (size_t)n);
    x->text[used + n] = '\0';
    x->off[id] = used;
    used += n + 1;
  }
  return scan_end(x, &sc, DL_OK, "StringIds");
}

/* Reads one value of the metadata table, whichever name it has. */
static void meta_value(nsys *x, const char *key, char *out, size_t outlen) {
  static const char *const tables[] = {"EXPORT_META_DATA", "META_DATA_EXPORT", NULL};
  out[0] = '\0';
  for (int i = 0; tables[i]; i++) {
    if (!has_table(x, tables[i])) continue;
    char sql[128];
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof sql, "SELECT value FROM %s WHERE name=?1", tables[i]);
    if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
      if (sqlite3_step(st) == SQLITE_ROW) snprintf(out, outlen, "%s", col_text(st, 0));
    }
    sqlite3_finalize(st);
    if (out[0]) return;
  }
}

static void env_value(nsys *x, const char *name, char *out, size_t outlen) {
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  if (!has_table(x, "TARGET_INFO_SYSTEM_ENV")) return;
  if (sqlite3_prepare_v2(x->db, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name=?1", -1, &st,
                         NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) snprintf(out, outlen, "%s", col_text(st, 0));
  }
  sqlite3_finalize(st);
}

/* System facts: DLProf's own SystemInfo table when present (it added one to
 * the exports it made), else the export's metadata and system environment. */
static int import_sysconfig(nsys *x) {
  char cpu[256], driver[64], cuda[64], cudnn[64] = "", framework[128] = "", nsys_ver[64];
  char raw[64];
  int num_gpus = 0;
  sqlite3_stmt *st = NULL;
  env_value(x, "CpuDescription", cpu, sizeof cpu);
  snprintf(nsys_ver, sizeof nsys_ver, "%s", x->st->product_version);
  /* NvDriverVersion: the version's digits without the dots (515.43.04 ->
   * "5154304", 525.105.17 -> "52510517": a 3-digit major, a 2-digit patch,
   * the minor between), or the dotted text itself ("470.57.02", 2023.x). */
  env_value(x, "NvDriverVersion", raw, sizeof raw);
  size_t dl = strspn(raw, "0123456789");
  if (raw[0] && raw[dl] == '\0' && dl >= 6)
    snprintf(driver, sizeof driver, "%.3s.%.*s.%s", raw, (int)(dl - 5), raw + 3, raw + dl - 2);
  else
    snprintf(driver, sizeof driver, "%s", raw);
  env_value(x, "CudaDriverVersion", raw, sizeof raw);
  long long c = atoll(raw);
  if (c > 0) snprintf(cuda, sizeof cuda, "%lld.%lld", c / 1000, c % 1000 / 10);
  else cuda[0] = '\0';
  if (has_table(x, "TARGET_INFO_GPU") &&
      sqlite3_prepare_v2(x->db, "SELECT count(*) FROM TARGET_INFO_GPU", -1, &st, NULL) ==
          SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    num_gpus = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  st = NULL;
  if (has_table(x, "SystemInfo")) {
    static const char *const cols[] = {"gpuCount", "driverVersion", "cudaVersion", "cudnnVersion",
                                       "framework", "nsysVersion", "cpuModel", NULL};
    int rc = prepare_select(x, "SystemInfo", cols, NULL, &st);
    if (rc != DL_OK) return rc;
    if (sqlite3_step(st) == SQLITE_ROW) {
      if (col_is_int(st, 0)) num_gpus = sqlite3_column_int(st, 0);
      if (*col_text(st, 1)) snprintf(driver, sizeof driver, "%s", col_text(st, 1));
      if (*col_text(st, 2)) snprintf(cuda, sizeof cuda, "%s", col_text(st, 2));
      snprintf(cudnn, sizeof cudnn, "%s", col_text(st, 3));
      snprintf(framework, sizeof framework, "%s", col_text(st, 4));
      if (*col_text(st, 5)) snprintf(nsys_ver, sizeof nsys_ver, "%s", col_text(st, 5));
      if (*col_text(st, 6)) snprintf(cpu, sizeof cpu, "%s", col_text(st, 6));
    }
    sqlite3_finalize(st);
  }
  dldb_sysconfig sc = {.num_gpus = num_gpus, .cpu_model = cpu, .driver_version = driver,
                       .framework = framework, .cuda_version = cuda, .cudnn_version = cudnn,
                       .nsys_version = nsys_ver, .dlprof_version = "v" DL_VERSION,
                       .dlprof_build = "",
                       .profile_name = x->opts && x->opts->profile_name ? x->opts->profile_name : "",
                       .mode_string = x->opts && x->opts->mode ? x->opts->mode : "",
                       .original_command = x->opts && x->opts->command ? x->opts->command : ""};
  return dldb_write_sysconfig(x->w, &sc, x->err, x->errlen);
}

static int import_gpus(nsys *x) {
  static const char *const cols[] = {"!id", "name", "computeMajor", "computeMinor", "smCount",
                                     "totalMemory", NULL};
  sqlite3_stmt *st = NULL;
  if (!has_table(x, "TARGET_INFO_GPU")) return DL_OK;
  int rc = prepare_select(x, "TARGET_INFO_GPU", cols, NULL, &st);
  if (rc != DL_OK) return rc;
  scan sc = {.st = st, .s = SQLITE_DONE};
  const rp_cell *c;
  while ((c = scan_row(&sc, 1u << 1))) {
    if (!c_is_int(c, 0)) { x->st->skipped++; continue; }
    dldb_gpu g = {.device_id = (int32_t)c_int(c, 0), .name = fit(x, c_text(c, 1)),
                  .cc_major = (int)c_int(c, 2), .cc_minor = (int)c_int(c, 3),
                  .sm_count = (int)c_int(c, 4), .memory_bytes = c_int(c, 5)};
    if ((rc = dldb_write_gpu(x->w, &g, x->err, x->errlen)) != DL_OK) break;
    x->st->gpus++;
  }
  return scan_end(x, &sc, rc, "TARGET_INFO_GPU");
}

static int import_threads(nsys *x) {
  static const char *const cols[] = {"nameId", "!globalTid", NULL};
  sqlite3_stmt *st = NULL;
  if (!has_table(x, "ThreadNames")) return DL_OK;
  int rc = prepare_select(x, "ThreadNames", cols, NULL, &st);
  if (rc != DL_OK) return rc;
  scan sc = {.st = st, .s = SQLITE_DONE};
  const rp_cell *c;
  while ((c = scan_row(&sc, 0))) {
    if (!c_is_int(c, 1) || !c_id_ok(c, 0)) { x->st->skipped++; continue; }
    int64_t g = c_int(c, 1);
    dldb_thread t = {.pid = gpid(g), .tid = gtid(g), .name = fit(x, str(x, c_int(c, 0)))};
    if ((rc = dldb_write_thread(x->w, &t, x->err, x->errlen)) != DL_OK) break;
    x->st->threads++;
  }
  return scan_end(x, &sc, rc, "ThreadNames");
}

/* NVTX domains are created by eventType 75 rows whose text is the name;
 * the first DOMAINS_KEPT keep their names, the rest fold into the default
 * domain. The ranges' scan reads the 75 rows too, so that the table is
 * scanned once: a range whose domain was not seen yet (its 75 row comes
 * later in the table) makes load_domains read them all, once, through a
 * second connection (the scan's is busy on the reader thread). */
#define DOMAINS_KEPT 256
typedef struct domain_map {
  int64_t id[DOMAINS_KEPT];
  char *name[DOMAINS_KEPT];
  int n;
  int complete; /* every 75 row has been read */
} domain_map;

static const char *domain_name(const domain_map *m, int64_t id) {
  for (int i = 0; i < m->n; i++)
    if (m->id[i] == id) return m->name[i];
  return NULL; /* the default domain */
}

/* Adds a 75 row's domain (id in column i, name in column t) while the map
 * has room; a row with an unusable id is counted as skipped, an id given
 * again keeps its first name. */
static int domain_add(nsys *x, domain_map *m, const rp_cell *c, int i, int t) {
  if (m->n >= DOMAINS_KEPT) return DL_OK;
  if (!c_id_ok(c, i)) {
    x->st->skipped++;
    return DL_OK;
  }
  if (domain_name(m, c_int(c, i))) return DL_OK;
  if (!(m->name[m->n] = strdup(fit(x, c_text(c, t)))))
    return dl_err(x->err, x->errlen, DL_ENOMEM, "%s: out of memory", x->path);
  m->id[m->n++] = c_int(c, i);
  return DL_OK;
}

/* Reads every 75 row into m in table order (the rows seen before keep their
 * place: they are the table's first ones); their skips were counted by the
 * scan that found them, so the ones after are counted here only. */
static int load_domains(nsys *x, domain_map *m, int64_t seen) {
  static const char *const cols[] = {"domainId", "text", NULL};
  sqlite3 *main_db = x->db, *db = NULL;
  int rc;
  m->complete = 1;
  if ((rc = open_export(x, &db)) != DL_OK) return rc;
  sqlite3_stmt *st = NULL;
  x->db = db; /* prepare_select probes the columns through x->db */
  rc = prepare_select(x, "NVTX_EVENTS", cols, "eventType = 75", &st);
  x->db = main_db;
  if (rc == DL_OK) {
    int s = SQLITE_DONE;
    int64_t row = 0;
    while (m->n < DOMAINS_KEPT && (s = sqlite3_step(st)) == SQLITE_ROW) {
      if (row++ < seen) continue;
      rp_cell c[2] = {{.type = sqlite3_column_type(st, 0)}, {.type = sqlite3_column_type(st, 1)}};
      c[0].i = sqlite3_column_int64(st, 0);
      c[0].d = sqlite3_column_double(st, 0);
      c[1].s = col_text(st, 1);
      if ((rc = domain_add(x, m, c, 0, 1)) != DL_OK) break;
    }
    if (rc == DL_OK && m->n < DOMAINS_KEPT && s != SQLITE_DONE)
      rc = dl_err(x->err, x->errlen, DL_ECORRUPT, "%s: reading NVTX_EVENTS failed: %s", x->path,
                  sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rc;
}

#define PROGRESS_EVERY 65536

/* Push/pop (59) and start/end (60) ranges, already paired by the export,
 * and the domains (75) they name. */
static int import_nvtx(nsys *x) {
  static const char *const cols[] = {"!start", "!end", "!eventType", "text", "textId",
                                     "globalTid", "endGlobalTid", "domainId", "category",
                                     "color", NULL};
  static const int idcols[] = {4, 5, 6, 7, -1};
  domain_map dm = {.n = 0};
  sqlite3_stmt *st = NULL;
  int rc;
  int64_t n = 0, total, domain_rows = 0;
  if (!has_table(x, "NVTX_EVENTS")) return DL_OK;
  total = row_estimate(x, "NVTX_EVENTS");
  progress(x, "NVTX ranges", 0, total);
  if ((rc = prepare_select(x, "NVTX_EVENTS", cols, "eventType IN (59, 60, 75)", &st)) != DL_OK)
    goto out;
  /* texts hashed on the reading thread, their table slots prefetched
   * PREFETCH_ROWS rows ahead (dldb_writer_will_intern) */
  static const dl_sqlpage_filter kinds = {"eventType", 1, 3, {59, 60, 75}};
  scan sc = {.st = st, .s = SQLITE_DONE, .hash = dldb_writer_hash, .table = "NVTX_EVENTS",
             .cols = cols, .filter = &kinds};
  const rp_cell *c;
  while ((c = scan_row(&sc, 1u << 3))) {
    if (++n % PROGRESS_EVERY == 0) progress(x, "NVTX ranges", n, total);
    const rp_cell *ahead = rowpipe_peek(sc.rp, PREFETCH_ROWS);
    if (ahead && ahead[3].type == SQLITE_TEXT) dldb_writer_will_intern(x->w, ahead[3].h);
    if (c_int(c, 2) == 75) {
      domain_rows++;
      if (!dm.complete && (rc = domain_add(x, &dm, c, 7, 3)) != DL_OK) break;
      continue;
    }
    if (!c_times_ok(c, 0) || !c_ids_ok(c, idcols)) {
      x->st->skipped++;
      continue;
    }
    int64_t d = c_int(c, 7);
    const char *domain = domain_name(&dm, d);
    if (!domain && d != 0 && !dm.complete) {
      if ((rc = load_domains(x, &dm, domain_rows)) != DL_OK) break;
      domain = domain_name(&dm, d);
    }
    int64_t nid = 0;
    const char *name = NULL;
    uint64_t hash = 0;
    if (c[3].type == SQLITE_TEXT) {
      name = fit(x, c_text(c, 3));
      if (name == c[3].s) hash = c[3].h; /* not cut */
    }
    else if (c[4].type == SQLITE_NULL) name = "";
    else if ((rc = name_id(x, c_int(c, 4), &nid)) != DL_OK) break;
    int64_t g = c_int(c, 5), ge = c_is_int(c, 6) ? c_int(c, 6) : g;
    dldb_nvtx_range r = {
        .kind = c_int(c, 2) == 59 ? DLDB_NVTX_PUSHPOP : DLDB_NVTX_STARTEND,
        .domain = domain, .name = name, .name_id = nid, .name_hash = hash,
        .start_ns = c_int(c, 0), .end_ns = c_int(c, 1),
        .pid = gpid(g), .tid = gtid(g), .end_tid = gtid(ge),
        .category = (int32_t)c_int(c, 8), .color = (uint32_t)c_int(c, 9)};
    if ((rc = dldb_write_nvtx_range(x->w, &r, NULL, x->err, x->errlen)) != DL_OK) break;
    x->st->ranges++;
  }
  rc = scan_end(x, &sc, rc, "NVTX_EVENTS");
  progress(x, "NVTX ranges", n, n);
out:
  for (int i = 0; i < dm.n; i++) free(dm.name[i]);
  return rc;
}

/* 1 if (pid, corr) was seen before among the API rows; records it. Ids
 * outside [0, 2^26) and processes past the 16th are not checked, so that
 * the bits stay under 8 MiB a process (ids near 2^32 took 512 MiB each). */
static int corr_dupe(nsys *x, int64_t pid, int64_t corr, int *oom) {
  if (corr < 0 || corr >= ((int64_t)1 << 26)) return 0;
  int i = 0;
  while (i < x->nseen && x->seen[i].pid != pid) i++;
  if (i == x->nseen) {
    if (x->nseen == 16) return 0;
    x->seen[x->nseen++] = (struct corr_seen){.pid = pid};
  }
  struct corr_seen *c = &x->seen[i];
  size_t word = (size_t)corr >> 6;
  if (word >= c->nwords) {
    size_t nw = c->nwords ? c->nwords : 1024;
    while (nw <= word) nw *= 2;
    uint64_t *nb = realloc(c->bits, nw * sizeof *nb);
    if (!nb) {
      *oom = 1;
      return 0;
    }
    memset(nb + c->nwords, 0, (nw - c->nwords) * sizeof *nb);
    c->bits = nb;
    c->nwords = nw;
  }
  uint64_t bit = 1ull << (corr & 63);
  if (c->bits[word] & bit) return 1;
  c->bits[word] |= bit;
  return 0;
}

/* CUDA runtime and driver calls; eventClass 67-69 rows are backtrace
 * duplicates of the same calls and are left out (formats.md B.1). */
static int import_api(nsys *x) {
  static const char *const cols[] = {"!start", "!end", "eventClass", "globalTid", "correlationId",
                                     "nameId", "returnValue", NULL};
  static const int idcols[] = {2, 3, 4, 5, 6, -1};
  const char *table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  sqlite3_stmt *st = NULL;
  int64_t n = 0, total;
  if (!has_table(x, table)) return DL_OK;
  total = row_estimate(x, table);
  progress(x, "CUDA API calls", 0, total);
  static const dl_sqlpage_filter classes = {"eventClass", 1, 2, {0, 1}};
  const char *where = has_column(x, table, "eventClass") ? "eventClass IN (0, 1)" : NULL;
  int rc = prepare_select(x, table, cols, where, &st), oom = 0;
  if (rc != DL_OK) return rc;
  scan sc = {.st = st, .s = SQLITE_DONE, .table = table, .cols = cols,
             .filter = where ? &classes : NULL};
  const rp_cell *c;
  while ((c = scan_row(&sc, 0))) {
    if (++n % PROGRESS_EVERY == 0) progress(x, "CUDA API calls", n, total);
    if (!c_times_ok(c, 0) || !c_ids_ok(c, idcols)) {
      x->st->skipped++;
      continue;
    }
    int64_t g = c_int(c, 3), corr = c_int(c, 4);
    if (corr_dupe(x, gpid(g), corr, &oom)) {
      x->st->skipped++;
      continue;
    }
    if (oom) {
      rc = dl_err(x->err, x->errlen, DL_ENOMEM, "%s: out of memory", x->path);
      break;
    }
    int64_t nid;
    if ((rc = name_id(x, c_int(c, 5), &nid)) != DL_OK) break;
    dldb_api_call a = {.api_kind = c_int(c, 2) == 1 ? DLDB_API_DRIVER : DLDB_API_RUNTIME,
                       .name_id = nid, .start_ns = c_int(c, 0),
                       .end_ns = c_int(c, 1), .pid = gpid(g), .tid = gtid(g),
                       .correlation_id = corr,
                       .return_value = (int32_t)c_int(c, 6)};
    if ((rc = dldb_write_api_call(x->w, &a, x->err, x->errlen)) != DL_OK) break;
    x->st->api_calls++;
  }
  rc = scan_end(x, &sc, rc, table);
  progress(x, "CUDA API calls", n, n);
  return rc;
}

static int import_kernels(nsys *x) {
  static const char *const cols[] = {
      "!start", "!end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
      "demangledName", "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
      "registersPerThread", "staticSharedMemory", "dynamicSharedMemory", NULL};
  static const int idcols[] = {2, 3, 4, 5, 6, 7, 8, -1};
  const char *table = "CUPTI_ACTIVITY_KIND_KERNEL";
  sqlite3_stmt *st = NULL;
  int64_t n = 0, total;
  if (!has_table(x, table)) return DL_OK;
  total = row_estimate(x, table);
  progress(x, "kernels", 0, total);
  int rc = prepare_select(x, table, cols, NULL, &st);
  if (rc != DL_OK) return rc;
  scan sc = {.st = st, .s = SQLITE_DONE, .table = table, .cols = cols};
  const rp_cell *c;
  while ((c = scan_row(&sc, 0))) {
    if (++n % PROGRESS_EVERY == 0) progress(x, "kernels", n, total);
    if (!c_times_ok(c, 0) || !c_ids_ok(c, idcols)) {
      x->st->skipped++;
      continue;
    }
    int64_t lid = c_int(c, 7), sid = c_int(c, 8), l, sh;
    /* the demangled name, else the short one (and the other way round) */
    if (!*str(x, lid)) lid = sid;
    if (!*str(x, sid)) sid = lid;
    if ((rc = name_id(x, lid, &l)) != DL_OK) break;
    /* Nsight names every CUTLASS kernel for its wrapper ("Kernel"): name
     * it for the kernel type the wrapper launches instead (dl_kname.h) */
    sh = 0;
    if (dl_kname_is_wrapper(str(x, sid)) && (rc = wrapper_short_id(x, lid, &sh)) != DL_OK) break;
    if (!sh && (rc = name_id(x, sid, &sh)) != DL_OK) break;
    dldb_kernel k = {.short_name_id = sh, .long_name_id = l,
                     .device_id = (int32_t)c_int(c, 2), .context_id = (int32_t)c_int(c, 3),
                     .stream_id = (int32_t)c_int(c, 4), .gpu_start_ns = c_int(c, 0),
                     .gpu_end_ns = c_int(c, 1), .correlation_id = c_int(c, 5),
                     .pid = gpid(c_int(c, 6)),
                     .grid = {(int32_t)c_int(c, 9), (int32_t)c_int(c, 10),
                              (int32_t)c_int(c, 11)},
                     .block = {(int32_t)c_int(c, 12), (int32_t)c_int(c, 13),
                               (int32_t)c_int(c, 14)},
                     .registers_per_thread = (int32_t)c_int(c, 15),
                     .static_smem_bytes = (int32_t)c_int(c, 16),
                     .dynamic_smem_bytes = (int32_t)c_int(c, 17)};
    if ((rc = dldb_write_kernel(x->w, &k, x->err, x->errlen)) != DL_OK) break;
    x->st->kernels++;
  }
  rc = scan_end(x, &sc, rc, table);
  progress(x, "kernels", n, n);
  return rc;
}

/* ---- Activities read by one table-driven scan: memory copies, memsets and
 * synchronizations. Each kind is a table of the export's columns, each named
 * with the record field it fills; the scan selects them by name, checks the
 * interval and the id columns, fills the record and writes it. */

typedef enum act_type {
  A_START, /* the interval's start (required column) */
  A_END,   /* the interval's end (required column) */
  A_ID32,  /* an id (must be a usable id), stored as int32_t */
  A_ID64,  /* an id, stored as int64_t */
  A_PID,   /* a globalPid, stored as the process id (int64_t) */
  A_I32,   /* a value, stored as int32_t (or int) */
  A_I64,   /* a value, stored as int64_t */
} act_type;

typedef struct act_col {
  const char *name; /* the export's column ("!name": required) */
  act_type type;
  size_t off;       /* the field in the record */
} act_col;

typedef struct act_kind {
  const char *table, *what; /* the export's table; the progress label */
  const act_col *cols;      /* ends with a NULL name */
  size_t rec_size;
  int (*write)(dldb_writer *w, const void *rec, char *err, size_t errlen);
  size_t count_off; /* the dli_stats counter of rows written */
} act_kind;

_Static_assert(sizeof(int) == sizeof(int32_t), "int fields are filled as int32_t");

static int write_memcpy(dldb_writer *w, const void *r, char *err, size_t errlen) {
  return dldb_write_memcpy(w, r, err, errlen);
}
static int write_memset(dldb_writer *w, const void *r, char *err, size_t errlen) {
  return dldb_write_memset(w, r, err, errlen);
}
static int write_sync(dldb_writer *w, const void *r, char *err, size_t errlen) {
  return dldb_write_sync(w, r, err, errlen);
}

#define ACT(rec, col, type, field) {col, type, offsetof(rec, field)}
static const act_col memcpy_cols[] = {
    ACT(dldb_memcpy, "!start", A_START, gpu_start_ns),
    ACT(dldb_memcpy, "!end", A_END, gpu_end_ns),
    ACT(dldb_memcpy, "deviceId", A_ID32, device_id),
    ACT(dldb_memcpy, "streamId", A_ID32, stream_id),
    ACT(dldb_memcpy, "correlationId", A_ID64, correlation_id),
    ACT(dldb_memcpy, "globalPid", A_PID, pid),
    ACT(dldb_memcpy, "bytes", A_I64, bytes),
    ACT(dldb_memcpy, "copyKind", A_I32, copy_kind),
    ACT(dldb_memcpy, "srcKind", A_I32, src_kind),
    ACT(dldb_memcpy, "dstKind", A_I32, dst_kind),
    {NULL, A_I64, 0}};
static const act_col memset_cols[] = {
    ACT(dldb_memset, "!start", A_START, gpu_start_ns),
    ACT(dldb_memset, "!end", A_END, gpu_end_ns),
    ACT(dldb_memset, "deviceId", A_ID32, device_id),
    ACT(dldb_memset, "streamId", A_ID32, stream_id),
    ACT(dldb_memset, "correlationId", A_ID64, correlation_id),
    ACT(dldb_memset, "globalPid", A_PID, pid),
    ACT(dldb_memset, "bytes", A_I64, bytes),
    ACT(dldb_memset, "value", A_I32, value),
    ACT(dldb_memset, "memKind", A_I32, mem_kind),
    {NULL, A_I64, 0}};
static const act_col sync_cols[] = {
    ACT(dldb_sync, "!start", A_START, start_ns),
    ACT(dldb_sync, "!end", A_END, end_ns),
    ACT(dldb_sync, "deviceId", A_ID32, device_id),
    ACT(dldb_sync, "streamId", A_ID32, stream_id),
    ACT(dldb_sync, "correlationId", A_ID64, correlation_id),
    ACT(dldb_sync, "globalPid", A_PID, pid),
    ACT(dldb_sync, "syncType", A_I32, sync_type),
    ACT(dldb_sync, "eventId", A_I64, event_id),
    {NULL, A_I64, 0}};
#undef ACT

static const act_kind act_kinds[] = {
    {"CUPTI_ACTIVITY_KIND_MEMCPY", "memory copies", memcpy_cols, sizeof(dldb_memcpy), write_memcpy,
     offsetof(dli_stats, memcpys)},
    {"CUPTI_ACTIVITY_KIND_MEMSET", "memsets", memset_cols, sizeof(dldb_memset), write_memset,
     offsetof(dli_stats, memsets)},
    {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "synchronizations", sync_cols, sizeof(dldb_sync),
     write_sync, offsetof(dli_stats, syncs)},
};

#define ACT_MAX_COLS 16

/* The row's fields into rec (zeroed first); 0 when its interval or an id
 * column is unusable. */
static int act_fill(const act_kind *k, const rp_cell *c, int start, int end, void *rec) {
  if (c[start].type != SQLITE_INTEGER || c[end].type != SQLITE_INTEGER) return 0;
  int64_t a = c[start].i, b = c[end].i;
  if (a < 0 || b < a || b > DLI_MAX_TIME_NS) return 0;
  memset(rec, 0, k->rec_size);
  for (int i = 0; k->cols[i].name; i++) {
    const act_col *col = &k->cols[i];
    if ((col->type == A_ID32 || col->type == A_ID64 || col->type == A_PID) && !c_id_ok(c, i))
      return 0;
    int64_t v = col->type == A_PID ? gpid(c_int(c, i)) : c_int(c, i);
    unsigned char *f = (unsigned char *)rec + col->off;
    if (col->type == A_ID32 || col->type == A_I32) {
      int32_t v32 = (int32_t)v;
      memcpy(f, &v32, sizeof v32);
    } else {
      memcpy(f, &v, sizeof v);
    }
  }
  return 1;
}

/* Reads one activity kind's table (absent: nothing) into the dldb. */
static int import_activity(nsys *x, const act_kind *k) {
  const char *cols[ACT_MAX_COLS + 1];
  int start = -1, end = -1, ncols = 0;
  for (; k->cols[ncols].name && ncols < ACT_MAX_COLS; ncols++) {
    cols[ncols] = k->cols[ncols].name;
    if (k->cols[ncols].type == A_START) start = ncols;
    if (k->cols[ncols].type == A_END) end = ncols;
  }
  cols[ncols] = NULL;
  sqlite3_stmt *st = NULL;
  if (!has_table(x, k->table)) return DL_OK;
  progress(x, k->what, 0, row_estimate(x, k->table));
  int rc = prepare_select(x, k->table, cols, NULL, &st);
  if (rc != DL_OK) return rc;
  union { dldb_memcpy m; dldb_memset s; dldb_sync y; } rec;
  int64_t *count = (int64_t *)(void *)((char *)x->st + k->count_off);
  scan sc = {.st = st, .s = SQLITE_DONE};
  const rp_cell *c;
  int64_t n = 0;
  while ((c = scan_row(&sc, 0))) {
    n++;
    if (!act_fill(k, c, start, end, &rec)) {
      x->st->skipped++;
      continue;
    }
    if ((rc = k->write(x->w, &rec, x->err, x->errlen)) != DL_OK) break;
    (*count)++;
  }
  progress(x, k->what, n, n);
  return scan_end(x, &sc, rc, k->table);
}

static int import_activities(nsys *x) {
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < sizeof act_kinds / sizeof act_kinds[0]; i++)
    rc = import_activity(x, &act_kinds[i]);
  return rc;
}

/* OS runtime calls (OSRT_API, captured with -t osrt): eventClass 27 rows;
 * the OSRT start/finish markers (31, 32) are left out. A dldb without the
 * osrt_calls table (never: ours has it) skips them. */
static int import_osrt(nsys *x) {
  static const char *const cols[] = {"!start", "!end", "globalTid", "nameId", "returnValue",
                                     "nestingLevel", NULL};
  static const int idcols[] = {2, 3, 4, 5, -1};
  const char *table = "OSRT_API";
  sqlite3_stmt *st = NULL;
  dldb_osrt_writer *ow = NULL;
  if (!has_table(x, table)) return DL_OK;
  int rc = dldb_osrt_writer_open(x->w, &ow, x->err, x->errlen);
  if (rc == DL_ENOTFOUND) return DL_OK;
  if (rc != DL_OK) return rc;
  progress(x, "OS runtime calls", 0, row_estimate(x, table));
  const char *where = has_column(x, table, "eventClass") ? "eventClass NOT IN (31, 32)" : NULL;
  if ((rc = prepare_select(x, table, cols, where, &st)) != DL_OK) {
    dldb_osrt_writer_close(&ow);
    return rc;
  }
  scan sc = {.st = st, .s = SQLITE_DONE};
  const rp_cell *c;
  int64_t n = 0;
  while ((c = scan_row(&sc, 0))) {
    n++;
    if (!c_times_ok(c, 0) || !c_ids_ok(c, idcols)) {
      x->st->skipped++;
      continue;
    }
    int64_t g = c_int(c, 2), nid;
    if ((rc = name_id(x, c_int(c, 3), &nid)) != DL_OK) break;
    dldb_osrt_call oc = {.name_id = nid, .start_ns = c_int(c, 0), .end_ns = c_int(c, 1),
                         .pid = gpid(g), .tid = gtid(g), .return_value = c_int(c, 4),
                         .nesting = (int32_t)c_int(c, 5)};
    if ((rc = dldb_osrt_write(ow, &oc, x->err, x->errlen)) != DL_OK) break;
  }
  progress(x, "OS runtime calls", n, n);
  rc = scan_end(x, &sc, rc, table);
  dldb_osrt_writer_close(&ow);
  return rc;
}

static int has_activity(nsys *x) {
  static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                                       "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                                       "NVTX_EVENTS", NULL};
  for (int i = 0; tables[i]; i++)
    if (has_table(x, tables[i])) return 1;
  return 0;
}

/* The import of dli_nsys_import, x set up by it or dli_nsys_import_mem. */
static int import_export(nsys *x) {
  const char *path = x->path;
  char *err = x->err;
  size_t errlen = x->errlen;
  dldb_writer *w = x->w;
  int rc;
  memset(x->st, 0, sizeof *x->st);
  if (!(x->cut = malloc(DLI_MAX_NAME_BYTES + 1))) {
    rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", path);
    goto out;
  }
  if ((rc = open_export(x, &x->db)) != DL_OK) goto out;
  sqlite3_busy_timeout(x->db, 2000);
  /* A bigger page cache for the scans; the export is only read. */
  sqlite3_exec(x->db, "PRAGMA cache_size=-16384", NULL, NULL, NULL);
  sqlite3_stmt *probe = NULL;
  if (sqlite3_prepare_v2(x->db, "SELECT count(*) FROM sqlite_master", -1, &probe, NULL) !=
          SQLITE_OK ||
      sqlite3_step(probe) != SQLITE_ROW) {
    rc = dl_err(err, errlen, DL_ECORRUPT, "%s: not a readable SQLite file: %s", path,
                sqlite3_errmsg(x->db));
    sqlite3_finalize(probe);
    goto out;
  }
  sqlite3_finalize(probe);
  if (!has_table(x, "StringIds")) {
    rc = dl_err(err, errlen, DL_EFORMAT, "%s: not an Nsight Systems export (no StringIds table)",
                path);
    goto out;
  }
  if (!has_activity(x)) {
    rc = dl_err(err, errlen, DL_EFORMAT,
                "%s: the Nsight Systems export holds no CUDA or NVTX activity (no kernel, API, "
                "memory or NVTX tables); profile with -t cuda,nvtx",
                path);
    goto out;
  }
  meta_value(x, "EXPORT_PRODUCT_VERSION", x->st->product_version, sizeof x->st->product_version);
  meta_value(x, "EXPORT_SCHEMA_VERSION", x->st->schema_version, sizeof x->st->schema_version);
  if ((rc = load_strings(x)) != DL_OK || (rc = import_sysconfig(x)) != DL_OK ||
      (rc = import_gpus(x)) != DL_OK || (rc = import_threads(x)) != DL_OK)
    goto out;
  /* the three big tables (and their strings) written as pages where the file allows */
  if ((rc = dldb_writer_raw_pages(w, 1, err, errlen)) != DL_OK ||
      (rc = import_nvtx(x)) != DL_OK || (rc = import_api(x)) != DL_OK ||
      (rc = import_kernels(x)) != DL_OK ||
      (rc = dldb_writer_raw_pages(w, 0, err, errlen)) != DL_OK ||
      (rc = import_activities(x)) != DL_OK || (rc = import_osrt(x)) != DL_OK)
    goto out;
  rc = dldb_write_meta(w, "source_format", "nsys-sqlite", err, errlen);
  if (rc == DL_OK && x->st->product_version[0])
    rc = dldb_write_meta(w, "source_nsys_version", x->st->product_version, err, errlen);
out:
  free(x->text);
  free(x->off);
  free(x->dl_id);
  free(x->cut);
  for (int i = 0; i < x->nseen; i++) free(x->seen[i].bits);
  sqlite3_close(x->db);
  return rc;
}

int dli_nsys_import(const char *path, const dli_opts *opts, dldb_writer *w, dli_stats *stats,
                    char *err, size_t errlen) {
  dli_stats local;
  nsys x = {.path = path, .w = w, .st = stats ? stats : &local, .opts = opts, .err = err,
            .errlen = errlen};
  return import_export(&x);
}

int dli_nsys_import_mem(const void *data, size_t size, const char *name, const dli_opts *opts,
                        dldb_writer *w, dli_stats *stats, char *err, size_t errlen) {
  static const unsigned char empty[1];
  dli_stats local;
  nsys x = {.path = name ? name : "<memory>", .w = w, .st = stats ? stats : &local,
            .opts = opts, .err = err, .errlen = errlen, .mem = size ? data : empty,
            .mem_n = size};
  return import_export(&x);
}
