/*
 * dla_ctx.h - the bottom of the analysis (analysis/ only): the context that
 * every phase reads and fills (dla_ctx), its compact records (ranges, API
 * calls, kernels, memory ops, ops), and the helpers the phases share: what a
 * kernel inherits from its launching call, progress, the op registry
 * (dla__op_new, dla__op_for_call), range lookup (dla__find_range) and the
 * iteration index (dla__iter_of). Nothing here calls a phase.
 *
 * Ownership: the context owns every array it points to and every string of
 * its ops; dla__ctx_free frees them (c->comm and c->shapes excepted:
 * dla_comm.c's dla__comm_free, dla_shapes.c's dla__shapes_free). c->w, c->o and c->err are borrowed from the caller of
 * dla_aggregate. All times are ns relative to the profile start.
 */
#ifndef DLA_CTX_H
#define DLA_CTX_H

#include <stdlib.h>

#include "dl.h"
#include "dla.h"
#include "dl_map.h"
#include "dla_opname.h"
#include "dla_rules.h"
#include "dla_sort.h"

enum { DLA_CAT_TC, DLA_CAT_NON_TC, DLA_CAT_MEMORY, DLA_CAT_DATALOADER, DLA_CAT_IO, DLA_CAT_CPU,
       DLA_CAT_OTHER, DLA_NCAT };

/* How a range takes part in op nodes (dla_pytorch.c). */
enum { DLA_ROLE_INST,   /* an op instance: the range is one call of op */
       DLA_ROLE_SUB,    /* inside an instance (emit_nvtx sub-op, DLProf sub-marker): inst owns it */
       DLA_ROLE_MARKER  /* a transparent marker (DLProf scope, model_config): inst owns it or -1 */ };

/* One NVTX range instance (its size is asserted below). Its thread
 * (process and thread id) is an index into c->thr. */
typedef struct dla_range {
  int64_t start, end;
  int32_t name_id;           /* strings id (the loader refuses ids past INT32_MAX) */
  int32_t op;                /* the op of inst (-1 none) */
  int32_t inst;              /* the instance range that owns this range's calls, -1: none */
  /* its thread: c->thr[dla__range_th(r)], 3 bytes, low first (the loader
   * refuses more threads); bytes of their own, apart from the bit fields
   * op building writes while the calls load (dla_calls.c reads it then) */
  uint8_t th[3];
  uint8_t role : 2;          /* DLA_ROLE_* */
  uint8_t kind : 3;          /* dla_text_kind */
  uint8_t style : 2;         /* DLDB_NVTX_* (push/pop, start/end, mark; 0: another value) */
  uint8_t in_dlprof : 1;     /* inside a DLProf op marker instance */
} dla_range;
_Static_assert(sizeof(dla_range) == 32, "dla_range: 32 bytes");
static inline uint32_t dla__range_th(const dla_range *r) {
  return (uint32_t)r->th[0] | (uint32_t)r->th[1] << 8 | (uint32_t)r->th[2] << 16;
}
static inline void dla__range_set_th(dla_range *r, uint32_t th) {
  r->th[0] = (uint8_t)th;
  r->th[1] = (uint8_t)(th >> 8);
  r->th[2] = (uint8_t)(th >> 16);
}
#define DLA_MAX_THREADS (1 << 24)

typedef struct dla_thread {  /* a thread of the ranges */
  int64_t pid, tid;
  uint32_t tk;               /* the rank of tid among the ranges' thread ids: ranges are
                              * in (thread id, start) order, whatever their process */
} dla_thread;

/* Calls and kernels keep their durations in 4 bytes: one of DLA_LONG
 * (2^32 - 1 ns, 4.3 s, or more) is in a table of these, by index. */
#define DLA_LONG UINT32_MAX
typedef struct dla_long {
  int64_t dur;
  int32_t idx;               /* of the call or kernel */
} dla_long;

/* One CUDA API call, in id order (size asserted below; see dla_calls.c). */
typedef struct __attribute__((packed, aligned(4))) dla_api {
  int64_t start;
  uint32_t dur;              /* end - start, or DLA_LONG: in c->along */
  int32_t name_id;           /* strings id */
  int32_t range;             /* innermost enclosing range, -1: none */
} dla_api;
_Static_assert(sizeof(dla_api) == 20, "dla_api: 20 bytes");

/* A call outside every op instance, with its own unassociated_<api> op
 * (c->own, in call order: few calls, so not a field of every call). */
typedef struct dla_own {
  int32_t call, op;
} dla_own;

/* One kernel launch (size asserted below). What comes from the launching call (its
 * start and duration, its innermost range, its op, its iteration) is not
 * copied here: k->api indexes c->a, and the dla__kern_* accessors below
 * derive it; nor what its launch shares with others (names, grid and
 * block, device, tensor-core use): k->cfg indexes c->kcfg; nor its id,
 * dense in the files we write (dla__kern_id). */
typedef struct __attribute__((packed, aligned(4))) dla_kern {
  int64_t gpu_start;
  uint32_t dur;              /* GPU end - start, or DLA_LONG: in c->klong */
  int32_t api;               /* the launching call (index into c->a), -1: not found */
  int32_t cfg;               /* its launch configuration (index into c->kcfg) */
} dla_kern;
_Static_assert(sizeof(dla_kern) == 20, "dla_kern: 20 bytes");

/* A launch configuration: a kernel (by long name) with its grid and block,
 * on one device, shared by its launches (a few thousand at most in real
 * profiles). */
typedef struct dla_kcfg {
  int32_t long_id, short_id; /* strings ids */
  int32_t grid[3], block[3];
  uint32_t blocks;           /* grid x * y * z, at most UINT32_MAX (0: unknown) */
  int32_t device;            /* a folder of ranks' ids reach rank x 100 + device */
  int8_t tc;                 /* its long name uses tensor cores (dla_tc_uses) */
} dla_kcfg;

typedef struct dla_mem {     /* one memcpy or memset */
  int64_t start, end, name_key;
  int32_t api;               /* the launching call (index into c->a), -1: not found */
  int32_t device, iter;
  int32_t inst, op;          /* op instance (dla__call_inst) and op of the launching call */
  int64_t bytes, api_dur;    /* api_dur: the launching call's duration, 0 unknown */
  int8_t kind, copy_kind;    /* kind 1 memcpy, 2 memset; formats.md B.4 copyKind */
  int8_t src_kind, dst_kind; /* memory kinds (memset: dst_kind = its memory) */
  int32_t range;             /* innermost range of the launching call, -1: none */
} dla_mem;

typedef struct dla_op {      /* one op node */
  char *key;                 /* identity (op_by_path key): path, or path + args, ... */
  char *path, *type, *node_id;
  char *stack;               /* stack trace, "" when unknown */
  char *in_shapes, *params, *out_shapes; /* DLProf op markers (dla_dlprof_shapes), else NULL */
  int64_t first_start;       /* first instance's start: op_node_id counters follow it */
  const char *direction;
  char data_type[32];
  int eligible, dataloader, using_tc, bad;
  int shapes_vary;           /* emit_nvtx instances with other "sizes": in_shapes stays NULL */
  int framework;             /* a PyTorch framework op that owns the ranges inside it
                              * (dla_pytorch.c) */
  int64_t num_calls, kernel_calls, cpu, gpu, overhead, idle, tc_gpu;
  int64_t cpu_min, cpu_max, gpu_min, gpu_max;
} dla_op;

typedef struct dla_ctx {
  dldb_writer *w;
  const dla_opts *o;
  char *err;
  size_t errlen;
  int64_t domain_id;
  dla_range *r; size_t nr;
  dla_thread *thr; size_t nthr;      /* the ranges' threads, in (tid, pid) order */
  uint32_t ntk;                      /* distinct thread ids among them */
  dla_api *a; size_t na;
  dla_long *along; size_t nalong, alongcap; /* the long calls' durations, by call */
  dla_own *own; size_t nown;         /* the calls with ops of their own, by call */
  dla_kern *k; size_t nk, kcap;      /* in kernels.id order (dldb_scan_gpu_ops reads so) */
  int32_t *kid; size_t kidcap;       /* the kernels' ids, or NULL: kid0, kid0 + 1, ... */
  int64_t kid0;
  dla_long *klong; size_t nklong, klongcap; /* the long kernels' durations, by kernel */
  int kdur_clamped;          /* a kernel ends before it starts: its duration is 0 here */
  dla_kcfg *kcfg; size_t nkcfg, kcfgcap; /* in the order of their first launch */
  dla_mem *m; size_t nm, mcap;
  dla_op *ops; size_t nops, opcap;
  int32_t nocall_op;                 /* the op of kernels of no op instance (dla__gpu_work), -1 */
  dl_smap op_by_path;
  int32_t gpu_ids[DLA_MAX_GPUS]; int ngpus;
  int64_t gpu_mem[DLA_MAX_GPUS]; /* total memory per GPU, bytes (0: unknown) */
  int32_t gpu_sms[DLA_MAX_GPUS]; /* SM count per GPU (0: unknown) */
  int ngpus_listed, ngpus_amd;   /* GPUs of the gpus table, and those of them made by AMD */
  /* iterations: boundaries b[0..niter], iteration i = [b[i], b[i+1]) */
  int64_t *bound; int64_t niter;
  int64_t *iter_name;        /* niter strings ids of the iterations' names in the trace
                              * (Kineto's ProfilerStep#N), or NULL: none has one */
  int64_t *iter_end;         /* niter ends of the iterations' own spans, or NULL: each
                              * ends where the next begins (bound[i + 1]); a span
                              * ends at or before the next begins, and the time
                              * between two (bound[i + 1] - iter_end[i]) is in no
                              * iteration (dla_spans.c) */
  int64_t iter_start, iter_stop, wall_start, wall_end;
  int64_t wall_ns;           /* the aggregated iterations' time: wall_end - wall_start
                              * less the time between their spans */
  int64_t nest_tol;          /* ns a nested range may end after its parent (the
                              * rounding of a whole-microsecond clock), 0: none */
  int64_t *op_total, *op_self, *op_calls; /* per op, the aggregated instances' CPU time
                              * (ns) and its part outside nested op instances, and
                              * their count (dla_optimes.c), or NULL */
  int key_op_found;
  dla_model_config model_config; /* from {"model_config": ...} marks; -1: unknown */
  int64_t n_emit_ranges, n_dlprof_ops; /* emit_nvtx ranges / DLProf op markers seen */
  /* results of dla_sweep.c */
  int64_t cat_total[DLA_NCAT];
  int64_t *iter_cat;         /* niter * DLA_NCAT */
  double gpu_util[DLA_MAX_GPUS];
  int64_t gpu_busy[DLA_MAX_GPUS], gpu_kernels[DLA_MAX_GPUS];
  struct dla_comm *comm;     /* dla_comm.c: GPU timeline, SM efficiency (owned) */
  struct dla_ranks *ranks;   /* dla_ranks.c: per-rank rows and collectives (owned) */
  struct dla_shapes *shapes; /* dla_shapes.c: op shapes and perf models (owned) */
  struct dla_shapes_ahead *shapes_ahead; /* the instances being grouped (dla_shapes.c) */
  struct dla_tlahead *tl_ahead; /* the timeline's tracks being built ahead (dla_tlahead.c),
                              * or NULL: the writer builds them; joined by the timeline's
                              * writer (dla_write.c), or by dla_aggregate when a phase fails */
  struct dla_nvtx_order *nvtx_order; /* the NVTX name order under way (dla_nvtxorder.c),
                              * started by the NVTX statistics' writer, finished after
                              * the timeline's (dla_write.c) */
  size_t batch_events;       /* dla_tuning.sweep_batch_events; 0: the defaults */
  size_t nvtx_order_budget;  /* dla_tuning.nvtx_order_budget; 0: the default */
  size_t kgroup_thread_min;  /* dla_tuning.kgroup_thread_min; 0: the default */
} dla_ctx;

/* ---- What a kernel inherits from its launching call --------------------- */

/* The duration of item idx of DLA_LONG in v[0..n-1]. */
int64_t dla__long_dur(const dla_long *v, size_t n, int32_t idx);
/* Records a duration: in *dur, or DLA_LONG there and (idx, d) appended
 * to *v (indexes in order). 0, or -1 when out of memory. */
int dla__put_dur(uint32_t *dur, int64_t d, int32_t idx, dla_long **v, size_t *n, size_t *cap);
/* A call's duration and end. */
static inline int64_t dla__api_dur(const dla_ctx *c, const dla_api *a) {
  if (a->dur != DLA_LONG) return a->dur;
  return dla__long_dur(c->along, c->nalong, (int32_t)(a - c->a));
}
static inline int64_t dla__api_end(const dla_ctx *c, const dla_api *a) {
  return a->start + dla__api_dur(c, a);
}

/* A kernel's GPU duration and end. */
static inline int64_t dla__kern_dur(const dla_ctx *c, const dla_kern *k) {
  if (k->dur != DLA_LONG) return k->dur;
  return dla__long_dur(c->klong, c->nklong, (int32_t)(k - c->k));
}
static inline int64_t dla__kern_end(const dla_ctx *c, const dla_kern *k) {
  return k->gpu_start + dla__kern_dur(c, k);
}
/* The launching call's start (the kernel's own GPU start when the call is
 * not found): it places the kernel in an iteration. */
static inline int64_t dla__kern_api_start(const dla_ctx *c, const dla_kern *k) {
  return k->api >= 0 ? c->a[k->api].start : k->gpu_start;
}
/* The launching call's duration, -1 when the call is not found. */
static inline int64_t dla__kern_api_dur(const dla_ctx *c, const dla_kern *k) {
  return k->api >= 0 ? dla__api_dur(c, &c->a[k->api]) : -1;
}
/* The kernel's id (kernels.id). */
static inline int32_t dla__kern_id(const dla_ctx *c, const dla_kern *k) {
  size_t i = (size_t)(k - c->k);
  return c->kid ? c->kid[i] : (int32_t)(c->kid0 + (int64_t)i);
}
/* The kernel's device. */
static inline int32_t dla__kern_device(const dla_ctx *c, const dla_kern *k) {
  return c->kcfg[k->cfg].device;
}
/* Whether the kernel uses tensor cores (its long name, dla_tc_uses). */
static inline int dla__kern_tc(const dla_ctx *c, const dla_kern *k) {
  return c->kcfg[k->cfg].tc;
}
/* The kernel's short name (strings id). */
static inline int32_t dla__kern_short(const dla_ctx *c, const dla_kern *k) {
  return c->kcfg[k->cfg].short_id;
}
/* The innermost range enclosing the launching call, -1: none. */
static inline int32_t dla__kern_range(const dla_ctx *c, const dla_kern *k) {
  return k->api >= 0 ? c->a[k->api].range : -1;
}
/* The unassociated_<api> op of call ai when it is outside every op
 * instance (dla__calls_ops made one), else -1; dla__own_index: the place
 * of call ai in c->own (of the first call after it when it has none). */
int32_t dla__call_own_op(const dla_ctx *c, int32_t ai);
size_t dla__own_index(const dla_ctx *c, int32_t ai);
/* The op instance of GPU work launched by call ai (-1: not found): the
 * range instance owning the call's innermost range; else, for a call
 * outside every instance (its own unassociated op), nr + ai; else -1. */
static inline int32_t dla__call_inst(const dla_ctx *c, int32_t ai) {
  if (ai < 0) return -1;
  const dla_api *a = &c->a[ai];
  if (a->range >= 0 && c->r[a->range].inst >= 0) return c->r[a->range].inst;
  return dla__call_own_op(c, ai) >= 0 ? (int32_t)(c->nr + (size_t)ai) : -1;
}
/* The op of call ai: its instance's, or its own (-1: none). */
static inline int32_t dla__call_op(const dla_ctx *c, int32_t ai) {
  const dla_api *a = &c->a[ai];
  if (a->range >= 0 && c->r[a->range].inst >= 0) return c->r[c->r[a->range].inst].op;
  return dla__call_own_op(c, ai);
}

/* The op of kernel k: its launching call's (dla__call_op), else the op
 * shared by GPU work of no known op instance (dla__gpu_work made it). */
static inline int32_t dla__kern_op(const dla_ctx *c, const dla_kern *k) {
  int32_t op = k->api >= 0 ? dla__call_op(c, k->api) : -1;
  return op >= 0 ? op : c->nocall_op;
}

/* Room for one more element in arr (n used of cap): doubles it (from 1024
 * elements). 0, or -1 when out of memory (arr unchanged). */
static inline int dla__grow(void **arr, size_t *cap, size_t elem) {
  size_t ncap = *cap ? *cap * 2 : 1024;
  void *p = realloc(*arr, ncap * elem);
  if (!p) return -1;
  dl_advise_huge(p, ncap * elem);
  *arr = p;
  *cap = ncap;
  return 0;
}
#define DLA_GROW(arr, n, cap) ((n) < (cap) ? 0 : dla__grow((void **)&(arr), &(cap), sizeof *(arr)))

/* The loaded range (c->r, sorted by thread, start, outer
 * first) of process pid and thread tid with these times (end not before
 * start) and, for name_id >= 0, that name; of equals, the last (the
 * innermost, as the sort leaves them). -1: not loaded (another domain). */
int32_t dla__find_range(const dla_ctx *c, int64_t pid, int64_t tid, int64_t start, int64_t end,
                        int64_t name_id);
/* -1/0/1: the threads' order, (tid, pid). */
static inline int dla__thread_cmp(const dla_thread *a, const dla_thread *b) {
  if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
  return (a->pid > b->pid) - (a->pid < b->pid);
}
/* The index in c->thr of thread (pid, tid), -1: no range has it. */
int32_t dla__thread_of(const dla_ctx *c, int64_t pid, int64_t tid);
/* A range's thread id, and its rank among the ranges' thread ids. */
static inline int64_t dla__range_tid(const dla_ctx *c, const dla_range *r) {
  return c->thr[dla__range_th(r)].tid;
}
static inline uint32_t dla__range_tk(const dla_ctx *c, const dla_range *r) {
  return c->thr[dla__range_th(r)].tk;
}

/* -1/0/1: range r against the key (tk, start, end), the ranges' order
 * (thread id, start ascending; end descending: outer first). */
static inline int dla__range_cmp_key(const dla_ctx *c, const dla_range *r, uint32_t tk,
                                     int64_t start, int64_t end) {
  uint32_t rk = dla__range_tk(c, r);
  if (rk != tk) return rk < tk ? -1 : 1;
  if (r->start != start) return r->start < start ? -1 : 1;
  if (r->end != end) return r->end > end ? -1 : 1;
  return 0;
}

/* The end of iteration i's own span (the next one's start without spans). */
static inline int64_t dla__iter_end(const dla_ctx *c, int64_t i) {
  return c->iter_end ? c->iter_end[i] : c->bound[i + 1];
}
/* Iteration i's duration: its span. */
static inline int64_t dla__iter_dur(const dla_ctx *c, int64_t i) {
  return dla__iter_end(c, i) - c->bound[i];
}
/* Whether range r nests in parent p (same thread, ranges' order): p
 * contains it, or, on a rounded clock, r starts inside p or where it ends
 * and ends at most c->nest_tol after it (a child's start and end both
 * rounded up); otherwise ranges that merely touch or overlap are
 * siblings. */
static inline int dla__nests(const dla_ctx *c, const dla_range *p, const dla_range *r) {
  if (p->end < r->start) return 0;
  if (r->end <= p->end) return 1;
  return p->end > p->start && r->end - p->end <= c->nest_tol;
}

/* The iteration containing t (clamped to [0, niter-1]). */
int32_t dla__iter_of(const dla_ctx *c, int64_t t);
/* dla__iter_of(c, t), trying *hint (the iteration found last; start it at
 * 0) and the one after it first: O(1) for times mostly in order. */
static inline int32_t dla__iter_near(const dla_ctx *c, int64_t t, int32_t *hint) {
  for (int32_t h = *hint; h <= *hint + 1 && h < c->niter; h++)
    if ((h == 0 || c->bound[h] <= t) && (h == c->niter - 1 || t < c->bound[h + 1]))
      return *hint = h;
  return *hint = dla__iter_of(c, t);
}
/* The kernel's iteration: its launching call's start's (dla__kern_api_start). */
static inline int32_t dla__kern_iter(const dla_ctx *c, const dla_kern *k, int32_t *hint) {
  return dla__iter_near(c, dla__kern_api_start(c, k), hint);
}
/* dla__in_aggr(c, dla__iter_of(c, t)) without the search: iteration i
 * starts at bound[i], and times outside the iterations count in the first
 * or the last. */
static inline int dla__in_window(const dla_ctx *c, int64_t t) {
  if (c->iter_start > 0 && t < c->bound[c->iter_start]) return 0;
  return c->iter_stop >= c->niter - 1 || t < c->bound[c->iter_stop + 1];
}
/* Whether kernel k is in the aggregated iterations. */
static inline int dla__kern_in_aggr(const dla_ctx *c, const dla_kern *k) {
  return dla__in_window(c, dla__kern_api_start(c, k));
}
/* 1 if iteration it is aggregated. */
static inline int dla__in_aggr(const dla_ctx *c, int32_t it) {
  return it >= c->iter_start && it <= c->iter_stop;
}

/* Reports progress (dla_opts.progress). */
void dla__progress(dla_ctx *c, const char *what, int64_t done, int64_t total);
/* A loading phase's progress: records read (n) of an estimated total. */
typedef struct dla_tick {
  dla_ctx *c;
  int64_t n, total;
  const char *what;
} dla_tick;
/* Starts a loading phase: reports it and sizes *arr (cap elements of elem
 * bytes; NULL: none) for the estimated rows of table (the largest id: exact
 * for files we wrote), so that the arrays do not double past what they
 * need; more: rows of other tables the phase reads too. DL_OK or
 * DL_ENOMEM. */
int dla__tick_start(dla_tick *t, const char *what, const char *table, void **arr, size_t *cap,
                    size_t elem, int64_t more);
/* One more record read: reports progress every 64 Ki records. */
static inline void dla__tick(dla_tick *t) {
  if (++t->n % 65536 == 0) dla__progress(t->c, t->what, t->n, t->total);
}
/* The unassociated_<api name> op of call idx (>= 0: one
 * op per call; -1: the op shared by GPU work of no known call). */
int dla__op_for_call(dla_ctx *c, int64_t name_id, int64_t idx, int64_t start, int32_t *out);
/* A new op at c->ops[*out] (key, path, type, stack and data_type copied;
 * direction borrowed: a static string). */
int dla__op_new(dla_ctx *c, const char *key, const char *path, const char *type,
                const char *direction, const char *data_type, const char *stack, int32_t *out);

/* The key op (an op path, type or range name that ends iterations): the
 * one asked (dla_opts.key_op), else the mode's default (dla_default_key_op);
 * NULL: none. */
static inline const char *dla__key_op(const dla_ctx *c) {
  return c->o->key_op ? c->o->key_op : dla_default_key_op(c->o->mode);
}

/* Frees what c owns (c->comm excepted) and leaves it empty. */
void dla__ctx_free(dla_ctx *c);

#endif
