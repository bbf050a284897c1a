/*
 * dlr_internal.h - shared by the report sources only; not part of the API.
 *
 * dlr_out is the one writer every report uses: a report declares its
 * sections (title + columns) and hands over cells one at a time; dlr_out
 * writes DLProf's CSV or our JSON to the caller's sink through a small
 * buffer, so nothing holds a whole report. Table reports stream: each JSON
 * row is built, printed and freed before the next. Only the summary (a few
 * dozen cells) is kept as one cJSON tree until dlr_out_finish.
 *
 * Errors are sticky: the first failure (sink → DL_EIO, malloc → DL_ENOMEM)
 * is kept in o->rc, later calls do nothing, and dlr_out_end_row returns it
 * so that a row callback can stop its query.
 */
#ifndef DLR_INTERNAL_H
#define DLR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "dlr.h"

/* One output column. */
typedef struct dlr_col {
  const char *header; /* CSV header; also the JSON key unless key is set */
  int quote;          /* 1: DLProf always quotes this (string) column */
  const char *key;    /* JSON key when it differs from header, else NULL */
} dlr_col;

#define DLR_OUT_BUF 65536

typedef struct dlr_out {
  dlr_format fmt;
  dlr_sink_fn sink;
  void *ctx;
  char *err;
  size_t errlen;
  int rc;             /* first error, sticky */
  const char *report; /* borrowed */
  int64_t aggr_id;
  const char *domain; /* borrowed */
  /* the current section */
  const dlr_col *cols;
  int ncols;
  int cell;           /* next cell index of the current row */
  int sections;       /* sections begun so far */
  int64_t rows;       /* rows of the current section */
  int streaming;      /* JSON: a table report whose rows go straight out */
  cJSON *row;         /* JSON: the row being built */
  cJSON *doc;         /* JSON summary: the whole document */
  cJSON *sect_rows;   /* JSON summary: rows array of the current section */
  size_t len;
  char buf[DLR_OUT_BUF];
} dlr_out;

/* Prepares o (no output yet). doc_sections: 1 for a report made of several
 * sections (summary: JSON {"sections": [...]}), 0 for one streamed table. */
void dlr_out_init(dlr_out *o, dlr_format fmt, const char *report, int64_t aggr_id,
                  const char *domain, int doc_sections, dlr_sink_fn sink, void *ctx, char *err,
                  size_t errlen);

/* Starts a section: CSV writes a blank line before every section but the
 * first, the title line, and (when header) the header line. cols is
 * borrowed until the next section or dlr_out_finish. */
int dlr_out_section(dlr_out *o, const char *title, const dlr_col *cols, int ncols, int header);

/* Cells of the current row, left to right. */
void dlr_out_int(dlr_out *o, int64_t v);
void dlr_out_real1(dlr_out *o, double v); /* CSV: one decimal; JSON: the full value */
void dlr_out_str(dlr_out *o, const char *s);
void dlr_out_yesno(dlr_out *o, int yes);   /* CSV yes/no; JSON true/false */
void dlr_out_null(dlr_out *o);             /* not known: CSV empty, JSON null */
/* Ends the row (missing trailing cells are null). Returns o->rc. */
int dlr_out_end_row(dlr_out *o);
/* Ends the report and flushes. Returns o->rc. */
int dlr_out_finish(dlr_out *o);
/* Frees what an unfinished o holds (safe after dlr_out_finish). */
void dlr_out_free(dlr_out *o);
/* Records an error in o unless one is there; returns o->rc. */
int dlr_out_fail(dlr_out *o, int rc);

/* ---- View rows ------------------------------------------------------------ */

/* Column indexes of a result row, looked up by name once per query (on the
 * first row) and reused: rows of one query share their columns. */
#define DLR_MAX_FIELDS 32
typedef struct dlr_fields {
  const char *const *names; /* borrowed */
  int n;
  int resolved;
  int idx[DLR_MAX_FIELDS]; /* -1: the row source has no such column */
} dlr_fields;

void dlr_fields_init(dlr_fields *f, const char *const *names, int n);
void dlr_fields_resolve(dlr_fields *f, const dldb_row *row);

/* 1 if field i is present and not NULL. */
int dlr_has(const dlr_fields *f, const dldb_row *row, int i);
int64_t dlr_int(const dlr_fields *f, const dldb_row *row, int i); /* 0 when absent */
double dlr_real(const dlr_fields *f, const dldb_row *row, int i);
const char *dlr_text(const dlr_fields *f, const dldb_row *row, int i); /* "" when absent */

/* d as an int64 in *out, rounded half away from zero: 1, or 0 when d is
 * NaN, infinite or out of int64's range (*out untouched): a file's REAL
 * can hold anything. */
int dlr_real_to_int(double d, int64_t *out);
/* d rounded as dlr_real_to_int; past int64's range held at INT64_MIN or
 * INT64_MAX (as SQLite converts), NaN 0. */
int64_t dlr_real_sat(double d);
/* a + b, held at INT64_MIN/INT64_MAX: a file's times can be anything. */
int64_t dlr_add_sat(int64_t a, int64_t b);

/* Writes field i as a cell: integer, one-decimal real, string, yes/no; an
 * absent column or NULL value writes an empty cell. */
void dlr_cell_int(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i);
void dlr_cell_real1(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i);
void dlr_cell_str(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i);
void dlr_cell_yesno(dlr_out *o, const dlr_fields *f, const dldb_row *row, int i);

/* A query on view for aggr_id/domain, all rows, sorted by sort (NULL: the
 * view's own row order). */
void dlr_query_init(dldb_query *q, const char *view, int64_t aggr_id, const char *domain,
                    const char *sort);
void dlr_query_eq(dldb_query *q, const char *column, const char *value);

/* "view_dl_<base>" when the database has it (our superset of a 1.8 view
 * that carries the columns 1.8 lacks), else "view_<base>". Static storage
 * is not used: the name is written into buf. */
const char *dlr_source(dldb *db, const char *base, char *buf, size_t len);

/* ---- Ops -------------------------------------------------------------------- */

/* op_node_id → name, direction, type, data type (from view_op_nodes), for
 * the reports that name the op of a kernel, plus what some reports gather
 * per op. O(ops) memory (and, for the tensor report, O(distinct kernel
 * names of TC-eligible ops)), never O(kernel launches). */
typedef struct dlr_op {
  char *id, *name, *direction, *type, *data_type;
  int using_tc, tc_eligible;
  /* detail: the op's row of view_group_ops (row_type 2) */
  int has_group;
  int64_t cpu_overhead, gpu_idle;
  /* tensor: the op's kernels (view_kernel_summaries) */
  int64_t tc_time, non_tc_time;
  size_t nk, capk;
  char **knames;
  int *ktc;
} dlr_op;

typedef struct dlr_ops dlr_ops;

/* Loads the ops of aggr_id/domain (only TC-eligible ones when
 * eligible_only), remembering the order of sort (a view_op_nodes column, or
 * NULL for the view's order). *out is new, free with dlr_ops_free. */
int dlr_ops_load(dldb *db, int64_t aggr_id, const char *domain, int eligible_only,
                 const char *sort, dlr_ops **out, char *err, size_t errlen);
size_t dlr_ops_count(const dlr_ops *ops);
dlr_op *dlr_ops_nth(dlr_ops *ops, size_t i); /* in load order */
dlr_op *dlr_ops_find(const dlr_ops *ops, const char *id);
/* Adds a kernel name to op (tensor report). DL_OK or DL_ENOMEM. */
int dlr_op_add_kernel(dlr_op *op, const char *name, int uses_tc);
void dlr_ops_free(dlr_ops **ops);

/* ---- Reports ------------------------------------------------------------------ */

typedef int (*dlr_report_fn)(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);

int dlr_summary(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);
int dlr_detail(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);
int dlr_iteration(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);
int dlr_kernel(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);
int dlr_tensor(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);
int dlr_op_type(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);
int dlr_group_node(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);
int dlr_expert_systems(dldb *db, dlr_out *o, int64_t aggr_id, const char *domain);
/* dlr_stats.c: our nsys-stats-style report `name` (dlr_stats.h). */
int dlr_stats_write(dldb *db, dlr_out *o, const char *name, int64_t aggr_id, const char *domain);

#endif
