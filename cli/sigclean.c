/* sigclean.c - removes this run's temporary outputs on SIGINT/SIGTERM/SIGHUP
 * (see sigclean.h). */
#include "sigclean.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void dlprof_sigclean_watch(dlprof_sigclean *s, const char *dir, const char *prefix) {
  if (s->nwatch == DLPROF_SIGCLEAN_WATCH_MAX) return;
  snprintf(s->watch[s->nwatch].dir, sizeof s->watch[0].dir, "%s", dir && *dir ? dir : ".");
  snprintf(s->watch[s->nwatch].prefix, sizeof s->watch[0].prefix, "%s", prefix);
  s->nwatch++;
}

/* Deletes dir's entries named prefix...".tmp-"...; returns how many. */
static int clean(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t n = strlen(prefix);
  int removed = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strncmp(e->d_name, prefix, n) == 0 && strstr(e->d_name + n, ".tmp-") &&
        unlinkat(dirfd(d), e->d_name, 0) == 0)
      removed++;
  closedir(d);
  return removed;
}

static void *waiter(void *arg) {
  const dlprof_sigclean *s = arg;
  int sig = 0;
  if (sigwait(&s->set, &sig) != 0 || sig == SIGUSR2) return NULL; /* SIGUSR2: stop */
  /* The other threads run on until _exit: what they would say from here on
   * (such as a failure to open a temporary file just removed) is a
   * consequence of the stop, so stderr goes to /dev/null and the one line
   * is written to a copy of it. */
  int out = dup(STDERR_FILENO);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (out >= 0 && null >= 0) dup2(null, STDERR_FILENO);
  if (null >= 0) close(null);
  int removed = 0;
  for (int i = 0; i < s->nwatch; i++) removed += clean(s->watch[i].dir, s->watch[i].prefix);
  dprintf(out >= 0 ? out : STDERR_FILENO,
          "dlprof: stopped by %s; %d unfinished output file%s removed, existing outputs left as "
          "they were\n",
          strsignal(sig), removed, removed == 1 ? "" : "s");
  _exit(128 + sig);
}

int dlprof_sigclean_start(dlprof_sigclean *s) {
  sigemptyset(&s->set);
  sigaddset(&s->set, SIGINT);
  sigaddset(&s->set, SIGTERM);
  sigaddset(&s->set, SIGHUP);
  sigaddset(&s->set, SIGUSR2); /* dlprof_sigclean_stop's, to this thread alone */
  sigset_t old;
  if (pthread_sigmask(SIG_BLOCK, &s->set, &old) != 0) return -1;
  if (pthread_create(&s->thread, NULL, waiter, s) != 0) {
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return -1;
  }
  s->started = 1;
  return 0;
}

void dlprof_sigclean_stop(dlprof_sigclean *s) {
  if (!s->started) return;
  s->started = 0;
  if (pthread_kill(s->thread, SIGUSR2) == 0) pthread_join(s->thread, NULL);
}
