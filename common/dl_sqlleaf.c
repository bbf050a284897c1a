/*
 * dl_sqlleaf.c - a rowid table's rows found by rowid in its leaf pages (see
 * dl_sqlleaf.h).
 *
 * The directory comes from one walk of the table b-tree's interior pages
 * (0x05), depth first: each cell is a child page and the largest rowid
 * under it, the header's rightmost child holds the rows after the last
 * cell's up to the bound the parent gave (SQLite's file format,
 * https://www.sqlite.org/fileformat.html). A rowid's leaf is the first
 * whose bound is not below it (a binary search of the bounds), its first
 * cell at or after the rowid another binary search: the cells' rowids
 * ascend.
 */
#include "dl_sqlleaf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl.h"

#define MAX_DEPTH 32

struct dl_sqlleaf {
  int fd;
  uint32_t page_size, usable, npages;
  struct leaf {
    uint32_t pg; /* leaf i's page */
    int64_t hi;  /* its rowids: (v[i - 1].hi, hi], the first's from INT64_MIN */
  } *v;
  size_t n, cap;
  unsigned char *buf;    /* the leaf read last (page buf_pg; 0: none) */
  uint32_t buf_pg;
  unsigned char *walk[MAX_DEPTH]; /* the open's interior pages, a buffer a level */
  uint64_t reads_left;   /* the open's page reads: a cycle of child pages ends it */
};

static uint32_t be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int read_page(const dl_sqlleaf *l, uint32_t pgno, unsigned char *buf) {
  if (pgno < 1 || pgno > l->npages) return DL_ECORRUPT;
  off_t at = (off_t)(pgno - 1) * l->page_size;
  size_t got = 0;
  while (got < l->page_size) {
    ssize_t r = pread(l->fd, buf + got, l->page_size - got, at + (off_t)got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return r == 0 ? DL_ECORRUPT : DL_EIO;
    got += (size_t)r;
  }
  return DL_OK;
}

/* Leaf pg holds the rowids up to hi, after the leaf before's. */
static int add_leaf(dl_sqlleaf *l, uint32_t pg, int64_t hi) {
  if (l->n && hi <= l->v[l->n - 1].hi) return DL_ECORRUPT;
  if (dl_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) return DL_ENOMEM;
  l->v[l->n++] = (struct leaf){pg, hi};
  return DL_OK;
}

/* The leaves under page pgno, at depth d, whose rowids are at most hi;
 * last: pgno is on the tree's rightmost path, whose leaf is left out. */
static int walk(dl_sqlleaf *l, uint32_t pgno, int d, int64_t hi, int last) {
  if (d >= MAX_DEPTH || l->reads_left == 0) return DL_ECORRUPT;
  l->reads_left--;
  if (!l->walk[d] && !(l->walk[d] = malloc(l->page_size))) return DL_ENOMEM;
  unsigned char *b = l->walk[d];
  int rc = read_page(l, pgno, b);
  if (rc) return rc;
  int hdr = pgno == 1 ? 100 : 0;
  if (b[hdr] == 0x0d) return last ? DL_OK : add_leaf(l, pgno, hi);
  if (b[hdr] != 0x05) return d == 0 ? DL_ENOTFOUND : DL_ECORRUPT; /* the root: an index */
  uint32_t ncells = be16(b + hdr + 3);
  if (hdr + 12 + 2 * ncells > l->usable) return DL_ECORRUPT;
  for (uint32_t i = 0; i < ncells; i++) {
    uint32_t off = be16(b + hdr + 12 + 2 * i);
    uint64_t key;
    if (off < (uint32_t)hdr + 12 || off + 5 > l->usable ||
        !dl_sqlpage_varint(b + off + 4, b + l->usable, &key) || (int64_t)key > hi)
      return DL_ECORRUPT;
    if ((rc = walk(l, be32(b + off), d + 1, (int64_t)key, 0))) return rc; /* b stays: level d's */
  }
  return walk(l, be32(b + hdr + 8), d + 1, hi, last);
}

/* The root page of rowid table `table`; 0 when there is none. */
static int64_t root_of(sqlite3 *db, const char *table) {
  sqlite3_stmt *st = NULL;
  int64_t root = 0;
  if (sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND "
                             "name = ?1",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) root = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  return root;
}

int dl_sqlleaf_open(sqlite3 *db, const char *table, dl_sqlleaf **out) {
  *out = NULL;
  const char *file = sqlite3_db_filename(db, "main");
  int64_t root = file && *file ? root_of(db, table) : 0;
  if (root < 1 || root > UINT32_MAX) return DL_ENOTFOUND;
  dl_sqlleaf *l = calloc(1, sizeof *l);
  if (!l) return DL_ENOMEM;
  int rc = (l->fd = open(file, O_RDONLY | O_CLOEXEC)) < 0
               ? DL_ENOTFOUND
               : dl_sqlpage_header(l->fd, &l->page_size, &l->usable, &l->npages);
  if (rc == DL_OK) {
    l->reads_left = (uint64_t)l->npages + 1;
    rc = walk(l, (uint32_t)root, 0, INT64_MAX, 1);
  }
  for (int d = 0; d < MAX_DEPTH; d++) {
    free(l->walk[d]);
    l->walk[d] = NULL;
  }
  if (rc == DL_OK && !l->n) rc = DL_ENOTFOUND; /* every row in the last leaf */
  if (rc == DL_OK && !(l->buf = malloc(l->page_size))) rc = DL_ENOMEM;
  if (rc != DL_OK) {
    dl_sqlleaf_close(&l);
    return rc;
  }
  *out = l;
  return DL_OK;
}

int64_t dl_sqlleaf_last(const dl_sqlleaf *l) { return l->v[l->n - 1].hi; }

/* Cell k of a leaf: its payload's size and rowid, *rec after them. 0, or
 * -1 when it does not parse. */
static int cell(const dl_sqlleaf *l, const unsigned char *page, int hdr, uint32_t k,
                uint64_t *size, int64_t *rowid, const unsigned char **rec) {
  const unsigned char *end = page + l->usable;
  uint32_t off = be16(page + hdr + 8 + 2 * k);
  if (off < (uint32_t)hdr + 8 || off >= l->usable) return -1;
  uint64_t id;
  int a = dl_sqlpage_varint(page + off, end, size);
  int b = a ? dl_sqlpage_varint(page + off + a, end, &id) : 0;
  if (!b) return -1;
  *rowid = (int64_t)id;
  *rec = page + off + a + b;
  return 0;
}

/* Leaf i's page (*hdr: its header's offset, *ncells), checked when read: a
 * table leaf whose first rowid is after the leaf before's bound and whose
 * last is its own bound, as SQLite and dl_sqlbuild leave them (a leaf
 * whose rows moved since does not pass). NULL with *rc set otherwise. */
static const unsigned char *leaf(dl_sqlleaf *l, size_t i, int *hdr, uint32_t *ncells, int *rc) {
  *hdr = l->v[i].pg == 1 ? 100 : 0;
  if (l->buf_pg != l->v[i].pg) {
    l->buf_pg = 0;
    if ((*rc = read_page(l, l->v[i].pg, l->buf))) return NULL;
    uint32_t n = be16(l->buf + *hdr + 3);
    uint64_t size;
    int64_t first, last;
    const unsigned char *rec;
    if (l->buf[*hdr] != 0x0d || n == 0 || *hdr + 8 + 2 * n > l->usable ||
        cell(l, l->buf, *hdr, 0, &size, &first, &rec) ||
        cell(l, l->buf, *hdr, n - 1, &size, &last, &rec) ||
        (i && first <= l->v[i - 1].hi) || last != l->v[i].hi) {
      *rc = DL_ECORRUPT;
      return NULL;
    }
    l->buf_pg = l->v[i].pg;
  }
  *ncells = be16(l->buf + *hdr + 3);
  return l->buf;
}

int dl_sqlleaf_rows(dl_sqlleaf *l, int64_t from, int64_t to, int col,
                    int (*fn)(void *ctx, int64_t rowid, const dl_sqlpage_val *v), void *ctx,
                    int64_t *upto) {
  *upto = from > INT64_MIN ? from - 1 : from;
  if (from == INT64_MIN || from > to) return DL_OK;
  size_t lo = 0, hi = l->n; /* the first leaf whose bound is not below from */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->v[mid].hi < from) lo = mid + 1;
    else hi = mid;
  }
  uint64_t max_local = l->usable - 35; /* a table leaf's payload in the page */
  for (size_t i = lo; i < l->n; i++) {
    int hdr, rc = DL_OK;
    uint32_t ncells;
    const unsigned char *page = leaf(l, i, &hdr, &ncells, &rc);
    if (!page) return rc;
    int64_t below = i ? l->v[i - 1].hi : INT64_MIN, rowid, prev = below;
    uint64_t size;
    const unsigned char *rec;
    uint32_t a = 0, b = ncells; /* the first cell at or after from */
    while (a < b) {
      uint32_t m = a + (b - a) / 2;
      if (cell(l, page, hdr, m, &size, &rowid, &rec)) return DL_ECORRUPT;
      if (rowid < from) a = m + 1;
      else b = m;
    }
    for (uint32_t k = a; k < ncells; k++) {
      if (cell(l, page, hdr, k, &size, &rowid, &rec) || rowid <= below || rowid > l->v[i].hi ||
          (k > a && rowid <= prev))
        return DL_ECORRUPT;
      prev = rowid;
      if (rowid > to) {
        *upto = to;
        return DL_OK;
      }
      dl_sqlpage_val v;
      if (size > max_local) return DL_OK; /* on overflow pages: *upto is before it */
      if (rec + size > page + l->usable ||
          dl_sqlpage_record_col(rec, (size_t)size, col, &v) != DL_OK)
        return DL_ECORRUPT;
      if (fn(ctx, rowid, &v)) return DL_OK;
      *upto = rowid;
    }
    *upto = l->v[i].hi < to ? l->v[i].hi : to;
    if (*upto == to) return DL_OK;
  }
  return DL_OK;
}

void dl_sqlleaf_close(dl_sqlleaf **pl) {
  dl_sqlleaf *l = pl ? *pl : NULL;
  if (!l) return;
  if (l->fd >= 0) close(l->fd);
  for (int d = 0; d < MAX_DEPTH; d++) free(l->walk[d]);
  free(l->v);
  free(l->buf);
  free(l);
  *pl = NULL;
}
