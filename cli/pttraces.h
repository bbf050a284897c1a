/*
 * pttraces.h - the PyTorch profiler traces an application wrote while
 * `dlprof APP` ran it: `*.pt.trace.json` (and `.json.gz`) files, as
 * torch.profiler's tensorboard_trace_handler and export_chrome_trace with
 * that suffix name them, under the working directory. dlprof points at
 * them, since `dlprof --database=` imports them. Owns nothing.
 */
#ifndef DLPROF_PTTRACES_H
#define DLPROF_PTTRACES_H

#include <stddef.h>
#include <time.h>

typedef struct dlprof_pttraces {
  int files;        /* trace files found (0: none) */
  int folders;      /* folders holding them */
  char where[4096]; /* what to import: the one file, else the folder with the most files
                       ("./tb"); "" when files == 0 */
} dlprof_pttraces;

/* Looks under root (at most a few folder levels deep, hidden folders
 * skipped, a bounded number of entries) for trace files modified at or
 * after since (CLOCK_REALTIME, as file times are). Fills *out; never fails (unreadable folders are
 * skipped). */
void dlprof_pttraces_find(const char *root, struct timespec since, dlprof_pttraces *out);

#endif
