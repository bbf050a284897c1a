/*
 * dl_sqlbuild.c - tables' b-trees written page by page (see dl_sqlbuild.h).
 *
 * The file format is SQLite's (https://www.sqlite.org/fileformat.html): a
 * WITHOUT ROWID table is an index b-tree whose entries are the rows'
 * records (the key's columns first). Each entry is stored once: in a leaf
 * (0x0a) or, as the separator between two subtrees, in an interior page
 * (0x02: each cell a left child's page number and the entry; the header
 * holds the rightmost child). Built from rows in order, level by level:
 * a full page is held back until the next entry shows that another page
 * follows it on its level; then it gets the next page number and is
 * written, and the entry that did not fit goes up as the separator. When
 * the rows end after a held page, the held page's last entry goes up
 * instead and the waiting entry starts the last page, so that every page
 * has a cell and every separator a subtree on each side. The single page
 * left on the top level goes into the table's root page.
 *
 * A rowid table is a table b-tree: every row is a leaf cell (0x0d: the
 * payload size, the rowid, the record, whose INTEGER PRIMARY KEY column is
 * NULL), and the interior pages (0x05) hold a child's page number and the
 * largest rowid under it. A full leaf is written at once and its last rowid
 * goes up as the separator; the interior levels are built as above.
 *
 * The builds of a set share the file: its exclusive lock, the page
 * numbers (given out in the order the pages are written, so that the
 * pages of interleaved tables still leave in runs of consecutive pages)
 * and the write buffer. A full buffer goes to the set's writer thread,
 * which writes it while the builds fill the other one: the copy into the
 * page cache (or the wait for the device, past it) is off the caller's
 * thread. One buffer at most is in flight; an error is the next call's.
 */
#include "dl_sqlbuild.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl.h"
#include "dl_direct.h"

#define MAX_LEVELS 24
#define WBUF_BYTES (1 << 20)


typedef struct cellbuf { /* an entry: its payload size, local bytes, overflow page */
  uint8_t *b;
  size_t n, cap;
} cellbuf;

typedef struct level {
  uint8_t *page;      /* being filled */
  int ncells, content;
  uint8_t *held;      /* a full page waiting (has_held) */
  int held_ncells, held_content;
  int has_held;
  cellbuf pending;    /* the entry that did not fit the held page */
  uint32_t child;     /* interior: the child received last, not yet in a cell */
  int used;           /* something was sent to this level */
} level;

struct dl_sqlbuild_set {
  sqlite3 *db;
  int fd;
  int dfd;            /* the file opened O_DIRECT (dl_sqlbuild_uncached), else -1 */
  uint32_t page_size, usable, first_new, next_pg;
  uint32_t lock_page; /* the page of byte 2^30, which SQLite's locks keep unused */
  uint8_t *wbuf;      /* consecutive pages not yet written */
  size_t wfill;
  uint32_t wfirst;
  /* the buffer handed to the writer last (in flight while busy), its pages */
  uint8_t *out;
  size_t out_len;
  uint32_t out_first;
  pthread_t writer;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int has_writer, has_sync; /* the thread runs; mu and cv are made */
  int busy, stop;           /* under mu */
  int out_failed;           /* under mu: a write of the writer's failed (errno: out_errno) */
  int out_errno;
  dl_sqlbuild *builds; /* in the order added */
  int own;             /* dl_sqlbuild_open's: its build's close ends it */
  int sys_errno;       /* the first failed write's errno (dl_sqlbuild_end gives it back) */
};

struct dl_sqlbuild {
  dl_sqlbuild_set *set;
  dl_sqlbuild *next;
  uint32_t page_size, usable; /* the set's */
  int table;          /* a rowid table (a table b-tree); else WITHOUT ROWID, or an index */
  char *index;        /* an index's name (dl_sqlbuild_add_index), else NULL */
  int ipk;            /* table: the INTEGER PRIMARY KEY column, the rowid; -1: none
                         (each row's rowid is the one after the row before's) */
  int64_t last_rowid; /* table: the rowid of the leaf's last cell */
  int has_rowid;      /* ... there is one (a row added, or one the root held) */
  uint32_t *leaf_pg;  /* table: the leaves written, in order: page numbers */
  int64_t *leaf_last; /* ... and last rowids (dl_sqlbuild_read finds a row by them) */
  size_t nleaf, leafcap;
  uint8_t *rpage, *rbuf; /* dl_sqlbuild_read's page and record */
  size_t rcap;
  uint32_t root;
  int max_local, min_local;
  int ncols, nkey;
  int order[DL_SQLPAGE_MAX_COLS]; /* record field f is column order[f] */
  int aff[DL_SQLPAGE_MAX_COLS], notnull[DL_SQLPAGE_MAX_COLS];
  int64_t last_key[DL_SQLPAGE_MAX_COLS];
  int64_t rows;
  int failed;
  level lv[MAX_LEVELS];
  int nlevels;
  uint8_t *rec;  /* the record being encoded */
  size_t rec_cap;
  cellbuf cell;  /* its cell body */
  uint8_t *ovf;  /* an overflow page */
  uint8_t *root_before; /* the root page as it was (a leaf) */
  int root_written;
};

static void put16(uint8_t *p, unsigned v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* SQLite's varint (big-endian 7 bits a byte, the ninth byte whole). */
static size_t put_varint(uint8_t *p, uint64_t v) {
  if (v < 0x80) { /* a serial type of a number, most lengths: one byte */
    p[0] = (uint8_t)v;
    return 1;
  }
  if (v & 0xff00000000000000ull) {
    p[8] = (uint8_t)v;
    v >>= 8;
    for (int i = 7; i >= 0; i--, v >>= 7) p[i] = (uint8_t)((v & 0x7f) | 0x80);
    return 9;
  }
  uint8_t t[9];
  size_t n = 0;
  do {
    t[n++] = (uint8_t)((v & 0x7f) | 0x80);
    v >>= 7;
  } while (v);
  t[0] &= 0x7f;
  for (size_t i = 0; i < n; i++) p[i] = t[n - 1 - i];
  return n;
}

static size_t varint_len(uint64_t v) {
  if (v < 0x80) return 1;
  if (v & 0xff00000000000000ull) return 9;
  size_t n = 1;
  while (v >>= 7) n++;
  return n;
}

/* The low n bytes (1 <= n <= 8) of v, big-endian, at p, as one 8-byte
 * store: the bytes after them are written too (the record's buffer has 8
 * bytes to spare) and overwritten by what follows. */
static inline void put_be(uint8_t *p, uint64_t v, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t be = __builtin_bswap64(v << (8 * (8 - n)));
  memcpy(p, &be, 8);
#else
  for (size_t k = 0; k < n; k++) p[k] = (uint8_t)(v >> (8 * (n - 1 - k)));
#endif
}

/* ---- Page output ---------------------------------------------------------- */

/* The next new page's number (past the lock page). */
static uint32_t new_page(dl_sqlbuild *b) {
  dl_sqlbuild_set *s = b->set;
  if (s->next_pg == s->lock_page) s->next_pg++;
  return s->next_pg++;
}

/* len bytes of buf at page first: past the page cache where the set has
 * the descriptor for it (dl_sqlbuild_uncached), else, or where the file
 * system refused that (a buffer or offset not aligned to its blocks, a
 * full disk: the set writes through the cache from then on), through the
 * cache. 0, or the failed write's errno. The writer's, or the caller's
 * without one. */
static int write_out(dl_sqlbuild_set *s, const uint8_t *buf, size_t len, uint32_t first) {
  off_t at = (off_t)(first - 1) * s->page_size;
  if (s->dfd >= 0) {
    if (pwrite(s->dfd, buf, len, at) == (ssize_t)len) return 0;
    close(s->dfd);
    s->dfd = -1;
  }
  for (size_t done = 0; done < len;) {
    ssize_t w = pwrite(s->fd, buf + done, len - done, at + (off_t)done);
    if (w <= 0) return w < 0 ? errno : ENOSPC;
    done += (size_t)w;
  }
  return 0;
}

static void *writer_main(void *arg) {
  dl_sqlbuild_set *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (!s->busy && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
    if (!s->busy) break;
    pthread_mutex_unlock(&s->mu);
    int e = write_out(s, s->out, s->out_len, s->out_first);
    pthread_mutex_lock(&s->mu);
    if (e && !s->out_failed) {
      s->out_failed = 1;
      s->out_errno = e;
    }
    s->busy = 0;
    pthread_cond_broadcast(&s->cv);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* Waits for the buffer in flight. DL_OK, or DL_EIO when a write of the
 * writer's failed (errno and s->sys_errno: its errno). */
static int drain(dl_sqlbuild_set *s) {
  if (!s->has_writer) return DL_OK;
  pthread_mutex_lock(&s->mu);
  while (s->busy) pthread_cond_wait(&s->cv, &s->mu);
  int failed = s->out_failed, e = s->out_errno;
  pthread_mutex_unlock(&s->mu);
  if (!failed) return DL_OK;
  if (!s->sys_errno) s->sys_errno = e;
  errno = s->sys_errno;
  return DL_EIO;
}

/* Hands the buffer's pages to the writer (started at the first) once the
 * buffer before is written, and fills the other buffer from then on;
 * without a writer (none could start), writes them itself. */
static int flush_writes(dl_sqlbuild_set *s) {
  if (!s->wfill) return DL_OK;
  int rc = drain(s);
  if (rc) return rc;
  if (!s->has_writer && s->has_sync && s->out &&
      pthread_create(&s->writer, NULL, writer_main, s) == 0)
    s->has_writer = 1;
  if (!s->has_writer) {
    int e = write_out(s, s->wbuf, s->wfill, s->wfirst);
    s->wfill = 0;
    if (!e) return DL_OK;
    if (!s->sys_errno) s->sys_errno = e;
    errno = s->sys_errno;
    return DL_EIO;
  }
  uint8_t *full = s->wbuf;
  s->wbuf = s->out; /* written: the next pages go into it */
  s->out = full;
  s->out_len = s->wfill;
  s->out_first = s->wfirst;
  s->wfill = 0;
  pthread_mutex_lock(&s->mu);
  s->busy = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return DL_OK;
}

/* Stops the writer (its buffer written first). */
static void writer_stop(dl_sqlbuild_set *s) {
  if (!s->has_writer) return;
  pthread_mutex_lock(&s->mu);
  s->stop = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->writer, NULL);
  s->has_writer = 0;
}

/* Page pgno's bytes, through the buffer of consecutive pages. */
static int write_page(dl_sqlbuild *b, uint32_t pgno, const uint8_t *page) {
  dl_sqlbuild_set *s = b->set;
  int rc = DL_OK;
  if (s->wfill && (pgno != s->wfirst + s->wfill / s->page_size ||
                   s->wfill + s->page_size > WBUF_BYTES))
    rc = flush_writes(s);
  if (rc) return rc;
  if (!s->wfill) s->wfirst = pgno;
  memcpy(s->wbuf + s->wfill, page, s->page_size);
  s->wfill += s->page_size;
  return DL_OK;
}

/* ---- Records and cells ---------------------------------------------------- */

/* v as SQLite stores it in a column of affinity aff: its serial type, and
 * the value (*i, or *d for a REAL). DL_EINVAL for a text or BLOB in a
 * column SQLite would convert it in. */
/* An integer's serial type (1-6, 8, 9). */
static inline uint64_t int_type(int64_t i) {
  uint64_t u = i < 0 ? ~(uint64_t)i : (uint64_t)i;
  if (u <= 127) return (i & 1) == i ? 8 + (uint64_t)i : 1;
  if (u <= 32767) return 2;
  if (u <= 8388607) return 3;
  if (u <= 2147483647) return 4;
  return u <= 140737488355327ull ? 5 : 6;
}

static int serial(const dl_sqlpage_val *v, int aff, uint64_t *type, int64_t *i, double *d) {
  int t = v->type;
  *i = v->i;
  *d = v->d;
  if (t == SQLITE_INTEGER && aff != DL_SQLPAGE_TEXT && aff != DL_SQLPAGE_REAL) {
    *type = int_type(v->i); /* most values: an integer, kept as one */
    return DL_OK;
  }
  if (t == SQLITE_FLOAT && isnan(v->d)) t = SQLITE_NULL; /* SQLite binds NaN as NULL */
  if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
    if (aff != DL_SQLPAGE_TEXT && aff != DL_SQLPAGE_BLOB) return DL_EINVAL;
    if (t == SQLITE_BLOB && aff == DL_SQLPAGE_TEXT) return DL_EINVAL;
    *type = (uint64_t)v->n * 2 + (t == SQLITE_TEXT ? 13 : 12);
    return DL_OK;
  }
  if (t == SQLITE_NULL) {
    *type = 0;
    return DL_OK;
  }
  if (aff == DL_SQLPAGE_TEXT) return DL_EINVAL; /* SQLite would store the number's text */
  int intreal = 0;
  /* NUMERIC, INTEGER and REAL columns make an integral REAL an integer */
  if (t == SQLITE_FLOAT && aff >= DL_SQLPAGE_NUMERIC) {
    double r = v->d;
    if (r > -9223372036854775808.0 && r < 9223372036854775808.0 && r == (double)(int64_t)r &&
        (int64_t)r > INT64_MIN && (int64_t)r < INT64_MAX) {
      *i = (int64_t)r;
      t = SQLITE_INTEGER;
    }
  }
  if (t == SQLITE_INTEGER && aff == DL_SQLPAGE_REAL) intreal = 1;
  if (t == SQLITE_FLOAT) {
    *type = 7;
    return DL_OK;
  }
  *type = int_type(*i);
  if (*type == 6 && intreal) { /* eight bytes either way: SQLite keeps the REAL */
    *type = 7;
    *d = (double)*i;
  }
  return DL_OK;
}

static size_t serial_bytes(uint64_t type) {
  static const uint8_t n[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
  return type < 10 ? n[type] : (size_t)(type - 12) / 2;
}

static int reserve(uint8_t **p, size_t *cap, size_t n) {
  if (n <= *cap) return DL_OK;
  size_t c = *cap ? *cap : 256;
  while (c < n) c *= 2;
  uint8_t *q = realloc(*p, c);
  if (!q) return DL_ENOMEM;
  *p = q;
  *cap = c;
  return DL_OK;
}

/* A record starts this far into b->rec: its cell's prefix (the payload
 * size and a table's rowid, two varints) goes just before it, so that a
 * cell whose payload is all in the page is not copied again. */
#define REC_AT 18

/* The bytes of an integer serial type's value (1-6, 8, 9). */
static const uint8_t int_bytes[10] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};

/* The common row: every value an integer in a column that keeps it as one,
 * a REAL that is not integral in a REAL column, or NULL, so that every
 * serial type and the header's size take one byte each and header and body
 * are written in one pass. 1 when done (*rc set), 0 when the row is not
 * one of those (nothing changed: encode's general path takes it). */
static int encode_ints(dl_sqlbuild *b, const dl_sqlpage_val *v, size_t *len, int *rc) {
  int ncols = b->ncols;
  size_t most = REC_AT + 1 + (size_t)ncols * 9 + 8; /* put_be's spare */
  if (ncols + 1 >= 0x80 || (most > b->rec_cap && reserve(&b->rec, &b->rec_cap, most)))
    return 0;
  int64_t key[DL_SQLPAGE_MAX_COLS];
  int cmp = b->rows ? 0 : 1;
  if (b->table) {
    if (b->ipk >= 0 && (v[b->ipk].type != SQLITE_INTEGER ||
                        (b->has_rowid && v[b->ipk].i <= b->last_rowid)))
      return 0;
    cmp = 1;
  }
  uint8_t *h = b->rec + REC_AT;
  *h++ = (uint8_t)(ncols + 1);
  uint8_t *p = b->rec + REC_AT + 1 + ncols;
  for (int f = 0; f < ncols; f++) {
    int c = b->order[f];
    const dl_sqlpage_val *x = &v[c];
    if (b->table && c == b->ipk) { /* stored as NULL: the rowid is the key */
      *h++ = 0;
      continue;
    }
    if (x->type == SQLITE_INTEGER && b->aff[c] != DL_SQLPAGE_TEXT &&
        b->aff[c] != DL_SQLPAGE_REAL) { /* as serial() keeps it */
      uint64_t t = int_type(x->i);
      size_t n = int_bytes[t];
      if (n) put_be(p, (uint64_t)x->i, n); /* 0 and 1 (types 8, 9): no bytes */
      p += n;
      *h++ = (uint8_t)t;
      if (f < b->nkey) {
        if (!cmp) cmp = x->i < b->last_key[f] ? -1 : x->i > b->last_key[f];
        key[f] = x->i;
      }
    } else if (x->type == SQLITE_FLOAT && b->aff[c] == DL_SQLPAGE_REAL && f >= b->nkey &&
               x->d > -4503599627370496.0 && x->d < 4503599627370496.0 &&
               (double)(int64_t)x->d != x->d) { /* not integral (below 2^52), not NaN */
      uint64_t bits;
      memcpy(&bits, &x->d, 8);
      put_be(p, bits, 8);
      p += 8;
      *h++ = 7;
    } else if (x->type == SQLITE_NULL && !b->notnull[c] && f >= b->nkey) {
      *h++ = 0;
    } else {
      return 0;
    }
  }
  if (cmp <= 0) {
    *rc = DL_EINVAL; /* not after the row before */
    return 1;
  }
  for (int f = 0; f < b->nkey; f++) b->last_key[f] = key[f];
  *len = (size_t)(p - (b->rec + REC_AT));
  *rc = DL_OK;
  return 1;
}

/* The row's record into b->rec + REC_AT (*len bytes); checks the key's
 * order. */
static int encode(dl_sqlbuild *b, const dl_sqlpage_val *v, size_t *len) {
  int rc;
  if (encode_ints(b, v, len, &rc)) return rc;
  uint64_t type[DL_SQLPAGE_MAX_COLS];
  int64_t iv[DL_SQLPAGE_MAX_COLS];
  double dv[DL_SQLPAGE_MAX_COLS];
  size_t hdr = 0, body = 0;
  int cmp = b->rows ? 0 : 1;
  if (b->table) { /* the rowid: an integer after the row before's */
    if (b->ipk >= 0 &&
        (v[b->ipk].type != SQLITE_INTEGER || (b->has_rowid && v[b->ipk].i <= b->last_rowid)))
      return DL_EINVAL;
    cmp = 1;
  }
  for (int f = 0; f < b->ncols; f++) {
    int c = b->order[f];
    if (b->table && c == b->ipk) { /* stored as NULL: the rowid is the key */
      type[f] = 0;
      hdr += 1;
      continue;
    }
    if (serial(&v[c], b->aff[c], &type[f], &iv[f], &dv[f])) return DL_EINVAL;
    if (type[f] == 0 && b->notnull[c]) return DL_EINVAL;
    if (f < b->nkey) { /* INTEGER-affine key columns: integers */
      if (type[f] == 0 || type[f] == 7 || type[f] >= 12) return DL_EINVAL;
      if (!cmp) cmp = iv[f] < b->last_key[f] ? -1 : iv[f] > b->last_key[f];
      b->last_key[f] = iv[f];
    }
    hdr += varint_len(type[f]);
    body += serial_bytes(type[f]);
  }
  if (cmp <= 0) return DL_EINVAL; /* not after the row before */
  size_t hlen = hdr + 1;
  if (varint_len(hlen) > 1) hlen = hdr + varint_len(hdr + 2);
  if (reserve(&b->rec, &b->rec_cap, REC_AT + hlen + body + 8)) /* put_be's spare */
    return DL_ENOMEM;
  uint8_t *p = b->rec + REC_AT;
  p += put_varint(p, hlen);
  for (int f = 0; f < b->ncols; f++) p += put_varint(p, type[f]);
  for (int f = 0; f < b->ncols; f++) {
    int c = b->order[f];
    size_t n = serial_bytes(type[f]);
    if (type[f] == 7) {
      uint64_t bits;
      memcpy(&bits, &dv[f], 8);
      put_be(p, bits, 8);
    } else if (type[f] >= 12) {
      if (n) memcpy(p, v[c].s, n);
    } else if (n) {
      put_be(p, (uint64_t)iv[f], n);
    }
    p += n;
  }
  *len = (size_t)(p - (b->rec + REC_AT));
  return DL_OK;
}

/* The cell body of a record of len bytes (the payload size, a table's
 * rowid, the bytes kept in the page, the first overflow page), writing its
 * overflow pages: *cell, *n. A payload kept whole in the page gets its
 * prefix in front of the record, in place. */
static int make_cell(dl_sqlbuild *b, size_t len, int64_t rowid, const uint8_t **cell,
                     size_t *ncell) {
  const uint8_t *rec = b->rec + REC_AT;
  if (len <= (size_t)b->max_local) {
    uint8_t pre[REC_AT];
    size_t n = put_varint(pre, len);
    if (b->table) n += put_varint(pre + n, (uint64_t)rowid);
    memcpy(b->rec + REC_AT - n, pre, n);
    *cell = b->rec + REC_AT - n;
    *ncell = n + len;
    return DL_OK;
  }
  size_t room = b->usable - 4; /* SQLite's split of a payload */
  size_t local = (size_t)b->min_local + (len - (size_t)b->min_local) % room;
  if (local > (size_t)b->max_local) local = (size_t)b->min_local;
  if (reserve(&b->cell.b, &b->cell.cap, 18 + local + 4)) return DL_ENOMEM;
  size_t n = put_varint(b->cell.b, len);
  if (b->table) n += put_varint(b->cell.b + n, (uint64_t)rowid);
  memcpy(b->cell.b + n, rec, local);
  n += local;
  uint32_t pg = new_page(b);
  put32(b->cell.b + n, pg);
  n += 4;
  for (size_t at = local; at < len;) {
    size_t part = len - at < b->usable - 4 ? len - at : b->usable - 4;
    memset(b->ovf, 0, b->page_size);
    uint32_t next = at + part < len ? new_page(b) : 0;
    put32(b->ovf, next);
    memcpy(b->ovf + 4, rec + at, part);
    int rc = write_page(b, pg, b->ovf);
    if (rc) return rc;
    at += part;
    pg = next;
  }
  *cell = b->cell.b;
  *ncell = n;
  return DL_OK;
}

/* ---- Pages ---------------------------------------------------------------- */

static int header_bytes(int lvl) { return lvl ? 12 : 8; }

/* type: the leaf's (0x0a index, 0x0d table); the interior's is 8 less. */
static void page_init(uint8_t *page, int type, int lvl, int *ncells, int *content,
                      uint32_t usable) {
  memset(page, 0, 12);
  page[0] = (uint8_t)(lvl ? type - 8 : type);
  *ncells = 0;
  *content = (int)usable;
}

/* Whether a cell of n bytes fits page (with ncells cells) of level lvl. */
static int fits(int lvl, int ncells, int content, size_t n) {
  return (size_t)(header_bytes(lvl) + 2 * (ncells + 1)) + n <= (size_t)content;
}

/* Appends a cell: an interior one is child then body. */
static void put_cell(uint8_t *page, int lvl, int *ncells, int *content, uint32_t child,
                     const uint8_t *body, size_t n) {
  size_t total = n + (lvl ? 4 : 0);
  *content -= (int)total;
  if (lvl) put32(page + *content, child);
  memcpy(page + *content + (lvl ? 4 : 0), body, n);
  put16(page + header_bytes(lvl) + 2 * *ncells, (unsigned)*content);
  (*ncells)++;
}

/* The header's counts; interior pages: the rightmost child. */
static void page_finish(uint8_t *page, int lvl, int ncells, int content, uint32_t right,
                        uint32_t page_size) {
  put16(page + 3, (unsigned)ncells);
  put16(page + 5, (unsigned)content == page_size ? 0 : (unsigned)content);
  page[7] = 0;
  if (lvl) put32(page + 8, right);
}

/* Takes the last cell off a page (its body into out; an interior cell's
 * child into *child). */
static int pop_cell(uint8_t *page, int lvl, int *ncells, int *content, uint32_t usable,
                    cellbuf *out, uint32_t *child) {
  int k = *ncells - 1;
  int off = (page[header_bytes(lvl) + 2 * k] << 8) | page[header_bytes(lvl) + 2 * k + 1];
  int end = k ? (page[header_bytes(lvl) + 2 * (k - 1)] << 8) |
                    page[header_bytes(lvl) + 2 * (k - 1) + 1]
              : (int)usable;
  size_t n = (size_t)(end - off) - (lvl ? 4 : 0);
  if (reserve(&out->b, &out->cap, n)) return DL_ENOMEM;
  if (lvl) *child = get32(page + off);
  memcpy(out->b, page + off + (lvl ? 4 : 0), n);
  out->n = n;
  *ncells = k;
  *content = end;
  return DL_OK;
}

static int leaf_type(const dl_sqlbuild *b) { return b->table ? 0x0d : 0x0a; }

static int level_ready(dl_sqlbuild *b, int lvl) {
  if (lvl >= MAX_LEVELS) return DL_EINVAL; /* four cells a page at least: 16 levels hold 2^32 */
  level *l = &b->lv[lvl];
  if (l->page) return DL_OK;
  l->page = malloc(b->page_size);
  l->held = malloc(b->page_size);
  if (!l->page || !l->held) return DL_ENOMEM;
  memset(l->page, 0, b->page_size);
  memset(l->held, 0, b->page_size);
  page_init(l->page, leaf_type(b), lvl, &l->ncells, &l->content, b->usable);
  if (lvl + 1 > b->nlevels) b->nlevels = lvl + 1;
  return DL_OK;
}

static int add_child(dl_sqlbuild *b, int lvl, uint32_t child);
static int add_sep(dl_sqlbuild *b, int lvl, const uint8_t *body, size_t n);

/* The held page of level lvl is not the level's last: it gets a number and
 * is written, and it and its waiting entry go up. */
static int release_held(dl_sqlbuild *b, int lvl) {
  level *l = &b->lv[lvl];
  uint32_t pg = new_page(b);
  int rc = write_page(b, pg, l->held);
  if (rc == DL_OK) rc = add_child(b, lvl + 1, pg);
  if (rc == DL_OK) rc = add_sep(b, lvl + 1, l->pending.b, l->pending.n);
  l->has_held = 0;
  return rc;
}

/* The page being filled is full: it waits, with the entry that did not
 * fit (an interior page: the child before that entry is its rightmost). */
static int hold(dl_sqlbuild *b, int lvl, const uint8_t *body, size_t n) {
  level *l = &b->lv[lvl];
  page_finish(l->page, lvl, l->ncells, l->content, l->child, b->page_size);
  uint8_t *t = l->held;
  l->held = l->page;
  l->page = t;
  l->held_ncells = l->ncells;
  l->held_content = l->content;
  l->has_held = 1;
  if (reserve(&l->pending.b, &l->pending.cap, n)) return DL_ENOMEM;
  memcpy(l->pending.b, body, n);
  l->pending.n = n;
  page_init(l->page, leaf_type(b), lvl, &l->ncells, &l->content, b->usable);
  return DL_OK;
}

/* An entry for the leaves, or (lvl > 0) a separator after l->child. */
static int add_entry(dl_sqlbuild *b, int lvl, const uint8_t *body, size_t n) {
  int rc = level_ready(b, lvl);
  if (rc) return rc;
  level *l = &b->lv[lvl];
  l->used = 1;
  if (l->has_held && (rc = release_held(b, lvl))) return rc; /* another page follows it */
  if (fits(lvl, l->ncells, l->content, n + (lvl ? 4 : 0))) {
    put_cell(l->page, lvl, &l->ncells, &l->content, l->child, body, n);
    return DL_OK;
  }
  if (!l->ncells) return DL_EINVAL; /* a cell over a page: not for SQLite's limits */
  return hold(b, lvl, body, n);
}

static int add_sep(dl_sqlbuild *b, int lvl, const uint8_t *body, size_t n) {
  return add_entry(b, lvl, body, n);
}

/* A table's leaf cell: a full leaf is written, its last rowid going up. */
static int add_row_cell(dl_sqlbuild *b, const uint8_t *body, size_t n, int64_t rowid) {
  level *l = &b->lv[0];
  l->used = 1;
  if (!fits(0, l->ncells, l->content, n)) {
    if (!l->ncells) return DL_EINVAL;
    page_finish(l->page, 0, l->ncells, l->content, 0, b->page_size);
    if (b->nleaf == b->leafcap) {
      size_t cap = b->leafcap ? b->leafcap * 2 : 1024;
      uint32_t *pg = realloc(b->leaf_pg, cap * sizeof *pg);
      if (pg) b->leaf_pg = pg;
      int64_t *last = pg ? realloc(b->leaf_last, cap * sizeof *last) : NULL;
      if (!last) return DL_ENOMEM;
      b->leaf_last = last;
      b->leafcap = cap;
    }
    uint32_t pg = new_page(b);
    b->leaf_pg[b->nleaf] = pg;
    b->leaf_last[b->nleaf++] = b->last_rowid;
    uint8_t sep[9];
    int rc = write_page(b, pg, l->page);
    if (rc == DL_OK) rc = add_child(b, 1, pg);
    if (rc == DL_OK) rc = add_sep(b, 1, sep, put_varint(sep, (uint64_t)b->last_rowid));
    if (rc) return rc;
    page_init(l->page, leaf_type(b), 0, &l->ncells, &l->content, b->usable);
  }
  put_cell(l->page, 0, &l->ncells, &l->content, 0, body, n);
  b->last_rowid = rowid;
  b->has_rowid = 1;
  return DL_OK;
}

static int add_child(dl_sqlbuild *b, int lvl, uint32_t child) {
  int rc = level_ready(b, lvl);
  if (rc) return rc;
  b->lv[lvl].child = child;
  b->lv[lvl].used = 1;
  return DL_OK;
}

/* Ends level lvl (its last child received, for an interior level) and the
 * levels above it; the top page goes into the root. */
static int finish_level(dl_sqlbuild *b, int lvl) {
  level *l = &b->lv[lvl];
  int rc = DL_OK;
  if (l->has_held) { /* the waiting entry starts the last page; the held page's last goes up */
    cellbuf last = {0};
    uint32_t last_child = 0;
    rc = pop_cell(l->held, lvl, &l->held_ncells, &l->held_content, b->usable, &last,
                  &last_child);
    if (rc == DL_OK) {
      uint32_t right = lvl ? get32(l->held + 8) : 0; /* the held page's old rightmost */
      page_finish(l->held, lvl, l->held_ncells, l->held_content, last_child, b->page_size);
      put_cell(l->page, lvl, &l->ncells, &l->content, right, l->pending.b, l->pending.n);
      uint32_t pg = new_page(b);
      rc = write_page(b, pg, l->held);
      if (rc == DL_OK) rc = add_child(b, lvl + 1, pg);
      if (rc == DL_OK) rc = add_sep(b, lvl + 1, last.b, last.n);
    }
    free(last.b);
    l->has_held = 0;
    if (rc) return rc;
  }
  page_finish(l->page, lvl, l->ncells, l->content, l->child, b->page_size);
  if (lvl + 1 >= b->nlevels || !b->lv[lvl + 1].used) { /* the top: the root page */
    rc = flush_writes(b->set);
    b->root_written = 1;
    if (rc == DL_OK) rc = write_page(b, b->root, l->page);
    return rc ? rc : flush_writes(b->set);
  }
  uint32_t pg = new_page(b);
  rc = write_page(b, pg, l->page);
  if (rc == DL_OK) rc = add_child(b, lvl + 1, pg);
  return rc ? rc : finish_level(b, lvl + 1);
}

/* ---- Sets, builds, rows --------------------------------------------------- */

/* 1 when sql's single value is a nonzero integer (0 otherwise or on error). */
static int sql_true(sqlite3 *db, const char *sql, const char *table) {
  sqlite3_stmt *st = NULL;
  int yes = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) != 0;
  }
  sqlite3_finalize(st);
  return yes;
}

/* The table's columns: affinities, NOT NULLs and the record's order (a
 * WITHOUT ROWID table's key first; a rowid table's as declared). key_index:
 * a rowid table's PRIMARY KEY has an index of its own (it is not the
 * rowid: several columns, or one not declared INTEGER). */
static int map_columns(dl_sqlbuild *b, sqlite3 *db, const char *table, int key_index) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT cid, type, \"notnull\", pk, hidden FROM "
                             "pragma_table_xinfo(?1) ORDER BY cid",
                         -1, &st, NULL) != SQLITE_OK)
    return DL_ENOTFOUND;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  int n = 0, pkpos[DL_SQLPAGE_MAX_COLS], rc = DL_OK, npk = 0;
  while (rc == DL_OK && sqlite3_step(st) == SQLITE_ROW) {
    if (n >= DL_SQLPAGE_MAX_COLS || sqlite3_column_int(st, 0) != n ||
        sqlite3_column_int(st, 4) != 0) {
      rc = DL_ENOTFOUND;
      break;
    }
    const char *type = (const char *)sqlite3_column_text(st, 1);
    b->aff[n] = dl_sqlpage_affinity(type);
    b->notnull[n] = sqlite3_column_int(st, 2) != 0;
    pkpos[n] = sqlite3_column_int(st, 3);
    if (key_index) pkpos[n] = 0; /* columns like any other: their index orders them */
    if (pkpos[n] && b->aff[n] != DL_SQLPAGE_INTEGER) rc = DL_ENOTFOUND;
    /* a rowid table's key is its rowid only as a column declared INTEGER */
    if (pkpos[n] && b->table && (!type || sqlite3_stricmp(type, "INTEGER") != 0))
      rc = DL_ENOTFOUND;
    if (pkpos[n]) {
      npk++;
      b->ipk = n;
    }
    n++;
  }
  sqlite3_finalize(st);
  if (rc || n != b->ncols) return DL_ENOTFOUND;
  if (b->table) {
    for (int c = 0; c < n; c++) b->order[c] = c;
    b->nkey = 0;
    if (!npk) b->ipk = -1; /* the rowid alone: given in turn */
    return npk <= 1 ? DL_OK : DL_ENOTFOUND;
  }
  int f = 0;
  for (int k = 1; k <= n; k++)
    for (int c = 0; c < n; c++)
      if (pkpos[c] == k) b->order[f++] = c;
  b->nkey = f;
  for (int c = 0; c < n; c++)
    if (!pkpos[c]) b->order[f++] = c;
  return b->nkey ? DL_OK : DL_ENOTFOUND;
}

/* What a build declines, asked of the schema. A rowid table's INTEGER
 * PRIMARY KEY is its rowid when the key has no index of its own (DESC
 * keys, keys of other types and keys of several columns get one, which is
 * built in the set like any other index of the table). */
static int schema_ok(dl_sqlbuild *b, sqlite3 *db, const char *table) {
  sqlite3_stmt *st = NULL; /* a WITHOUT ROWID table has no rowid to select */
  char *sel = sqlite3_mprintf("SELECT rowid FROM \"%w\"", table);
  b->table = sel && sqlite3_prepare_v2(db, sel, -1, &st, NULL) == SQLITE_OK;
  sqlite3_finalize(st);
  sqlite3_free(sel);
  if (!sel) return DL_ENOTFOUND;
  if (!b->table && !sql_true(db, "SELECT count(*) = 0 FROM pragma_index_xinfo((SELECT name "
                                 "FROM pragma_index_list(?1) WHERE origin = 'pk')) WHERE key "
                                 "AND \"desc\"",
                             table))
    return DL_ENOTFOUND;
  /* every index but a WITHOUT ROWID table's own is built in the set */
  int rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_index_list(?1) WHERE origin <> 'pk' "
                                  "OR NOT ?2",
                              -1, &st, NULL) == SQLITE_OK
               ? DL_OK
               : DL_ENOTFOUND;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 2, !b->table);
  while (rc == DL_OK && sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    const dl_sqlbuild *o = b->set->builds;
    while (o && !(o->index && name && !strcmp(o->index, name))) o = o->next;
    if (!o) rc = DL_ENOTFOUND;
  }
  sqlite3_finalize(st);
  if (rc) return rc;
  int key_index = b->table && sql_true(db, "SELECT count(*) > 0 FROM pragma_index_list(?1) "
                                           "WHERE origin = 'pk'",
                                       table);
  if (!sql_true(db, "SELECT count(*) = 0 FROM sqlite_schema WHERE type = 'trigger' AND "
                    "tbl_name = ?1",
                table) ||
      !sql_true(db, "SELECT count(*) = 1 FROM sqlite_schema WHERE type = 'table' AND "
                    "name = ?1 AND upper(sql) NOT LIKE '%CHECK%' AND upper(sql) NOT LIKE "
                    "'%AUTOINCREMENT%'",
                table))
    return DL_ENOTFOUND;
  return map_columns(b, db, table, key_index);
}

/* An index's record: each column (a table column's or the rowid) INTEGER
 * affine and ascending, all of them the key. A constraint's index (no SQL)
 * is one only of a rowid table (its records end with the rowid): a WITHOUT
 * ROWID table's primary key is the table itself. */
static int index_ok(dl_sqlbuild *b, sqlite3 *db, const char *index) {
  if (!sql_true(db, "SELECT count(*) = 1 FROM sqlite_schema WHERE type = 'index' AND "
                    "name = ?1 AND (sql IS NOT NULL OR EXISTS (SELECT 1 FROM "
                    "pragma_index_xinfo(?1) WHERE cid = -1))",
                index))
    return DL_ENOTFOUND;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT x.cid, x.\"desc\", c.type FROM pragma_index_xinfo(?1) x "
                             "LEFT JOIN pragma_table_xinfo((SELECT tbl_name FROM sqlite_schema "
                             "WHERE type = 'index' AND name = ?1)) c ON c.cid = x.cid "
                             "ORDER BY x.seqno",
                         -1, &st, NULL) != SQLITE_OK)
    return DL_ENOTFOUND;
  sqlite3_bind_text(st, 1, index, -1, SQLITE_STATIC);
  int n = 0, rc = DL_OK;
  while (rc == DL_OK && sqlite3_step(st) == SQLITE_ROW) {
    int cid = sqlite3_column_int(st, 0);
    const char *type = (const char *)sqlite3_column_text(st, 2);
    if (n >= DL_SQLPAGE_MAX_COLS || cid < -1 || sqlite3_column_int(st, 1) ||
        (cid >= 0 && dl_sqlpage_affinity(type) != DL_SQLPAGE_INTEGER))
      rc = DL_ENOTFOUND;
    else {
      b->aff[n] = DL_SQLPAGE_INTEGER;
      b->order[n] = n;
      n++;
    }
  }
  sqlite3_finalize(st);
  if (rc || n != b->ncols) return DL_ENOTFOUND;
  b->nkey = n;
  return DL_OK;
}

/* The file's header, under the lock: page size, schema format 4, not WAL;
 * its pages. */
static int set_file_ok(dl_sqlbuild_set *s) {
  uint8_t h[100];
  struct stat sb;
  if (pread(s->fd, h, sizeof h, 0) != (ssize_t)sizeof h || fstat(s->fd, &sb) != 0)
    return DL_ENOTFOUND;
  unsigned ps = (unsigned)h[16] << 8 | h[17];
  s->page_size = ps == 1 ? 65536 : ps;
  if (s->page_size < 512 || (s->page_size & (s->page_size - 1)) || h[18] != 1 || h[19] != 1 ||
      get32(h + 44) != 4 || get32(h + 56) != 1 || h[20] > s->page_size - 480)
    return DL_ENOTFOUND;
  s->usable = s->page_size - h[20];
  uint32_t in_header = get32(h + 28), in_file = (uint32_t)(sb.st_size / s->page_size);
  uint32_t npages = in_header && !memcmp(h + 24, h + 92, 4) ? in_header : in_file;
  if (npages > in_file) return DL_ENOTFOUND;
  s->first_new = s->next_pg = npages + 1;
  s->lock_page = (uint32_t)(0x40000000u / s->page_size) + 1;
  return DL_OK;
}

/* A rowid table's rows in its root leaf start the first leaf: the build
 * goes on after them (their overflow pages stay where they are). */
static int take_root_cells(dl_sqlbuild *b, const uint8_t *page) {
  int n = page[3] << 8 | page[4];
  const uint8_t *end = page + b->usable;
  for (int k = 0; k < n; k++) {
    int off = page[8 + 2 * k] << 8 | page[8 + 2 * k + 1];
    uint64_t len, rowid;
    size_t a =
        off >= 8 && off < (int)b->usable ? (size_t)dl_sqlpage_varint(page + off, end, &len) : 0;
    size_t r = a ? (size_t)dl_sqlpage_varint(page + off + a, end, &rowid) : 0;
    if (!r || (b->has_rowid && (int64_t)rowid <= b->last_rowid)) return DL_ENOTFOUND;
    size_t local = len;
    if (len > (uint64_t)b->max_local) {
      local = (size_t)b->min_local + (size_t)(len - (uint64_t)b->min_local) % (b->usable - 4);
      if (local > (size_t)b->max_local) local = (size_t)b->min_local;
    }
    size_t size = a + r + local + (local < len ? 4 : 0);
    if (page + off + size > end) return DL_ENOTFOUND;
    level *l = &b->lv[0];
    put_cell(l->page, 0, &l->ncells, &l->content, 0, page + off, size);
    l->used = 1;
    b->last_rowid = (int64_t)rowid;
    b->has_rowid = 1;
  }
  return DL_OK;
}

/* Under the lock: the table's root page is a leaf, empty, or for a rowid
 * table holding the table's rows, which the build takes. */
static int table_ok(dl_sqlbuild *b, sqlite3 *db, const char *table) {
  dl_sqlbuild_set *s = b->set;
  sqlite3_stmt *st = NULL;
  int64_t root = 0;
  if (sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE type = ?2 AND name = ?1",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, b->index ? "index" : "table", -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) root = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  if (root < 2 || root >= s->first_new) return DL_ENOTFOUND;
  for (dl_sqlbuild *o = s->builds; o; o = o->next)
    if (o->root == (uint32_t)root) return DL_ENOTFOUND; /* built already */
  b->root = (uint32_t)root;
  b->page_size = s->page_size;
  b->usable = s->usable;
  /* SQLite's largest local payload (a table's leaf, or an index cell) and smallest */
  b->max_local = b->table ? (int)b->usable - 35 : (int)((b->usable - 12) * 64 / 255) - 23;
  b->min_local = (int)((b->usable - 12) * 32 / 255) - 23;
  int rc = level_ready(b, 0);
  uint8_t *page = b->root_before = malloc(s->page_size);
  if (rc || !page) return DL_ENOMEM;
  int leaf = pread(s->fd, page, s->page_size, (off_t)(root - 1) * s->page_size) ==
                 (ssize_t)s->page_size &&
             page[0] == leaf_type(b);
  if (!leaf || (!b->table && (page[3] || page[4]))) return DL_ENOTFOUND;
  return b->table ? take_root_cells(b, page) : DL_OK;
}

int dl_sqlbuild_begin(sqlite3 *db, dl_sqlbuild_set **out) {
  *out = NULL;
  if (!sqlite3_get_autocommit(db)) return DL_ENOTFOUND;
  const char *file = sqlite3_db_filename(db, "main");
  if (!file || !*file || sqlite3_db_readonly(db, "main") != 0) return DL_ENOTFOUND;
  dl_sqlbuild_set *s = calloc(1, sizeof *s);
  if (!s) return DL_ENOMEM;
  s->db = db;
  s->fd = -1;
  s->dfd = -1;
  if (sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK) {
    free(s);
    return DL_ENOTFOUND;
  }
  int rc = (s->fd = open(file, O_RDWR | O_CLOEXEC)) < 0 ? DL_ENOTFOUND : set_file_ok(s);
  /* two buffers, aligned for O_DIRECT's writes (dl_sqlbuild_uncached) */
  if (rc == DL_OK && (posix_memalign((void **)&s->wbuf, DL_DIRECT_ALIGN, WBUF_BYTES) ||
                      posix_memalign((void **)&s->out, DL_DIRECT_ALIGN, WBUF_BYTES))) {
    rc = DL_ENOMEM;
  }
  if (rc == DL_OK && pthread_mutex_init(&s->mu, NULL) == 0) {
    if (pthread_cond_init(&s->cv, NULL) == 0) s->has_sync = 1;
    else pthread_mutex_destroy(&s->mu);
  }
  if (rc != DL_OK) {
    s->first_new = 0; /* nothing to cut: the lock is let go */
    dl_sqlbuild_end(&s, 0);
    return rc;
  }
  *out = s;
  return DL_OK;
}

/* ---- Reading a rowid table's rows back ----------------------------------- */

/* Page pgno as written: from the write buffer while it is there, or the
 * buffer handed to the writer last (in flight, or written), else from the
 * file (into b->rpage, which the next read reuses). */
static const uint8_t *read_page(dl_sqlbuild *b, uint32_t pgno) {
  dl_sqlbuild_set *s = b->set;
  if (s->wfill && pgno >= s->wfirst && pgno < s->wfirst + s->wfill / s->page_size)
    return s->wbuf + (size_t)(pgno - s->wfirst) * s->page_size;
  if (s->has_writer && s->out_len && pgno >= s->out_first &&
      pgno < s->out_first + s->out_len / s->page_size)
    return s->out + (size_t)(pgno - s->out_first) * s->page_size;
  if (!b->rpage && !(b->rpage = malloc(s->page_size))) return NULL;
  if (pread(s->fd, b->rpage, s->page_size, (off_t)(pgno - 1) * s->page_size) !=
      (ssize_t)s->page_size)
    return NULL;
  return b->rpage;
}

int dl_sqlbuild_read(dl_sqlbuild *b, int64_t rowid, int col, dl_sqlpage_val *out) {
  if (!b->table || col < 0 || col >= b->ncols) return DL_EINVAL;
  if (!b->has_rowid || rowid > b->last_rowid) return DL_ENOTFOUND;
  size_t lo = 0, hi = b->nleaf; /* the first leaf written whose last rowid >= rowid */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->leaf_last[mid] < rowid) lo = mid + 1;
    else hi = mid;
  }
  const uint8_t *page = lo < b->nleaf ? read_page(b, b->leaf_pg[lo]) : b->lv[0].page;
  if (!page) return DL_EIO;
  int ncells = lo < b->nleaf ? page[3] << 8 | page[4] : b->lv[0].ncells;
  const uint8_t *end = page + b->usable;
  int l = 0, h = ncells - 1; /* the cell: rowids ascend */
  while (l <= h) {
    int m = l + (h - l) / 2, off = page[8 + 2 * m] << 8 | page[8 + 2 * m + 1];
    uint64_t len, id;
    size_t a = (size_t)dl_sqlpage_varint(page + off, end, &len);
    size_t r = a ? (size_t)dl_sqlpage_varint(page + off + a, end, &id) : 0;
    if (!r) return DL_ECORRUPT;
    if ((int64_t)id < rowid) {
      l = m + 1;
      continue;
    }
    if ((int64_t)id > rowid) {
      h = m - 1;
      continue;
    }
    if (col == b->ipk) {
      *out = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = rowid};
      return DL_OK;
    }
    size_t local = (size_t)len;
    if (len > (uint64_t)b->max_local) {
      local = (size_t)b->min_local + (size_t)(len - (uint64_t)b->min_local) % (b->usable - 4);
      if (local > (size_t)b->max_local) local = (size_t)b->min_local;
    }
    const uint8_t *p = page + off + a + r;
    if (p + local + (local < len ? 4 : 0) > end || reserve(&b->rbuf, &b->rcap, (size_t)len))
      return p + local > end ? DL_ECORRUPT : DL_ENOMEM;
    memcpy(b->rbuf, p, local);
    uint32_t next = local < len ? get32(p + local) : 0; /* copied before page is reused */
    for (size_t at = local; at < len; ) {
      const uint8_t *o = next ? read_page(b, next) : NULL;
      if (!o) return DL_ECORRUPT;
      size_t part = (size_t)len - at < b->usable - 4 ? (size_t)len - at : b->usable - 4;
      memcpy(b->rbuf + at, o + 4, part);
      next = get32(o);
      at += part;
    }
    return dl_sqlpage_record_col(b->rbuf, (size_t)len, col, out);
  }
  return DL_ENOTFOUND;
}

static void build_free(dl_sqlbuild *b) {
  for (int i = 0; i < MAX_LEVELS; i++) {
    free(b->lv[i].page);
    free(b->lv[i].held);
    free(b->lv[i].pending.b);
  }
  free(b->rec);
  free(b->cell.b);
  free(b->ovf);
  free(b->root_before);
  free(b->leaf_pg);
  free(b->leaf_last);
  free(b->rpage);
  free(b->rbuf);
  free(b->index);
  free(b);
}

/* A build of a table, or (index) of an index, added to s. */
static int add(dl_sqlbuild_set *s, const char *name, int index, int ncols, dl_sqlbuild **out) {
  *out = NULL;
  if (ncols < 1 || ncols > DL_SQLPAGE_MAX_COLS) return DL_ENOTFOUND;
  dl_sqlbuild *b = calloc(1, sizeof *b);
  if (!b) return DL_ENOMEM;
  b->set = s;
  b->ncols = ncols;
  int rc = index ? ((b->index = strdup(name)) ? index_ok(b, s->db, name) : DL_ENOMEM)
                 : schema_ok(b, s->db, name);
  if (rc == DL_OK) rc = table_ok(b, s->db, name);
  if (rc == DL_OK && !(b->ovf = malloc(s->page_size))) rc = DL_ENOMEM;
  if (rc != DL_OK) {
    build_free(b);
    return rc;
  }
  dl_sqlbuild **at = &s->builds; /* kept in the order added: the roots are written so */
  while (*at) at = &(*at)->next;
  *at = b;
  *out = b;
  return DL_OK;
}

void dl_sqlbuild_uncached(dl_sqlbuild_set *s) {
  if (!s || s->dfd >= 0 || s->page_size % DL_DIRECT_ALIGN) return;
  s->dfd = dl_direct_open(sqlite3_db_filename(s->db, "main"), O_WRONLY);
}

int dl_sqlbuild_add(dl_sqlbuild_set *s, const char *table, int ncols, dl_sqlbuild **out) {
  return add(s, table, 0, ncols, out);
}

int dl_sqlbuild_add_index(dl_sqlbuild_set *s, const char *index, int ncols, dl_sqlbuild **out) {
  return add(s, index, 1, ncols, out);
}

int dl_sqlbuild_open(sqlite3 *db, const char *table, int ncols, dl_sqlbuild **out) {
  *out = NULL;
  dl_sqlbuild_set *s = NULL;
  int rc = dl_sqlbuild_begin(db, &s);
  if (rc == DL_OK && (rc = dl_sqlbuild_add(s, table, ncols, out)) != DL_OK)
    dl_sqlbuild_end(&s, 0);
  if (rc == DL_OK) s->own = 1;
  return rc;
}

int dl_sqlbuild_row(dl_sqlbuild *b, const dl_sqlpage_val *v) {
  if (b->failed) return DL_EINVAL;
  size_t len;
  int64_t rowid = !b->table ? 0 : b->ipk >= 0 ? v[b->ipk].i : dl_sqlbuild_next_rowid(b);
  const uint8_t *cell = NULL;
  size_t ncell = 0;
  int rc = encode(b, v, &len);
  if (rc == DL_OK) rc = make_cell(b, len, rowid, &cell, &ncell);
  if (rc == DL_OK)
    rc = b->table ? add_row_cell(b, cell, ncell, rowid) : add_entry(b, 0, cell, ncell);
  if (rc) b->failed = 1;
  else b->rows++;
  return rc;
}

int64_t dl_sqlbuild_rows(const dl_sqlbuild *b) { return b->rows; }

int64_t dl_sqlbuild_next_rowid(const dl_sqlbuild *b) {
  return b->has_rowid ? b->last_rowid + 1 : 1;
}

/* The header: the pages, a new change counter (SQLite's caches of the file
 * are read again) and the same number as the counter's version. */
static int put_header(dl_sqlbuild_set *s) {
  uint8_t h[100];
  if (pread(s->fd, h, sizeof h, 0) != (ssize_t)sizeof h) return DL_EIO;
  uint32_t counter = get32(h + 24) + 1;
  put32(h + 24, counter);
  put32(h + 28, s->next_pg - 1);
  put32(h + 92, counter);
  if (pwrite(s->fd, h, sizeof h, 0) == (ssize_t)sizeof h) return DL_OK;
  if (!s->sys_errno) s->sys_errno = errno;
  return DL_EIO;
}

int dl_sqlbuild_end(dl_sqlbuild_set **ps, int keep) {
  dl_sqlbuild_set *s = ps ? *ps : NULL;
  if (!s) return DL_OK;
  *ps = NULL;
  int rc = DL_OK, any = 0;
  /* a statement still reading keeps SQLite's view of the file from before
   * the set (its page count among it), which its next write would store */
  for (sqlite3_stmt *q = sqlite3_next_stmt(s->db, NULL); keep && q; q = sqlite3_next_stmt(s->db, q))
    if (sqlite3_stmt_busy(q)) rc = DL_EINVAL;
  for (dl_sqlbuild *b = s->builds; b && keep && rc == DL_OK; b = b->next) {
    if (b->failed) rc = DL_EINVAL;
    else if (b->rows && (rc = finish_level(b, 0)) == DL_OK) any = 1;
  }
  if (rc == DL_OK && keep && any && (rc = flush_writes(s)) == DL_OK && (rc = drain(s)) == DL_OK)
    rc = put_header(s);
  if (drain(s) && rc == DL_OK) rc = DL_EIO; /* (a failed set's writes: done before the undo) */
  writer_stop(s);
  int undo = rc != DL_OK || !keep || !any;
  for (dl_sqlbuild *b = s->builds; b && undo; b = b->next) /* the empty roots back */
    if (b->root_written && pwrite(s->fd, b->root_before, s->page_size,
                                  (off_t)(b->root - 1) * s->page_size) != (ssize_t)s->page_size &&
        rc == DL_OK)
      rc = DL_EIO;
  /* the header still counts the pages before the build: they are cut off */
  if (undo && s->first_new && s->fd >= 0 &&
      ftruncate(s->fd, (off_t)(s->first_new - 1) * s->page_size) != 0 && rc == DL_OK)
    rc = DL_EIO;
  if (s->fd >= 0) close(s->fd);
  if (s->dfd >= 0) close(s->dfd);
  if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK && rc == DL_OK) rc = DL_EIO;
  for (dl_sqlbuild *b = s->builds, *n; b; b = n) {
    n = b->next;
    build_free(b);
  }
  int sys = s->sys_errno;
  if (s->has_sync) {
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
  }
  free(s->wbuf);
  free(s->out);
  free(s);
  if (rc == DL_EIO && sys) errno = sys; /* the write's, not the cleanup's */
  return rc;
}

int dl_sqlbuild_close(dl_sqlbuild **pb, int keep) {
  dl_sqlbuild *b = pb ? *pb : NULL;
  if (!b) return DL_OK;
  *pb = NULL;
  if (!b->set->own) return DL_EINVAL; /* a set's build ends with the set */
  dl_sqlbuild_set *s = b->set;
  return dl_sqlbuild_end(&s, keep);
}
