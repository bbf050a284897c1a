/* sigclean.c - removes this run's temporary outputs on SIGINT/SIGTERM/SIGHUP
 * (see sigclean.h). */
#include "sigclean.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WATCH_MAX 4

static struct {
  char dir[PATH_MAX];
  char prefix[NAME_MAX + 1];
} g_watch[WATCH_MAX];
static int g_nwatch;
static sigset_t g_set;
static pthread_t g_thread;
static int g_started;

void dlprof_sigclean_watch(const char *dir, const char *prefix) {
  if (g_nwatch == WATCH_MAX) return;
  snprintf(g_watch[g_nwatch].dir, sizeof g_watch[0].dir, "%s", dir && *dir ? dir : ".");
  snprintf(g_watch[g_nwatch].prefix, sizeof g_watch[0].prefix, "%s", prefix);
  g_nwatch++;
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
  (void)arg;
  int sig = 0;
  if (sigwait(&g_set, &sig) != 0 || sig == SIGUSR2) return NULL; /* SIGUSR2: stop */
  int removed = 0;
  for (int i = 0; i < g_nwatch; i++) removed += clean(g_watch[i].dir, g_watch[i].prefix);
  fprintf(stderr, "dlprof: stopped by %s; %d unfinished output file%s removed, existing outputs left as they were\n",
          strsignal(sig), removed, removed == 1 ? "" : "s");
  _exit(128 + sig);
}

int dlprof_sigclean_start(void) {
  sigemptyset(&g_set);
  sigaddset(&g_set, SIGINT);
  sigaddset(&g_set, SIGTERM);
  sigaddset(&g_set, SIGHUP);
  sigaddset(&g_set, SIGUSR2); /* dlprof_sigclean_stop's, to this thread alone */
  sigset_t old;
  if (pthread_sigmask(SIG_BLOCK, &g_set, &old) != 0) return -1;
  if (pthread_create(&g_thread, NULL, waiter, NULL) != 0) {
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return -1;
  }
  g_started = 1;
  return 0;
}

void dlprof_sigclean_stop(void) {
  if (!g_started) return;
  g_started = 0;
  if (pthread_kill(g_thread, SIGUSR2) == 0) pthread_join(g_thread, NULL);
}
