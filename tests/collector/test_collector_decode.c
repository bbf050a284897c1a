/*
 * test_collector_decode - CUPTI decoding without a GPU: hand-built CUDA
 * 13.0 records (zeroed, designated initialisers) at 8-byte boundaries in a
 * posix_memalign'ed buffer, walked by libcupti's real
 * cuptiActivityGetNextRecord through dlc_buffers_decode. Every collected
 * kind, zero timestamps, a validSize cut mid-record, an unknown kind, the
 * time window, and libcupti's strides against our 13.0 structs.
 */
#include <cupti.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "test.h"
#include "translate.h"

typedef struct sinkbuf {
  dlc_record recs[64];
  size_t n;
} sinkbuf;

static int sink(void *ctx, dlc_batch *b) {
  sinkbuf *s = ctx;
  for (size_t i = 0; i < b->n && s->n < 64; i++) s->recs[s->n++] = b->recs[i];
  dlc_batch_free(b);
  return 0;
}

static uint8_t *buf;
static size_t used;

static void put(const void *rec, size_t size) {
  memcpy(buf + used, rec, size);
  used += (size + 7) & ~(size_t)7;
}

static const char kname[] = "_Z13vectorAddKernelPKfS0_Pfi";

static void build(void) {
  used = 0;
  memset(buf, 0, 1 << 16);
  CUpti_ActivityKernel10 k = {.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .start = 1000,
                              .end = 2000, .deviceId = 1, .contextId = 2, .streamId = 7,
                              .gridX = 64, .gridY = 2, .gridZ = 1, .blockX = 256, .blockY = 1,
                              .blockZ = 1, .registersPerThread = 32, .staticSharedMemory = 48,
                              .dynamicSharedMemory = 1024, .correlationId = 11, .name = kname};
  put(&k, sizeof k);
  CUpti_ActivityMemcpy6 m = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY, .copyKind = 1, .srcKind = 1,
                             .dstKind = 3, .bytes = 4096, .start = 3000, .end = 3500,
                             .deviceId = 1, .streamId = 7, .correlationId = 12};
  put(&m, sizeof m);
  CUpti_ActivityMemcpyPtoP4 p = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY2, .copyKind = 10,
                                 .bytes = 8192, .start = 3600, .end = 3900, .deviceId = 0,
                                 .srcDeviceId = 0, .dstDeviceId = 1, .correlationId = 13};
  put(&p, sizeof p);
  CUpti_ActivityMemset4 s = {.kind = CUPTI_ACTIVITY_KIND_MEMSET, .value = 0, .bytes = 512,
                             .start = 4000, .end = 4100, .deviceId = 1, .streamId = 7,
                             .correlationId = 14, .memoryKind = 3};
  put(&s, sizeof s);
  CUpti_ActivityAPI a = {.kind = CUPTI_ACTIVITY_KIND_RUNTIME,
                         .cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, .start = 900,
                         .end = 950, .processId = 77, .threadId = 78, .correlationId = 11};
  put(&a, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  a.correlationId = 15;
  put(&a, sizeof a);
  CUpti_ActivityDevice5 d = {.kind = CUPTI_ACTIVITY_KIND_DEVICE, .globalMemorySize = 1ull << 34,
                             .numMultiprocessors = 132, .computeCapabilityMajor = 9,
                             .computeCapabilityMinor = 0, .id = 1};
  d.name = strdup("NVIDIA H100"); /* CUPTI malloc()s it; the decoder frees it */
  put(&d, sizeof d);
  CUpti_ActivityContext3 c = {.kind = CUPTI_ACTIVITY_KIND_CONTEXT, .contextId = 2,
                              .deviceId = 1, .nullStreamId = 5};
  put(&c, sizeof c);
  CUpti_ActivitySynchronization2 y = {.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                      .type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE,
                                      .start = 5000, .end = 6000, .correlationId = 16,
                                      .contextId = 2, .streamId = 7};
  put(&y, sizeof y);
  CUpti_ActivityOverhead3 o = {.kind = CUPTI_ACTIVITY_KIND_OVERHEAD,
                               .overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH,
                               .start = 7000, .end = 7100};
  put(&o, sizeof o);
  CUpti_ActivityExternalCorrelation e = {.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                         .externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                         .externalId = 4242, .correlationId = 11};
  put(&e, sizeof e);
  /* start = end = 0: "not collected", skipped */
  CUpti_ActivityKernel10 z = {.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .name = kname};
  put(&z, sizeof z);
  /* a kind we do not translate (NAME): skipped, the walk goes on */
  CUpti_ActivityName nm = {.kind = CUPTI_ACTIVITY_KIND_NAME, .name = "x"};
  put(&nm, sizeof nm);
}

static int test_every_kind(void) {
  dlc_strtab *names = dlc_strtab_new();
  dlc_decoder *d = dlc_decoder_new(names);
  sinkbuf out = {.n = 0};
  dlc_decode_stats st = {0};
  build();
  ASSERT_OK(dlc_buffers_decode(d, buf, used, INT64_MIN, INT64_MAX, sink, &out, &st));
  ASSERT_EQ(st.records, 11);
  ASSERT_EQ(st.skipped, 2);
  ASSERT_EQ(st.unknown_kinds, 0);
  ASSERT_EQ(out.n, 11);
  const dlc_kernel *k = &out.recs[0].u.kernel;
  ASSERT_EQ(out.recs[0].kind, DLC_KERNEL);
  ASSERT_STR_EQ(k->name, kname);
  ASSERT(k->name != kname); /* interned: CUPTI's pointer is not kept */
  ASSERT_EQ(k->start_ns, 1000);
  ASSERT_EQ(k->end_ns, 2000);
  ASSERT_EQ(k->device_id, 1);
  ASSERT_EQ(k->context_id, 2);
  ASSERT_EQ(k->stream_id, 7);
  ASSERT_EQ(k->grid[0] * k->grid[1], 128);
  ASSERT_EQ(k->block[0], 256);
  ASSERT_EQ(k->registers_per_thread, 32);
  ASSERT_EQ(k->static_smem_bytes, 48);
  ASSERT_EQ(k->dynamic_smem_bytes, 1024);
  ASSERT_EQ(k->correlation_id, 11);
  ASSERT_EQ(out.recs[1].kind, DLC_MEMCPY);
  ASSERT_EQ(out.recs[1].u.memcpy.bytes, 4096);
  ASSERT_EQ(out.recs[1].u.memcpy.copy_kind, 1);
  ASSERT_EQ(out.recs[1].u.memcpy.dst_kind, 3);
  ASSERT_EQ(out.recs[1].u.memcpy.correlation_id, 12);
  ASSERT_EQ(out.recs[2].kind, DLC_MEMCPY);
  ASSERT_EQ(out.recs[2].u.memcpy.dst_device_id, 1);
  ASSERT_EQ(out.recs[2].u.memcpy.copy_kind, 10);
  ASSERT_EQ(out.recs[3].kind, DLC_MEMSET);
  ASSERT_EQ(out.recs[3].u.memset.bytes, 512);
  ASSERT_EQ(out.recs[3].u.memset.mem_kind, 3);
  ASSERT_EQ(out.recs[4].kind, DLC_API);
  ASSERT_EQ(out.recs[4].u.api.driver, 0);
  ASSERT_STR_EQ(out.recs[4].u.api.name, "cudaLaunchKernel_v7000");
  ASSERT_EQ(out.recs[4].u.api.tid, 78);
  ASSERT_EQ(out.recs[4].u.api.pid, 77);
  ASSERT_EQ(out.recs[5].u.api.driver, 1);
  ASSERT_STR_EQ(out.recs[5].u.api.name, "cuLaunchKernel");
  ASSERT_EQ(out.recs[6].kind, DLC_DEVICE);
  ASSERT_STR_EQ(out.recs[6].u.device.name, "NVIDIA H100");
  ASSERT_EQ(out.recs[6].u.device.cc_major, 9);
  ASSERT_EQ(out.recs[6].u.device.sm_count, 132);
  ASSERT_EQ(out.recs[6].u.device.memory_bytes, 1ll << 34);
  ASSERT_EQ(out.recs[7].kind, DLC_CONTEXT);
  ASSERT_EQ(out.recs[7].u.context.null_stream_id, 5);
  ASSERT_EQ(out.recs[8].kind, DLC_SYNC);
  ASSERT_EQ(out.recs[8].u.sync.type, 3);
  ASSERT_EQ(out.recs[9].kind, DLC_OVERHEAD);
  ASSERT_EQ(out.recs[9].u.overhead.end_ns, 7100);
  ASSERT_EQ(out.recs[10].kind, DLC_EXTCORR);
  ASSERT_EQ(out.recs[10].u.extcorr.external_id, 4242);
  ASSERT_EQ(out.recs[10].u.extcorr.correlation_id, 11);
  dlc_decoder_free(&d);
  dlc_strtab_free(&names);
  return 0;
}

/* validSize cut in the middle of the memcpy: the kernel only, no partial record. */
static int test_truncated(void) {
  dlc_strtab *names = dlc_strtab_new();
  dlc_decoder *d = dlc_decoder_new(names);
  sinkbuf out = {.n = 0};
  dlc_decode_stats st = {0};
  build();
  free((void *)((CUpti_ActivityDevice5 *)(buf + 216 + 96 + 96 + 88 + 40 + 40))->name);
  ASSERT_OK(dlc_buffers_decode(d, buf, sizeof(CUpti_ActivityKernel10) + 40, INT64_MIN,
                               INT64_MAX, sink, &out, &st));
  ASSERT_EQ(out.n, 1);
  ASSERT_EQ(out.recs[0].kind, DLC_KERNEL);
  out.n = 0;
  ASSERT_OK(dlc_buffers_decode(d, buf, 7, INT64_MIN, INT64_MAX, sink, &out, &st));
  ASSERT_EQ(out.n, 0);
  dlc_decoder_free(&d);
  dlc_strtab_free(&names);
  return 0;
}

/* An unknown kind ends the walk (its size is unknown): what came before stays. */
static int test_unknown_kind(void) {
  dlc_strtab *names = dlc_strtab_new();
  dlc_decoder *d = dlc_decoder_new(names);
  sinkbuf out = {.n = 0};
  dlc_decode_stats st = {0};
  used = 0;
  memset(buf, 0, 1 << 16);
  CUpti_ActivityAPI a = {.kind = CUPTI_ACTIVITY_KIND_RUNTIME, .cbid = 1, .start = 1, .end = 2};
  put(&a, sizeof a);
  uint32_t bogus[8] = {0x7ffffff0u};
  put(bogus, sizeof bogus);
  put(&a, sizeof a);
  ASSERT_OK(dlc_buffers_decode(d, buf, used, INT64_MIN, INT64_MAX, sink, &out, &st));
  ASSERT_EQ(out.n, 1);
  ASSERT_EQ(st.unknown_kinds, 1);
  dlc_decoder_free(&d);
  dlc_strtab_free(&names);
  return 0;
}

/* Records outside the recording window (-y/-d) are skipped. */
static int test_window(void) {
  dlc_strtab *names = dlc_strtab_new();
  dlc_decoder *d = dlc_decoder_new(names);
  sinkbuf out = {.n = 0};
  dlc_decode_stats st = {0};
  build();
  ASSERT_OK(dlc_buffers_decode(d, buf, used, 2500, 4500, sink, &out, &st));
  /* memcpy 3000, p2p 3600, memset 4000 + device, context, extcorr (no time) */
  ASSERT_EQ(out.n, 6);
  dlc_decoder_free(&d);
  dlc_strtab_free(&names);
  return 0;
}

/* libcupti's stride is at least the 13.0 struct we read, for every kind. */
static int test_strides(void) {
  static const CUpti_ActivityKind kinds[] = {
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
      CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
      CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT,
      CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_OVERHEAD,
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    size_t stride = dlc_buffers_stride(kinds[i]);
    if (stride < dlc_translate_struct_size(kinds[i]))
      fprintf(stderr, "kind %d: stride %zu < %zu\n", kinds[i], stride,
              dlc_translate_struct_size(kinds[i]));
    ASSERT(stride >= dlc_translate_struct_size(kinds[i]));
  }
  ASSERT_EQ(dlc_translate_struct_size(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 216);
  ASSERT_EQ(dlc_translate_struct_size(CUPTI_ACTIVITY_KIND_DEVICE), 184);
  ASSERT_EQ(dlc_translate_struct_size(CUPTI_ACTIVITY_KIND_RUNTIME), 40);
  return 0;
}

int main(void) {
  uint32_t v = 0;
  if (cuptiGetVersion(&v) != CUPTI_SUCCESS) SKIP("libcupti does not answer cuptiGetVersion");
  if (posix_memalign((void **)&buf, 8, 1 << 16)) return 1;
  RUN(test_every_kind);
  RUN(test_truncated);
  RUN(test_unknown_kind);
  RUN(test_window);
  RUN(test_strides);
  free(buf);
  TEST_DONE();
}
