/*
 * runs.h - the databases dlprofviewer serves ("runs"): the files given on
 * the command line and every dldb under the folders given, each with a
 * stable id, opened lazily and kept open in a small LRU.
 *
 * A run's id is eight hex digits of a hash of its path, so a link made
 * today opens the same run after a restart. Its name is the path as given
 * on the command line, or relative to the folder it was found in.
 *
 * Folders are rescanned on request (dlv_runs_rescan, which the runs list
 * calls): each known folder is stat()ed and read again only when its
 * modification time changed; a new file is a candidate when it starts with
 * SQLite's header. Runs are never renumbered: a new file is appended, a
 * removed one is marked gone (and listed again when it comes back).
 *
 * A request pins the run it reads (dlv_runs_pin): the run is opened when it
 * is not (dldb_open_ro and its catalog), and checked against its file
 * (one stat): a file replaced by another dldb is served from then on, a
 * replacement it cannot serve answers the reason until the file changes
 * again. A pinned run is never closed; at most DLV_RUNS_OPEN_MAX unpinned
 * runs stay open, the least recently used closed first. A closed run keeps
 * its catalog (a few KB) and generation: while its file is unchanged (one
 * stat) requests read it through their threads' own handles, opened
 * without the checks it passed (no quick check), and the answers of that
 * generation stay good; a changed file is opened and checked anew. The catalog a pin
 * returns stays valid until dlv_runs_unpin.
 *
 * Thread safety: one mutex guards the table; every function takes it.
 *
 * Ownership: dlv_runs_new returns a new table; free it with
 * dlv_runs_free(&rs) once no request uses it. Strings it returns are
 * copied into the caller's structs.
 */
#ifndef DLV_RUNS_H
#define DLV_RUNS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "catalog.h"
#include "dldb.h"

#define DLV_RUNS_OPEN_MAX 8  /* runs kept open beyond the pinned ones */
#define DLV_RUN_ID_LEN 9     /* eight hex digits and the NUL */

typedef struct dlv_runs dlv_runs;

/* A request's pin on one run. */
typedef struct dlv_run_pin {
  int index;                 /* the run's index; -1: nothing pinned */
  const dlv_catalog *cat;    /* NULL when the run was never opened successfully */
  unsigned gen;              /* changes whenever the run is (re)opened */
  int verified;              /* 1: the file is the one served */
  int changed;               /* 1: the file was found replaced or removed */
} dlv_run_pin;

/* What the runs list shows of a run (view columns, the default aggregation
 * and domain). Fields are 0 / "" when the view lacks them. */
typedef struct dlv_run_meta {
  char id[DLV_RUN_ID_LEN];
  char name[512];            /* the file's name without its extension (relative to the
                                folder for a folder's files) */
  char path[1024];           /* as given on the command line, or relative to the folder */
  int given;                 /* 1: named on the command line; 0: found in a folder */
  int ok;                    /* 0: not a dldb this viewer can serve; error says why */
  char error[256];
  char producer[24];         /* "dlprof" or "nvidia-dlprof" */
  char date[64];             /* view_aggregations.aggr_start */
  int64_t num_gpus;
  int64_t iterations;        /* view_performance_summary.profiled_iterations */
  double iter_avg;           /* ns, view_performance_summary.iter_avg */
  double gpu_utilization;    /* view_performance_summary.gpu_utilization, 0..1 */
  char key_op[256];
  int64_t file_bytes;
  int64_t mtime_s;           /* the file's modification time, seconds since 1970 */
  int index;                 /* the run's index (its place in the runs' own order) */
} dlv_run_meta;

/* The runs of paths (files or folders, n of them). A path that does not
 * exist is an error (DL_ENOTFOUND, err names it); folders are scanned. */
int dlv_runs_new(const char *const *paths, int n, dlv_runs **out, char *err, size_t errlen);
void dlv_runs_free(dlv_runs **rs);

/* Reads again the folders whose modification time changed. */
void dlv_runs_rescan(dlv_runs *rs);

/* 1 when several paths or a folder are served (the page then shows the
 * runs page and puts run= in its links), 0 for one file. */
int dlv_runs_multi(dlv_runs *rs);

/* How many runs (gone ones included: indexes are stable). */
int dlv_runs_count(dlv_runs *rs);

/* The index of the run with that id, or of the first run present for NULL;
 * -1 when there is none. */
int dlv_runs_find(dlv_runs *rs, const char *id);

/* The id of run i into id (DLV_RUN_ID_LEN bytes). */
void dlv_runs_id(dlv_runs *rs, int i, char *id);

/* The path of run i, its name as given (or relative to its folder) and its
 * file's identity (device, inode, size, modification time: for cache
 * keys): DL_OK, or DL_ENOTFOUND when the file is gone. */
int dlv_runs_file(dlv_runs *rs, int i, char *path, size_t pathlen, char *name, size_t namelen,
                  char *ident, size_t identlen);

/* Pins run i for a request (see above): DL_OK, or an error with err set
 * (pin->verified 0; pin->cat may still be the old catalog). Unpin with
 * dlv_runs_unpin whatever it returns. */
int dlv_runs_pin(dlv_runs *rs, int i, dlv_run_pin *pin, char *err, size_t errlen);
void dlv_runs_unpin(dlv_runs *rs, dlv_run_pin *pin);

/* A new handle on pinned run pin->index for one thread (dldb_open_again,
 * or of a closed run dldb_open_ro_written), when the run is still at
 * pin->gen. */
int dlv_runs_open_again(dlv_runs *rs, const dlv_run_pin *pin, dldb **out, char *err,
                        size_t errlen);

/* The runs list's row of run i: read once per version of its file, from a
 * handle of its own opened without the quick check (the run's first use
 * makes it), outside the lock. 1 with *m filled, 0 when the run is gone. */
int dlv_runs_meta(dlv_runs *rs, int i, dlv_run_meta *m);

#endif
