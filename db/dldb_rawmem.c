/*
 * dldb_rawmem.c - raw rows kept in memory for the scans (dldb_rawmem.h).
 */
#include "dldb_rawmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The rows, compact: a row's id is the table's first plus its place, and
 * the ids of strings, pids, domains and kinds take 4 bytes or less. A
 * value that does not fit leaves its table to SQLite (fits_u32, fits_i32
 * below). */
typedef struct __attribute__((packed, aligned(4))) { /* 36 bytes */
  int64_t start_ns, end_ns, tid;
  uint32_t name_id;
  int32_t pid;
  uint32_t domain_kind; /* domain_id << 3 | kind */
} rm_range;

typedef struct __attribute__((packed, aligned(4))) { /* 40 bytes */
  int64_t start_ns, end_ns, tid, correlation_id;
  uint32_t name_id;
  int32_t pid;
} rm_api;

typedef struct __attribute__((packed, aligned(4))) { /* 64 bytes */
  int64_t gpu_start_ns, gpu_end_ns, correlation_id;
  uint32_t short_name_id, long_name_id;
  int32_t pid, device_id, grid[3], block[3];
} rm_kernel;

_Static_assert(sizeof(rm_range) == 36 && sizeof(rm_api) == 40 && sizeof(rm_kernel) == 64,
               "rawmem rows: 36, 40 and 64 bytes");

enum { KIND_BITS = 3 };

/* Rows in blocks of BLOCK_ROWS: no copies as a table grows, and no more
 * memory than its rows' blocks. */
#define BLOCK_ROWS 65536

typedef struct {
  char **block;
  size_t n, nblock, cap; /* rows; blocks; room in the array of blocks */
  int64_t first;         /* the first row's id; the others follow one apart */
  int bad;               /* a row came out of order, did not fit, or the budget
                            went to the other tables: the table is left to SQLite */
} rm_table;

struct dldb__rawmem {
  size_t budget, used; /* bytes of rows allocated */
  int full;            /* read: nothing is kept */
  rm_table t[DLDB__RAW_COUNT];
};

static const size_t row_size[DLDB__RAW_COUNT] = {sizeof(rm_range), sizeof(rm_api),
                                                 sizeof(rm_kernel)};

/* Row i of table t. */
static void *row_at(const dldb__rawmem *m, int t, size_t i) {
  return m->t[t].block[i / BLOCK_ROWS] + i % BLOCK_ROWS * row_size[t];
}

dldb__rawmem *dldb__rawmem_new(size_t budget) {
  dldb__rawmem *m = calloc(1, sizeof *m);
  if (m) m->budget = budget;
  return m;
}

static void table_free(dldb__rawmem *m, int t) {
  rm_table *b = &m->t[t];
  for (size_t i = 0; i < b->nblock; i++) free(b->block[i]);
  free(b->block);
  m->used -= b->nblock * BLOCK_ROWS * row_size[t];
  b->block = NULL;
  b->n = b->nblock = b->cap = 0;
}

/* Table t is left to SQLite from here on. */
static void table_leave(dldb__rawmem *m, int t) {
  table_free(m, t);
  m->t[t].bad = 1;
}

void dldb__rawmem_drop(dldb__rawmem *m) {
  if (!m) return;
  for (int t = 0; t < DLDB__RAW_COUNT; t++) table_free(m, t);
  m->full = 1;
}

void dldb__rawmem_free(dldb__rawmem **m) {
  if (!m || !*m) return;
  dldb__rawmem_drop(*m);
  free(*m);
  *m = NULL;
}

/* The largest table kept (the most bytes), or -1 when none is. */
static int largest(const dldb__rawmem *m) {
  int most = -1;
  for (int t = 0; t < DLDB__RAW_COUNT; t++)
    if (m->t[t].nblock && (most < 0 || m->t[t].nblock * row_size[t] >
                                           m->t[most].nblock * row_size[most]))
      most = t;
  return most;
}

/* Room for one more row of table t with id id (an API call: 0, the next
 * one), or NULL: the row is not kept, nor the table's others. Past the
 * budget the largest table is left to SQLite, so that the smaller ones
 * stay whole. */
static void *slot(dldb__rawmem *m, int t, int64_t id) {
  if (!m || m->full) return NULL;
  rm_table *b = &m->t[t];
  if (b->bad) return NULL;
  if (b->n && id && id != b->first + (int64_t)b->n) {
    table_leave(m, t);
    return NULL;
  }
  if (b->n == b->nblock * BLOCK_ROWS) {
    size_t more = BLOCK_ROWS * row_size[t];
    while (m->used + more > m->budget && !b->bad) {
      int big = largest(m);
      table_leave(m, big < 0 ? t : big);
    }
    char *blk = b->bad ? NULL : malloc(more);
    if (blk && b->nblock == b->cap) {
      size_t cap = b->cap ? b->cap * 2 : 16;
      char **p = realloc(b->block, cap * sizeof *p);
      if (p) b->block = p, b->cap = cap;
    }
    if (!blk || b->nblock == b->cap) {
      free(blk);
      table_leave(m, t);
      return NULL;
    }
    b->block[b->nblock++] = blk;
    m->used += more;
  }
  if (!b->n) b->first = id ? id : 1; /* a new file's table gives ids from 1 */
  return row_at(m, t, b->n++);
}

/* Whether v fits 32 bits (signed or unsigned). */
static int fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }
static int fits_u32(int64_t v) { return v >= 0 && v <= (int64_t)UINT32_MAX; }

void dldb__rawmem_range(dldb__rawmem *m, int64_t domain_id, const dldb_scan_range *r) {
  rm_range *x = slot(m, DLDB__RAW_RANGES, r->id);
  if (!x) return;
  if (!fits_u32(r->name_id) || !fits_i32(r->pid) || domain_id < 0 ||
      domain_id > (int64_t)(UINT32_MAX >> KIND_BITS) || r->kind < 0 || r->kind >> KIND_BITS) {
    table_leave(m, DLDB__RAW_RANGES);
    return;
  }
  *x = (rm_range){.start_ns = r->start_ns, .end_ns = r->end_ns, .tid = r->tid,
                  .name_id = (uint32_t)r->name_id, .pid = (int32_t)r->pid,
                  .domain_kind = (uint32_t)domain_id << KIND_BITS | (uint32_t)r->kind};
}

void dldb__rawmem_api(dldb__rawmem *m, const dldb_scan_api *a) {
  rm_api *x = slot(m, DLDB__RAW_API, 0);
  if (!x) return;
  if (!fits_u32(a->name_id) || !fits_i32(a->pid)) {
    table_leave(m, DLDB__RAW_API);
    return;
  }
  *x = (rm_api){.start_ns = a->start_ns, .end_ns = a->end_ns, .tid = a->tid,
                .correlation_id = a->correlation_id, .name_id = (uint32_t)a->name_id,
                .pid = (int32_t)a->pid};
}

void dldb__rawmem_kernel(dldb__rawmem *m, const dldb_scan_gpu_op *k) {
  rm_kernel *x = slot(m, DLDB__RAW_KERNELS, k->id);
  if (!x) return;
  if (!fits_u32(k->short_name_id) || !fits_u32(k->long_name_id) || !fits_i32(k->pid)) {
    table_leave(m, DLDB__RAW_KERNELS);
    return;
  }
  *x = (rm_kernel){.gpu_start_ns = k->gpu_start_ns,
                   .gpu_end_ns = k->gpu_end_ns,
                   .correlation_id = k->correlation_id,
                   .short_name_id = (uint32_t)k->short_name_id,
                   .long_name_id = (uint32_t)k->long_name_id,
                   .pid = (int32_t)k->pid,
                   .device_id = k->device_id};
  memcpy(x->grid, k->grid, sizeof x->grid);
  memcpy(x->block, k->block, sizeof x->block);
}

void dldb__rawmem_shift(dldb__rawmem *m, int64_t d) {
  if (!m) return;
  for (size_t i = 0; i < m->t[DLDB__RAW_RANGES].n; i++) {
    rm_range *r = row_at(m, DLDB__RAW_RANGES, i);
    r->start_ns += d;
    r->end_ns += d;
  }
  for (size_t i = 0; i < m->t[DLDB__RAW_API].n; i++) {
    rm_api *a = row_at(m, DLDB__RAW_API, i);
    a->start_ns += d;
    a->end_ns += d;
  }
  for (size_t i = 0; i < m->t[DLDB__RAW_KERNELS].n; i++) {
    rm_kernel *k = row_at(m, DLDB__RAW_KERNELS, i);
    k->gpu_start_ns += d;
    k->gpu_end_ns += d;
  }
}

size_t dldb__rawmem_rows(const dldb__rawmem *m, int t, int64_t *first, int64_t *last) {
  if (!m || m->full || m->t[t].bad || !m->t[t].n) return 0;
  *first = m->t[t].first;
  *last = m->t[t].first + (int64_t)m->t[t].n - 1;
  return m->t[t].n;
}

int dldb__rawmem_ranges(const dldb__rawmem *m, int64_t domain_id,
                        int (*fn)(void *ctx, const dldb_scan_range *r), void *ctx) {
  for (size_t i = 0; i < m->t[DLDB__RAW_RANGES].n; i++) {
    const rm_range *x = row_at(m, DLDB__RAW_RANGES, i);
    int kind = (int)(x->domain_kind & ((1u << KIND_BITS) - 1));
    if ((int64_t)(x->domain_kind >> KIND_BITS) != domain_id || (kind != 1 && kind != 2)) continue;
    dldb_scan_range r = {m->t[DLDB__RAW_RANGES].first + (int64_t)i, x->name_id, x->start_ns,
                         x->end_ns, x->pid, x->tid, kind, 0};
    int rc = fn(ctx, &r);
    if (rc) return rc;
  }
  return 0;
}

int dldb__rawmem_apis(const dldb__rawmem *m, int (*fn)(void *ctx, const dldb_scan_api *a),
                      void *ctx) {
  for (size_t i = 0; i < m->t[DLDB__RAW_API].n; i++) {
    const rm_api *x = row_at(m, DLDB__RAW_API, i);
    dldb_scan_api a = {m->t[DLDB__RAW_API].first + (int64_t)i, x->name_id, x->start_ns,
                       x->end_ns, x->pid, x->tid, x->correlation_id};
    int rc = fn(ctx, &a);
    if (rc) return rc;
  }
  return 0;
}

int dldb__rawmem_kernels(const dldb__rawmem *m, int (*fn)(void *ctx, const dldb_scan_gpu_op *g),
                         void *ctx) {
  for (size_t i = 0; i < m->t[DLDB__RAW_KERNELS].n; i++) {
    const rm_kernel *x = row_at(m, DLDB__RAW_KERNELS, i);
    dldb_scan_gpu_op g = {.kind = 0,
                          .id = m->t[DLDB__RAW_KERNELS].first + (int64_t)i,
                          .short_name_id = x->short_name_id,
                          .long_name_id = x->long_name_id,
                          .gpu_start_ns = x->gpu_start_ns,
                          .gpu_end_ns = x->gpu_end_ns,
                          .correlation_id = x->correlation_id,
                          .pid = x->pid,
                          .device_id = x->device_id};
    memcpy(g.grid, x->grid, sizeof g.grid);
    memcpy(g.block, x->block, sizeof g.block);
    int rc = fn(ctx, &g);
    if (rc) return rc;
  }
  return 0;
}
