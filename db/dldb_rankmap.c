/* dldb_rankmap.c - the heatmap's cells (dldb_rankmap.h). */
#include "dldb_rankmap.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dldb_read.h"

/* The ranked GPUs, ascending (the index aggr_dl_ranks_device). */
static const char devs_sql[] =
    "SELECT DISTINCT device_id FROM aggr_dl_ranks WHERE aggr_id = ?1 ORDER BY device_id";
/* aggr_dl_iter_gpu's primary key (aggr_id, iter_value, device_id) gives the
 * order; each row's GPU is looked up among the ranked ones in memory (a
 * lookup in aggr_dl_ranks per row costs more than the scan itself). */
static const char cells_sql[] =
    "SELECT iter_value, device_id, duration_ns, exposed_comm_ns FROM aggr_dl_iter_gpu "
    "WHERE aggr_id = ?1 ORDER BY iter_value, device_id";

/* The ranked GPUs of aggr_id into *ids (malloc'd, ascending), *n of them. */
static int ranked_devices(dldb *db, int64_t aggr_id, int64_t **ids, size_t *n, char *err,
                          size_t errlen) {
  *ids = NULL;
  *n = 0;
  sqlite3_stmt *st = dldb__stmt_get(db, devs_sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, aggr_id);
  size_t cap = 0;
  int s, rc = DL_OK;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    if (*n == cap) {
      cap = cap ? 2 * cap : 256;
      int64_t *p = realloc(*ids, cap * sizeof *p);
      if (!p) {
        rc = dl_err(err, errlen, DL_ENOMEM, "rank heatmap: out of memory");
        break;
      }
      *ids = p;
    }
    (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sql_err(db, s, "rank heatmap", err, errlen);
  dldb__stmt_done(st);
  if (rc) {
    free(*ids);
    *ids = NULL;
    *n = 0;
  }
  return rc;
}

/* The index of device among the n ascending ids, or -1; next: where it
 * likely is (the rows of an iteration come by device). */
static ptrdiff_t device_index(const int64_t *ids, size_t n, int64_t device, size_t next) {
  if (next < n && ids[next] == device) return (ptrdiff_t)next;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid] < device) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && ids[lo] == device ? (ptrdiff_t)lo : -1;
}

/* Calls fn(ctx, cell, its device's index) for every ranked cell of aggr_id,
 * by iteration then device. */
static int each_cell(dldb *db, int64_t aggr_id, const int64_t *ids, size_t n,
                     int (*fn)(void *ctx, const dldb_rank_cell *c, size_t dev), void *ctx,
                     char *err, size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, cells_sql, err, errlen);
  if (!st) return DL_EIO;
  sqlite3_bind_int64(st, 1, aggr_id);
  int s, rc = DL_OK;
  size_t next = 0;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    dldb_rank_cell c = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                        sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)};
    ptrdiff_t d = device_index(ids, n, c.device_id, next);
    if (d < 0) continue;
    next = (size_t)d + 1;
    if ((rc = fn(ctx, &c, (size_t)d)) != 0) break;
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = dldb__sql_err(db, s, "rank heatmap", err, errlen);
  dldb__stmt_done(st);
  return rc;
}

typedef struct cell_fn {
  int (*fn)(void *ctx, const dldb_rank_cell *c);
  void *ctx;
} cell_fn;

static int pass_cell(void *ctx, const dldb_rank_cell *c, size_t dev) {
  (void)dev;
  const cell_fn *f = ctx;
  return f->fn(f->ctx, c);
}

int dldb_rank_heatmap(dldb *db, int64_t aggr_id, int (*fn)(void *ctx, const dldb_rank_cell *c),
                      void *ctx, char *err, size_t errlen) {
  if (!dldb_has_view(db, "view_dl_rank_iterations"))
    return dl_err(err, errlen, DL_ENOTFOUND, "no ranks in this database");
  int64_t *ids;
  size_t n;
  int rc = ranked_devices(db, aggr_id, &ids, &n, err, errlen);
  if (rc) return rc;
  cell_fn f = {fn, ctx};
  rc = each_cell(db, aggr_id, ids, n, pass_cell, &f, err, errlen);
  free(ids);
  return rc;
}

/* The grid's cells as read, before the iterations are known. */
typedef struct grid_cell {
  size_t dev, iter;
  int64_t duration_ns, exposed_comm_ns;
} grid_cell;

typedef struct grid_read {
  dldb_rank_grid *g;
  grid_cell *cells;
  size_t n, cap, iter_cap;
  char *err;
  size_t errlen;
} grid_read;


/* Keeps a cell; iterations come ascending, so a new value is the last. */
static int keep_cell(void *ctx, const dldb_rank_cell *c, size_t dev) {
  grid_read *r = ctx;
  dldb_rank_grid *g = r->g;
  if (!g->iters || g->iter_values[g->iters - 1] != c->iter_value) {
    if (dl_grow((void **)&g->iter_values, &r->iter_cap, g->iters + 1, sizeof *g->iter_values))
      return dl_err(r->err, r->errlen, DL_ENOMEM, "rank heatmap: out of memory");
    g->iter_values[g->iters++] = c->iter_value;
  }
  if (dl_grow((void **)&r->cells, &r->cap, r->n + 1, sizeof *r->cells))
    return dl_err(r->err, r->errlen, DL_ENOMEM, "rank heatmap: out of memory");
  r->cells[r->n++] = (grid_cell){dev, g->iters - 1, c->duration_ns, c->exposed_comm_ns};
  return 0;
}

/* The grid's arrays of devs x iters cells, filled from the cells read. */
static int fill_grid(grid_read *r) {
  dldb_rank_grid *g = r->g;
  size_t cells = g->devs * g->iters;
  if (g->iters && cells / g->iters != g->devs)
    return dl_err(r->err, r->errlen, DL_ENOMEM, "rank heatmap: too many cells");
  g->duration_ns = calloc(cells ? cells : 1, sizeof *g->duration_ns);
  g->exposed_comm_ns = calloc(cells ? cells : 1, sizeof *g->exposed_comm_ns);
  g->has = calloc(cells ? cells : 1, 1);
  if (!g->duration_ns || !g->exposed_comm_ns || !g->has)
    return dl_err(r->err, r->errlen, DL_ENOMEM, "rank heatmap: out of memory");
  for (size_t i = 0; i < r->n; i++) {
    const grid_cell *c = &r->cells[i];
    size_t k = c->dev * g->iters + c->iter;
    g->duration_ns[k] = c->duration_ns;
    g->exposed_comm_ns[k] = c->exposed_comm_ns;
    g->has[k] = 1;
  }
  return DL_OK;
}

int dldb_rank_heatmap_grid(dldb *db, int64_t aggr_id, dldb_rank_grid *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  if (!dldb_has_view(db, "view_dl_rank_iterations"))
    return dl_err(err, errlen, DL_ENOTFOUND, "no ranks in this database");
  int rc = ranked_devices(db, aggr_id, &g->device_ids, &g->devs, err, errlen);
  grid_read r = {.g = g, .err = err, .errlen = errlen};
  if (!rc) rc = each_cell(db, aggr_id, g->device_ids, g->devs, keep_cell, &r, err, errlen);
  if (!rc) rc = fill_grid(&r);
  free(r.cells);
  if (rc) dldb_rank_grid_free(g);
  return rc;
}

void dldb_rank_grid_free(dldb_rank_grid *g) {
  free(g->device_ids);
  free(g->iter_values);
  free(g->duration_ns);
  free(g->exposed_comm_ns);
  free(g->has);
  memset(g, 0, sizeof *g);
}
