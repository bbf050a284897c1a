/* dla_rankhost.c - the host side of each rank (dla_rankhost.h). */
#include "dla_rankhost.h"

#include <stdlib.h>
#include <string.h>

#include "dla_internal.h"

typedef struct host_sums {
  int64_t *pid;          /* per row: its process, -1 unknown */
  int64_t *step_ns, *steps, *load_ns;
  int64_t open_s, open_e; /* the data-loading union being built */
  int32_t open_row, open_th;
} host_sums;

/* The process of each row: that of the first kernel of its device
 * launched inside a range. Returns how many were found. */
static size_t find_pids(const dla_ctx *c, const dldb_dl_rank_row *rows, size_t n, int64_t *pid) {
  dl_map dev;
  dl_map_init(&dev);
  size_t found = 0;
  for (size_t i = 0; i < n; i++) {
    pid[i] = -1;
    if (dl_map_put(&dev, (uint64_t)(uint32_t)rows[i].device_id, (int64_t)i)) goto out;
  }
  for (size_t i = 0; i < c->nk && found < n; i++) {
    const dla_kern *k = &c->k[i];
    int32_t range = dla__kern_range(c, k);
    if (range < 0) continue;
    int64_t r = dl_map_get(&dev, (uint64_t)(uint32_t)dla__kern_device(c, k));
    if (r < 0 || pid[r] >= 0) continue;
    pid[r] = c->thr[dla__range_th(&c->r[range])].pid;
    found++;
  }
out:
  dl_map_free(&dev);
  return found;
}

/* Whether range name id s is a key-op step (cached in m: 1 yes, 0 no). */
static int is_step(const dla_ctx *c, dl_map *m, int32_t s, size_t klen) {
  int64_t v = dl_map_get(m, (uint64_t)s);
  if (v >= 0) return (int)v;
  const char *name = dldb_writer_string(c->w, s);
  v = name && strncmp(name, c->o->key_op, klen) == 0;
  (void)dl_map_put(m, (uint64_t)s, v); /* out of memory: asked again next time */
  return (int)v;
}

static void close_load(host_sums *h) {
  if (h->open_row >= 0) h->load_ns[h->open_row] += h->open_e - h->open_s;
  h->open_row = -1;
}

/* A data-loading range [s, e) of row on thread th, clipped to the window. */
static void add_load(host_sums *h, int32_t row, int32_t th, int64_t s, int64_t e) {
  if (h->open_row == row && h->open_th == th && s <= h->open_e) {
    if (e > h->open_e) h->open_e = e;
    return;
  }
  close_load(h);
  h->open_row = row;
  h->open_th = th;
  h->open_s = s;
  h->open_e = e;
}

static void sum_ranges(const dla_ctx *c, const dl_map *by_pid, host_sums *h) {
  int64_t lo = c->bound[c->iter_start], hi = c->bound[c->iter_stop + 1];
  const char *key = c->o->key_op_spans && c->o->key_op ? c->o->key_op : NULL;
  size_t klen = key ? strlen(key) : 0;
  dl_map names;
  dl_map_init(&names);
  h->open_row = -1;
  for (size_t i = 0; i < c->nr; i++) {
    const dla_range *r = &c->r[i];
    uint32_t th = dla__range_th(r);
    int64_t row = dl_map_get(by_pid, (uint64_t)c->thr[th].pid);
    if (row < 0) continue;
    if (klen && r->start >= lo && r->start < hi && is_step(c, &names, r->name_id, klen)) {
      h->step_ns[row] += r->end - r->start;
      h->steps[row]++;
    }
    int64_t s = r->start > lo ? r->start : lo, e = r->end < hi ? r->end : hi;
    if (r->op >= 0 && c->ops[r->op].dataloader && e > s) add_load(h, (int32_t)row, (int32_t)th, s, e);
  }
  close_load(h);
  dl_map_free(&names);
}

int dla__rank_host(const dla_ctx *c, dldb_dl_rank_row *rows, size_t n) {
  if (n == 0 || c->niter <= 0 || c->iter_stop < c->iter_start) return DL_OK;
  host_sums h = {.pid = calloc(n, sizeof(int64_t)), .step_ns = calloc(n, sizeof(int64_t)),
                 .steps = calloc(n, sizeof(int64_t)), .load_ns = calloc(n, sizeof(int64_t))};
  dl_map by_pid; /* process -> its first row */
  dl_map_init(&by_pid);
  int rc = h.pid && h.step_ns && h.steps && h.load_ns ? DL_OK : DL_ENOMEM;
  if (rc == DL_OK && find_pids(c, rows, n, h.pid) > 0) {
    for (size_t i = 0; rc == DL_OK && i < n; i++)
      if (h.pid[i] >= 0 && dl_map_get(&by_pid, (uint64_t)h.pid[i]) < 0 &&
          dl_map_put(&by_pid, (uint64_t)h.pid[i], (int64_t)i))
        rc = DL_ENOMEM;
    if (rc == DL_OK) sum_ranges(c, &by_pid, &h);
    for (size_t i = 0; rc == DL_OK && i < n; i++) {
      if (h.pid[i] < 0) continue;
      int64_t first = dl_map_get(&by_pid, (uint64_t)h.pid[i]); /* the row holding the sums */
      if (h.steps[first] > 0) rows[i].iter_avg_ns = h.step_ns[first] / h.steps[first];
      rows[i].dataloader_ns = h.load_ns[first];
    }
  }
  dl_map_free(&by_pid);
  free(h.pid);
  free(h.step_ns);
  free(h.steps);
  free(h.load_ns);
  return rc;
}
