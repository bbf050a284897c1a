/*
 * dla_groups.c - the scope tree of op paths (view_group_ops) and the per-type
 * op statistics (view_op_type_summary).
 *
 * An op path "/a/b/op" has groups "/", "/a/" and "/a/b/" (levels 1..3) and
 * is itself a row of level 4; a path without a leading '/' (unassociated
 * API ops) is a lone op row of level 1. Rows are written in byte order of
 * their full names, which lists every group right before its contents.
 */
#include <stdlib.h>
#include <string.h>

#include "dla_internal.h"
#include "dldb_aggr.h"

typedef struct grow_row {
  char *name;          /* owned */
  const char *full_id; /* op node id, or NULL for groups (= name) */
  int type;            /* 1 group, 2 op */
  int64_t level, inst, supported, tc, cpu, gpu, ovh, idle;
} grow_row;

typedef struct rows {
  grow_row *v;
  size_t n, cap;
  dl_smap by_name;
} rows;

static int64_t row_add(rows *r, const char *name, size_t len, int type) {
  if (r->n == r->cap) {
    size_t ncap = r->cap ? r->cap * 2 : 256;
    grow_row *nv = realloc(r->v, ncap * sizeof *nv);
    if (!nv) return -1;
    r->v = nv;
    r->cap = ncap;
  }
  grow_row *g = &r->v[r->n];
  memset(g, 0, sizeof *g);
  g->name = malloc(len + 1);
  if (!g->name) return -1;
  memcpy(g->name, name, len);
  g->name[len] = '\0';
  g->type = type;
  if (type == 1 && dl_smap_put(&r->by_name, g->name, (int64_t)r->n)) {
    free(g->name);
    return -1;
  }
  return (int64_t)r->n++;
}

static void row_acc(grow_row *g, const dla_op *op) {
  g->inst += op->num_calls;
  g->supported += op->eligible;
  g->tc += op->using_tc;
  g->cpu += op->cpu;
  g->gpu += op->gpu;
  g->ovh += op->overhead;
  g->idle += op->idle;
}

static int cmp_rows(const void *x, const void *y) {
  const grow_row *a = x, *b = y;
  int sa = a->name[0] == '/', sb = b->name[0] == '/';
  if (sa != sb) return sa ? -1 : 1;
  return strcmp(a->name, b->name);
}

int dla__write_groups(dla_ctx *c, int64_t aggr_id) {
  rows r = {0};
  dl_smap_init(&r.by_name);
  int rc = DL_OK;
  for (size_t i = 0; i < c->nops && rc == DL_OK; i++) {
    dla_op *op = &c->ops[i];
    if (op->num_calls == 0 && op->kernel_calls == 0) continue;
    char *p = op->path; /* cut temporarily at each '/' to look groups up */
    size_t len = strlen(p);
    int64_t level = 1;
    if (p[0] == '/') {
      for (size_t j = 0; j < len; j++) {
        if (p[j] != '/') continue;
        char save = p[j + 1];
        p[j + 1] = '\0';
        int64_t gi = dl_smap_get(&r.by_name, p);
        p[j + 1] = save;
        if (gi < 0 && (gi = row_add(&r, p, j + 1, 1)) < 0) {
          rc = DL_ENOMEM;
          break;
        }
        r.v[gi].level = level++;
        row_acc(&r.v[gi], op);
      }
    }
    int64_t oi = rc == DL_OK ? row_add(&r, p, len, 2) : -1;
    if (oi < 0) {
      rc = DL_ENOMEM;
      break;
    }
    r.v[oi].level = level;
    r.v[oi].full_id = op->node_id;
    row_acc(&r.v[oi], op);
  }
  if (rc == DL_OK) {
    dl_smap_free(&r.by_name); /* its keys point into rows that move */
    dla__qsort(r.v, r.n, sizeof *r.v, cmp_rows);
    for (size_t i = 0; i < r.n && rc == DL_OK; i++) {
      grow_row *g = &r.v[i];
      size_t len = strlen(g->name);
      size_t end = g->type == 1 && len > 0 ? len - 1 : len; /* drop a group's final '/' */
      size_t start = end;
      while (start > 0 && g->name[start - 1] != '/') start--;
      char *trim = malloc(end - start + 1);
      if (!trim) {
        rc = DL_ENOMEM;
        break;
      }
      memcpy(trim, g->name + start, end - start);
      trim[end - start] = '\0';
      dldb_group_row row = {
          .row_idx = (int64_t)i, .row_type = g->type,
          .row_full_id = g->full_id ? g->full_id : g->name, .row_full_name = g->name,
          .row_trimmed_name = trim, .level = g->level, .num_op_instances = g->inst,
          .num_supported_leaf_ops = g->supported, .num_tc_leaf_ops = g->tc,
          .cpu_time_sum = g->cpu, .gpu_time_sum = g->gpu, .cpu_overhead_sum = g->ovh,
          .gpu_idle_sum = g->idle,
      };
      rc = dldb_aggr_group(c->w, aggr_id, &row, c->err, c->errlen);
      free(trim);
    }
  } else {
    dl_smap_free(&r.by_name);
  }
  for (size_t i = 0; i < r.n; i++) free(r.v[i].name);
  free(r.v);
  if (rc == DL_ENOMEM) dl_err(c->err, c->errlen, rc, "dla_aggregate: out of memory");
  return rc;
}

int dla__write_op_types(dla_ctx *c, int64_t aggr_id) {
  dl_smap by_type;
  dl_smap_init(&by_type);
  dldb_op_type_row *t = calloc(c->nops + 1, sizeof *t);
  size_t nt = 0;
  int rc = t ? DL_OK : DL_ENOMEM;
  for (size_t i = 0; i < c->nops && rc == DL_OK; i++) {
    const dla_op *op = &c->ops[i];
    if (op->num_calls == 0 && op->kernel_calls == 0) continue;
    int64_t ti = dl_smap_get(&by_type, op->type);
    if (ti < 0) {
      ti = (int64_t)nt++;
      t[ti].op_node_type = op->type;
      for (int k = 0; k < 4; k++) t[ti].min[k] = INT64_MAX;
      if (dl_smap_put(&by_type, op->type, ti)) {
        rc = DL_ENOMEM;
        break;
      }
    }
    dldb_op_type_row *r = &t[ti];
    int64_t v[4] = {op->cpu, op->gpu, op->overhead, op->idle};
    r->num_nodes++;
    r->num_calls += op->num_calls;
    for (int k = 0; k < 4; k++) {
      r->sum[k] += v[k];
      if (v[k] < r->min[k]) r->min[k] = v[k];
      if (v[k] > r->max[k]) r->max[k] = v[k];
    }
  }
  for (size_t i = 0; i < nt && rc == DL_OK; i++)
    rc = dldb_aggr_op_type(c->w, aggr_id, &t[i], c->err, c->errlen);
  free(t);
  dl_smap_free(&by_type);
  if (rc == DL_ENOMEM) dl_err(c->err, c->errlen, rc, "dla_aggregate: out of memory");
  return rc;
}
