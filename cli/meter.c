/* meter.c - dlprof's progress on stderr (meter.h). */
#include "meter.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

double dlprof_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double dlprof_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The process's peak resident set so far, in MiB (Linux: ru_maxrss in KiB). */
static double peak_rss_mib(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024.0 : 0.0;
}

void dlprof_meter_cost(const char *what, double t0, double cpu0) {
  fprintf(stderr, "dlprof: %s: took %.2f s (%.2f s CPU), peak RSS %.0f MiB\n", what,
          dlprof_now_s() - t0, dlprof_cpu_s() - cpu0, peak_rss_mib());
}

void dlprof_meter_end(dlprof_meter *m) {
  if (!m->open) return;
  fputc('\n', stderr);
  m->open = 0;
}

/* The phase's cost, once, when it has finished (detail only). */
static void phase_cost(dlprof_meter *m, const char *what, int finished) {
  if (!finished || !m->detail || m->timed) return;
  m->timed = 1;
  dlprof_meter_cost(what, m->t0, m->cpu0);
}

/* A bar redrawn in place on a terminal. */
static void draw_bar(dlprof_meter *m, const char *what, int64_t done, int64_t total, int pct,
                     int fresh, int finished) {
  double t = dlprof_now_s();
  if (!fresh && !finished && t - m->last_draw < 0.1) return;
  m->last_draw = t;
  char bar[31];
  int fill = pct * 30 / 100;
  for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
  bar[30] = '\0';
  fprintf(stderr, "\r\033[Kdlprof: %-26s [%s] %3d%% %lld/%lld", what, bar, pct,
          (long long)done, (long long)total);
  m->open = 1;
  if (finished) dlprof_meter_end(m);
  phase_cost(m, what, finished);
  fflush(stderr);
}

void dlprof_meter_cb(void *ctx, const char *what, int64_t done, int64_t total) {
  dlprof_meter *m = ctx;
  if (!m->on) return;
  int fresh = strcmp(m->what, what) != 0;
  if (fresh) {
    dlprof_meter_end(m);
    snprintf(m->what, sizeof m->what, "%s", what);
    m->last_tenth = -1;
    m->last_draw = 0;
    m->timed = 0;
    if (m->detail) {
      m->t0 = dlprof_now_s();
      m->cpu0 = dlprof_cpu_s();
    }
  }
  if (total < done) total = done;
  /* an empty phase ends too: its second call (0 of 0) */
  int finished = done >= total && (total > 0 || !fresh);
  int pct = total > 0 ? (int)(done * 100 / total) : finished ? 100 : 0;
  if (m->tty) {
    draw_bar(m, what, done, total, pct, fresh, finished);
    return;
  }
  /* plain lines: a phase's start, its end, and every 5 s in between */
  double t = dlprof_now_s();
  if (!fresh && !finished && t - m->last_draw < 5.0) return;
  if (!fresh && finished && m->last_tenth == 10) return;
  m->last_draw = t;
  m->last_tenth = finished ? 10 : 0;
  fprintf(stderr, "dlprof: %s: %d%% (%lld of %lld)\n", what, pct, (long long)done,
          (long long)total);
  phase_cost(m, what, finished);
}
