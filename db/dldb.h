/*
 * dldb.h - the viewer's read side: reading a dldb through its view layer.
 * (Producers and the analysis write and scan through dldb_write.h and the
 * headers it lists.)
 *
 * A dldb is an SQLite database whose `view_*` views (DLProf 1.8 names and
 * columns, docs/dldb.md) are the contract between producers and readers.
 * This module opens one read-only, recognises who wrote it (our dlprof or
 * NVIDIA DLProf 1.x), and runs bounded, parameterised queries on its views.
 * It never writes: files are opened with SQLITE_OPEN_READONLY and a file that
 * does not exist is never created. All SQL that reads a dldb lives in db/.
 *
 * Ownership: every `dldb_*_open` returns a new handle, freed with
 * dldb_close(&h), which sets the pointer to NULL; dldb_close(NULL) and
 * dldb_close(&null) do nothing. Strings returned by accessors are borrowed
 * from the handle or the row and live until the next call on it.
 * A handle is used by one thread at a time; open one per thread.
 *
 * Errors: functions return DL_OK or a negative DL_E* (common/dl.h) and, when
 * err is not NULL, write one line that names the file and the problem.
 */
#ifndef DLDB_H
#define DLDB_H

#include <stdint.h>

#include "dl.h"

typedef struct dldb dldb;

typedef enum dldb_producer {
  DLDB_PRODUCER_UNKNOWN = 0,
  DLDB_PRODUCER_DLPROF = 1, /* written by this project (table dl_meta) */
  DLDB_PRODUCER_NVIDIA = 2, /* written by NVIDIA DLProf 1.x */
} dldb_producer;

/* What dldb_open_ro learned about a database. */
typedef struct dldb_info {
  dldb_producer producer;
  int schema_version;          /* our PRAGMA user_version; 0 for NVIDIA's */
  char current_version[32];    /* view_db_version.current_version, e.g. "1.8.0" */
  char original_version[32];   /* view_db_version.original_version */
  int64_t default_aggr_id;     /* the newest aggregation (of several domains: the newest
                                  of default_domain, view_performance_summary says) */
  char default_key_op[256];    /* its key op ("": none found) */
  char default_domain[256];    /* the only domain, else "default-domain" (where it has no
                                  aggregation: the oldest aggregation's domain) */
  int integrity_checked;       /* 1: PRAGMA quick_check of the whole file ran and passed
                                  (see dldb_open_ro) */
} dldb_info;

/* Files up to this size get SQLite's quick check (every page read: about
 * 6 s per GB here) when opened; bigger ones the header checks and the quick
 * check of what opening reads (the schema and the small tables of the
 * marker, version and aggregation checks), so that the start costs the same
 * whatever the profile's size. */
#define DLDB_QUICK_CHECK_MAX_BYTES ((int64_t)64 << 20)

/* Process-wide SQLite settings for a reader with many threads: turns off
 * SQLite's memory statistics, which take one global mutex on every
 * allocation. Optional; call once before any other dldb or SQLite call.
 * Returns DL_OK, or DL_EDB when SQLite was already in use. */
int dldb_global_init(void);

/* Opens path read-only and validates it, in this order: the path exists and
 * is a regular file; it is SQLite and not truncated (its size against the
 * page count in its header) or corrupt (PRAGMA quick_check, for files up to
 * DLDB_QUICK_CHECK_MAX_BYTES; info->integrity_checked says whether it ran;
 * bigger files: of the tables opening reads);
 * it has a dldb marker table (ours: dl_meta; NVIDIA's:
 * read_only_system_config); view_db_version exists and its version is
 * supported (1.x); view_aggregations has at least one row. On success
 * *out is a new handle and *info (if not NULL) is filled. The file is never
 * modified, and never created. */
int dldb_open_ro(const char *path, dldb **out, dldb_info *info, char *err, size_t errlen);

/* dldb_open_ro for a file this process has just written and committed
 * (dldb_writer_commit): every check but the quick check, which reads the
 * whole file (seconds per GB) to find damage a fresh file cannot have. */
int dldb_open_ro_written(const char *path, dldb **out, dldb_info *info, char *err,
                         size_t errlen);

/* dldb_open_ro of a database held in memory (size bytes at data,
 * borrowed until the handle and its dldb_open_again handles are closed,
 * never written), named name in errors (NULL: "<memory>"): the same header
 * checks and validation, SQLite reading the bytes through
 * sqlite3_deserialize without a copy. For harnesses that feed the reader
 * many small inputs (fuzz/); dldb_verify_file has no file to find. */
int dldb_open_mem(const void *data, size_t size, const char *name, dldb **out, dldb_info *info,
                  char *err, size_t errlen);

/* Opens another read-only handle on the file db was opened on (for another
 * thread), skipping the validation dldb_open_ro did: no quick check, no
 * marker or version checks; dldb_info is copied. *out is a new handle. */
int dldb_open_again(const dldb *db, dldb **out, char *err, size_t errlen);

/* Closes *db and sets it to NULL. */
void dldb_close(dldb **db);

/* What dldb_open_ro learned (borrowed from the handle). */
const dldb_info *dldb_get_info(const dldb *db);

/* DL_OK if the path still names the file that was opened; DL_ENOTFOUND when
 * it was removed, DL_EIO when it was replaced by another file (a handle keeps
 * reading the old one). Costs one stat(). */
int dldb_verify_file(const dldb *db, char *err, size_t errlen);

/* The path the handle was opened with (borrowed). */
const char *dldb_path(const dldb *db);

/* 1 if the database has a view of that name (e.g. "view_group_ops"), else 0. */
int dldb_has_view(dldb *db, const char *view);

/* ---- Views and their columns ------------------------------------------- */

typedef enum dldb_coltype {
  DLDB_COL_INTEGER = 1, /* INTEGER, BOOLEAN, or numeric without a type */
  DLDB_COL_REAL = 2,
  DLDB_COL_TEXT = 3,
} dldb_coltype;

/* Column names of a view as the database declares them (PRAGMA table_info).
 * Returns the number of columns (> 0), or a negative DL_E* (DL_ENOTFOUND for
 * a missing view). names/types are borrowed from the handle. */
int dldb_view_columns(dldb *db, const char *view, const char *const **names,
                      const dldb_coltype **types);

/* ---- Bounded view queries ----------------------------------------------- */

#define DLDB_MAX_EQ 8
#define DLDB_MAX_TIEBREAK 4
#define DLDB_MAX_FILTER_COLS 12

/* One query on one view. Every value is bound, never spliced into SQL;
 * column names (sort, eq, tiebreak) must be columns of the view
 * or the query fails with DL_EINVAL. Rows come as
 *   SELECT * FROM view WHERE aggr_id=? AND domain_name=? AND eq...
 *     AND (instr(lower(name1), lower(?)) > 0 OR ...)
 *   ORDER BY sort dir, tiebreak... dir LIMIT ? OFFSET ?
 * Launch dimensions (columns `grid`, `block`: "x, y, z") sort numerically.
 * Counts of the same query are cached per handle (the file is treated as
 * immutable while open). */
typedef struct dldb_query {
  const char *view;          /* e.g. "view_op_nodes" */
  int64_t aggr_id;           /* applied when the view has aggr_id; < 0: none */
  const char *domain;        /* applied when the view has domain_name; NULL: none */
  int n_eq;                  /* exact-match filters */
  struct {
    const char *column;
    const char *value;       /* compared as the column's type (DL_EINVAL when it
                                does not parse as one) */
  } eq[DLDB_MAX_EQ];
  const char *filter;        /* case-insensitive (ASCII) substring on filter_cols;
                                NULL or "": none; % and _ are literal */
  const char *filter_cols[DLDB_MAX_FILTER_COLS]; /* NULL-terminated; those absent
                                from the view are skipped; none: filter matches nothing */
  const char *sort;          /* a column; NULL: the view's own order */
  int desc;                  /* 1: descending */
  const char *tiebreak[DLDB_MAX_TIEBREAK]; /* NULL-terminated columns ordered after
                                sort, ascending, so pages are stable */
  int64_t offset;            /* rows to skip */
  int64_t limit;             /* rows to return; < 0: all */
  const char *tree_parent;   /* a tree of names (a view with row_full_name and
                                row_type, view_group_ops): the rows whose parent
                                group is the group of this row_full_name, "": the
                                top rows; the filter then also keeps the groups
                                with a matching row below them (the way down to
                                it); NULL: every row. DL_EINVAL on another view */
} dldb_query;

/* One result row, valid only inside the callback. */
typedef struct dldb_row dldb_row;
int dldb_row_count(const dldb_row *row);
const char *dldb_row_name(const dldb_row *row, int i);
/* The value's storage class: DLDB_COL_* of the value, or 0 for NULL. */
int dldb_row_type(const dldb_row *row, int i);
int64_t dldb_row_int(const dldb_row *row, int i);
double dldb_row_real(const dldb_row *row, int i);
const char *dldb_row_text(const dldb_row *row, int i); /* "" for NULL */

/* Called once per row; return 0 to go on, non-zero to stop (the query then
 * returns DL_OK). */
typedef int (*dldb_row_fn)(void *ctx, const dldb_row *row);

/* Counts for a list query: total ignores q->filter, filtered applies it
 * (equal to total, without a second query, when there is no filter). */
int dldb_query_count(dldb *db, const dldb_query *q, int64_t *total, int64_t *filtered,
                     char *err, size_t errlen);

/* Runs q and calls fn for each row, in order. */
int dldb_query_rows(dldb *db, const dldb_query *q, dldb_row_fn fn, void *ctx, char *err,
                    size_t errlen);

/* 1 if view_aggregations has that aggr_id, 0 if not, negative on error. */
int dldb_aggr_exists(dldb *db, int64_t aggr_id);

/* 1 if view_domains has that domain, 0 if not, negative on error. */
int dldb_domain_exists(dldb *db, const char *domain);

#endif
