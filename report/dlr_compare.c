/*
 * dlr_compare.c - a comparison's CSV and JSON (dlr_compare.h). Every table
 * is read through dldb_query_rows in its own order and written cell by
 * cell by the value's storage class; JSON is built as one cJSON tree (the
 * tables hold one row per kernel or op name, not per launch).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dl_csv.h"
#include "dlr_compare.h"

/* The tables, their CSV section titles and JSON keys. */
static const struct {
  const char *table, *title, *key;
} tables[] = {
    {"dl_compare_summary", "Summary", "summary"},
    {"dl_compare_kernels", "Kernels", "kernels"},
    {"dl_compare_ops", "Ops", "ops"},
    {"dl_compare_iterations", "Iterations", "iterations"},
};

/* The summary's text columns that hold one item a line. */
static const char *const list_cols[] = {"findings_appeared", "findings_gone", "notes"};

typedef struct writer {
  dlr_format fmt;
  dlr_sink_fn sink;
  void *ctx;
  int rc;        /* first error */
  int summary;   /* 1: the table being written is the summary */
  int64_t rows;  /* rows of the table so far */
  cJSON *doc;    /* JSON: the document */
  cJSON *target; /* JSON: the summary object or the current table's array */
} writer;

static void out(writer *w, const char *s, size_t n) {
  if (!w->rc && n && w->sink(w->ctx, s, n)) w->rc = DL_EIO;
}

static void put_csv(void *ctx, const char *s, size_t n) { out(ctx, s, n); }

static void csv_text(writer *w, const char *s) { dl_csv_field(put_csv, w, s, 0, 1); }

/* A cell of a CSV row: the value as text (empty for NULL). */
static void csv_cell(writer *w, const dldb_row *row, int i) {
  char b[64];
  switch (dldb_row_type(row, i)) {
  case 0: return;
  case DLDB_COL_INTEGER:
    snprintf(b, sizeof b, "%lld", (long long)dldb_row_int(row, i));
    out(w, b, strlen(b));
    return;
  case DLDB_COL_REAL:
    snprintf(b, sizeof b, "%.12g", dldb_row_real(row, i));
    out(w, b, strlen(b));
    return;
  default: csv_text(w, dldb_row_text(row, i));
  }
}

static int is_list(const char *name) {
  for (size_t i = 0; i < sizeof list_cols / sizeof *list_cols; i++)
    if (!strcmp(name, list_cols[i])) return 1;
  return 0;
}

/* "a\nb" as ["a", "b"] ("" as []). */
static cJSON *json_lines(const char *s) {
  cJSON *a = cJSON_CreateArray();
  while (a && *s) {
    size_t n = strcspn(s, "\n");
    char *line = strndup(s, n);
    cJSON *item = line ? cJSON_CreateString(line) : NULL;
    free(line);
    if (!item || !cJSON_AddItemToArray(a, item)) {
      cJSON_Delete(item);
      cJSON_Delete(a);
      return NULL;
    }
    s += n + (s[n] == '\n');
  }
  return a;
}

static cJSON *json_cell(const writer *w, const dldb_row *row, int i) {
  switch (dldb_row_type(row, i)) {
  case 0: return cJSON_CreateNull();
  case DLDB_COL_INTEGER: return cJSON_CreateNumber((double)dldb_row_int(row, i));
  case DLDB_COL_REAL:
    return isfinite(dldb_row_real(row, i)) ? cJSON_CreateNumber(dldb_row_real(row, i))
                                           : cJSON_CreateNull();
  default:
    return w->summary && is_list(dldb_row_name(row, i)) ? json_lines(dldb_row_text(row, i))
                                                        : cJSON_CreateString(dldb_row_text(row, i));
  }
}

static int json_row(writer *w, const dldb_row *row) {
  cJSON *obj = w->summary ? w->target : cJSON_CreateObject();
  if (!obj || (!w->summary && !cJSON_AddItemToArray(w->target, obj))) {
    cJSON_Delete(obj);
    return w->rc = DL_ENOMEM;
  }
  for (int i = 0; i < dldb_row_count(row); i++) {
    cJSON *v = json_cell(w, row, i);
    if (!v || !cJSON_AddItemToObject(obj, dldb_row_name(row, i), v)) {
      cJSON_Delete(v);
      return w->rc = DL_ENOMEM;
    }
  }
  return DL_OK;
}

/* CSV: the summary as name,value lines; a table's header before its first row. */
static void csv_row(writer *w, const dldb_row *row) {
  int n = dldb_row_count(row);
  if (w->summary) {
    for (int i = 0; i < n; i++) {
      csv_text(w, dldb_row_name(row, i));
      out(w, ",", 1);
      csv_cell(w, row, i);
      out(w, "\n", 1);
    }
    return;
  }
  if (w->rows == 0) {
    for (int i = 0; i < n; i++) {
      if (i) out(w, ",", 1);
      csv_text(w, dldb_row_name(row, i));
    }
    out(w, "\n", 1);
  }
  for (int i = 0; i < n; i++) {
    if (i) out(w, ",", 1);
    csv_cell(w, row, i);
  }
  out(w, "\n", 1);
}

static int on_row(void *ctx, const dldb_row *row) {
  writer *w = ctx;
  if (w->fmt == DLR_JSON) json_row(w, row);
  else csv_row(w, row);
  w->rows++;
  return w->rc != DL_OK;
}

/* A CSV table without rows still gets its header. */
static void csv_empty_header(writer *w, dldb *cmp, const char *table) {
  const char *const *names = NULL;
  int n = dldb_view_columns(cmp, table, &names, NULL);
  for (int i = 0; i < n; i++) {
    if (i) out(w, ",", 1);
    csv_text(w, names[i]);
  }
  out(w, "\n", 1);
}

static int write_table(writer *w, dldb *cmp, size_t t, char *err, size_t errlen) {
  dldb_query q = {.view = tables[t].table, .aggr_id = -1, .limit = -1};
  w->summary = t == 0;
  w->rows = 0;
  if (w->fmt == DLR_CSV) {
    if (t) out(w, "\n", 1);
    out(w, tables[t].title, strlen(tables[t].title));
    out(w, w->summary ? "\nname,value\n" : "\n", w->summary ? 12 : 1);
  } else {
    w->target = w->summary ? cJSON_AddObjectToObject(w->doc, tables[t].key)
                           : cJSON_AddArrayToObject(w->doc, tables[t].key);
    if (!w->target) return dl_err(err, errlen, DL_ENOMEM, "compare report: out of memory");
  }
  int rc = dldb_query_rows(cmp, &q, on_row, w, err, errlen);
  if (!rc && w->fmt == DLR_CSV && !w->summary && w->rows == 0) csv_empty_header(w, cmp, q.view);
  if (!rc && w->rc) rc = dl_err(err, errlen, w->rc, "compare report: %s", dl_strerror(w->rc));
  return rc;
}

int dlr_compare_write(dldb *cmp, dlr_format fmt, dlr_sink_fn sink, void *ctx, char *err,
                      size_t errlen) {
  writer w = {.fmt = fmt, .sink = sink, .ctx = ctx};
  int rc = DL_OK;
  if (fmt == DLR_JSON && !(w.doc = cJSON_CreateObject()))
    return dl_err(err, errlen, DL_ENOMEM, "compare report: out of memory");
  for (size_t t = 0; t < sizeof tables / sizeof *tables && !rc; t++)
    rc = write_table(&w, cmp, t, err, errlen);
  if (!rc && fmt == DLR_JSON) {
    char *s = cJSON_PrintUnformatted(w.doc);
    if (!s) rc = dl_err(err, errlen, DL_ENOMEM, "compare report: out of memory");
    else {
      out(&w, s, strlen(s));
      out(&w, "\n", 1);
      free(s);
      if (w.rc) rc = dl_err(err, errlen, w.rc, "compare report: %s", dl_strerror(w.rc));
    }
  }
  cJSON_Delete(w.doc);
  return rc;
}
