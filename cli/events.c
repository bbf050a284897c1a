/* events.c - the pipeline's events as dlprof's lines (events.h). */
#include "events.h"

#include <stdio.h>

static void temps(const dlprof_events *ev, const dlp_event *e) {
  for (int i = 0; i < e->n_temps; i++)
    dlprof_sigclean_watch(ev->sig, e->temp_dir[i], e->temp_prefix[i]);
  (void)dlprof_sigclean_start(ev->sig);
}

static void reading_nsys(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  fprintf(stderr, "dlprof: reading Nsight Systems export %s\n", e->path);
}

static void read_nsys(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  const dli_stats *st = e->nsys;
  fprintf(stderr,
          "dlprof: read %lld kernels, %lld memcpys, %lld memsets, %lld API calls, %lld NVTX "
          "ranges, %lld GPUs (Nsight Systems %s, schema %s); %lld unusable rows skipped, %lld over-long names "
          "cut\n",
          (long long)st->kernels, (long long)st->memcpys, (long long)st->memsets,
          (long long)st->api_calls, (long long)st->ranges, (long long)st->gpus,
          st->product_version[0] ? st->product_version : "?",
          st->schema_version[0] ? st->schema_version : "?", (long long)st->skipped,
          (long long)st->truncated);
}

static void reading_kineto(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  fprintf(stderr, "dlprof: reading PyTorch profiler trace %s\n", e->path);
}

static void read_kineto(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  const dli_kineto_stats *st = e->kineto;
  fprintf(stderr,
          "dlprof: read %lld events from %lld file(s) (Kineto format generation %d): %lld op "
          "ranges, %lld CUDA calls, %lld kernels (%lld NCCL), %lld memcpys, %lld memsets, "
          "%lld GPUs; %lld unusable events skipped, %lld bad bytes repaired\n",
          (long long)st->events, (long long)st->files, st->generation, (long long)st->ranges,
          (long long)st->api_calls, (long long)st->kernels, (long long)st->nccl_kernels,
          (long long)st->memcpys, (long long)st->memsets, (long long)st->gpus,
          (long long)st->skipped, (long long)st->repairs);
}

static void note(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  fprintf(stderr, "dlprof: note: %s\n", e->text);
}

static void aggregating(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  (void)e;
  fprintf(stderr, "dlprof: aggregating\n");
}

static void aggregating_key(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  fprintf(stderr, "dlprof: aggregating (key op %s)\n", e->text);
}

static void aggregating_again(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  fprintf(stderr, "dlprof: aggregating again: %s\n", e->path);
}

static void aggregating_domain(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  fprintf(stderr, "dlprof: aggregating NVTX domain %s\n", e->text);
}

static void writing(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  fprintf(stderr, "dlprof: writing %s\n", e->path);
}

/* DLProf printed the expert findings at the end of every run, to stdout
 * (progress and errors go to stderr). */
static void findings_done(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  (void)e;
  fflush(stdout);
}

static void iter_clamped(const dlprof_events *ev, const dlp_event *e) {
  (void)ev;
  fprintf(stderr,
          "dlprof: --iter_stop=%lld is past the last iteration: aggregated iterations %lld to %lld "
          "(the profile has %lld, 0 to %lld)\n",
          (long long)e->iter_asked, (long long)e->iter_start, (long long)e->iter_stop,
          (long long)e->iterations, (long long)(e->iterations - 1));
}

/* Each event: the verbosity it is shown from, whether a drawn bar is
 * ended first (whatever the verbosity), and what is shown. */
static const struct {
  int level, end_bar;
  void (*show)(const dlprof_events *ev, const dlp_event *e);
} shows[DLP_EV_COUNT] = {
    [DLP_EV_TEMPS] = {DLPROF_V_QUIET, 0, temps},
    [DLP_EV_READING_NSYS] = {DLPROF_V_MINIMAL, 1, reading_nsys},
    [DLP_EV_READ_NSYS] = {DLPROF_V_NORMAL, 1, read_nsys},
    [DLP_EV_READING_KINETO] = {DLPROF_V_NORMAL, 0, reading_kineto},
    [DLP_EV_READ_KINETO] = {DLPROF_V_NORMAL, 0, read_kineto},
    [DLP_EV_KINETO_NOTE] = {DLPROF_V_MINIMAL, 0, note},
    [DLP_EV_AGGREGATING] = {DLPROF_V_MINIMAL, 1, aggregating},
    [DLP_EV_AGGREGATING_KEY] = {DLPROF_V_NORMAL, 0, aggregating_key},
    [DLP_EV_AGGREGATING_AGAIN] = {DLPROF_V_MINIMAL, 1, aggregating_again},
    [DLP_EV_AGGREGATING_DOMAIN] = {DLPROF_V_NORMAL, 1, aggregating_domain},
    [DLP_EV_DOMAINS_LEFT] = {DLPROF_V_MINIMAL, 1, note},
    [DLP_EV_WRITING_DLDB] = {DLPROF_V_MINIMAL, 1, writing},
    [DLP_EV_WRITING_REPORT] = {DLPROF_V_NORMAL, 1, writing},
    [DLP_EV_FINDINGS_DONE] = {DLPROF_V_QUIET, 0, findings_done},
    [DLP_EV_ITER_CLAMPED] = {DLPROF_V_NORMAL, 1, iter_clamped},
};

void dlprof_event_cb(void *ctx, const dlp_event *e) {
  const dlprof_events *ev = ctx;
  if ((unsigned)e->kind >= DLP_EV_COUNT || !shows[e->kind].show) return;
  if (shows[e->kind].end_bar) dlprof_meter_end(ev->meter);
  if (ev->verbosity >= shows[e->kind].level) shows[e->kind].show(ev, e);
}
