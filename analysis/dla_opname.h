/*
 * dla_opname.h - what an NVTX range's text says about its op.
 *
 * Handles plain names ("train_step"), DLProf-style scope paths
 * ("/module/ResNet::forward/Conv2d::forward/conv2d") and PyTorch emit_nvtx
 * strings ("aten::conv2d, seq = 3, sizes = [[8, 3], []]"). Key/value
 * suffixes after the first ", key = " are parsed; `dtype = float16` is our
 * extension for producers that know the op's data type.
 *
 * DLProf's own PyTorch markers (nvidia_dlprof_pytorch_nvtx) are Python dict
 * reprs: a scope marker {'traceMarker': ['file:line', ...], 'funcStack':
 * '/<module>/A::f/B::g(2)/op'} encloses an op marker {'mod': 'Tensor', 'op':
 * 'uniform_', 'args': [{..., 'shape': (6, 3), 'dtype': 'float32'}]}; a JSON
 * {"model_config": {...}} mark carries the framework settings.
 * dla_opname_kind() tells these apart; the dla_dlprof_* functions read
 * them. How ranges become op nodes: dla_pytorch.c, docs/dldb.md.
 */
#ifndef DLA_OPNAME_H
#define DLA_OPNAME_H

#include <stddef.h>
#include <stdint.h>

typedef struct dla_opname {
  char path[1024];      /* op path: the text before the key/value suffixes */
  char type[256];       /* short op type: last path element, "aten::" stripped */
  char data_type[32];   /* "float32", ... or "" */
  const char *direction;/* static "fprop" or "bprop" */
  int64_t seq;          /* emit_nvtx sequence number, -1 when absent */
  int64_t fwd_tid;      /* ", fwd_tid = T": a PyTorch profiler trace's backward op, T the
                           profiler's index of the thread of its forward op; -1 absent */
  int is_dataloader;    /* the name marks a data loader ("DataLoader", "dataloader") */
} dla_opname;

/* Parses text (borrowed) into *out. Over-long parts are truncated. */
void dla_opname_parse(const char *text, dla_opname *out);

/* What kind of text a range carries. */
typedef enum dla_text_kind {
  DLA_TEXT_PLAIN,         /* a user range or scope path: an op of its own */
  DLA_TEXT_EMIT_NVTX,     /* PyTorch emit_nvtx: "aten::x[, seq = N...]" or any ", key = v" */
  DLA_TEXT_DLPROF_OP,     /* {'mod': ..., 'op': ..., 'args': [...]} */
  DLA_TEXT_DLPROF_SCOPE,  /* {'traceMarker': [...], 'funcStack': '...'} */
  DLA_TEXT_CONFIG,        /* {"model_config": {...}} */
  DLA_TEXT_WRAPPER,       /* "autograd::engine::evaluate_function: X": transparent */
  DLA_TEXT_STEP,          /* set by op building, never by dla_opname_kind: an instance of a
                             key op that is one iteration per span (Kineto's ProfilerStep#N) */
} dla_text_kind;

dla_text_kind dla_opname_kind(const char *text);

/* A DLProf op marker. */
typedef struct dla_dlprof_op {
  char op[256];         /* 'op' value: the op type ("conv2d") */
  char mod[128];        /* 'mod' value ("torch.nn.functional") */
  char data_type[32];   /* the first argument's 'dtype', "" when none */
  const char *args;     /* the 'args' value as written (into the text), for node identity */
  size_t args_len;
} dla_dlprof_op;

/* Reads an op marker; 0, or -1 when text is not one. */
int dla_dlprof_op_parse(const char *text, dla_dlprof_op *out);

/* DLProf's "Input Shapes", "Parameters" and "Output Shapes" of an op marker
 * (iteration report), from its tensor args: each shape "<d0, d1, ...>",
 * labelled by the op type's layout where DLProf has one ("<N:32, C:3, H:32,
 * W:32>" for conv2d; conv2d and linear, whose output shape DLProf derives),
 * joined with "; ". Parameters are "" (the markers carry none). A value
 * that cannot be told (non-tensor args: parameters, a conv2d output) is
 * NULL. *in, *params, *out are new strings or NULL; free them. 0, or -1
 * when out of memory (all three NULL then). docs/dldb.md "Op shapes". */
int dla_dlprof_shapes(const dla_dlprof_op *m, char **in, char **params, char **out);

/* Reads a scope marker: path = funcStack with "<module>" -> "module",
 * "<lambda>" -> "lambda" and a scope's "(N)" suffix -> "[N]" (DLProf's
 * op_node_name); stack = the traceMarker frames joined by '\n', outermost
 * call first. Over-long values are truncated. 0, or -1 when not one. */
int dla_dlprof_scope_parse(const char *text, char *path, size_t pathcap, char *stack,
                           size_t stackcap);

/* A PyTorch profiler "Call stack" ("file(line): function;...", innermost
 * frame first) as DLProf's stack trace: "file:line" frames joined by '\n',
 * outermost call first; a frame of another shape is kept as it is. Writes
 * the whole frames that fit in cap, from the outermost; "" for no frames.
 * Returns the frames written. */
int dla_kineto_stack(const char *in, char *out, size_t cap);

/* Framework settings of a {"model_config": {...}} mark: -1 when absent. */
typedef struct dla_model_config {
  int emit_nvtx, cudnn_benchmark, amp_enabled, pin_memory;
  int64_t num_workers;
} dla_model_config;

/* Merges the settings found in text into *cfg (fields not in text are kept). */
void dla_model_config_parse(const char *text, dla_model_config *cfg);

/* The ", seq = N" value of a text, -1 when absent. */
int64_t dla_opname_seq(const char *text);

/* 1 if an emit_nvtx op name is a backward Function ("AddmmBackward0",
 * "CudnnConvolutionBackward"). */
int dla_opname_is_backward(const char *path);

/* Writes the op_node_id prefix for a type: upper case, characters other
 * than [A-Z0-9_] replaced by '_' ("uniform_" -> "UNIFORM_"). */
void dla_opname_id_prefix(const char *type, char *buf, size_t buflen);

/* 1 if op path matches a key op ending in '#' as "<key><digits>" (Kineto's
 * ProfilerStep#N against the key "ProfilerStep#"), else 0. */
int dla_opname_key_match(const char *key, const char *path);

#endif
