/*
 * dl_sqlbuild.c - a WITHOUT ROWID table's b-tree written page by page (see
 * dl_sqlbuild.h).
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
 */
#include "dl_sqlbuild.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl.h"

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

struct dl_sqlbuild {
  sqlite3 *db;
  int fd;
  uint32_t page_size, usable, root, first_new, next_pg;
  uint32_t lock_page; /* the page of byte 2^30, which SQLite's locks keep unused */
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
  uint8_t *wbuf; /* consecutive pages not yet written */
  size_t wfill;
  uint32_t wfirst;
  uint8_t *ovf;  /* an overflow page */
  uint8_t *root_before; /* the root page as it was (an empty leaf) */
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
  uint8_t t[9];
  return put_varint(t, v);
}

/* ---- Page output ---------------------------------------------------------- */

/* The next new page's number (past the lock page). */
static uint32_t new_page(dl_sqlbuild *b) {
  if (b->next_pg == b->lock_page) b->next_pg++;
  return b->next_pg++;
}

static int flush_writes(dl_sqlbuild *b) {
  size_t done = 0;
  while (done < b->wfill) {
    ssize_t w = pwrite(b->fd, b->wbuf + done, b->wfill - done,
                       (off_t)(b->wfirst - 1) * b->page_size + (off_t)done);
    if (w <= 0) return DL_EIO;
    done += (size_t)w;
  }
  b->wfill = 0;
  return DL_OK;
}

/* Page pgno's bytes, through the buffer of consecutive pages. */
static int write_page(dl_sqlbuild *b, uint32_t pgno, const uint8_t *page) {
  int rc = DL_OK;
  if (b->wfill && (pgno != b->wfirst + b->wfill / b->page_size ||
                   b->wfill + b->page_size > WBUF_BYTES))
    rc = flush_writes(b);
  if (rc) return rc;
  if (!b->wfill) b->wfirst = pgno;
  memcpy(b->wbuf + b->wfill, page, b->page_size);
  b->wfill += b->page_size;
  return DL_OK;
}

/* ---- Records and cells ---------------------------------------------------- */

/* v as SQLite stores it in a column of affinity aff: its serial type, and
 * the value (*i, or *d for a REAL). DL_EINVAL for a text or BLOB in a
 * column SQLite would convert it in. */
static int serial(const dl_sqlpage_val *v, int aff, uint64_t *type, int64_t *i, double *d) {
  int t = v->type;
  *i = v->i;
  *d = v->d;
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
  uint64_t u = *i < 0 ? ~(uint64_t)*i : (uint64_t)*i;
  if (u <= 127) *type = (*i & 1) == *i ? 8 + (uint64_t)*i : 1;
  else if (u <= 32767) *type = 2;
  else if (u <= 8388607) *type = 3;
  else if (u <= 2147483647) *type = 4;
  else if (u <= 140737488355327ull) *type = 5;
  else if (intreal) { /* eight bytes either way: SQLite keeps the REAL */
    *type = 7;
    *d = (double)*i;
  } else *type = 6;
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

/* The row's record into b->rec (*len bytes); checks the key's order. */
static int encode(dl_sqlbuild *b, const dl_sqlpage_val *v, size_t *len) {
  uint64_t type[DL_SQLPAGE_MAX_COLS];
  int64_t iv[DL_SQLPAGE_MAX_COLS];
  double dv[DL_SQLPAGE_MAX_COLS];
  size_t hdr = 0, body = 0;
  int cmp = b->rows ? 0 : 1;
  for (int f = 0; f < b->ncols; f++) {
    int c = b->order[f];
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
  if (reserve(&b->rec, &b->rec_cap, hlen + body)) return DL_ENOMEM;
  uint8_t *p = b->rec;
  p += put_varint(p, hlen);
  for (int f = 0; f < b->ncols; f++) p += put_varint(p, type[f]);
  for (int f = 0; f < b->ncols; f++) {
    int c = b->order[f];
    size_t n = serial_bytes(type[f]);
    if (type[f] == 7) {
      uint64_t bits;
      memcpy(&bits, &dv[f], 8);
      for (size_t k = 0; k < 8; k++) p[k] = (uint8_t)(bits >> (56 - 8 * k));
    } else if (type[f] >= 12) {
      if (n) memcpy(p, v[c].s, n);
    } else {
      for (size_t k = 0; k < n; k++) p[k] = (uint8_t)((uint64_t)iv[f] >> (8 * (n - 1 - k)));
    }
    p += n;
  }
  *len = (size_t)(p - b->rec);
  return DL_OK;
}

/* The cell body of a record of len bytes (the payload size, the bytes kept
 * in the page, the first overflow page), writing its overflow pages. */
static int make_cell(dl_sqlbuild *b, size_t len) {
  size_t local = len;
  if (len > (size_t)b->max_local) { /* SQLite's split of an index payload */
    size_t room = b->usable - 4;
    local = (size_t)b->min_local + (len - (size_t)b->min_local) % room;
    if (local > (size_t)b->max_local) local = (size_t)b->min_local;
  }
  if (reserve(&b->cell.b, &b->cell.cap, 9 + local + 4)) return DL_ENOMEM;
  size_t n = put_varint(b->cell.b, len);
  memcpy(b->cell.b + n, b->rec, local);
  n += local;
  if (local < len) {
    uint32_t pg = new_page(b);
    put32(b->cell.b + n, pg);
    n += 4;
    for (size_t at = local; at < len;) {
      size_t part = len - at < b->usable - 4 ? len - at : b->usable - 4;
      memset(b->ovf, 0, b->page_size);
      uint32_t next = at + part < len ? new_page(b) : 0;
      put32(b->ovf, next);
      memcpy(b->ovf + 4, b->rec + at, part);
      int rc = write_page(b, pg, b->ovf);
      if (rc) return rc;
      at += part;
      pg = next;
    }
  }
  b->cell.n = n;
  return DL_OK;
}

/* ---- Pages ---------------------------------------------------------------- */

static int header_bytes(int lvl) { return lvl ? 12 : 8; }

static void page_init(uint8_t *page, int lvl, int *ncells, int *content, uint32_t usable) {
  memset(page, 0, 12);
  page[0] = lvl ? 0x02 : 0x0a;
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

static int level_ready(dl_sqlbuild *b, int lvl) {
  if (lvl >= MAX_LEVELS) return DL_EINVAL; /* four cells a page at least: 16 levels hold 2^32 */
  level *l = &b->lv[lvl];
  if (l->page) return DL_OK;
  l->page = malloc(b->page_size);
  l->held = malloc(b->page_size);
  if (!l->page || !l->held) return DL_ENOMEM;
  memset(l->page, 0, b->page_size);
  memset(l->held, 0, b->page_size);
  page_init(l->page, lvl, &l->ncells, &l->content, b->usable);
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
  page_init(l->page, lvl, &l->ncells, &l->content, b->usable);
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
    rc = flush_writes(b);
    b->root_written = 1;
    if (rc == DL_OK) rc = write_page(b, b->root, l->page);
    return rc ? rc : flush_writes(b);
  }
  uint32_t pg = new_page(b);
  rc = write_page(b, pg, l->page);
  if (rc == DL_OK) rc = add_child(b, lvl + 1, pg);
  return rc ? rc : finish_level(b, lvl + 1);
}

/* ---- Open, rows, close ---------------------------------------------------- */

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

/* The table's columns: affinities, NOT NULLs and the record's order. */
static int map_columns(dl_sqlbuild *b, const char *table) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(b->db, "SELECT cid, type, \"notnull\", pk, hidden FROM "
                                "pragma_table_xinfo(?1) ORDER BY cid",
                         -1, &st, NULL) != SQLITE_OK)
    return DL_ENOTFOUND;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  int n = 0, pkpos[DL_SQLPAGE_MAX_COLS], rc = DL_OK;
  while (rc == DL_OK && sqlite3_step(st) == SQLITE_ROW) {
    if (n >= DL_SQLPAGE_MAX_COLS || sqlite3_column_int(st, 0) != n ||
        sqlite3_column_int(st, 4) != 0) {
      rc = DL_ENOTFOUND;
      break;
    }
    b->aff[n] = dl_sqlpage_affinity((const char *)sqlite3_column_text(st, 1));
    b->notnull[n] = sqlite3_column_int(st, 2) != 0;
    pkpos[n] = sqlite3_column_int(st, 3);
    if (pkpos[n] && b->aff[n] != DL_SQLPAGE_INTEGER) rc = DL_ENOTFOUND;
    n++;
  }
  sqlite3_finalize(st);
  if (rc || n != b->ncols) return DL_ENOTFOUND;
  int f = 0;
  for (int k = 1; k <= n; k++)
    for (int c = 0; c < n; c++)
      if (pkpos[c] == k) b->order[f++] = c;
  b->nkey = f;
  for (int c = 0; c < n; c++)
    if (!pkpos[c]) b->order[f++] = c;
  return b->nkey ? DL_OK : DL_ENOTFOUND;
}

/* What open declines, asked of the schema (before the lock). */
static int schema_ok(dl_sqlbuild *b, const char *table) {
  sqlite3_stmt *st = NULL; /* a WITHOUT ROWID table has no rowid to select */
  char *sel = sqlite3_mprintf("SELECT rowid FROM \"%w\"", table);
  int rowid = sel && sqlite3_prepare_v2(b->db, sel, -1, &st, NULL) == SQLITE_OK;
  sqlite3_finalize(st);
  sqlite3_free(sel);
  if (rowid || !sel) return DL_ENOTFOUND;
  if (!sql_true(b->db, "SELECT count(*) = 1 FROM pragma_index_list(?1)", table) ||
      !sql_true(b->db, "SELECT count(*) = 0 FROM pragma_index_xinfo((SELECT name FROM "
                       "pragma_index_list(?1) WHERE origin = 'pk')) WHERE key AND \"desc\"",
                table) ||
      !sql_true(b->db, "SELECT count(*) = 0 FROM sqlite_schema WHERE type = 'trigger' AND "
                       "tbl_name = ?1",
                table) ||
      !sql_true(b->db, "SELECT count(*) = 1 FROM sqlite_schema WHERE type = 'table' AND "
                       "name = ?1 AND upper(sql) NOT LIKE '%CHECK%'",
                table))
    return DL_ENOTFOUND;
  return map_columns(b, table);
}

/* Under the lock: the table is empty, its root page a leaf; the file's
 * header (page size, schema format 4, not WAL) and its pages. */
static int file_ok(dl_sqlbuild *b, const char *table) {
  char *q = sqlite3_mprintf("SELECT NOT EXISTS (SELECT 1 FROM \"%w\")", table);
  int empty = q && sql_true(b->db, q, table);
  sqlite3_free(q);
  if (!empty) return DL_ENOTFOUND;
  sqlite3_stmt *st = NULL;
  int64_t root = 0;
  if (sqlite3_prepare_v2(b->db, "SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND "
                                "name = ?1",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) root = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  uint8_t h[100];
  struct stat sb;
  if (pread(b->fd, h, sizeof h, 0) != (ssize_t)sizeof h || fstat(b->fd, &sb) != 0)
    return DL_ENOTFOUND;
  unsigned ps = (unsigned)h[16] << 8 | h[17];
  b->page_size = ps == 1 ? 65536 : ps;
  if (b->page_size < 512 || (b->page_size & (b->page_size - 1)) || h[18] != 1 || h[19] != 1 ||
      get32(h + 44) != 4 || get32(h + 56) != 1 || h[20] > b->page_size - 480)
    return DL_ENOTFOUND;
  b->usable = b->page_size - h[20];
  uint32_t in_header = get32(h + 28), in_file = (uint32_t)(sb.st_size / b->page_size);
  uint32_t npages = in_header && !memcmp(h + 24, h + 92, 4) ? in_header : in_file;
  if (npages > in_file || root < 2 || root > npages) return DL_ENOTFOUND;
  b->root = (uint32_t)root;
  b->first_new = b->next_pg = npages + 1;
  b->lock_page = (uint32_t)(0x40000000u / b->page_size) + 1;
  uint8_t *page = b->root_before = malloc(b->page_size);
  int leaf = page && pread(b->fd, page, b->page_size, (off_t)(root - 1) * b->page_size) ==
                         (ssize_t)b->page_size &&
             page[0] == 0x0a && page[3] == 0 && page[4] == 0;
  if (!leaf) return DL_ENOTFOUND;
  b->max_local = (int)((b->usable - 12) * 64 / 255) - 23;
  b->min_local = (int)((b->usable - 12) * 32 / 255) - 23;
  return DL_OK;
}

int dl_sqlbuild_open(sqlite3 *db, const char *table, int ncols, dl_sqlbuild **out) {
  *out = NULL;
  if (ncols < 1 || ncols > DL_SQLPAGE_MAX_COLS || !sqlite3_get_autocommit(db)) return DL_ENOTFOUND;
  const char *file = sqlite3_db_filename(db, "main");
  if (!file || !*file || sqlite3_db_readonly(db, "main") != 0) return DL_ENOTFOUND;
  dl_sqlbuild *b = calloc(1, sizeof *b);
  if (!b) return DL_ENOMEM;
  b->db = db;
  b->fd = -1;
  b->ncols = ncols;
  int rc = schema_ok(b, table);
  if (rc == DL_OK && sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK)
    rc = DL_ENOTFOUND;
  if (rc != DL_OK) {
    free(b);
    return rc;
  }
  if ((b->fd = open(file, O_RDWR | O_CLOEXEC)) < 0) rc = DL_ENOTFOUND;
  if (rc == DL_OK) rc = file_ok(b, table);
  if (rc == DL_OK) {
    b->wbuf = malloc(WBUF_BYTES);
    b->ovf = malloc(b->page_size);
    rc = b->wbuf && b->ovf ? level_ready(b, 0) : DL_ENOMEM;
  }
  if (rc != DL_OK) {
    b->first_new = 0; /* nothing to cut: the lock is let go */
    dl_sqlbuild_close(&b, 0);
    return rc;
  }
  *out = b;
  return DL_OK;
}

int dl_sqlbuild_row(dl_sqlbuild *b, const dl_sqlpage_val *v) {
  if (b->failed) return DL_EINVAL;
  size_t len;
  int rc = encode(b, v, &len);
  if (rc == DL_OK) rc = make_cell(b, len);
  if (rc == DL_OK) rc = add_entry(b, 0, b->cell.b, b->cell.n);
  if (rc) b->failed = 1;
  else b->rows++;
  return rc;
}

int64_t dl_sqlbuild_rows(const dl_sqlbuild *b) { return b->rows; }

/* The header: the pages, a new change counter (SQLite's caches of the file
 * are read again) and the same number as the counter's version. */
static int put_header(dl_sqlbuild *b) {
  uint8_t h[100];
  if (pread(b->fd, h, sizeof h, 0) != (ssize_t)sizeof h) return DL_EIO;
  uint32_t counter = get32(h + 24) + 1;
  put32(h + 24, counter);
  put32(h + 28, b->next_pg - 1);
  put32(h + 92, counter);
  return pwrite(b->fd, h, sizeof h, 0) == (ssize_t)sizeof h ? DL_OK : DL_EIO;
}

int dl_sqlbuild_close(dl_sqlbuild **pb, int keep) {
  dl_sqlbuild *b = pb ? *pb : NULL;
  if (!b) return DL_OK;
  *pb = NULL;
  int rc = DL_OK;
  if (keep && !b->failed && b->rows) {
    rc = finish_level(b, 0);
    if (rc == DL_OK) rc = put_header(b);
  } else if (keep && b->failed) {
    rc = DL_EINVAL;
  }
  if (rc && b->root_written && /* the empty root back: the header still counts the old pages */
      pwrite(b->fd, b->root_before, b->page_size, (off_t)(b->root - 1) * b->page_size) !=
          (ssize_t)b->page_size)
    rc = DL_EIO;
  if ((rc || !keep || !b->rows) && b->first_new && b->fd >= 0 &&
      ftruncate(b->fd, (off_t)(b->first_new - 1) * b->page_size) != 0 && rc == DL_OK)
    rc = DL_EIO;
  if (b->fd >= 0) close(b->fd);
  if (sqlite3_exec(b->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK && rc == DL_OK) rc = DL_EIO;
  for (int i = 0; i < MAX_LEVELS; i++) {
    free(b->lv[i].page);
    free(b->lv[i].held);
    free(b->lv[i].pending.b);
  }
  free(b->rec);
  free(b->cell.b);
  free(b->wbuf);
  free(b->ovf);
  free(b->root_before);
  free(b);
  return rc;
}
