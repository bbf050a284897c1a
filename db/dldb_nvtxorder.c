/* dldb_nvtxorder.c - the NVTX name order and forms from an order the caller
 * computed (see dldb_write_nvtx.h): each kind's rows are placed by a
 * counting sort on their names' places (rows in row_idx order, so a name's
 * rows stay in row_idx order, as the pass over `strings` places them), and
 * the forms are given their ids walking the names in order, as that pass
 * does. */
#include "dldb_write_nvtx.h"

#include <stdlib.h>
#include <string.h>

#include "dldb_aggr.h"
#include "dldb_nvtxforms.h"

static const char *const fn_texts = "dldb_aggr_nvtx_texts", *const fn_order = "dldb_aggr_nvtx_order";

int dldb_aggr_nvtx_order_wanted(dldb_writer *w) {
  return w->in_aggr && w->nvtx_layout == DLDB__NVTX_RUNS &&
         (w->nvtx_rows[0] > 0 || w->nvtx_rows[1] > 0) &&
         dldb__has_table(w, "aggr_nvtx_name_order") && dldb__has_table(w, "aggr_nvtx_forms") &&
         dldb__has_table(w, "aggr_nvtx_row_forms");
}

int dldb_aggr_nvtx_texts(dldb_writer *w, const uint32_t *ids, size_t n,
                         int (*fn)(void *ctx, size_t i, const char *text, size_t len), void *ctx,
                         char *err, size_t errlen) {
  if (!n) return DL_OK;
  int rc = dldb__flush(w, err, errlen, fn_texts); /* strings the analysis added */
  if (rc) return rc;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, "SELECT id, value FROM strings WHERE id >= ?1 ORDER BY id", -1,
                         &st, NULL) != SQLITE_OK)
    return dldb__sqlerr(w, err, errlen, fn_texts);
  sqlite3_bind_int64(st, 1, ids[0]);
  size_t i = 0;
  int s = SQLITE_ROW;
  while (rc == DL_OK && i < n && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    if (id < ids[i]) continue; /* a string no row names */
    if (id > ids[i] || sqlite3_column_type(st, 1) != SQLITE_TEXT) {
      rc = DL_ENOTFOUND;
      break;
    }
    const char *t = (const char *)sqlite3_column_text(st, 1);
    int len = sqlite3_column_bytes(st, 1);
    if (!t) rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn_texts);
    else rc = fn(ctx, i++, t, (size_t)len);
  }
  if (rc == DL_OK && s != SQLITE_ROW && s != SQLITE_DONE) rc = dldb__sqlerr(w, err, errlen, fn_texts);
  if (rc == DL_OK && i < n) rc = DL_ENOTFOUND;
  sqlite3_finalize(st);
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

/* Each name's form (forms[g]), walking the names in order; names no row
 * has get none. */
static int name_forms(dldb__forms *f, const char *const *text, const uint32_t *len,
                      size_t nnames, const uint8_t *used, uint16_t *forms) {
  size_t cap = 0;
  char *scratch = NULL;
  int rc = DL_OK;
  for (size_t g = 0; rc == DL_OK && g < nnames && !f->full; g++) {
    forms[g] = DLDB__NO_FORM;
    if (!used[g]) continue;
    if (len[g] + 1 > cap) {
      char *p = realloc(scratch, len[g] + 1);
      if (!p) {
        rc = DL_ENOMEM;
        break;
      }
      scratch = p;
      cap = len[g] + 1;
    }
    int id;
    rc = dldb__forms_of(f, text[g], len[g], scratch, &id);
    forms[g] = (uint16_t)id;
  }
  free(scratch);
  return rc;
}

/* Kind k's rows' forms, and the rows of each form. */
static void row_forms(dldb__forms *f, int kk, const uint32_t *name, int64_t n,
                      const uint16_t *forms, uint16_t *out) {
  for (int64_t r = 0; r < n; r++) {
    out[r] = forms[name[r]];
    f->rows[kk][out[r]]++;
  }
}

int dldb_aggr_nvtx_order(dldb_writer *w, const char *const *text, const uint32_t *len,
                         size_t nnames, const uint32_t *const name[2], const int64_t nrows[2],
                         char *err, size_t errlen) {
  if (!dldb_aggr_nvtx_order_wanted(w) || nrows[0] != w->nvtx_rows[0] ||
      nrows[1] != w->nvtx_rows[1] || nnames > UINT32_MAX)
    return dl_err(err, errlen, DL_EINVAL, "%s: not the open aggregation's NVTX rows", fn_order);
  for (int k = 0; k < 2; k++)
    for (int64_t r = 0; r < nrows[k]; r++)
      if (name[k][r] >= nnames)
        return dl_err(err, errlen, DL_EINVAL, "%s: a row without a name", fn_order);
  int64_t most = nrows[0] > nrows[1] ? nrows[0] : nrows[1];
  uint32_t *next = malloc((nnames + 1) * sizeof *next);
  uint32_t *places = malloc((size_t)(most + 1) * sizeof *places);
  uint16_t *forms = malloc((nnames + 1) * sizeof *forms);
  uint8_t *used = calloc(nnames + 1, 1);
  sqlite3_stmt *st = NULL;
  dldb__forms f = {0};
  int rc = next && places && forms && used ? DL_OK : DL_ENOMEM;
  for (int k = 0; rc == DL_OK && k < 2; k++)
    for (int64_t r = 0; r < nrows[k]; r++) used[name[k][r]] = 1;
  if (rc == DL_OK) rc = name_forms(&f, text, len, nnames, used, forms); /* before any write */
  for (int k = 0; rc == DL_OK && k < 2; k++) {
    int kind = k ? DLDB_STATS_NVTX_GPU_PROJ : DLDB_STATS_NVTX;
    if (!nrows[k]) continue;
    memset(next, 0, nnames * sizeof *next);
    place_rows(name[k], nrows[k], next, nnames, places);
    for (int64_t c = 0; rc == DL_OK && c * DLDB_NVTX_CHUNK < nrows[k]; c++) {
      int64_t m = nrows[k] - c * DLDB_NVTX_CHUNK;
      rc = dldb__nvtx_put_order(w, &st, w->aggr_id, kind, c, places + c * DLDB_NVTX_CHUNK,
                                (size_t)(m < DLDB_NVTX_CHUNK ? m : DLDB_NVTX_CHUNK), err, errlen);
    }
    if (rc != DL_OK || f.full) continue;
    uint16_t *rf = (uint16_t *)(void *)places; /* the places are written: 2 bytes a row now */
    row_forms(&f, k, name[k], nrows[k], forms, rf);
    rc = dldb__nvtx_put_forms(w, w->aggr_id, kind, &f, rf, nrows[k], err, errlen);
  }
  sqlite3_finalize(st);
  if (rc == DL_ENOMEM) rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", fn_order);
  dldb__forms_free(&f);
  free(next);
  free(places);
  free(forms);
  free(used);
  return rc;
}
