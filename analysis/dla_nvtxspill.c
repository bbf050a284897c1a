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
 *
 * Where the file system allows, the file is written and read past the page
 * cache (O_DIRECT, whole blocks from aligned buffers): it is read once, so
 * caching its pages would only take memory that is fresh, and dear, on
 * VMs. Otherwise, or after a direct write or read fails, through the cache.
 */
#include "dla_nvtxspill.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl.h"
#include "dl_direct.h"

enum { WBUF = 1 << 20, RBUF_MIN = 4096, RBUF_MAX = 1 << 20, REC_HEAD = 4 + 2 * 5,
       ALIGN = DL_DIRECT_ALIGN };

typedef struct part {
  uint64_t at, end; /* bytes of the file */
} part;

struct dla_nvtx_spill {
  FILE *f;
  int fd;       /* f's */
  int dfd;      /* the file opened O_DIRECT, or -1 */
  uint8_t *buf; /* records not yet written (ALIGN-aligned) */
  size_t fill;
  uint64_t size; /* bytes written (a direct write's padding not counted) */
  part *parts;
  size_t nparts, cap;
};

static int write_all(int fd, const uint8_t *p, size_t n, uint64_t at) {
  while (n) {
    ssize_t w = pwrite(fd, p, n, (off_t)at);
    if (w <= 0) return DL_EIO;
    p += w;
    n -= (size_t)w;
    at += (uint64_t)w;
  }
  return DL_OK;
}

/* Writes the buffer. Every flush but the last is of a full buffer, so a
 * direct write starts at a block; the last is padded to one. */
static int flush_buf(dla_nvtx_spill *s) {
  if (!s->fill) return DL_OK;
  size_t padded = (s->fill + ALIGN - 1) / ALIGN * ALIGN;
  if (s->dfd >= 0) {
    memset(s->buf + s->fill, 0, padded - s->fill);
    if (pwrite(s->dfd, s->buf, padded, (off_t)s->size) != (ssize_t)padded) {
      close(s->dfd); /* through the cache from here on */
      s->dfd = -1;
    }
  }
  if (s->dfd < 0 && write_all(s->fd, s->buf, s->fill, s->size)) return DL_EIO;
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

/* Appends bytes to the file through the buffer, which is written when full. */
static int put(dla_nvtx_spill *s, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n) {
    size_t m = WBUF - s->fill < n ? WBUF - s->fill : n;
    memcpy(s->buf + s->fill, b, m);
    s->fill += m;
    b += m;
    n -= m;
    if (s->fill == WBUF && flush_buf(s)) return DL_EIO;
  }
  return DL_OK;
}

static int spill_open(dla_nvtx_spill **out) {
  dla_nvtx_spill *s = calloc(1, sizeof *s);
  if (!s) return DL_ENOMEM;
  s->dfd = -1;
  if (posix_memalign((void **)&s->buf, ALIGN, WBUF)) s->buf = NULL;
  s->f = s->buf ? tmpfile() : NULL;
  int rc = !s->buf ? DL_ENOMEM : !s->f ? DL_EIO : DL_OK;
  if (rc == DL_OK) {
    s->fd = fileno(s->f);
    s->dfd = dl_direct_reopen(s->fd, O_RDWR);
  }
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
  if ((*s)->dfd >= 0) close((*s)->dfd);
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
  uint8_t *buf;     /* cap + ALIGN bytes, aligned: a direct read's blocks */
  size_t pos, fill, cap;
  char *text;       /* the current name's */
  size_t len, tcap;
  uint32_t i;
} reader;

/* The file, through the page cache (fd) or past it (dfd: whole blocks
 * from the one that holds r->at; the file's end is padded to a block). */
typedef struct files {
  int fd, dfd;
} files;

static int refill(reader *r, files *f) {
  size_t want = r->end - r->at < r->cap ? (size_t)(r->end - r->at) : r->cap;
  if (f->dfd >= 0) {
    uint64_t from = r->at / ALIGN * ALIGN;
    size_t skip = (size_t)(r->at - from), len = (skip + want + ALIGN - 1) / ALIGN * ALIGN;
    ssize_t got = pread(f->dfd, r->buf, len, (off_t)from);
    if (got >= (ssize_t)(skip + want)) {
      r->pos = skip;
      r->fill = skip + want;
      r->at += want;
      return DL_OK;
    }
    close(f->dfd); /* through the cache from here on */
    f->dfd = -1;
  }
  r->pos = r->fill = 0;
  while (r->fill < want) {
    ssize_t got = pread(f->fd, r->buf + r->fill, want - r->fill, (off_t)(r->at + r->fill));
    if (got <= 0) return DL_EIO; /* the file is ours: a short end is damage */
    r->fill += (size_t)got;
  }
  r->at += want;
  return DL_OK;
}

static int get(reader *r, files *fd, void *dst, size_t n) {
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

static int get_varint(reader *r, files *fd, uint32_t *v) {
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
static int next_name(reader *r, files *fd, int *more) {
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
static int merge_heap(reader **h, size_t n, files *fd, dla_nvtx_merge_fn fn, void *ctx) {
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
  free(s->buf); /* written: the readers' buffers instead */
  s->buf = NULL;
  if (rc) return rc;
  size_t k = s->nparts, each = k ? buf_bytes / k : 0;
  each = each < RBUF_MIN ? RBUF_MIN : each > RBUF_MAX ? RBUF_MAX : each;
  each = each / ALIGN * ALIGN;
  reader *r = calloc(k + 1, sizeof *r);
  reader **h = malloc((k + 1) * sizeof *h);
  files fd = {s->fd, s->dfd};
  s->dfd = -1; /* the merge's now (closed by it, or on a failed read) */
  size_t n = 0;
  rc = r && h ? DL_OK : DL_ENOMEM;
  for (size_t p = 0; rc == DL_OK && p < k; p++) {
    r[p] = (reader){.at = s->parts[p].at, .end = s->parts[p].end, .cap = each};
    if (posix_memalign((void **)&r[p].buf, ALIGN, each + ALIGN)) r[p].buf = NULL;
    int more = 0;
    rc = r[p].buf ? next_name(&r[p], &fd, &more) : DL_ENOMEM;
    if (rc == DL_OK && more) h[n++] = &r[p];
  }
  if (rc == DL_OK) rc = merge_heap(h, n, &fd, fn, ctx);
  if (fd.dfd >= 0) close(fd.dfd);
  for (size_t p = 0; r && p < k; p++) {
    free(r[p].buf);
    free(r[p].text);
  }
  free(r);
  free(h);
  return rc;
}
