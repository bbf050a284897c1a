/*
 * dl_sqlpage.c - an SQLite table's rows read from its pages (see
 * dl_sqlpage.h).
 *
 * The file format is SQLite's own (https://www.sqlite.org/fileformat.html):
 * a table is a b-tree of interior pages (0x05: child page numbers, the
 * rightmost in the header) over leaf pages (0x0d: cells of payload size,
 * rowid and record, the record's tail on a chain of overflow pages when it
 * does not fit). A record is a header of serial types (varints) followed by
 * the values. The scan walks the tree depth first with a stack of interior
 * pages, reading each page with pread. Values that are not plain integers
 * or texts (REALs, BLOBs, a text's integer) are converted by SQLite itself
 * (a "SELECT ?1" on a private in-memory connection), so they come out as
 * the column calls would give them.
 */
#include "dl_sqlpage.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl.h"

#define MAX_DEPTH 32
#define MAX_FIELDS 256

typedef struct level {
  unsigned char *buf;
  int hdr;           /* the page header's offset (100 on page 1) */
  int cell, ncells;  /* next child: cell (ncells: the rightmost) */
} level;

struct dl_sqlpage {
  sqlite3 *db;
  sqlite3_stmt *lock;   /* stepped, not reset: the read transaction */
  sqlite3 *conv_db;     /* SQLite's conversions (opened when first needed) */
  sqlite3_stmt *conv;   /* "SELECT ?1" */
  int fd;
  uint32_t page_size, usable, npages;
  int ncols;
  int field[DL_SQLPAGE_MAX_COLS]; /* the record field of column i, -1: NULL, -2: rowid */
  int real[DL_SQLPAGE_MAX_COLS];  /* column i has REAL affinity */
  uint32_t text_cols;
  int nfilters;
  int ffield[DL_SQLPAGE_MAX_FILTERS]; /* each filter's field */
  dl_sqlpage_filter f[DL_SQLPAGE_MAX_FILTERS];
  int nfields;                 /* fields decoded: the largest wanted + 1 */
  level stack[MAX_DEPTH];
  int depth;
  const unsigned char *leaf; /* the current leaf: its level's buffer, kept until the next */
  int leaf_hdr, leaf_cell, leaf_ncells;
  unsigned char *payload; /* a record assembled from overflow pages */
  size_t payload_cap;
  char num[DL_SQLPAGE_MAX_COLS][24];   /* an integer's text */
  char *conv_text[DL_SQLPAGE_MAX_COLS]; /* a converted value's text */
  size_t conv_cap[DL_SQLPAGE_MAX_COLS];
  uint64_t pages_left; /* pages the scan may still read: a cycle ends it */
  unsigned char *ahead; /* pages read ahead: ahead_first .. ahead_first + ahead_n - 1 */
  uint32_t ahead_first, ahead_n, ahead_want, last_pgno;
};

/* Bytes read ahead at most: a table's pages mostly follow one another in
 * the file, and one read of many of them costs far less than a read each
 * (a system call per page was seconds of a 10 M-kernel export's import). */
#define AHEAD_BYTES (256u << 10)

static uint32_t be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* dl_sqlpage_varint, inlined into the scan's loops. */
static inline int varint(const unsigned char *p, const unsigned char *end, uint64_t *v) {
  if (p < end && p[0] < 0x80) {
    *v = p[0];
    return 1;
  }
  uint64_t x = 0;
  for (int i = 0; i < 9; i++) {
    if (p + i >= end) return 0;
    if (i == 8) {
      *v = x << 8 | p[i];
      return 9;
    }
    x = x << 7 | (p[i] & 0x7f);
    if (!(p[i] & 0x80)) {
      *v = x;
      return i + 1;
    }
  }
  return 0;
}

int dl_sqlpage_varint(const unsigned char *p, const unsigned char *end, uint64_t *v) {
  return varint(p, end, v);
}

/* Reads n bytes at `at` into buf: the bytes read (short only at the
 * file's end), or -1 (SQLITE_IOERR). */
static ssize_t read_at(int fd, unsigned char *buf, size_t n, off_t at) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, buf + got, n - got, at + (off_t)got);
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

/* Reads page pgno into buf: SQLITE_OK, SQLITE_CORRUPT (no such page, or
 * more pages than the file has read: a cycle) or SQLITE_IOERR. Pages read
 * in file order are read ahead, more at a time (up to AHEAD_BYTES) the
 * longer the order lasts; any other page alone. */
static int read_page(dl_sqlpage *p, uint32_t pgno, unsigned char *buf) {
  if (pgno < 1 || pgno > p->npages || p->pages_left == 0) return SQLITE_CORRUPT;
  p->pages_left--;
  size_t ps = p->page_size;
  int next = pgno == p->last_pgno + 1;
  p->last_pgno = pgno;
  if (p->ahead_n && pgno >= p->ahead_first && pgno - p->ahead_first < p->ahead_n) {
    memcpy(buf, p->ahead + (size_t)(pgno - p->ahead_first) * ps, ps);
    return SQLITE_OK;
  }
  uint32_t most = AHEAD_BYTES / p->page_size; /* 4 or more: pages are 64 KiB at most */
  if (!next) p->ahead_want = 1;
  else p->ahead_want = p->ahead_want < 2 ? 2 : p->ahead_want * 2 < most ? p->ahead_want * 2 : most;
  uint32_t n = p->ahead_want;
  if (n > p->npages - pgno + 1) n = p->npages - pgno + 1;
  if (n > 1 && !p->ahead && !(p->ahead = malloc((size_t)most * ps))) n = 1;
  off_t at = (off_t)(pgno - 1) * (off_t)ps;
  if (n <= 1) {
    ssize_t r = read_at(p->fd, buf, ps, at);
    return r < 0 ? SQLITE_IOERR : (size_t)r < ps ? SQLITE_CORRUPT : SQLITE_OK;
  }
  p->ahead_n = 0;
  ssize_t r = read_at(p->fd, p->ahead, (size_t)n * ps, at);
  if (r < 0) return SQLITE_IOERR;
  if ((size_t)r < ps) return SQLITE_CORRUPT;
  p->ahead_first = pgno;
  p->ahead_n = (uint32_t)((size_t)r / ps);
  memcpy(buf, p->ahead, ps);
  return SQLITE_OK;
}

/* A b-tree page's header offset, type and cell count, checked. */
static int page_head(const dl_sqlpage *p, uint32_t pgno, const unsigned char *buf, int *hdr,
                     int *ncells) {
  *hdr = pgno == 1 ? 100 : 0;
  int type = buf[*hdr];
  int cp = *hdr + (type == 0x05 ? 12 : 8);
  *ncells = (int)be16(buf + *hdr + 3);
  if ((type != 0x05 && type != 0x0d) || (uint32_t)(cp + 2 * *ncells) > p->usable) return -1;
  return type;
}

/* The next leaf in key order (p->leaf, in the buffer of the level below
 * its parent, which the next leaf reuses): SQLITE_ROW, SQLITE_DONE or an
 * error. */
static int next_leaf(dl_sqlpage *p) {
  while (p->depth > 0) {
    level *l = &p->stack[p->depth - 1];
    if (l->cell > l->ncells) {
      p->depth--;
      continue;
    }
    uint32_t child;
    if (l->cell == l->ncells) child = be32(l->buf + l->hdr + 8);
    else {
      uint32_t off = be16(l->buf + l->hdr + 12 + 2 * l->cell);
      if (off + 4 > p->usable) return SQLITE_CORRUPT;
      child = be32(l->buf + off);
    }
    l->cell++;
    unsigned char *buf = p->depth < MAX_DEPTH - 1 ? p->stack[p->depth].buf : NULL;
    if (!buf) return SQLITE_CORRUPT; /* deeper than any real table */
    int rc = read_page(p, child, buf), hdr, n;
    if (rc != SQLITE_OK) return rc;
    int type = page_head(p, child, buf, &hdr, &n);
    if (type == 0x05) {
      p->stack[p->depth++] = (level){buf, hdr, 0, n};
      continue;
    }
    if (type != 0x0d) return SQLITE_CORRUPT;
    p->leaf = buf;
    p->leaf_hdr = hdr;
    p->leaf_ncells = n;
    p->leaf_cell = 0;
    return SQLITE_ROW;
  }
  return SQLITE_DONE;
}

/* The record of the leaf's next cell: *rec, *len (in the leaf, or
 * assembled in p->payload from its overflow pages), and its rowid. */
static int cell_record(dl_sqlpage *p, const unsigned char **rec, size_t *len, int64_t *rowid) {
  const unsigned char *page = p->leaf, *end = page + p->usable;
  uint32_t off = be16(page + p->leaf_hdr + 8 + 2 * p->leaf_cell);
  p->leaf_cell++;
  if (off >= p->usable) return SQLITE_CORRUPT;
  const unsigned char *c = page + off;
  uint64_t size, key;
  int a = varint(c, end, &size), b = a ? varint(c + a, end, &key) : 0;
  if (!b) return SQLITE_CORRUPT;
  *rowid = (int64_t)key;
  c += a + b;
  uint64_t u = p->usable, x = u - 35, local = size;
  if (size > x) {
    uint64_t m = (u - 12) * 32 / 255 - 23, k = m + (size - m) % (u - 4);
    local = k <= x ? k : m;
  }
  if (c + local > end) return SQLITE_CORRUPT;
  if (local == size) {
    *rec = c;
    *len = (size_t)size;
    return SQLITE_OK;
  }
  if (size > 1u << 30 || c + local + 4 > end) return SQLITE_CORRUPT;
  if (size > p->payload_cap) {
    unsigned char *nb = realloc(p->payload, (size_t)size);
    if (!nb) return SQLITE_NOMEM;
    p->payload = nb;
    p->payload_cap = (size_t)size;
  }
  memcpy(p->payload, c, (size_t)local);
  size_t have = (size_t)local;
  uint32_t next = be32(c + local);
  unsigned char *ov = p->stack[MAX_DEPTH - 1].buf; /* a spare page: the tree is never this deep */
  while (have < size) {
    int rc = read_page(p, next, ov);
    if (rc != SQLITE_OK) return rc;
    size_t n = size - have < u - 4 ? (size_t)(size - have) : (size_t)(u - 4);
    memcpy(p->payload + have, ov + 4, n);
    have += n;
    next = be32(ov);
  }
  *rec = p->payload;
  *len = (size_t)size;
  return SQLITE_OK;
}

/* Binds v (REAL or BLOB or TEXT) to the conversion statement and steps it. */
static int conv_step(dl_sqlpage *p, const dl_sqlpage_val *v) {
  if (!p->conv) {
    if (!p->conv_db && sqlite3_open_v2(":memory:", &p->conv_db,
                                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                                       NULL) != SQLITE_OK)
      return SQLITE_NOMEM;
    if (sqlite3_prepare_v2(p->conv_db, "SELECT ?1", -1, &p->conv, NULL) != SQLITE_OK)
      return SQLITE_NOMEM;
  }
  sqlite3_reset(p->conv);
  int rc = v->type == SQLITE_FLOAT ? sqlite3_bind_double(p->conv, 1, v->d)
           : v->type == SQLITE_BLOB
               ? sqlite3_bind_blob(p->conv, 1, v->s, (int)v->n, SQLITE_STATIC)
               : sqlite3_bind_text(p->conv, 1, v->s, (int)v->n, SQLITE_STATIC);
  if (rc == SQLITE_OK && sqlite3_step(p->conv) != SQLITE_ROW) rc = SQLITE_NOMEM;
  return rc;
}

/* A text's integer is 0 unless it starts (after white space) like a number:
 * those SQLite converts itself. */
static int text_may_count(const dl_sqlpage_val *v) {
  if (!v->n) return 0;
  unsigned char ch = (unsigned char)v->s[0];
  return (ch >= 0x09 && ch <= 0x0d) || ch == ' ' || ch == '+' || ch == '-' || ch == '.' ||
         (ch >= '0' && ch <= '9');
}

/* The big-endian two's complement integer of n bytes (1-4, 6 or 8) at b. */
static inline int64_t be_int(const unsigned char *b, size_t n) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t w;
  uint64_t d;
  switch (n) {
  case 4:
    memcpy(&w, b, 4);
    return (int32_t)__builtin_bswap32(w);
  case 6:
    memcpy(&w, b + 2, 4);
    return (int64_t)((uint64_t)(int64_t)(int16_t)(b[0] << 8 | b[1]) << 32 | __builtin_bswap32(w));
  case 8:
    memcpy(&d, b, 8);
    return (int64_t)__builtin_bswap64(d);
  default:
    break;
  }
#endif
  int64_t x = (signed char)b[0];
  for (size_t k = 1; k < n; k++) x = (int64_t)((uint64_t)x << 8 | b[k]);
  return x;
}

/* Column i's value from its serial type t and bytes b (n of them). */
static int value_of(dl_sqlpage *p, int i, uint64_t t, const unsigned char *b, size_t n,
                    dl_sqlpage_val *v) {
  *v = (dl_sqlpage_val){.type = SQLITE_NULL};
  if (t >= 1 && t <= 6) {
    v->type = SQLITE_INTEGER;
    v->i = be_int(b, n);
  } else if (t == 8 || t == 9) {
    *v = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = (int64_t)t - 8};
  } else if (t == 7) {
    uint64_t bits = 0;
    for (int k = 0; k < 8; k++) bits = bits << 8 | b[k];
    memcpy(&v->d, &bits, sizeof v->d);
    v->type = SQLITE_FLOAT;
  } else if (t >= 12) {
    v->type = t & 1 ? SQLITE_TEXT : SQLITE_BLOB;
    v->s = (const char *)b;
    v->n = n;
  }
  if (v->type == SQLITE_INTEGER && p->real[i]) { /* SQLite stores such REALs as integers */
    v->d = (double)v->i;
    v->type = SQLITE_FLOAT;
  }
  int text = p->text_cols >> i & 1u, rc;
  if (v->type == SQLITE_NULL) return SQLITE_OK;
  if (v->type == SQLITE_INTEGER) {
    if (text) {
      v->n = (size_t)snprintf(p->num[i], sizeof p->num[i], "%lld", (long long)v->i);
      v->s = p->num[i];
    }
    return SQLITE_OK;
  }
  if (v->type == SQLITE_TEXT && !text_may_count(v)) return SQLITE_OK; /* i = 0, text as is */
  if ((rc = conv_step(p, v)) != SQLITE_OK) return rc;
  v->i = sqlite3_column_int64(p->conv, 0);
  if (text && v->type != SQLITE_TEXT) {
    const unsigned char *s = sqlite3_column_text(p->conv, 0);
    size_t len = (size_t)sqlite3_column_bytes(p->conv, 0);
    if (len + 1 > p->conv_cap[i]) {
      char *nb = realloc(p->conv_text[i], len + 1);
      if (!nb) return SQLITE_NOMEM;
      p->conv_text[i] = nb;
      p->conv_cap[i] = len + 1;
    }
    memcpy(p->conv_text[i], s ? (const char *)s : "", len);
    p->conv_text[i][len] = '\0';
    v->s = p->conv_text[i];
    v->n = len;
  }
  return SQLITE_OK;
}

/* Whether filter f keeps a row whose field has serial type t and bytes b:
 * the field is INTEGER-affine, so only numbers equal a key. */
static int kept(const dl_sqlpage_filter *f, uint64_t t, const unsigned char *b) {
  if (t == 0) return 0; /* NULL: neither IN nor NOT IN */
  int found = 0;
  if (t <= 9 && t != 7) {
    int64_t x = t >= 8 ? (int64_t)t - 8 : (signed char)b[0];
    for (uint64_t k = 1; t <= 6 && k < (t < 5 ? t : t == 5 ? 6 : 8); k++)
      x = (int64_t)((uint64_t)x << 8 | b[k]);
    for (int k = 0; k < f->nkeys; k++) found |= f->keys[k] == x;
  } else if (t == 7) {
    uint64_t bits = 0;
    double d;
    for (int k = 0; k < 8; k++) bits = bits << 8 | b[k];
    memcpy(&d, &bits, sizeof d);
    for (int k = 0; k < f->nkeys; k++) found |= d == (double)f->keys[k];
  }
  return f->in ? found : !found;
}

/* The byte length of serial type t's value; -1: a reserved type. */
static int64_t serial_len(uint64_t t) {
  static const int fixed[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1};
  return t < 12 ? fixed[t] : (int64_t)((t - 12) / 2);
}

int dl_sqlpage_record_col(const unsigned char *rec, size_t len, int col, dl_sqlpage_val *out) {
  const unsigned char *end = rec + len;
  uint64_t hlen, type = 0;
  size_t at = (size_t)dl_sqlpage_varint(rec, end, &hlen), body = (size_t)hlen;
  if (!at || hlen > len || col < 0) return DL_ECORRUPT;
  for (int f = 0; f <= col; f++) {
    size_t k = at < hlen ? (size_t)dl_sqlpage_varint(rec + at, rec + hlen, &type) : 0;
    if (!k || serial_len(type) < 0) return DL_ECORRUPT;
    at += k;
    if (f < col) body += (size_t)serial_len(type);
  }
  size_t n = (size_t)serial_len(type);
  if (body > len || n > len - body) return DL_ECORRUPT;
  const unsigned char *p = rec + body;
  *out = (dl_sqlpage_val){.type = SQLITE_NULL};
  if (type >= 12) {
    *out = (dl_sqlpage_val){.type = type & 1 ? SQLITE_TEXT : SQLITE_BLOB, .s = (const char *)p,
                            .n = n};
  } else if (type == 7) {
    uint64_t bits = 0;
    for (size_t k = 0; k < 8; k++) bits = bits << 8 | p[k];
    out->type = SQLITE_FLOAT;
    memcpy(&out->d, &bits, 8);
  } else if (type == 8 || type == 9) {
    *out = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = (int64_t)type - 8};
  } else if (type) {
    uint64_t u = p[0] & 0x80 ? ~0ull : 0; /* sign-extended */
    for (size_t k = 0; k < n; k++) u = u << 8 | p[k];
    *out = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = (int64_t)u};
  }
  return DL_OK;
}

int dl_sqlpage_next(dl_sqlpage *p, dl_sqlpage_val *v) {
  for (;;) {
    while (p->leaf_cell >= p->leaf_ncells) {
      int rc = next_leaf(p);
      if (rc != SQLITE_ROW) return rc;
    }
    const unsigned char *rec;
    size_t len;
    int64_t rowid;
    int rc = cell_record(p, &rec, &len, &rowid);
    if (rc != SQLITE_OK) return rc;
    const unsigned char *end = rec + len;
    uint64_t hsize, t;
    int h = varint(rec, end, &hsize);
    if (!h || hsize > len || hsize < (uint64_t)h) return SQLITE_CORRUPT;
    uint64_t types[MAX_FIELDS];
    size_t offs[MAX_FIELDS];
    const unsigned char *hp = rec + h, *hend = rec + hsize;
    size_t body = (size_t)hsize;
    int nf = 0;
    while (nf < p->nfields && hp < hend) {
      int k = varint(hp, hend, &t); /* a serial type: almost always one byte */
      int64_t l = k ? serial_len(t) : -1;
      if (l < 0 || body + (size_t)l > len) return SQLITE_CORRUPT;
      hp += k;
      types[nf] = t;
      offs[nf++] = body;
      body += (size_t)l;
    }
    for (int f = nf; f < p->nfields; f++) { /* a short record: NULL (no default) */
      types[f] = 0;
      offs[f] = 0;
    }
    int keep = 1;
    for (int k = 0; keep && k < p->nfilters; k++)
      keep = kept(&p->f[k], types[p->ffield[k]], rec + offs[p->ffield[k]]);
    if (!keep) continue;
    for (int i = 0; i < p->ncols; i++) {
      int f = p->field[i];
      if (f == -2) {
        v[i] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = rowid};
        if (p->text_cols >> i & 1u) {
          v[i].n = (size_t)snprintf(p->num[i], sizeof p->num[i], "%lld", (long long)rowid);
          v[i].s = p->num[i];
        }
        continue;
      }
      uint64_t ti = f < 0 ? 0 : types[f];
      const unsigned char *b = ti ? rec + offs[f] : NULL;
      if ((rc = value_of(p, i, ti, b, ti ? (size_t)serial_len(ti) : 0, &v[i])) != SQLITE_OK)
        return rc;
    }
    return SQLITE_ROW;
  }
}

/* SQLite's affinity rule: REAL when the declared type has no INT, CHAR,
 * CLOB, TEXT or BLOB and has REAL, FLOA or DOUB. */
int dl_sqlpage_affinity(const char *type) {
  char up[128];
  size_t n = 0;
  for (; type && type[n] && n + 1 < sizeof up; n++)
    up[n] = (char)(type[n] >= 'a' && type[n] <= 'z' ? type[n] - 32 : type[n]);
  up[n] = '\0';
  if (strstr(up, "INT")) return DL_SQLPAGE_INTEGER;
  if (strstr(up, "CHAR") || strstr(up, "CLOB") || strstr(up, "TEXT")) return DL_SQLPAGE_TEXT;
  if (strstr(up, "BLOB") || !n) return DL_SQLPAGE_BLOB;
  if (strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB")) return DL_SQLPAGE_REAL;
  return DL_SQLPAGE_NUMERIC;
}

/* The plan of st is a plain scan of table. */
static int plain_scan(sqlite3 *db, sqlite3_stmt *st, const char *table) {
  const char *sql = sqlite3_sql(st);
  char *q = sql ? sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql) : NULL;
  sqlite3_stmt *e = NULL;
  int rows = 0, ok = 0;
  if (q && sqlite3_prepare_v2(db, q, -1, &e, NULL) == SQLITE_OK) {
    char want[256];
    snprintf(want, sizeof want, "SCAN %s", table);
    while (sqlite3_step(e) == SQLITE_ROW) {
      const char *d = (const char *)sqlite3_column_text(e, 3);
      ok = ++rows == 1 && d && !strcmp(d, want);
    }
  }
  sqlite3_finalize(e);
  sqlite3_free(q);
  return ok && rows == 1;
}

/* Fills p's column map from the table's declared columns: DL_OK or
 * DL_ENOTFOUND (a table this scan does not read). */
static int map_columns(dl_sqlpage *p, const char *table, const char *const *cols) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(p->db, "SELECT cid, name, type, dflt_value, pk, hidden FROM "
                                "pragma_table_xinfo(?1)",
                         -1, &st, NULL) != SQLITE_OK)
    return DL_ENOTFOUND;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  for (int i = 0; i < p->ncols; i++)
    p->field[i] = cols[i] && !strcasecmp(cols[i], "rowid") ? -2 : -1;
  for (int k = 0; k < p->nfilters; k++) p->ffield[k] = -1;
  int rc = DL_OK, fields = 0;
  while (rc == DL_OK && sqlite3_step(st) == SQLITE_ROW) {
    int cid = sqlite3_column_int(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    int aff = dl_sqlpage_affinity((const char *)sqlite3_column_text(st, 2));
    int real = aff == DL_SQLPAGE_REAL, integer = aff == DL_SQLPAGE_INTEGER;
    int dflt = sqlite3_column_type(st, 3) != SQLITE_NULL, pk = sqlite3_column_int(st, 4);
    if (!name || sqlite3_column_int(st, 5) != 0 || cid != fields++ || cid >= MAX_FIELDS ||
        !strcasecmp(name, "rowid"))
      rc = DL_ENOTFOUND; /* hidden, generated, or a column that hides the rowid */
    for (int i = 0; rc == DL_OK && i < p->ncols; i++)
      if (cols[i] && !strcasecmp(cols[i], name)) {
        if (pk || dflt) rc = DL_ENOTFOUND;
        p->field[i] = cid;
        p->real[i] = real;
      }
    for (int k = 0; rc == DL_OK && k < p->nfilters; k++)
      if (p->f[k].col && !strcasecmp(p->f[k].col, name)) {
        if (!integer || pk || dflt) rc = DL_ENOTFOUND;
        p->ffield[k] = cid;
      }
  }
  sqlite3_finalize(st);
  if (!fields) rc = DL_ENOTFOUND;
  for (int k = 0; k < p->nfilters; k++)
    if (p->ffield[k] < 0) rc = DL_ENOTFOUND;
    else if (p->ffield[k] + 1 > p->nfields) p->nfields = p->ffield[k] + 1;
  for (int i = 0; i < p->ncols; i++)
    if (p->field[i] + 1 > p->nfields) p->nfields = p->field[i] + 1;
  return rc;
}

int dl_sqlpage_header(int fd, uint32_t *page_size, uint32_t *usable, uint32_t *npages) {
  unsigned char h[100];
  struct stat sb;
  if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || fstat(fd, &sb) != 0) return DL_ENOTFOUND;
  uint32_t ps = be16(h + 16);
  ps = ps == 1 ? 65536 : ps;
  if (ps < 512 || (ps & (ps - 1)) || h[18] != 1 || h[19] != 1 || be32(h + 56) != 1 ||
      h[20] > ps - 480)
    return DL_ENOTFOUND;
  *page_size = ps;
  *usable = ps - h[20];
  *npages = (uint32_t)(sb.st_size / ps);
  return DL_OK;
}

/* The scan's page size, usable bytes and pages, and its read budget:
 * twice the pages (a cycle of child pages ends the scan). */
static int read_header(dl_sqlpage *p) {
  if (dl_sqlpage_header(p->fd, &p->page_size, &p->usable, &p->npages) != DL_OK)
    return DL_ENOTFOUND;
  p->pages_left = (uint64_t)p->npages * 2 + 16;
  return DL_OK;
}

static int open_scan(dl_sqlpage *p, sqlite3_stmt *st, const char *table,
                     const char *const *cols) {
  const char *file = sqlite3_db_filename(p->db, "main");
  if (!file || !*file || !plain_scan(p->db, st, table)) return DL_ENOTFOUND;
  int rc = map_columns(p, table, cols);
  if (rc != DL_OK) return rc;
  /* the read transaction first: the file does not change from here on */
  if (sqlite3_prepare_v2(p->db, "SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND "
                                "name = ?1",
                         -1, &p->lock, NULL) != SQLITE_OK)
    return DL_ENOTFOUND;
  sqlite3_bind_text(p->lock, 1, table, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(p->lock) != SQLITE_ROW) return DL_ENOTFOUND;
  int64_t root = sqlite3_column_int64(p->lock, 0);
  if ((p->fd = open(file, O_RDONLY | O_CLOEXEC)) < 0 || read_header(p) != DL_OK || root < 1 ||
      root > p->npages)
    return DL_ENOTFOUND;
  for (int i = 0; i < MAX_DEPTH; i++)
    if (!(p->stack[i].buf = malloc(p->page_size))) return DL_ENOMEM;
  if (read_page(p, (uint32_t)root, p->stack[0].buf) != SQLITE_OK) return DL_ENOTFOUND;
  int hdr, n, type = page_head(p, (uint32_t)root, p->stack[0].buf, &hdr, &n);
  if (type == 0x05) {
    p->stack[0] = (level){p->stack[0].buf, hdr, 0, n};
    p->depth = 1;
  } else if (type == 0x0d) {
    p->leaf = p->stack[0].buf;
    p->leaf_hdr = hdr;
    p->leaf_ncells = n;
  } else {
    return DL_ENOTFOUND; /* an index: WITHOUT ROWID */
  }
  return DL_OK;
}

int dl_sqlpage_open(sqlite3 *db, sqlite3_stmt *st, const char *table, const char *const *cols,
                    int ncols, uint32_t text_cols, const dl_sqlpage_filter *filters,
                    int nfilters, dl_sqlpage **out) {
  *out = NULL;
  if (ncols < 1 || ncols > DL_SQLPAGE_MAX_COLS || nfilters < 0 ||
      nfilters > DL_SQLPAGE_MAX_FILTERS)
    return DL_ENOTFOUND;
  for (int k = 0; k < nfilters; k++)
    if (!filters[k].col || filters[k].nkeys < 0 || filters[k].nkeys > DL_SQLPAGE_MAX_KEYS)
      return DL_ENOTFOUND;
  dl_sqlpage *p = calloc(1, sizeof *p);
  if (!p) return DL_ENOMEM;
  p->db = db;
  p->fd = -1;
  p->ncols = ncols;
  p->text_cols = text_cols;
  p->nfilters = nfilters;
  for (int k = 0; k < nfilters; k++) p->f[k] = filters[k];
  int rc = open_scan(p, st, table, cols);
  if (rc != DL_OK) {
    dl_sqlpage_close(&p);
    return rc;
  }
  *out = p;
  return DL_OK;
}

void dl_sqlpage_close(dl_sqlpage **pp) {
  dl_sqlpage *p = pp ? *pp : NULL;
  if (!p) return;
  if (p->fd >= 0) close(p->fd);
  sqlite3_finalize(p->lock); /* ends the read transaction */
  sqlite3_finalize(p->conv);
  sqlite3_close(p->conv_db);
  for (int i = 0; i < MAX_DEPTH; i++) free(p->stack[i].buf);
  for (int i = 0; i < DL_SQLPAGE_MAX_COLS; i++) free(p->conv_text[i]);
  free(p->payload);
  free(p->ahead);
  free(p);
  *pp = NULL;
}
