/*
 * dla_nvtxspill.c - sorted parts of NVTX names in one temporary file and
 * their merge (see dla_nvtxspill.h).
 *
 * A part is its names in order, each a record: its index (4 bytes), then
 * its text front-coded against the name before it in the part (the bytes
 * it shares with it and the rest's length, as varints, then the rest):
 * sorted neighbours share long prefixes ("aten::conv2d, seq = 12..."), so
 * the file is smaller than the texts. The merge reads every part through a
 * buffer of its own (pread at its own offset) and takes the least current
 * name from a binary heap of the parts.
 */
#include "dla_nvtxspill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl.h"

enum { WBUF = 1 << 20, RBUF_MIN = 4096, RBUF_MAX = 1 << 20, REC_HEAD = 4 + 2 * 5 };

typedef struct part {
  uint64_t at, end; /* bytes of the file */
} part;

struct dla_nvtx_spill {
  FILE *f;
  uint8_t *buf; /* records not yet written */
  size_t fill;
  uint64_t size; /* bytes written */
  part *parts;
  size_t nparts, cap;
};

static int flush_buf(dla_nvtx_spill *s) {
  if (s->fill && fwrite(s->buf, 1, s->fill, s->f) != s->fill) return DL_EIO;
  s->size += s->fill;
  s->fill = 0;
  return DL_OK;
}

static size_t put_varint(uint8_t *b, uint32_t v) {
  size_t n = 0;
  for (; v >= 0x80; v >>= 7) b[n++] = (uint8_t)(v | 0x80);
  b[n++] = (uint8_t)v;
  return n;
}

/* Appends bytes to the file through the buffer. */
static int put(dla_nvtx_spill *s, const void *p, size_t n) {
  if (s->fill + n > WBUF) {
    int rc = flush_buf(s);
    if (rc) return rc;
    if (n > WBUF) { /* a text longer than the buffer: straight through */
      if (fwrite(p, 1, n, s->f) != n) return DL_EIO;
      s->size += n;
      return DL_OK;
    }
  }
  memcpy(s->buf + s->fill, p, n);
  s->fill += n;
  return DL_OK;
}

static int spill_open(dla_nvtx_spill **out) {
  dla_nvtx_spill *s = calloc(1, sizeof *s);
  if (!s) return DL_ENOMEM;
  s->buf = malloc(WBUF);
  s->f = s->buf ? tmpfile() : NULL;
  int rc = !s->buf ? DL_ENOMEM : !s->f ? DL_EIO : DL_OK;
  if (rc) dla__nvtx_spill_close(&s);
  *out = s;
  return rc;
}

int dla__nvtx_spill_part(dla_nvtx_spill **sp, const dla_nvtx_ent *v, size_t n, const char *text) {
  int rc = *sp ? DL_OK : spill_open(sp);
  dla_nvtx_spill *s = *sp;
  if (rc == DL_OK && dl_grow((void **)&s->parts, &s->cap, s->nparts + 1, sizeof *s->parts))
    rc = DL_ENOMEM;
  if (rc) return rc;
  uint64_t at = s->size + s->fill;
  const char *prev = NULL;
  size_t plen = 0;
  for (size_t j = 0; rc == DL_OK && j < n; j++) {
    const char *t = text + v[j].off;
    size_t len = v[j].len, lcp = 0, m = len < plen ? len : plen;
    while (lcp < m && t[lcp] == prev[lcp]) lcp++;
    uint8_t head[REC_HEAD];
    uint32_t i = v[j].i;
    memcpy(head, &i, 4);
    size_t h = 4 + put_varint(head + 4, (uint32_t)lcp);
    h += put_varint(head + h, (uint32_t)(len - lcp));
    rc = put(s, head, h);
    if (rc == DL_OK) rc = put(s, t + lcp, len - lcp);
    prev = t;
    plen = len;
  }
  if (rc == DL_OK) s->parts[s->nparts++] = (part){at, s->size + s->fill};
  return rc;
}

size_t dla__nvtx_spill_parts(const dla_nvtx_spill *s) { return s ? s->nparts : 0; }

void dla__nvtx_spill_close(dla_nvtx_spill **s) {
  if (!*s) return;
  if ((*s)->f) fclose((*s)->f);
  free((*s)->buf);
  free((*s)->parts);
  free(*s);
  *s = NULL;
}

/* ---- The merge ------------------------------------------------------------ */

/* A part being read: its buffer, its current name. */
typedef struct reader {
  uint64_t at, end; /* the file's bytes not yet in the buffer */
  uint8_t *buf;
  size_t pos, fill, cap;
  char *text;       /* the current name's */
  size_t len, tcap;
  uint32_t i;
} reader;

static int refill(reader *r, int fd) {
  size_t want = r->end - r->at < r->cap ? (size_t)(r->end - r->at) : r->cap;
  r->pos = r->fill = 0;
  while (r->fill < want) {
    ssize_t got = pread(fd, r->buf + r->fill, want - r->fill, (off_t)(r->at + r->fill));
    if (got <= 0) return DL_EIO; /* the file is ours: a short end is damage */
    r->fill += (size_t)got;
  }
  r->at += want;
  return DL_OK;
}

static int get(reader *r, int fd, void *dst, size_t n) {
  uint8_t *d = dst;
  while (n) {
    if (r->pos == r->fill && (r->at == r->end || refill(r, fd))) return DL_EIO;
    size_t m = r->fill - r->pos < n ? r->fill - r->pos : n;
    memcpy(d, r->buf + r->pos, m);
    r->pos += m;
    d += m;
    n -= m;
  }
  return DL_OK;
}

static int get_varint(reader *r, int fd, uint32_t *v) {
  *v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    uint8_t b;
    if (get(r, fd, &b, 1)) return DL_EIO;
    *v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return DL_OK;
  }
  return DL_EIO;
}

/* The part's next name into r->text; *more = 0 at its end. */
static int next_name(reader *r, int fd, int *more) {
  *more = r->pos < r->fill || r->at < r->end;
  if (!*more) return DL_OK;
  uint32_t lcp, rest;
  if (get(r, fd, &r->i, 4) || get_varint(r, fd, &lcp) || get_varint(r, fd, &rest) || lcp > r->len)
    return DL_EIO;
  size_t len = (size_t)lcp + rest;
  if (len + 1 > r->tcap) {
    char *p = realloc(r->text, len + 1);
    if (!p) return DL_ENOMEM;
    r->text = p;
    r->tcap = len + 1;
  }
  r->len = len;
  return get(r, fd, r->text + lcp, rest);
}

static int reader_lt(const reader *a, const reader *b) {
  return dla__nvtx_cmp(a->text, a->len, b->text, b->len) < 0;
}

/* Restores the heap h[0..n-1] (of readers) below slot at. */
static void sift(reader **h, size_t n, size_t at) {
  for (;;) {
    size_t l = 2 * at + 1, m = at;
    if (l < n && reader_lt(h[l], h[m])) m = l;
    if (l + 1 < n && reader_lt(h[l + 1], h[m])) m = l + 1;
    if (m == at) return;
    reader *t = h[m];
    h[m] = h[at];
    h[at] = t;
    at = m;
  }
}

/* Takes names from the heap h (n parts) in order and hands them to fn. */
static int merge_heap(reader **h, size_t n, int fd, dla_nvtx_merge_fn fn, void *ctx) {
  char *prev = NULL;
  size_t plen = 0, pcap = 0;
  int rc = DL_OK, any = 0;
  for (size_t j = n; j-- > 0;) sift(h, n, j);
  while (rc == DL_OK && n) {
    reader *r = h[0];
    int same = any && r->len == plen && (!plen || memcmp(r->text, prev, plen) == 0), more;
    if (!same) { /* the new name, for the next */
      if (r->len + 1 > pcap) {
        char *p = realloc(prev, r->len + 1);
        if (!p) {
          rc = DL_ENOMEM;
          break;
        }
        prev = p;
        pcap = r->len + 1;
      }
      memcpy(prev, r->text, r->len);
      plen = r->len;
      any = 1;
    }
    rc = fn(ctx, r->i, r->text, r->len, same);
    if (rc == DL_OK) rc = next_name(r, fd, &more);
    if (rc == DL_OK && !more) h[0] = h[--n];
    if (rc == DL_OK) sift(h, n, 0);
  }
  free(prev);
  return rc;
}

int dla__nvtx_spill_merge(dla_nvtx_spill *s, size_t buf_bytes, dla_nvtx_merge_fn fn, void *ctx) {
  int rc = flush_buf(s);
  if (rc == DL_OK && fflush(s->f)) rc = DL_EIO;
  free(s->buf); /* written: the readers' buffers instead */
  s->buf = NULL;
  if (rc) return rc;
  size_t k = s->nparts, each = k ? buf_bytes / k : 0;
  each = each < RBUF_MIN ? RBUF_MIN : each > RBUF_MAX ? RBUF_MAX : each;
  reader *r = calloc(k + 1, sizeof *r);
  reader **h = malloc((k + 1) * sizeof *h);
  int fd = fileno(s->f);
  size_t n = 0;
  rc = r && h ? DL_OK : DL_ENOMEM;
  for (size_t p = 0; rc == DL_OK && p < k; p++) {
    r[p] = (reader){.at = s->parts[p].at, .end = s->parts[p].end, .cap = each};
    r[p].buf = malloc(each);
    int more = 0;
    rc = r[p].buf ? next_name(&r[p], fd, &more) : DL_ENOMEM;
    if (rc == DL_OK && more) h[n++] = &r[p];
  }
  if (rc == DL_OK) rc = merge_heap(h, n, fd, fn, ctx);
  for (size_t p = 0; r && p < k; p++) {
    free(r[p].buf);
    free(r[p].text);
  }
  free(r);
  free(h);
  return rc;
}
