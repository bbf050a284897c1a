/* dldb_nvtxorder.c - the NVTX name order and forms from an order the caller
 * computed (see dldb_write_nvtx.h): each name's form is found as the names
 * are handed over in order (so form ids are given in the order the pass
 * over `strings` gives them), each kind's rows are placed by a
 * counting sort on their names' places (rows in row_idx order, so a name's
 * rows stay in row_idx order, as the pass over `strings` places them), and
 * the rows go
 * to the tables in the sequence that pass writes them, so the tables are
 * the same to their rowids. */
#include "dldb_write_nvtx.h"

#include <stdlib.h>
#include <string.h>

#include "dl_sqlpage.h"
#include "dldb_aggr.h"
#include "dldb_nvtxdigits.h"
#include "dldb_nvtxforms.h"

static const char *const fn_texts = "dldb_aggr_nvtx_texts", *const fn_order = "dldb_aggr_nvtx_names";

int dldb_aggr_nvtx_order_wanted(dldb_writer *w) {
  return w->in_aggr && w->nvtx_layout == DLDB__NVTX_RUNS &&
         (w->nvtx_rows[0] > 0 || w->nvtx_rows[1] > 0) &&
         dldb__has_table(w, "aggr_nvtx_name_order") && dldb__has_table(w, "aggr_nvtx_forms") &&
         dldb__has_table(w, "aggr_nvtx_row_forms");
}

/* The strings from ids[0] on, in id order: read from the table's pages
 * where the file holds them as the writer sees them, else stepped by
 * SQLite (the next row into *id, *text, *len: SQLITE_ROW, SQLITE_DONE or
 * an error; *text NULL for a value that is not text). */
typedef struct texts {
  sqlite3_stmt *st;
  dl_sqlpage *pg;
} texts;

static int texts_open(dldb_writer *w, uint32_t first, texts *t) {
  static const char *const cols[] = {"rowid", "value"};
  sqlite3_stmt *plain = NULL;
  if (dldb__pages_current(w) &&
      sqlite3_prepare_v2(w->db, "SELECT rowid, value FROM strings", -1, &plain, NULL) ==
          SQLITE_OK &&
      dl_sqlpage_open(w->db, plain, "strings", cols, 2, 1u << 1, NULL, 0, &t->pg) == DL_OK) {
    t->st = plain;
    return SQLITE_OK;
  }
  sqlite3_finalize(plain);
  int s = sqlite3_prepare_v2(w->db, "SELECT id, value FROM strings WHERE id >= ?1 ORDER BY id",
                             -1, &t->st, NULL);
  if (s == SQLITE_OK) sqlite3_bind_int64(t->st, 1, first);
  return s;
}

static int texts_next(texts *t, int64_t *id, const char **text, size_t *len) {
  if (t->pg) {
    dl_sqlpage_val v[2];
    int s = dl_sqlpage_next(t->pg, v);
    if (s != SQLITE_ROW) return s;
    *id = v[0].i;
    *text = v[1].type == SQLITE_TEXT ? v[1].s : NULL;
    *len = v[1].n;
    return s;
  }
  int s = sqlite3_step(t->st);
  if (s != SQLITE_ROW) return s;
  *id = sqlite3_column_int64(t->st, 0);
  *text = NULL;
  if (sqlite3_column_type(t->st, 1) == SQLITE_TEXT) {
    *text = (const char *)sqlite3_column_text(t->st, 1);
    *len = (size_t)sqlite3_column_bytes(t->st, 1);
    if (!*text) return SQLITE_NOMEM;
  }
  return s;
}

static void texts_close(texts *t) {
  dl_sqlpage_close(&t->pg);
  sqlite3_finalize(t->st);
  t->st = NULL;
}

int dldb_aggr_nvtx_texts(dldb_writer *w, const uint32_t *ids, size_t n,
                         int (*fn)(void *ctx, size_t i, const char *text, size_t len), void *ctx,
                         char *err, size_t errlen) {
  if (!n) return DL_OK;
  int rc = dldb__flush(w, err, errlen, fn_texts); /* strings the analysis added */
  if (rc) return rc;
  texts t = {0};
  if (texts_open(w, ids[0], &t) != SQLITE_OK) return dldb__sqlerr(w, err, errlen, fn_texts);
  size_t i = 0;
  int s = SQLITE_ROW;
  int64_t id;
  const char *text;
  size_t len = 0;
  while (rc == DL_OK && i < n && (s = texts_next(&t, &id, &text, &len)) == SQLITE_ROW) {
    if (id < ids[i]) continue; /* a string no row names */
    if (id > ids[i] || !text) {
      rc = DL_ENOTFOUND;
      break;
    }
    rc = fn(ctx, i++, text, len);
  }
  if (rc == DL_OK && s == SQLITE_NOMEM) rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn_texts);
  else if (rc == DL_OK && s != SQLITE_ROW && s != SQLITE_DONE && t.pg)
    rc = dl_err(err, errlen, DL_ECORRUPT, "%s: reading strings failed: %s", fn_texts,
                sqlite3_errstr(s));
  else if (rc == DL_OK && s != SQLITE_ROW && s != SQLITE_DONE)
    rc = dldb__sqlerr(w, err, errlen, fn_texts);
  if (rc == DL_OK && i < n) rc = DL_ENOTFOUND;
  texts_close(&t);
  return rc;
}

/* Places kind k's rows (name[r] for r < n) in name order into places:
 * next[] (nnames, zeroed) counts, then holds each name's end. */
static void place_rows(const uint32_t *name, int64_t n, uint32_t *next, size_t nnames,
                       uint32_t *places) {
  for (int64_t r = 0; r < n; r++) next[name[r]]++;
  uint32_t at = 0;
  for (size_t g = 0; g < nnames; g++) {
    uint32_t c = next[g];
    next[g] = at;
    at += c;
  }
  for (int64_t r = 0; r < n; r++) places[next[name[r]]++] = (uint32_t)r;
  for (size_t g = 0, begin = 0; g < nnames; begin = next[g++]) /* a name's later rows: bit 31 */
    for (size_t p = begin + 1; p < next[g]; p++) places[p] |= 0x80000000u;
}

struct dldb_nvtx_names {
  dldb_writer *w;
  size_t nnames;
  uint16_t *forms; /* by place; DLDB__NO_FORM where none was handed over */
  dldb__forms f;
  char *scratch;   /* a form being made */
  uint32_t *runs;  /* its digit runs */
  size_t cap;
  dldb__digits *digits; /* the names' digit runs; NULL: none */
  size_t added;    /* names handed over */
};

/* Kind k's rows' forms, and the rows of each form. */
static void row_forms(dldb__forms *f, int kk, const uint32_t *name, int64_t n,
                      const uint16_t *forms, uint16_t *out) {
  for (int64_t r = 0; r < n; r++) {
    out[r] = forms[name[r]];
    if (out[r] != DLDB__NO_FORM) f->rows[kk][out[r]]++;
  }
}

enum { CHUNK = DLDB_NVTX_CHUNK };

static int kind_of(int k) { return k ? DLDB_STATS_NVTX_GPU_PROJ : DLDB_STATS_NVTX; }

/* The name of the last place of kind k's chunk c (a full one). */
static uint32_t chunk_name(const uint32_t *name, const uint32_t *places, int64_t c) {
  return name[places[(c + 1) * CHUNK - 1] & 0x7fffffffu];
}

/* Writes both kinds' order chunks in the order the pass over `strings`
 * fills them (so that the table's rows are the same, rowids included): a
 * kind's chunk when the name that fills it is placed, kind 6 before 7 at
 * the same name; then each kind's last, partial chunk. */
static int put_chunks(dldb_writer *w, const uint32_t *const name[2], const int64_t nrows[2],
                      uint32_t *const places[2], char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int64_t full[2] = {nrows[0] / CHUNK, nrows[1] / CHUNK}, c[2] = {0, 0};
  int rc = DL_OK;
  while (rc == DL_OK && (c[0] < full[0] || c[1] < full[1])) {
    int k = c[0] == full[0] ? 1 : c[1] == full[1] ? 0
            : chunk_name(name[1], places[1], c[1]) < chunk_name(name[0], places[0], c[0]);
    rc = dldb__nvtx_put_order(w, &st, w->aggr_id, kind_of(k), c[k], places[k] + c[k] * CHUNK,
                              CHUNK, err, errlen);
    c[k]++;
  }
  for (int k = 0; rc == DL_OK && k < 2; k++)
    if (nrows[k] % CHUNK)
      rc = dldb__nvtx_put_order(w, &st, w->aggr_id, kind_of(k), c[k], places[k] + c[k] * CHUNK,
                                (size_t)(nrows[k] % CHUNK), err, errlen);
  sqlite3_finalize(st);
  return rc;
}

int dldb_aggr_nvtx_names_open(dldb_writer *w, size_t nnames, dldb_nvtx_names **out, char *err,
                              size_t errlen) {
  *out = NULL;
  if (!dldb_aggr_nvtx_order_wanted(w) || nnames > UINT32_MAX)
    return dl_err(err, errlen, DL_EINVAL, "%s: no NVTX rows to order", fn_order);
  dldb_nvtx_names *o = calloc(1, sizeof *o);
  if (o) o->forms = malloc((nnames + 1) * sizeof *o->forms);
  if (!o || !o->forms) {
    free(o);
    return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn_order);
  }
  memset(o->forms, 0xff, (nnames + 1) * sizeof *o->forms); /* DLDB__NO_FORM */
  o->w = w;
  o->nnames = nnames;
  if (dldb__digits_open(w, w->aggr_id, &o->digits)) o->digits = NULL; /* optional */
  *out = o;
  return DL_OK;
}

int dldb_aggr_nvtx_names_add(dldb_nvtx_names *o, size_t g, const char *text, size_t len,
                             char *err, size_t errlen) {
  if (g >= o->nnames) return dl_err(err, errlen, DL_EINVAL, "%s: a name past the last", fn_order);
  if (o->f.full) return DL_OK; /* no forms are written */
  if (len + 1 > o->cap) {
    char *p = realloc(o->scratch, len + 1);
    if (p) o->scratch = p;
    uint32_t *r = p ? realloc(o->runs, (len + 1) * sizeof *r) : NULL;
    if (!r) return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn_order);
    o->runs = r;
    o->cap = len + 1;
  }
  int id;
  size_t nruns = 0;
  if (dldb__forms_of(&o->f, text, len, o->scratch, o->runs, &nruns, &id))
    return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn_order);
  o->forms[g] = (uint16_t)id;
  if (g != o->added++) /* the runs are by name: places must be handed over without gaps */
    return dldb__digits_close(&o->digits, 0, err, errlen);
  dldb__digits_add(o->digits, id, text, o->runs, nruns);
  return DL_OK;
}

int dldb_aggr_nvtx_names_write(dldb_nvtx_names *o, const uint32_t *const name[2],
                               const int64_t nrows[2], char *err, size_t errlen) {
  dldb_writer *w = o->w;
  size_t nnames = o->nnames;
  if (!dldb_aggr_nvtx_order_wanted(w) || nrows[0] != w->nvtx_rows[0] ||
      nrows[1] != w->nvtx_rows[1])
    return dl_err(err, errlen, DL_EINVAL, "%s: not the open aggregation's NVTX rows", fn_order);
  for (int k = 0; k < 2; k++)
    for (int64_t r = 0; r < nrows[k]; r++)
      if (name[k][r] >= nnames)
        return dl_err(err, errlen, DL_EINVAL, "%s: a row without a name", fn_order);
  uint32_t *next = malloc((nnames + 1) * sizeof *next);
  uint32_t *places[2] = {malloc((size_t)(nrows[0] + 1) * sizeof *places[0]),
                         malloc((size_t)(nrows[1] + 1) * sizeof *places[1])};
  int rc = next && places[0] && places[1] ? DL_OK : DL_ENOMEM;
  for (int k = 0; rc == DL_OK && k < 2; k++) {
    memset(next, 0, nnames * sizeof *next);
    place_rows(name[k], nrows[k], next, nnames, places[k]);
  }
  free(next);
  if (rc == DL_OK) rc = put_chunks(w, name, nrows, places, err, errlen);
  for (int k = 0; rc == DL_OK && !o->f.full && k < 2; k++) {
    if (!nrows[k]) continue;
    uint16_t *rf = (uint16_t *)(void *)places[k]; /* the places are written: 2 bytes a row */
    row_forms(&o->f, k, name[k], nrows[k], o->forms, rf);
    rc = dldb__nvtx_put_forms(w, w->aggr_id, kind_of(k), &o->f, rf, nrows[k], err, errlen);
  }
  for (int k = 0; rc == DL_OK && o->digits && k < 2; k++)
    for (int64_t r = 0; r < nrows[k]; r++) dldb__digits_has(o->digits, k, name[k][r]);
  if (rc == DL_OK) rc = dldb__digits_close(&o->digits, !o->f.full, err, errlen);
  if (rc == DL_ENOMEM) rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn_order);
  free(places[0]);
  free(places[1]);
  return rc;
}

void dldb_aggr_nvtx_names_free(dldb_nvtx_names **o) {
  if (!*o) return;
  char err[8];
  dldb__digits_close(&(*o)->digits, 0, err, sizeof err); /* not written: none stay */
  dldb__forms_free(&(*o)->f);
  free((*o)->forms);
  free((*o)->scratch);
  free((*o)->runs);
  free(*o);
  *o = NULL;
}
