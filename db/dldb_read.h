/*
 * dldb_read.h - internals of the read side (dldb.h), shared by its files:
 * dldb_handle.c (a handle's caches, errors), dldb_shared.c (what the
 * handles of one file share, SQL functions), dldb_open.c (open, validate,
 * close) and dldb_query.c (view queries). Not part of the public API.
 *
 * A handle holds one read-only SQLite connection, what validation learned
 * (dldb_info), a per-view column cache, a cache of prepared statements keyed
 * by SQL text, and a reference to what the handles of the file share (a
 * cache of list counts, the name filter's bitset, the name order's places).
 * The database is treated as
 * immutable while a handle is open (the viewer never writes it, and a
 * replaced file is detected by dldb_verify_file), so cached counts stay valid.
 */
#ifndef DLDB_READ_H
#define DLDB_READ_H

#include <sqlite3.h>
#include <sys/types.h>

#include "dldb.h"

#define DLDB__STMT_CACHE 48  /* prepared statements kept per handle */
#define DLDB__COUNT_CACHE 64 /* list counts kept per file (dldb__shared) */

/* What the handles of one file share (dldb_open_again): the list counts and
 * the state of the name filter and the name order (dldb_query.c). Counted
 * references, thread-safe. */
typedef struct dldb__shared dldb__shared;

typedef struct dldb__viewcols {
  char *view;           /* owned */
  int n;                /* columns; 0: the view does not exist */
  char **names;         /* owned, n entries */
  dldb_coltype *types;  /* owned, n entries */
  int sampled;          /* 1: untyped columns got their type from a row */
} dldb__viewcols;

typedef struct dldb__stmt {
  char *sql;            /* owned; NULL: free slot */
  sqlite3_stmt *stmt;
  uint64_t last_use;    /* for least-recently-used eviction */
} dldb__stmt;

struct dldb {
  sqlite3 *sql;
  char *path;           /* as given to dldb_open_ro */
  char *uri;            /* the file: URI the connection was opened with */
  const void *mem;      /* dldb_open_mem: the database's bytes (borrowed), else NULL */
  size_t mem_n;
  dev_t dev;            /* identity of the file at open, for dldb_verify_file */
  ino_t ino;
  dldb_info info;
  dldb__viewcols *views;
  int n_views;
  dldb__stmt stmts[DLDB__STMT_CACHE];
  uint64_t use_clock;
  dldb__shared *shared;  /* a reference: counts, name filter, name order */
};

/* Returns the cached prepared statement for sql, preparing it on first use.
 * The statement is reset and unbound; the caller resets it after use
 * (dldb__stmt_done). NULL on error, with one line in err. */
sqlite3_stmt *dldb__stmt_get(dldb *db, const char *sql, char *err, size_t errlen);

/* Resets a statement from dldb__stmt_get so it can be reused. */
void dldb__stmt_done(sqlite3_stmt *stmt);

/* Frees the handle's own caches (statements, columns). */
void dldb__caches_free(dldb *db);

/* 1 when the file has the view (sqlite_master; for the readers that
 * dldb_query.c calls, which do not call back into it), else 0. */
int dldb__view_exists(dldb *db, const char *view);

/* Maps an SQLite result code to a DL_E* and writes "PATH: WHAT: message"
 * (with the DLProf wording for damaged files). Returns the DL_E* code. */
int dldb__sql_err(dldb *db, int sqlite_rc, const char *what, char *err, size_t errlen);

dldb__shared *dldb__shared_new(void);             /* one reference; NULL: no memory */
dldb__shared *dldb__shared_ref(dldb__shared *m);  /* another reference to m */
void dldb__shared_unref(dldb__shared *m);         /* frees m with its last reference */

/* The cached count of key (SQL text and bound values, dldb_query.c): 1 and
 * *value when cached, else 0. dldb__count_put caches one, taking ownership
 * of key (malloc'ed) and evicting the oldest past DLDB__COUNT_CACHE. */
int dldb__count_get(dldb__shared *m, const char *key, int64_t *value);
void dldb__count_put(dldb__shared *m, char *key, int64_t value);

/* The file's last kept bitset (one: a list's count, then its rows, ask for
 * the same): dldb__memo_get copies its nwords words into bits and its
 * value into *value when key (the reader's text for what it answers) is
 * the kept one's: 1, else 0. dldb__memo_put keeps a copy of bits, in
 * place of the last (none without memory). m may be NULL: nothing. */
int dldb__memo_get(dldb__shared *m, const char *key, uint64_t *bits, size_t nwords,
                   int64_t *value);
void dldb__memo_put(dldb__shared *m, const char *key, const uint64_t *bits, size_t nwords,
                    int64_t value);

/* Registers on a connection dldb_dim3(text): "x, y, z" -> an integer that
 * sorts launch dimensions numerically (x, then y, then z); and
 * dldb_strmatch(id, f): 1 when strings.value of id contains the lower-cased
 * f, ASCII case folded, as instr(lower(value), f) > 0; dldb_strrank(id):
 * the place of strings.value of id in value order, NULL for none (m keeps
 * their state and must outlive the connection). */
int dldb__register_functions(sqlite3 *sql, dldb__shared *m);

/* 1 when some strings.value contains the lower-cased pattern (as
 * dldb_strmatch sees it, through m's shared bitset, read through sql when
 * it is of another pattern), 0 when none does, or -(an SQLite error code). */
int dldb__strmatch_any(dldb__shared *m, sqlite3 *sql, const char *pattern);

/* The NVTX statistics views of one aggregation through their name order
 * and forms (dldb_nvtxpage.c): dldb__nvtx_count sets *filtered for in's
 * filter, dldb__nvtx_rows gives fn in's page; each returns 1 when it
 * answered, 0 when in is not for it (the views are read as before), or a
 * negative DL_E*. */
int dldb__nvtx_count(dldb *db, const dldb_query *in, int64_t *filtered, char *err,
                     size_t errlen);
int dldb__nvtx_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                    size_t errlen);

/* A page of a whole aggregation's kernel view (no filter) sorted by
 * kernel_duration, through the stored launches by duration
 * (view_dl_kernel_dur_chunks; dldb_kdpage.c): the durations of its first
 * and last rows (*lo <= *hi), the rows before the first of them in the
 * page's order (*before), and the launch times of every launch of a
 * duration in [*lo, *hi] as a JSON array (*times, the caller frees it).
 * 1 when found, 0 when the file or the aggregation has no such launches
 * (read the plain way), 2 when the offset is past the rows, or a negative
 * DL_E*. */
int dldb__kdurs_window(dldb *db, const dldb_query *in, int64_t *lo, int64_t *hi,
                       int64_t *before, char **times, char *err, size_t errlen);

/* view_group_ops through its stored orders (dldb_gopage.c):
 * dldb__gops_count sets *total for in's scope (the aggregation, or a
 * parent's rows), dldb__gops_rows gives fn in's page; each returns 1 when
 * it answered, 0 when in is not for it (the view is read as before), or a
 * negative DL_E*. */
int dldb__gops_count(dldb *db, const dldb_query *in, int64_t *total, char *err, size_t errlen);
int dldb__gops_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                    size_t errlen);

/* Name indexes (dldb_nameidx.c): a view whose filter columns our dldbs
 * also keep in a trigram index (db/schema.sql aggr_dl_op_names), read
 * through a view of the view's rows and columns with one more, which
 * MATCH reads: the filter's rows are those it finds, each matched as any. */
typedef struct dldb__nameidx {
  const char *index; /* the view with the index */
  const char *match; /* its column that MATCH reads */
} dldb__nameidx;

/* The name index of view for filter, read on the view's filter columns
 * cols[0..n-1], where the file has one that answers it; else NULL. */
const dldb__nameidx *dldb__nameidx_for(dldb *db, const char *view, const char *const *cols,
                                       int n, const char *filter);

/* filter as an FTS5 string ('"' around it, each '"' in it doubled),
 * malloc'ed; NULL: out of memory. */
char *dldb__nameidx_string(const char *filter);

/* NVIDIA DLProf files: creates TEMP timeline views over their read_only_*
 * tables (dldb_timeline.c); other files: nothing. DL_OK or DL_EFORMAT. */
int dldb__timeline_views(dldb *db);

/* One result row of a statement (dldb.h's dldb_row), valid inside the
 * callback. */
struct dldb_row {
  sqlite3_stmt *st;
  int n;
};

/* view_iteration_ops over a whole aggregation (dldb_iterops.c): per op, its
 * rows (`calls`) and the op's own columns; the rows' sort keys, without the
 * op. */
#define DLDB__ITEROPS_CALLS "view_dl_iteration_op_calls"
#define DLDB__ITEROPS_KEYS "view_dl_iteration_op_keys"
/* Marks in the keys' orders (db/schema.sql aggr_dl_iter_op_marks). */
#define DLDB__ITEROPS_MARKS "view_dl_iteration_op_marks"
/* The condition of db/schema.sql's partial indexes aggr_iter_ops_by_*: a
 * query states it to read one. */
#define DLDB__ITEROPS_INDEX_COND "aggr_id > -1"

/* A page of in read by the views above where it can be (no column filter,
 * a whole aggregation, view_iteration_ops' own tie-break): 1 when read (fn
 * had its rows, none past the matching rows), 0 when it is to be read the
 * plain way, or a negative DL_E*. */
int dldb__iterops_rows(dldb *db, const dldb_query *in, dldb_row_fn fn, void *ctx, char *err,
                       size_t errlen);

/* The kernel lists read by group (dldb_kpage.c, db/schema.sql's
 * aggr_dl_kernel_groups): each group's launches in launch order, a chunk
 * of keys a row (DLDB__KG_SEQ); the rows of the kernel views by key
 * (DLDB__KG_ROWS) and their launch times (DLDB__KG_TIMES). */
#define DLDB__KG_SEQ "view_dl_kernel_seq_chunks"
#define DLDB__KG_ROWS "view_dl_kernel_launch_rows"
#define DLDB__KG_TIMES "view_dl_kernel_launch_times"
/* dldb__kpage_rows steps groups (a statement on view_dl_kernel_groups, in
 * the page's order, with columns group_id and calls) and gives fn the rows
 * offset to offset + limit of the list they make, with the columns cols
 * (n of them, of DLDB__KG_ROWS). DL_OK or a negative DL_E*; resets
 * groups. */
int dldb__kpage_rows(dldb *db, sqlite3_stmt *groups, int64_t aggr_id, int64_t offset,
                     int64_t limit, const char *const *cols, int n, dldb_row_fn fn, void *ctx,
                     char *err, size_t errlen);
/* An order of each group's launches that a merged page reads them in:
 * view `chunks` has (aggr_id, group_id, chunk, launches), each group's
 * places in the order from 0, DLDB_PAIR_CHUNK a row, the value rising with
 * the place; `value` is the kernel views' column the order sorts by. By
 * seq: the chunks are DLDB__KG_SEQ's (the value looked up in
 * DLDB__KG_TIMES); else each place is [value, place in DLDB__KG_SEQ]. */
typedef struct dldb__korder {
  const char *chunks, *value;
  int by_seq;
} dldb__korder;
/* The page of in (sorted by order's value; offset, limit, desc, tiebreak)
 * of the launches of n groups (at most DLDB__KMERGE_MAX; ids gid, counts
 * calls) of aggregation aggr_id: the values at its first and last place
 * found by a search of the groups' places, then the rows between them
 * read in the page's order, with the columns cols. */
#define DLDB__KMERGE_MAX 64
int dldb__kpage_merged(dldb *db, int64_t aggr_id, const dldb__korder *order, const int64_t *gid,
                       const int64_t *calls, int n, const dldb_query *in, const char *const *cols,
                       int ncols, dldb_row_fn fn, void *ctx, char *err, size_t errlen);

#endif
