/*
 * ring.h - a single-producer single-consumer byte ring of variable-length
 * events: one per NVTX-emitting thread (the producer, in the NVTX hooks)
 * drained by the writer thread (the consumer). No locks: the producer
 * publishes with a release store of `head`, the consumer frees space with
 * a release store of `tail`. A full ring drops the event and counts it;
 * the application is never blocked.
 *
 * Events are 8-byte aligned, start with a dlc_ring_hdr whose len covers
 * the whole event, and never wrap (a padding event fills the end).
 *
 * Ownership: dlc_ring_new returns a new ring (NULL when out of memory),
 * freed with dlc_ring_free(&r) once no thread uses it.
 */
#ifndef DLC_RING_H
#define DLC_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlc_ring_hdr {
  uint32_t len;    /* bytes, header included, multiple of 8 */
  uint32_t type;   /* 0: padding; else the producer's type */
} dlc_ring_hdr;

typedef struct dlc_ring {
  _Alignas(64) atomic_uint_fast64_t head; /* bytes published (producer) */
  _Alignas(64) atomic_uint_fast64_t tail; /* bytes consumed (consumer) */
  _Alignas(64) uint8_t *buf;
  size_t size;                  /* power of two */
  atomic_llong dropped;         /* events that did not fit */
  int64_t tid;                  /* the producing thread */
  atomic_int dead;              /* the producer has exited */
  struct dlc_ring *next;        /* registry link (hooks.c) */
} dlc_ring;

/* bytes: rounded up to a power of two, at least 4096. */
dlc_ring *dlc_ring_new(size_t bytes, int64_t tid);
void dlc_ring_free(dlc_ring **r);

/* Producer: room for an event of len bytes (header included; rounded up to
 * 8), or NULL when full (counted as dropped). Fill it, then publish. */
void *dlc_ring_reserve(dlc_ring *r, size_t len);
void dlc_ring_publish(dlc_ring *r, void *ev);

/* Consumer: calls fn for every published event in order and frees them.
 * Returns the number of events read. */
size_t dlc_ring_drain(dlc_ring *r, void (*fn)(void *ctx, const dlc_ring_hdr *ev), void *ctx);

#endif
