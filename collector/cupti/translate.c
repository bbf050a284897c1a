/*
 * translate.c - read vendor records, fill vendor-neutral ones (translate.h):
 * one small converter per kind, switch-based dispatch.
 */
#include "translate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NAME_CACHE = 4096, CBID_CACHE = 2048 };

struct dlc_decoder {
  dlc_strtab *names;
  /* CUPTI's kernel-name pointer -> interned copy (direct mapped) */
  const void *key[NAME_CACHE];
  const char *val[NAME_CACHE];
  const char *cbid_name[2][CBID_CACHE]; /* [driver][cbid] */
};

dlc_decoder *dlc_decoder_new(dlc_strtab *names) {
  dlc_decoder *d = calloc(1, sizeof *d);
  if (d) d->names = names;
  return d;
}

void dlc_decoder_free(dlc_decoder **d) {
  if (!d || !*d) return;
  free(*d);
  *d = NULL;
}

size_t dlc_translate_struct_size(CUpti_ActivityKind kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
  case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
  case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
  case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
  case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
  case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
  case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return sizeof(CUpti_ActivityExternalCorrelation);
  default: return 0;
  }
}

static const char *kernel_name(dlc_decoder *d, const char *p) {
  if (!p) return dlc_strtab_intern(d->names, "<unknown kernel>");
  size_t slot = ((uintptr_t)p >> 3) & (NAME_CACHE - 1);
  if (d->key[slot] == p) return d->val[slot];
  const char *s = dlc_strtab_intern(d->names, p);
  if (s) {
    d->key[slot] = p;
    d->val[slot] = s;
  }
  return s;
}

static const char *api_name(dlc_decoder *d, int driver, uint32_t cbid) {
  const char *name = NULL;
  if (cbid < CBID_CACHE && d->cbid_name[driver][cbid]) return d->cbid_name[driver][cbid];
  if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
                           cbid, &name) != CUPTI_SUCCESS || !name)
    name = driver ? "cuUnknownDriverCall" : "cudaUnknownRuntimeCall";
  if (cbid < CBID_CACHE) d->cbid_name[driver][cbid] = name;
  return name;
}

static int kernel(dlc_decoder *d, const CUpti_ActivityKernel10 *k, dlc_record *out) {
  if (!k->start && !k->end) return 0;
  dlc_kernel *o = &out->u.kernel;
  out->kind = DLC_KERNEL;
  if (!(o->name = kernel_name(d, k->name))) return -1;
  o->device_id = (int32_t)k->deviceId;
  o->context_id = (int32_t)k->contextId;
  o->stream_id = (int32_t)k->streamId;
  o->start_ns = (int64_t)k->start;
  o->end_ns = (int64_t)k->end;
  o->correlation_id = k->correlationId;
  o->grid[0] = k->gridX, o->grid[1] = k->gridY, o->grid[2] = k->gridZ;
  o->block[0] = k->blockX, o->block[1] = k->blockY, o->block[2] = k->blockZ;
  o->registers_per_thread = k->registersPerThread;
  o->static_smem_bytes = k->staticSharedMemory;
  o->dynamic_smem_bytes = k->dynamicSharedMemory;
  return 1;
}

static int memcpy1(const CUpti_ActivityMemcpy6 *m, dlc_record *out) {
  if (!m->start && !m->end) return 0;
  out->kind = DLC_MEMCPY;
  out->u.memcpy = (dlc_memcpy){
      .copy_kind = m->copyKind, .src_kind = m->srcKind, .dst_kind = m->dstKind,
      .bytes = (int64_t)m->bytes, .device_id = (int32_t)m->deviceId,
      .context_id = (int32_t)m->contextId, .stream_id = (int32_t)m->streamId,
      .src_device_id = -1, .dst_device_id = -1, .start_ns = (int64_t)m->start,
      .end_ns = (int64_t)m->end, .correlation_id = m->correlationId};
  return 1;
}

static int memcpy2(const CUpti_ActivityMemcpyPtoP4 *m, dlc_record *out) {
  if (!m->start && !m->end) return 0;
  out->kind = DLC_MEMCPY;
  out->u.memcpy = (dlc_memcpy){
      .copy_kind = m->copyKind, .src_kind = m->srcKind, .dst_kind = m->dstKind,
      .bytes = (int64_t)m->bytes, .device_id = (int32_t)m->deviceId,
      .context_id = (int32_t)m->contextId, .stream_id = (int32_t)m->streamId,
      .src_device_id = (int32_t)m->srcDeviceId, .dst_device_id = (int32_t)m->dstDeviceId,
      .start_ns = (int64_t)m->start, .end_ns = (int64_t)m->end,
      .correlation_id = m->correlationId};
  return 1;
}

static int memset1(const CUpti_ActivityMemset4 *m, dlc_record *out) {
  if (!m->start && !m->end) return 0;
  out->kind = DLC_MEMSET;
  out->u.memset = (dlc_memset){
      .value = (int32_t)m->value, .bytes = (int64_t)m->bytes, .mem_kind = m->memoryKind,
      .device_id = (int32_t)m->deviceId, .context_id = (int32_t)m->contextId,
      .stream_id = (int32_t)m->streamId, .start_ns = (int64_t)m->start,
      .end_ns = (int64_t)m->end, .correlation_id = m->correlationId};
  return 1;
}

static int api(dlc_decoder *d, const CUpti_ActivityAPI *a, int driver, dlc_record *out) {
  if (!a->start && !a->end) return 0;
  out->kind = DLC_API;
  out->u.api = (dlc_api){
      .driver = driver, .cbid = a->cbid, .name = api_name(d, driver, a->cbid),
      .start_ns = (int64_t)a->start, .end_ns = (int64_t)a->end, .pid = a->processId,
      .tid = a->threadId, .correlation_id = a->correlationId,
      .return_value = (int32_t)a->returnValue};
  return 1;
}

static int device(dlc_decoder *d, const CUpti_ActivityDevice5 *v, dlc_record *out) {
  const char *name = dlc_strtab_intern(d->names, v->name ? v->name : "unknown GPU");
  free((void *)v->name); /* CUPTI malloc()s it for the client */
  if (!name) return -1;
  out->kind = DLC_DEVICE;
  out->u.device = (dlc_device){.id = (int32_t)v->id, .name = name,
                               .cc_major = (int)v->computeCapabilityMajor,
                               .cc_minor = (int)v->computeCapabilityMinor,
                               .sm_count = (int)v->numMultiprocessors,
                               .memory_bytes = (int64_t)v->globalMemorySize};
  return 1;
}

static int context(const CUpti_ActivityContext3 *c, dlc_record *out) {
  out->kind = DLC_CONTEXT;
  out->u.context = (dlc_context){.context_id = c->contextId, .device_id = (int32_t)c->deviceId,
                                 .null_stream_id = c->nullStreamId};
  return 1;
}

static int sync1(const CUpti_ActivitySynchronization2 *s, dlc_record *out) {
  if (!s->start && !s->end) return 0;
  out->kind = DLC_SYNC;
  out->u.sync = (dlc_sync){.type = (int)s->type, .context_id = (int32_t)s->contextId,
                           .stream_id = (int32_t)s->streamId, .event_id = s->cudaEventId,
                           .start_ns = (int64_t)s->start, .end_ns = (int64_t)s->end,
                           .correlation_id = s->correlationId};
  return 1;
}

static int overhead(const CUpti_ActivityOverhead3 *o, dlc_record *out) {
  out->kind = DLC_OVERHEAD;
  out->u.overhead = (dlc_overhead){.overhead_kind = (int)o->overheadKind,
                                   .object_kind = (int)o->objectKind,
                                   .start_ns = (int64_t)o->start, .end_ns = (int64_t)o->end};
  return 1;
}

static int extcorr(const CUpti_ActivityExternalCorrelation *e, dlc_record *out) {
  out->kind = DLC_EXTCORR;
  out->u.extcorr = (dlc_extcorr){.external_kind = (int)e->externalKind,
                                 .external_id = (int64_t)e->externalId,
                                 .correlation_id = e->correlationId};
  return 1;
}

int dlc_translate(dlc_decoder *d, const CUpti_Activity *a, dlc_record *out) {
  switch (a->kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return kernel(d, (const CUpti_ActivityKernel10 *)a, out);
  case CUPTI_ACTIVITY_KIND_MEMCPY: return memcpy1((const CUpti_ActivityMemcpy6 *)a, out);
  case CUPTI_ACTIVITY_KIND_MEMCPY2: return memcpy2((const CUpti_ActivityMemcpyPtoP4 *)a, out);
  case CUPTI_ACTIVITY_KIND_MEMSET: return memset1((const CUpti_ActivityMemset4 *)a, out);
  case CUPTI_ACTIVITY_KIND_RUNTIME: return api(d, (const CUpti_ActivityAPI *)a, 0, out);
  case CUPTI_ACTIVITY_KIND_DRIVER: return api(d, (const CUpti_ActivityAPI *)a, 1, out);
  case CUPTI_ACTIVITY_KIND_DEVICE: return device(d, (const CUpti_ActivityDevice5 *)a, out);
  case CUPTI_ACTIVITY_KIND_CONTEXT: return context((const CUpti_ActivityContext3 *)a, out);
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    return sync1((const CUpti_ActivitySynchronization2 *)a, out);
  case CUPTI_ACTIVITY_KIND_OVERHEAD: return overhead((const CUpti_ActivityOverhead3 *)a, out);
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return extcorr((const CUpti_ActivityExternalCorrelation *)a, out);
  default: return 0;
  }
}
