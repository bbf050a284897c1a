/*
 * dldb_write_internal.h - the writer's insides, shared by the files that
 * implement dldb_write.h (dldb_write.c: life cycle, strings, raw inserts),
 * dldb_scan.h (dldb_scan.c), dldb_aggr.h (dldb_aggr.c), dldb_write_live.h
 * (dldb_write_live.c), dldb_write_durs.h (dldb_write_durs.c), dldb_write_kgroups.h
 * (dldb_kgroups.c), dldb_write_pyframe.h (dldb_write_pyframe.c) and our extension
 * tables (dldb_dl.c, dldb_stats.c).
 * Not for use outside db/ (tests/db reads a writer's insides through it).
 */
#ifndef DLDB_WRITE_INTERNAL_H
#define DLDB_WRITE_INTERNAL_H

#include <sqlite3.h>

#include "dl_sqlleaf.h"
#include "dldb_batch.h"
#include "dldb_write.h"

enum {
  DLDB__S_STRING_GET,
  DLDB__S_STRING_AHEAD,
  DLDB__S_META,
  DLDB__S_DOMAIN_FIND,
  DLDB__S_DOMAIN_ADD,
  DLDB__S_SYSCONFIG,
  DLDB__S_GPU,
  DLDB__S_THREAD,
  DLDB__S_RANGE_STACK,
  DLDB__S_MEMCPY,
  DLDB__S_MEMSET,
  DLDB__S_SYNC,
  DLDB__S_AGGR,
  DLDB__S_SUMMARY,
  DLDB__S_ITER,
  DLDB__S_OP,
  DLDB__S_ITER_OP,
  DLDB__S_OP_KERNEL,
  DLDB__S_GROUP,
  DLDB__S_OP_TYPE,
  DLDB__S_GPU_UTIL,
  DLDB__S_FINDING,
  DLDB__S_COUNT
};

/* The tables written through a dldb__batch (many rows to a statement). */
enum {
  DLDB__B_STRING,
  DLDB__B_NVTX,
  DLDB__B_API,
  DLDB__B_KERNEL,
  DLDB__B_KATTR,
  DLDB__B_PYFRAME,    /* dl_python_frames (dldb_write_pyframe.c) */
  DLDB__B_KMARK,      /* aggr_dl_kernel_marks (dldb_kgroups.c) */
  DLDB__B_KGROUP,     /* aggr_dl_kernel_groups (dldb_kgroups.c) */
  DLDB__B_STATS,      /* aggr_stats (dldb_stats.c) */
  DLDB__B_NVTX_STATS, /* aggr_nvtx_stats, schema 2 files (dldb_stats.c) */
  DLDB__B_NVTX_RUNS,  /* aggr_nvtx_runs (dldb_stats.c) */
  DLDB__B_NVTX_ONE,   /* ... its rows of one range: no statistics of several (NULL) */
  DLDB__B_PROJ_ONE,   /* ... the same of the GPU projection (kind 7) */
  DLDB__B_COUNT
};

/* The orders kept as chunks of pairs (dldb_pchunks.c). */
enum {
  DLDB__PC_KDUR,  /* aggr_dl_kernel_dur_chunks: [duration, launch time] */
  DLDB__PC_KSEQ,  /* aggr_dl_kernel_seq_chunks: [iter_value, kernel_id] */
  DLDB__PC_KDSEQ, /* aggr_dl_kernel_dseq_chunks: [duration, place in launch order] */
  DLDB__PC_COUNT
};

/* The file's table of NVTX statistics rows (dldb_stats.c). */
enum {
  DLDB__NVTX_UNKNOWN,  /* not looked up yet */
  DLDB__NVTX_RUNS,     /* aggr_nvtx_runs and aggr_nvtx_totals (schema 3) */
  DLDB__NVTX_STATS,    /* aggr_nvtx_stats (schema 2) */
  DLDB__NVTX_IN_STATS  /* aggr_stats (schema 1) */
};

/* Bytes of string text cached in memory; later strings live in SQLite only. */
#define DLDB__INTERN_BUDGET ((size_t)32 << 20)
#define DLDB__DOMAINS_KEPT 64 /* domain ids a writer remembers (dldb_write_domain) */
#define DLDB__ARENA_CHUNK ((size_t)1 << 20)
/* Uncached strings returned by dldb_writer_string() stay valid for this
 * many further calls. */
#define DLDB__SCRATCH 4
/* Uncached strings are read ahead in blocks of this many ids (and at most
 * about this many bytes): callers ask for them in about ascending order. */
#define DLDB__AHEAD_ROWS 256
#define DLDB__AHEAD_BYTES ((size_t)256 << 10)
/* The page cache of a writer's connection while it reads
 * (dldb_writer_begin_reads, dldb_writer_reader): rows are read once, in
 * order, while the analysis holds the most memory, so the 64 MiB cache
 * writes want would be memory for nothing. */
#define DLDB__READ_CACHE_KIB 4096

typedef struct dldb__chunk {
  struct dldb__chunk *next;
  size_t used, cap;
  char data[];
} dldb__chunk;

typedef struct dldb__slot {
  uint64_t hash;
  int64_t id; /* 0: empty */
} dldb__slot;

struct dldb_writer {
  sqlite3 *db;
  char *path;         /* final path */
  char *tmp;          /* temporary path (new files only) */
  int force, existing;
  int64_t origin;     /* ns subtracted from producer times */
  int64_t min_rel;    /* the smallest start time stored, after subtracting
                         it; INT64_MAX: none (dldb_writer_rebase) */
  int64_t batch_rows, pending;
  int in_tx, in_aggr;
  int reader;         /* dldb_writer_reader's: in_tx is its read transaction */
  int durs_by_caller; /* the open aggregation's launches by duration come
                         from dldb_aggr_kernel_dur, not from dldb_aggr_end */
  int kgroups_by_caller; /* ... and its kernel groups, seq and marks rows from
                            dldb_write_kgroups.h's calls */
  int kgdurs_by_caller;  /* ... and its groups' duration orders */
  struct dldb__pchunk *pc[DLDB__PC_COUNT]; /* the open aggregation's orders
                                              kept as chunks (dldb_pchunks.c) */
  sqlite3_stmt *stmts[DLDB__S_COUNT];
  dldb__batch batch[DLDB__B_COUNT];   /* rows not yet in their table */
  int nvtx_layout;                    /* where NVTX statistics go: DLDB__NVTX_* */
  struct dl_sqlbuild_set *bulk;       /* tables being built page by page, or NULL: */
  struct dl_sqlbuild *bulk_tab[DLDB__B_COUNT]; /* the batches' tables in it */
  struct dl_sqlbuild *kidx_bulk;      /* aggr_kernels_by_time in it (dldb_aggr_kernels_*) */
  int raw_pages;                      /* dldb_writer_raw_pages: the next raw row may begin one */
  struct dl_sqlbuild *nvtx_bulk;      /* aggr_nvtx_runs being built page by page
                                         (dldb_aggr_nvtx_rows_begin), or NULL */
  struct dl_sqlbuild *pc_bulk[DLDB__PC_COUNT][2]; /* the orders' chunk tables and
                                                     their keys' indexes in it
                                                     (dldb_write_orders.h), or NULL */
  int64_t aggr_id;                    /* the open aggregation */
  int64_t nvtx_total[2], nvtx_rows[2]; /* its aggr_nvtx_runs rows of kinds 6, 7 */
  struct dldb__zones *nvtx_zones;      /* their zone maps (dldb_nvtxzones.h) */
  int64_t nvtx_max_id, kernel_max_id; /* nvtx_ranges, kernels ids are assigned here */
  /* interning: strs[id] points into the arena for cached strings (NULL
   * or past scap: only in SQLite); htab maps hashes to cached ids */
  char **strs;
  size_t scap, nstr;
  int64_t max_id;
  dldb__slot *htab;
  size_t hcap;
  /* strings past the budget: open addressing, a slot is the hash's high 32
   * bits << 32 | id (0: empty); a match is confirmed by reading the text */
  uint64_t *otab;
  size_t ocap, on;
  int otab_stale; /* otab lacks strings (dropped, or not built): rebuild first */
  dldb__chunk *arena;
  size_t cached_bytes;
  char *scratch[DLDB__SCRATCH]; /* dldb_writer_string() of uncached ids, a ring */
  size_t scratch_cap[DLDB__SCRATCH];
  int scratch_next;
  /* read-ahead block of uncached strings: ids ahead_lo..ahead_hi were read
   * (none when ahead_hi < ahead_lo); ahead_off[id - ahead_lo] is the text's
   * offset in ahead_text, -1 for an id that does not exist */
  int64_t ahead_lo, ahead_hi;
  int32_t ahead_off[DLDB__AHEAD_ROWS];
  char *ahead_text;
  size_t ahead_cap;
  /* the leaves of the strings the raw tables' pages wrote, whose blocks
   * are read from the file (NULL: from SQLite); see ahead_load */
  dl_sqlleaf *str_leaf;
  int64_t leaf_blocks; /* blocks read from str_leaf */
  int64_t domains[DLDB__DOMAINS_KEPT][2]; /* domains known: name's string id, domain id */
  int ndomains;
  char errbuf[4352];             /* dldb__errmsg's */
  const char *last_domain_name; /* borrowed from strs */
  int64_t last_domain_id;
  struct dldb__rawmem *rawmem; /* raw rows kept for the scans (dldb_rawmem.h), or NULL */
  int rawmem_owned;             /* 0: a reader's, borrowed from its parent */
  int cache_reading;  /* dldb_writer_begin_reads: the small cache is set */
  int64_t cache_size; /* ... and PRAGMA cache_size to go back to */
};

int dldb__sqlerr(dldb_writer *w, char *err, size_t errlen, const char *fn);
/* SQLite's message for w's last error; a failed write's names the file and
 * the cause (in w's buffer, valid until the next call). */
const char *dldb__errmsg(dldb_writer *w);
/* 1 when the file holds w's raw tables as w sees them, so that they may be
 * read from their pages (dl_sqlpage.h): a reader's connection (its read
 * transaction holds the file as committed); an open aggregation
 * (dldb_aggr_begin commits first, and raw records are refused until it
 * ends; a page build the aggregation has open stays open: it builds the
 * aggregation's tables); else a writer with no transaction open once its
 * batches are written (committed here, ending a page build). 0 otherwise,
 * or with DLDB_SCAN=sqlite in the
 * environment (tests compare the two reads). */
int dldb__raw_on_disk(dldb_writer *w);
/* 1 when the file holds every table as w sees it, one written in the open
 * transaction too, so that any table may be read from its pages: after
 * the batches' rows are written, SQLite writes the transaction's changed
 * pages to the file (sqlite3_db_cacheflush; the journal in memory still
 * undoes them on a rollback). A page a running statement holds stays in
 * the cache, so with a statement of w's running: 0. The transaction also
 * holds page 1, whose header the page reader takes only the unchanging
 * fields of (page size, encoding). 0 with DLDB_SCAN=sqlite, as above. */
int dldb__pages_current(dldb_writer *w);
/* Ends the page build that is open, if any (the raw tables' of
 * dldb_writer_raw_pages, aggr_kernels', aggr_nvtx_runs' or the
 * timeline's), and opens a transaction for the next rows (keep = 0: the
 * build is dropped, on the way to a rollback or an abort). The build holds
 * the file, and SQLite must not write under it, nor read a table it
 * builds: the writer's batches (but the built tables'), statements,
 * flushes, transactions, readers and the aggregation's end and cancel end
 * it first, and nothing else uses the connection between
 * dldb_writer_raw_pages' on and off, dldb_aggr_kernels_begin and _end, or
 * dldb_aggr_nvtx_rows_begin and _end; the timeline's writer reads the raw
 * tables and kernel names under its own (their pages are as they were). */
int dldb__bulk_end(dldb_writer *w, int keep, char *err, size_t errlen);
/* The one-line error of a page build's rc (dl_sqlbuild.h) in fn: DL_EIO
 * names the file and errno's cause, DL_EINVAL says what was out of key
 * order. Returns rc. */
int dldb__bulk_err(dldb_writer *w, int rc, char *err, size_t errlen, const char *fn,
                   const char *what);
/* Whether an aggregation's tables may be built page by page: a new file,
 * no set open, and DLDB_WRITE not "sqlite". */
int dldb__bulk_wanted(const dldb_writer *w);
/* In a new file: writes the batches' rows (keep_strings: all but the
 * strings'), commits the rows so far (a failed new file is removed whole)
 * and begins a set of page builds (w->bulk) for the caller to add its
 * tables to. w->bulk stays NULL, SQLite's transaction open again, where a
 * reader holds the file or the set cannot begin. */
int dldb__bulk_begin(dldb_writer *w, int keep_strings, char *err, size_t errlen,
                     const char *fn);
/* Writes the open aggregation's aggr_nvtx_totals rows (dldb_stats.c). */
int dldb__nvtx_totals(dldb_writer *w, int64_t aggr_id, char *err, size_t errlen);
sqlite3_stmt *dldb__stmt(dldb_writer *w, int which);
int dldb__step_done(dldb_writer *w, sqlite3_stmt *st, char *err, size_t errlen, const char *fn);
void dldb__bind_text(sqlite3_stmt *st, int i, const char *s);
/* Writes every batch's pending rows: before reading a table, before a
 * commit. */
int dldb__flush(dldb_writer *w, char *err, size_t errlen, const char *fn);
/* Writes the open aggregation's kernel groups (dldb_kgroups.c) from its
 * written rows, unless the caller wrote them (kgroups_by_caller). */
int dldb__kernel_groups(dldb_writer *w, char *err, size_t errlen);
/* 1 if the file has table name. */
int dldb__has_table(dldb_writer *w, const char *name);
/* Runs sql (the open aggregation's id bound at ?1) to its end, inside the
 * aggregation's transaction (dldb_aggr.c); what names it in the error. */
int dldb__exec_aggr(dldb_writer *w, const char *sql, const char *what, char *err,
                    size_t errlen);
/* Writes the open aggregation's Group Ops orders (dldb_gplaces.c) from its
 * written group ops and their parents, where the file has the tables. */
int dldb__group_places(dldb_writer *w, char *err, size_t errlen);
/* Counts one row of a raw insert (dldb_write_* and the extension rows of
 * raw records, dldb_write_pyframe.c): refused on an existing file or in an
 * aggregation; commits every batch_rows rows; opens the transaction. */
int dldb__row_begin(dldb_writer *w, char *err, size_t errlen, const char *fn);
/* Appends row to batch which (DLDB__B_*). */
int dldb__batch_row(dldb_writer *w, int which, const dldb__cell *row, char *err, size_t errlen,
                    const char *fn);
/* Rows of the raw tables into their batches, for dldb_write_* and the live
 * store (dldb_write_live.c), inside an open transaction. The range gets id
 * (its name is interned here unless r->name_id is set); the API call's and
 * the kernel's names are interned (name_id; sid, lid); the kernel gets the
 * next id (kernel_max_id, advanced on success). */
int dldb__nvtx_push(dldb_writer *w, int64_t id, const dldb_nvtx_range *r, char *err,
                    size_t errlen, const char *fn);
int dldb__api_push(dldb_writer *w, const dldb_api_call *a, int64_t name_id, char *err,
                   size_t errlen, const char *fn);
int dldb__kernel_push(dldb_writer *w, const dldb_kernel *k, int64_t sid, int64_t lid, char *err,
                      size_t errlen, const char *fn);
int dldb__tx_begin(dldb_writer *w, char *err, size_t errlen);
int dldb__tx_commit(dldb_writer *w, char *err, size_t errlen);
/* dldb_writer_intern; pin: keep it in memory even past the budget (domain
 * names, whose strs[] pointers the writers keep). */
int dldb__intern(dldb_writer *w, const char *s, int pin, int64_t *id, char *err,
                 size_t errlen);
/* Forgets the read-ahead block (after strings were added or rolled back). */
static inline void dldb__ahead_reset(dldb_writer *w) {
  w->ahead_lo = 1;
  w->ahead_hi = 0;
}

/* A producer start time as stored: ns after the origin (the smallest one
 * is kept for dldb_writer_rebase; ends follow their starts). */
static inline int64_t dldb__rel(dldb_writer *w, int64_t t) {
  int64_t r = t - w->origin;
  if (r < w->min_rel) w->min_rel = r;
  return r;
}

/* The open aggregation's orders kept as chunks of pairs (dldb_pchunks.c):
 * a table begun, each pair added at its place of its group's order (the
 * places of a group in turn from 0; place -1: not checked; group 0 for a
 * table without groups), ended (the last chunk written) or freed
 * (dropped). dldb__pc_put inserts a whole chunk of a pass that keeps its
 * chunks itself. DL_OK, or an error with one line in err. */
typedef struct dldb__pchunk dldb__pchunk;
int dldb__pc_begin(dldb_writer *w, int table, char *err, size_t errlen);
int dldb__pc_add(dldb_writer *w, int table, int64_t group, int64_t place, int64_t a, int64_t b,
                 char *err, size_t errlen);
int dldb__pc_put(dldb_writer *w, int table, int64_t group, int64_t chunk,
                 const int64_t (*pair)[2], int n, char *err, size_t errlen);
int dldb__pc_end(dldb_writer *w, int table, char *err, size_t errlen);
void dldb__pc_free(dldb_writer *w, int table);
/* Each begun table's open chunk written (the tables stay begun). */
int dldb__pc_flush_all(dldb_writer *w, char *err, size_t errlen);
/* A table's name and the columns of its key, which its rows start with
 * (the aggregation, the group where it has one, the chunk). */
const char *dldb__pc_table(int table, int *key_cols);

#endif
