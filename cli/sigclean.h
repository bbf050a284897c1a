/*
 * sigclean.h - Ctrl-C and kill while dlprof writes: the temporary files of
 * this run are removed and the old outputs stay as they were.
 *
 * Every output is built at `<final name>.tmp-XXXXXX` and renamed into place
 * when complete (db/dldb_write.c, cli/dlprof.c). dlprof_sigclean_start()
 * blocks SIGINT, SIGTERM and SIGHUP in the calling thread (and so in every
 * thread it creates later) and waits for them on a thread of its own; when
 * one comes, that thread deletes the entries of each watched directory
 * whose name starts with a watched prefix and contains ".tmp-" (SQLite's
 * journal of such a file included), says so in one line on stderr and ends
 * the process with status 128 + the signal. A file already renamed into
 * place is complete and stays. SIGKILL cannot be caught: it leaves the
 * `.tmp-` file behind, never a damaged output.
 *
 * Owned by cli/; used by dlprof only after the profiled application has
 * ended (the application gets the terminal's signals while it runs).
 */
#ifndef DLPROF_SIGCLEAN_H
#define DLPROF_SIGCLEAN_H

/* Adds a directory and a file-name prefix to clean up (up to 4; before
 * dlprof_sigclean_start). */
void dlprof_sigclean_watch(const char *dir, const char *prefix);

/* Starts waiting for the signals. Returns 0, or -1 when the thread cannot
 * be started (the signals then keep their default action). */
int dlprof_sigclean_start(void);

/* Stops waiting (the run is over: every output is in place) and joins the
 * thread, so that nothing of it is left at exit. No-op if not started. */
void dlprof_sigclean_stop(void);

#endif
