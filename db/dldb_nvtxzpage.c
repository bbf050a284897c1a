/* dldb_nvtxzpage.c - a page sorted by a numeric column through its zone
 * maps (see dldb_nvtxzpage.h). A block's bound for the sort (its greatest
 * value descending, its least ascending) bounds every row in it, so once
 * the heap is full and the next block's bound cannot beat the worst row
 * kept (equal bounds: its first row comes after that row), no row left
 * can: the blocks, in order of bound and then of row_idx, stop there. */
#include "dldb_nvtxzpage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct zones {
  int64_t block_rows, nblocks;
  double *lo, *hi; /* by block */
} zones;

typedef struct cand {
  long double bound;
  int64_t block;
} cand;

static int has_zones(dldb *db) {
  sqlite3_stmt *st = dldb__stmt_get(
      db, "SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = 'view_dl_nvtx_zones'", NULL,
      0);
  if (!st) return 0;
  int found = sqlite3_step(st) == SQLITE_ROW;
  dldb__stmt_done(st);
  return found;
}

static int unpack(const uint8_t *b, int64_t n, double *out) {
  for (int64_t i = 0; i < n; i++) {
    uint64_t u = 0;
    for (int j = 0; j < 8; j++) u |= (uint64_t)b[8 * i + j] << (8 * j);
    memcpy(&out[i], &u, sizeof u);
    if (isnan(out[i])) return 0;
  }
  return 1;
}

/* z's zones into zs: 1, 0 when there are none (or they do not cover the
 * rows), or a negative DL_E*. */
static int load(dldb *db, const dldb__zpage *z, zones *zs, char *err, size_t errlen) {
  memset(zs, 0, sizeof *zs);
  if (!has_zones(db)) return 0;
  sqlite3_stmt *st = dldb__stmt_get(db, "SELECT block_rows, lo, hi FROM view_dl_nvtx_zones "
                                        "WHERE aggr_id = ?1 AND kind = ?2 AND col = ?3",
                                    err, errlen);
  if (!st) return DL_EDB;
  sqlite3_bind_int64(st, 1, z->aggr_id);
  sqlite3_bind_int(st, 2, z->kind);
  sqlite3_bind_text(st, 3, z->col, -1, SQLITE_STATIC);
  int src = sqlite3_step(st), rc = 0;
  if (src == SQLITE_ROW) {
    int64_t br = sqlite3_column_int64(st, 0);
    int64_t nb = br > 0 ? (z->n + br - 1) / br : -1;
    const uint8_t *lo = sqlite3_column_blob(st, 1), *hi = sqlite3_column_blob(st, 2);
    if (nb > 0 && lo && hi && sqlite3_column_bytes(st, 1) == 8 * nb &&
        sqlite3_column_bytes(st, 2) == 8 * nb) {
      zs->lo = malloc((size_t)nb * sizeof *zs->lo);
      zs->hi = malloc((size_t)nb * sizeof *zs->hi);
      if (!zs->lo || !zs->hi) rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
      else rc = unpack(lo, nb, zs->lo) && unpack(hi, nb, zs->hi);
      zs->block_rows = br;
      zs->nblocks = nb;
    }
  } else if (src != SQLITE_DONE) {
    rc = dldb__sql_err(db, src, "view_dl_nvtx_zones", err, errlen);
  }
  dldb__stmt_done(st);
  return rc;
}

static int kept_any(const uint64_t *keep, int64_t s, int64_t e) {
  if (!keep) return 1;
  for (int64_t r = s; r < e; r++) {
    if (r % 64 == 0 && e - r >= 64) {
      if (keep[r / 64]) return 1;
      r += 63;
    } else if (keep[r / 64] >> (r % 64) & 1) {
      return 1;
    }
  }
  return 0;
}

static int cmp_desc(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->bound != y->bound) return x->bound < y->bound ? 1 : -1;
  return (x->block > y->block) - (x->block < y->block);
}

static int cmp_asc(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->bound != y->bound) return x->bound > y->bound ? 1 : -1;
  return (x->block > y->block) - (x->block < y->block);
}

/* Reads block b's rows into t: 1, 0 when a row breaks the block's bounds
 * (or one is missing or NULL), or a negative DL_E*. */
static int read_block(dldb *db, const dldb__zpage *z, const zones *zs, int64_t b, dldb__top *t,
                      char *err, size_t errlen) {
  char sql[320];
  snprintf(sql, sizeof sql,
           "SELECT row_idx, \"%s\" FROM %s WHERE aggr_id = ?1 AND row_idx >= ?2 AND row_idx < ?3 "
           "ORDER BY row_idx",
           z->col, z->view);
  sqlite3_stmt *st = dldb__stmt_get(db, sql, err, errlen);
  if (!st) return DL_EDB;
  int64_t s = b * zs->block_rows, e = s + zs->block_rows < z->n ? s + zs->block_rows : z->n;
  sqlite3_bind_int64(st, 1, z->aggr_id);
  sqlite3_bind_int64(st, 2, s);
  sqlite3_bind_int64(st, 3, e);
  long double lo = zs->lo[b], hi = zs->hi[b];
  int64_t at = s;
  int src, rc = 1;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    int type = sqlite3_column_type(st, 1);
    long double x = type == SQLITE_INTEGER ? (long double)sqlite3_column_int64(st, 1)
                                           : (long double)sqlite3_column_double(st, 1);
    if (sqlite3_column_int64(st, 0) != at || (type != SQLITE_INTEGER && type != SQLITE_FLOAT) ||
        !(x >= lo && x <= hi)) {
      rc = 0;
      break;
    }
    if (!z->keep || (z->keep[at / 64] >> (at % 64) & 1)) dldb__top_add(t, (dldb__trow){x, at});
    at++;
  }
  if (rc == 1 && src != SQLITE_DONE) rc = dldb__sql_err(db, src, z->view, err, errlen);
  else if (rc == 1 && at != e) rc = 0;
  dldb__stmt_done(st);
  return rc;
}

int dldb__nvtx_zpage(dldb *db, const dldb__zpage *z, dldb__top *t, char *err, size_t errlen) {
  zones zs;
  int rc = load(db, z, &zs, err, errlen);
  cand *c = rc == 1 ? malloc((size_t)zs.nblocks * sizeof *c) : NULL;
  if (rc == 1 && !c) rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", db->path);
  int64_t nc = 0;
  for (int64_t b = 0; c && b < zs.nblocks; b++) /* blocks with a row the filter keeps */
    if (kept_any(z->keep, b * zs.block_rows,
                 (b + 1) * zs.block_rows < z->n ? (b + 1) * zs.block_rows : z->n))
      c[nc++] = (cand){t->desc ? zs.hi[b] : zs.lo[b], b};
  if (c) qsort(c, (size_t)nc, sizeof *c, t->desc ? cmp_desc : cmp_asc);
  for (int64_t i = 0; rc == 1 && i < nc; i++) {
    if (dldb__top_beaten(t, c[i].bound, c[i].block * zs.block_rows)) break;
    rc = read_block(db, z, &zs, c[i].block, t, err, errlen);
  }
  if (rc == 1) dldb__top_sort(t);
  free(c);
  free(zs.lo);
  free(zs.hi);
  return rc;
}
