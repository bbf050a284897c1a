/* dldb_tlpack.c - the timeline's packed blocks (see dldb_tlpack.h). */
#include "dldb_tlpack.h"

static size_t put_u(unsigned char *buf, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  buf[n++] = (unsigned char)v;
  return n;
}

static size_t put_s(unsigned char *buf, int64_t v) {
  return put_u(buf, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static int get_u(const unsigned char *p, size_t n, size_t *pos, uint64_t *v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 64 && *pos < n; shift += 7) {
    unsigned char b = p[(*pos)++];
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = x;
      return 0;
    }
  }
  return -1;
}

static int get_s(const unsigned char *p, size_t n, size_t *pos, int64_t *v) {
  uint64_t u;
  if (get_u(p, n, pos, &u)) return -1;
  *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
  return 0;
}

/* Deltas are taken modulo 2^64: any int64 values round-trip. */
static int64_t delta(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t undelta(int64_t a, int64_t d) { return (int64_t)((uint64_t)a + (uint64_t)d); }

size_t dldb_tl_put_event(unsigned char *buf, dldb_tl_rec *prev, const dldb_tl_rec *e) {
  size_t n = put_s(buf, delta(e->start, prev->start));
  n += put_s(buf + n, e->dur);
  n += put_s(buf + n, e->tag);
  n += put_s(buf + n, delta(e->id, prev->id));
  *prev = *e;
  return n;
}

int dldb_tl_get_event(const unsigned char *p, size_t n, size_t *pos, dldb_tl_rec *prev) {
  int64_t ds, did;
  if (get_s(p, n, pos, &ds) || get_s(p, n, pos, &prev->dur) || get_s(p, n, pos, &prev->tag) ||
      get_s(p, n, pos, &did))
    return -1;
  prev->start = undelta(prev->start, ds);
  prev->id = undelta(prev->id, did);
  return 0;
}

size_t dldb_tl_put_bin(unsigned char *buf, dldb_tl_bin *prev, const dldb_tl_bin *b) {
  size_t n = put_s(buf, delta(b->index, prev->index));
  n += put_s(buf + n, b->busy);
  n += put_s(buf + n, b->count);
  n += put_s(buf + n, b->best);
  n += put_s(buf + n, b->tag);
  *prev = *b;
  return n;
}

int dldb_tl_get_bin(const unsigned char *p, size_t n, size_t *pos, dldb_tl_bin *prev) {
  int64_t di;
  if (get_s(p, n, pos, &di) || get_s(p, n, pos, &prev->busy) || get_s(p, n, pos, &prev->count) ||
      get_s(p, n, pos, &prev->best) || get_s(p, n, pos, &prev->tag))
    return -1;
  prev->index = undelta(prev->index, di);
  return 0;
}
