/*
 * ring.c - SPSC event ring (ring.h).
 */
#include "ring.h"

#include <stdlib.h>
#include <string.h>

dlc_ring *dlc_ring_new(size_t bytes, int64_t tid) {
  size_t size = 4096;
  while (size < bytes) size *= 2;
  dlc_ring *r = aligned_alloc(64, (sizeof *r + 63) & ~(size_t)63);
  if (!r) return NULL;
  memset(r, 0, sizeof *r);
  if (!(r->buf = aligned_alloc(64, size))) {
    free(r);
    return NULL;
  }
  r->size = size;
  r->tid = tid;
  return r;
}

void dlc_ring_free(dlc_ring **r) {
  if (!r || !*r) return;
  free((*r)->buf);
  free(*r);
  *r = NULL;
}

void *dlc_ring_reserve(dlc_ring *r, size_t len) {
  len = (len + 7) & ~(size_t)7;
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
  size_t off = (size_t)(head & (r->size - 1));
  size_t to_end = r->size - off;
  size_t need = len <= to_end ? len : to_end + len;
  if (len > r->size / 2 || r->size - (size_t)(head - tail) < need) {
    atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
    return NULL;
  }
  if (len > to_end) { /* pad to the end, start over at 0 */
    dlc_ring_hdr *pad = (dlc_ring_hdr *)(r->buf + off);
    pad->len = (uint32_t)to_end;
    pad->type = 0;
    head += to_end;
    atomic_store_explicit(&r->head, head, memory_order_release);
    off = 0;
  }
  dlc_ring_hdr *h = (dlc_ring_hdr *)(r->buf + off);
  h->len = (uint32_t)len;
  return h;
}

void dlc_ring_publish(dlc_ring *r, void *ev) {
  const dlc_ring_hdr *h = ev;
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  atomic_store_explicit(&r->head, head + h->len, memory_order_release);
}

size_t dlc_ring_drain(dlc_ring *r, void (*fn)(void *ctx, const dlc_ring_hdr *ev), void *ctx) {
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  size_t n = 0;
  while (tail < head) {
    const dlc_ring_hdr *h = (const dlc_ring_hdr *)(r->buf + (tail & (r->size - 1)));
    if (h->type) {
      fn(ctx, h);
      n++;
    }
    tail += h->len;
  }
  atomic_store_explicit(&r->tail, tail, memory_order_release);
  return n;
}
