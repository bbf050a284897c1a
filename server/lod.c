/* lod.c - the timeline's level of detail (see lod.h). */
#include "lod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dlv_lod_ev {
  int64_t start_ns, dur_ns, event_id;
  char *name;
  char category[16]; /* the longest: python_function */
  int nccl;
};

struct dlv_lod_bin {
  int64_t busy_ns, count;
  int64_t best_ns; /* the longest clipped event's length in the bin */
  char *name;      /* its name */
};

void dlv_lod_init(dlv_lod *l, int64_t start_ns, int64_t end_ns, int width) {
  memset(l, 0, sizeof *l);
  l->start_ns = start_ns;
  l->end_ns = end_ns;
  l->width = width;
  l->cur_start_ns = l->cur_end_ns = INT64_MIN; /* no open interval */
}

/* The products are 128-bit: a window may be up to 2^62 ns long.
 * The bin holding t (start <= t < end), and bin i's first ns: bin i holds
 * [edge(i), edge(i + 1)) with edge(i) = start + ceil(len * i / width). */
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The grid's cell of t (floor division). */
static int64_t cell_of(const dlv_lod *l, int64_t t) {
  int64_t q = t / l->grid_ns;
  return (t % l->grid_ns != 0 && t < 0) ? q - 1 : q;
}

static int bin_of(const dlv_lod *l, int64_t t) {
  if (l->grid_ns) return (int)min64(l->width - 1, (cell_of(l, t) - l->c0) / l->group);
  return (int)((__int128)(t - l->start_ns) * l->width / (l->end_ns - l->start_ns));
}
static int64_t edge(const dlv_lod *l, int i) {
  if (l->grid_ns)
    return i <= 0 ? l->start_ns
                  : max64(l->start_ns, min64(l->end_ns, (l->c0 + i * l->group) * l->grid_ns));
  int64_t len = l->end_ns - l->start_ns;
  return l->start_ns + (int64_t)(((__int128)len * i + l->width - 1) / l->width);
}

/* Adds the busy interval [a, b), clipped to the window, to the bins. */
static void add_busy(dlv_lod *l, int64_t a, int64_t b) {
  a = max64(a, l->start_ns);
  b = min64(b, l->end_ns);
  while (a < b) {
    int i = bin_of(l, a);
    int64_t seg = min64(b, edge(l, i + 1));
    l->bins[i].busy_ns += seg - a;
    a = seg;
  }
}

/* Keeps e's name (or name, when given) as bin i's if it covers more of it
 * (cover ns) than any before: only then is e's name read. */
static void name_bin(dlv_lod *l, int i, int64_t cover, const char *name, const dldb_tl_event *e) {
  dlv_lod_bin *bn = &l->bins[i];
  if (bn->name && cover <= bn->best_ns) return;
  char *copy = strdup(name ? name : dldb_tl_event_name(e));
  if (!copy) {
    l->oom = 1;
    return;
  }
  free(bn->name);
  bn->name = copy;
  bn->best_ns = cover;
}

/* Extends the busy union by [start, stop) (starts in order). */
static void extend(dlv_lod *l, int64_t start, int64_t stop) {
  if (start > l->cur_end_ns) {
    if (l->cur_end_ns > l->cur_start_ns) add_busy(l, l->cur_start_ns, l->cur_end_ns);
    l->cur_start_ns = start;
    l->cur_end_ns = stop;
  } else if (stop > l->cur_end_ns) {
    l->cur_end_ns = stop;
  }
}

/* Counts an event in the bin it starts in (clipped) and keeps its name if it
 * covers more of that bin than any before; then extends the busy union. */
static void bin_event(dlv_lod *l, int64_t start, int64_t dur, const char *name,
                      const dldb_tl_event *e) {
  int64_t s = max64(start, l->start_ns);
  int i = bin_of(l, s);
  l->bins[i].count++;
  name_bin(l, i, min64(start + dur, edge(l, i + 1)) - s, name, e);
  extend(l, start, start + dur);
}

/* Events mode to bins mode: the kept events go into the bins. */
static int to_bins(dlv_lod *l) {
  l->bins = calloc((size_t)l->width, sizeof *l->bins);
  if (!l->bins) return -1;
  for (int k = 0; k < l->n_ev; k++) {
    bin_event(l, l->ev[k].start_ns, l->ev[k].dur_ns, l->ev[k].name, NULL);
    free(l->ev[k].name);
  }
  free(l->ev);
  l->ev = NULL;
  l->n_ev = 0;
  return 0;
}

int dlv_lod_add(void *ctx, const dldb_tl_event *e) {
  dlv_lod *l = ctx;
  if (l->oom) return 1;
  if (!l->bins && l->n_ev == l->width && to_bins(l)) {
    l->oom = 1;
    return 1;
  }
  if (l->bins) {
    bin_event(l, e->start_ns, e->dur_ns, NULL, e);
    return l->oom;
  }
  if (!l->ev && !(l->ev = calloc((size_t)l->width, sizeof *l->ev))) {
    l->oom = 1;
    return 1;
  }
  dlv_lod_ev *v = &l->ev[l->n_ev];
  v->name = strdup(dldb_tl_event_name(e));
  if (!v->name) {
    l->oom = 1;
    return 1;
  }
  v->start_ns = e->start_ns;
  v->dur_ns = e->dur_ns;
  v->event_id = e->event_id;
  v->nccl = e->nccl;
  snprintf(v->category, sizeof v->category, "%s", e->category);
  l->n_ev++;
  return 0;
}

void dlv_lod_init_grid(dlv_lod *l, int64_t start_ns, int64_t end_ns, int64_t grid_ns, int width) {
  dlv_lod_init(l, start_ns, end_ns, width);
  l->grid_ns = grid_ns;
  l->c0 = cell_of(l, start_ns);
  int64_t cells = cell_of(l, end_ns - 1) - l->c0 + 1;
  l->group = (cells + width - 1) / width;
  l->width = (int)((cells + l->group - 1) / l->group);
  l->bins = calloc((size_t)l->width, sizeof *l->bins);
  if (!l->bins) l->oom = 1;
}

int dlv_lod_add_cell(void *ctx, const dldb_tl_bin_row *b) {
  dlv_lod *l = ctx;
  if (l->oom) return 1;
  int i = bin_of(l, b->index * l->cell_ns);
  l->bins[i].busy_ns += b->busy;
  l->bins[i].count += b->count;
  if (b->name || b->named) name_bin(l, i, b->best, b->name, b->named);
  return l->oom;
}

void dlv_lod_clip(dlv_lod *l, int64_t lo, int64_t hi) {
  l->clip_lo = lo;
  l->clip_hi = hi;
}

int dlv_lod_add_edge(void *ctx, const dldb_tl_event *e) {
  dlv_lod *l = ctx;
  if (l->oom) return 1;
  int64_t stop = min64(e->start_ns + e->dur_ns, l->clip_hi);
  if (e->start_ns >= l->clip_lo || l->clip_lo == l->start_ns) {
    int64_t s = max64(e->start_ns, l->start_ns);
    int i = bin_of(l, s);
    l->bins[i].count++;
    name_bin(l, i, min64(stop, edge(l, i + 1)) - s, NULL, e);
  }
  extend(l, max64(e->start_ns, l->clip_lo), stop);
  return l->oom;
}

int64_t dlv_lod_count(const dlv_lod *l) {
  if (!l->bins) return l->n_ev;
  int64_t n = 0;
  for (int i = 0; i < l->width; i++) n += l->bins[i].count;
  return n;
}

static void key_int(dlv_jbuf *b, const char *key, int64_t v) {
  dlv_jbuf_lit(b, key);
  dlv_jbuf_int(b, v);
}

static void events_json(const dlv_lod *l, dlv_jbuf *b) {
  dlv_jbuf_lit(b, "\"events\":[");
  for (int k = 0; k < l->n_ev; k++) {
    const dlv_lod_ev *v = &l->ev[k];
    key_int(b, k ? ",{\"start\":" : "{\"start\":", v->start_ns);
    key_int(b, ",\"dur\":", v->dur_ns);
    dlv_jbuf_lit(b, ",\"name\":");
    dlv_jbuf_str(b, v->name);
    dlv_jbuf_lit(b, ",\"category\":");
    dlv_jbuf_str(b, v->category);
    key_int(b, ",\"event_id\":", v->event_id);
    key_int(b, ",\"nccl\":", v->nccl);
    dlv_jbuf_lit(b, "}");
  }
  dlv_jbuf_lit(b, "]");
}

static void bins_json(dlv_lod *l, dlv_jbuf *b) {
  if (l->cur_end_ns > l->cur_start_ns) add_busy(l, l->cur_start_ns, l->cur_end_ns);
  l->cur_start_ns = l->cur_end_ns = INT64_MIN;
  dlv_jbuf_lit(b, "\"bins\":[");
  int first = 1;
  for (int i = 0; i < l->width; i++) {
    const dlv_lod_bin *bn = &l->bins[i];
    if (!bn->count && !bn->busy_ns) continue;
    key_int(b, first ? "{\"start\":" : ",{\"start\":", edge(l, i));
    key_int(b, ",\"end\":", edge(l, i + 1));
    key_int(b, ",\"busy\":", bn->busy_ns);
    key_int(b, ",\"count\":", bn->count);
    dlv_jbuf_lit(b, ",\"name\":");
    if (bn->name) dlv_jbuf_str(b, bn->name);
    else dlv_jbuf_lit(b, "null");
    dlv_jbuf_lit(b, "}");
    first = 0;
  }
  dlv_jbuf_lit(b, "]");
}

void dlv_lod_json(dlv_lod *l, dlv_jbuf *b) {
  if (l->bins) bins_json(l, b);
  else events_json(l, b);
}

void dlv_lod_free(dlv_lod *l) {
  for (int k = 0; k < l->n_ev; k++) free(l->ev[k].name);
  free(l->ev);
  if (l->bins)
    for (int i = 0; i < l->width; i++) free(l->bins[i].name);
  free(l->bins);
  l->ev = NULL;
  l->bins = NULL;
  l->n_ev = 0;
}
