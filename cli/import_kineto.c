/* import_kineto.c - dlprof --database for Kineto traces (see import_kineto.h). */
#include "import_kineto.h"

#include <stdio.h>
#include <string.h>

#include "dla.h"
#include "dldb_write.h"
#include "dli_kineto.h"
#include "errline.h"

#define KINETO_KEY_OP "ProfilerStep#"

int dlprof_import_kineto(const dlprof_kineto_args *a, int64_t *aggr_id) {
  char err[1024] = "";
  dldb_writer *w = NULL;
  dli_kineto_stats st;
  int64_t origin = 0;
  *aggr_id = -1;
  if (dli_kineto_origin(a->database, &origin, err, sizeof err) != DL_OK) goto fail;
  dldb_write_opts wo = {.force = a->force, .producer = "dlprof " DL_VERSION,
                        .source = a->database, .time_origin_ns = origin};
  dli_opts io = {.mode = a->mode, .profile_name = a->profile_name, .command = a->command,
                 .progress = a->progress, .progress_ctx = a->progress_ctx};
  if (a->verbose) fprintf(stderr, "dlprof: reading PyTorch profiler trace %s\n", a->database);
  if (dldb_writer_create(a->dbpath, &wo, &w, err, sizeof err) != DL_OK ||
      dli_kineto_import(a->database, &io, w, &st, err, sizeof err) != DL_OK)
    goto fail;
  if (a->verbose) {
    fprintf(stderr,
            "dlprof: read %lld events from %lld file(s) (Kineto format generation %d): %lld op "
            "ranges, %lld CUDA calls, %lld kernels (%lld NCCL), %lld memcpys, %lld memsets, "
            "%lld GPUs; %lld unusable events skipped, %lld bad bytes repaired\n",
            (long long)st.events, (long long)st.files, st.generation, (long long)st.ranges,
            (long long)st.api_calls, (long long)st.kernels, (long long)st.nccl_kernels,
            (long long)st.memcpys, (long long)st.memsets, (long long)st.gpus,
            (long long)st.skipped, (long long)st.repairs);
  }
  if ((a->verbose || a->warn) && st.notes[0]) fprintf(stderr, "dlprof: note: %s\n", st.notes);
  dla_opts ao;
  dla_opts_init(&ao);
  ao.key_op = a->key_op && *a->key_op ? a->key_op : KINETO_KEY_OP;
  size_t kl = strlen(ao.key_op);
  ao.key_op_spans = kl > 0 && ao.key_op[kl - 1] == '#';
  ao.mode = a->mode;
  ao.iter_start = a->iter_start;
  ao.iter_stop = a->iter_stop;
  ao.progress = a->progress;
  ao.progress_ctx = a->progress_ctx;
  if (a->verbose) fprintf(stderr, "dlprof: aggregating (key op %s)\n", ao.key_op);
  if (dla_aggregate(w, &ao, aggr_id, err, sizeof err) != DL_OK) {
    dlprof_name_input(err, sizeof err, a->database);
    goto fail;
  }
  err[0] = '\0';
  if (dldb_writer_commit_ready(&w, a->ready, a->ready_ctx, err, sizeof err) != DL_OK) goto fail;
  return 0;
fail:
  dldb_writer_abort(&w);
  if (err[0]) dlprof_error("%s", err);
  return 1;
}
