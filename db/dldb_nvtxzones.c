/* dldb_nvtxzones.c - zone maps of the NVTX statistics rows (see
 * dldb_nvtxzones.h). The bounds are the view's values as doubles, computed
 * as SQLite computes them (IEEE double arithmetic); a row with an integer
 * beyond 2^53 widens its bounds by at least a step each way. The reader
 * checks every row it reads against its block, so a bound that is off
 * reads the plain way. */
#include "dldb_nvtxzones.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns of each kind, in the order values() fills them. */
static const char *const cols6[] = {"instances", "avg", "med", "min", "max", "stddev"};
static const char *const cols7[] = {"total_range_time", "range_instances", "proj_avg",
                                    "proj_med", "proj_min", "proj_max", "proj_stddev",
                                    "total_gpu_ops", "avg_gpu_ops", "avg_range_level",
                                    "avg_num_child"};
static const char *const *const cols[2] = {cols6, cols7};
static const int ncols[2] = {sizeof cols6 / sizeof *cols6, sizeof cols7 / sizeof *cols7};
enum { NCOLS = sizeof cols7 / sizeof *cols7 };

static double real_or(double v, double dflt) { return isnan(v) ? dflt : v; }

/* An integer as a double; *inexact where it is beyond 2^53 (rounded). */
static double int_d(int64_t i, int *inexact) {
  if (i <= -(INT64_C(1) << 53) || i >= INT64_C(1) << 53) *inexact = 1;
  return (double)i;
}

/* Row x's values in its kind's view, as the view computes them (db/schema.sql:
 * avg and the projection's per-instance figures are REAL / INTEGER, med,
 * min, max and stddev of one instance the total, the total and 0); *inexact
 * when an integer did not fit a double. */
static void values(const dldb_stats_row *x, int kk, double *v, int *inexact) {
  const dldb_stat *t = &x->t;
  int one = t->n == 1;
  double n = int_d(t->n, inexact), total = int_d(t->total, inexact);
  int i = 0;
  if (kk) v[i++] = int_d(x->range_time, inexact);
  v[i++] = n;
  v[i++] = total / n;
  v[i++] = one ? total : real_or(t->med, total);
  v[i++] = one ? total : int_d(t->min, inexact);
  v[i++] = one ? total : int_d(t->max, inexact);
  v[i++] = one ? 0.0 : real_or(t->stddev, 0.0);
  if (!kk) return;
  v[i++] = int_d(x->gpu_ops, inexact);
  v[i++] = int_d(x->gpu_ops, inexact) / n;
  v[i++] = int_d(x->level_sum, inexact) / n;
  v[i] = int_d(x->child_sum, inexact) / n;
}

/* A kind's blocks: lo and hi of column j of block b at [b * NCOLS + j]
 * (the kind's ncols first). */
typedef struct kindzones {
  double *lo, *hi;
  int64_t nblocks, cap, rows;
} kindzones;

struct dldb__zones {
  int block_rows;
  int broken;     /* out of memory: no zones for this aggregation */
  kindzones k[2];
};

static void kind_free(kindzones *k) {
  free(k->lo);
  free(k->hi);
  memset(k, 0, sizeof *k);
}

void dldb__zones_free(struct dldb__zones **z) {
  if (!*z) return;
  kind_free(&(*z)->k[0]);
  kind_free(&(*z)->k[1]);
  free(*z);
  *z = NULL;
}

static dldb__zones *zones_of(dldb_writer *w) {
  if (!w->nvtx_zones && (w->nvtx_zones = calloc(1, sizeof *w->nvtx_zones)))
    w->nvtx_zones->block_rows = DLDB__ZONE_ROWS;
  return w->nvtx_zones;
}

int dldb__zones_block_rows(dldb_writer *w, int rows) {
  dldb__zones *z = zones_of(w);
  if (!z) return DL_ENOMEM;
  z->block_rows = rows > 0 ? rows : DLDB__ZONE_ROWS;
  return DL_OK;
}

void dldb__zones_reset(dldb_writer *w) {
  dldb__zones *z = w->nvtx_zones;
  if (!z) return;
  kind_free(&z->k[0]);
  kind_free(&z->k[1]);
  z->broken = 0;
}

/* Room for block b: new blocks hold no value (lo +inf, hi -inf). */
static int reach(kindzones *k, int64_t b) {
  if (b < k->cap) {
    if (b >= k->nblocks) k->nblocks = b + 1;
    return DL_OK;
  }
  int64_t cap = k->cap ? k->cap : 64;
  while (cap <= b) cap *= 2;
  double *lo = realloc(k->lo, (size_t)cap * NCOLS * sizeof *lo);
  if (lo) k->lo = lo;
  double *hi = lo ? realloc(k->hi, (size_t)cap * NCOLS * sizeof *hi) : NULL;
  if (!hi) return DL_ENOMEM;
  k->hi = hi;
  for (int64_t i = k->cap * NCOLS; i < cap * NCOLS; i++) {
    k->lo[i] = INFINITY;
    k->hi[i] = -INFINITY;
  }
  k->cap = cap;
  k->nblocks = b + 1;
  return DL_OK;
}

void dldb__zones_add(dldb_writer *w, const dldb_stats_row *x) {
  dldb__zones *z = zones_of(w);
  int kk = x->kind == DLDB_STATS_NVTX_GPU_PROJ;
  if (!z) return; /* dldb__zones_put then finds fewer rows than written */
  if (z->broken || x->row_idx < 0 || x->t.n < 1) {
    z->broken = 1;
    return;
  }
  kindzones *k = &z->k[kk];
  int64_t b = x->row_idx / z->block_rows;
  if (reach(k, b)) {
    z->broken = 1;
    return;
  }
  k->rows++;
  double v[NCOLS];
  int inexact = 0;
  values(x, kk, v, &inexact);
  double *lo = &k->lo[b * NCOLS], *hi = &k->hi[b * NCOLS];
  if (inexact) { /* a value from an integer beyond 2^53: a step or two outwards */
    for (int j = 0; j < ncols[kk]; j++) {
      double m = (v[j] < 0 ? -v[j] : v[j]) * 0x1p-52, l = v[j] - m, h = v[j] + m;
      lo[j] = l < lo[j] ? l : lo[j];
      hi[j] = h > hi[j] ? h : hi[j];
    }
    return;
  }
  for (int j = 0; j < NCOLS; j++) { /* unused columns: lo +inf, hi -inf stay */
    double l = j < ncols[kk] ? v[j] : INFINITY, h = j < ncols[kk] ? v[j] : -INFINITY;
    lo[j] = l < lo[j] ? l : lo[j];
    hi[j] = h > hi[j] ? h : hi[j];
  }
}

/* 8-byte little-endian doubles, column j of each block, into out. */
static void pack(const double *v, int64_t nblocks, int j, uint8_t *out) {
  for (int64_t b = 0; b < nblocks; b++) {
    uint64_t u;
    memcpy(&u, &v[b * NCOLS + j], sizeof u);
    for (int i = 0; i < 8; i++) out[8 * b + i] = (uint8_t)(u >> (8 * i));
  }
}

static int put_kind(dldb_writer *w, sqlite3_stmt *st, const dldb__zones *z, int kk,
                    uint8_t *lo, uint8_t *hi, char *err, size_t errlen) {
  const kindzones *k = &z->k[kk];
  int kind = kk ? DLDB_STATS_NVTX_GPU_PROJ : DLDB_STATS_NVTX;
  for (int j = 0; j < ncols[kk]; j++) {
    pack(k->lo, k->nblocks, j, lo);
    pack(k->hi, k->nblocks, j, hi);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, w->aggr_id);
    sqlite3_bind_int(st, 2, kind);
    sqlite3_bind_text(st, 3, cols[kk][j], -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, z->block_rows);
    sqlite3_bind_blob(st, 5, lo, (int)(k->nblocks * 8), SQLITE_STATIC);
    sqlite3_bind_blob(st, 6, hi, (int)(k->nblocks * 8), SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
      return dl_err(err, errlen, DL_EDB, "NVTX zones: %s", dldb__errmsg(w));
  }
  sqlite3_reset(st);
  return DL_OK;
}

int dldb__zones_put(dldb_writer *w, int has_table, char *err, size_t errlen) {
  dldb__zones *z = w->nvtx_zones;
  int rc = DL_OK;
  /* every row seen, each kind's rows numbered 0..n-1 */
  int ok = z && !z->broken && has_table && w->nvtx_layout == DLDB__NVTX_RUNS;
  for (int kk = 0; ok && kk < 2; kk++)
    ok = z->k[kk].rows == w->nvtx_rows[kk] &&
         z->k[kk].nblocks == (w->nvtx_rows[kk] + z->block_rows - 1) / z->block_rows;
  int64_t nb = ok ? (z->k[0].nblocks > z->k[1].nblocks ? z->k[0].nblocks : z->k[1].nblocks) : 0;
  uint8_t *lo = ok ? malloc((size_t)nb * 8 + 1) : NULL;
  uint8_t *hi = lo ? malloc((size_t)nb * 8 + 1) : NULL;
  sqlite3_stmt *st = NULL;
  if (hi && sqlite3_prepare_v2(w->db, "INSERT INTO aggr_nvtx_zones(aggr_id, kind, col, "
                               "block_rows, lo, hi) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st,
                               NULL) != SQLITE_OK)
    rc = dl_err(err, errlen, DL_EDB, "NVTX zones: %s", dldb__errmsg(w));
  for (int kk = 0; st && rc == DL_OK && kk < 2; kk++)
    if (z->k[kk].rows) rc = put_kind(w, st, z, kk, lo, hi, err, errlen);
  sqlite3_finalize(st);
  free(lo);
  free(hi);
  dldb__zones_reset(w);
  return rc;
}
