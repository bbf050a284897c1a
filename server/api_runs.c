/*
 * api_runs.c - GET /api/v1/runs: one row per served database, for the runs
 * page, paged, sorted and filtered like the view endpoints (offset, limit,
 * sort, order, filter, <column>=<value>; without limit every row). Folders
 * are rescanned first (runs.h: a stat per folder, read again only when
 * changed); each row's values are read once per version of its file. Files
 * found in a folder that are not dldbs this viewer can serve (an Nsight
 * Systems export beside a dldb, say) are left out; a file given on the
 * command line is listed with its error.
 *
 * The rows are few (one per file), so they are selected and ordered here,
 * in memory, with the rules of db/dldb_query.c: text compares bytewise,
 * numbers by value, the filter is a case-insensitive substring of the name
 * columns, ties fall back to the name, then the id.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "params.h"
#include "routes.h"

/* The columns of a row, in its JSON order. */
enum {
  C_RUN, C_NAME, C_PATH, C_OK, C_ERROR, C_PRODUCER, C_DATE, C_NUM_GPUS, C_ITERATIONS,
  C_ITER_AVG, C_GPU_UTILIZATION, C_KEY_OP, C_FILE_BYTES, C_MTIME_S, C_COUNT
};

static char *const col_names[C_COUNT] = {
    "run",      "name",       "path",     "ok",              "error",  "producer",   "date",
    "num_gpus", "iterations", "iter_avg", "gpu_utilization", "key_op", "file_bytes", "mtime_s"};
static dldb_coltype col_types[C_COUNT] = {
    DLDB_COL_TEXT,    DLDB_COL_TEXT,    DLDB_COL_TEXT, DLDB_COL_INTEGER, DLDB_COL_TEXT,
    DLDB_COL_TEXT,    DLDB_COL_TEXT,    DLDB_COL_INTEGER, DLDB_COL_INTEGER, DLDB_COL_REAL,
    DLDB_COL_REAL,    DLDB_COL_TEXT,    DLDB_COL_INTEGER, DLDB_COL_INTEGER};
static const dlv_viewcat runs_cols = {.present = 1, .n = C_COUNT, .names = (char **)col_names,
                                      .types = col_types};
/* The list: no default sort (the runs' own order: command line, then folder order). */
static const dlv_view runs_view = {"runs", "runs", DLV_LIST, 0, NULL, 0, {NULL}, "the runs page"};

/* Columns `filter` searches. */
static const int filter_cols[] = {C_NAME, C_PATH, C_PRODUCER, C_KEY_OP};

/* A column's value: text (t) or a number (d, exact for the integers here). */
typedef struct cell {
  const char *t;
  double d;
} cell;

static cell value(const dlv_run_meta *m, int c) {
  switch (c) {
  case C_RUN: return (cell){m->id, 0};
  case C_NAME: return (cell){m->name, 0};
  case C_PATH: return (cell){m->path, 0};
  case C_OK: return (cell){NULL, m->ok};
  case C_ERROR: return (cell){m->ok ? "" : m->error, 0};
  case C_PRODUCER: return (cell){m->producer, 0};
  case C_DATE: return (cell){m->date, 0};
  case C_NUM_GPUS: return (cell){NULL, (double)m->num_gpus};
  case C_ITERATIONS: return (cell){NULL, (double)m->iterations};
  case C_ITER_AVG: return (cell){NULL, m->iter_avg};
  case C_GPU_UTILIZATION: return (cell){NULL, m->gpu_utilization};
  case C_KEY_OP: return (cell){m->key_op, 0};
  case C_FILE_BYTES: return (cell){NULL, (double)m->file_bytes};
  default: return (cell){NULL, (double)m->mtime_s};
  }
}

static int cell_cmp(cell a, cell b) {
  if (a.t || b.t) return strcmp(a.t ? a.t : "", b.t ? b.t : "");
  return (a.d > b.d) - (a.d < b.d);
}

static int column_of(const char *name) {
  for (int c = 0; name && c < C_COUNT; c++)
    if (strcmp(col_names[c], name) == 0) return c;
  return -1;
}

/* The order of a page: sort column (-1: the runs' own order), direction. */
typedef struct order {
  int sort, desc;
} order;

static int before(const dlv_run_meta *a, const dlv_run_meta *b, order o) {
  int r = 0;
  if (o.sort >= 0) {
    r = cell_cmp(value(a, o.sort), value(b, o.sort));
    if (o.desc) r = -r;
    if (!r) r = strcmp(a->name, b->name);
    if (!r) r = strcmp(a->id, b->id);
  }
  if (!r) r = (a->index > b->index) - (a->index < b->index); /* the runs' own order */
  return r < 0;
}

/* Sorts the pointers at v (n of them) by o: an insertion sort, the list is
 * one row per served file. */
static void sort_rows(const dlv_run_meta **v, int n, order o) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && before(v[j], v[j - 1], o); j--) {
      const dlv_run_meta *t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

/* 1 when needle (lower case) is in s, ASCII case ignored (SQL's lower()). */
static int has_lower(const char *s, const char *needle) {
  size_t n = strlen(needle);
  for (; *s; s++) {
    size_t i = 0;
    while (i < n && s[i] && tolower((unsigned char)s[i]) == (unsigned char)needle[i]) i++;
    if (i == n) return 1;
  }
  return n == 0;
}

/* 1 when m passes the filter and every column filter of p. */
static int selected(const dlv_run_meta *m, const dlv_params *p, const char *filter_lc) {
  if (filter_lc) {
    int any = 0;
    for (size_t i = 0; i < sizeof filter_cols / sizeof *filter_cols && !any; i++)
      any = has_lower(value(m, filter_cols[i]).t, filter_lc);
    if (!any) return 0;
  }
  for (int i = 0; i < p->n_eq; i++) {
    int c = column_of(p->eq[i].column);
    cell v = value(m, c);
    if (v.t ? strcmp(v.t, p->eq[i].value) != 0 : v.d != strtod(p->eq[i].value, NULL)) return 0;
  }
  return 1;
}

static cJSON *row_json(const dlv_run_meta *m) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "run", m->id);
  cJSON_AddStringToObject(o, "name", m->name);
  cJSON_AddStringToObject(o, "path", m->path);
  cJSON_AddBoolToObject(o, "ok", m->ok);
  if (!m->ok) {
    cJSON_AddStringToObject(o, "error", m->error);
    return o;
  }
  cJSON_AddStringToObject(o, "producer", m->producer);
  cJSON_AddStringToObject(o, "date", m->date);
  cJSON_AddItemToObject(o, "num_gpus", dlv_json_int(m->num_gpus));
  cJSON_AddItemToObject(o, "iterations", dlv_json_int(m->iterations));
  cJSON_AddNumberToObject(o, "iter_avg", m->iter_avg);
  cJSON_AddNumberToObject(o, "gpu_utilization", m->gpu_utilization);
  cJSON_AddStringToObject(o, "key_op", m->key_op);
  cJSON_AddItemToObject(o, "file_bytes", dlv_json_int(m->file_bytes));
  cJSON_AddItemToObject(o, "mtime_s", dlv_json_int(m->mtime_s));
  return o;
}

/* The rows of every listed run into a new array (*n of them; NULL: out of
 * memory). */
static dlv_run_meta *read_rows(dlv_runs *rs, int *n) {
  int count = dlv_runs_count(rs);
  dlv_run_meta *v = malloc((size_t)(count ? count : 1) * sizeof *v);
  *n = 0;
  if (!v) return NULL;
  for (int i = 0; i < count; i++) {
    dlv_run_meta *m = &v[*n];
    if (!dlv_runs_meta(rs, i, m)) continue;
    if (!m->ok && !m->given) continue;
    m->index = i;
    (*n)++;
  }
  return v;
}

/* The page of rows (v, n of them) that p selects, as the answer's tree;
 * sel has room for n pointers. */
static cJSON *page_json(const dlv_run_meta *v, int n, const dlv_params *p, int all,
                        const dlv_run_meta **sel) {
  char filter_lc[DLV_FILTER_MAX + 1] = "";
  if (p->filter) {
    size_t i = 0;
    for (; p->filter[i] && i < DLV_FILTER_MAX; i++)
      filter_lc[i] = (char)tolower((unsigned char)p->filter[i]);
    filter_lc[i] = '\0';
  }
  int kept = 0;
  for (int i = 0; i < n; i++)
    if (selected(&v[i], p, p->filter ? filter_lc : NULL)) sel[kept++] = &v[i];
  sort_rows(sel, kept, (order){column_of(p->sort), p->desc});
  int64_t from = p->offset < kept ? p->offset : kept;
  int64_t to = all || p->limit > kept - from ? kept : from + p->limit;
  cJSON *root = cJSON_CreateObject();
  cJSON *rows = cJSON_AddArrayToObject(root, "rows");
  for (int64_t i = from; i < to; i++) cJSON_AddItemToArray(rows, row_json(sel[i]));
  cJSON_AddItemToObject(root, "total", dlv_json_int(n));
  cJSON_AddItemToObject(root, "filtered", dlv_json_int(kept));
  cJSON_AddItemToObject(root, "offset", dlv_json_int(p->offset));
  if (all) cJSON_AddNullToObject(root, "limit");
  else cJSON_AddItemToObject(root, "limit", dlv_json_int(p->limit));
  if (p->sort) cJSON_AddStringToObject(root, "sort", p->sort);
  else cJSON_AddNullToObject(root, "sort");
  cJSON_AddStringToObject(root, "order", p->desc ? "desc" : "asc");
  return root;
}

int api_runs(dlv_req *r) {
  dlv_params p;
  char msg[256], limit[32];
  int status = 0;
  if (dlv_params_parse_cols(r->query, &runs_cols, &runs_view, DLV_ACCEPT_LIST, &p, msg,
                            sizeof msg) != DL_OK) {
    status = dlv_send_error(r, 400, "bad_param", "%s", msg);
    goto out;
  }
  if (p.csv) {
    status = dlv_send_error(r, 400, "bad_param", "format: the runs list is JSON only");
    goto out;
  }
  dlv_runs_rescan(r->runs);
  int n = 0;
  dlv_run_meta *v = read_rows(r->runs, &n);
  const dlv_run_meta **sel = v ? malloc((size_t)(n ? n : 1) * sizeof *sel) : NULL;
  if (!sel) {
    free(v);
    status = dlv_send_error(r, 500, "internal", "out of memory");
    goto out;
  }
  int all = dlv_query_value(r->query, "limit", limit, sizeof limit) == 0;
  cJSON *root = page_json(v, n, &p, all, sel);
  free(sel);
  free(v);
  char first_id[DLV_RUN_ID_LEN];
  dlv_runs_id(r->runs, dlv_runs_find(r->runs, NULL), first_id);
  cJSON_AddStringToObject(root, "default_run", first_id);
  cJSON_AddBoolToObject(root, "multi", dlv_runs_multi(r->runs));
  status = dlv_send_json(r, 200, root);
out:
  dlv_params_free(&p);
  return status;
}
