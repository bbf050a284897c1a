/*
 * fuzz_kineto.c - libFuzzer harness for the Kineto (PyTorch profiler) JSON
 * importer: the streaming tokenizer (import/kjson.c) over the bytes, then
 * the pipeline (pipeline/dlp.h) as `dlprof --database=trace.json` runs it:
 * detection, the whole import (import/kineto.c: origin scan, events into a
 * dldb writer), the aggregation of what was imported (analysis/) and the
 * commit of the dldb, which is then removed.
 *
 * Invariants checked besides the sanitizers: an error is one non-empty line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dlp.h"
#include "fuzz_common.h"
#include "kjson.h"

typedef struct mem { const uint8_t *p; size_t n, at; } mem;

static long mem_read(void *ctx, void *buf, size_t len) {
  mem *m = ctx;
  size_t k = m->n - m->at < len ? m->n - m->at : len;
  if (k > 7) k = k / 2 + 1; /* short reads: tokens straddle buffer ends */
  memcpy(buf, m->p + m->at, k);
  m->at += k;
  return (long)k;
}

static void one_line(const char *err) {
  if (!err[0] || strchr(err, '\n')) {
    fprintf(stderr, "error message is not one line: [%s]\n", err);
    abort();
  }
}

static void tokens(const uint8_t *data, size_t size) {
  mem m = {data, size, 0};
  kjson *j = kjson_open(mem_read, &m);
  if (!j) return;
  char buf[256];
  int n = 0;
  for (kj_tok t; (t = kjson_next(j)) != KJ_EOF && t != KJ_ERROR;) {
    int64_t v, ns;
    if (t == KJ_NUM) {
      (void)kjson_int64(kjson_text(j), &v);
      (void)kjson_double(kjson_text(j));
      (void)kjson_us_to_ns(kjson_text(j), &ns);
    }
    if ((t == KJ_OBJ || t == KJ_ARR) && kjson_depth(j) > 2 && (++n % 3) == 0) {
      t = (n % 2) ? kjson_skip(j, t) : kjson_render(j, t, buf, sizeof buf);
      if (t == KJ_ERROR) break;
    }
  }
  kjson_free(&j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static dlp_pipeline *p; /* one for the whole run (half a MB) */
  char path[512], err[1024];
  if (!p && dlp_new(&p, err, sizeof err) != DL_OK) abort();
  tokens(data, size);
  if (fuzz_file(data, size, "trace.json", path, sizeof path) != 0) return 0;
  dlp_opts o;
  dlp_opts_init(&o);
  o.input = path;
  o.output_path = fuzz_tmpdir();
  o.profile_name = "kineto";
  o.command = "fuzz";
  o.force = 1;
  o.reports = 0;
  o.aggr_start = "2024-01-01 00:00:00";
  o.user_name = o.host_name = "fuzz";
  err[0] = '\0';
  if (dlp_run(p, &o, err, sizeof err) != DL_OK) one_line(err);
  else fuzz_unlink(dlp_dldb_path(p));
  fuzz_unlink(path);
  return 0;
}
