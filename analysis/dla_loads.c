/*
 * dla_loads.c - the op nodes (dla_pytorch.c) built while the API calls,
 * kernels and memory ops load (dla_calls.c, dla_gpuload.c) on a second
 * thread; then each call outside every op instance gets its own op.
 */
#include <pthread.h>
#include <string.h>

#include "dla_gpuload.h"
#include "dla_internal.h"
#include "dla_loads.h"
#include "dldb_scan.h"

/* The API calls, kernels and memory ops load (dla__load_calls,
 * dldb_scan_gpu_ops) into a copy of the context whose writer is a second
 * connection (dldb_writer_reader) and whose progress goes nowhere, on a
 * thread of their own, while dla__build_nodes runs on the caller's: they
 * read only the ranges' times, threads, processes and names, which op
 * building does not write; what needs the op nodes waits for them
 * (dla__calls_ops, dla__gpu_work). */
typedef struct loads {
  dla_ctx *c;             /* where they load: &own */
  dla_ctx own;
  dla_opts opts;          /* the caller's, without progress */
  dldb_writer *reader;
  dla_corr *corr;
  dla_calls_pending *pending;
  pthread_t thread;
  int rc;
  char err[512];
} loads;

static int loads_run(loads *ld) {
  dla_ctx *c = ld->c;
  int rc = dla__load_calls(c, &ld->corr, &ld->pending);
  if (rc == DL_OK) rc = dla__gpu_scan(c, ld->corr);
  dla__corr_free(&ld->corr); /* the GPU work has its calls: 4 bytes a call back */
  return rc;
}

static void *loads_main(void *arg) {
  loads *ld = arg;
  ld->rc = loads_run(ld);
  return NULL;
}

/* Sets ld up to load into a copy of c that reads through w and reports
 * no progress; errors go to ld->err. */
static void loads_init(dla_ctx *c, loads *ld, dldb_writer *w) {
  ld->opts = *c->o;
  ld->opts.progress = NULL;
  ld->own = *c;
  ld->own.w = w;
  ld->own.o = &ld->opts;
  ld->own.err = ld->err;
  ld->own.errlen = sizeof ld->err;
  ld->c = &ld->own;
}

/* 1 when the loads run on their thread (loads_finish joins it), 0 when
 * they are to run after op building (no second connection or thread). */
static int loads_start(dla_ctx *c, loads *ld) {
  memset(ld, 0, sizeof *ld);
  if (dldb_writer_reader(c->w, &ld->reader, ld->err, sizeof ld->err) != DL_OK) return 0;
  loads_init(c, ld, ld->reader);
  if (pthread_create(&ld->thread, NULL, loads_main, ld) != 0) {
    dldb_writer_reader_close(&ld->reader);
    return 0;
  }
  return 1;
}

/* Waits for the loads (or, not threaded, runs them here) and moves what
 * they loaded into c; their error, if any, with its message in ld->err. */
static int loads_finish(dla_ctx *c, loads *ld, int threaded) {
  if (threaded) {
    pthread_join(ld->thread, NULL);
    dldb_writer_reader_close(&ld->reader);
  } else {
    memset(ld, 0, sizeof *ld);
    loads_init(c, ld, c->w);
    ld->rc = loads_run(ld);
  }
  dla_ctx *x = &ld->own;
  c->a = x->a, c->na = x->na;
  c->along = x->along, c->nalong = x->nalong, c->alongcap = x->alongcap;
  c->k = x->k, c->nk = x->nk, c->kcap = x->kcap;
  c->kid = x->kid, c->kidcap = x->kidcap, c->kid0 = x->kid0;
  c->klong = x->klong, c->nklong = x->nklong, c->klongcap = x->klongcap;
  c->kdur_clamped = x->kdur_clamped;
  c->kcfg = x->kcfg, c->nkcfg = x->nkcfg, c->kcfgcap = x->kcfgcap;
  c->m = x->m, c->nm = x->nm, c->mcap = x->mcap;
  return ld->rc; /* its message in ld->err */
}


int dla__loads_run(dla_ctx *c) {
  /* the calls and kernels load on a second thread, through a second
   * connection, while the op nodes are built on this one */
  loads ld;
  int threaded = loads_start(c, &ld);
  int rc = dla__build_nodes(c);
  dla__progress(c, "building op nodes", (int64_t)c->nr, (int64_t)c->nr);
  dla__progress(c, "loading CUDA API calls", 0, dldb_scan_estimate(c->w, "cuda_api_calls"));
  if (threaded || rc == DL_OK) {
    int lrc = loads_finish(c, &ld, threaded);
    if (rc == DL_OK && lrc) rc = dl_err(c->err, c->errlen, lrc, "%s", ld.err);
  }
  if (rc == DL_OK) rc = dla__calls_ops(c, &ld.pending);
  dla__calls_pending_free(&ld.pending);
  if (rc == DL_OK) dla__progress(c, "loading CUDA API calls", (int64_t)c->na, (int64_t)c->na);
  return rc;
}
