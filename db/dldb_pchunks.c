/*
 * dldb_pchunks.c - the stored orders kept as chunks of pairs (db/schema.sql
 * aggr_dl_kernel_dur_chunks, aggr_dl_kernel_seq_chunks,
 * aggr_dl_kernel_dseq_chunks): per key (the aggregation, and for the groups'
 * orders the group), DLDB_PAIR_CHUNK places a row as a JSON array of
 * [a, b] pairs. The pairs of a key come in place order (from the caller's
 * rows, or from dldb_aggr_end's own passes); a chunk is inserted when full,
 * when the key changes and at the end. A pass whose keys interleave keeps
 * its chunks itself and inserts each whole (dldb__pc_put). Internal to db/
 * (dldb_write_internal.h). Where the writer's set holds builds of a table
 * and its key's index (w->pc_bulk, dldb_orders.c), its chunks go into them
 * instead of SQLite's inserts, in key order as they come.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dl_sqlbuild.h"
#include "dldb_chunks.h"
#include "dldb_write_internal.h"

/* Each table's insert: ?1 the aggregation, ?2 the group (where the table
 * has one: grouped), ?3 the chunk, ?4 its text. */
static const struct {
  const char *sql, *what, *table;
  int grouped;
} tables[DLDB__PC_COUNT] = {
    [DLDB__PC_KDUR] = {"INSERT INTO aggr_dl_kernel_dur_chunks(aggr_id, chunk, launches) "
                       "VALUES (?1, ?3, ?4)",
                       "kernel durations", "aggr_dl_kernel_dur_chunks", 0},
    [DLDB__PC_KSEQ] = {"INSERT INTO aggr_dl_kernel_seq_chunks(aggr_id, group_id, chunk, "
                       "launches) VALUES (?1, ?2, ?3, ?4)",
                       "kernel groups", "aggr_dl_kernel_seq_chunks", 1},
    [DLDB__PC_KDSEQ] = {"INSERT INTO aggr_dl_kernel_dseq_chunks(aggr_id, group_id, chunk, "
                        "launches) VALUES (?1, ?2, ?3, ?4)",
                        "kernel durations by group", "aggr_dl_kernel_dseq_chunks", 1},
};

/* "[" and up to DLDB_PAIR_CHUNK "[a,b]," of two 20-character numbers, "]". */
#define PC_TEXT (2 + DLDB_PAIR_CHUNK * 45)

struct dldb__pchunk {
  sqlite3_stmt *ins;
  int table;
  int64_t aggr_id, group, chunk;
  int n; /* pairs of the open chunk */
  int64_t pair[DLDB_PAIR_CHUNK][2];
  char text[PC_TEXT];
};

/* A chunk's row and its key's index entry into the set's builds of the
 * table (w->pc_bulk). */
static int build_row(dldb_writer *w, int table, int64_t aggr_id, int64_t group, int64_t chunk,
                     const char *text, size_t len, char *err, size_t errlen) {
  dl_sqlbuild *rows = w->pc_bulk[table][0], *keys = w->pc_bulk[table][1];
  dl_sqlpage_val v[4], k[4];
  int n = 0;
  v[n++] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = aggr_id};
  if (tables[table].grouped) v[n++] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = group};
  v[n++] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = chunk};
  memcpy(k, v, (size_t)n * sizeof *v);
  k[n] = (dl_sqlpage_val){.type = SQLITE_INTEGER, .i = dl_sqlbuild_next_rowid(rows)};
  v[n] = (dl_sqlpage_val){.type = SQLITE_TEXT, .s = text, .n = len};
  int rc = dl_sqlbuild_row(rows, v);
  if (rc == DL_OK) rc = dl_sqlbuild_row(keys, k);
  if (rc == DL_EIO) {
    int sys = errno;
    return dl_err(err, errlen, rc, "dldb: writing %s failed: %s", tables[table].what,
                  sys ? strerror(sys) : "an I/O error");
  }
  if (rc == DL_ENOMEM) return dl_err(err, errlen, rc, "dldb: %s: out of memory", tables[table].what);
  return rc ? dl_err(err, errlen, rc, "dldb: %s not in key order", tables[table].what) : DL_OK;
}

static int insert(dldb_writer *w, dldb__pchunk *c, int64_t group, int64_t chunk,
                  const int64_t (*pair)[2], int n, char *err, size_t errlen) {
  size_t len = 0;
  c->text[len++] = '[';
  for (int i = 0; i < n; i++) {
    if (i) c->text[len++] = ',';
    c->text[len++] = '[';
    len += dldb__put_int(c->text + len, pair[i][0]);
    c->text[len++] = ',';
    len += dldb__put_int(c->text + len, pair[i][1]);
    c->text[len++] = ']';
  }
  c->text[len++] = ']';
  if (w->pc_bulk[c->table][0])
    return build_row(w, c->table, c->aggr_id, group, chunk, c->text, len, err, errlen);
  if (w->bulk) /* SQLite would write pages the set writes too */
    return dl_err(err, errlen, DL_EINVAL, "dldb: %s: other tables being built as pages",
                  tables[c->table].what);
  sqlite3_bind_int64(c->ins, 1, c->aggr_id);
  sqlite3_bind_int64(c->ins, 2, group);
  sqlite3_bind_int64(c->ins, 3, chunk);
  sqlite3_bind_text(c->ins, 4, c->text, (int)len, SQLITE_STATIC);
  int src = sqlite3_step(c->ins);
  sqlite3_reset(c->ins);
  if (src != SQLITE_DONE)
    return dl_err(err, errlen, DL_EDB, "dldb: %s: %s", tables[c->table].what,
                  dldb__errmsg(w));
  return DL_OK;
}

static int flush(dldb_writer *w, dldb__pchunk *c, char *err, size_t errlen) {
  if (c->n == 0) return DL_OK;
  int rc = insert(w, c, c->group, c->chunk, (const int64_t(*)[2])c->pair, c->n, err, errlen);
  c->n = 0;
  c->chunk++;
  return rc;
}

int dldb__pc_begin(dldb_writer *w, int table, char *err, size_t errlen) {
  dldb__pc_free(w, table);
  dldb__pchunk *c = malloc(sizeof *c);
  if (!c)
    return dl_err(err, errlen, DL_ENOMEM, "dldb: %s: out of memory", tables[table].what);
  *c = (dldb__pchunk){.table = table, .aggr_id = w->aggr_id, .group = -1};
  if (sqlite3_prepare_v2(w->db, tables[table].sql, -1, &c->ins, NULL) != SQLITE_OK) {
    int rc = dl_err(err, errlen, DL_EDB, "dldb: %s: %s", tables[table].what,
                    dldb__errmsg(w));
    sqlite3_finalize(c->ins);
    free(c);
    return rc;
  }
  w->pc[table] = c;
  return DL_OK;
}

int dldb__pc_add(dldb_writer *w, int table, int64_t group, int64_t place, int64_t a, int64_t b,
                 char *err, size_t errlen) {
  dldb__pchunk *c = w->pc[table];
  if (!c) return dl_err(err, errlen, DL_EINVAL, "dldb: %s: not begun", tables[table].what);
  if (group != c->group) {
    int rc = flush(w, c, err, errlen);
    if (rc) return rc;
    c->group = group;
    c->chunk = 0;
  }
  if (place >= 0 && place != c->chunk * DLDB_PAIR_CHUNK + c->n)
    return dl_err(err, errlen, DL_EINVAL, "dldb: %s: place %lld of group %lld out of order",
                  tables[table].what, (long long)place, (long long)group);
  c->pair[c->n][0] = a;
  c->pair[c->n][1] = b;
  return ++c->n == DLDB_PAIR_CHUNK ? flush(w, c, err, errlen) : DL_OK;
}

int dldb__pc_put(dldb_writer *w, int table, int64_t group, int64_t chunk,
                 const int64_t (*pair)[2], int n, char *err, size_t errlen) {
  dldb__pchunk *c = w->pc[table];
  if (!c) return dl_err(err, errlen, DL_EINVAL, "dldb: %s: not begun", tables[table].what);
  return n > 0 ? insert(w, c, group, chunk, pair, n, err, errlen) : DL_OK;
}

int dldb__pc_end(dldb_writer *w, int table, char *err, size_t errlen) {
  int rc = w->pc[table] ? flush(w, w->pc[table], err, errlen) : DL_OK;
  dldb__pc_free(w, table);
  return rc;
}

void dldb__pc_free(dldb_writer *w, int table) {
  if (!w->pc[table]) return;
  sqlite3_finalize(w->pc[table]->ins);
  free(w->pc[table]);
  w->pc[table] = NULL;
}

int dldb__pc_flush_all(dldb_writer *w, char *err, size_t errlen) {
  int rc = DL_OK;
  for (int t = 0; rc == DL_OK && t < DLDB__PC_COUNT; t++)
    if (w->pc[t]) rc = flush(w, w->pc[t], err, errlen);
  return rc;
}

const char *dldb__pc_table(int table, int *key_cols) {
  *key_cols = tables[table].grouped ? 3 : 2;
  return tables[table].table;
}
