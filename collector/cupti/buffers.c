/*
 * buffers.c - CUPTI buffer life cycle (buffers.h).
 *
 * Ownership: a buffer is ours from posix_memalign until CUPTI has it
 * (request), and ours again in complete, which always frees it (the pointer
 * we allocated: posix_memalign returns it aligned). Decoding runs under
 * one mutex because the decoder's caches are not thread-safe and CUPTI may
 * complete buffers on more than one thread.
 */
#include "buffers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../core.h"
#include "dl.h"

enum { BATCH_RECORDS = 16384 };

static pthread_mutex_t decode_mu = PTHREAD_MUTEX_INITIALIZER;
static dlc_decoder *decoder;
static atomic_int outstanding;
static atomic_llong dropped, refused, requested, completed;
static dlc_decode_stats decoded; /* under decode_mu */

static int64_t start_of(const dlc_record *r) {
  switch (r->kind) {
  case DLC_KERNEL: return r->u.kernel.start_ns;
  case DLC_MEMCPY: return r->u.memcpy.start_ns;
  case DLC_MEMSET: return r->u.memset.start_ns;
  case DLC_API: return r->u.api.start_ns;
  case DLC_SYNC: return r->u.sync.start_ns;
  case DLC_OVERHEAD: return r->u.overhead.start_ns;
  default: return -1; /* no time: always kept */
  }
}

int dlc_buffers_decode(dlc_decoder *d, uint8_t *buf, size_t valid, int64_t from_ns,
                       int64_t to_ns, int (*sink)(void *ctx, dlc_batch *b), void *ctx,
                       dlc_decode_stats *st) {
  CUpti_Activity *rec = NULL;
  dlc_batch *b = NULL;
  int rc = DL_OK;
  for (;;) {
    CUptiResult s = cuptiActivityGetNextRecord(buf, valid, &rec);
    if (s == CUPTI_ERROR_INVALID_KIND) {
      st->unknown_kinds++;
      break;
    }
    if (s != CUPTI_SUCCESS) break; /* CUPTI_ERROR_MAX_LIMIT_REACHED: the end */
    if (!b && !(b = dlc_batch_new(BATCH_RECORDS))) {
      st->failed++;
      rc = DL_ENOMEM;
      break;
    }
    dlc_record *out = &b->recs[b->n];
    int t = dlc_translate(d, rec, out);
    if (t < 0) {
      st->failed++;
      rc = DL_ENOMEM;
      break;
    }
    int64_t at = t ? start_of(out) : 0;
    if (!t || (at >= 0 && (at < from_ns || at > to_ns))) {
      st->skipped++;
      continue;
    }
    st->records++;
    if (++b->n == b->cap) {
      dlc_batch *full = b;
      b = NULL;
      if (sink(ctx, full)) break;
    }
  }
  if (b && b->n) sink(ctx, b);
  else dlc_batch_free(b);
  return rc;
}

size_t dlc_buffers_stride(CUpti_ActivityKind kind) {
  enum { SCRATCH = 4096 };
  uint8_t *buf = NULL;
  CUpti_Activity *rec = NULL;
  size_t stride = 0;
  if (posix_memalign((void **)&buf, DLC_BUFFER_ALIGN, SCRATCH)) return 0;
  memset(buf, 0, SCRATCH);
  /* the kind at every 8-byte boundary: wherever the iterator lands it
   * reads the same kind, and the second record's offset is the stride */
  for (size_t off = 0; off + 8 <= SCRATCH; off += 8) ((CUpti_Activity *)(buf + off))->kind = kind;
  if (cuptiActivityGetNextRecord(buf, SCRATCH, &rec) == CUPTI_SUCCESS &&
      cuptiActivityGetNextRecord(buf, SCRATCH, &rec) == CUPTI_SUCCESS)
    stride = (size_t)((uint8_t *)rec - buf);
  free(buf);
  return stride;
}

void dlc_buffers_set_decoder(dlc_decoder *d) {
  pthread_mutex_lock(&decode_mu);
  decoder = d;
  pthread_mutex_unlock(&decode_mu);
}

void CUPTIAPI dlc_buffers_request(uint8_t **buffer, size_t *size, size_t *max_records) {
  void *p = NULL;
  *buffer = NULL;
  *size = 0;
  *max_records = 0;
  if (atomic_fetch_add(&outstanding, 1) >= DLC_BUFFERS_MAX ||
      posix_memalign(&p, DLC_BUFFER_ALIGN, DLC_BUFFER_BYTES)) {
    atomic_fetch_sub(&outstanding, 1);
    atomic_fetch_add(&refused, 1); /* CUPTI drops records and counts them */
    return;
  }
  *buffer = p;
  *size = DLC_BUFFER_BYTES;
  atomic_fetch_add(&requested, 1);
}

static int to_writer(void *ctx, dlc_batch *b) {
  (void)ctx;
  dlc_writer *w = dlc_core_writer();
  if (!w) {
    dlc_batch_free(b);
    return 1;
  }
  dlc_writer_submit(w, b); /* counts what it must drop */
  return 0;
}

void CUPTIAPI dlc_buffers_complete(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                   size_t size, size_t valid) {
  (void)size;
  size_t n = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &n) == CUPTI_SUCCESS && n)
    atomic_fetch_add(&dropped, (long long)n);
  if (buffer) atomic_fetch_add(&completed, 1);
  if (buffer && valid && dlc_core_active()) {
    dlc_decode_stats st = {0};
    int64_t from, to;
    dlc_core_window(&from, &to);
    pthread_mutex_lock(&decode_mu);
    if (decoder &&
        dlc_buffers_decode(decoder, buffer, valid, from, to, to_writer, NULL, &st) != DL_OK)
      dlc_core_fail("out of memory while decoding CUPTI records; not recording");
    decoded.records += st.records;
    decoded.skipped += st.skipped;
    decoded.unknown_kinds += st.unknown_kinds;
    decoded.failed += st.failed;
    pthread_mutex_unlock(&decode_mu);
  }
  if (buffer) atomic_fetch_sub(&outstanding, 1);
  free(buffer);
}

void dlc_buffers_counts(dlc_buffer_counts *c) {
  c->requested = atomic_load(&requested);
  c->completed = atomic_load(&completed);
  pthread_mutex_lock(&decode_mu);
  c->decoded = decoded;
  pthread_mutex_unlock(&decode_mu);
}

int64_t dlc_buffers_dropped(void) { return atomic_load(&dropped); }
int64_t dlc_buffers_refused(void) { return atomic_load(&refused); }
