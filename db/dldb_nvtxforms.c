/* dldb_nvtxforms.c - the name forms of NVTX statistics rows and the writers
 * of the name order and forms tables (see dldb_nvtxforms.h). */
#include "dldb_nvtxforms.h"

#include <stdlib.h>
#include <string.h>

#include "dldb_aggr.h"

static int sqlerr(dldb_writer *w, char *err, size_t errlen, const char *what) {
  return dl_err(err, errlen, DL_EDB, "NVTX name order: %s: %s", what, dldb__errmsg(w));
}

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
  return h;
}

/* Doubles the hash slots (at most half full). */
static int grow_slots(dldb__forms *f) {
  size_t ns = f->nslot ? f->nslot * 2 : 1024;
  int32_t *s = calloc(ns, sizeof *s);
  if (!s) return DL_ENOMEM;
  for (size_t i = 0; i < f->n; i++) {
    size_t j = hash(f->text[i], f->len[i]) & (ns - 1);
    while (s[j]) j = (j + 1) & (ns - 1);
    s[j] = (int32_t)i + 1;
  }
  free(f->slot);
  f->slot = s;
  f->nslot = ns;
  return DL_OK;
}

/* Room for one more form. */
static int grow_forms(dldb__forms *f) {
  size_t nc = f->cap ? f->cap * 2 : 256;
  char **t2 = realloc(f->text, nc * sizeof *t2);
  if (t2) f->text = t2;
  size_t *l2 = t2 ? realloc(f->len, nc * sizeof *l2) : NULL;
  if (l2) f->len = l2;
  int64_t *r0 = l2 ? realloc(f->rows[0], nc * sizeof *r0) : NULL;
  if (r0) f->rows[0] = r0;
  int64_t *r1 = r0 ? realloc(f->rows[1], nc * sizeof *r1) : NULL;
  if (r1) f->rows[1] = r1;
  if (!r1) return DL_ENOMEM;
  f->cap = nc;
  return DL_OK;
}

int dldb__forms_of(dldb__forms *f, const char *t, size_t n, char *scratch, uint32_t *runs,
                   size_t *nruns, int *id) {
  *id = DLDB__NO_FORM;
  if (nruns) *nruns = 0;
  if (f->full) return DL_OK;
  size_t m = 0, k = 0;
  for (size_t i = 0; i < n;) {
    if (t[i] < '0' || t[i] > '9') {
      scratch[m++] = t[i++];
      continue;
    }
    size_t b = i; /* a run: one '0' */
    while (i < n && t[i] >= '0' && t[i] <= '9') i++;
    scratch[m++] = '0';
    if (runs) {
      runs[2 * k] = (uint32_t)b;
      runs[2 * k + 1] = (uint32_t)(i - b);
    }
    k++;
  }
  if (nruns) *nruns = k;
  if (f->n && f->len[f->last] == m && memcmp(f->text[f->last], scratch, m) == 0) {
    *id = f->last; /* names in order: mostly the form of the name before */
    return DL_OK;
  }
  if (f->nslot < 2 * (f->n + 1) && grow_slots(f)) return DL_ENOMEM;
  size_t j = hash(scratch, m) & (f->nslot - 1);
  for (; f->slot[j]; j = (j + 1) & (f->nslot - 1)) {
    int32_t i = f->slot[j] - 1;
    if (f->len[i] == m && memcmp(f->text[i], scratch, m) == 0) {
      *id = f->last = i;
      return DL_OK;
    }
  }
  if (f->n == DLDB__FORMS_MAX) {
    f->full = 1;
    return DL_OK;
  }
  if (f->n == f->cap && grow_forms(f)) return DL_ENOMEM;
  char *copy = malloc(m + 1);
  if (!copy) return DL_ENOMEM;
  memcpy(copy, scratch, m);
  copy[m] = '\0';
  f->text[f->n] = copy;
  f->len[f->n] = m;
  f->rows[0][f->n] = f->rows[1][f->n] = 0;
  f->slot[j] = (int32_t)f->n + 1;
  *id = f->last = (int)f->n++;
  return DL_OK;
}

void dldb__forms_free(dldb__forms *f) {
  for (size_t i = 0; i < f->n; i++) free(f->text[i]);
  free(f->text);
  free(f->len);
  free(f->rows[0]);
  free(f->rows[1]);
  free(f->slot);
  memset(f, 0, sizeof *f);
}

int dldb__nvtx_put_order(dldb_writer *w, sqlite3_stmt **st, int64_t aggr_id, int kind,
                         int64_t chunk, const uint32_t *places, size_t n, char *err,
                         size_t errlen) {
  if (!*st && sqlite3_prepare_v2(w->db, "INSERT INTO aggr_nvtx_name_order(aggr_id, kind, chunk, "
                                 "places) VALUES (?1, ?2, ?3, ?4)", -1, st, NULL) != SQLITE_OK)
    return sqlerr(w, err, errlen, "write");
  uint8_t *b = malloc(n * 4 + 1); /* 4-byte little-endian places */
  if (!b) return dl_err(err, errlen, DL_ENOMEM, "NVTX name order: out of memory");
  for (size_t i = 0; i < n; i++) {
    b[4 * i] = (uint8_t)places[i];
    b[4 * i + 1] = (uint8_t)(places[i] >> 8);
    b[4 * i + 2] = (uint8_t)(places[i] >> 16);
    b[4 * i + 3] = (uint8_t)(places[i] >> 24);
  }
  sqlite3_reset(*st);
  sqlite3_bind_int64(*st, 1, aggr_id);
  sqlite3_bind_int(*st, 2, kind);
  sqlite3_bind_int64(*st, 3, chunk);
  sqlite3_bind_blob(*st, 4, b, (int)(n * 4), SQLITE_STATIC);
  int rc = sqlite3_step(*st) == SQLITE_DONE ? DL_OK : sqlerr(w, err, errlen, "write");
  sqlite3_reset(*st); /* the blob is no longer bound to memory about to go */
  free(b);
  return rc;
}

/* Writes the forms rows of kind (kk its index in f->rows). */
static int put_form_rows(dldb_writer *w, sqlite3_stmt *st, int64_t aggr_id, int kind, int kk,
                         const dldb__forms *f, char *err, size_t errlen) {
  for (size_t i = 0; i < f->n; i++) {
    if (!f->rows[kk][i]) continue;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, aggr_id);
    sqlite3_bind_int(st, 2, kind);
    sqlite3_bind_int64(st, 3, (int64_t)i);
    sqlite3_bind_text(st, 4, f->text[i], (int)f->len[i], SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, f->rows[kk][i]);
    if (sqlite3_step(st) != SQLITE_DONE) return sqlerr(w, err, errlen, "forms");
  }
  return DL_OK;
}

int dldb__nvtx_put_forms(dldb_writer *w, int64_t aggr_id, int kind, const dldb__forms *f,
                         const uint16_t *form, int64_t n, char *err, size_t errlen) {
  sqlite3_stmt *fs = NULL, *rs = NULL;
  int kk = kind == DLDB_STATS_NVTX_GPU_PROJ, rc = DL_OK;
  uint8_t *b = malloc(DLDB_NVTX_CHUNK * 2); /* 2 bytes a row, little-endian */
  if (!b) return dl_err(err, errlen, DL_ENOMEM, "NVTX name order: out of memory");
  if (sqlite3_prepare_v2(w->db, "INSERT INTO aggr_nvtx_forms(aggr_id, kind, form_id, form, "
                         "rows) VALUES (?1, ?2, ?3, ?4, ?5)", -1, &fs, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(w->db, "INSERT INTO aggr_nvtx_row_forms(aggr_id, kind, chunk, forms) "
                         "VALUES (?1, ?2, ?3, ?4)", -1, &rs, NULL) != SQLITE_OK)
    rc = sqlerr(w, err, errlen, "forms");
  if (rc == DL_OK) rc = put_form_rows(w, fs, aggr_id, kind, kk, f, err, errlen);
  for (int64_t c = 0; rc == DL_OK && c * DLDB_NVTX_CHUNK < n; c++) {
    int64_t m = n - c * DLDB_NVTX_CHUNK < DLDB_NVTX_CHUNK ? n - c * DLDB_NVTX_CHUNK : DLDB_NVTX_CHUNK;
    for (int64_t i = 0; i < m; i++) {
      uint16_t v = form[c * DLDB_NVTX_CHUNK + i];
      b[2 * i] = (uint8_t)v;
      b[2 * i + 1] = (uint8_t)(v >> 8);
    }
    sqlite3_reset(rs);
    sqlite3_bind_int64(rs, 1, aggr_id);
    sqlite3_bind_int(rs, 2, kind);
    sqlite3_bind_int64(rs, 3, c);
    sqlite3_bind_blob(rs, 4, b, (int)(m * 2), SQLITE_STATIC);
    if (sqlite3_step(rs) != SQLITE_DONE) rc = sqlerr(w, err, errlen, "forms");
  }
  sqlite3_finalize(fs);
  sqlite3_finalize(rs);
  free(b);
  return rc;
}
