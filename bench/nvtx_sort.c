/*
 * nvtx_sort.c - the sort of NVTX names by text (analysis/dla_nvtxsort.c)
 * on N emit_nvtx-like names in the order a training loop's ranges come
 * (bench/nsys_gen.c's texts: "aten::conv2d, seq = 12, op_id = 24, sizes =
 * [...], input_op_ids = [23]", each op's inner op and its backward op),
 * every name distinct. Prints the best of 3 sorts' seconds and ns a name,
 * and fails if a sort leaves two names out of order. docs/performance.md
 * quotes it.
 * Build and run: bench/nvtx_sort.sh [NAMES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dla_nvtxsort.h"

static const char *const ops[][3] = { /* op, inner op, backward op */
    {"aten::conv2d", "aten::cudnn_convolution", "CudnnConvolutionBackward0"},
    {"aten::batch_norm", "aten::cudnn_batch_norm", "CudnnBatchNormBackward0"},
    {"aten::relu_", NULL, "ReluBackward0"},
    {"aten::linear", "aten::addmm", "AddmmBackward0"},
    {"aten::add_", NULL, "AddBackward0"},
    {"aten::max_pool2d", "aten::max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0"},
};
static const char *const shapes[] = {"[[64, 256, 56, 56], [64, 256, 1, 1]]",
                                     "[[64, 64, 56, 56], [64], [64]]", "[[64, 64, 56, 56]]",
                                     "[[64, 2048], [1000, 2048], [1000]]"};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000, used = 0, cap = n * 128;
  char *text = malloc(cap);
  dla_nvtx_ent *names = malloc(n * sizeof *names), *v = malloc(n * sizeof *v);
  if (!text || !names || !v) return 1;
  long long seq = 1, id = 1;
  for (size_t i = 0; i < n;) { /* forward ops (each with its inner one), then backward */
    const char *const *op = ops[seq % 6];
    const char *shape = shapes[seq % 4];
    for (int part = 0; part < 3 && i < n; part++) {
      char buf[256];
      int len;
      if (part == 0)
        len = snprintf(buf, sizeof buf, "%s, seq = %lld, op_id = %lld, sizes = %s, "
                       "input_op_ids = [%lld]", op[0], seq, id, shape, id - 1);
      else if (part == 1 && op[1])
        len = snprintf(buf, sizeof buf, "%s, op_id = %lld, sizes = %s", op[1], id, shape);
      else if (part == 2)
        len = snprintf(buf, sizeof buf, "%s, seq = %lld, op_id = %lld", op[2], seq, id);
      else
        continue;
      id++;
      memcpy(text + used, buf, (size_t)len);
      names[i] = (dla_nvtx_ent){.i = (uint32_t)i, .off = (uint32_t)used, .len = (uint32_t)len};
      used += (size_t)len;
      i++;
    }
    seq++;
  }
  double best = 1e9;
  for (int rep = 0; rep < 3; rep++) {
    memcpy(v, names, n * sizeof *v);
    double t0 = now();
    if (dla__nvtx_sort(v, n, text)) return 1;
    double t = now() - t0;
    best = t < best ? t : best;
    for (size_t j = 1; j < n; j++)
      if (dla__nvtx_cmp(text + v[j - 1].off, v[j - 1].len, text + v[j].off, v[j].len) > 0) {
        fprintf(stderr, "nvtx_sort: names %zu and %zu out of order\n", j - 1, j);
        return 1;
      }
  }
  printf("%zu names, %.1f MB of text: best of 3 sorts %.3f s, %.0f ns a name\n", n,
         (double)used / 1e6, best, best * 1e9 / (double)n);
  free(text);
  free(names);
  free(v);
  return 0;
}
