/*
 * dla_aggregate.c - raw records -> one aggregation (see dla.h): a table of
 * phases, run in order over one context, and the driver that runs them.
 *
 * Each phase is a file below this one and reads what the phases before it
 * left in the context (dla_ctx.h); none calls back up. Adding a phase: a
 * new file and a row of the table.
 */
#include <stdlib.h>
#include <string.h>

#include "dla_accum.h"
#include "dla_facts.h"
#include "dla_gpuload.h"
#include "dla_internal.h"
#include "dla_iter.h"
#include "dla_loads.h"
#include "dla_nodeid.h"
#include "dla_optimes.h"
#include "dla_ranks.h"
#include "dla_ranges.h"
#include "dla_shapes.h"
#include "dla_tlahead.h"
#include "dla_tuning.h"
#include "dla_write.h"
#include "dldb_scan.h"

#define MAX_FINDINGS 64

void dla_opts_init(dla_opts *o) {
  memset(o, 0, sizeof *o);
  o->iter_start = -1;
  o->iter_stop = -1;
}

/* One aggregation's state, from phase to phase. */
typedef struct dla_run {
  dla_ctx c;
  dla_accum s;               /* accumulate's sums */
  dla_cut cut;               /* a cut-off last step (iterations) */
  dla_facts f;               /* what the rules read (facts) */
  int64_t *durations;        /* f.iter_durations */
  dla_finding *findings;     /* the rules' (MAX_FINDINGS) */
  size_t nfindings;
  int64_t *aggr_id;          /* the caller's, may be NULL */
  int tl_inline;             /* dla_tuning.timeline_inline */
} dla_run;

static int ph_domain(dla_run *r) { return dla__ranges_domain(&r->c); }
static int ph_ranges(dla_run *r) { return dla__ranges_load(&r->c); }
/* The raw rows are read: the writer's copies of them go (dldb_scan_done). */
static int ph_loads(dla_run *r) {
  int rc = dla__loads_run(&r->c);
  dldb_scan_done(r->c.w);
  return rc;
}

/* The timeline's tracks build on a second thread from here on, while the
 * analysis computes and writes its other rows; the timeline's writer
 * joins it (dla_write.c). */
static int ph_timeline_ahead(dla_run *r) {
  if (!r->tl_inline) r->c.tl_ahead = dla__tlahead_start(&r->c);
  return DL_OK;
}
static int ph_gpu_work(dla_run *r) { return dla__gpu_work(&r->c); }
static int ph_iterations(dla_run *r) { return dla__iter_split(&r->c, &r->cut); }
static int ph_optimes(dla_run *r) { return dla__optimes(&r->c); }
static int ph_accumulate(dla_run *r) { return dla__accum_run(&r->c, &r->s); }
static int ph_node_ids(dla_run *r) { return dla__nodeid_assign(&r->c); }
static int ph_sweep(dla_run *r) { return dla__sweep(&r->c); }
static int ph_timeline(dla_run *r) { return dla__comm_compute(&r->c); }
/* --detailed_mode=false leaves the shapes out: c->shapes stays NULL, which
 * their writer and facts read as none. The instances are grouped on a
 * second thread from after the iterations (they need them) until the
 * shapes phase: the phases between use no writer. */
static int ph_shapes_ahead(dla_run *r) {
  return r->c.o->no_shapes ? DL_OK : dla__shapes_ahead(&r->c);
}
static int ph_shapes(dla_run *r) { return r->c.o->no_shapes ? DL_OK : dla__shapes_run(&r->c); }

static int ph_facts(dla_run *r) {
  return dla__facts_fill(&r->c, &r->cut, r->s.kernel_gpu, &r->f, &r->durations);
}

static int ph_ranks(dla_run *r) { return dla__ranks_run(&r->c, &r->f); }

static int ph_rules(dla_run *r) {
  if (!(r->findings = calloc(MAX_FINDINGS, sizeof *r->findings))) return DL_ENOMEM;
  r->nfindings = dla_rules_run(&r->f, r->findings, MAX_FINDINGS);
  dla__progress(&r->c, "analysing the timeline", 1, 1);
  return DL_OK;
}

/* Writing keeps the reading cache: its rows are appended in key order, and
 * a 64 MiB cache wrote them no faster (docs/performance.md). */
static int ph_write(dla_run *r) {
  return dla__write(&r->c, &r->s, &r->f, r->findings, r->nfindings, r->aggr_id);
}

/* The phases, in order. */
static const struct {
  const char *name;
  int (*run)(dla_run *r);
} phases[] = {
    {"domain", ph_domain},           /* dla_ranges.c */
    {"ranges", ph_ranges},           /* dla_ranges.c */
    {"op nodes and calls", ph_loads}, /* dla_loads.c: dla_pytorch.c beside dla_calls.c, dla_gpuload.c */
    {"timeline ahead", ph_timeline_ahead}, /* dla_tlahead.c, until the timeline's writer */
    {"GPU work", ph_gpu_work},       /* dla_gpuload.c */
    {"iterations", ph_iterations},   /* dla_iter.c, dla_spans.c */
    {"op CPU times", ph_optimes},    /* dla_optimes.c */
    {"op shapes ahead", ph_shapes_ahead}, /* dla_shapes.c, until the op shapes phase */
    {"accumulate", ph_accumulate},   /* dla_accum.c */
    {"op node ids", ph_node_ids},    /* dla_nodeid.c */
    {"time sweep", ph_sweep},        /* dla_sweep.c */
    {"op shapes", ph_shapes},        /* dla_shapes.c, dla_perfmodel.c, dla_peaks.c */
    {"GPU timeline", ph_timeline},   /* dla_comm.c */
    {"facts", ph_facts},             /* dla_facts.c, dla_nsysfacts.c */
    {"ranks", ph_ranks},             /* dla_ranks.c, dla_coll.c */
    {"rules", ph_rules},             /* dla_rules.c */
    {"write", ph_write},             /* dla_write.c */
};

int dla__aggregate_tuned(dldb_writer *w, const dla_opts *opts, const dla_tuning *tune,
                         int64_t *aggr_id, char *err, size_t errlen) {
  dla_opts defaults;
  dla_opts_init(&defaults);
  dla_run run;
  memset(&run, 0, sizeof run);
  dla_run *r = &run;
  dla_ctx *c = &r->c;
  c->w = w;
  c->o = opts ? opts : &defaults;
  c->err = err;
  c->errlen = errlen;
  c->batch_events = tune ? tune->sweep_batch_events : 0;
  c->nvtx_order_budget = tune ? tune->nvtx_order_budget : 0;
  c->kgroup_thread_min = tune ? tune->kgroup_thread_min : 0;
  dl_smap_init(&c->op_by_path);
  r->aggr_id = aggr_id;
  r->tl_inline = tune ? tune->timeline_inline : 0;
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < sizeof phases / sizeof phases[0]; i++)
    rc = phases[i].run(r);
  dldb_tl_built *unused = dla__tlahead_finish(c->tl_ahead); /* a phase failed before its join */
  dldb_timeline_built_free(&unused);
  dla__shapes_free(c); /* joins the grouping when a phase failed before it */
  dldb_writer_end_reads(w);
  if (rc == DL_ENOMEM) dl_err(err, errlen, rc, "dla_aggregate: out of memory");
  free(r->findings);
  free(r->durations);
  dla__accum_free(&r->s);
  dla__comm_free(c);
  dla__ranks_free(c);
  dla__shapes_free(c);
  dla__ctx_free(c);
  return rc;
}

int dla_aggregate(dldb_writer *w, const dla_opts *opts, int64_t *aggr_id, char *err,
                  size_t errlen) {
  return dla__aggregate_tuned(w, opts, NULL, aggr_id, err, errlen);
}
