/*
 * dldb_rawmem.c - raw rows kept in memory for the scans (dldb_rawmem.h).
 */
#include "dldb_rawmem.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t id, name_id, start_ns, end_ns, pid, tid, domain_id;
  int32_t kind;
} rm_range;

typedef struct {
  int64_t id, short_name_id, long_name_id, gpu_start_ns, gpu_end_ns, correlation_id, pid;
  int32_t device_id, grid[3], block[3];
} rm_kernel;

/* Rows in blocks of BLOCK_ROWS: no copies as a table grows, and no more
 * memory than its rows' blocks. */
#define BLOCK_ROWS 65536

typedef struct {
  char **block;
  size_t n, nblock, cap; /* rows; blocks; room in the array of blocks */
  int64_t first;         /* the first row's id; the others follow one apart */
  int bad;               /* a row came out of order: the table is left to SQLite */
} rm_table;

struct dldb__rawmem {
  size_t budget, used; /* bytes of rows allocated */
  int full;            /* over the budget, or read: nothing is kept */
  rm_table t[DLDB__RAW_COUNT];
};

static const size_t row_size[DLDB__RAW_COUNT] = {sizeof(rm_range), sizeof(dldb_scan_api),
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

/* Room for one more row of table t with id id (an API call: 0, the next
 * one), or NULL: the row is not kept, nor the table's others. */
static void *slot(dldb__rawmem *m, int t, int64_t id) {
  if (!m || m->full) return NULL;
  rm_table *b = &m->t[t];
  if (b->bad) return NULL;
  if (b->n && id && id != b->first + (int64_t)b->n) {
    table_free(m, t);
    b->bad = 1;
    return NULL;
  }
  if (b->n == b->nblock * BLOCK_ROWS) {
    size_t more = BLOCK_ROWS * row_size[t];
    char *blk = m->used + more <= m->budget ? malloc(more) : NULL;
    if (blk && b->nblock == b->cap) {
      size_t cap = b->cap ? b->cap * 2 : 16;
      char **p = realloc(b->block, cap * sizeof *p);
      if (p) b->block = p, b->cap = cap;
    }
    if (!blk || b->nblock == b->cap) {
      free(blk);
      dldb__rawmem_drop(m);
      return NULL;
    }
    b->block[b->nblock++] = blk;
    m->used += more;
  }
  if (!b->n) b->first = id ? id : 1; /* a new file's table gives ids from 1 */
  return row_at(m, t, b->n++);
}

void dldb__rawmem_range(dldb__rawmem *m, int64_t domain_id, const dldb_scan_range *r) {
  rm_range *x = slot(m, DLDB__RAW_RANGES, r->id);
  if (x)
    *x = (rm_range){r->id, r->name_id, r->start_ns, r->end_ns, r->pid, r->tid, domain_id, r->kind};
}

void dldb__rawmem_api(dldb__rawmem *m, const dldb_scan_api *a) {
  dldb_scan_api *x = slot(m, DLDB__RAW_API, 0);
  if (!x) return;
  *x = *a;
  x->id = m->t[DLDB__RAW_API].first + (int64_t)m->t[DLDB__RAW_API].n - 1;
}

void dldb__rawmem_kernel(dldb__rawmem *m, const dldb_scan_gpu_op *k) {
  rm_kernel *x = slot(m, DLDB__RAW_KERNELS, k->id);
  if (!x) return;
  *x = (rm_kernel){.id = k->id,
                   .short_name_id = k->short_name_id,
                   .long_name_id = k->long_name_id,
                   .gpu_start_ns = k->gpu_start_ns,
                   .gpu_end_ns = k->gpu_end_ns,
                   .correlation_id = k->correlation_id,
                   .pid = k->pid,
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
    dldb_scan_api *a = row_at(m, DLDB__RAW_API, i);
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
    if (x->domain_id != domain_id || (x->kind != 1 && x->kind != 2)) continue;
    dldb_scan_range r = {x->id, x->name_id, x->start_ns, x->end_ns, x->pid, x->tid, x->kind, 0};
    int rc = fn(ctx, &r);
    if (rc) return rc;
  }
  return 0;
}

int dldb__rawmem_apis(const dldb__rawmem *m, int (*fn)(void *ctx, const dldb_scan_api *a),
                      void *ctx) {
  for (size_t i = 0; i < m->t[DLDB__RAW_API].n; i++) {
    int rc = fn(ctx, row_at(m, DLDB__RAW_API, i));
    if (rc) return rc;
  }
  return 0;
}

int dldb__rawmem_kernels(const dldb__rawmem *m, int (*fn)(void *ctx, const dldb_scan_gpu_op *g),
                         void *ctx) {
  for (size_t i = 0; i < m->t[DLDB__RAW_KERNELS].n; i++) {
    const rm_kernel *x = row_at(m, DLDB__RAW_KERNELS, i);
    dldb_scan_gpu_op g = {.kind = 0,
                          .id = x->id,
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
