/*
 * sigclean.h - Ctrl-C and kill while dlprof writes: the temporary files of
 * this run are removed and the old outputs stay as they were.
 *
 * Every output is built at `<final name>.tmp-XXXXXX` and renamed into place
 * when complete (pipeline/dlp.h); the pipeline names the directories and
 * file-name prefixes of the run's temporary files (DLP_EV_TEMPS).
 * dlprof_sigclean_start() blocks SIGINT, SIGTERM and SIGHUP in the calling
 * thread (and so in every thread it creates later) and waits for them on a
 * thread of its own; when one comes, that thread deletes the entries of
 * each watched directory whose name starts with a watched prefix and
 * contains ".tmp-" (SQLite's journal of such a file included), says so in
 * one line on stderr and ends the process with status 128 + the signal;
 * what the other threads print from the signal on (a failure to open a
 * file just removed, say) goes to /dev/null, so that line is the only one. A
 * file already renamed into place is complete and stays. SIGKILL cannot be
 * caught: it leaves the `.tmp-` file behind, never a damaged output.
 *
 * Ownership: the caller owns the dlprof_sigclean (no globals: the waiting
 * thread is handed a pointer to it, which must live until
 * dlprof_sigclean_stop). Owned by cli/; used by dlprof only after the
 * profiled application has ended (the application gets the terminal's
 * signals while it runs).
 */
#ifndef DLPROF_SIGCLEAN_H
#define DLPROF_SIGCLEAN_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>

#define DLPROF_SIGCLEAN_WATCH_MAX 4

typedef struct dlprof_sigclean {
  struct {
    char dir[PATH_MAX];
    char prefix[NAME_MAX + 1];
  } watch[DLPROF_SIGCLEAN_WATCH_MAX];
  int nwatch;
  sigset_t set;
  pthread_t thread;
  int started;
} dlprof_sigclean;

/* Adds a directory and a file-name prefix to clean up (up to 4; before
 * dlprof_sigclean_start). s must be zeroed before the first call. */
void dlprof_sigclean_watch(dlprof_sigclean *s, const char *dir, const char *prefix);

/* Starts waiting for the signals. Returns 0, or -1 when the thread cannot
 * be started (the signals then keep their default action). */
int dlprof_sigclean_start(dlprof_sigclean *s);

/* Stops waiting (the run is over: every output is in place) and joins the
 * thread, so that nothing of it is left at exit. No-op if not started. */
void dlprof_sigclean_stop(dlprof_sigclean *s);

#endif
