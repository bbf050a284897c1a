/*
 * dla_perfmodel.c - perf models of ops (see dla_perfmodel.h): shape and
 * type parsing, then one row and one function per op family.
 */
#include "dla_perfmodel.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Parsing --------------------------------------------------------- */

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* One item of the outer list at p ('[' ... ']', or anything up to ',' or
 * ']'): into shape i of s. Returns the position after it, NULL on error. */
static const char *parse_item(const char *p, dla_pm_shapes *s, int i) {
  s->nd[i] = 0;
  if (*p != '[') { /* not a shape: skip it */
    s->nd[i] = -1;
    while (*p && *p != ',' && *p != ']') p++;
    return *p ? p : NULL;
  }
  p++;
  for (;;) {
    p = skip_ws(p);
    if (*p == ']') return p + 1;
    if (*p == '[') { /* a list of tensors: not one shape */
      s->nd[i] = -1;
      int depth = 0;
      for (; *p; p++) {
        if (*p == '[') depth++;
        else if (*p == ']' && --depth < 0) return p + 1;
      }
      return NULL;
    }
    char *e;
    long long v = strtoll(p, &e, 10);
    if (e == p) return NULL;
    if (s->nd[i] >= 0 && s->nd[i] < DLA_PM_MAX_DIMS) s->d[i][s->nd[i]++] = v;
    else s->nd[i] = -1;
    p = skip_ws(e);
    if (*p == ',') p++;
  }
}

int dla_pm_parse_shapes(const char *text, dla_pm_shapes *s) {
  memset(s, 0, sizeof *s);
  if (!text) return -1;
  const char *p = skip_ws(text);
  if (*p++ != '[') return -1;
  for (;;) {
    p = skip_ws(p);
    if (*p == ']') return 0;
    if (s->n == DLA_PM_MAX_ARGS) return -1;
    p = parse_item(p, s, s->n++);
    if (!p) return -1;
    p = skip_ws(p);
    if (*p == ',') p++;
    else if (*p != ']') return -1;
  }
}

int dla_pm_bpe(const char *t) {
  static const struct { const char *name; int bpe; } types[] = {
      {"c10::BFloat16", 2}, {"BFloat16", 2}, {"bfloat16", 2}, {"c10::Half", 2}, {"Half", 2},
      {"float16", 2},       {"float", 4},    {"float32", 4},  {"double", 8},    {"float64", 8},
      {"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}, {"c10::Float8_e4m3fnuz", 1},
      {"c10::Float8_e5m2fnuz", 1}, {"float8", 1}, {"long int", 8}, {"int", 4},
      {"unsigned char", 1}, {"signed char", 1}, {"bool", 1}, {"c10::complex<float>", 8},
  };
  if (!t) return 0;
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcmp(t, types[i].name) == 0) return types[i].bpe;
  return 0;
}

int dla_pm_concrete_item(const char *c, int i, char *out, size_t cap) {
  out[0] = '\0';
  if (!c || cap == 0) return -1;
  const char *p = skip_ws(c);
  if (*p++ != '[') return -1;
  for (int k = 0;; k++) {
    p = skip_ws(p);
    if (*p == ',') p = skip_ws(p + 1);
    if (*p != '\'' && *p != '"') return -1;
    char q = *p++;
    const char *b = p;
    while (*p && *p != q) p += (*p == '\\' && p[1]) ? 2 : 1;
    if (!*p) return -1;
    if (k == i) {
      size_t n = (size_t)(p - b);
      if (n == 0 || n >= cap) return -1;
      memcpy(out, b, n);
      out[n] = '\0';
      return 0;
    }
    p++;
  }
}

/* Integers of concrete item i ("[16, 16]" or "1") into v[0..max-1]; the
 * count, or 0 when absent. */
static int concrete_ints(const char *c, int i, int64_t *v, int max) {
  char buf[128];
  if (i < 0 || dla_pm_concrete_item(c, i, buf, sizeof buf)) return 0;
  int n = 0;
  for (const char *p = buf; *p && n < max;) {
    if (isdigit((unsigned char)*p) || *p == '-') {
      char *e;
      v[n++] = strtoll(p, &e, 10);
      p = e;
    } else {
      p++;
    }
  }
  return n;
}

/* Concrete item i is "True". */
static int concrete_true(const char *c, int i) {
  char buf[16];
  return i >= 0 && !dla_pm_concrete_item(c, i, buf, sizeof buf) && strcmp(buf, "True") == 0;
}

/* ---- Shapes ------------------------------------------------------------ */

static int is_tensor(const dla_pm_shapes *s, int i) { return i < s->n && s->nd[i] > 0; }

static double numel(const dla_pm_shapes *s, int i) {
  if (i >= s->n || s->nd[i] < 0) return 0;
  double n = 1;
  for (int k = 0; k < s->nd[i]; k++) n *= (double)s->d[i][k];
  return n;
}

/* Product of dims [from, to) of input i. */
static double dims_prod(const dla_pm_shapes *s, int i, int from, int to) {
  double n = 1;
  for (int k = from; k < to; k++) n *= (double)s->d[i][k];
  return n;
}

/* Elements of the broadcast of inputs a and b (b not a tensor: a's). */
static double broadcast_numel(const dla_pm_shapes *s, int a, int b) {
  if (!is_tensor(s, b)) return numel(s, a);
  int na = s->nd[a], nb = s->nd[b], n = na > nb ? na : nb;
  double out = 1;
  for (int k = 0; k < n; k++) {
    int64_t x = k < na ? s->d[a][na - 1 - k] : 1, y = k < nb ? s->d[b][nb - 1 - k] : 1;
    out *= (double)(x > y ? x : y);
  }
  return out;
}

/* ---- Models: one function per family ------------------------------------ */

/* A row: names (aten:: prefix dropped), the family, its function and the
 * positions it reads (meaning per family, below). */
typedef struct pm_row pm_row;
typedef int (*pm_fn)(const pm_row *row, const dla_pm_shapes *in, int bpe, const char *concrete,
                     dla_pm_result *out);
struct pm_row {
  const char *names[10];
  dla_pm_family family;
  pm_fn fn;
  int a, b, c, d; /* family-specific input positions (-1: none) */
};

/* GEMM result: flops 2*M*N*K (+ M*N with a bias), per batch; bytes A, B,
 * the output and a bias of N elements (TraceLens's bytes_func). */
static int gemm_set(dla_pm_result *o, double batch, double m, double n, double k, int bias,
                    int bpe) {
  o->flops = batch * (2.0 * m * n * k + (bias ? m * n : 0));
  o->bytes = (batch * (m * k + k * n + m * n) + (bias ? n : 0)) * bpe;
  o->m = (int64_t)m;
  o->n = (int64_t)n;
  o->k = (int64_t)k;
  o->batch = (int64_t)batch;
  o->out_elems = batch * m * n;
  o->tensor_core_math = 1;
  return 0;
}

/* mm, addmm, bmm, baddbmm: a = A's position, b = B's, c = bias's (-1). */
static int m_gemm(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                  dla_pm_result *o) {
  (void)cc;
  if (!is_tensor(in, r->a) || !is_tensor(in, r->b)) return -1;
  int na = in->nd[r->a], nb = in->nd[r->b];
  if (na != nb || na < 2 || na > 3) return -1;
  const int64_t *A = in->d[r->a], *B = in->d[r->b];
  double batch = na == 3 ? (double)A[0] : 1;
  return gemm_set(o, batch, (double)A[na - 2], (double)B[nb - 1], (double)A[na - 1],
                  r->c >= 0 && is_tensor(in, r->c), bpe);
}

/* matmul: leading dims of A fold into M when B is a matrix, else batch. */
static int m_matmul(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                    dla_pm_result *o) {
  (void)r;
  (void)cc;
  if (!is_tensor(in, 0) || !is_tensor(in, 1)) return -1;
  int na = in->nd[0], nb = in->nd[1];
  if (na < 2 || nb < 2) return -1;
  const int64_t *A = in->d[0], *B = in->d[1];
  if (nb == 2)
    return gemm_set(o, 1, dims_prod(in, 0, 0, na - 1), (double)B[1], (double)A[na - 1], 0, bpe);
  return gemm_set(o, dims_prod(in, 0, 0, na - 2), (double)A[na - 2], (double)B[nb - 1],
                  (double)A[na - 1], 0, bpe);
}

/* linear(X, W, bias): X (..., K), W (N, K). */
static int m_linear(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                    dla_pm_result *o) {
  (void)r;
  (void)cc;
  if (!is_tensor(in, 0) || !is_tensor(in, 1) || in->nd[1] != 2) return -1;
  int na = in->nd[0];
  return gemm_set(o, 1, dims_prod(in, 0, 0, na - 1), (double)in->d[1][0],
                  (double)in->d[0][na - 1], is_tensor(in, 2), bpe);
}

/* Convolution rows: a = input, b = weight; the concrete positions of
 * stride, padding, dilation and groups (-1: default) in conv_pos[]. */
typedef struct conv_pos { const char *name; int stride, pad, dil, transposed, groups, bwd; } conv_pos;
static const conv_pos conv_args[] = {
    {"convolution", 3, 4, 5, 6, 8, 0},        {"_convolution", 3, 4, 5, 6, 8, 0},
    {"conv1d", 3, 4, 5, -1, 6, 0},            {"conv2d", 3, 4, 5, -1, 6, 0},
    {"conv3d", 3, 4, 5, -1, 6, 0},            {"cudnn_convolution", 3, 2, 4, -1, 5, 0},
    {"convolution_backward", 4, 5, 6, 7, 9, 1},
};

static const conv_pos *conv_of(const char *name) {
  for (size_t i = 0; i < sizeof conv_args / sizeof conv_args[0]; i++)
    if (strcmp(conv_args[i].name, name) == 0) return &conv_args[i];
  return NULL;
}

/* Convolution: 2 * N * C_out * out_spatial * C_in/groups * kernel_spatial
 * FLOPs forward (no bias term, as TraceLens), twice that backward (input
 * and weight gradients); bytes: input, weight and output (backward: the
 * output gradient, input and weight read, their gradients written). */
static int m_conv(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                  dla_pm_result *o, const conv_pos *cp) {
  if (!cc || !is_tensor(in, r->a) || !is_tensor(in, r->b)) return -1;
  int nd = in->nd[r->a], sp = nd - 2;
  if (sp < 1 || sp > 3 || in->nd[r->b] != nd || concrete_true(cc, cp->transposed)) return -1;
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1}, groups = 1, v[3];
  int n;
  if ((n = concrete_ints(cc, cp->stride, v, 3)) == 0) return -1; /* strides are required */
  for (int k = 0; k < sp; k++) stride[k] = v[n == 1 ? 0 : k < n ? k : n - 1];
  if ((n = concrete_ints(cc, cp->pad, v, 3)) > 0)
    for (int k = 0; k < sp; k++) pad[k] = v[n == 1 ? 0 : k < n ? k : n - 1];
  if ((n = concrete_ints(cc, cp->dil, v, 3)) > 0)
    for (int k = 0; k < sp; k++) dil[k] = v[n == 1 ? 0 : k < n ? k : n - 1];
  if (concrete_ints(cc, cp->groups, v, 1) == 1 && v[0] > 0) groups = v[0];
  const int64_t *X = in->d[r->a], *W = in->d[r->b];
  double out_sp = 1, k_sp = 1;
  for (int k = 0; k < sp; k++) {
    int64_t span = dil[k] * (W[2 + k] - 1) + 1;
    int64_t os = (X[2 + k] + 2 * pad[k] - span) / (stride[k] > 0 ? stride[k] : 1) + 1;
    if (os <= 0) return -1;
    out_sp *= (double)os;
    k_sp *= (double)W[2 + k];
  }
  double N = (double)X[0], cout = (double)W[0], cin_g = (double)W[1];
  double fwd = 2.0 * N * cout * out_sp * cin_g * k_sp;
  double xs = numel(in, r->a), ws = numel(in, r->b), ys = N * cout * out_sp;
  o->flops = cp->bwd ? 2 * fwd : fwd;
  o->bytes = (cp->bwd ? 2 * xs + 2 * ws + ys : xs + ws + ys) * bpe;
  o->m = (int64_t)(N * out_sp);
  o->n = (int64_t)(cout / (double)groups);
  o->k = (int64_t)(cin_g * k_sp);
  o->batch = 1;
  o->tensor_core_math = 1;
  return 0;
}

/* Attention rows: a = Q's position (K and V follow), c = is_causal's
 * concrete position, d = 1 for a backward. Q (B, H, N_q, d), K (B, H_kv,
 * N_kv, d), V (B, H_kv, N_kv, d_v). Forward FLOPs 2*B*H*pairs*(d + d_v)
 * (pairs: N_q*N_kv, or the unmasked ones when causal); backward 2.5 times
 * (five matrix products for two). Bytes: Q, K, V and the output (backward:
 * those, the output gradient, and the gradients of Q, K, V). */
static int m_sdpa(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                  dla_pm_result *o) {
  int q = r->a;
  if (!is_tensor(in, q) || !is_tensor(in, q + 1) || !is_tensor(in, q + 2)) return -1;
  if (in->nd[q] != 4 || in->nd[q + 1] != 4 || in->nd[q + 2] != 4) return -1;
  const int64_t *Q = in->d[q], *K = in->d[q + 1], *V = in->d[q + 2];
  double B = (double)Q[0], H = (double)Q[1], nq = (double)Q[2], dqk = (double)Q[3];
  double nkv = (double)K[2], dv = (double)V[3];
  double pairs = nq * nkv;
  if (cc && concrete_true(cc, r->c)) /* causal: keys up to the query's position */
    pairs = nq <= nkv ? nq * (nq + 1) / 2 + nq * (nkv - nq) : nkv * (nkv + 1) / 2;
  double fwd = 2.0 * B * H * pairs * (dqk + dv);
  double qs = numel(in, q), ks = numel(in, q + 1), vs = numel(in, q + 2), os = B * H * nq * dv;
  o->flops = r->d ? 2.5 * fwd : fwd;
  o->bytes = (r->d ? 2 * (qs + ks + vs) + 2 * os : qs + ks + vs + os) * bpe;
  o->m = (int64_t)nq;
  o->n = (int64_t)nkv;
  o->k = (int64_t)dqk;
  o->batch = (int64_t)(B * H);
  o->tensor_core_math = 1;
  return 0;
}

/* Elementwise: a = first input, b = second (-1: unary), c = 1 for an op
 * that only writes (fill_, zero_). One FLOP per output element; bytes:
 * the inputs read and the output written. */
static int m_elem(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                  dla_pm_result *o) {
  (void)cc;
  if (!is_tensor(in, r->a)) return -1;
  double out = r->b >= 0 ? broadcast_numel(in, r->a, r->b) : numel(in, r->a);
  double rd = r->c ? 0 : numel(in, r->a) + (r->b >= 0 && is_tensor(in, r->b) ? numel(in, r->b) : 0);
  o->flops = r->c ? 0 : out;
  o->bytes = (rd + out) * bpe;
  o->out_elems = out;
  return 0;
}

/* Reductions and softmax: a = input, c = FLOPs per element; the input read
 * and, for softmax (d = 1), an output of the same size written. */
static int m_reduce(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                    dla_pm_result *o) {
  (void)cc;
  if (!is_tensor(in, r->a)) return -1;
  double n = numel(in, r->a);
  o->flops = r->c * n;
  o->bytes = (r->d ? 2 * n : n) * bpe;
  o->out_elems = r->d ? n : 0;
  return 0;
}

/* Normalizations: a = input; 5 FLOPs per element (mean, variance, scale,
 * shift), bytes: the input read, the output written and every other
 * tensor input (weight, bias, statistics) read once. Backward (d = 1):
 * the output gradient read too. */
static int m_norm(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                  dla_pm_result *o) {
  (void)cc;
  if (!is_tensor(in, r->a)) return -1;
  double n = numel(in, r->a), other = 0;
  for (int i = 0; i < in->n; i++)
    if (i != r->a && is_tensor(in, i) && numel(in, i) < n) other += numel(in, i);
  o->flops = (r->d ? 8.0 : 5.0) * n;
  o->bytes = ((r->d ? 3 : 2) * n + other) * bpe;
  return 0;
}

/* embedding(weight (V, D), indices): the rows gathered and written, the
 * 8-byte indices read; no FLOPs. */
static int m_embed(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                   dla_pm_result *o) {
  (void)r;
  (void)cc;
  if (!is_tensor(in, 0) || in->nd[0] != 2 || in->n < 2 || in->nd[1] < 0) return -1;
  double idx = numel(in, 1), D = (double)in->d[0][1];
  o->flops = 0;
  o->bytes = 2 * idx * D * bpe + 8 * idx;
  return 0;
}

/* Collectives: the message (input a) moved once; an all_reduce adds one
 * FLOP per element. Bus bandwidth: dla_pm_busbw_factor. */
static int m_comm(const pm_row *r, const dla_pm_shapes *in, int bpe, const char *cc,
                  dla_pm_result *o) {
  (void)cc;
  if (!is_tensor(in, r->a)) return -1;
  double n = numel(in, r->a);
  o->flops = r->c ? n : 0;
  o->bytes = n * bpe;
  return 0;
}

/* clang-format off */
static const pm_row rows[] = {
  {{"mm"}, DLA_PM_GEMM, m_gemm, 0, 1, -1, 0},
  {{"addmm"}, DLA_PM_GEMM, m_gemm, 1, 2, 0, 0},
  {{"bmm"}, DLA_PM_GEMM, m_gemm, 0, 1, -1, 0},
  {{"baddbmm"}, DLA_PM_GEMM, m_gemm, 1, 2, 0, 0},
  {{"matmul"}, DLA_PM_GEMM, m_matmul, 0, 1, -1, 0},
  {{"linear"}, DLA_PM_GEMM, m_linear, 0, 1, 2, 0},
  {{"convolution", "_convolution", "conv1d", "conv2d", "conv3d", "cudnn_convolution"},
   DLA_PM_CONV, NULL, 0, 1, -1, 0},
  {{"convolution_backward"}, DLA_PM_CONV, NULL, 1, 2, -1, 1},
  {{"_scaled_dot_product_flash_attention"}, DLA_PM_SDPA, m_sdpa, 0, 0, 4, 0},
  {{"_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention"},
   DLA_PM_SDPA, m_sdpa, 0, 0, 6, 0},
  {{"scaled_dot_product_attention"}, DLA_PM_SDPA, m_sdpa, 0, 0, 5, 0},
  {{"_scaled_dot_product_flash_attention_backward"}, DLA_PM_SDPA, m_sdpa, 1, 0, 7, 1},
  {{"_scaled_dot_product_efficient_attention_backward"}, DLA_PM_SDPA, m_sdpa, 1, 0, 9, 1},
  {{"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "maximum", "minimum"},
   DLA_PM_ELEMWISE, m_elem, 0, 1, 0, 0},
  {{"threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward",
    "tanh_backward", "pow", "where", "masked_fill", "masked_fill_"},
   DLA_PM_ELEMWISE, m_elem, 0, 1, 0, 0},
  {{"relu", "relu_", "gelu", "silu", "silu_", "sigmoid", "tanh", "exp", "neg", "rsqrt"},
   DLA_PM_ELEMWISE, m_elem, 0, -1, 0, 0},
  {{"copy_", "clone", "_to_copy", "contiguous", "dropout", "native_dropout", "sqrt",
    "hardtanh", "hardtanh_", "leaky_relu"},
   DLA_PM_ELEMWISE, m_elem, 0, -1, 0, 0},
  {{"fill_", "zero_"}, DLA_PM_ELEMWISE, m_elem, 0, -1, 1, 0},
  {{"sum", "mean", "amax", "max", "min", "norm", "argmax"}, DLA_PM_REDUCE, m_reduce, 0, 0, 1, 0},
  {{"softmax", "_softmax", "log_softmax", "_log_softmax", "_softmax_backward_data",
    "_log_softmax_backward_data"},
   DLA_PM_REDUCE, m_reduce, 0, 0, 5, 1},
  {{"layer_norm", "native_layer_norm", "batch_norm", "native_batch_norm",
    "cudnn_batch_norm", "_batch_norm_impl_index", "group_norm", "native_group_norm",
    "rms_norm", "_fused_rms_norm"},
   DLA_PM_NORM, m_norm, 0, 0, 0, 0},
  {{"native_layer_norm_backward", "native_batch_norm_backward", "cudnn_batch_norm_backward",
    "native_group_norm_backward"},
   DLA_PM_NORM, m_norm, 1, 0, 0, 1},
  {{"embedding"}, DLA_PM_EMBED, m_embed, 0, 1, 0, 0},
  {{"nccl:all_reduce", "c10d::allreduce_"}, DLA_PM_COMM, m_comm, 0, 0, 1, 0},
  {{"nccl:all_gather", "nccl:_all_gather_base", "nccl:reduce_scatter",
    "nccl:_reduce_scatter_base", "nccl:broadcast", "nccl:reduce", "nccl:send", "nccl:recv",
    "nccl:all_to_all", "c10d::allgather_"},
   DLA_PM_COMM, m_comm, 0, 0, 0, 0},
};
/* clang-format on */

static const char *const family_names[] = {"no model",    "GEMM",      "convolution",
                                           "attention",   "elementwise", "reduction",
                                           "normalization", "embedding", "collective"};

/* The row of an op name (aten:: dropped) and, for a convolution, its
 * argument positions. */
static const pm_row *row_of(const char *name) {
  if (strncmp(name, "aten::", 6) == 0) name += 6;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    for (int k = 0; k < 10 && rows[i].names[k]; k++)
      if (strcmp(rows[i].names[k], name) == 0) return &rows[i];
  return NULL;
}

dla_pm_family dla_perf_model(const char *name, const dla_pm_shapes *in, const char *dtype,
                             const char *concrete, dla_pm_result *out) {
  memset(out, 0, sizeof *out);
  out->family_name = family_names[0];
  out->batch = 1;
  const pm_row *r = name ? row_of(name) : NULL;
  if (!r || !in) return DLA_PM_NONE;
  int bpe = dla_pm_bpe(dtype);
  int rc;
  if (r->family == DLA_PM_CONV) {
    const char *base = strncmp(name, "aten::", 6) == 0 ? name + 6 : name;
    rc = m_conv(r, in, bpe, concrete, out, conv_of(base));
  } else {
    rc = r->fn(r, in, bpe, concrete, out);
  }
  if (rc) {
    memset(out, 0, sizeof *out);
    out->family_name = family_names[0];
    out->batch = 1;
    return DLA_PM_NONE;
  }
  out->family = r->family;
  out->family_name = family_names[r->family];
  return r->family;
}

double dla_pm_busbw_factor(const char *name, int nranks) {
  static const struct { const char *tag; int kind; } kinds[] = {
      {"all_reduce", 2}, {"allreduce", 2}, {"all_gather", 1}, {"allgather", 1},
      {"reduce_scatter", 1}, {"all_to_all", 1}, {"broadcast", 0}, {"reduce", 0},
      {"send", 0}, {"recv", 0},
  };
  if (!name || nranks < 1) return 0;
  double n = nranks;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strstr(name, kinds[i].tag))
      return kinds[i].kind == 2 ? 2 * (n - 1) / n : kinds[i].kind == 1 ? (n - 1) / n : 1;
  return 0;
}
