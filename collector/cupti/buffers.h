/*
 * buffers.h - CUPTI activity buffers: handed to CUPTI on request (aligned,
 * with a cap on how many are out), decoded on CUPTI's thread when they come
 * back, and the decoded records handed to the writer; no I/O here.
 *
 * dlc_buffers_decode is the pure part (tests and benchmarks call it on
 * hand-built buffers): it walks `valid` bytes with the real
 * cuptiActivityGetNextRecord, translates each record, and passes full
 * batches to sink, which takes ownership of each.
 */
#ifndef DLC_BUFFERS_H
#define DLC_BUFFERS_H

#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "translate.h"

enum { DLC_BUFFER_BYTES = 8 << 20, DLC_BUFFER_ALIGN = 8, DLC_BUFFERS_MAX = 64 };

typedef struct dlc_decode_stats {
  int64_t records;        /* translated */
  int64_t skipped;        /* kinds not collected, zero times, outside the window */
  int64_t unknown_kinds;  /* buffers cut short by a kind libcupti does not know */
  int64_t failed;         /* out of memory */
} dlc_decode_stats;

/* Decodes buf[0, valid): records with a start time outside [from_ns, to_ns]
 * are skipped. sink receives each non-empty batch (ownership moves; it
 * returns non-zero to stop). Returns DL_OK or DL_ENOMEM. */
int dlc_buffers_decode(dlc_decoder *d, uint8_t *buf, size_t valid, int64_t from_ns,
                       int64_t to_ns, int (*sink)(void *ctx, dlc_batch *b), void *ctx,
                       dlc_decode_stats *st);

/* libcupti's stride for a kind (the distance its iterator moves), measured
 * on a scratch buffer; 0 if it does not know the kind. */
size_t dlc_buffers_stride(CUpti_ActivityKind kind);

/* The CUPTI callbacks (cuptiActivityRegisterCallbacks). The decoder is set
 * before registering; completed buffers go to dlc_core_writer(). */
void dlc_buffers_set_decoder(dlc_decoder *d);
void CUPTIAPI dlc_buffers_request(uint8_t **buffer, size_t *size, size_t *max_records);
void CUPTIAPI dlc_buffers_complete(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                   size_t size, size_t valid);

/* What the callbacks have seen so far (DLPROF_COLLECTOR_VERBOSE). */
typedef struct dlc_buffer_counts {
  int64_t requested, completed; /* buffers */
  dlc_decode_stats decoded;     /* records of the completed buffers */
} dlc_buffer_counts;
void dlc_buffers_counts(dlc_buffer_counts *c);

/* Records CUPTI reported dropped, and buffers we refused (cap reached). */
int64_t dlc_buffers_dropped(void);
int64_t dlc_buffers_refused(void);

#endif
