/*
 * dldb_batch.c - rows of one INSERT written many to a statement
 * (dldb_batch.h).
 */
#include "dldb_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* "head(?, ...), ..." (or the row template) for rows rows; NULL without
 * memory. */
static char *insert_sql(const dldb__batch *b, int rows) {
  size_t hl = strlen(b->head), rl = b->row_sql ? strlen(b->row_sql) : (size_t)b->ncols * 2 + 1;
  char *sql = malloc(hl + (size_t)rows * (rl + 2) + 1);
  if (!sql) return NULL;
  memcpy(sql, b->head, hl);
  size_t n = hl;
  for (int r = 0; r < rows; r++) {
    if (r) sql[n++] = ',';
    if (b->row_sql) {
      memcpy(sql + n, b->row_sql, rl);
      n += rl;
      continue;
    }
    sql[n++] = '(';
    for (int c = 0; c < b->ncols; c++) {
      if (c) sql[n++] = ',';
      sql[n++] = '?';
    }
    sql[n++] = ')';
  }
  sql[n] = '\0';
  return sql;
}

static int prepare(dldb__batch *b, sqlite3 *db, int rows, sqlite3_stmt **st) {
  if (*st) return SQLITE_OK;
  char *sql = insert_sql(b, rows);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
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

/* Binds stored row r as the statement's row slot (its shared cells aside:
 * bind_shared). */
static void bind_row(const dldb__batch *b, sqlite3_stmt *st, int r, int slot) {
  int own = b->ncols - b->shared, base = b->shared + slot * own;
  for (int i = 0; i < own; i++) bind_cell(b, st, r, b->shared + i, base + i + 1);
}

/* Binds the shared cells (?1 ..) of stored row r. */
static void bind_shared(const dldb__batch *b, sqlite3_stmt *st, int r) {
  for (int i = 0; i < b->shared; i++) bind_cell(b, st, r, i, i + 1);
}

static int step(sqlite3_stmt *st) {
  int s = sqlite3_step(st);
  sqlite3_reset(st);
  return s == SQLITE_DONE ? SQLITE_OK : s;
}

int dldb__batch_flush(dldb__batch *b, sqlite3 *db) {
  int rc = SQLITE_OK;
  if (b->nrows == DLDB__BATCH_ROWS) {
    if ((rc = prepare(b, db, DLDB__BATCH_ROWS, &b->multi)) == SQLITE_OK) {
      bind_shared(b, b->multi, 0);
      for (int r = 0; r < b->nrows; r++) bind_row(b, b->multi, r, r);
      rc = step(b->multi);
    }
  } else if (b->nrows) {
    if ((rc = prepare(b, db, 1, &b->single)) == SQLITE_OK) {
      for (int r = 0; r < b->nrows && rc == SQLITE_OK; r++) {
        bind_shared(b, b->single, r);
        bind_row(b, b->single, r, 0);
        rc = step(b->single);
      }
    }
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
  return ++b->nrows == DLDB__BATCH_ROWS ? dldb__batch_flush(b, db) : SQLITE_OK;
}

void dldb__batch_free(dldb__batch *b) {
  sqlite3_finalize(b->multi);
  sqlite3_finalize(b->single);
  free(b->cells);
  free(b->text);
  const char *row_sql = b->row_sql;
  int shared = b->shared;
  dldb__batch_init_ids(b, b->head, b->ncols, b->id_table);
  dldb__batch_set_row(b, row_sql, shared);
}
