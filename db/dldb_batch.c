/*
 * dldb_batch.c - rows of one INSERT written many to a statement
 * (dldb_batch.h).
 */
#include "dldb_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The rows of a batch as a table: dldb_rows(batch) --------------------- */

/* An eponymous virtual table whose rows are a batch's stored rows, column cK
 * the row's cell K; its hidden column src takes the batch (a pointer bound
 * with sqlite3_bind_pointer, of type ROWS_PTR). "INSERT ... SELECT ... FROM
 * dldb_rows(?)" writes a whole batch in one statement with no value bound
 * per cell. */
#define ROWS_PTR "dldb__batch"
#define ROWS_SRC 64 /* the hidden column's index: after c0 .. c63 */

typedef struct rows_cur {
  sqlite3_vtab_cursor base;
  const dldb__batch *b;
  int r;
} rows_cur;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  char sql[1024];
  size_t n = (size_t)snprintf(sql, sizeof sql, "CREATE TABLE x(");
  for (int i = 0; i < ROWS_SRC; i++) n += (size_t)snprintf(sql + n, sizeof sql - n, "c%d,", i);
  snprintf(sql + n, sizeof sql - n, "src HIDDEN)");
  int rc = sqlite3_declare_vtab(db, sql);
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  *out = v;
  return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

/* The only plan: src = ?, given to xFilter. */
static int rows_best_index(sqlite3_vtab *v, sqlite3_index_info *ix) {
  (void)v;
  for (int i = 0; i < ix->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
    if (c->iColumn == ROWS_SRC && c->op == SQLITE_INDEX_CONSTRAINT_EQ && c->usable) {
      ix->aConstraintUsage[i].argvIndex = 1;
      ix->aConstraintUsage[i].omit = 1;
      ix->estimatedCost = DLDB__BATCH_ROWS;
      ix->estimatedRows = DLDB__BATCH_ROWS;
      return SQLITE_OK;
    }
  }
  return SQLITE_CONSTRAINT;
}

static int rows_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  rows_cur *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxs, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)idxs;
  rows_cur *c = (rows_cur *)cur;
  c->b = argc == 1 ? sqlite3_value_pointer(argv[0], ROWS_PTR) : NULL;
  c->r = 0;
  return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *cur) {
  ((rows_cur *)cur)->r++;
  return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *cur) {
  const rows_cur *c = (const rows_cur *)cur;
  return !c->b || c->r >= c->b->nrows;
}

static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  const rows_cur *c = (const rows_cur *)cur;
  const dldb__batch *b = c->b;
  if (col >= b->ncols) { /* src, or a column past the row's cells */
    sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  const dldb__cell *x = b->cells + (size_t)c->r * (size_t)b->ncols + col;
  switch (x->type) {
    case DLDB__INT: sqlite3_result_int64(ctx, x->v.i); break;
    case DLDB__REAL: sqlite3_result_double(ctx, x->v.d); break;
    case DLDB__TEXT: sqlite3_result_text(ctx, b->text + x->v.i, x->n, SQLITE_STATIC); break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out) {
  *out = ((const rows_cur *)cur)->r;
  return SQLITE_OK;
}

static const sqlite3_module rows_module = {
    .xConnect = rows_connect, /* no xCreate: eponymous only */
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

int dldb__batch_register(sqlite3 *db) {
  return sqlite3_create_module(db, "dldb_rows", &rows_module, NULL);
}

/* ---- The batch ------------------------------------------------------------- */

void dldb__batch_init(dldb__batch *b, const char *head, int ncols) {
  memset(b, 0, sizeof *b);
  b->head = head;
  b->ncols = ncols;
}

void dldb__batch_init_ids(dldb__batch *b, const char *head, int ncols, const char *table) {
  dldb__batch_init(b, head, ncols);
  b->id_table = table;
}

void dldb__batch_set_row(dldb__batch *b, const char *row_sql, int shared) {
  b->row_sql = row_sql;
  b->shared = row_sql ? shared : 0;
}

void dldb__batch_forget_ids(dldb__batch *b) { b->next_id = 0; }

/* b->next_id from the table (pushed rows are all written: at the first
 * push, or after a rollback dropped them). */
static int next_id_load(dldb__batch *b, sqlite3 *db) {
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT coalesce(max(rowid), 0) FROM \"%s\"", b->id_table);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t max = sqlite3_column_int64(st, 0);
    if (max < INT64_MAX - 1) b->next_id = max + 1;
    else b->id_table = NULL; /* SQLite would pick one at random: ids stay as they are */
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

/* "INSERT ... (cols) SELECT row FROM dldb_rows(?N)": the head up to its
 * last VALUES, the row template without its parentheses (or "?, ...") with
 * each plain ? the column of the next cell, ?N the batch (N: after the
 * shared cells' ?1 ..). NULL without memory (or VALUES). */
static char *insert_sql(const dldb__batch *b) {
  const char *values = NULL;
  for (const char *p = strstr(b->head, "VALUES"); p; p = strstr(p + 1, "VALUES")) values = p;
  if (!values) return NULL;
  size_t hl = (size_t)(values - b->head), rl = b->row_sql ? strlen(b->row_sql) : 0;
  size_t cap = hl + 4 * rl + 5 * (size_t)b->ncols + 64;
  char *sql = malloc(cap);
  if (!sql) return NULL;
  memcpy(sql, b->head, hl);
  size_t n = hl + (size_t)snprintf(sql + hl, cap - hl, "SELECT ");
  int cell = b->shared;
  if (!b->row_sql) {
    for (int c = 0; c < b->ncols; c++)
      n += (size_t)snprintf(sql + n, cap - n, "%sc%d", c ? "," : "", c);
  } else {
    const char *r = b->row_sql, *end = r + rl;
    if (r < end && *r == '(') r++;
    if (end > r && end[-1] == ')') end--;
    for (; r < end; r++) {
      if (*r == '?' && !(r[1] >= '0' && r[1] <= '9'))
        n += (size_t)snprintf(sql + n, cap - n, "c%d", cell++);
      else sql[n++] = *r;
    }
  }
  snprintf(sql + n, cap - n, " FROM dldb_rows(?%d)", b->shared + 1);
  return sql;
}

static int prepare(dldb__batch *b, sqlite3 *db) {
  if (b->st) return SQLITE_OK;
  if (!strstr(b->head, "VALUES")) return SQLITE_MISUSE; /* not a head dldb_batch.h takes */
  char *sql = insert_sql(b);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &b->st, NULL);
  free(sql);
  return rc;
}

/* Binds cell i of stored row r as parameter at. */
static void bind_cell(const dldb__batch *b, sqlite3_stmt *st, int r, int i, int at) {
  const dldb__cell *c = b->cells + (size_t)r * (size_t)b->ncols + i;
  switch (c->type) {
    case DLDB__INT: sqlite3_bind_int64(st, at, c->v.i); break;
    case DLDB__REAL: sqlite3_bind_double(st, at, c->v.d); break;
    case DLDB__TEXT: sqlite3_bind_text(st, at, b->text + c->v.i, c->n, SQLITE_STATIC); break;
    default: sqlite3_bind_null(st, at); break;
  }
}

int dldb__batch_flush(dldb__batch *b, sqlite3 *db) {
  int rc = SQLITE_OK;
  if (b->nrows && (rc = prepare(b, db)) == SQLITE_OK) {
    for (int i = 0; i < b->shared; i++) bind_cell(b, b->st, 0, i, i + 1); /* every row's */
    rc = sqlite3_bind_pointer(b->st, b->shared + 1, b, ROWS_PTR, NULL);
    if (rc == SQLITE_OK) {
      int s = sqlite3_step(b->st);
      sqlite3_reset(b->st);
      rc = s == SQLITE_DONE ? SQLITE_OK : s;
    }
    sqlite3_clear_bindings(b->st); /* nothing points into the rows once they are dropped */
  }
  dldb__batch_drop(b);
  return rc;
}

/* 1 if row's shared cells differ from those of the batch's first row. */
static int shared_differ(const dldb__batch *b, const dldb__cell *row) {
  for (int i = 0; i < b->shared; i++) {
    const dldb__cell *c = &b->cells[i];
    if (c->type != row[i].type || c->type == DLDB__TEXT ||
        (c->type == DLDB__INT && c->v.i != row[i].v.i) ||
        (c->type == DLDB__REAL && memcmp(&c->v.d, &row[i].v.d, sizeof c->v.d) != 0))
      return 1;
  }
  return 0;
}

int dldb__batch_push(dldb__batch *b, sqlite3 *db, const dldb__cell *row) {
  if (!b->cells &&
      !(b->cells = malloc(sizeof *b->cells * DLDB__BATCH_ROWS * (size_t)b->ncols)))
    return SQLITE_NOMEM;
  if (b->nrows && shared_differ(b, row)) { /* a statement shares them: write the rows before */
    int rc = dldb__batch_flush(b, db);
    if (rc != SQLITE_OK) return rc;
  }
  dldb__cell *c = b->cells + (size_t)b->nrows * (size_t)b->ncols;
  int null_id = 0;
  if (b->id_table && row[0].type == DLDB__INT) {
    int rc = b->next_id ? SQLITE_OK : next_id_load(b, db);
    if (rc != SQLITE_OK) return rc;
    if (!b->nrows) b->first_id = b->next_id;
    int64_t id = row[0].v.i;
    if (b->id_table && id == b->next_id) null_id = 1;
    if (b->id_table && id >= b->next_id) b->next_id = id + 1;
  }
  for (int i = 0; i < b->ncols; i++) {
    c[i] = row[i];
    if (row[i].type != DLDB__TEXT) continue;
    const char *s = row[i].v.s ? row[i].v.s : "";
    size_t n = row[i].n >= 0 && row[i].v.s ? (size_t)row[i].n : strlen(s);
    if (b->tlen + n + 1 > b->tcap) {
      size_t cap = b->tcap ? b->tcap : 4096;
      while (cap < b->tlen + n + 1) cap *= 2;
      char *t = realloc(b->text, cap);
      if (!t) return SQLITE_NOMEM;
      b->text = t;
      b->tcap = cap;
    }
    memcpy(b->text + b->tlen, s, n);
    b->text[b->tlen + n] = '\0';
    c[i].v.i = (int64_t)b->tlen;
    c[i].n = (int)n;
    b->tlen += n + 1;
  }
  if (null_id) c[0] = (dldb__cell){.type = DLDB__NULL};
  return ++b->nrows == DLDB__BATCH_ROWS || b->tlen >= DLDB__BATCH_TEXT ? dldb__batch_flush(b, db)
                                                                      : SQLITE_OK;
}

int dldb__batch_each(const dldb__batch *b, int (*fn)(void *ctx, const dldb__cell *row),
                     void *ctx) {
  dldb__cell row[64];
  int64_t next = b->first_id;
  for (int r = 0; r < b->nrows; r++) {
    const dldb__cell *c = b->cells + (size_t)r * (size_t)b->ncols;
    for (int i = 0; i < b->ncols; i++) {
      row[i] = c[i];
      if (c[i].type == DLDB__TEXT) row[i].v.s = b->text + c[i].v.i;
    }
    if (b->id_table && row[0].type == DLDB__NULL)
      row[0] = (dldb__cell){.type = DLDB__INT, .v.i = next};
    if (b->id_table && row[0].type == DLDB__INT && row[0].v.i >= next) next = row[0].v.i + 1;
    int rc = fn(ctx, row);
    if (rc) return rc;
  }
  return 0;
}

void dldb__batch_free(dldb__batch *b) {
  sqlite3_finalize(b->st);
  free(b->cells);
  free(b->text);
  const char *row_sql = b->row_sql;
  int shared = b->shared;
  dldb__batch_init_ids(b, b->head, b->ncols, b->id_table);
  dldb__batch_set_row(b, row_sql, shared);
}
