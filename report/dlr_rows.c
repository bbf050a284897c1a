/*
 * dlr_rows.c - reading view rows by column name, query set-up, and the op
 * table (op_node_id → op fields) that the kernel-level reports join with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_map.h"
#include "dlr_internal.h"

void dlr_fields_init(dlr_fields *f, const char *const *names, int n) {
  memset(f, 0, sizeof *f);
  f->names = names;
  f->n = n < DLR_MAX_FIELDS ? n : DLR_MAX_FIELDS;
}

void dlr_fields_resolve(dlr_fields *f, const dldb_row *row) {
  if (f->resolved) return;
  int nc = dldb_row_count(row);
  for (int i = 0; i < f->n; i++) {
    f->idx[i] = -1;
    for (int c = 0; c < nc; c++) {
      const char *name = dldb_row_name(row, c);
      if (name && strcmp(name, f->names[i]) == 0) {
        f->idx[i] = c;
        break;
      }
    }
  }
  f->resolved = 1;
}

int dlr_has(const dlr_fields *f, const dldb_row *row, int i) {
  return i >= 0 && i < f->n && f->idx[i] >= 0 && dldb_row_type(row, f->idx[i]) != 0;
}

int64_t dlr_int(const dlr_fields *f, const dldb_row *row, int i) {
  if (!dlr_has(f, row, i)) return 0;
  if (dldb_row_type(row, f->idx[i]) == DLDB_COL_REAL) {
    return dlr_real_sat(dldb_row_real(row, f->idx[i]));
  }
  return dldb_row_int(row, f->idx[i]);
}

double dlr_real(const dlr_fields *f, const dldb_row *row, int i) {
  if (!dlr_has(f, row, i)) return 0.0;
  return dldb_row_real(row, f->idx[i]);
}

const char *dlr_text(const dlr_fields *f, const dldb_row *row, int i) {
  if (!dlr_has(f, row, i)) return "";
  return dldb_row_text(row, f->idx[i]);
}

int dlr_real_to_int(double d, int64_t *out) {
  double r = d < 0 ? d - 0.5 : d + 0.5;
  /* the bounds are exact doubles: -2^63 and 2^63 */
  if (!(r > -9223372036854775808.0 && r < 9223372036854775808.0)) return 0;
  *out = (int64_t)r;
  return 1;
}

int64_t dlr_add_sat(int64_t a, int64_t b) {
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}

int64_t dlr_real_sat(double d) {
  int64_t v;
  if (dlr_real_to_int(d, &v)) return v;
  return d > 0 ? INT64_MAX : d < 0 ? INT64_MIN : 0;
}

/* Integer columns print as integers; a REAL that holds a whole number (a sum
 * some producer stored as REAL) too; any other REAL with one decimal; TEXT
 * as it is. */
void dlr_cell_int(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i) {
  if (!dlr_has(f, row, i)) {
    dlr_out_null(o);
    return;
  }
  int t = dldb_row_type(row, f->idx[i]);
  if (t == DLDB_COL_INTEGER) {
    dlr_out_int(o, dldb_row_int(row, f->idx[i]));
  } else if (t == DLDB_COL_REAL) {
    double d = dldb_row_real(row, f->idx[i]);
    int64_t v;
    if (dlr_real_to_int(d, &v) && d == (double)v)
      dlr_out_int(o, v);
    else
      dlr_out_real1(o, d);
  } else {
    dlr_out_str(o, dldb_row_text(row, f->idx[i]));
  }
}

void dlr_cell_real1(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i) {
  if (!dlr_has(f, row, i))
    dlr_out_null(o);
  else
    dlr_out_real1(o, dldb_row_real(row, f->idx[i]));
}

void dlr_cell_str(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i) {
  if (!dlr_has(f, row, i))
    dlr_out_null(o);
  else
    dlr_out_str(o, dldb_row_text(row, f->idx[i]));
}

void dlr_cell_yesno(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i) {
  if (!dlr_has(f, row, i))
    dlr_out_null(o);
  else
    dlr_out_yesno(o, dlr_int(f, row, i) != 0);
}

void dlr_query_init(dldb_query *q, const char *view, int64_t aggr_id, const char *domain,
                    const char *sort) {
  memset(q, 0, sizeof *q);
  q->view = view;
  q->aggr_id = aggr_id;
  q->domain = domain;
  q->sort = sort;
  q->limit = -1;
}

void dlr_query_eq(dldb_query *q, const char *column, const char *value) {
  if (q->n_eq < DLDB_MAX_EQ) {
    q->eq[q->n_eq].column = column;
    q->eq[q->n_eq].value = value;
    q->n_eq++;
  }
}

const char *dlr_source(dldb *db, const char *base, char *buf, size_t len) {
  snprintf(buf, len, "view_dl_%s", base);
  if (dldb_has_view(db, buf)) return buf;
  snprintf(buf, len, "view_%s", base);
  return buf;
}

/* ---- The op table: ops in load order, found by op_node_id --------------- */

struct dlr_ops {
  dlr_op *ops;     /* in load order */
  size_t n, cap;
  dl_smap by_id;   /* op_node_id -> index in ops; keys borrowed from ops[i].id */
  int rc;
};

static void op_clear(dlr_op *op) {
  free(op->id);
  free(op->name);
  free(op->direction);
  free(op->type);
  free(op->data_type);
  for (size_t i = 0; i < op->nk; i++) free(op->knames[i]);
  free(op->knames);
  free(op->ktc);
}

static const char *const OP_FIELDS[] = {"op_node_id", "op_node_name", "direction",
                                        "op_node_type", "data_type", "using_tc",
                                        "tc_eligible"};
enum { OF_ID, OF_NAME, OF_DIR, OF_TYPE, OF_DTYPE, OF_USING, OF_ELIG, OF_N };

typedef struct ops_load {
  dlr_ops *ops;
  dlr_fields f;
} ops_load;

static char *dup_text(const char *s, int *bad) {
  char *d = strdup(s ? s : "");
  if (!d) *bad = 1;
  return d;
}

static int ops_row(void *ctx, const dldb_row *row) {
  ops_load *l = ctx;
  dlr_ops *ops = l->ops;
  dlr_fields_resolve(&l->f, row);
  const char *id = dlr_text(&l->f, row, OF_ID);
  if (dlr_ops_find(ops, id)) return 0; /* first row of an id wins */
  if (ops->n == ops->cap) {
    size_t cap = ops->cap ? ops->cap * 2 : 256;
    dlr_op *grown = realloc(ops->ops, cap * sizeof *grown);
    if (!grown) {
      ops->rc = DL_ENOMEM;
      return 1;
    }
    ops->ops = grown;
    ops->cap = cap;
  }
  dlr_op op = {0};
  int bad = 0;
  op.id = dup_text(id, &bad);
  op.name = dup_text(dlr_text(&l->f, row, OF_NAME), &bad);
  op.direction = dup_text(dlr_text(&l->f, row, OF_DIR), &bad);
  op.type = dup_text(dlr_text(&l->f, row, OF_TYPE), &bad);
  op.data_type = dup_text(dlr_text(&l->f, row, OF_DTYPE), &bad);
  op.using_tc = dlr_int(&l->f, row, OF_USING) != 0;
  op.tc_eligible = dlr_int(&l->f, row, OF_ELIG) != 0;
  if (bad) {
    op_clear(&op);
    ops->rc = DL_ENOMEM;
    return 1;
  }
  if (dl_smap_put(&ops->by_id, op.id, (int64_t)ops->n)) {
    op_clear(&op);
    ops->rc = DL_ENOMEM;
    return 1;
  }
  ops->ops[ops->n++] = op;
  return 0;
}

int dlr_ops_load(dldb *db, int64_t aggr_id, const char *domain, int eligible_only,
                 const char *sort, dlr_ops **out, char *err, size_t errlen) {
  *out = NULL;
  ops_load l = {0};
  if (!(l.ops = calloc(1, sizeof *l.ops)))
    return dl_err(err, errlen, DL_ENOMEM, "report: out of memory");
  dl_smap_init(&l.ops->by_id);
  dlr_fields_init(&l.f, OP_FIELDS, OF_N);
  dldb_query q;
  dlr_query_init(&q, "view_op_nodes", aggr_id, domain, sort);
  if (eligible_only) dlr_query_eq(&q, "tc_eligible", "1");
  int rc = dldb_query_rows(db, &q, ops_row, &l, err, errlen);
  if (rc == DL_OK && l.ops->rc != DL_OK)
    rc = dl_err(err, errlen, l.ops->rc, "report: out of memory");
  if (rc != DL_OK) {
    dlr_ops_free(&l.ops);
    return rc;
  }
  *out = l.ops;
  return DL_OK;
}

size_t dlr_ops_count(const dlr_ops *ops) { return ops ? ops->n : 0; }

dlr_op *dlr_ops_nth(dlr_ops *ops, size_t i) {
  return ops && i < ops->n ? &ops->ops[i] : NULL;
}

dlr_op *dlr_ops_find(const dlr_ops *ops, const char *id) {
  if (!ops || !id) return NULL;
  int64_t i = dl_smap_get(&ops->by_id, id);
  return i < 0 ? NULL : &ops->ops[i];
}

int dlr_op_add_kernel(dlr_op *op, const char *name, int uses_tc) {
  if (op->nk == op->capk) {
    size_t cap = op->capk ? op->capk * 2 : 8;
    char **kn = realloc(op->knames, cap * sizeof *kn);
    if (!kn) return DL_ENOMEM;
    op->knames = kn;
    int *kt = realloc(op->ktc, cap * sizeof *kt);
    if (!kt) return DL_ENOMEM;
    op->ktc = kt;
    op->capk = cap;
  }
  char *d = strdup(name ? name : "");
  if (!d) return DL_ENOMEM;
  op->knames[op->nk] = d;
  op->ktc[op->nk] = uses_tc;
  op->nk++;
  return DL_OK;
}

void dlr_ops_free(dlr_ops **ops) {
  if (!ops || !*ops) return;
  for (size_t i = 0; i < (*ops)->n; i++) op_clear(&(*ops)->ops[i]);
  free((*ops)->ops);
  dl_smap_free(&(*ops)->by_id);
  free(*ops);
  *ops = NULL;
}
