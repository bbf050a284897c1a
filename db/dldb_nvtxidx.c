/* dldb_nvtxidx.c - the name order and name forms of the open aggregation's
 * NVTX statistics (db/schema.sql aggr_nvtx_name_order, aggr_nvtx_forms,
 * aggr_nvtx_row_forms), written by dldb_aggr_end once its aggr_nvtx_runs
 * rows are flushed, unless the writer's caller handed them over
 * (dldb_write_nvtx.h, dldb_nvtxorder.c; the analysis does, within its
 * memory budget): this pass serves every other writer of NVTX rows.
 *
 * One pass over `strings` in value order (SQLite's sorter, which spills to
 * temporary files, so memory stays bounded) places every row of both kinds:
 * a string's rows are found through an array by string id. Rows come out in
 * name order and go to the table CHUNK places at a time; each string's form
 * (its digit runs as one '0') is looked up in a small hash table on the way.
 * Memory: 4 bytes per string id and kind, 2 bytes per row, the forms, and
 * the sort's buffers (the writer's cache size). It runs in a transaction of
 * its own after the aggregation's commit. */
#include "dldb_nvtxidx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_aggr.h"
#include "dldb_nvtxdigits.h"
#include "dldb_nvtxforms.h"

enum { CHUNK = DLDB_NVTX_CHUNK, NO_FORM = DLDB__NO_FORM };

/* One kind's rows: where each string's rows are, its output. */
typedef struct kindrows {
  int kind;
  int64_t n;          /* rows */
  int32_t *head;      /* by string id: its first row, -1 none */
  int32_t (*more)[2]; /* (id, row) of further rows of an id (both styles), by id */
  size_t nmore;
  uint16_t *form;     /* by row */
  uint32_t *buf;      /* the chunk being filled: CHUNK places */
  int64_t placed, chunk;
  int32_t *group;     /* the rows of the current name, to sort */
  size_t ngroup, capgroup;
} kindrows;

typedef struct idx {
  dldb_writer *w;
  int64_t aggr_id;
  kindrows k[2];
  int64_t nids;       /* string ids below this have places in head */
  dldb__forms f;
  sqlite3_stmt *put_order; /* prepared by dldb__nvtx_put_order */
  dldb__digits *digits;    /* the names' digit runs; NULL: none */
  size_t names;            /* distinct names seen */
  char *err;
  size_t errlen;
} idx;

static int sqlerr(idx *x, const char *what) {
  return dl_err(x->err, x->errlen, DL_EDB, "dldb_aggr_end: NVTX name order: %s: %s", what,
                dldb__errmsg(x->w));
}

static int oom(idx *x) {
  return dl_err(x->err, x->errlen, DL_ENOMEM, "dldb_aggr_end: NVTX name order: out of memory");
}

/* Writes k's filled chunk (its first `places` entries). */
static int flush_order(idx *x, kindrows *k, int64_t places) {
  return dldb__nvtx_put_order(x->w, &x->put_order, x->aggr_id, k->kind, k->chunk++, k->buf,
                              (size_t)places, x->err, x->errlen);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Places the rows of the current name (k->group), row_idx ascending, the
 * second and later marked as equal to the name before. */
static int place_group(idx *x, kindrows *k) {
  if (k->ngroup > 1) qsort(k->group, k->ngroup, sizeof *k->group, cmp_i32);
  for (size_t i = 0; i < k->ngroup; i++) {
    k->buf[k->placed % CHUNK] = (uint32_t)k->group[i] | (i ? 0x80000000u : 0);
    if (++k->placed % CHUNK == 0) {
      int rc = flush_order(x, k, CHUNK);
      if (rc) return rc;
    }
  }
  k->ngroup = 0;
  return DL_OK;
}

static int group_add(kindrows *k, int32_t row) {
  if (k->ngroup == k->capgroup) {
    size_t nc = k->capgroup ? k->capgroup * 2 : 8;
    int32_t *g = realloc(k->group, nc * sizeof *g);
    if (!g) return DL_ENOMEM;
    k->group = g;
    k->capgroup = nc;
  }
  k->group[k->ngroup++] = row;
  return DL_OK;
}

static int cmp_more(const void *a, const void *b) {
  const int32_t *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Reads kind k's rows: head and more by string id (ids < nids). */
static int load_rows(idx *x, kindrows *k, int64_t nids) {
  sqlite3_stmt *st = NULL;
  size_t capmore = 0;
  k->head = malloc((size_t)nids * sizeof *k->head);
  k->form = malloc((size_t)(k->n ? k->n : 1) * sizeof *k->form);
  k->buf = malloc(CHUNK * sizeof *k->buf);
  if (!k->head || !k->form || !k->buf) return oom(x);
  memset(k->head, 0xff, (size_t)nids * sizeof *k->head);
  if (sqlite3_prepare_v2(x->w->db, "SELECT row_idx, key FROM aggr_nvtx_runs WHERE aggr_id = ?1 "
                         "AND kind = ?2", -1, &st, NULL) != SQLITE_OK)
    return sqlerr(x, "read");
  sqlite3_bind_int64(st, 1, x->aggr_id);
  sqlite3_bind_int(st, 2, k->kind);
  int rc = DL_OK, src;
  int64_t seen = 0;
  while (rc == DL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t row = sqlite3_column_int64(st, 0), id = sqlite3_column_int64(st, 1) >> 1;
    if (row < 0 || row >= k->n || id < 0 || id >= nids) {
      rc = DL_ENOTFOUND; /* not rows 0..n-1 of known strings: no index */
      break;
    }
    seen++;
    if (k->head[id] < 0) {
      k->head[id] = (int32_t)row;
      continue;
    }
    if (k->nmore == capmore) {
      size_t nc = capmore ? capmore * 2 : 64;
      int32_t(*m)[2] = realloc(k->more, nc * sizeof *m);
      if (!m) {
        rc = oom(x);
        break;
      }
      k->more = m;
      capmore = nc;
    }
    k->more[k->nmore][0] = (int32_t)id;
    k->more[k->nmore++][1] = (int32_t)row;
  }
  if (rc == DL_OK && src != SQLITE_DONE) rc = sqlerr(x, "read");
  if (rc == DL_OK && seen != k->n) rc = DL_ENOTFOUND;
  sqlite3_finalize(st);
  if (rc == DL_OK && k->nmore > 1) qsort(k->more, k->nmore, sizeof *k->more, cmp_more);
  return rc;
}

/* Adds string id's rows of kind k (form fid) to its current group. */
static int take(kindrows *k, dldb__forms *f, int64_t id, int fid) {
  int32_t row = k->head[id];
  if (row < 0) return DL_OK;
  int kk = k->kind == DLDB_STATS_NVTX_GPU_PROJ;
  int rc = group_add(k, row);
  k->form[row] = (uint16_t)fid;
  if (fid != NO_FORM) f->rows[kk][fid]++;
  size_t lo = 0, hi = k->nmore; /* further rows: the first with this id */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (k->more[mid][0] < id) lo = mid + 1;
    else hi = mid;
  }
  for (; rc == DL_OK && lo < k->nmore && k->more[lo][0] == id; lo++) {
    row = k->more[lo][1];
    rc = group_add(k, row);
    k->form[row] = (uint16_t)fid;
    if (fid != NO_FORM) f->rows[kk][fid]++;
  }
  return rc;
}

/* The pass over `strings` in value order. */
static int place_all(idx *x) {
  sqlite3_stmt *st = NULL;
  char *prev = NULL, *scratch = NULL;
  uint32_t *runs = NULL; /* the digit runs of the name (scratch_cap of them) */
  size_t prev_len = 0, prev_cap = 0, scratch_cap = 0, nruns = 0;
  int rc = DL_OK, src, have_prev = 0;
  if (sqlite3_prepare_v2(x->w->db, "SELECT id, value FROM strings ORDER BY value", -1, &st,
                         NULL) != SQLITE_OK)
    return sqlerr(x, "sort");
  while (rc == DL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    const char *v = sqlite3_column_blob(st, 1);
    size_t len = (size_t)sqlite3_column_bytes(st, 1);
    int used = 0;
    for (int i = 0; i < 2 && id >= 0 && id < x->nids; i++)
      used |= x->k[i].n > 0 && x->k[i].head[id] >= 0;
    if (!used) continue; /* a string no row names */
    if (rc == DL_OK && len + 1 > scratch_cap) {
      char *p = realloc(scratch, len + 1);
      if (p) scratch = p;
      uint32_t *r = p ? realloc(runs, (len + 1) * sizeof *r) : NULL;
      if (!r) rc = DL_ENOMEM;
      else runs = r, scratch_cap = len + 1;
    }
    int fid = NO_FORM;
    if (rc == DL_OK) rc = dldb__forms_of(&x->f, v ? v : "", len, scratch, runs, &nruns, &fid);
    if (rc == DL_OK && (!have_prev || len != prev_len || (len && memcmp(v, prev, len) != 0))) {
      for (int i = 0; i < 2 && rc == DL_OK; i++) rc = place_group(x, &x->k[i]);
      if (rc == DL_OK) dldb__digits_add(x->digits, fid, v ? v : "", runs, nruns);
      x->names++;
      if (len + 1 > prev_cap) {
        char *p = realloc(prev, len + 1);
        if (!p) rc = DL_ENOMEM;
        else prev = p, prev_cap = len + 1;
      }
      if (rc == DL_OK && len) memcpy(prev, v, len);
      prev_len = len;
      have_prev = 1;
    }
    for (int i = 0; i < 2 && rc == DL_OK; i++)
      if (x->k[i].n > 0 && x->k[i].head[id] >= 0) {
        dldb__digits_has(x->digits, i, x->names - 1);
        rc = take(&x->k[i], &x->f, id, fid);
      }
  }
  if (rc == DL_OK && src != SQLITE_DONE) rc = sqlerr(x, "sort");
  for (int i = 0; i < 2 && rc == DL_OK; i++) rc = place_group(x, &x->k[i]);
  for (int i = 0; i < 2 && rc == DL_OK; i++)
    if (x->k[i].placed % CHUNK) rc = flush_order(x, &x->k[i], x->k[i].placed % CHUNK);
  if (rc == DL_ENOMEM) rc = oom(x);
  sqlite3_finalize(st);
  free(prev);
  free(scratch);
  free(runs);
  return rc;
}

/* Removes what was written of the aggregation's order (a row without a
 * string: the viewer reads the views as before). */
static int drop_order(idx *x) {
  sqlite3_stmt *st = NULL;
  int rc = DL_OK;
  if (sqlite3_prepare_v2(x->w->db, "DELETE FROM aggr_nvtx_name_order WHERE aggr_id = ?1", -1,
                         &st, NULL) != SQLITE_OK)
    return sqlerr(x, "drop");
  sqlite3_bind_int64(st, 1, x->aggr_id);
  if (sqlite3_step(st) != SQLITE_DONE) rc = sqlerr(x, "drop");
  sqlite3_finalize(st);
  return rc;
}

static int run(idx *x) {
  int64_t nids = 0;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(x->w->db, "SELECT coalesce(max(id), 0) + 1 FROM strings", -1, &st,
                         NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW) {
    sqlite3_finalize(st);
    return sqlerr(x, "strings");
  }
  nids = x->nids = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (nids > INT32_MAX) return DL_OK; /* not ours: no index */
  for (int i = 0; i < 2; i++) {
    if (!x->k[i].n) continue;
    int rc = load_rows(x, &x->k[i], nids);
    if (rc == DL_ENOTFOUND) return DL_OK;
    if (rc) return rc;
  }
  if (dldb__digits_open(x->w, x->aggr_id, &x->digits)) x->digits = NULL; /* optional */
  int rc = place_all(x);
  int complete = 1;
  for (int i = 0; i < 2; i++) complete &= x->k[i].placed == x->k[i].n;
  int keep = rc == DL_OK && complete && !x->f.full;
  int drc = dldb__digits_close(&x->digits, keep, x->err, x->errlen);
  if (rc == DL_OK) rc = drc;
  if (rc == DL_OK && !complete) return drop_order(x);
  for (int i = 0; i < 2 && rc == DL_OK && !x->f.full; i++)
    if (x->k[i].n)
      rc = dldb__nvtx_put_forms(x->w, x->aggr_id, x->k[i].kind, &x->f, x->k[i].form, x->k[i].n,
                                x->err, x->errlen);
  return rc;
}

/* The integer sql answers; none when it fails. */
static int one_int(dldb_writer *w, const char *sql, int none) {
  sqlite3_stmt *st = NULL;
  int v = none;
  if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* 1 when the analysis handed the aggregation's order over
 * (dldb_write_nvtx.h): its rows are there. */
static int handed_over(dldb_writer *w) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(w->db, "SELECT 1 FROM aggr_nvtx_name_order WHERE aggr_id = ?1 LIMIT 1",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, w->aggr_id);
    found = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return found;
}

int dldb__nvtx_index(dldb_writer *w, char *err, size_t errlen) {
  if (w->nvtx_layout != DLDB__NVTX_RUNS || (!w->nvtx_rows[0] && !w->nvtx_rows[1]) ||
      !dldb__has_table(w, "aggr_nvtx_name_order") || !dldb__has_table(w, "aggr_nvtx_row_forms") ||
      handed_over(w))
    return DL_OK;
  idx x = {.w = w, .aggr_id = w->aggr_id, .err = err, .errlen = errlen};
  x.k[0] = (kindrows){.kind = DLDB_STATS_NVTX, .n = w->nvtx_rows[0]};
  x.k[1] = (kindrows){.kind = DLDB_STATS_NVTX_GPU_PROJ, .n = w->nvtx_rows[1]};
  /* SQLite's sort spills to temporary files only with temp_store FILE (the
   * writer keeps MEMORY, where it would hold every string); the setting
   * can change only outside a transaction and drops TEMP objects, so only
   * when there are none */
  int temps = one_int(w, "SELECT count(*) FROM sqlite_temp_master", 1);
  int store = one_int(w, "PRAGMA temp_store", -1);
  int spill = !w->in_tx && temps == 0 && store >= 0 &&
              sqlite3_exec(w->db, "PRAGMA temp_store=FILE", NULL, NULL, NULL) == SQLITE_OK;
  int rc = dldb__tx_begin(w, err, errlen);
  if (rc == DL_OK) rc = run(&x);
  if (rc == DL_OK) rc = dldb__tx_commit(w, err, errlen);
  if (rc != DL_OK && w->in_tx) { /* nothing of it stays */
    sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    w->in_tx = 0;
    w->pending = 0;
  }
  if (rc == DL_ENOMEM) rc = DL_OK; /* the order is optional: the viewer reads the views */
  if (spill) {
    char sql[32];
    snprintf(sql, sizeof sql, "PRAGMA temp_store=%d", store);
    sqlite3_exec(w->db, sql, NULL, NULL, NULL);
  }
  sqlite3_finalize(x.put_order);
  for (int i = 0; i < 2; i++) {
    free(x.k[i].head);
    free(x.k[i].more);
    free(x.k[i].form);
    free(x.k[i].buf);
    free(x.k[i].group);
  }
  dldb__forms_free(&x.f);
  return rc;
}
