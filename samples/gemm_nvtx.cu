/*
 * gemm_nvtx - a small CUDA training-like loop for `dlprof APP` on a GPU:
 * NVTX ranges (an iteration range around named steps), host<->device
 * copies (pinned, async), cuBLAS GEMMs in FP32 (SIMT sgemm) and FP16
 * (cublasGemmEx, FP32 accumulation: tensor cores), a custom ReLU kernel,
 * and cudaProfilerStart/Stop around the loop (the warm-up is outside, for
 * --nsys_profile_range=true).
 *
 * Usage: gemm_nvtx [--device-check] [ITERATIONS] [N]
 *   --device-check  exits 0 when cudaGetDeviceCount finds a GPU, else
 *                   prints why and exits 3 (the test's skip probe)
 * Exit status 0 on success, 1 on a CUDA or cuBLAS error (printed).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define CUDA_OK(x)                                                                  \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "gemm_nvtx: %s: %s\n", #x, cudaGetErrorString(e_));      \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

#define CUBLAS_OK(x)                                                                \
  do {                                                                              \
    cublasStatus_t s_ = (x);                                                        \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                              \
      std::fprintf(stderr, "gemm_nvtx: %s: cuBLAS status %d\n", #x, (int)s_);       \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

__global__ void relu(float *x, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0.0f) x[i] = 0.0f;
}

__global__ void to_half(const float *in, __half *out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2half(in[i]);
}

struct Ctx {
  int n;
  size_t elems;
  cublasHandle_t blas;
  cudaStream_t stream;
  float *h_in, *h_out;           /* pinned */
  float *a, *b, *c;              /* FP32 */
  __half *ah, *bh;               /* FP16 copies */
  float *ch;                     /* FP16 GEMM result, FP32 */
};

static void step(Ctx &x, const char *phase) {
  const float one = 1.0f, zero = 0.0f;
  unsigned blocks = (unsigned)((x.elems + 255) / 256);
  nvtxRangePushA(phase);
  nvtxRangePushA("copy_in");
  CUDA_OK(cudaMemcpyAsync(x.a, x.h_in, x.elems * sizeof(float), cudaMemcpyHostToDevice,
                          x.stream));
  nvtxRangePop();
  nvtxRangePushA("gemm_fp32");
  CUBLAS_OK(cublasSgemm(x.blas, CUBLAS_OP_N, CUBLAS_OP_N, x.n, x.n, x.n, &one, x.a, x.n, x.b,
                        x.n, &zero, x.c, x.n));
  nvtxRangePop();
  nvtxRangePushA("gemm_fp16");
  to_half<<<blocks, 256, 0, x.stream>>>(x.a, x.ah, x.elems);
  to_half<<<blocks, 256, 0, x.stream>>>(x.b, x.bh, x.elems);
  CUBLAS_OK(cublasGemmEx(x.blas, CUBLAS_OP_N, CUBLAS_OP_N, x.n, x.n, x.n, &one, x.ah, CUDA_R_16F,
                         x.n, x.bh, CUDA_R_16F, x.n, &zero, x.ch, CUDA_R_32F, x.n,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  nvtxRangePop();
  nvtxRangePushA("relu");
  relu<<<blocks, 256, 0, x.stream>>>(x.c, x.elems);
  CUDA_OK(cudaGetLastError());
  nvtxRangePop();
  nvtxRangePushA("copy_out");
  CUDA_OK(cudaMemcpyAsync(x.h_out, x.c, x.elems * sizeof(float), cudaMemcpyDeviceToHost,
                          x.stream));
  CUDA_OK(cudaStreamSynchronize(x.stream));
  nvtxRangePop();
  nvtxRangePop();
}

int main(int argc, char **argv) {
  int iterations = 20, n = 1024, argi = 1;
  if (argc > 1 && !std::strcmp(argv[1], "--device-check")) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
      std::printf("gemm_nvtx: no usable GPU: cudaGetDeviceCount: %s (%d devices)\n",
                  e != cudaSuccess ? cudaGetErrorString(e) : "no error", count);
      return 3;
    }
    std::printf("gemm_nvtx: %d GPU(s)\n", count);
    return 0;
  }
  if (argc > argi) iterations = std::atoi(argv[argi++]);
  if (argc > argi) n = std::atoi(argv[argi++]);
  if (iterations < 1 || n < 16) {
    std::fprintf(stderr, "usage: gemm_nvtx [--device-check] [ITERATIONS] [N]\n");
    return 2;
  }
  Ctx x{};
  x.n = n;
  x.elems = (size_t)n * (size_t)n;
  nvtxNameOsThreadA(0, "gemm_nvtx main");
  nvtxRangePushA("setup");
  CUDA_OK(cudaStreamCreate(&x.stream));
  CUBLAS_OK(cublasCreate(&x.blas));
  CUBLAS_OK(cublasSetStream(x.blas, x.stream));
  CUDA_OK(cudaMallocHost(&x.h_in, x.elems * sizeof(float)));
  CUDA_OK(cudaMallocHost(&x.h_out, x.elems * sizeof(float)));
  CUDA_OK(cudaMalloc(&x.a, x.elems * sizeof(float)));
  CUDA_OK(cudaMalloc(&x.b, x.elems * sizeof(float)));
  CUDA_OK(cudaMalloc(&x.c, x.elems * sizeof(float)));
  CUDA_OK(cudaMalloc(&x.ch, x.elems * sizeof(float)));
  CUDA_OK(cudaMalloc(&x.ah, x.elems * sizeof(__half)));
  CUDA_OK(cudaMalloc(&x.bh, x.elems * sizeof(__half)));
  std::vector<float> w(x.elems);
  for (size_t i = 0; i < x.elems; i++) {
    x.h_in[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
    w[i] = (float)((i * 40503u) % 1000) / 1000.0f - 0.5f;
  }
  CUDA_OK(cudaMemcpy(x.b, w.data(), x.elems * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemsetAsync(x.c, 0, x.elems * sizeof(float), x.stream));
  nvtxRangePop();
  step(x, "warmup"); /* outside the profiler range */
  CUDA_OK(cudaProfilerStart());
  for (int it = 0; it < iterations; it++) step(x, "iteration");
  CUDA_OK(cudaProfilerStop());
  double sum = 0;
  for (size_t i = 0; i < x.elems; i += 4097) sum += x.h_out[i];
  std::printf("gemm_nvtx: %d iterations of %dx%d GEMMs (FP32 and FP16), checksum %.3f\n",
              iterations, n, n, sum);
  cudaFree(x.a), cudaFree(x.b), cudaFree(x.c), cudaFree(x.ch), cudaFree(x.ah), cudaFree(x.bh);
  cudaFreeHost(x.h_in), cudaFreeHost(x.h_out);
  cublasDestroy(x.blas);
  cudaStreamDestroy(x.stream);
  return 0;
}
