/*
 * dlsample - a replay producer: a synthetic, realistic ResNet-50-like
 * PyTorch training run recorded as the live collector records a real one,
 * then analysed into a dldb (the README's demo profile is made this way).
 *
 * Usage: dlsample [--iterations N] [--precision amp|fp32] [--gpus N]
 *                 [--kernels-per-iter N] [--seed S] [--hostile-names]
 *                 [--force] OUT.sqlite
 *
 * What a GPU would produce is hand-built as CUDA 13.0 CUPTI activity
 * records (device, context, runtime API, concurrent kernel, memcpy, memset,
 * synchronization, overhead and external correlation) in aligned 8 MB
 * buffers, which the collector's real decoding path walks
 * (dlc_buffers_decode: libcupti's cuptiActivityGetNextRecord + dlc_translate,
 * kernel names interned and shortened by the writer). What the NVTX hooks
 * would produce goes in as the collector's NVTX records (range begin and
 * end by id, with the external correlation id of each range on its API
 * calls, as cupti/inject.c pushes it). Both reach the collector's writer
 * (collector/writer.h) and its live store (db/dldb_write_live.h) exactly as
 * in `dlprof APP`; the store then goes through the same pipeline
 * (pipeline/dlp.h: a recorded dldb aggregated) and is moved onto OUT.
 * Nothing derived is written by hand.
 *
 * Per GPU (one process each) and iteration: a DataLoader range with the GPU
 * idle, an input memcpy HtoD, forward ops (conv2d, batch_norm, relu_ per
 * bottleneck block, linear, loss) and backward ops, each with runtime-API
 * launches (correlation ids) and kernels queued on one stream, then the
 * optimizer step (the key op, with a memset for zero_grad) and a
 * synchronising loss.item(). Mixed precision (amp) runs tensor-core kernels
 * (xmma/s16816 FP16 GEMMs); fp32 runs SIMT sgemm kernels only. Iteration 1
 * is slow (cuDNN autotuning) and the profile ends with a short tail, so the
 * iteration-range rule fires. Kernel names are given as CUPTI gives C-linkage
 * names, and templated ones in their demangled form (a C process has no
 * demangler). Deterministic for a given seed.
 *
 * Built without CUPTI (no CUDA toolkit: DLSAMPLE_CUPTI undefined), the
 * activity records skip the buffer round trip and go to the writer as the
 * decoder would hand them over; everything else is the same.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dldb_write.h"
#include "dldb_write_live.h"
#include "dlp.h"
#include "writer.h"
#ifdef DLSAMPLE_CUPTI
#include <cupti.h>

#include "buffers.h"
#include "translate.h"
#endif

typedef struct opts {
  long iterations, gpus, kernels_per_iter;
  uint64_t seed;
  int amp, force, hostile;
  const char *out;
} opts;

/* ---- Deterministic randomness ------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void) {
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return rng_state = x;
}

/* base scaled by a factor in [1 - j, 1 + j] */
static int64_t jitter(int64_t base, double j) {
  double u = (double)(rng_next() >> 11) / 9007199254740992.0;
  return (int64_t)((double)base * (1.0 - j + 2.0 * j * u)) + 1;
}

/* ---- Kernel catalogue ---------------------------------------------------- */

typedef struct kdef {
  const char *short_name, *long_name;
  int64_t dur_ns;   /* typical GPU duration */
  int grid, block;
} kdef;

enum { K_CONV_F, K_CONV_D, K_CONV_W, K_BN_F, K_BN_B, K_RELU_F, K_RELU_B, K_LIN_F, K_LIN_B,
       K_SOFTMAX, K_NLL, K_OPT, K_UNSCALE, K_CAST, K_INIT, K_COUNT };

static const kdef amp_kernels[K_COUNT] = {
    [K_CONV_F] = {"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16",
                  "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_execute_kernel_trt",
                  90000, 196, 128},
    [K_CONV_D] = {"sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage5_warpsize2x2x1_g1_tensor16x8x16",
                  "sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage5_warpsize2x2x1_g1_tensor16x8x16_execute_kernel_trt",
                  100000, 392, 128},
    [K_CONV_W] = {"sm80_xmma_wgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16",
                  "sm80_xmma_wgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_execute_kernel_trt",
                  110000, 256, 256},
    [K_BN_F] = {"bn_fw_tr_1C11_kernel_NCHW",
                "void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>(cudnnTensorStruct, __half const*, cudnnTensorStruct, __half*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
                30000, 128, 512},
    [K_BN_B] = {"bn_bw_1C11_kernel_new",
                "void cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 512, true, 1>(float, float, float, float, cudnnTensorStruct, __half const*, cudnnTensorStruct, __half const*, cudnnTensorStruct, __half*, float const*, float*, float*, float const*, float const*, float)",
                45000, 128, 512},
    [K_RELU_F] = {"vectorized_elementwise_kernel",
                  "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#14}::operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#14}::operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, 2>)",
                  15000, 1024, 128},
    [K_RELU_B] = {"elementwise_kernel",
                  "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::(anonymous namespace)::threshold_kernel_impl<c10::Half>(at::TensorIteratorBase&, c10::Half, c10::Half)::{lambda(c10::Half, c10::Half)#1}>(at::TensorIteratorBase&, at::native::(anonymous namespace)::threshold_kernel_impl<c10::Half>(at::TensorIteratorBase&, c10::Half, c10::Half)::{lambda(c10::Half, c10::Half)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::(anonymous namespace)::threshold_kernel_impl<c10::Half>(at::TensorIteratorBase&, c10::Half, c10::Half)::{lambda(c10::Half, c10::Half)#1}>(at::TensorIteratorBase&, at::native::(anonymous namespace)::threshold_kernel_impl<c10::Half>(at::TensorIteratorBase&, c10::Half, c10::Half)::{lambda(c10::Half, c10::Half)#1} const&)::{lambda(int)#1})",
                  18000, 1024, 128},
    [K_LIN_F] = {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
                 "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", 25000, 16, 128},
    [K_LIN_B] = {"ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_f2f_stages_64x5_tn",
                 "ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_f2f_stages_64x5_tn", 30000, 32, 128},
    [K_SOFTMAX] = {"cunn_SoftMaxForward",
                   "void (anonymous namespace)::cunn_SoftMaxForward<8, c10::Half, float, float, (anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, c10::Half const*, int)",
                   8000, 256, 1024},
    [K_NLL] = {"nll_loss_forward_reduce_cuda_kernel_2d",
               "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
               6000, 1, 32},
    [K_OPT] = {"multi_tensor_apply_kernel",
               "void multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::FusedSgdMathFunctor<float, 3>, double, double, double, bool, bool, bool, float*, float*>(int64_t, int volatile*, at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::FusedSgdMathFunctor<float, 3>, double, double, double, bool, bool, bool, float*, float*)",
               120000, 320, 512},
    [K_UNSCALE] = {"_amp_foreach_non_finite_check_and_unscale_cuda_kernel",
                   "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 1, 1, 0>, at::native::_amp_foreach_non_finite_check_and_unscale_cuda_(c10::ArrayRef<at::Tensor>, at::Tensor&, at::Tensor const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 1, 1, 0>, at::native::_amp_foreach_non_finite_check_and_unscale_cuda_(c10::ArrayRef<at::Tensor>, at::Tensor&, at::Tensor const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1})",
                   20000, 320, 512},
    [K_CAST] = {"unrolled_elementwise_kernel",
                "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, OffsetCalculator<1, unsigned int, false>, OffsetCalculator<1, unsigned int, false>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, OffsetCalculator<1, unsigned int, false>, OffsetCalculator<1, unsigned int, false>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)",
                10000, 512, 128},
    [K_INIT] = {"distribution_elementwise_grid_stride_kernel",
                "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, at::native::templates::cuda::uniform_and_transform<float, float, 4ul, at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#3}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#3}::operator()() const::{lambda(float)#1})::{lambda(int)#1}>(long, at::PhiloxCudaState, at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, at::native::templates::cuda::uniform_and_transform<float, float, 4ul, at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#3}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#3}::operator()() const::{lambda(float)#1})::{lambda(int)#1})",
                12000, 432, 256},
};

static const kdef fp32_overrides[K_COUNT] = {
    [K_CONV_F] = {"implicit_convolve_sgemm",
                  "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
                  260000, 784, 128},
    [K_CONV_D] = {"dgrad_engine",
                  "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, float, int, int, int)",
                  280000, 784, 512},
    [K_CONV_W] = {"wgrad_alg0_engine",
                  "void cudnn::detail::wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int, int, int, float const*, int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
                  300000, 256, 512},
    [K_LIN_F] = {"ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn", 60000, 16, 128},
    [K_LIN_B] = {"ampere_sgemm_64x64_tn", "ampere_sgemm_64x64_tn", 70000, 32, 128},
};

/* ---- The replay: CUPTI buffers and NVTX records into the collector ------- */

enum { STREAM = 7, NULL_STREAM = 1 };
/* CUPTI's enum values (record.h keeps them as they are) */
enum { MEMCPY_HTOD = 1, MEM_PINNED = 2, MEM_DEVICE = 3, SYNC_STREAM = 3, EXT_CUSTOM0 = 3 };
/* Runtime-API callback ids (cupti_runtime_cbid.h) and their names */
enum { API_LAUNCH, API_MEMCPY_ASYNC, API_MEMSET_ASYNC, API_STREAM_SYNC };
static const struct {
  uint32_t cbid;
  const char *name;
} api_calls[] = {
    [API_LAUNCH] = {211, "cudaLaunchKernel_v7000"},
    [API_MEMCPY_ASYNC] = {41, "cudaMemcpyAsync_v3020"},
    [API_MEMSET_ASYNC] = {51, "cudaMemsetAsync_v3020"},
    [API_STREAM_SYNC] = {131, "cudaStreamSynchronize_v3020"},
};

typedef struct replay {
  dlc_writer *w;
  int64_t records;           /* activity records replayed */
  int64_t now;               /* the host clock, for overhead records */
  int failed;
#ifdef DLSAMPLE_CUPTI
  dlc_decoder *dec;
  uint8_t *buf;              /* DLC_BUFFER_BYTES, DLC_BUFFER_ALIGN-aligned */
  size_t used;
  dlc_decode_stats st;
#endif
} replay;

#ifdef DLSAMPLE_CUPTI
_Static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 == 211 &&
                   CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 == 41 &&
                   CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020 == 51 &&
                   CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020 == 131 &&
                   (int)CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == (int)MEMCPY_HTOD &&
                   (int)CUPTI_ACTIVITY_MEMORY_KIND_PINNED == (int)MEM_PINNED &&
                   (int)CUPTI_ACTIVITY_MEMORY_KIND_DEVICE == (int)MEM_DEVICE &&
                   (int)CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE ==
                       (int)SYNC_STREAM &&
                   (int)CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 == (int)EXT_CUSTOM0,
               "CUPTI's enums");

/* The decoder's sink: every record to the writer, as the writer thread
 * does with a submitted batch. */
static int to_writer(void *ctx, dlc_batch *b) {
  replay *r = ctx;
  for (size_t i = 0; i < b->n && !r->failed; i++)
    if (dlc_writer_put(r->w, &b->recs[i])) r->failed = 1;
  dlc_batch_free(b);
  return r->failed;
}

/* A completed buffer: decoded through the collector's path, committed. */
static int complete_buffer(replay *r) {
  if (!r->used) return r->failed ? -1 : 0;
  if (dlc_buffers_decode(r->dec, r->buf, r->used, INT64_MIN, INT64_MAX, to_writer, r, &r->st) ||
      r->failed || r->st.unknown_kinds || dlc_writer_flush(r->w, 0))
    return -1;
  r->used = 0;
  /* CUPTI reports the cost of the buffer flush in the next buffer */
  CUpti_ActivityOverhead3 o = {.kind = CUPTI_ACTIVITY_KIND_OVERHEAD,
                               .overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH,
                               .objectKind = CUPTI_ACTIVITY_OBJECT_THREAD,
                               .start = (uint64_t)r->now, .end = (uint64_t)r->now + 25000};
  memcpy(r->buf, &o, sizeof o);
  r->used = (sizeof o + 7) & ~(size_t)7;
  return 0;
}

/* Appends one activity record at the next 8-byte boundary (libcupti's
 * stride for the 13.0 structs), completing the buffer when full. */
static int emit(replay *r, const void *rec, size_t size) {
  size_t need = (size + 7) & ~(size_t)7;
  if (r->used + need > DLC_BUFFER_BYTES && complete_buffer(r)) return -1;
  memcpy(r->buf + r->used, rec, size);
  r->used += need;
  return 0;
}
#define EMIT(r, rec) emit((r), &(rec), sizeof(rec))

/* What the GPU would report: the record as CUPTI 13.0 writes it. */
static int activity(replay *rp, const dlc_record *r) {
  rp->records++;
  switch (r->kind) {
  case DLC_KERNEL: {
    const dlc_kernel *k = &r->u.kernel;
    CUpti_ActivityKernel10 a = {
        .kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        .registersPerThread = (uint16_t)k->registers_per_thread,
        .start = (uint64_t)k->start_ns, .end = (uint64_t)k->end_ns,
        .completed = (uint64_t)k->end_ns, .deviceId = (uint32_t)k->device_id,
        .contextId = (uint32_t)k->context_id, .streamId = (uint32_t)k->stream_id,
        .gridX = k->grid[0], .gridY = k->grid[1], .gridZ = k->grid[2],
        .blockX = k->block[0], .blockY = k->block[1], .blockZ = k->block[2],
        .staticSharedMemory = k->static_smem_bytes, .dynamicSharedMemory = k->dynamic_smem_bytes,
        .correlationId = (uint32_t)k->correlation_id, .name = k->name};
    return EMIT(rp, a);
  }
  case DLC_MEMCPY: {
    const dlc_memcpy *m = &r->u.memcpy;
    CUpti_ActivityMemcpy6 a = {
        .kind = CUPTI_ACTIVITY_KIND_MEMCPY, .copyKind = (uint8_t)m->copy_kind,
        .srcKind = (uint8_t)m->src_kind, .dstKind = (uint8_t)m->dst_kind,
        .bytes = (uint64_t)m->bytes, .start = (uint64_t)m->start_ns, .end = (uint64_t)m->end_ns,
        .deviceId = (uint32_t)m->device_id, .contextId = (uint32_t)m->context_id,
        .streamId = (uint32_t)m->stream_id, .correlationId = (uint32_t)m->correlation_id};
    return EMIT(rp, a);
  }
  case DLC_MEMSET: {
    const dlc_memset *m = &r->u.memset;
    CUpti_ActivityMemset4 a = {
        .kind = CUPTI_ACTIVITY_KIND_MEMSET, .value = (uint32_t)m->value,
        .bytes = (uint64_t)m->bytes, .start = (uint64_t)m->start_ns, .end = (uint64_t)m->end_ns,
        .deviceId = (uint32_t)m->device_id, .contextId = (uint32_t)m->context_id,
        .streamId = (uint32_t)m->stream_id, .correlationId = (uint32_t)m->correlation_id,
        .memoryKind = (uint16_t)m->mem_kind};
    return EMIT(rp, a);
  }
  case DLC_API: {
    const dlc_api *x = &r->u.api;
    CUpti_ActivityAPI a = {.kind = CUPTI_ACTIVITY_KIND_RUNTIME, .cbid = x->cbid,
                           .start = (uint64_t)x->start_ns, .end = (uint64_t)x->end_ns,
                           .processId = (uint32_t)x->pid, .threadId = (uint32_t)x->tid,
                           .correlationId = (uint32_t)x->correlation_id,
                           .returnValue = (uint32_t)x->return_value};
    return EMIT(rp, a);
  }
  case DLC_DEVICE: {
    const dlc_device *d = &r->u.device;
    CUpti_ActivityDevice5 a = {.kind = CUPTI_ACTIVITY_KIND_DEVICE,
                               .globalMemorySize = (uint64_t)d->memory_bytes,
                               .numMultiprocessors = (uint32_t)d->sm_count,
                               .computeCapabilityMajor = (uint32_t)d->cc_major,
                               .computeCapabilityMinor = (uint32_t)d->cc_minor,
                               .id = (uint32_t)d->id};
    /* CUPTI malloc()s the name for the client; the decoder frees it */
    if (!(a.name = strdup(d->name))) return -1;
    if (EMIT(rp, a)) {
      free((void *)a.name);
      return -1;
    }
    return 0;
  }
  case DLC_CONTEXT: {
    const dlc_context *c = &r->u.context;
    CUpti_ActivityContext3 a = {.kind = CUPTI_ACTIVITY_KIND_CONTEXT,
                                .contextId = (uint32_t)c->context_id,
                                .deviceId = (uint32_t)c->device_id,
                                .nullStreamId = (uint32_t)c->null_stream_id};
    return EMIT(rp, a);
  }
  case DLC_SYNC: {
    const dlc_sync *y = &r->u.sync;
    CUpti_ActivitySynchronization2 a = {
        .kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
        .type = (CUpti_ActivitySynchronizationType)y->type, .start = (uint64_t)y->start_ns,
        .end = (uint64_t)y->end_ns, .correlationId = (uint32_t)y->correlation_id,
        .contextId = (uint32_t)y->context_id, .streamId = (uint32_t)y->stream_id,
        .cudaEventId = (uint32_t)y->event_id};
    return EMIT(rp, a);
  }
  case DLC_EXTCORR: {
    const dlc_extcorr *e = &r->u.extcorr;
    CUpti_ActivityExternalCorrelation a = {
        .kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
        .externalKind = (CUpti_ExternalCorrelationKind)e->external_kind,
        .externalId = (uint64_t)e->external_id, .correlationId = (uint32_t)e->correlation_id};
    return EMIT(rp, a);
  }
  default: return -1;
  }
}
#else
/* Without CUPTI (no CUDA toolkit here) the activity goes to the writer as
 * the decoder would have handed it over. */
static int activity(replay *rp, const dlc_record *r) {
  rp->records++;
  if (dlc_writer_put(rp->w, r)) rp->failed = 1;
  return rp->failed ? -1 : 0;
}
#endif

/* ---- Simulation state ----------------------------------------------------- */

typedef struct sim {
  replay *rp;
  const opts *o;
  int64_t pid, tid, corr;
  int32_t device, context;
  int64_t cpu;      /* host clock, ns */
  int64_t gpu_free; /* when the stream is idle, ns */
  double gpu_scale; /* slow-down of GPU work (autotuning) */
  int64_t kernels;  /* launched so far */
  uint64_t next_range, cur_range; /* NVTX range ids; the open one (0: none) */
  int hostile_kernel_done;
} sim;

/* Stays one string for the kernel-name shortening (no parentheses or
 * template brackets at the top level), as the hostile op name does. */
static const char hostile_kernel[] =
    "<img src=x onerror=alert(1)>_kernel<script>alert`1`</script>\"'javascript:alert`1`";
static const char hostile_op[] =
    "/module/ResNet::forward/<script>alert(1)</script>/\"quoted\" 'op' <img src=x "
    "onerror=alert(1)>/javascript:alert(1)";

static const kdef *kernel_def(const sim *s, int which) {
  if (!s->o->amp && fp32_overrides[which].short_name) return &fp32_overrides[which];
  return &amp_kernels[which];
}

static int put(sim *s, const dlc_record *r) {
  if (dlc_writer_put(s->rp->w, r)) s->rp->failed = 1;
  return s->rp->failed ? -1 : 0;
}

/* An NVTX push at the host clock: the collector's begin record; its id is
 * the external correlation id of the API calls made until the pop. */
static int range_push(sim *s, const char *name) {
  uint64_t id = s->next_range++;
  dlc_record r = {.kind = DLC_NVTX_BEGIN,
                  .u.begin = {.range_kind = DLC_RANGE_PUSHPOP, .id = id, .name = name,
                              .t_ns = s->cpu, .tid = s->tid}};
  s->cur_range = id;
  return put(s, &r);
}

static int range_pop(sim *s) {
  dlc_record r = {.kind = DLC_NVTX_END,
                  .u.end = {.id = s->cur_range, .t_ns = s->cpu, .tid = s->tid}};
  s->cur_range = 0;
  int rc = put(s, &r);
  s->cpu += jitter(300, 0.5); /* Python between two ops: ranges never touch */
  return rc;
}

/* A runtime-API record (with its external correlation record when a range
 * is open); returns its correlation id. */
static int api_call(sim *s, int which, int64_t start, int64_t end, int64_t *corr) {
  *corr = ++s->corr;
  s->rp->now = end;
  if (s->cur_range) {
    dlc_record e = {.kind = DLC_EXTCORR,
                    .u.extcorr = {.external_kind = EXT_CUSTOM0,
                                  .external_id = (int64_t)s->cur_range,
                                  .correlation_id = *corr}};
    if (activity(s->rp, &e)) return -1;
  }
  dlc_record a = {.kind = DLC_API,
                  .u.api = {.cbid = api_calls[which].cbid, .name = api_calls[which].name,
                            .start_ns = start, .end_ns = end, .pid = s->pid, .tid = s->tid,
                            .correlation_id = *corr}};
  return activity(s->rp, &a);
}

/* One runtime-API launch on the host and its kernel on the GPU stream. */
static int launch(sim *s, int which) {
  const kdef *k = kernel_def(s, which);
  int64_t api_dur = jitter(4500, 0.3), corr;
  if (api_call(s, API_LAUNCH, s->cpu, s->cpu + api_dur, &corr)) return -1;
  int64_t start = s->cpu + 3000 > s->gpu_free ? s->cpu + 3000 : s->gpu_free;
  int64_t dur = jitter((int64_t)((double)k->dur_ns * s->gpu_scale), 0.15);
  const char *name = k->long_name;
  if (s->o->hostile && !s->hostile_kernel_done && which == K_RELU_F) {
    name = hostile_kernel;
    s->hostile_kernel_done = 1;
  }
  dlc_record kr = {.kind = DLC_KERNEL,
                   .u.kernel = {.name = name, .device_id = s->device, .context_id = s->context,
                                .stream_id = STREAM, .start_ns = start, .end_ns = start + dur,
                                .correlation_id = corr, .grid = {k->grid, 1, 1},
                                .block = {k->block, 1, 1}, .registers_per_thread = 64,
                                .static_smem_bytes = 0, .dynamic_smem_bytes = 16384}};
  if (activity(s->rp, &kr)) return -1;
  s->gpu_free = start + dur;
  s->cpu += api_dur + jitter(1500, 0.3);
  s->kernels++;
  return 0;
}

/* An NVTX op range around some CPU work and kernel launches. */
static int op(sim *s, const char *path, int64_t seq, const char *dtype, const int *kernels,
              int nk) {
  char name[1024];
  if (seq >= 0 && dtype)
    snprintf(name, sizeof name, "%s, seq = %lld, dtype = %s", path, (long long)seq, dtype);
  else
    snprintf(name, sizeof name, "%s", path);
  if (range_push(s, name)) return -1;
  s->cpu += jitter(35000, 0.3); /* Python and dispatcher overhead */
  for (int i = 0; i < nk; i++)
    if (launch(s, kernels[i])) return -1;
  s->cpu += jitter(3000, 0.3);
  return range_pop(s);
}

static int memcpy_input(sim *s, int64_t bytes) {
  if (range_push(s, "/module/Tensor::to/to")) return -1;
  s->cpu += jitter(8000, 0.2);
  int64_t api_start = s->cpu, api_dur = jitter(9000, 0.2), corr;
  if (api_call(s, API_MEMCPY_ASYNC, api_start, api_start + api_dur, &corr)) return -1;
  int64_t gs = api_start + 4000 > s->gpu_free ? api_start + 4000 : s->gpu_free;
  int64_t gd = bytes / 20; /* ~20 GB/s pinned HtoD */
  dlc_record m = {.kind = DLC_MEMCPY,
                  .u.memcpy = {.copy_kind = MEMCPY_HTOD, .src_kind = MEM_PINNED,
                               .dst_kind = MEM_DEVICE, .bytes = bytes, .device_id = s->device,
                               .context_id = s->context, .stream_id = STREAM,
                               .src_device_id = -1, .dst_device_id = -1, .start_ns = gs,
                               .end_ns = gs + gd, .correlation_id = corr}};
  if (activity(s->rp, &m)) return -1;
  s->gpu_free = gs + gd;
  s->cpu = api_start + api_dur + jitter(3000, 0.2);
  return range_pop(s);
}

static int zero_grad(sim *s) {
  if (range_push(s, "/module/SGD::zero_grad/zero_")) return -1;
  s->cpu += jitter(6000, 0.2);
  int64_t corr;
  if (api_call(s, API_MEMSET_ASYNC, s->cpu, s->cpu + 5000, &corr)) return -1;
  int64_t gs = s->cpu + 3000 > s->gpu_free ? s->cpu + 3000 : s->gpu_free;
  dlc_record m = {.kind = DLC_MEMSET,
                  .u.memset = {.value = 0, .bytes = 102228128, .mem_kind = MEM_DEVICE,
                               .device_id = s->device, .context_id = s->context,
                               .stream_id = STREAM, .start_ns = gs, .end_ns = gs + 60000,
                               .correlation_id = corr}};
  if (activity(s->rp, &m)) return -1;
  s->gpu_free = gs + 60000;
  s->cpu += 8000;
  return range_pop(s);
}

/* loss.item(): the host waits for the stream. */
static int sync_item(sim *s) {
  if (range_push(s, "/module/Tensor::item/item")) return -1;
  s->cpu += 4000;
  int64_t wait_end = (s->gpu_free > s->cpu ? s->gpu_free : s->cpu) + 2000, corr;
  if (api_call(s, API_STREAM_SYNC, s->cpu, wait_end, &corr)) return -1;
  dlc_record y = {.kind = DLC_SYNC,
                  .u.sync = {.type = SYNC_STREAM, .context_id = s->context, .stream_id = STREAM,
                             .start_ns = s->cpu, .end_ns = wait_end, .correlation_id = corr}};
  if (activity(s->rp, &y)) return -1;
  s->cpu = wait_end + 3000;
  return range_pop(s);
}

/* The GPU idles while the host waits for the next batch. */
static int dataloader(sim *s, int64_t dur) {
  if (range_push(s, "/module/DataLoader::__next__/_MultiProcessingDataLoaderIter::_next_data"))
    return -1;
  s->cpu += jitter(dur, 0.1);
  return range_pop(s);
}

/* Model construction: parameter initialisation before training. */
static int setup(sim *s, int blocks) {
  static const int init[] = {K_INIT};
  char path[512];
  for (int b = 0; b < blocks; b++) {
    snprintf(path, sizeof path,
             "/module/ResNet::__init__/Bottleneck::__init__[%d]/Conv2d::reset_parameters/"
             "kaiming_uniform_/uniform_",
             b + 1);
    if (op(s, path, -1, NULL, init, 1)) return -1;
    s->cpu += jitter(150000, 0.2);
  }
  return 0;
}

/* One training iteration: forward, loss, backward, optimizer step. */
static int iteration(sim *s, int blocks, int64_t *seq, int it) {
  const char *dt = s->o->amp ? "float16" : "float32";
  char path[768];
  if (dataloader(s, 6000000)) return -1;
  if (memcpy_input(s, 64LL * 3 * 224 * 224 * 2)) return -1;
  if (s->o->amp) {
    static const int cast[] = {K_CAST};
    if (op(s, "/module/autocast::__enter__/to", (*seq)++, "float16", cast, 1)) return -1;
  }
  int64_t first_seq = *seq;
  for (int b = 0; b < blocks; b++) {
    int layer = 1 + b * 4 / (blocks > 0 ? blocks : 1);
#define SCOPE_FMT "/module/ResNet::forward/Sequential::forward[%d]/Bottleneck::forward[%d]/%s"
    static const int conv[] = {K_CONV_F}, bn[] = {K_BN_F}, relu[] = {K_RELU_F};
    const char *leaf = "Conv2d::forward/Conv2d::_conv_forward/conv2d";
    if (s->o->hostile && it == 1 && b == 0)
      snprintf(path, sizeof path, "%s", hostile_op);
    else
      snprintf(path, sizeof path, SCOPE_FMT, layer, b + 1, leaf);
    if (op(s, path, (*seq)++, dt, conv, 1)) return -1;
    snprintf(path, sizeof path, SCOPE_FMT, layer, b + 1, "BatchNorm2d::forward/batch_norm");
    if (op(s, path, (*seq)++, dt, bn, 1)) return -1;
    snprintf(path, sizeof path, SCOPE_FMT, layer, b + 1, "ReLU::forward/relu_");
    if (op(s, path, (*seq)++, dt, relu, 1)) return -1;
  }
  static const int lin[] = {K_LIN_F}, loss[] = {K_SOFTMAX, K_NLL};
  if (op(s, "/module/ResNet::forward/Linear::forward/linear", (*seq)++, dt, lin, 1)) return -1;
  if (op(s, "/module/CrossEntropyLoss::forward/cross_entropy", (*seq)++, "float32", loss, 2))
    return -1;
  /* backward, in reverse order, on the same thread (autograd engine) */
  static const int lin_b[] = {K_LIN_B, K_LIN_B};
  if (op(s, "/module/ResNet::backward/AddmmBackward0", first_seq + 3 * blocks, dt, lin_b, 2))
    return -1;
  for (int b = blocks - 1; b >= 0; b--) {
    static const int relu_b[] = {K_RELU_B}, bn_b[] = {K_BN_B}, conv_b[] = {K_CONV_D, K_CONV_W};
    snprintf(path, sizeof path, "/module/ResNet::backward/Bottleneck[%d]/ReluBackward0", b + 1);
    if (op(s, path, first_seq + 3 * b + 2, dt, relu_b, 1)) return -1;
    snprintf(path, sizeof path, "/module/ResNet::backward/Bottleneck[%d]/CudnnBatchNormBackward0",
             b + 1);
    if (op(s, path, first_seq + 3 * b + 1, dt, bn_b, 1)) return -1;
    snprintf(path, sizeof path, "/module/ResNet::backward/Bottleneck[%d]/ConvolutionBackward0",
             b + 1);
    if (op(s, path, first_seq + 3 * b, dt, conv_b, 2)) return -1;
  }
  if (s->o->amp) {
    static const int unscale[] = {K_UNSCALE};
    if (op(s, "/module/GradScaler::unscale_/_amp_foreach_non_finite_check_and_unscale_", -1,
           NULL, unscale, 1))
      return -1;
  }
  static const int opt[] = {K_OPT};
  if (op(s, "/module/SGD::step/step", -1, NULL, opt, 1)) return -1;
  if (zero_grad(s)) return -1;
  return sync_item(s);
}

/* One rank (a process on GPU g): its own writer session on the store, as
 * the collector of that process would have. */
static int simulate_gpu(const char *store, const opts *o, int g, int64_t *kernels,
                        int64_t *records, char *err, size_t errlen) {
  replay rp = {0};
  dlc_writer_stats st = {0};
  sim s = {.rp = &rp, .o = o, .pid = 4242 + g, .tid = 4242 + g, .device = g,
           .context = g + 1, .gpu_scale = 1.0};
  int rc = DL_OK;
  char werr[512] = "";
  uint64_t first = 1;
  dlc_writer_opts wo = {.pid = s.pid};
#ifdef DLSAMPLE_CUPTI
  dlc_strtab *names = dlc_strtab_new();
  if (!names || !(rp.dec = dlc_decoder_new(names)) ||
      posix_memalign((void **)&rp.buf, DLC_BUFFER_ALIGN, DLC_BUFFER_BYTES)) {
    rp.buf = NULL;
    rc = dl_err(err, errlen, DL_ENOMEM, "dlsample: out of memory");
    goto out;
  }
#endif
  if ((rc = dlc_writer_open(store, &wo, &rp.w, &first, err, errlen))) goto out;
  s.next_range = first;
  /* kernels per block: 3 forward + 4 backward; fixed: ~9 */
  int blocks = (int)((o->kernels_per_iter - 9) / 7);
  if (blocks < 1) blocks = 1;
  int64_t seq = 0;
  char tname[32];
  snprintf(tname, sizeof tname, "python3 (rank %d)", g);
  dlc_record tn = {.kind = DLC_THREAD_NAME, .u.thread = {.tid = s.tid, .name = tname}};
  if (put(&s, &tn)) goto failed;
  s.cpu = 1000000 + g * 20000;
  s.gpu_free = s.cpu;
  rp.now = s.cpu;
  /* what CUPTI reports first: the device and the context */
  dlc_record dev = {.kind = DLC_DEVICE,
                    .u.device = {.id = g, .name = "NVIDIA A100-SXM4-80GB", .cc_major = 8,
                                 .cc_minor = 0, .sm_count = 108,
                                 .memory_bytes = 85899345920LL}};
  dlc_record ctx = {.kind = DLC_CONTEXT,
                    .u.context = {.context_id = s.context, .device_id = g,
                                  .null_stream_id = NULL_STREAM}};
  if (activity(&rp, &dev) || activity(&rp, &ctx)) goto failed;
  if (setup(&s, blocks < 16 ? blocks : 16)) goto failed;
  for (long it = 0; it < o->iterations; it++) {
    s.gpu_scale = it == 0 ? 3.0 : it == 1 ? 2.0 : 1.0; /* cuDNN autotuning, warm-up */
    if (iteration(&s, blocks, &seq, (int)it)) goto failed;
  }
  /* a short tail after the last step: evaluation hook, no training */
  static const int cast[] = {K_CAST};
  s.cpu += 200000;
  if (op(&s, "/module/Tensor::cpu/to", -1, NULL, cast, 1) || sync_item(&s)) goto failed;
  rp.now = s.cpu;
#ifdef DLSAMPLE_CUPTI
  if (complete_buffer(&rp)) goto failed;
  rp.used = 0; /* the overhead record of a next buffer that never comes */
#endif
  goto out;
failed:
  rc = DL_EIO;
out:
  if (rp.w && dlc_writer_close(&rp.w, 0, &st, werr, sizeof werr) && rc == DL_OK) rc = DL_EIO;
#ifdef DLSAMPLE_CUPTI
  int64_t lost = rp.st.failed + rp.st.unknown_kinds;
  const char *why = rp.st.unknown_kinds ? "libcupti does not know a record kind"
                                        : "the collector's writer failed";
#else
  int64_t lost = 0;
  const char *why = "the collector's writer failed";
#endif
  if (rc == DL_EIO)
    dl_err(err, errlen, rc, "replay on GPU %d failed: %s", g, werr[0] ? werr : why);
  else if (rc == DL_OK && (lost || st.unmatched_ends || st.dropped_records))
    rc = dl_err(err, errlen, DL_EIO, "replay on GPU %d: records lost in the collector", g);
  *kernels += s.kernels;
  *records += rp.records + (int64_t)st.ranges * 2;
#ifdef DLSAMPLE_CUPTI
  dlc_decoder_free(&rp.dec);
  dlc_strtab_free(&names);
  free(rp.buf);
#endif
  return rc;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f) {
  fprintf(f,
          "usage: dlsample [--iterations N] [--precision amp|fp32] [--gpus N]\n"
          "                [--kernels-per-iter N] [--seed S] [--hostile-names] [--force]\n"
          "                OUT.sqlite\n"
          "Writes a synthetic ResNet-50-like PyTorch training profile as a dldb, replayed\n"
          "as CUPTI and NVTX records through the live collector and analysed.\n"
          "Defaults: 40 iterations, amp, 1 GPU, 300 kernels per iteration, seed 1.\n");
}

static int parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int parse_args(int argc, char **argv, opts *o) {
  *o = (opts){.iterations = 40, .gpus = 1, .kernels_per_iter = 300, .seed = 1, .amp = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long n;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--force") == 0) {
      o->force = 1;
    } else if (strcmp(a, "--hostile-names") == 0) {
      o->hostile = 1;
    } else if (strcmp(a, "--iterations") == 0 && v && !parse_long(v, 1, 1000000, &n)) {
      o->iterations = n;
      i++;
    } else if (strcmp(a, "--gpus") == 0 && v && !parse_long(v, 1, 16, &n)) {
      o->gpus = n;
      i++;
    } else if (strcmp(a, "--kernels-per-iter") == 0 && v && !parse_long(v, 16, 100000, &n)) {
      o->kernels_per_iter = n;
      i++;
    } else if (strcmp(a, "--seed") == 0 && v && !parse_long(v, 0, 2147483647L, &n)) {
      o->seed = (uint64_t)n;
      i++;
    } else if (strcmp(a, "--precision") == 0 && v &&
               (strcmp(v, "amp") == 0 || strcmp(v, "fp32") == 0)) {
      o->amp = strcmp(v, "amp") == 0;
      i++;
    } else if (a[0] != '-' && !o->out) {
      o->out = a;
    } else {
      fprintf(stderr, "dlsample: bad argument: %s\n", a);
      return -1;
    }
  }
  if (!o->out) {
    fprintf(stderr, "dlsample: missing OUT.sqlite\n");
    return -1;
  }
  return 0;
}

static void remove_store(const char *store) {
  char p[4200];
  unlink(store);
  snprintf(p, sizeof p, "%s-wal", store);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", store);
  unlink(p);
}

int main(int argc, char **argv) {
  opts o;
  if (parse_args(argc, argv, &o)) {
    usage(stderr);
    return 2;
  }
  rng_state = 0x9E3779B97F4A7C15ull ^ (o.seed * 0xD1B54A32D192ED03ull);
  if (!rng_state) rng_state = 1;
  char err[1024] = "", cmd[512], store[4200] = "";
  snprintf(cmd, sizeof cmd, "dlsample --iterations %ld --precision %s --gpus %ld "
           "--kernels-per-iter %ld --seed %llu", o.iterations, o.amp ? "amp" : "fp32", o.gpus,
           o.kernels_per_iter, (unsigned long long)o.seed);
  int64_t kernels = 0, records = 0;
  char raw[4220] = "";
  dlp_pipeline *p = NULL;
  struct timespec t0, t1, tr = {0, 0};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = DL_OK;
  if (!o.force && access(o.out, F_OK) == 0) {
    rc = dl_err(err, sizeof err, DL_EEXIST, "%s exists (use --force)", o.out);
    goto out;
  }
  /* the live store, as `dlprof APP` creates it (cli/profile.c) */
  snprintf(store, sizeof store, "%s.live-%ld", o.out, (long)getpid());
  remove_store(store);
  dldb_write_opts wo = {.producer = "dlsample " DL_VERSION " (collector replay)",
                        .source = cmd, .time_origin_ns = 0};
  dldb_sysconfig sc = {.num_gpus = (int)o.gpus, .cpu_model = "AMD EPYC 7742 64-Core Processor",
                       .driver_version = "535.104.05", .framework = "PyTorch 2.1.0+cu121",
                       .cuda_version = "12.1", .cudnn_version = "8.9.2",
                       .nsys_version = "", .dlprof_version = "dlsample " DL_VERSION,
                       .dlprof_build = "collector replay", .profile_name = "resnet50-sample",
                       .mode_string = "pytorch", .original_command = cmd};
  if ((rc = dldb_live_create(store, &wo, &sc, err, sizeof err))) goto out;
  for (long g = 0; g < o.gpus && rc == DL_OK; g++)
    rc = simulate_gpu(store, &o, (int)g, &kernels, &records, err, sizeof err);
  if (rc) goto out;
  clock_gettime(CLOCK_MONOTONIC, &tr);
  /* the same analysis as `dlprof APP` (pipeline/dlp.h, a recorded dldb):
   * the finished store beside OUT is aggregated, then moved onto OUT */
  snprintf(raw, sizeof raw, "%s.raw-%ld", o.out, (long)getpid());
  if ((rc = dldb_live_finish(store, raw, 1, err, sizeof err))) goto out;
  dlp_opts po;
  dlp_opts_init(&po);
  po.input = raw;
  po.recorded = 1;
  po.key_op = "/module/SGD::step/step";
  po.reports = 0;
  if ((rc = dlp_new(&p, err, sizeof err)) || (rc = dlp_run(p, &po, err, sizeof err))) goto out;
  if (rename(raw, o.out) != 0)
    rc = dl_err(err, sizeof err, DL_EIO, "%s: cannot rename into place: %s", o.out,
                strerror(errno));
out:
  dlp_free(&p);
  if (rc && raw[0]) unlink(raw);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc) {
    if (store[0]) remove_store(store);
    fprintf(stderr, "dlsample: %s\n", err[0] ? err : dl_strerror(rc));
    return 1;
  }
  double total = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  double replayed = (double)(tr.tv_sec - t0.tv_sec) + (double)(tr.tv_nsec - t0.tv_nsec) / 1e9;
  printf("dlsample: wrote %s: %ld iterations, %lld kernels, %ld GPU(s), %s, in %.2f s "
         "(%lld records replayed through the collector in %.2f s, then the analysis)\n",
         o.out, o.iterations, (long long)kernels, o.gpus, o.amp ? "amp" : "fp32", total,
         (long long)records, replayed);
  return 0;
}
