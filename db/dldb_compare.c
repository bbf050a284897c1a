/*
 * dldb_compare.c - two runs compared (dldb_compare.h).
 *
 * A new in-memory SQLite database attaches the two dldbs read-only (as
 * "base" and "run"), copies what the comparison needs from their views
 * into its own tables with SQL, detaches them, and becomes a read-only
 * dldb handle. The summary's statistics (dldb_compare_stats.h), the expert
 * findings that appeared or went away and the notes on what differs are
 * computed here from what the SQL read.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_compare.h"
#include "dldb_compare_stats.h"
#include "dldb_read.h"

#define NOTE_MAX 8192 /* bytes of the summary's text columns */
#define N_RES 7       /* view_resource_usage_breakdown's percentages */

static const char *const res_cols[N_RES] = {
    "tc_duration_pct", "non_tc_duration_pct", "memory_duration_pct", "dataloader_duration_pct",
    "io_duration_pct", "cpu_duration_pct",    "other_duration_pct"};

/* What the comparison reads of one side. */
typedef struct side {
  const char *schema; /* "base" or "run" */
  dldb *db;           /* borrowed */
  const char *name;   /* the summary's path (borrowed) */
  int64_t aggr_id;
  const char *domain;
  dldb_cstat st;
  double gpu_util, tc_util, res[N_RES]; /* NAN: the view has no value */
  int64_t wall_ns, total_iters;         /* -1: none */
  char key_op[256], gpu_names[2048];
  char **problems; /* the expert findings' problems, owned */
  int n_problems;
} side;

/* The comparison being built: the new handle and the two sides. */
typedef struct cmp {
  dldb *out;
  side s[2];
  char *err;
  size_t errlen;
} cmp;

/* ---- SQL ------------------------------------------------------------------ */

/* One line naming the side's file (or the comparison's) for an SQLite error. */
static int sql_fail(cmp *c, const side *s, const char *what) {
  const char *path = s ? dldb_path(s->db) : c->out->path;
  return dl_err(c->err, c->errlen, DL_EDB, "%s: %s: %s", path, what, sqlite3_errmsg(c->out->sql));
}

/* tmpl with "{S}" as the schema and "{N}" as the side's number (0 base, 1
 * run): constants of this file, never values. */
static void expand(char *out, size_t len, const char *tmpl, const char *schema, int n) {
  size_t o = 0;
  for (const char *p = tmpl; *p && o + 1 < len; p++) {
    const char *with = !strncmp(p, "{S}", 3) ? schema : !strncmp(p, "{N}", 3) ? (n ? "1" : "0") : NULL;
    if (!with) {
      out[o++] = *p;
      continue;
    }
    for (; *with && o + 1 < len; with++) out[o++] = *with;
    p += 2;
  }
  out[o] = '\0';
}

/* Runs tmpl (expanded for side s) with the side's aggregation as ?1 and
 * domain as ?2, and extra as ?3 when the SQL has it. For each row,
 * row(ctx, stmt) if given. */
static int exec_side(cmp *c, const side *s, const char *tmpl, double extra,
                     void (*row)(void *ctx, sqlite3_stmt *st), void *ctx, const char *what) {
  char sql[4096];
  expand(sql, sizeof sql, tmpl, s ? s->schema : "main", s == &c->s[1]);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(c->out->sql, sql, -1, &st, NULL) != SQLITE_OK) return sql_fail(c, s, what);
  int np = sqlite3_bind_parameter_count(st);
  if (s && np >= 1) sqlite3_bind_int64(st, 1, s->aggr_id);
  if (s && np >= 2) sqlite3_bind_text(st, 2, s->domain, -1, SQLITE_STATIC);
  if (np >= 3) sqlite3_bind_double(st, 3, extra);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    if (row) row(ctx, st);
  int out = rc == SQLITE_DONE ? DL_OK : sql_fail(c, s, what);
  sqlite3_finalize(st);
  return out;
}

static int exec_plain(cmp *c, const char *sql, const char *what) {
  return exec_side(c, NULL, sql, -1, NULL, NULL, what);
}

/* The tables of the comparison, and the per-side rows they are made from. */
static const char *const create_sql[] = {
    "CREATE TEMP TABLE side_kernels(side INTEGER, kernel_name TEXT, calls INTEGER, "
    "gpu_time INTEGER)",
    "CREATE TEMP TABLE side_ops(side INTEGER, op_node_name TEXT, op_node_type TEXT, "
    "direction TEXT, calls INTEGER, gpu_time INTEGER)",
    "CREATE TABLE dl_compare_iterations(side TEXT, iter_value INTEGER, duration INTEGER)",
    "CREATE TABLE dl_compare_kernels(kernel_name TEXT, base_calls INTEGER, calls INTEGER, "
    "base_gpu_time INTEGER, gpu_time INTEGER, status TEXT)",
    "CREATE TABLE dl_compare_ops(op_node_name TEXT, op_node_type TEXT, direction TEXT, "
    "base_calls INTEGER, calls INTEGER, base_gpu_time INTEGER, gpu_time INTEGER, status TEXT)",
};

/* Per side ({S}: its schema, {N}: its number). */
static const struct {
  const char *sql, *what;
} side_sql[] = {
    {"INSERT INTO side_kernels SELECT {N}, kernel_name, sum(calls), sum(gpu_time) "
     "FROM {S}.view_kernel_summaries WHERE aggr_id = ?1 AND domain_name = ?2 "
     "GROUP BY kernel_name", "read view_kernel_summaries"},
    {"INSERT INTO side_ops SELECT {N}, op_node_name, op_node_type, direction, sum(num_calls), "
     "sum(gpu_time) FROM {S}.view_op_nodes WHERE aggr_id = ?1 AND domain_name = ?2 "
     "GROUP BY op_node_name, op_node_type, direction", "read view_op_nodes"},
    {"INSERT INTO dl_compare_iterations SELECT CASE {N} WHEN 0 THEN 'base' ELSE 'run' END, "
     "iter_value, duration FROM {S}.view_iterations_profiled "
     "WHERE aggr_id = ?1 AND domain_name = ?2 ORDER BY iter_value",
     "read view_iterations_profiled"},
};

/* The status of a matched row, and the order: biggest change first. */
#define STATUS_SQL                                                                    \
  "CASE WHEN NOT hb THEN 'added' WHEN NOT hr THEN 'removed' "                         \
  "WHEN bc = rc AND abs(rt - bt) <= ?3 * bt / 100.0 THEN 'same' ELSE 'changed' END"
#define SIDES_SQL(keys)                                                               \
  "SELECT " keys ", max(side = 0) AS hb, max(side = 1) AS hr, "                       \
  "coalesce(sum(CASE side WHEN 0 THEN calls END), 0) AS bc, "                         \
  "coalesce(sum(CASE side WHEN 1 THEN calls END), 0) AS rc, "                         \
  "coalesce(sum(CASE side WHEN 0 THEN gpu_time END), 0) AS bt, "                      \
  "coalesce(sum(CASE side WHEN 1 THEN gpu_time END), 0) AS rt "

static const char *const match_sql[] = {
    "INSERT INTO dl_compare_kernels SELECT kernel_name, bc, rc, bt, rt, " STATUS_SQL
    " FROM (" SIDES_SQL("kernel_name") "FROM side_kernels GROUP BY kernel_name) "
    "ORDER BY abs(rt - bt) DESC, abs(rc - bc) DESC, kernel_name",
    "INSERT INTO dl_compare_ops SELECT op_node_name, op_node_type, direction, bc, rc, bt, rt, "
    STATUS_SQL " FROM (" SIDES_SQL("op_node_name, op_node_type, direction")
    "FROM side_ops GROUP BY op_node_name, op_node_type, direction) "
    "ORDER BY abs(rt - bt) DESC, abs(rc - bc) DESC, op_node_name, op_node_type, direction",
};

/* ---- One side's scalars --------------------------------------------------- */

static double col_real(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void copy_text(char *buf, size_t len, sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static void perf_row(void *ctx, sqlite3_stmt *st) {
  side *s = ctx;
  s->gpu_util = col_real(st, 0);
  s->tc_util = col_real(st, 1);
  copy_text(s->key_op, sizeof s->key_op, st, 2);
  s->wall_ns = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
  s->total_iters = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
}

static void res_row(void *ctx, sqlite3_stmt *st) {
  side *s = ctx;
  for (int i = 0; i < N_RES; i++) s->res[i] = col_real(st, i);
}

static void gpu_row(void *ctx, sqlite3_stmt *st) {
  side *s = ctx;
  copy_text(s->gpu_names, sizeof s->gpu_names, st, 0);
}

static void problem_row(void *ctx, sqlite3_stmt *st) {
  side *s = ctx;
  const unsigned char *t = sqlite3_column_text(st, 0);
  char **np = realloc(s->problems, (size_t)(s->n_problems + 1) * sizeof *np);
  if (!np) return;
  s->problems = np;
  if ((np[s->n_problems] = strdup(t ? (const char *)t : ""))) s->n_problems++;
}

typedef struct durs {
  int64_t *v;
  int64_t n, cap;
  int oom;
} durs;

static void dur_row(void *ctx, sqlite3_stmt *st) {
  durs *d = ctx;
  if (d->n == d->cap) {
    int64_t cap = d->cap ? d->cap * 2 : 64;
    int64_t *nv = realloc(d->v, (size_t)cap * sizeof *nv);
    if (!nv) {
      d->oom = 1;
      return;
    }
    d->v = nv;
    d->cap = cap;
  }
  d->v[d->n++] = sqlite3_column_int64(st, 0);
}

/* Reads what the summary needs of side i (0 base, 1 run). */
static int read_side(cmp *c, int i) {
  side *s = &c->s[i];
  s->gpu_util = s->tc_util = NAN;
  for (int k = 0; k < N_RES; k++) s->res[k] = NAN;
  s->wall_ns = s->total_iters = -1;
  int rc = exec_side(c, s,
                     "SELECT gpu_utilization, tc_utilization, key_node, wall_clock_time, "
                     "total_iterations FROM {S}.view_performance_summary "
                     "WHERE aggr_id = ?1 AND domain_name = ?2 LIMIT 1",
                     -1, perf_row, s, "read view_performance_summary");
  if (!rc)
    rc = exec_side(c, s,
                   "SELECT tc_duration_pct, non_tc_duration_pct, memory_duration_pct, "
                   "dataloader_duration_pct, io_duration_pct, cpu_duration_pct, "
                   "other_duration_pct FROM {S}.view_resource_usage_breakdown "
                   "WHERE aggr_id = ?1 AND domain_name = ?2 LIMIT 1",
                   -1, res_row, s, "read view_resource_usage_breakdown");
  if (!rc)
    rc = exec_side(c, s,
                   "SELECT group_concat(gpu_name, '; ') FROM "
                   "(SELECT gpu_name FROM {S}.view_gpu_names ORDER BY gpu_name)",
                   -1, gpu_row, s, "read view_gpu_names");
  if (!rc)
    rc = exec_side(c, s, "SELECT problem FROM {S}.view_expert_systems WHERE aggr_id = ?1",
                   -1, problem_row, s, "read view_expert_systems");
  if (rc) return rc;
  durs d = {0};
  static const char *const dur_sql[] = {
      "SELECT duration FROM dl_compare_iterations WHERE side = 'base' ORDER BY iter_value",
      "SELECT duration FROM dl_compare_iterations WHERE side = 'run' ORDER BY iter_value"};
  rc = exec_side(c, NULL, dur_sql[i], -1, dur_row, &d, "read the iterations");
  if (!rc && d.oom) rc = dl_err(c->err, c->errlen, DL_ENOMEM, "compare: out of memory");
  if (!rc && dldb_cstat_describe(d.v, d.n, &s->st) != DL_OK)
    rc = dl_err(c->err, c->errlen, DL_ENOMEM, "compare: out of memory");
  free(d.v);
  return rc;
}

/* ---- Findings and notes --------------------------------------------------- */

/* A finding's problem with its figures as '#': the same finding of two runs
 * reads alike though its percentages differ. */
static void problem_key(const char *p, char *buf, size_t len) {
  size_t o = 0;
  for (; *p && o + 1 < len; p++) {
    if (isdigit((unsigned char)*p)) {
      while (isdigit((unsigned char)p[1]) ||
             ((p[1] == '.' || p[1] == ',') && isdigit((unsigned char)p[2])))
        p++;
      buf[o++] = '#';
    } else {
      buf[o++] = *p;
    }
  }
  buf[o] = '\0';
}

static int has_problem(const side *s, const char *key) {
  char k[1024];
  for (int i = 0; i < s->n_problems; i++) {
    problem_key(s->problems[i], k, sizeof k);
    if (!strcmp(k, key)) return 1;
  }
  return 0;
}

static void add_line(char *buf, size_t len, const char *line) {
  size_t n = strlen(buf);
  snprintf(buf + n, len - n, "%s%s", n ? "\n" : "", line);
}

/* The problems of `from` that `other` lacks, one a line. */
static void findings_only(const side *from, const side *other, char *buf, size_t len) {
  char k[1024];
  buf[0] = '\0';
  for (int i = 0; i < from->n_problems; i++) {
    problem_key(from->problems[i], k, sizeof k);
    if (!has_problem(other, k)) add_line(buf, len, from->problems[i]);
  }
}

static const char *producer_name(const dldb *db) {
  return dldb_get_info(db)->producer == DLDB_PRODUCER_NVIDIA ? "NVIDIA DLProf" : "dlprof";
}

/* What differs between the runs, one a line. */
static void make_notes(const cmp *c, char *buf, size_t len) {
  const side *b = &c->s[0], *r = &c->s[1];
  char line[NOTE_MAX];
  buf[0] = '\0';
  if (strcmp(b->gpu_names, r->gpu_names)) {
    snprintf(line, sizeof line, "GPUs differ: base %s; run %s", b->gpu_names[0] ? b->gpu_names : "none",
             r->gpu_names[0] ? r->gpu_names : "none");
    add_line(buf, len, line);
  }
  if (b->st.n != r->st.n) {
    snprintf(line, sizeof line, "Iteration counts differ: base %lld aggregated, run %lld",
             (long long)b->st.n, (long long)r->st.n);
    add_line(buf, len, line);
  }
  if (strcmp(b->key_op, r->key_op)) {
    snprintf(line, sizeof line, "Key ops differ: base '%s', run '%s'", b->key_op, r->key_op);
    add_line(buf, len, line);
  }
  if (strcmp(producer_name(b->db), producer_name(r->db))) {
    snprintf(line, sizeof line, "Producers differ: base %s, run %s", producer_name(b->db),
             producer_name(r->db));
    add_line(buf, len, line);
  }
  for (int i = 0; i < 2; i++)
    if (c->s[i].st.n < 2) {
      snprintf(line, sizeof line,
               "The %s has %lld aggregated iteration%s: no confidence interval for the "
               "difference of the means", i ? "run" : "base", (long long)c->s[i].st.n,
               c->s[i].st.n == 1 ? "" : "s");
      add_line(buf, len, line);
    }
}

/* ---- The summary row ------------------------------------------------------ */

typedef struct cell {
  const char *name;
  char type; /* 'i' integer, 'r' real (NAN: NULL), 't' text */
  int64_t i;
  double r;
  const char *t;
} cell;

#define MAX_CELLS 80

typedef struct row {
  cell c[MAX_CELLS];
  int n;
  char names[MAX_CELLS][48];
  char appeared[NOTE_MAX], gone[NOTE_MAX], notes[NOTE_MAX]; /* the text columns */
} row;

static void put(row *w, const char *prefix, const char *name, char type, int64_t i, double r,
                const char *t) {
  if (w->n == MAX_CELLS) return;
  snprintf(w->names[w->n], sizeof w->names[0], "%s%s", prefix, name);
  w->c[w->n] = (cell){w->names[w->n], type, i, r, t};
  w->n++;
}

/* Each side's columns, the base's with the prefix base_. */
static void put_sides(row *w, const cmp *c) {
  for (int k = 0; k < 2; k++) {
    const side *s = &c->s[k];
    const char *p = k ? "" : "base_";
    put(w, p, "path", 't', 0, 0, s->name);
    put(w, p, "producer", 't', 0, 0, producer_name(s->db));
    put(w, p, "gpu_names", 't', 0, 0, s->gpu_names);
    put(w, p, "key_op", 't', 0, 0, s->key_op);
    put(w, p, "aggregation", 'i', s->aggr_id, 0, NULL);
    put(w, p, "iterations", 'i', s->st.n, 0, NULL);
    put(w, p, "iter_mean_ns", 'r', 0, s->st.n ? s->st.mean_ns : NAN, NULL);
    put(w, p, "iter_median_ns", 'r', 0, s->st.n ? s->st.median_ns : NAN, NULL);
    put(w, p, "iter_stddev_ns", 'r', 0, s->st.n > 1 ? s->st.sd_ns : NAN, NULL);
    put(w, p, "wall_clock_time", 'r', 0, s->wall_ns < 0 ? NAN : (double)s->wall_ns, NULL);
    put(w, p, "gpu_utilization", 'r', 0, s->gpu_util, NULL);
    put(w, p, "tc_utilization", 'r', 0, s->tc_util, NULL);
    for (int i = 0; i < N_RES; i++) put(w, p, res_cols[i], 'r', 0, s->res[i], NULL);
  }
}

/* The difference of the means, its interval, and the same in % of the base's mean. */
static void put_diff(row *w, const cmp *c) {
  double d, lo, hi, df;
  dldb_cstat_welch(&c->s[0].st, &c->s[1].st, &d, &lo, &hi, &df);
  double m = c->s[0].st.mean_ns, pct = m > 0 ? 100 / m : NAN;
  if (!c->s[0].st.n || !c->s[1].st.n) d = NAN;
  put(w, "", "iter_mean_diff_ns", 'r', 0, d, NULL);
  put(w, "", "iter_mean_diff_ci_low_ns", 'r', 0, lo, NULL);
  put(w, "", "iter_mean_diff_ci_high_ns", 'r', 0, hi, NULL);
  put(w, "", "iter_mean_diff_pct", 'r', 0, d * pct, NULL);
  put(w, "", "iter_mean_diff_ci_low_pct", 'r', 0, lo * pct, NULL);
  put(w, "", "iter_mean_diff_ci_high_pct", 'r', 0, hi * pct, NULL);
  put(w, "", "welch_df", 'r', 0, df, NULL);
}

static int insert_row(cmp *c, const row *w) {
  char sql[8192];
  size_t n = (size_t)snprintf(sql, sizeof sql, "CREATE TABLE dl_compare_summary(");
  for (int i = 0; i < w->n; i++)
    n += (size_t)snprintf(sql + n, sizeof sql - n, "%s%s %s", i ? ", " : "", w->c[i].name,
                          w->c[i].type == 'i' ? "INTEGER" : w->c[i].type == 'r' ? "REAL" : "TEXT");
  snprintf(sql + n, sizeof sql - n, ")");
  int rc = exec_plain(c, sql, "create dl_compare_summary");
  if (rc) return rc;
  n = (size_t)snprintf(sql, sizeof sql, "INSERT INTO dl_compare_summary VALUES (");
  for (int i = 0; i < w->n; i++) n += (size_t)snprintf(sql + n, sizeof sql - n, "%s?", i ? ", " : "");
  snprintf(sql + n, sizeof sql - n, ")");
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(c->out->sql, sql, -1, &st, NULL) != SQLITE_OK)
    return sql_fail(c, NULL, "insert dl_compare_summary");
  for (int i = 0; i < w->n; i++) {
    const cell *x = &w->c[i];
    if (x->type == 'i') sqlite3_bind_int64(st, i + 1, x->i);
    else if (x->type == 'r' && !isnan(x->r)) sqlite3_bind_double(st, i + 1, x->r);
    else if (x->type == 't') sqlite3_bind_text(st, i + 1, x->t, -1, SQLITE_STATIC);
  }
  rc = sqlite3_step(st) == SQLITE_DONE ? DL_OK : sql_fail(c, NULL, "insert dl_compare_summary");
  sqlite3_finalize(st);
  return rc;
}

static void count_row(void *ctx, sqlite3_stmt *st) {
  int64_t *v = ctx;
  for (int i = 0; i < 4; i++) v[i] = sqlite3_column_int64(st, i);
}

/* The counts by status of a matched table, as NAME_added ... NAME_same. */
static int put_counts(cmp *c, row *w, const char *table, const char *prefix, int64_t *v) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT total(status = 'added'), total(status = 'removed'), "
           "total(status = 'changed'), total(status = 'same') FROM %s", table);
  int rc = exec_side(c, NULL, sql, -1, count_row, v, "count the matches");
  static const char *const names[4] = {"added", "removed", "changed", "same"};
  for (int i = 0; i < 4 && !rc; i++) put(w, prefix, names[i], 'i', v[i], 0, NULL);
  return rc;
}

static int make_summary(cmp *c) {
  row *w = calloc(1, sizeof *w);
  int64_t kcounts[4] = {0}, ocounts[4] = {0};
  if (!w) return dl_err(c->err, c->errlen, DL_ENOMEM, "compare: out of memory");
  put_sides(w, c);
  put_diff(w, c);
  int rc = put_counts(c, w, "dl_compare_kernels", "kernels_", kcounts);
  if (!rc) rc = put_counts(c, w, "dl_compare_ops", "ops_", ocounts);
  findings_only(&c->s[1], &c->s[0], w->appeared, sizeof w->appeared);
  findings_only(&c->s[0], &c->s[1], w->gone, sizeof w->gone);
  make_notes(c, w->notes, sizeof w->notes);
  put(w, "", "findings_appeared", 't', 0, 0, w->appeared);
  put(w, "", "findings_gone", 't', 0, 0, w->gone);
  put(w, "", "notes", 't', 0, 0, w->notes);
  if (!rc) rc = insert_row(c, w);
  free(w);
  return rc;
}

/* ---- The comparison ------------------------------------------------------- */

/* The new handle: an in-memory database that can attach files by URI. */
static int handle_new(cmp *c) {
  const char *bp = dldb_path(c->s[0].db), *rp = dldb_path(c->s[1].db);
  dldb *db = c->out = calloc(1, sizeof *db);
  size_t n = strlen(bp) + strlen(rp) + 16;
  if (db) db->path = malloc(n);
  if (db && db->path) snprintf(db->path, n, "%s vs %s", bp, rp);
  if (db) db->uri = strdup(":memory:");
  if (db) db->shared = dldb__shared_new();
  if (!db || !db->path || !db->uri || !db->shared)
    return dl_err(c->err, c->errlen, DL_ENOMEM, "compare: out of memory");
  if (sqlite3_open_v2(":memory:", &db->sql,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI |
                          SQLITE_OPEN_NOMUTEX,
                      NULL) != SQLITE_OK ||
      dldb__register_functions(db->sql, db->shared) != SQLITE_OK)
    return dl_err(c->err, c->errlen, DL_EDB, "compare: cannot open an in-memory database");
  sqlite3_extended_result_codes(db->sql, 1);
  return DL_OK;
}

static int attach(cmp *c, const side *s) {
  if (!s->db->uri || s->db->mem)
    return dl_err(c->err, c->errlen, DL_EINVAL, "%s: only a database file can be compared",
                  dldb_path(s->db));
  sqlite3_stmt *st = NULL;
  char sql[64];
  snprintf(sql, sizeof sql, "ATTACH DATABASE ?1 AS %s", s->schema);
  int rc = sqlite3_prepare_v2(c->out->sql, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) sqlite3_bind_text(st, 1, s->db->uri, -1, SQLITE_STATIC);
  if (rc == SQLITE_OK) rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
  int out = rc == SQLITE_OK ? DL_OK : sql_fail(c, s, "attach");
  sqlite3_finalize(st);
  return out;
}

/* Every table but the summary, from the views of both sides. */
static int build_tables(cmp *c) {
  int rc = DL_OK;
  for (size_t i = 0; i < sizeof create_sql / sizeof *create_sql && !rc; i++)
    rc = exec_plain(c, create_sql[i], "create the comparison's tables");
  for (int k = 0; k < 2 && !rc; k++)
    for (size_t i = 0; i < sizeof side_sql / sizeof *side_sql && !rc; i++) {
      rc = exec_side(c, &c->s[k], side_sql[i].sql, -1, NULL, NULL, side_sql[i].what);
    }
  for (size_t i = 0; i < sizeof match_sql / sizeof *match_sql && !rc; i++)
    rc = exec_side(c, NULL, match_sql[i], DLDB_COMPARE_SAME_PCT, NULL, NULL,
                   "match the two runs");
  return rc;
}

int dldb_compare_open(dldb *base, dldb *run, const char *const names[2], dldb **out, char *err,
                      size_t errlen) {
  cmp c = {.err = err, .errlen = errlen};
  dldb *dbs[2] = {base, run};
  static const char *const schemas[2] = {"base", "run"};
  *out = NULL;
  for (int k = 0; k < 2; k++) {
    const dldb_info *info = dldb_get_info(dbs[k]);
    c.s[k] = (side){.schema = schemas[k], .db = dbs[k], .aggr_id = info->default_aggr_id,
                    .domain = info->default_domain,
                    .name = names && names[k] ? names[k] : dldb_path(dbs[k])};
  }
  int rc = handle_new(&c);
  for (int k = 0; k < 2 && !rc; k++) rc = attach(&c, &c.s[k]);
  if (!rc) rc = exec_plain(&c, "BEGIN", "begin");
  if (!rc) rc = build_tables(&c);
  for (int k = 0; k < 2 && !rc; k++) rc = read_side(&c, k);
  if (!rc) rc = make_summary(&c);
  if (!rc) rc = exec_plain(&c, "DROP TABLE side_kernels", "drop");
  if (!rc) rc = exec_plain(&c, "DROP TABLE side_ops", "drop");
  if (!rc) rc = exec_plain(&c, "COMMIT", "commit");
  for (int k = 0; k < 2 && !rc; k++) {
    char sql[32];
    snprintf(sql, sizeof sql, "DETACH DATABASE %s", c.s[k].schema);
    rc = exec_plain(&c, sql, "detach");
  }
  if (!rc) rc = exec_plain(&c, "PRAGMA query_only = 1", "read-only");
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < c.s[k].n_problems; i++) free(c.s[k].problems[i]);
    free(c.s[k].problems);
  }
  if (rc) dldb_close(&c.out);
  *out = c.out;
  return rc;
}

int dldb_compare_files(const char *base_path, const char *run_path, const char *const names[2],
                       dldb **out, char *err, size_t errlen) {
  dldb *b = NULL, *r = NULL;
  *out = NULL;
  int rc = dldb_open_ro(base_path, &b, NULL, err, errlen);
  if (!rc) rc = dldb_open_ro(run_path, &r, NULL, err, errlen);
  if (!rc) rc = dldb_compare_open(b, r, names, out, err, errlen);
  dldb_close(&b);
  dldb_close(&r);
  return rc;
}
