/*
 * inject.c - CUDA_INJECTION64_PATH entry point and CUPTI life cycle
 * (formats.md D, the cupti_trace_injection sample's order):
 *
 *   InitializeInjection (driver, in cuInit, on the app thread; once)
 *     -> core init (store, writer thread, atexit, signals)
 *     -> version and stride checks, thread ids, buffer callbacks,
 *        profiler-API callbacks (cudaProfilerStart/Stop), enable kinds,
 *        flush period, external correlation per NVTX push/pop
 *   final flush (writer thread, before its final round)
 *     -> disable kinds, cuptiActivityFlushAll(FORCED)
 *
 * Without a GPU every cuptiActivityEnable returns CUPTI_ERROR_UNKNOWN: we
 * say once that no GPU activity will be recorded and keep NVTX going.
 */
#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "../core.h"
#include "buffers.h"
#include "translate.h"

#define DLC_EXPORT __attribute__((visibility("default")))

/* The first NMETA kinds describe devices and contexts: their records come
 * when a context is created, not again when a kind is enabled later, so
 * they stay on outside a cudaProfilerStart/Stop range. */
enum { NMETA = 2 };
static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,   CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_RUNTIME,  CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,   CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,   CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_OVERHEAD,
};
enum { NKINDS = sizeof kinds / sizeof *kinds };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int enabled[NKINDS];
static atomic_int gpu_on;
static CUpti_SubscriberHandle subscriber;
static dlc_decoder *decoder;
static atomic_int note_gpu, note_sub, note_drop;

static void ext_push(uint64_t id) {
  cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

static void ext_pop(void) {
  uint64_t last = 0;
  cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

/* Enables (on = 1) or disables the timed kinds that enabled at start-up;
 * with all = 1 the device and context kinds too. */
static void set_kinds(int on, int all) {
  for (int i = all ? 0 : NMETA; i < NKINDS; i++)
    if (enabled[i]) on ? cuptiActivityEnable(kinds[i]) : cuptiActivityDisable(kinds[i]);
}

static void say_counts(const char *when) {
  dlc_buffer_counts c;
  dlc_buffers_counts(&c);
  int64_t from, to;
  dlc_core_window(&from, &to);
  dlc_core_debug("%s: %lld buffers requested, %lld completed; records: %lld kept, %lld skipped "
                 "(window %lld..%lld ns), %lld cut short, %lld failed",
                 when, (long long)c.requested, (long long)c.completed,
                 (long long)c.decoded.records, (long long)c.decoded.skipped, (long long)from,
                 (long long)to, (long long)c.decoded.unknown_kinds, (long long)c.decoded.failed);
}

static void final_flush(void) {
  if (!atomic_exchange(&gpu_on, 0)) return;
  atomic_store(&dlc_extcorr_push, NULL);
  atomic_store(&dlc_extcorr_pop, NULL);
  set_kinds(0, 1);
  say_counts("before the final flush");
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  say_counts("after the final flush");
  long long lost = dlc_buffers_dropped() + dlc_buffers_refused();
  if (lost)
    dlc_core_note(&note_drop, "CUPTI dropped %lld activity records or buffers (buffers full)",
                  lost);
}

/* cudaProfilerStart/Stop (runtime) and cuProfilerStart/Stop (driver). */
static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                 const void *data) {
  (void)ud;
  const CUpti_CallbackData *cd = data;
  if (cd->callbackSite != CUPTI_API_EXIT) return;
  int start = (dom == CUPTI_CB_DOMAIN_RUNTIME_API &&
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
              (dom == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  int stop = (dom == CUPTI_CB_DOMAIN_RUNTIME_API &&
              cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
             (dom == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  if (!start && !stop) return;
  if (dlc_core_range_mode() && atomic_load(&gpu_on)) set_kinds(start, 0);
  dlc_core_profiler_api(start);
  if (stop && atomic_load(&gpu_on)) cuptiActivityFlushAll(0);
}

static void subscribe(void) {
  CUptiResult r = cuptiSubscribe(&subscriber, on_callback, NULL);
  if (r != CUPTI_SUCCESS) {
    const char *why = NULL;
    cuptiGetResultString(r, &why);
    dlc_core_note(&note_sub,
                  "cannot watch cudaProfilerStart/Stop (%s: another profiler may be attached)",
                  why ? why : "?");
    subscriber = NULL;
    return;
  }
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                      CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                      CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                      CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                      CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
}

static void no_gpu(const char *what, CUptiResult r) {
  const char *why = NULL;
  cuptiGetResultString(r, &why);
  dlc_core_note(&note_gpu,
                "no GPU activity will be recorded: %s failed (%s; no GPU or driver?); "
                "recording NVTX ranges only",
                what, why ? why : "?");
}

static void start(void) {
  uint32_t version = 0;
  CUptiResult r = cuptiGetVersion(&version);
  if (r != CUPTI_SUCCESS || version < 130000) {
    no_gpu("the CUPTI version check (CUDA 13 needed)", r);
    return;
  }
  if (!(decoder = dlc_decoder_new(dlc_core_names()))) {
    dlc_core_fail("out of memory starting CUPTI; not recording");
    return;
  }
  dlc_buffers_set_decoder(decoder);
  cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  if ((r = cuptiActivityRegisterCallbacks(dlc_buffers_request, dlc_buffers_complete))) {
    no_gpu("cuptiActivityRegisterCallbacks", r);
    return;
  }
  subscribe();
  int ok = 0;
  CUptiResult first = CUPTI_SUCCESS;
  for (int i = 0; i < NKINDS; i++) {
    /* a libcupti whose records are shorter than the 13.0 structs we read */
    if (dlc_buffers_stride(kinds[i]) < dlc_translate_struct_size(kinds[i])) continue;
    r = cuptiActivityEnable(kinds[i]);
    enabled[i] = r == CUPTI_SUCCESS;
    ok += enabled[i];
    if (r != CUPTI_SUCCESS && first == CUPTI_SUCCESS) first = r;
  }
  if (!ok) {
    no_gpu("cuptiActivityEnable", first);
    return;
  }
  /* CUPTI's clock against ours (both CLOCK_REALTIME unless told otherwise) */
  uint64_t cupti_ts = 0;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (cuptiGetTimestamp(&cupti_ts) == CUPTI_SUCCESS) {
    int64_t ours = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    int64_t off = (int64_t)cupti_ts - ours;
    if (off > 1000000 || off < -1000000) dlc_core_set_clock_offset(off);
  }
  cuptiActivityFlushPeriod(200);
  dlc_core_debug("CUPTI %u started: %d of %d activity kinds enabled, %s", version, ok, NKINDS,
                 subscriber ? "cudaProfilerStart/Stop watched" : "no subscriber");
  atomic_store(&gpu_on, 1);
  dlc_core_set_cupti_final(final_flush);
  if (dlc_core_range_mode()) set_kinds(0, 0); /* until cudaProfilerStart */
  atomic_store(&dlc_extcorr_push, ext_push);
  atomic_store(&dlc_extcorr_pop, ext_pop);
}

DLC_EXPORT int InitializeInjection(void);
DLC_EXPORT int InitializeInjection(void) {
  int on = dlc_core_init();
  dlc_core_debug("InitializeInjection in process %lld (%s)", (long long)getpid(),
                 on ? "recording" : "not recording");
  if (on) pthread_once(&once, start);
  return 1; /* never fail the application's cuInit */
}
