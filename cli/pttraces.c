/*
 * pttraces.c - the PyTorch profiler traces an application wrote (pttraces.h).
 */
#include "pttraces.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define PTT_MAX_DEPTH 4        /* ./tb, ./runs/exp1/tb, ... */
#define PTT_MAX_ENTRIES 50000  /* a working directory holding a data set stays cheap */

static const char *const suffixes[] = {".pt.trace.json", ".pt.trace.json.gz"};

typedef struct walk {
  struct timespec since;
  long entries;
  int best_files;          /* the files of the folder in where (when files > 1) */
  dlprof_pttraces *out;
} walk;

static int is_trace_name(const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
    size_t s = strlen(suffixes[i]);
    if (n > s && strcmp(name + n - s, suffixes[i]) == 0) return 1;
  }
  return 0;
}

static int newer(const struct timespec *t, const struct timespec *since) {
  return t->tv_sec > since->tv_sec || (t->tv_sec == since->tv_sec && t->tv_nsec >= since->tv_nsec);
}

/* One folder: its trace files, then its subfolders. */
static void visit(walk *w, const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[4096], first[4096] = "";
  int here = 0;
  struct dirent *e;
  while ((e = readdir(d)) && ++w->entries <= PTT_MAX_ENTRIES) {
    struct stat sb;
    if (e->d_name[0] == '.') continue; /* ., .., hidden folders (.git, .venv) */
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) continue;
    if (lstat(path, &sb) != 0) continue;
    if (S_ISDIR(sb.st_mode)) {
      if (depth < PTT_MAX_DEPTH) visit(w, path, depth + 1);
    } else if (S_ISREG(sb.st_mode) && newer(&sb.st_mtim, &w->since) && is_trace_name(e->d_name)) {
      if (!here++) snprintf(first, sizeof first, "%s", path);
    }
  }
  closedir(d);
  if (!here) return;
  w->out->files += here;
  w->out->folders++;
  if (here > w->best_files) {
    w->best_files = here;
    /* a folder (tensorboard_trace_handler's), or the one file in the working directory,
     * which may hold other JSON files */
    snprintf(w->out->where, sizeof w->out->where, "%s", here == 1 && depth == 0 ? first : dir);
  }
}

void dlprof_pttraces_find(const char *root, struct timespec since, dlprof_pttraces *out) {
  memset(out, 0, sizeof *out);
  walk w = {.since = since, .out = out};
  visit(&w, root, 0);
}
