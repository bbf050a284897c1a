/* dldb_tlgaps.c - a GPU's longest idle gaps (see dldb_tlgaps.h). */
#include "dldb_tlgaps.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dldb_read.h"
#include "dldb_timeline.h"

/* The columns NVIDIA's files have too; the bins come from dldb_timeline_track. */
static const char tracks_sql[] =
    "SELECT track_id, device_id, first_start, last_end "
    "FROM view_dl_timeline_tracks WHERE kind = 'gpu_stream' AND device_id IS NOT NULL "
    "AND event_count > 0 ORDER BY device_id, track_id";

typedef struct gp_track {
  int64_t id, device, first, last, bin_ns;
  int levels;
} gp_track;

/* One device's grid of cells over [lo, lo + n x cell), 1 where busy. */
typedef struct gp_grid {
  int64_t lo, cell, n, wide; /* wide: the largest bin read (ns) */
  unsigned char *busy;
  int64_t g; /* the grid of the bins being read */
  int64_t *part; /* bins longer than a cell and partly busy: [a, b) pairs to read raw */
  int nparts, cap;
  int oom;
  int exact;      /* 1: read partly busy bins longer than a cell raw */
  int64_t coarse; /* the longest bins read that are longer than a cell (ns), 0: none */
} gp_grid;

static int64_t fdiv(int64_t t, int64_t g) {
  int64_t q = t / g;
  return (t % g != 0 && t < 0) ? q - 1 : q;
}

/* Marks the cells that [a, b) touches (a zero-length event: its cell). */
static void mark(gp_grid *gr, int64_t a, int64_t b) {
  int64_t i = fdiv(a - gr->lo, gr->cell), j = b > a ? fdiv(b - 1 - gr->lo, gr->cell) : i;
  if (i < 0) i = 0;
  if (j >= gr->n) j = gr->n - 1;
  for (; i <= j; i++) gr->busy[i] = 1;
}

/* Notes [a, b) to read raw, joined to the last part when they touch. */
static int add_part(gp_grid *gr, int64_t a, int64_t b) {
  if (gr->nparts && gr->part[2 * gr->nparts - 1] == a) {
    gr->part[2 * gr->nparts - 1] = b;
    return 0;
  }
  if (gr->nparts == gr->cap) {
    int cap = gr->cap ? 2 * gr->cap : 256;
    int64_t *m = realloc(gr->part, (size_t)cap * 2 * sizeof *m);
    if (!m) return gr->oom = 1;
    gr->part = m;
    gr->cap = cap;
  }
  gr->part[2 * gr->nparts] = a;
  gr->part[2 * gr->nparts + 1] = b;
  gr->nparts++;
  return 0;
}

/* A bin no longer than a cell marks its cells; a longer one wholly busy
 * too, and one partly busy in the first pass; in the exact pass that one
 * is read raw (add_part), so that a gap inside it shows. */
static int mark_bin(void *ctx, const dldb_tl_bin_row *b) {
  gp_grid *gr = ctx;
  int64_t a = b->index * gr->g, e = a + gr->g;
  if (b->busy <= 0 && b->count <= 0) return 0;
  if (gr->g <= gr->cell || b->busy >= gr->g || !gr->exact) mark(gr, a, e);
  else return add_part(gr, a, e);
  return 0;
}

static int mark_event(void *ctx, const dldb_tl_event *e) {
  mark(ctx, e->start_ns, e->start_ns + (e->dur_ns > 0 ? e->dur_ns : 0));
  return 0;
}

/* Marks track t's busy cells: from the coarsest level of bins no longer
 * than a cell (the finest when all are), or its events when it has none. */
static int mark_track(dldb *db, gp_grid *gr, const gp_track *t, int64_t hi, char *err,
                      size_t errlen) {
  if (t->levels <= 0 || t->bin_ns <= 0)
    return dldb_timeline_events(db, t->id, gr->lo, hi, mark_event, gr, err, errlen);
  int level = 1;
  int64_t g = t->bin_ns;
  while (level < t->levels && level < 31 && (t->bin_ns << (2 * level)) <= gr->cell) {
    g = t->bin_ns << (2 * level);
    level++;
  }
  gr->g = g;
  if (g > gr->wide) gr->wide = g;
  if (g > gr->cell && g > gr->coarse) gr->coarse = g;
  gr->nparts = 0;
  int rc = dldb_timeline_bins(db, t->id, level, fdiv(gr->lo, g), fdiv(hi - 1, g) + 1, mark_bin,
                              gr, err, errlen);
  if (rc == DL_OK && gr->oom) rc = dl_err(err, errlen, DL_ENOMEM, "out of memory finding idle gaps");
  for (int i = 0; rc == DL_OK && i < gr->nparts; i++)
    rc = dldb_timeline_events(db, t->id, gr->part[2 * i], gr->part[2 * i + 1], mark_event, gr, err,
                              errlen);
  return rc;
}

typedef struct gp_edge {
  int64_t t;
  int found, right; /* right: the first start; else the last end */
} gp_edge;

static int edge_event(void *ctx, const dldb_tl_event *e) {
  gp_edge *x = ctx;
  int64_t v = x->right ? e->start_ns : e->start_ns + (e->dur_ns > 0 ? e->dur_ns : 0);
  if (!x->found || (x->right ? v < x->t : v > x->t)) x->t = v;
  x->found = 1;
  return 0;
}

/* The exact gap around the idle cells [a, b) (ns) of tracks tr[0 .. n). */
static int refine(dldb *db, const gp_track *tr, int n, const gp_grid *gr, int64_t a, int64_t b,
                  dldb_tl_gap *out, char *err, size_t errlen) {
  int64_t w = gr->wide + gr->cell;
  gp_edge l = {.t = a}, r = {.t = b, .right = 1};
  for (int i = 0; i < n; i++) {
    int rc = dldb_timeline_events(db, tr[i].id, a - w, a, edge_event, &l, err, errlen);
    if (rc == DL_OK) rc = dldb_timeline_events(db, tr[i].id, b, b + w, edge_event, &r, err, errlen);
    if (rc) return rc;
  }
  *out = (dldb_tl_gap){tr[0].device, l.t, r.t};
  return DL_OK;
}

static int longer(const void *x, const void *y) {
  const dldb_tl_gap *a = x, *b = y;
  int64_t la = a->end_ns - a->start_ns, lb = b->end_ns - b->start_ns;
  if (la != lb) return la > lb ? -1 : 1;
  return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* Keeps the longest of cand[0 .. *nc) and g in cand (room for cap). */
static void keep(dldb_tl_gap *cand, int *nc, int cap, dldb_tl_gap g) {
  if (*nc < cap) {
    cand[(*nc)++] = g;
    return;
  }
  int w = 0;
  for (int i = 1; i < *nc; i++)
    if (longer(&cand[i], &cand[w]) > 0) w = i;
  if (longer(&g, &cand[w]) < 0) cand[w] = g;
}

/* One pass over the grid: marks the tracks' busy cells, then refines the
 * longest idle runs into found (room for cap, *nf so far). */
static int scan(dldb *db, const gp_track *tr, int n, gp_grid *gr, int64_t hi, int cap,
                dldb_tl_gap *cand, int want, dldb_tl_gap *found, int *nf, char *err,
                size_t errlen) {
  int nc = 0, rc = DL_OK;
  memset(gr->busy, 0, (size_t)gr->n);
  for (int i = 0; rc == DL_OK && i < n; i++) rc = mark_track(db, gr, &tr[i], hi, err, errlen);
  /* the idle runs between the first busy cell and the last, by length in cells */
  for (int64_t i = 0, seen = 0; rc == DL_OK && i < gr->n; i++) {
    if (gr->busy[i]) {
      seen = 1;
      continue;
    }
    int64_t j = i;
    while (j < gr->n && !gr->busy[j]) j++;
    if (seen && j < gr->n)
      keep(cand, &nc, want, (dldb_tl_gap){0, gr->lo + i * gr->cell, gr->lo + j * gr->cell});
    i = j - 1;
  }
  for (int i = 0; rc == DL_OK && i < nc; i++) {
    dldb_tl_gap g;
    rc = refine(db, tr, n, gr, cand[i].start_ns, cand[i].end_ns, &g, err, errlen);
    if (rc == DL_OK && g.end_ns > g.start_ns) keep(found, nf, cap, g);
  }
  return rc;
}

/* The gaps of one device (tracks tr[0 .. n)), up to cap of them, added to
 * the longest kept in out (room for cap, *nout so far). A first pass marks
 * every bin with an event busy; a gap inside bins longer than a cell is
 * shorter than two of them, so when the pass finds cap gaps that long or
 * longer it stands, else a second pass reads such bins raw where they are
 * partly busy. */
static int device_gaps(dldb *db, const gp_track *tr, int n, int cap, dldb_tl_gap *out, int *nout,
                       char *err, size_t errlen) {
  int64_t lo = tr[0].first, hi = tr[0].last;
  for (int i = 1; i < n; i++) {
    if (tr[i].first < lo) lo = tr[i].first;
    if (tr[i].last > hi) hi = tr[i].last;
  }
  if (hi <= lo) return DL_OK;
  gp_grid gr = {.lo = lo, .cell = (hi - lo + DLDB_TL_GAP_CELLS - 1) / DLDB_TL_GAP_CELLS};
  gr.n = (hi - lo + gr.cell - 1) / gr.cell;
  gr.wide = gr.cell;
  int want = 4 * cap + 16, nf = 0, rc = DL_OK;
  dldb_tl_gap *cand = malloc((size_t)want * sizeof *cand);
  dldb_tl_gap *found = malloc((size_t)cap * sizeof *found);
  if (!(gr.busy = malloc((size_t)gr.n)) || !cand || !found) {
    rc = dl_err(err, errlen, DL_ENOMEM, "out of memory finding idle gaps");
    goto out;
  }
  rc = scan(db, tr, n, &gr, hi, cap, cand, want, found, &nf, err, errlen);
  int64_t shortest = nf ? found[0].end_ns - found[0].start_ns : 0;
  for (int i = 1; i < nf; i++)
    if (found[i].end_ns - found[i].start_ns < shortest) shortest = found[i].end_ns - found[i].start_ns;
  if (rc == DL_OK && gr.coarse > 0 && (nf < cap || shortest < 2 * gr.coarse)) {
    gr.exact = 1;
    nf = 0;
    rc = scan(db, tr, n, &gr, hi, cap, cand, want, found, &nf, err, errlen);
  }
  for (int i = 0; rc == DL_OK && i < nf; i++) keep(out, nout, cap, found[i]);
out:
  free(gr.busy);
  free(gr.part);
  free(cand);
  free(found);
  return rc;
}

/* Reads the GPU stream tracks (of device_id unless all) into *tr. */
static int read_tracks(dldb *db, int all, int64_t device_id, gp_track **tr, int *n, char *err,
                       size_t errlen) {
  sqlite3_stmt *st = dldb__stmt_get(db, tracks_sql, err, errlen);
  if (!st) return DL_EIO;
  int cap = 0, rc;
  *tr = NULL;
  *n = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    gp_track t = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                  sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3), 0, 0};
    if (!all && t.device != device_id) continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 16;
      gp_track *m = realloc(*tr, (size_t)cap * sizeof *m);
      if (!m) {
        dldb__stmt_done(st);
        return dl_err(err, errlen, DL_ENOMEM, "out of memory finding idle gaps");
      }
      *tr = m;
    }
    (*tr)[(*n)++] = t;
  }
  dldb__stmt_done(st);
  if (rc != SQLITE_DONE) return dldb__sql_err(db, rc, "idle gaps", err, errlen);
  for (int i = 0; i < *n; i++) {
    dldb_tl_track tt;
    if ((rc = dldb_timeline_track(db, (*tr)[i].id, &tt, err, errlen))) return rc;
    (*tr)[i].bin_ns = tt.bin_ns;
    (*tr)[i].levels = tt.levels;
  }
  return DL_OK;
}

int dldb_timeline_gaps(dldb *db, int all, int64_t device_id, int limit, dldb_tl_gap *out, int *n,
                       char *err, size_t errlen) {
  *n = 0;
  if (limit < 1 || limit > DLDB_TL_GAPS_MAX)
    return dl_err(err, errlen, DL_EINVAL, "limit: 1 to %d", DLDB_TL_GAPS_MAX);
  if (!dldb_has_view(db, "view_dl_timeline_tracks"))
    return dl_err(err, errlen, DL_ENOTFOUND, "this database has no timeline");
  gp_track *tr = NULL;
  int nt = 0;
  int rc = read_tracks(db, all, device_id, &tr, &nt, err, errlen);
  for (int i = 0; rc == DL_OK && i < nt;) {
    int j = i;
    while (j < nt && tr[j].device == tr[i].device) j++;
    rc = device_gaps(db, tr + i, j - i, limit, out, n, err, errlen);
    i = j;
  }
  free(tr);
  if (rc == DL_OK) qsort(out, (size_t)*n, sizeof *out, longer);
  return rc;
}
