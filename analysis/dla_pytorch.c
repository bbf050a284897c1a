/*
 * dla_pytorch.c - op nodes from NVTX ranges, as DLProf 1.8 built them from
 * a PyTorch run (reverse-engineered from its dldb of the w_Relu export;
 * definitions in docs/dldb.md "Op nodes").
 *
 * One pass over the ranges of each thread (sorted by start, outer first)
 * with a stack of open ranges decides each range's role:
 *   - a DLProf op marker {'mod', 'op', 'args'} not inside another one is an
 *     op instance; its node is named by the enclosing scope marker's
 *     funcStack, typed by 'op', identified by (name, args): calls of one
 *     scope with other tensor shapes are other nodes (DLProf: CUDA_1..10);
 *   - everything inside such an instance (nested markers, emit_nvtx ranges)
 *     is a sub-op: its calls and kernels belong to the instance;
 *   - an emit_nvtx range outside DLProf markers is an instance of the node
 *     named by its text (before ", seq = "); emit_nvtx ranges inside it are
 *     its sub-ops; a backward Function range ("AddmmBackward0, seq = M") is
 *     the bprop instance of the node of the outermost forward range with
 *     seq M (same name and type, direction bprop);
 *   - any other range is an instance of the node named by its text, nested
 *     ones included (kernels go to the innermost), and an emit_nvtx range
 *     inside one that is a framework op of a PyTorch profiler trace (an
 *     autograd node, the optimizer's step or zero_grad: key_op_spans) is
 *     its sub-op, as inside an emit_nvtx instance;
 *   - scope markers, model_config marks and autograd evaluate_function
 *     wrappers are transparent: they are no op;
 *   - so are the spans of a key op that is one iteration per span
 *     (dla_opts.key_op_spans: Kineto's ProfilerStep#N): each is an
 *     iteration, not an op (PyTorch's profiler adds them around a whole
 *     step; as ops they doubled "All ops" CPU time and filled the top ops).
 *     What runs in a step outside every op is unassociated, as outside
 *     every range.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dla_internal.h"
#include "dldb_scan.h"

/* seq -> op. PyTorch's sequence numbers count up from wherever the process
 * was when profiling began, so from the first seen on they index an array
 * (4 bytes a seq; a hash map took 32 and a cache miss per lookup: a sixth
 * of building the ops of 10 M ranges); seqs outside its span (limit slots
 * from base) go to a map. */
typedef struct seq_index {
  int64_t base;   /* the first seq put */
  int32_t *ops;   /* ops[seq - base], -1: none */
  size_t cap;     /* slots allocated */
  size_t limit;   /* slots allowed */
  dl_map far;
} seq_index;

static int64_t seq_get(const seq_index *x, int64_t seq) {
  if (x->ops && seq >= x->base && (uint64_t)(seq - x->base) < x->limit)
    return (uint64_t)(seq - x->base) < x->cap ? x->ops[seq - x->base] : -1;
  return dl_map_get(&x->far, (uint64_t)seq);
}

/* Returns 0, or -1 when out of memory. */
static int seq_put(seq_index *x, int64_t seq, int32_t op) {
  if (!x->ops) { /* every allowed slot at once: the pages the seqs reach are touched */
    if (!(x->ops = malloc(x->limit * sizeof *x->ops))) { /* no room for so many: */
      x->limit = 4096;                                 /* the others go to the map */
      if (!(x->ops = malloc(x->limit * sizeof *x->ops))) return -1;
    }
    size_t cap = 4096 < x->limit ? 4096 : x->limit;
    for (size_t i = 0; i < cap; i++) x->ops[i] = -1;
    x->cap = cap;
    x->base = seq;
  }
  if (seq < x->base || (uint64_t)(seq - x->base) >= x->limit)
    return dl_map_put(&x->far, (uint64_t)seq, op);
  size_t at = (size_t)(seq - x->base);
  if (at >= x->cap) {
    size_t cap = (at / 4096 + 1) * 4096;
    if (cap > x->limit) cap = x->limit;
    for (size_t i = x->cap; i < cap; i++) x->ops[i] = -1;
    x->cap = cap;
  }
  x->ops[at] = op;
  return 0;
}

typedef struct builder {
  dla_ctx *c;
  dl_map text_ops;   /* name_id -> op, for plain and emit_nvtx instances (a cache) */
  seq_index fwd_by_seq; /* seq -> the forward op instance (range index) it names */
  dl_map bprop_of;   /* forward op -> its bprop op */
  dl_map threads;    /* thread_key() -> THREAD_* bits: what its op instances showed */
  uint64_t last_key;  /* ... the last thread put (ranges come a thread at a time) */
  int64_t last_bits;
  dla_opname *pn;
  char *path, *stack, *key;
  const char *step_key; /* the key op of iteration spans (key_op_spans), or NULL */
} builder;

enum { PATH_CAP = 1024, STACK_CAP = 8192, KEY_CAP = PATH_CAP + 4096 };
/* text_ops is only a cache (the op of a text follows from the text): it is
 * emptied at this many entries, so that traces whose texts are all
 * distinct (emit_nvtx's "seq = N") do not keep a slot per range. */
enum { TEXT_CACHE_MAX = 1 << 16 }; /* ~2 MiB of slots: stays in the CPU caches */

/* The op of a plain or emit_nvtx instance text; parsed: b->pn already
 * holds the text's dla_opname_parse (emit_nvtx texts, all distinct in
 * most traces, are not parsed twice, and skip the cache: it saves parses,
 * and a lookup of a text seen once costs a miss and a slot). */
static int op_of_text(builder *b, int64_t name_id, const char *text, int parsed, int32_t *out) {
  int64_t v = parsed ? -1 : dl_map_get(&b->text_ops, (uint64_t)name_id);
  if (v >= 0) {
    *out = (int32_t)v;
    return DL_OK;
  }
  if (!parsed) dla_opname_parse(text, b->pn);
  int64_t found = dl_smap_get(&b->c->op_by_path, b->pn->path);
  int rc = DL_OK;
  if (found >= 0) *out = (int32_t)found;
  else
    rc = dla__op_new(b->c, b->pn->path, b->pn->path, b->pn->type, b->pn->direction,
                     b->pn->data_type, "", out);
  if (parsed) return rc; /* nothing to save: the parse is done */
  if (b->text_ops.n >= TEXT_CACHE_MAX) {
    dl_map_free(&b->text_ops);
    dl_map_init(&b->text_ops);
  }
  if (rc == DL_OK && dl_map_put(&b->text_ops, (uint64_t)name_id, *out)) rc = DL_ENOMEM;
  return rc;
}

/* emit_nvtx's (and the Kineto import's) "sizes = [[32, 3, 224, 224], [64],
 * [], ...]" as DLProf's input shapes, "<32, 3, 224, 224>; <64>": a shape
 * per tensor input, non-tensor inputs ([]) left out. out is left empty when
 * text has no sizes, none is a tensor, or they do not fit. */
static void emit_shapes(const char *text, char *out, size_t cap) {
  out[0] = '\0';
  const char *p = strstr(text, ", sizes = [");
  if (!p) return;
  p += 11; /* past the outer '[' */
  size_t n = 0;
  while (*p && *p != ']') {
    while (*p == ' ' || *p == ',') p++;
    if (*p != '[') { /* a scalar item: skip it */
      while (*p && *p != ',' && *p != ']') p++;
      continue;
    }
    const char *b = ++p;
    int depth = 1;
    while (*p && depth) depth += *p == '[' ? 1 : *p == ']' ? -1 : 0, p++;
    if (depth) { /* cut short: no shapes */
      out[0] = '\0';
      return;
    }
    size_t len = (size_t)(p - 1 - b);
    if (len == 0) continue;
    if (n + len + 5 >= cap) {
      out[0] = '\0';
      return;
    }
    if (n) { /* "; <...>", copied: snprintf costs more on millions of texts */
      memcpy(out + n, "; ", 2);
      n += 2;
    }
    out[n++] = '<';
    memcpy(out + n, b, len);
    n += len;
    out[n++] = '>';
    out[n] = '\0';
  }
}

/* An op node of emit_nvtx instances keeps their input shapes when all that
 * carry sizes agree (one node holds every call of its name: with several
 * shapes it has none). */
static int note_shapes(dla_op *op, const char *text) {
  if (op->shapes_vary) return DL_OK;
  char buf[1024];
  emit_shapes(text, buf, sizeof buf);
  if (!buf[0]) return DL_OK;
  if (!op->in_shapes) return (op->in_shapes = strdup(buf)) ? DL_OK : DL_ENOMEM;
  if (strcmp(op->in_shapes, buf) != 0) {
    free(op->in_shapes);
    op->in_shapes = NULL;
    op->shapes_vary = 1;
  }
  return DL_OK;
}

/* The op of a DLProf op marker; scope: the enclosing scope marker's text. */
static int op_of_marker(builder *b, const char *text, const char *scope, int32_t *out) {
  dla_dlprof_op m;
  if (dla_dlprof_op_parse(text, &m)) return op_of_text(b, -1, text, 0, out);
  if (!scope || dla_dlprof_scope_parse(scope, b->path, PATH_CAP, b->stack, STACK_CAP) ||
      !b->path[0]) {
    snprintf(b->path, PATH_CAP, "/%s", m.op);
    b->stack[0] = '\0';
  }
  int n = snprintf(b->key, KEY_CAP, "\001%s\037%.*s", b->path,
                   (int)(m.args_len > 4000 ? 4000 : m.args_len), m.args ? m.args : "");
  (void)n;
  int64_t found = dl_smap_get(&b->c->op_by_path, b->key);
  if (found >= 0) {
    *out = (int32_t)found;
    return DL_OK;
  }
  int rc = dla__op_new(b->c, b->key, b->path, m.op, "fprop", m.data_type, b->stack, out);
  if (rc != DL_OK) return rc;
  /* the node is (name, args): its instances share their shapes */
  dla_op *op = &b->c->ops[*out];
  return dla_dlprof_shapes(&m, &op->in_shapes, &op->params, &op->out_shapes) ? DL_ENOMEM : DL_OK;
}

/* The bprop node of forward op fwd (same name, type, data type and stack),
 * made once, into *out. */
static int bprop_node(builder *b, int32_t fwd, int32_t *out) {
  int64_t v = dl_map_get(&b->bprop_of, (uint64_t)fwd);
  if (v >= 0) {
    *out = (int32_t)v;
    return DL_OK;
  }
  dla_ctx *c = b->c;
  /* data_type lives inside c->ops, which dla__op_new may move: a copy */
  char data_type[sizeof c->ops[fwd].data_type];
  memcpy(data_type, c->ops[fwd].data_type, sizeof data_type);
  snprintf(b->key, KEY_CAP, "\003%s", c->ops[fwd].key);
  int rc = dla__op_new(c, b->key, c->ops[fwd].path, c->ops[fwd].type, "bprop", data_type,
                       c->ops[fwd].stack, out);
  if (rc == DL_OK && dl_map_put(&b->bprop_of, (uint64_t)fwd, *out)) rc = DL_ENOMEM;
  return rc;
}

/* The bprop op of a backward range (its text's seq >= 0), or the node of
 * its text when no forward range has that seq (the text is read only then). */
static int op_of_backward(builder *b, int64_t name_id, int64_t seq, int32_t *out) {
  int64_t inst = seq_get(&b->fwd_by_seq, seq);
  int32_t fwd = inst >= 0 ? b->c->r[inst].op : -1;
  if (fwd < 0) {
    const char *text = dldb_writer_string(b->c->w, name_id);
    return op_of_text(b, name_id, text ? text : "", 0, out);
  }
  return bprop_node(b, fwd, out);
}

/* The bprop node of *op's name, into *op: for an instance the autograd
 * engine runs (inside an "autograd::engine::evaluate_function: X" wrapper,
 * at any depth) whose name does not say backward: a C++ autograd node
 * (CppNode<...>), AccumulateGrad, a gradient hook's collective (DDP's
 * c10d::allreduce_ > record_param_comms > nccl:all_reduce). Shared with
 * the bprop node op_of_backward makes for a forward op of that name. */
static int op_as_bprop(builder *b, int32_t *op) {
  if (strcmp(b->c->ops[*op].direction, "bprop") == 0) return DL_OK;
  return bprop_node(b, *op, op);
}

/* What a thread's op instances showed: backward ops of a PyTorch profiler
 * trace (", fwd_tid = T"), and forward ops that numbered an autograd node
 * (a seq, no fwd_tid, a name that does not say backward). */
enum { THREAD_BWD = 1, THREAD_FWD_SEQ = 2 };

static uint64_t thread_key(const dla_range *r) { return dla__range_th(r); }

static int thread_saw(builder *b, const dla_range *r, int64_t bits) {
  uint64_t k = thread_key(r);
  if (b->threads.n && k == b->last_key && (b->last_bits & bits) == bits) return DL_OK;
  int64_t v = dl_map_get(&b->threads, k);
  v = (v < 0 ? 0 : v) | bits;
  b->last_key = k;
  b->last_bits = v;
  return dl_map_put(&b->threads, k, v) ? DL_ENOMEM : DL_OK;
}

/* Traces of PyTorch versions without the engine's evaluate_function
 * wrapper (2021's): a thread that runs backward ops and no forward op that
 * numbers an autograd node is the autograd engine's (a CUDA device
 * thread; a backward run on CPU tensors runs on the calling thread, whose
 * forward ops number nodes), and each op instance on it is backward work
 * (AccumulateGrad, gradient hooks), as inside the wrapper. A seq such an
 * instance was taken to own then names no forward op. */
static int engine_threads_bprop(builder *b) {
  dla_ctx *c = b->c;
  int rc = DL_OK, any = 0;
  for (size_t s = 0; s < b->threads.cap && !any; s++) any = b->threads.vals[s] == THREAD_BWD;
  for (size_t i = 0; any && rc == DL_OK && i < c->nr; i++) {
    dla_range *r = &c->r[i];
    if (r->inst != (int32_t)i || r->op < 0 ||
        dl_map_get(&b->threads, thread_key(r)) != THREAD_BWD ||
        strcmp(c->ops[r->op].direction, "bprop") == 0)
      continue;
    if ((rc = op_as_bprop(b, &r->op))) break;
    if (r->kind != DLA_TEXT_EMIT_NVTX) continue;
    int64_t seq = dla_opname_seq(dldb_writer_string(c->w, r->name_id));
    if (seq >= 0 && seq_get(&b->fwd_by_seq, seq) == (int64_t)i && seq_put(&b->fwd_by_seq, seq, -1))
      rc = DL_ENOMEM;
  }
  return rc;
}

/* Backward emit_nvtx instances wait for every forward range; their seqs
 * are kept (in range order) so that their texts need not be read again (4
 * bytes each: a seq past UINT32_MAX - 1 is read from its text again). */
typedef struct pending_seqs {
  uint32_t *v;
  size_t n, cap;
} pending_seqs;

static int pending_add(pending_seqs *q, size_t nr, int64_t seq) {
  if (q->n == q->cap) { /* at most one a range: all at once, touched as used */
    size_t want = q->cap ? 2 * q->cap : nr;
    uint32_t *n = realloc(q->v, want * sizeof *n);
    if (!n && !q->cap) n = realloc(q->v, (want = 4096) * sizeof *n); /* then doubling */
    if (!n) return DL_ENOMEM;
    q->v = n;
    q->cap = want;
  }
  q->v[q->n++] = seq < UINT32_MAX ? (uint32_t)seq : UINT32_MAX;
  return DL_OK;
}

/* Framework ops of a PyTorch profiler trace that own what runs inside
 * them, as their aten:: calls do: autograd nodes (XBackward0,
 * AccumulateGrad, with no seq in the autograd profiler's format) and the
 * optimizer's step and zero_grad (Optimizer.step#SGD.step). */
static int framework_text(const char *text) {
  return dla_opname_is_backward(text) || strcmp(text, "AccumulateGrad") == 0 ||
         strncmp(text, "Optimizer.", 10) == 0;
}

/* Whether an emit_nvtx range inside instance pinst (-1: none) is its
 * sub-op: inside an emit_nvtx instance, or, in a PyTorch profiler trace, a
 * framework op. */
static int owned_by(const builder *b, int32_t pinst) {
  const dla_ctx *c = b->c;
  if (pinst < 0) return 0;
  if (c->r[pinst].kind == DLA_TEXT_EMIT_NVTX) return 1;
  return b->step_key && c->r[pinst].kind == DLA_TEXT_PLAIN && c->r[pinst].op >= 0 &&
         c->ops[c->r[pinst].op].framework;
}

/* An emit_nvtx range i (r) with parent instance pinst: an instance unless
 * inside a DLProf marker or owned by its parent (owned_by); a backward one
 * waits in q for its forward op. */
static int emit_range(builder *b, dla_range *r, size_t i, const char *text, int32_t pinst,
                      pending_seqs *q) {
  dla_ctx *c = b->c;
  c->n_emit_ranges++;
  if (r->in_dlprof || owned_by(b, pinst)) return DL_OK;
  r->role = DLA_ROLE_INST;
  r->inst = (int32_t)i;
  dla_opname_parse(text, b->pn);
  int rc = DL_OK;
  if (b->pn->fwd_tid > 0) rc = thread_saw(b, r, THREAD_BWD);
  else if (b->pn->seq >= 0 && !dla_opname_is_backward(b->pn->path))
    rc = thread_saw(b, r, THREAD_FWD_SEQ);
  if (rc) return rc;
  if (b->pn->seq >= 0 && dla_opname_is_backward(b->pn->path)) {
    r->op = -2; /* paired in pair_pending, once every forward range is known */
    return pending_add(q, c->nr, b->pn->seq);
  }
  rc = op_of_text(b, r->name_id, text, 1, &r->op);
  if (rc == DL_OK && r->op >= 0) rc = note_shapes(&c->ops[r->op], text);
  return rc;
}

/* Range i's role, instance and op from its text and its parent p (NULL:
 * none; pinst: p's instance). */
static int range_role(builder *b, dla_range *r, size_t i, const char *text, const dla_range *p,
                      int32_t pinst, pending_seqs *q) {
  dla_ctx *c = b->c;
  switch (r->kind) {
  case DLA_TEXT_DLPROF_SCOPE:
  case DLA_TEXT_WRAPPER:
  case DLA_TEXT_STEP:
    r->role = DLA_ROLE_MARKER;
    return DL_OK;
  case DLA_TEXT_CONFIG:
    r->role = DLA_ROLE_MARKER;
    dla_model_config_parse(text, &c->model_config);
    return DL_OK;
  case DLA_TEXT_DLPROF_OP:
    c->n_dlprof_ops++;
    if (r->in_dlprof) return DL_OK;
    r->role = DLA_ROLE_INST;
    r->inst = (int32_t)i;
    r->in_dlprof = 1;
    return op_of_marker(b, text,
                        p && p->kind == DLA_TEXT_DLPROF_SCOPE ? dldb_writer_string(c->w, p->name_id)
                                                              : NULL,
                        &r->op);
  case DLA_TEXT_EMIT_NVTX:
    return emit_range(b, r, i, text, pinst, q);
  default:
    if (r->in_dlprof) return DL_OK;
    r->role = DLA_ROLE_INST;
    r->inst = (int32_t)i;
    int rc = op_of_text(b, r->name_id, text, 0, &r->op);
    if (rc == DL_OK && b->step_key && r->op >= 0 && framework_text(text))
      c->ops[r->op].framework = 1;
    return rc;
  }
}

/* Which forward op instance a seq names. PyTorch numbers an autograd node
 * when an op creates it; ops that create none (an in-place add on a
 * buffer, empty, view) report the number the next node will get. So the
 * instance that owns seq M is the last one on its thread whose ranges
 * carry M (batch_norm after the running-stats add, conv after the zero_
 * and view before it); ranges nested in one instance share its seq and
 * name the same instance. */
static int note_fwd_seq(builder *b, const dla_range *r, size_t i, const char *text) {
  dla_ctx *c = b->c;
  int32_t owner_op = r->inst == (int32_t)i ? r->op : c->r[r->inst].op;
  /* backward work the engine runs (op_as_bprop) names no forward op */
  if (owner_op >= 0 && strcmp(c->ops[owner_op].direction, "bprop") == 0) owner_op = -1;
  int64_t seq = owner_op < 0 ? -1 : r->inst == (int32_t)i ? b->pn->seq : dla_opname_seq(text);
  int64_t prev = seq >= 0 ? seq_get(&b->fwd_by_seq, seq) : -1;
  int take = seq >= 0 && (prev < 0 || (prev != r->inst &&
                                        dla__range_th(&c->r[prev]) == dla__range_th(r)));
  return take && seq_put(&b->fwd_by_seq, seq, r->inst) ? DL_ENOMEM : DL_OK;
}

/* The instance a range r with parent p belongs to; node: the last op
 * instance directly inside p (-1: none). An autograd engine wrapper runs
 * one node. On a rounded clock (whole microseconds, each end rounded
 * down) the node may have run up to c->nest_tol past its rounded end, and
 * a call that starts and ends within that may have been its own
 * (AccumulateGrad's add_, rounded to the microsecond after a node of
 * 0 us): it is taken as the node's, not as an op of its own. A call that
 * ends later cannot have been inside the node: it is the engine's own
 * (validate_outputs' sum_to, the input buffer's add), an op of its own. */
static int32_t parent_inst(const dla_ctx *c, const dla_range *p, int32_t node,
                           const dla_range *r) {
  if (!p) return -1;
  if (p->kind == DLA_TEXT_WRAPPER && c->nest_tol > 0 && node >= 0 &&
      r->end <= c->r[node].end + c->nest_tol)
    return node;
  return p->inst;
}

/* One pass over the ranges of each thread, with a stack of open ranges;
 * node[s]: the last op instance directly inside stack slot s (-1: none). */
static int build_pass(builder *b, pending_seqs *q) {
  dla_ctx *c = b->c;
  int32_t *stack = malloc((c->nr + 1) * sizeof *stack);
  int32_t *node = malloc((c->nr + 1) * sizeof *node);
  if (!stack || !node) {
    free(stack);
    free(node);
    return DL_ENOMEM;
  }
  size_t sp = 0;
  int rc = DL_OK;
  for (size_t i = 0; i < c->nr && rc == DL_OK; i++) {
    dla_range *r = &c->r[i];
    if (i == 0 || dla__range_th(r) != dla__range_th(&c->r[i - 1])) sp = 0;
    /* the parent contains r (dla__nests): ranges that merely touch or overlap are siblings */
    while (sp && !dla__nests(c, &c->r[stack[sp - 1]], r)) sp--;
    const dla_range *p = sp ? &c->r[stack[sp - 1]] : NULL;
    int32_t pinst = parent_inst(c, p, sp ? node[sp - 1] : -1, r);
    const char *text = dldb_writer_string(c->w, r->name_id);
    if (!text) text = "";
    r->kind = (int8_t)dla_opname_kind(text);
    r->in_dlprof = p ? p->in_dlprof : 0;
    r->inst = pinst;
    r->role = DLA_ROLE_SUB;
    if (b->step_key && !r->in_dlprof && dla_opname_key_match(b->step_key, text)) {
      r->kind = DLA_TEXT_STEP;
      r->role = DLA_ROLE_MARKER;
    }
    rc = range_role(b, r, i, text, p, pinst, q);
    if (rc == DL_OK && r->role == DLA_ROLE_INST && r->inst == (int32_t)i && r->op >= 0) {
      int in_engine = 0; /* inside an autograd engine wrapper, at any depth */
      for (size_t d = 0; d < sp && !in_engine; d++) in_engine = c->r[stack[d]].kind == DLA_TEXT_WRAPPER;
      if (in_engine) rc = op_as_bprop(b, &r->op);
    }
    if (rc == DL_OK && r->kind == DLA_TEXT_EMIT_NVTX && r->inst >= 0)
      rc = note_fwd_seq(b, r, i, text);
    if (sp && r->role == DLA_ROLE_INST && r->inst == (int32_t)i && r->op >= 0)
      node[sp - 1] = (int32_t)i;
    node[sp] = -1;
    stack[sp++] = (int32_t)i;
  }
  free(stack);
  free(node);
  return rc;
}

/* The backward instances that waited (q, in range order) with their
 * forward ops. */
static int pair_pending(builder *b, const pending_seqs *q) {
  dla_ctx *c = b->c;
  int rc = DL_OK;
  for (size_t i = 0, j = 0; rc == DL_OK && j < q->n && i < c->nr; i++) {
    dla_range *r = &c->r[i];
    if (r->op != -2 || r->inst != (int32_t)i) continue;
    int64_t seq = q->v[j++];
    if (seq == UINT32_MAX) seq = dla_opname_seq(dldb_writer_string(c->w, r->name_id));
    rc = op_of_backward(b, r->name_id, seq, &r->op);
  }
  return rc;
}

static int build(builder *b) {
  dla_ctx *c = b->c;
  pending_seqs q = {0};
  int rc = build_pass(b, &q);
  if (rc == DL_OK) rc = engine_threads_bprop(b);
  if (rc == DL_OK) rc = pair_pending(b, &q);
  free(q.v);
  for (size_t i = 0; rc == DL_OK && i < c->nr; i++) {
    dla_range *r = &c->r[i];
    if (r->inst != (int32_t)i) r->op = r->inst >= 0 ? c->r[r->inst].op : -1;
    if (r->inst == (int32_t)i && r->op >= 0 && r->start < c->ops[r->op].first_start)
      c->ops[r->op].first_start = r->start;
  }
  return rc;
}

/* ---- Call stacks (PyTorch profiler traces recorded with_stack=True) ------- */

typedef struct stack_pair {
  int32_t op;
  int32_t stack_id; /* strings id */
} stack_pair;

typedef struct stack_scan {
  dla_ctx *c;
  stack_pair *p;
  size_t n, cap;
} stack_scan;

static int stack_row(void *ctx, const dldb_scan_range *s) {
  stack_scan *x = ctx;
  int64_t end = s->end_ns < s->start_ns ? s->start_ns : s->end_ns; /* as loaded */
  int32_t i = dla__find_range(x->c, s->pid, s->tid, s->start_ns, end, s->name_id);
  const dla_range *r = i >= 0 ? &x->c->r[i] : NULL;
  if (!r || r->inst != i || r->op < 0 || s->stack_id <= 0 || s->stack_id > INT32_MAX)
    return 0; /* the stack of an op instance counts, not a sub-op's */
  if (DLA_GROW(x->p, x->n, x->cap)) return DL_ENOMEM;
  x->p[x->n++] = (stack_pair){r->op, (int32_t)s->stack_id};
  return 0;
}

static int cmp_stack_pair(const void *x, const void *y) {
  const stack_pair *a = x, *b = y;
  if (a->op != b->op) return a->op < b->op ? -1 : 1;
  return (a->stack_id > b->stack_id) - (a->stack_id < b->stack_id);
}

/* op's stack trace: stack (a strings id) as DLProf's frames and, when
 * its instances came from other stacks too, how many. */
static int set_op_stack(dla_ctx *c, int32_t op, int32_t stack, size_t calls, size_t total,
                        size_t nstacks, char *buf, size_t cap) {
  const char *text = dldb_writer_string(c->w, stack);
  if (!dla_kineto_stack(text, buf, cap - 96)) return DL_OK;
  size_t n = strlen(buf);
  if (nstacks > 1)
    snprintf(buf + n, cap - n, "\n(this stack: %zu of %zu calls; %zu other stacks)", calls, total,
             nstacks - 1);
  char *s = strdup(buf);
  if (!s) return DL_ENOMEM;
  free(c->ops[op].stack);
  c->ops[op].stack = s;
  return DL_OK;
}

/* Each op's stack trace from its instances' call stacks: the stack most of
 * them came from (the first stored of equals). A bprop node without stacks
 * of its own (the autograd engine's thread has no Python stack) shows its
 * forward op's, as DLProf's did. */
static int add_stacks(builder *b) {
  dla_ctx *c = b->c;
  stack_scan x = {.c = c};
  int rc = dldb_scan_range_stacks(c->w, c->domain_id, stack_row, &x, c->err, c->errlen);
  if (rc || !x.n) {
    free(x.p);
    return rc;
  }
  dla__qsort(x.p, x.n, sizeof *x.p, cmp_stack_pair);
  for (size_t i = 0; rc == DL_OK && i < x.n;) {
    size_t j = i, best = i, best_n = 0, nstacks = 0;
    while (j < x.n && x.p[j].op == x.p[i].op) {
      size_t k = j;
      while (k < x.n && x.p[k].op == x.p[j].op && x.p[k].stack_id == x.p[j].stack_id) k++;
      if (k - j > best_n) best = j, best_n = k - j;
      nstacks++;
      j = k;
    }
    rc = set_op_stack(c, x.p[i].op, x.p[best].stack_id, best_n, j - i, nstacks, b->stack,
                      STACK_CAP);
    i = j;
  }
  free(x.p);
  for (size_t s = 0; rc == DL_OK && s < b->bprop_of.cap; s++) {
    if (b->bprop_of.vals[s] < 0) continue;
    dla_op *fwd = &c->ops[b->bprop_of.keys[s]], *bwd = &c->ops[b->bprop_of.vals[s]];
    if (bwd->stack[0] || !fwd->stack[0]) continue;
    char *copy = strdup(fwd->stack);
    if (!copy) rc = DL_ENOMEM;
    else free(bwd->stack), bwd->stack = copy;
  }
  return rc;
}

int dla__build_nodes(dla_ctx *c) {
  builder b = {.c = c};
  dl_map_init(&b.text_ops);
  dl_map_init(&b.fwd_by_seq.far);
  b.fwd_by_seq.limit = 4 * c->nr + 65536; /* at most 16 bytes a range */
  dl_map_init(&b.bprop_of);
  dl_map_init(&b.threads);
  c->model_config = (dla_model_config){-1, -1, -1, -1, -1};
  if (c->o->key_op_spans) {
    const char *key = dla__key_op(c);
    b.step_key = key && *key ? key : NULL;
  }
  b.pn = malloc(sizeof *b.pn);
  b.path = malloc(PATH_CAP);
  b.stack = malloc(STACK_CAP);
  b.key = malloc(KEY_CAP);
  int rc = b.pn && b.path && b.stack && b.key ? build(&b) : DL_ENOMEM;
  if (rc == DL_OK) rc = add_stacks(&b);
  free(b.pn);
  free(b.path);
  free(b.stack);
  free(b.key);
  dl_map_free(&b.text_ops);
  free(b.fwd_by_seq.ops);
  dl_map_free(&b.fwd_by_seq.far);
  dl_map_free(&b.bprop_of);
  dl_map_free(&b.threads);
  return rc;
}
