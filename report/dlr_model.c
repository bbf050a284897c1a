/* dlr_model.c - the model data of one aggregation as JSON (dlr_model.h). */
#include "dlr_model.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dl.h"
#include "dlr_internal.h"

/* The JSON being built, and the first failure (sticky). */
typedef struct model {
  cJSON *iters, *ops;
  cJSON **kernels;  /* each op's "kernels" array, in the order of ops */
  char **op_ids;    /* each op's op_node_id, to attach its kernel rows */
  size_t n, cap;
  size_t last;      /* the op of the previous kernel row: rows come grouped by op */
  dlr_fields f;
  int rc;
} model;

static void put_num(cJSON *obj, const char *key, const dlr_fields *f, const dldb_row *row,
                    int i) {
  if (!dlr_has(f, row, i)) cJSON_AddNullToObject(obj, key);
  else cJSON_AddNumberToObject(obj, key, (double)dlr_int(f, row, i));
}

static const char *const iter_cols[] = {"iter_value", "start_time", "duration",
                                        "total_kernel_count"};
static const char *const iter_keys[] = {"iteration", "start_ns", "duration_ns", "kernel_count"};

static int iter_row(void *ctx, const dldb_row *row) {
  model *m = ctx;
  dlr_fields_resolve(&m->f, row);
  cJSON *it = cJSON_CreateObject();
  if (!it || !cJSON_AddItemToArray(m->iters, it)) {
    cJSON_Delete(it);
    return m->rc = DL_ENOMEM;
  }
  for (int i = 0; i < 4; i++) put_num(it, iter_keys[i], &m->f, row, i);
  return 0;
}

enum { OP_ID, OP_NAME, OP_TYPE, OP_DIR, OP_CALLS, OP_GPU, OP_CPU, OP_KCALLS, OP_NCOLS };
static const char *const op_cols[] = {"op_node_id", "op_node_name", "op_node_type", "direction",
                                      "num_calls", "gpu_time", "cpu_time", "kernel_calls"};
static const char *const op_keys[] = {"op_id", "name", "type", "direction",
                                      "calls", "gpu_time_ns", "cpu_time_ns", "kernel_calls"};

static int grow(model *m) {
  if (m->n < m->cap) return 0;
  size_t cap = m->cap ? m->cap * 2 : 64;
  cJSON **k = realloc(m->kernels, cap * sizeof *k);
  if (!k) return -1;
  m->kernels = k;
  char **ids = realloc(m->op_ids, cap * sizeof *ids);
  if (!ids) return -1;
  m->op_ids = ids;
  m->cap = cap;
  return 0;
}

static int op_row(void *ctx, const dldb_row *row) {
  model *m = ctx;
  dlr_fields_resolve(&m->f, row);
  cJSON *op = cJSON_CreateObject();
  if (!op || !cJSON_AddItemToArray(m->ops, op)) {
    cJSON_Delete(op);
    return m->rc = DL_ENOMEM;
  }
  for (int i = 0; i < OP_NCOLS; i++) {
    if (i > OP_DIR) put_num(op, op_keys[i], &m->f, row, i);
    else if (!cJSON_AddStringToObject(op, op_keys[i], dlr_text(&m->f, row, i)))
      return m->rc = DL_ENOMEM;
  }
  cJSON *ks = cJSON_AddArrayToObject(op, "kernels");
  char *id = strdup(dlr_text(&m->f, row, OP_ID));
  if (!ks || !id || grow(m)) {
    free(id);
    return m->rc = DL_ENOMEM;
  }
  m->kernels[m->n] = ks;
  m->op_ids[m->n++] = id;
  return 0;
}

enum { K_OP, K_NAME, K_CALLS, K_GPU, K_NCOLS };
static const char *const k_cols[] = {"op_node_id", "kernel_name", "calls", "gpu_time"};

/* The op of a kernel row: the previous row's, else a search from it on. */
static cJSON *kernels_of(model *m, const char *op_id) {
  for (size_t k = 0; k < m->n; k++) {
    size_t i = (m->last + k) % m->n;
    if (!strcmp(m->op_ids[i], op_id)) return m->kernels[m->last = i];
  }
  return NULL;
}

static int kernel_row(void *ctx, const dldb_row *row) {
  model *m = ctx;
  dlr_fields_resolve(&m->f, row);
  cJSON *ks = kernels_of(m, dlr_text(&m->f, row, K_OP));
  if (!ks) return 0; /* a kernel of no op listed (another domain's) */
  cJSON *k = cJSON_CreateObject();
  if (!k || !cJSON_AddItemToArray(ks, k)) {
    cJSON_Delete(k);
    return m->rc = DL_ENOMEM;
  }
  if (!cJSON_AddStringToObject(k, "name", dlr_text(&m->f, row, K_NAME)))
    return m->rc = DL_ENOMEM;
  put_num(k, "calls", &m->f, row, K_CALLS);
  put_num(k, "gpu_time_ns", &m->f, row, K_GPU);
  return 0;
}

/* One view's rows of the aggregation into m through fn. */
static int read_view(dldb *db, model *m, const char *view, const char *const *cols, int ncols,
                     int64_t aggr_id, const char *domain, dldb_row_fn fn, char *err,
                     size_t errlen) {
  dldb_query q = {.view = view, .aggr_id = aggr_id, .domain = domain, .limit = -1};
  dlr_fields_init(&m->f, cols, ncols);
  int rc = dldb_query_rows(db, &q, fn, m, err, errlen);
  if (m->rc) return dl_err(err, errlen, m->rc, "dlr_model_write: out of memory");
  return rc;
}

int dlr_model_write(dldb *db, int64_t aggr_id, const char *domain, dlr_sink_fn sink, void *ctx,
                    char *err, size_t errlen) {
  model m = {0};
  char *text = NULL;
  cJSON *doc = cJSON_CreateObject();
  int rc = DL_ENOMEM;
  if (!doc || !cJSON_AddStringToObject(doc, "format", "dlprof_model_data") ||
      !cJSON_AddNumberToObject(doc, "version", 1) ||
      !cJSON_AddNumberToObject(doc, "aggr_id", (double)aggr_id) ||
      !(domain ? cJSON_AddStringToObject(doc, "domain", domain)
               : cJSON_AddNullToObject(doc, "domain")) ||
      !(m.iters = cJSON_AddArrayToObject(doc, "iterations")) ||
      !(m.ops = cJSON_AddArrayToObject(doc, "ops"))) {
    rc = dl_err(err, errlen, DL_ENOMEM, "dlr_model_write: out of memory");
    goto out;
  }
  rc = read_view(db, &m, "view_iterations_profiled", iter_cols, 4, aggr_id, domain, iter_row,
                 err, errlen);
  if (rc == DL_OK)
    rc = read_view(db, &m, "view_op_nodes", op_cols, OP_NCOLS, aggr_id, domain, op_row, err,
                   errlen);
  if (rc == DL_OK)
    rc = read_view(db, &m, "view_kernel_summaries", k_cols, K_NCOLS, aggr_id, domain,
                   kernel_row, err, errlen);
  if (rc != DL_OK) goto out;
  if (!(text = cJSON_PrintUnformatted(doc))) {
    rc = dl_err(err, errlen, DL_ENOMEM, "dlr_model_write: out of memory");
    goto out;
  }
  if (sink(ctx, text, strlen(text)) || sink(ctx, "\n", 1))
    rc = dl_err(err, errlen, DL_EIO, "dlr_model_write: write failed");
out:
  cJSON_free(text);
  cJSON_Delete(doc);
  for (size_t i = 0; i < m.n; i++) free(m.op_ids[i]);
  free(m.op_ids);
  free(m.kernels);
  return rc;
}
