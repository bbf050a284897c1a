/*
 * dlr_tables.c - DLProf's seven table reports, each from views only.
 *
 * Row order follows DLProf 1.8: detail and tensor by op id, op_type by op
 * type, group_node by name (then _CompleteModel_), iteration, kernel and
 * expert_systems in the view's own row order (kernel: each op's kernels
 * sorted by name). Strings compare bytewise, as SQLite's BINARY collation.
 *
 * A column that no 1.8 view carries is read from our superset view
 * view_dl_<name> when the database has one (dlr_source), derived where it
 * is exactly derivable, and otherwise left empty (docs/compat.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlr_internal.h"

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Runs q, then maps a row-callback stop caused by the writer to its error. */
static int run(dldb *db, dlr_out *o, const dldb_query *q, dldb_row_fn fn, void *ctx) {
  if (o->rc) return o->rc;
  int rc = dldb_query_rows(db, q, fn, ctx, o->err, o->errlen);
  if (rc != DL_OK) return dlr_out_fail(o, rc);
  return o->rc;
}

/* The aggregation's number of profiled iterations, or -1 if unknown. */
static int64_t profiled_iterations(dldb *db, int64_t aggr_id, const char *domain);

/* Total / Avg / Min / Max of a metric summed over `calls` instances. Avg is
 * total / calls; Min and Max come from the row source when it has them,
 * else equal Total when there is exactly one instance, else stay empty. */
static void stat4(dlr_out *o, int has_total, int64_t total, int64_t calls, int has_min,
                  int64_t min, int has_max, int64_t max) {
  if (has_total)
    dlr_out_int(o, total);
  else
    dlr_out_null(o);
  if (has_total && calls > 0)
    dlr_out_real1(o, (double)total / (double)calls);
  else
    dlr_out_null(o);
  if (has_min)
    dlr_out_int(o, min);
  else if (has_total && calls == 1)
    dlr_out_int(o, total);
  else
    dlr_out_null(o);
  if (has_max)
    dlr_out_int(o, max);
  else if (has_total && calls == 1)
    dlr_out_int(o, total);
  else
    dlr_out_null(o);
}

/* ---- detail ("All Iterations", dlprof_detailed.csv) ----------------------- */

static const dlr_col DETAIL_COLS[] = {
    {"Op ID", 1, NULL}, {"Op Name", 1, NULL}, {"Direction", 0, NULL}, {"Op Type", 1, NULL},
    {"No. Calls", 0, NULL}, {"TC Eligible", 0, NULL}, {"Using TC", 0, NULL},
    {"Total CPU Time (ns)", 0, NULL}, {"Avg. CPU Time (ns)", 0, NULL},
    {"Min CPU Time (ns)", 0, NULL}, {"Max CPU Time (ns)", 0, NULL},
    {"Total GPU Time (ns)", 0, NULL}, {"Avg. GPU Time (ns)", 0, NULL},
    {"Min GPU Time (ns)", 0, NULL}, {"Max GPU Time (ns)", 0, NULL},
    {"Total CPU Overhead (ns)", 0, NULL}, {"Avg. CPU Overhead (ns)", 0, NULL},
    {"Min CPU Overhead (ns)", 0, NULL}, {"Max CPU Overhead (ns)", 0, NULL},
    {"Total GPU Idle (ns)", 0, NULL}, {"Avg. GPU Idle (ns)", 0, NULL},
    {"Min GPU Idle (ns)", 0, NULL}, {"Max GPU Idle (ns)", 0, NULL},
    {"Data Type", 0, NULL}, {"Stack Trace", 1, NULL},
};

static const char *const DETAIL_FIELDS[] = {
    "op_node_id", "op_node_name", "direction", "op_node_type", "num_calls", "tc_eligible",
    "using_tc", "cpu_time", "gpu_time", "data_type", "stack_trace",
    /* view_dl_op_nodes only */
    "cpu_time_min", "cpu_time_max", "gpu_time_min", "gpu_time_max", "cpu_overhead_sum",
    "cpu_overhead_min", "cpu_overhead_max", "gpu_idle_sum", "gpu_idle_min", "gpu_idle_max"};
enum {
  DF_ID, DF_NAME, DF_DIR, DF_TYPE, DF_CALLS, DF_ELIG, DF_USING, DF_CPU, DF_GPU, DF_DTYPE,
  DF_STACK, DF_CPU_MIN, DF_CPU_MAX, DF_GPU_MIN, DF_GPU_MAX, DF_OVH, DF_OVH_MIN, DF_OVH_MAX,
  DF_IDLE, DF_IDLE_MIN, DF_IDLE_MAX, DF_N
};

typedef struct detail_ctx {
  dlr_out *o;
  dlr_fields f;
  dlr_ops *ops; /* with has_group/cpu_overhead/gpu_idle */
} detail_ctx;

static const char *const GROUP_OP_FIELDS[] = {"row_full_id", "cpu_overhead_sum",
                                              "gpu_idle_sum"};

typedef struct group_ctx {
  dlr_fields f;
  dlr_ops *ops;
} group_ctx;

static int group_op_row(void *ctx, const dldb_row *row) {
  group_ctx *g = ctx;
  dlr_fields_resolve(&g->f, row);
  dlr_op *op = dlr_ops_find(g->ops, dlr_text(&g->f, row, 0));
  if (op && !op->has_group && dlr_has(&g->f, row, 1) && dlr_has(&g->f, row, 2)) {
    op->has_group = 1;
    op->cpu_overhead = dlr_int(&g->f, row, 1);
    op->gpu_idle = dlr_int(&g->f, row, 2);
  }
  return 0;
}

#define F(i) (&c->f), row, (i)

static int detail_row(void *ctx, const dldb_row *row) {
  detail_ctx *c = ctx;
  dlr_out *o = c->o;
  dlr_fields_resolve(&c->f, row);
  int64_t calls = dlr_int(F(DF_CALLS));
  const dlr_op *op = dlr_ops_find(c->ops, dlr_text(F(DF_ID)));
  dlr_cell_str(o, F(DF_ID));
  dlr_cell_str(o, F(DF_NAME));
  dlr_cell_str(o, F(DF_DIR));
  dlr_cell_str(o, F(DF_TYPE));
  dlr_cell_int(o, F(DF_CALLS));
  dlr_cell_yesno(o, F(DF_ELIG));
  dlr_cell_yesno(o, F(DF_USING));
  stat4(o, dlr_has(F(DF_CPU)), dlr_int(F(DF_CPU)), calls, dlr_has(F(DF_CPU_MIN)),
        dlr_int(F(DF_CPU_MIN)), dlr_has(F(DF_CPU_MAX)), dlr_int(F(DF_CPU_MAX)));
  stat4(o, dlr_has(F(DF_GPU)), dlr_int(F(DF_GPU)), calls, dlr_has(F(DF_GPU_MIN)),
        dlr_int(F(DF_GPU_MIN)), dlr_has(F(DF_GPU_MAX)), dlr_int(F(DF_GPU_MAX)));
  int has_ovh = dlr_has(F(DF_OVH)) || (op && op->has_group);
  int64_t ovh = dlr_has(F(DF_OVH)) ? dlr_int(F(DF_OVH)) : op ? op->cpu_overhead : 0;
  stat4(o, has_ovh, ovh, calls, dlr_has(F(DF_OVH_MIN)), dlr_int(F(DF_OVH_MIN)),
        dlr_has(F(DF_OVH_MAX)), dlr_int(F(DF_OVH_MAX)));
  int has_idle = dlr_has(F(DF_IDLE)) || (op && op->has_group);
  int64_t idle = dlr_has(F(DF_IDLE)) ? dlr_int(F(DF_IDLE)) : op ? op->gpu_idle : 0;
  stat4(o, has_idle, idle, calls, dlr_has(F(DF_IDLE_MIN)), dlr_int(F(DF_IDLE_MIN)),
        dlr_has(F(DF_IDLE_MAX)), dlr_int(F(DF_IDLE_MAX)));
  dlr_cell_str(o, F(DF_DTYPE));
  dlr_cell_str(o, F(DF_STACK));
  return dlr_out_end_row(o);
}

int dlr_detail(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain) {
  char src[64];
  dldb_query q;
  detail_ctx c = {.o = o};
  int rc = dlr_ops_load(db, aggr_id, domain, 0, NULL, &c.ops, o->err, o->errlen);
  if (rc != DL_OK) return dlr_out_fail(o, rc);
  /* CPU overhead and GPU idle of each op: its row_type 2 row of view_group_ops. */
  if (dldb_has_view(db, "view_group_ops")) {
    group_ctx g = {.ops = c.ops};
    dlr_fields_init(&g.f, GROUP_OP_FIELDS, 3);
    dlr_query_init(&q, "view_group_ops", aggr_id, domain, NULL);
    dlr_query_eq(&q, "row_type", "2");
    if ((rc = run(db, o, &q, group_op_row, &g)) != DL_OK) goto out;
  }
  if ((rc = dlr_out_section(o, "All Iterations", DETAIL_COLS, NCOLS(DETAIL_COLS), 1)) != DL_OK)
    goto out;
  dlr_fields_init(&c.f, DETAIL_FIELDS, DF_N);
  dlr_query_init(&q, dlr_source(db, "op_nodes", src, sizeof src), aggr_id, domain, "op_node_id");
  rc = run(db, o, &q, detail_row, &c);
out:
  dlr_ops_free(&c.ops);
  return rc;
}

/* ---- iteration ("Iteration Report") ---------------------------------------- */

static const dlr_col ITER_COLS[] = {
    {"Iteration", 0, NULL}, {"Op ID", 1, NULL}, {"Op Name", 1, NULL},
    {"Direction", 0, NULL}, {"Op Type", 1, NULL}, {"Kernel Name", 1, NULL},
    {"Device ID", 0, NULL}, {"GPU Start Time (ns)", 0, NULL}, {"GPU Duration (ns)", 0, NULL},
    {"API Call Start (ns)", 0, NULL}, {"API Call Time (ns)", 0, NULL}, {"Uses TC", 0, NULL},
    {"Grid X", 0, NULL}, {"Grid Y", 0, NULL}, {"Grid Z", 0, NULL},
    {"Block X", 0, NULL}, {"Block Y", 0, NULL}, {"Block Z", 0, NULL},
    {"Data Types", 0, NULL}, {"Input Shapes", 1, NULL}, {"Parameters", 1, NULL},
    {"Output Shapes", 1, NULL}, {"Long Kernel Name", 1, NULL},
};

static const char *const ITER_FIELDS[] = {
    "iter_value", "op_node_id", "kernel_name", "device_id", "kernel_timestamp",
    "kernel_duration", "uses_tc", "grid", "block",
    /* view_dl_iteration_op_kernels only */
    "op_node_name", "direction", "op_node_type", "data_type", "gpu_start", "api_duration",
    "input_shapes", "parameters", "output_shapes", "long_kernel_name"};
enum {
  IF_ITER, IF_ID, IF_KERNEL, IF_DEV, IF_API_START, IF_DUR, IF_TC, IF_GRID, IF_BLOCK, IF_NAME,
  IF_DIR, IF_TYPE, IF_DTYPE, IF_GPU_START, IF_API_DUR, IF_IN, IF_PARAMS, IF_OUT, IF_LONG, IF_N
};

typedef struct iter_ctx {
  dlr_out *o;
  dlr_fields f;
  dlr_ops *ops;
} iter_ctx;

/* "x, y, z" → three cells (empty if it does not parse). */
static void dim3(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i) {
  long long v[3];
  int ok = 0;
  if (dlr_has(f, row, i)) {
    const char *s = dlr_text(f, row, i);
    char *end;
    ok = 1;
    for (int k = 0; k < 3 && ok; k++) {
      v[k] = strtoll(s, &end, 10);
      if (end == s) ok = 0;
      s = end;
      while (*s == ' ') s++;
      if (k < 2) {
        if (*s == ',')
          s++;
        else
          ok = 0;
      }
    }
    while (*s == ' ') s++;
    if (*s) ok = 0;
  }
  for (int k = 0; k < 3; k++) {
    if (ok)
      dlr_out_int(o, v[k]);
    else
      dlr_out_null(o);
  }
}

/* An op field: from the row source when it has the column, else the op table. */
static void op_cell(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i,
                    const char *from_op) {
  if (f->idx[i] >= 0)
    dlr_cell_str(o, f, row, i);
  else if (from_op)
    dlr_out_str(o, from_op);
  else
    dlr_out_null(o);
}

static int iter_row(void *ctx, const dldb_row *row) {
  iter_ctx *c = ctx;
  dlr_out *o = c->o;
  dlr_fields_resolve(&c->f, row);
  const dlr_op *op = dlr_ops_find(c->ops, dlr_text(F(IF_ID)));
  dlr_cell_int(o, F(IF_ITER));
  dlr_cell_str(o, F(IF_ID));
  op_cell(o, F(IF_NAME), op ? op->name : NULL);
  op_cell(o, F(IF_DIR), op ? op->direction : NULL);
  op_cell(o, F(IF_TYPE), op ? op->type : NULL);
  dlr_cell_str(o, F(IF_KERNEL));
  dlr_cell_int(o, F(IF_DEV));
  dlr_cell_int(o, F(IF_GPU_START));
  dlr_cell_int(o, F(IF_DUR));
  dlr_cell_int(o, F(IF_API_START));
  dlr_cell_int(o, F(IF_API_DUR));
  dlr_cell_yesno(o, F(IF_TC));
  dim3(o, F(IF_GRID));
  dim3(o, F(IF_BLOCK));
  op_cell(o, F(IF_DTYPE), op ? op->data_type : NULL);
  dlr_cell_str(o, F(IF_IN));
  dlr_cell_str(o, F(IF_PARAMS));
  dlr_cell_str(o, F(IF_OUT));
  dlr_cell_str(o, F(IF_LONG));
  return dlr_out_end_row(o);
}

int dlr_iteration(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain) {
  char src[64];
  dldb_query q;
  iter_ctx c = {.o = o};
  int rc = dlr_ops_load(db, aggr_id, domain, 0, NULL, &c.ops, o->err, o->errlen);
  if (rc != DL_OK) return dlr_out_fail(o, rc);
  if ((rc = dlr_out_section(o, "Iteration Report", ITER_COLS, NCOLS(ITER_COLS), 1)) == DL_OK) {
    dlr_fields_init(&c.f, ITER_FIELDS, IF_N);
    dlr_query_init(&q, dlr_source(db, "iteration_op_kernels", src, sizeof src), aggr_id, domain,
                   NULL);
    rc = run(db, o, &q, iter_row, &c);
  }
  dlr_ops_free(&c.ops);
  return rc;
}

/* ---- kernel ("Kernel Report") --------------------------------------------- */

static const dlr_col KERNEL_COLS[] = {
    {"Kernel Name", 1, NULL}, {"Op ID", 1, NULL}, {"Op Name", 1, NULL},
    {"Direction", 0, NULL}, {"Uses TC", 0, NULL},
    {"Total GPU Time (ns)", 0, NULL}, {"Avg GPU Time (ns)", 0, NULL},
    {"Min GPU Time (ns)", 0, NULL}, {"Max GPU Time (ns)", 0, NULL},
    {"Total API Time (ns)", 0, NULL}, {"Avg API Time (ns)", 0, NULL},
    {"Min API Time (ns)", 0, NULL}, {"Max API Time (ns)", 0, NULL},
};

static const char *const KERNEL_FIELDS[] = {
    "op_node_id", "kernel_name", "uses_tc", "calls", "gpu_time", "avg", "min", "max",
    /* view_dl_kernel_summaries only */
    "api_time_sum", "api_time_avg", "api_time_min", "api_time_max"};
enum {
  KF_ID, KF_KERNEL, KF_TC, KF_CALLS, KF_GPU, KF_AVG, KF_MIN, KF_MAX, KF_API, KF_API_AVG,
  KF_API_MIN, KF_API_MAX, KF_N
};

/* One buffered row of the current op: what the report prints. */
typedef struct krow {
  char *kernel;
  unsigned has;      /* bit i: value i is known */
  int64_t v[8];      /* uses_tc, gpu sum, min, max, api sum, min, max, - */
  double avg, api_avg;
} krow;
enum { KV_TC, KV_GPU, KV_MIN, KV_MAX, KV_API, KV_API_MIN, KV_API_MAX, KV_AVG, KV_API_AVG };

typedef struct kernel_ctx {
  dlr_out *o;
  dlr_fields f;
  dlr_ops *ops;
  char *op_id; /* the current op; rows of one op are contiguous in the view */
  krow *rows;
  size_t n, cap;
} kernel_ctx;

static int krow_cmp(const void *a, const void *b) {
  return strcmp(((const krow *)a)->kernel, ((const krow *)b)->kernel);
}

static void kv_cell(dlr_out *o, const krow *r, int k) {
  if (r->has & (1u << k))
    dlr_out_int(o, r->v[k]);
  else
    dlr_out_null(o);
}

/* Sorts the current op's kernels by name, prints them and empties the buffer. */
static int kernel_flush(kernel_ctx *c) {
  dlr_out *o = c->o;
  const dlr_op *op = dlr_ops_find(c->ops, c->op_id);
  if (c->n > 1) qsort(c->rows, c->n, sizeof *c->rows, krow_cmp); /* bytewise, as DLProf */
  for (size_t i = 0; i < c->n && o->rc == DL_OK; i++) {
    const krow *r = &c->rows[i];
    dlr_out_str(o, r->kernel);
    dlr_out_str(o, c->op_id);
    if (op) {
      dlr_out_str(o, op->name);
      dlr_out_str(o, op->direction);
    } else {
      dlr_out_null(o);
      dlr_out_null(o);
    }
    if (r->has & (1u << KV_TC))
      dlr_out_yesno(o, r->v[KV_TC] != 0);
    else
      dlr_out_null(o);
    kv_cell(o, r, KV_GPU);
    if (r->has & (1u << KV_AVG))
      dlr_out_real1(o, r->avg);
    else
      dlr_out_null(o);
    kv_cell(o, r, KV_MIN);
    kv_cell(o, r, KV_MAX);
    kv_cell(o, r, KV_API);
    if (r->has & (1u << KV_API_AVG))
      dlr_out_real1(o, r->api_avg);
    else
      dlr_out_null(o);
    kv_cell(o, r, KV_API_MIN);
    kv_cell(o, r, KV_API_MAX);
    dlr_out_end_row(o);
  }
  for (size_t i = 0; i < c->n; i++) free(c->rows[i].kernel);
  c->n = 0;
  return o->rc;
}

static int kernel_row(void *ctx, const dldb_row *row) {
  kernel_ctx *c = ctx;
  dlr_fields_resolve(&c->f, row);
  const char *id = dlr_text(F(KF_ID));
  if (!c->op_id || strcmp(c->op_id, id) != 0) {
    if (kernel_flush(c) != DL_OK) return 1;
    free(c->op_id);
    if (!(c->op_id = strdup(id))) return dlr_out_fail(c->o, DL_ENOMEM);
  }
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    krow *r = realloc(c->rows, cap * sizeof *r);
    if (!r) return dlr_out_fail(c->o, DL_ENOMEM);
    c->rows = r;
    c->cap = cap;
  }
  krow *r = &c->rows[c->n];
  memset(r, 0, sizeof *r);
  if (!(r->kernel = strdup(dlr_text(F(KF_KERNEL))))) return dlr_out_fail(c->o, DL_ENOMEM);
  c->n++;
  static const int map[][2] = {{KV_TC, KF_TC},   {KV_GPU, KF_GPU},         {KV_MIN, KF_MIN},
                               {KV_MAX, KF_MAX}, {KV_API, KF_API},         {KV_API_MIN, KF_API_MIN},
                               {KV_API_MAX, KF_API_MAX}};
  for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
    if (dlr_has(F(map[k][1]))) {
      r->has |= 1u << map[k][0];
      r->v[map[k][0]] = dlr_int(F(map[k][1]));
    }
  }
  if (dlr_has(F(KF_AVG))) {
    r->has |= 1u << KV_AVG;
    r->avg = dlr_real(F(KF_AVG));
  }
  if (dlr_has(F(KF_API_AVG))) {
    r->has |= 1u << KV_API_AVG;
    r->api_avg = dlr_real(F(KF_API_AVG));
  }
  /* One launch: min = max = total exactly. */
  int64_t calls = dlr_has(F(KF_CALLS)) ? dlr_int(F(KF_CALLS)) : -1;
  if (calls == 1 && (r->has & (1u << KV_API))) {
    if (!(r->has & (1u << KV_API_MIN))) r->v[KV_API_MIN] = r->v[KV_API];
    if (!(r->has & (1u << KV_API_MAX))) r->v[KV_API_MAX] = r->v[KV_API];
    r->has |= (1u << KV_API_MIN) | (1u << KV_API_MAX);
  }
  if (calls > 0 && (r->has & (1u << KV_API)) && !(r->has & (1u << KV_API_AVG))) {
    r->has |= 1u << KV_API_AVG;
    r->api_avg = (double)r->v[KV_API] / (double)calls;
  }
  return c->o->rc;
}

int dlr_kernel(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain) {
  char src[64];
  dldb_query q;
  kernel_ctx c = {.o = o};
  int rc = dlr_ops_load(db, aggr_id, domain, 0, NULL, &c.ops, o->err, o->errlen);
  if (rc != DL_OK) return dlr_out_fail(o, rc);
  if ((rc = dlr_out_section(o, "Kernel Report", KERNEL_COLS, NCOLS(KERNEL_COLS), 1)) == DL_OK) {
    dlr_fields_init(&c.f, KERNEL_FIELDS, KF_N);
    dlr_query_init(&q, dlr_source(db, "kernel_summaries", src, sizeof src), aggr_id, domain,
                   NULL);
    rc = run(db, o, &q, kernel_row, &c);
    if (rc == DL_OK && c.op_id) rc = kernel_flush(&c);
  }
  for (size_t i = 0; i < c.n; i++) free(c.rows[i].kernel);
  free(c.rows);
  free(c.op_id);
  dlr_ops_free(&c.ops);
  return rc;
}

/* ---- tensor ("Tensor Core Report", dlprof_tensor_core.csv) ------------------ */

static const dlr_col TENSOR_COLS[] = {
    {"Op ID", 1, NULL}, {"Op Name", 1, NULL}, {"Direction", 0, NULL}, {"Op Type", 1, NULL},
    {"Uses TC", 0, NULL}, {"Total GPU Time (ns)", 0, NULL}, {"TC GPU Time (ns)", 0, NULL},
    {"Non-TC GPU Time (ns)", 0, NULL}, {"TC Utilization (%)", 0, NULL},
    {"Total Kernel Count", 0, NULL}, {"TC Kernel Count", 0, NULL},
    {"TC Kernel Names", 1, NULL}, {"Non-TC Kernel Count", 0, NULL},
    {"Non-TC Kernel Names", 1, NULL},
};

static const char *const TENSOR_FIELDS[] = {"op_node_id", "kernel_name", "uses_tc", "gpu_time"};

typedef struct tensor_ctx {
  dlr_out *o;
  dlr_fields f;
  dlr_ops *ops; /* TC-eligible ops only */
} tensor_ctx;

static int tensor_kernel_row(void *ctx, const dldb_row *row) {
  tensor_ctx *c = ctx;
  dlr_fields_resolve(&c->f, row);
  dlr_op *op = dlr_ops_find(c->ops, dlr_text(F(0)));
  if (!op) return 0;
  int tc = dlr_int(F(2)) != 0;
  if (tc)
    op->tc_time = dlr_add_sat(op->tc_time, dlr_int(F(3)));
  else
    op->non_tc_time = dlr_add_sat(op->non_tc_time, dlr_int(F(3)));
  if (dlr_op_add_kernel(op, dlr_text(F(1)), tc) != DL_OK) return dlr_out_fail(c->o, DL_ENOMEM);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The op's TC (tc = 1) or non-TC kernel names, sorted, ", "-separated, as
 * one cell. */
static int names_cell(dlr_out *o, const dlr_op *op, int tc) {
  size_t n = 0, len = 1;
  for (size_t i = 0; i < op->nk; i++)
    if (op->ktc[i] == tc) {
      n++;
      len += strlen(op->knames[i]) + 2;
    }
  char **v = n ? malloc(n * sizeof *v) : NULL;
  char *s = malloc(len);
  if ((n && !v) || !s) {
    free(v);
    free(s);
    return dlr_out_fail(o, DL_ENOMEM);
  }
  n = 0;
  for (size_t i = 0; i < op->nk; i++)
    if (op->ktc[i] == tc) v[n++] = op->knames[i];
  if (n > 1) qsort(v, n, sizeof *v, cmp_str);
  char *p = s;
  for (size_t i = 0; i < n; i++) {
    if (i) {
      memcpy(p, ", ", 2);
      p += 2;
    }
    size_t k = strlen(v[i]);
    memcpy(p, v[i], k);
    p += k;
  }
  *p = '\0';
  dlr_out_int(o, (int64_t)n);
  dlr_out_str(o, s);
  free(v);
  free(s);
  return o->rc;
}

int dlr_tensor(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain) {
  dldb_query q;
  tensor_ctx c = {.o = o};
  int rc = dlr_ops_load(db, aggr_id, domain, 1, "op_node_id", &c.ops, o->err, o->errlen);
  if (rc != DL_OK) return dlr_out_fail(o, rc);
  dlr_fields_init(&c.f, TENSOR_FIELDS, 4);
  dlr_query_init(&q, "view_kernel_summaries", aggr_id, domain, NULL);
  if ((rc = run(db, o, &q, tensor_kernel_row, &c)) != DL_OK) goto out;
  if ((rc = dlr_out_section(o, "Tensor Core Report", TENSOR_COLS, NCOLS(TENSOR_COLS), 1)) !=
      DL_OK)
    goto out;
  for (size_t i = 0; i < dlr_ops_count(c.ops) && o->rc == DL_OK; i++) {
    const dlr_op *op = dlr_ops_nth(c.ops, i);
    int64_t total = op->tc_time + op->non_tc_time;
    dlr_out_str(o, op->id);
    dlr_out_str(o, op->name);
    dlr_out_str(o, op->direction);
    dlr_out_str(o, op->type);
    dlr_out_yesno(o, op->using_tc);
    dlr_out_int(o, total);
    dlr_out_int(o, op->tc_time);
    dlr_out_int(o, op->non_tc_time);
    dlr_out_real1(o, total > 0 ? 100.0 * (double)op->tc_time / (double)total : 0.0);
    dlr_out_int(o, (int64_t)op->nk);
    names_cell(o, op, 1);
    names_cell(o, op, 0);
    dlr_out_end_row(o);
  }
  rc = o->rc;
out:
  dlr_ops_free(&c.ops);
  return rc;
}

/* ---- op_type ("Op Type Summary Report") ------------------------------------- */

static const dlr_col OP_TYPE_COLS[] = {
    {"Op Type", 1, NULL}, {"# Ops", 0, NULL}, {"# Calls", 0, NULL},
    {"Total CPU Time (ns)", 0, NULL}, {"Avg. CPU Time (ns)", 0, NULL},
    {"Min CPU Time (ns)", 0, NULL}, {"Max CPU Time (ns)", 0, NULL},
    {"Total GPU Time (ns)", 0, NULL}, {"Avg. GPU Time (ns)", 0, NULL},
    {"Min GPU Time (ns)", 0, NULL}, {"Max GPU Time (ns)", 0, NULL},
    {"Total CPU Overhead (ns)", 0, NULL}, {"Avg. CPU Overhead (ns)", 0, NULL},
    {"Min CPU Overhead (ns)", 0, NULL}, {"Max CPU Overhead (ns)", 0, NULL},
    {"Total GPU Idle (ns)", 0, NULL}, {"Avg. GPU Idle (ns)", 0, NULL},
    {"Min GPU Idle (ns)", 0, NULL}, {"Max GPU Idle (ns)", 0, NULL},
};

static const char *const OP_TYPE_FIELDS[] = {
    "op_node_type",     "num_nodes",        "num_calls",        "cpu_time_sum",
    "cpu_time_avg",     "cpu_time_min",     "cpu_time_max",     "gpu_time_sum",
    "gpu_time_avg",     "gpu_time_min",     "gpu_time_max",     "cpu_overhead_sum",
    "cpu_overhead_avg", "cpu_overhead_min", "cpu_overhead_max", "gpu_idle_sum",
    "gpu_idle_avg",     "gpu_idle_min",     "gpu_idle_max"};

typedef struct plain_ctx {
  dlr_out *o;
  dlr_fields f;
} plain_ctx;

static int op_type_row(void *ctx, const dldb_row *row) {
  plain_ctx *c = ctx;
  dlr_fields_resolve(&c->f, row);
  dlr_cell_str(c->o, F(0));
  dlr_cell_int(c->o, F(1));
  dlr_cell_int(c->o, F(2));
  for (int m = 0; m < 4; m++) {
    int b = 3 + 4 * m;
    dlr_cell_int(c->o, F(b));
    dlr_cell_real1(c->o, F(b + 1));
    dlr_cell_int(c->o, F(b + 2));
    dlr_cell_int(c->o, F(b + 3));
  }
  return dlr_out_end_row(c->o);
}

int dlr_op_type(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain) {
  dldb_query q;
  plain_ctx c = {.o = o};
  int rc = dlr_out_section(o, "Op Type Summary Report", OP_TYPE_COLS, NCOLS(OP_TYPE_COLS), 1);
  if (rc != DL_OK) return rc;
  dlr_fields_init(&c.f, OP_TYPE_FIELDS, NCOLS(OP_TYPE_FIELDS));
  dlr_query_init(&q, "view_op_type_summary", aggr_id, domain, "op_node_type");
  return run(db, o, &q, op_type_row, &c);
}

/* ---- group_node ("Group Op Report", dlprof_group_op.csv) --------------------- */

static const dlr_col GROUP_COLS[] = {
    {"Name", 1, NULL}, {"Num Calls Aggregated", 0, NULL}, {"Num TC Eligible Ops", 0, NULL},
    {"Num Ops Using TC", 0, NULL},
    {"Total CPU Time (ns)", 0, NULL}, {"Avg. CPU Time (ns)", 0, NULL},
    {"Min CPU Time (ns)", 0, NULL}, {"Max CPU Time (ns)", 0, NULL},
    {"Total GPU Time (ns)", 0, NULL}, {"Avg. GPU Time (ns)", 0, NULL},
    {"Min GPU Time (ns)", 0, NULL}, {"Max GPU Time (ns)", 0, NULL},
    {"Total CPU Overhead (ns)", 0, NULL}, {"Avg. CPU Overhead (ns)", 0, NULL},
    {"Min CPU Overhead (ns)", 0, NULL}, {"Max CPU Overhead (ns)", 0, NULL},
    {"Total GPU Idle (ns)", 0, NULL}, {"Avg. GPU Idle (ns)", 0, NULL},
    {"Min GPU Idle (ns)", 0, NULL}, {"Max GPU Idle (ns)", 0, NULL},
};

static const char *const GROUP_FIELDS[] = {
    "row_full_name", "num_op_instances", "num_supported_leaf_ops", "num_tc_leaf_ops",
    "cpu_time_sum", "gpu_time_sum", "cpu_overhead_sum", "gpu_idle_sum",
    /* view_dl_group_ops only: per-iteration statistics */
    "cpu_time_avg", "cpu_time_min", "cpu_time_max", "gpu_time_avg", "gpu_time_min",
    "gpu_time_max", "cpu_overhead_avg", "cpu_overhead_min", "cpu_overhead_max", "gpu_idle_avg",
    "gpu_idle_min", "gpu_idle_max"};
enum { GF_NAME, GF_CALLS, GF_ELIG, GF_TC, GF_SUM, GF_AVG = GF_SUM + 4, GF_N = GF_AVG + 12 };

typedef struct group_rep_ctx {
  dlr_out *o;
  dlr_fields f;
  int64_t iters;  /* profiled iterations, -1 unknown */
  int64_t tot[7]; /* _CompleteModel_: calls, eligible, tc, 4 sums */
  int have[7];
} group_rep_ctx;

/* Avg/Min/Max of a group's metric over the aggregated iterations: from the
 * row source when it has them, else exact only for a one-iteration
 * aggregation (all three equal Total), else empty. */
static void group_stats(dlr_out *o, int has_total, int64_t total, int64_t iters,
                        const dlr_fields *f, const dldb_row *row, int m) {
  if (has_total)
    dlr_out_int(o, total);
  else
    dlr_out_null(o);
  int base = GF_AVG + 3 * m;
  if (row && dlr_has(f, row, base))
    dlr_out_real1(o, dlr_real(f, row, base));
  else if (has_total && iters == 1)
    dlr_out_real1(o, (double)total);
  else
    dlr_out_null(o);
  for (int k = 1; k <= 2; k++) {
    if (row && dlr_has(f, row, base + k))
      dlr_out_int(o, dlr_int(f, row, base + k));
    else if (has_total && iters == 1)
      dlr_out_int(o, total);
    else
      dlr_out_null(o);
  }
}

static int group_total_row(void *ctx, const dldb_row *row) {
  group_rep_ctx *c = ctx;
  dlr_fields_resolve(&c->f, row);
  for (int k = 0; k < 7; k++) {
    if (dlr_has(F(GF_CALLS + k))) {
      c->tot[k] = dlr_add_sat(c->tot[k], dlr_int(F(GF_CALLS + k)));
      c->have[k] = 1;
    }
  }
  return 0;
}

static int group_row(void *ctx, const dldb_row *row) {
  group_rep_ctx *c = ctx;
  dlr_fields_resolve(&c->f, row);
  dlr_cell_str(c->o, F(GF_NAME));
  dlr_cell_int(c->o, F(GF_CALLS));
  dlr_cell_int(c->o, F(GF_ELIG));
  dlr_cell_int(c->o, F(GF_TC));
  for (int m = 0; m < 4; m++)
    group_stats(c->o, dlr_has(F(GF_SUM + m)), dlr_int(F(GF_SUM + m)), c->iters, &c->f, row, m);
  return dlr_out_end_row(c->o);
}

int dlr_group_node(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain) {
  char src[64];
  dldb_query q;
  group_rep_ctx c = {.o = o};
  c.iters = profiled_iterations(db, aggr_id, domain);
  const char *view = dlr_source(db, "group_ops", src, sizeof src);
  /* _CompleteModel_: the sums over all ops (row_type 2). */
  dlr_fields_init(&c.f, GROUP_FIELDS, GF_N);
  dlr_query_init(&q, view, aggr_id, domain, NULL);
  dlr_query_eq(&q, "row_type", "2");
  int rc = run(db, o, &q, group_total_row, &c);
  if (rc != DL_OK) return rc;
  if ((rc = dlr_out_section(o, "Group Op Report", GROUP_COLS, NCOLS(GROUP_COLS), 1)) != DL_OK)
    return rc;
  dlr_fields_init(&c.f, GROUP_FIELDS, GF_N);
  dlr_query_init(&q, view, aggr_id, domain, "row_full_name");
  dlr_query_eq(&q, "row_type", "1");
  if ((rc = run(db, o, &q, group_row, &c)) != DL_OK) return rc;
  dlr_out_str(o, "_CompleteModel_");
  for (int k = 0; k < 3; k++) {
    if (c.have[k])
      dlr_out_int(o, c.tot[k]);
    else
      dlr_out_null(o);
  }
  for (int m = 0; m < 4; m++)
    group_stats(o, c.have[3 + m], c.tot[3 + m], c.iters, &c.f, NULL, m);
  return dlr_out_end_row(o);
}

/* ---- expert_systems ("Expert Systems Feedback") ------------------------------ */

static const dlr_col EXPERT_COLS[] = {{"Problem", 1, NULL}, {"Recommendation", 1, NULL}};
static const char *const EXPERT_FIELDS[] = {"problem", "recommendation"};

static int expert_row(void *ctx, const dldb_row *row) {
  plain_ctx *c = ctx;
  dlr_fields_resolve(&c->f, row);
  dlr_cell_str(c->o, F(0));
  dlr_cell_str(c->o, F(1));
  return dlr_out_end_row(c->o);
}

int dlr_expert_systems(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain) {
  dldb_query q;
  plain_ctx c = {.o = o};
  int rc = dlr_out_section(o, "Expert Systems Feedback", EXPERT_COLS, NCOLS(EXPERT_COLS), 1);
  if (rc != DL_OK) return rc;
  dlr_fields_init(&c.f, EXPERT_FIELDS, 2);
  dlr_query_init(&q, "view_expert_systems", aggr_id, domain, NULL);
  return run(db, o, &q, expert_row, &c);
}

/* ---- shared ------------------------------------------------------------------ */

static int iters_row(void *ctx, const dldb_row *row) {
  int64_t *n = ctx;
  for (int i = 0; i < dldb_row_count(row); i++)
    if (strcmp(dldb_row_name(row, i), "profiled_iterations") == 0 && dldb_row_type(row, i))
      *n = dldb_row_int(row, i);
  return 1;
}

static int64_t profiled_iterations(dldb *db, int64_t aggr_id, const char *domain) {
  int64_t n = -1;
  dldb_query q;
  dlr_query_init(&q, "view_performance_summary", aggr_id, domain, NULL);
  if (dldb_query_rows(db, &q, iters_row, &n, NULL, 0) != DL_OK) return -1;
  return n;
}
