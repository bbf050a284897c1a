/*
 * dldb_kdchunks.c - the open aggregation's kernel launches by GPU duration
 * (db/schema.sql aggr_dl_kernel_dur_chunks), DLDB_KD_CHUNK places a row:
 * the launches come in order (from the caller, dldb_write_durs.h, or from
 * dldb_aggr_end's sorted read of the written rows), each chunk's JSON
 * array is filled here and inserted when full, the last one at the end.
 * Internal to db/ (dldb_write_internal.h).
 */
#include <stdlib.h>

#include "dldb_chunks.h"
#include "dldb_write_internal.h"

/* "[" and up to DLDB_KD_CHUNK "[d,t]," of two 20-character numbers, "]". */
#define KD_TEXT (2 + DLDB_KD_CHUNK * 45)

struct dldb__kdchunk {
  sqlite3_stmt *ins;
  int64_t aggr_id, chunk;
  int n;        /* launches in text */
  size_t len;
  char text[KD_TEXT];
};

static int flush(dldb_writer *w, char *err, size_t errlen) {
  dldb__kdchunk *c = w->kd;
  if (!c || c->n == 0) return DL_OK;
  c->text[c->len++] = ']';
  sqlite3_bind_int64(c->ins, 1, c->aggr_id);
  sqlite3_bind_int64(c->ins, 2, c->chunk);
  sqlite3_bind_text(c->ins, 3, c->text, (int)c->len, SQLITE_STATIC);
  int src = sqlite3_step(c->ins);
  sqlite3_reset(c->ins);
  c->n = 0;
  c->len = 0;
  c->chunk++;
  if (src != SQLITE_DONE)
    return dl_err(err, errlen, DL_EDB, "dldb: kernel durations: %s", sqlite3_errmsg(w->db));
  return DL_OK;
}

int dldb__kd_begin(dldb_writer *w, int64_t aggr_id, char *err, size_t errlen) {
  dldb__kd_free(w);
  dldb__kdchunk *c = calloc(1, sizeof *c);
  if (!c) return dl_err(err, errlen, DL_ENOMEM, "dldb: kernel durations: out of memory");
  if (sqlite3_prepare_v2(w->db,
                         "INSERT INTO aggr_dl_kernel_dur_chunks(aggr_id, chunk, launches) "
                         "VALUES (?1, ?2, ?3)",
                         -1, &c->ins, NULL) != SQLITE_OK) {
    int rc = dl_err(err, errlen, DL_EDB, "dldb: kernel durations: %s", sqlite3_errmsg(w->db));
    free(c);
    return rc;
  }
  c->aggr_id = aggr_id;
  w->kd = c;
  return DL_OK;
}

int dldb__kd_add(dldb_writer *w, int64_t dur_ns, int64_t api_start_ns, char *err,
                 size_t errlen) {
  dldb__kdchunk *c = w->kd;
  if (!c) return dl_err(err, errlen, DL_EINVAL, "dldb: kernel durations: not begun");
  c->text[c->len++] = c->n ? ',' : '[';
  c->text[c->len++] = '[';
  c->len += dldb__put_int(c->text + c->len, dur_ns);
  c->text[c->len++] = ',';
  c->len += dldb__put_int(c->text + c->len, api_start_ns);
  c->text[c->len++] = ']';
  return ++c->n == DLDB_KD_CHUNK ? flush(w, err, errlen) : DL_OK;
}

int dldb__kd_end(dldb_writer *w, char *err, size_t errlen) {
  int rc = flush(w, err, errlen);
  dldb__kd_free(w);
  return rc;
}

void dldb__kd_free(dldb_writer *w) {
  if (!w->kd) return;
  sqlite3_finalize(w->kd->ins);
  free(w->kd);
  w->kd = NULL;
}
