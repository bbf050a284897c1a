/*
 * dla_nodeid.c - op node ids (dla_op.node_id), as DLProf numbers them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dla_nodeid.h"

typedef struct op_order {
  int64_t first_start, idx;
} op_order;

static int cmp_first(const void *x, const void *y) {
  const op_order *a = x, *b = y;
  if (a->first_start != b->first_start) return a->first_start < b->first_start ? -1 : 1;
  return (a->idx > b->idx) - (a->idx < b->idx);
}

/* op_node_id: upper-cased type + per-type counter, over all ops in the
 * order of their first instance (DLProf: CUDA_1 .. CUDA_11 in time order;
 * stable across aggregations of one file). */
int dla__nodeid_assign(dla_ctx *c) {
  dl_smap counters;
  dl_smap_init(&counters);
  char **prefixes = calloc(c->nops + 1, sizeof *prefixes);
  op_order *order = malloc((c->nops + 1) * sizeof *order);
  int rc = prefixes && order ? DL_OK : DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < c->nops; i++)
    order[i] = (op_order){c->ops[i].first_start, (int64_t)i};
  if (rc == DL_OK) dla__qsort(order, c->nops, sizeof *order, cmp_first);
  for (size_t j = 0; rc == DL_OK && j < c->nops; j++) {
    size_t i = (size_t)order[j].idx;
    size_t n = strlen(c->ops[i].type) + 1;
    prefixes[i] = malloc(n);
    c->ops[i].node_id = malloc(n + 24);
    if (!prefixes[i] || !c->ops[i].node_id) {
      rc = DL_ENOMEM;
      break;
    }
    dla_opname_id_prefix(c->ops[i].type, prefixes[i], n);
    int64_t cnt = dl_smap_get(&counters, prefixes[i]);
    cnt = cnt < 0 ? 1 : cnt + 1;
    if (dl_smap_put(&counters, prefixes[i], cnt)) rc = DL_ENOMEM;
    snprintf(c->ops[i].node_id, n + 24, "%s_%lld", prefixes[i], (long long)cnt);
  }
  for (size_t i = 0; prefixes && i < c->nops; i++) free(prefixes[i]);
  free(prefixes);
  free(order);
  dl_smap_free(&counters);
  return rc;
}

