/* dldb_nvtxdigits.c - the digit runs of NVTX names, packed by form and slot
 * (see dldb_nvtxdigits.h). Each form keeps, per slot, the packed runs of
 * its names of the chunk being filled; a full chunk goes to the table,
 * each slot's blob as a dictionary where its runs repeat (the sizes of an
 * op's tensors), as runs where they do not (sequence numbers). */
#include "dldb_nvtxdigits.h"

#include <stdlib.h>
#include <string.h>

#include "dldb_aggr.h"
#include "dldb_nvtxforms.h"

enum { CHUNK = DLDB_NVTX_CHUNK, DICT_MAX = 256, DICT_SLOTS = 1024 };

typedef struct bytes {
  uint8_t *b;
  size_t n, cap;
} bytes;

/* A slot's runs of the chunk being filled. While they are all one run
 * (the slots of a tensor's sizes), only that run and their count are
 * kept; the first other run packs them all. */
typedef struct slotbuf {
  bytes b;         /* packed runs (once two differ) */
  bytes first;     /* the first run's digits, as text */
  int64_t same;    /* runs equal to first, none packed yet; -1: packed */
} slotbuf;

typedef struct dform {
  int nslots;      /* the form's '0's; -1: not seen yet */
  int64_t names;   /* handed over */
  int64_t chunk;   /* being filled */
  slotbuf *slot;   /* nslots of them */
} dform;

struct dldb__digits {
  dldb_writer *w;
  int64_t aggr_id;
  dform *form;     /* by form id */
  size_t nform;
  uint16_t *form_of; /* by name */
  uint8_t *has;    /* by name: bit kk, the kind has it */
  size_t n, cap;   /* names */
  int failed;      /* no runs are kept */
  bytes queue;     /* the rows, as queue_row packs them, until close writes them */
};

/* A queued row's head; its blob's n bytes follow it. */
typedef struct qrow {
  int32_t kind, form, slot;
  int64_t chunk, names;
  size_t n;
} qrow;

static int sqlerr(dldb__digits *d, char *err, size_t errlen) {
  return dl_err(err, errlen, DL_EDB, "NVTX digit runs: %s", dldb__errmsg(d->w));
}

static int reserve(bytes *b, size_t more) {
  if (b->n + more <= b->cap) return DL_OK;
  size_t nc = b->cap ? b->cap * 2 : 256;
  while (nc < b->n + more) nc *= 2;
  uint8_t *p = realloc(b->b, nc);
  if (!p) return DL_ENOMEM;
  b->b = p;
  b->cap = nc;
  return DL_OK;
}

static void put_nibble(uint8_t *o, size_t k, unsigned v) {
  o[k / 2] |= (uint8_t)(k % 2 ? v : v << 4);
}

/* Appends the run s (n digits, 1..DLDB__DIGITS_RUN_MAX) packed. */
static int pack(bytes *b, const char *s, size_t n) {
  size_t k = n <= 15 ? 1 : 5, nib = k + n;
  if (reserve(b, (nib + 1) / 2)) return DL_ENOMEM;
  uint8_t *o = b->b + b->n;
  memset(o, 0, (nib + 1) / 2);
  if (n <= 15) put_nibble(o, 0, (unsigned)n);
  else /* nibble 0 is 0: the length in the next 4 */
    for (size_t i = 0; i < 4; i++) put_nibble(o, 1 + i, (unsigned)(n >> (12 - 4 * i)) & 15);
  for (size_t i = 0; i < n; i++) put_nibble(o, k + i, (unsigned)(s[i] - '0'));
  b->n += (nib + 1) / 2;
  return DL_OK;
}

static unsigned nibble(const uint8_t *p, size_t k) { return k % 2 ? p[k / 2] & 15 : p[k / 2] >> 4; }

/* The run's digit count and where its digits start (a nibble index). */
static size_t run_head(const uint8_t *p, const uint8_t *end, size_t *first) {
  if (p >= end) return 0;
  size_t n = p[0] >> 4;
  *first = 1;
  if (n) return n;
  if (end - p < 3) return 0;
  for (size_t k = 1; k <= 4; k++) n = n << 4 | nibble(p, k);
  *first = 5;
  return n;
}

const uint8_t *dldb__digits_run(const uint8_t *p, const uint8_t *end, size_t *first, size_t *len) {
  size_t n = run_head(p, end, first);
  if (!n || (size_t)(end - p) < (*first + n + 1) / 2) return NULL;
  *len = n;
  return p + (*first + n + 1) / 2;
}

const uint8_t *dldb__digits_skip(const uint8_t *p, const uint8_t *end) {
  size_t first = 0, n = 0;
  return dldb__digits_run(p, end, &first, &n);
}

const uint8_t *dldb__digits_unpack(const uint8_t *p, const uint8_t *end, char *out, size_t *len) {
  size_t first = 0, n = run_head(p, end, &first);
  if (!n || (size_t)(end - p) < (first + n + 1) / 2) return NULL;
  for (size_t i = 0; i < n; i++) out[i] = (char)('0' + nibble(p, first + i));
  *len = n;
  return p + (first + n + 1) / 2;
}

int dldb__digits_open(dldb_writer *w, int64_t aggr_id, dldb__digits **out) {
  *out = NULL;
  if (!dldb__has_table(w, "aggr_nvtx_digits")) return DL_OK;
  dldb__digits *d = calloc(1, sizeof *d);
  if (!d) return DL_ENOMEM;
  d->w = w;
  d->aggr_id = aggr_id;
  *out = d;
  return DL_OK;
}

static void fail(dldb__digits *d) {
  d->failed = 1;
  for (size_t i = 0; i < d->nform; i++) {
    for (int s = 0; s < d->form[i].nslots; s++) {
      free(d->form[i].slot[s].b.b);
      free(d->form[i].slot[s].first.b);
    }
    free(d->form[i].slot);
  }
  free(d->form);
  free(d->form_of);
  free(d->has);
  d->form = NULL;
  d->form_of = NULL;
  d->has = NULL;
  d->nform = 0;
  free(d->queue.b);
  memset(&d->queue, 0, sizeof d->queue);
}

/* Queues one row: kind, form, slot, chunk, names, blob b (n bytes). The
 * rows are written at close, so that the names can be handed over where
 * the writer is busy with other rows (another thread's). */
static int queue_row(dldb__digits *d, int kind, int form, int slot, int64_t chunk, int64_t names,
                     const uint8_t *b, size_t n) {
  qrow h = {.kind = kind, .form = form, .slot = slot, .chunk = chunk, .names = names, .n = n};
  if (reserve(&d->queue, sizeof h + n)) return DL_ENOMEM;
  memcpy(d->queue.b + d->queue.n, &h, sizeof h);
  if (n) memcpy(d->queue.b + d->queue.n + sizeof h, b, n);
  d->queue.n += sizeof h + n;
  return DL_OK;
}

/* Writes the queued rows, in the order they were queued. */
static int write_rows(dldb__digits *d, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  if (d->queue.n &&
      sqlite3_prepare_v2(d->w->db, "INSERT INTO aggr_nvtx_digits(aggr_id, kind, form_id, slot, "
                         "chunk, names, runs) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &st,
                         NULL) != SQLITE_OK)
    return sqlerr(d, err, errlen);
  int rc = DL_OK;
  for (size_t at = 0; rc == DL_OK && at < d->queue.n;) {
    qrow h;
    memcpy(&h, d->queue.b + at, sizeof h);
    sqlite3_bind_int64(st, 1, d->aggr_id);
    sqlite3_bind_int(st, 2, h.kind);
    sqlite3_bind_int(st, 3, h.form);
    sqlite3_bind_int(st, 4, h.slot);
    sqlite3_bind_int64(st, 5, h.chunk);
    sqlite3_bind_int64(st, 6, h.names);
    sqlite3_bind_blob(st, 7, d->queue.b + at + sizeof h, (int)h.n, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? DL_OK : sqlerr(d, err, errlen);
    sqlite3_reset(st);
    at += sizeof h + h.n;
  }
  sqlite3_finalize(st);
  return rc;
}

static uint64_t hash(const uint8_t *s, size_t n) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
  return h;
}

/* The blob of m runs (b: packed, one after another) into out: a
 * dictionary when its runs repeat enough to be smaller. */
static int encode(const bytes *b, int64_t m, bytes *out) {
  struct { const uint8_t *p; size_t n; } dict[DICT_MAX];
  int16_t slots[DICT_SLOTS];
  uint8_t *code = malloc((size_t)m + 1);
  if (!code) return DL_ENOMEM;
  memset(slots, 0xff, sizeof slots);
  size_t nd = 0, dict_bytes = 0;
  const uint8_t *p = b->b, *end = b->b + b->n;
  for (int64_t i = 0; i < m && nd <= DICT_MAX; i++) {
    const uint8_t *q = dldb__digits_skip(p, end);
    size_t n = (size_t)(q - p);
    if (i > 0 && dict[code[i - 1]].n == n && memcmp(dict[code[i - 1]].p, p, n) == 0) {
      code[i] = code[i - 1]; /* the run before it again (a constant slot): no hash */
      p = q;
      continue;
    }
    size_t j = hash(p, n) & (DICT_SLOTS - 1);
    for (; slots[j] >= 0; j = (j + 1) & (DICT_SLOTS - 1))
      if (dict[slots[j]].n == n && memcmp(dict[slots[j]].p, p, n) == 0) break;
    if (slots[j] < 0) {
      if (nd == DICT_MAX) {
        nd++; /* too many */
        break;
      }
      dict[nd].p = p;
      dict[nd].n = n;
      dict_bytes += n;
      slots[j] = (int16_t)nd++;
    }
    code[i] = (uint8_t)slots[j];
    p = q;
  }
  size_t as_dict = 2 + dict_bytes + (nd > 1 ? (size_t)m : 0);
  out->n = 0;
  int rc = DL_OK;
  if (nd <= DICT_MAX && as_dict < 1 + b->n) {
    rc = reserve(out, as_dict);
    if (rc == DL_OK) {
      out->b[out->n++] = DLDB__DIGITS_DICT;
      out->b[out->n++] = (uint8_t)(nd - 1);
      for (size_t i = 0; i < nd; i++, out->n += dict[i - 1].n)
        memcpy(out->b + out->n, dict[i].p, dict[i].n);
      if (nd > 1) {
        memcpy(out->b + out->n, code, (size_t)m);
        out->n += (size_t)m;
      }
    }
  } else if ((rc = reserve(out, 1 + b->n)) == DL_OK) {
    out->b[out->n++] = DLDB__DIGITS_RUNS;
    memcpy(out->b + out->n, b->b, b->n);
    out->n += b->n;
  }
  free(code);
  return rc;
}

/* Queues form f's chunk being filled (m names) and starts the next.
 * DL_OK or DL_ENOMEM. */
static int flush_form(dldb__digits *d, int f, int64_t m) {
  dform *x = &d->form[f];
  bytes out = {0};
  int rc = DL_OK;
  for (int s = 0; rc == DL_OK && s < x->nslots; s++) {
    slotbuf *sb = &x->slot[s];
    out.n = 0;
    if (sb->same >= 0) { /* one run: a dictionary of it */
      rc = reserve(&out, 2);
      if (rc == DL_OK) {
        out.b[out.n++] = DLDB__DIGITS_DICT;
        out.b[out.n++] = 0;
        rc = pack(&out, (const char *)sb->first.b, sb->first.n);
      }
    } else {
      rc = encode(&sb->b, m, &out);
    }
    if (rc == DL_OK) rc = queue_row(d, 0, f, s, x->chunk, m, out.b, out.n);
    sb->b.n = 0;
    sb->same = 0;
  }
  free(out.b);
  x->chunk++;
  return rc;
}

/* Room for form f and name n. */
static int grow(dldb__digits *d, int f) {
  if ((size_t)f >= d->nform) {
    size_t nf = d->nform ? d->nform * 2 : 64;
    while (nf <= (size_t)f) nf *= 2;
    dform *p = realloc(d->form, nf * sizeof *p);
    if (!p) return DL_ENOMEM;
    for (size_t i = d->nform; i < nf; i++) p[i] = (dform){.nslots = -1};
    d->form = p;
    d->nform = nf;
  }
  if (d->n == d->cap) {
    size_t nc = d->cap ? d->cap * 2 : 1024;
    uint16_t *fo = realloc(d->form_of, nc * sizeof *fo);
    if (fo) d->form_of = fo;
    uint8_t *h = fo ? realloc(d->has, nc) : NULL;
    if (!h) return DL_ENOMEM;
    d->has = h;
    d->cap = nc;
  }
  return DL_OK;
}

/* Adds the run t (n digits) to the slot's chunk. */
static int add_run(slotbuf *sb, const char *t, size_t n) {
  if (sb->same > 0 && sb->first.n == n && memcmp(sb->first.b, t, n) == 0) {
    sb->same++;
    return DL_OK;
  }
  if (sb->same == 0) { /* the chunk's first run */
    if (reserve(&sb->first, n)) return DL_ENOMEM;
    memcpy(sb->first.b, t, n);
    sb->first.n = n;
    sb->same = 1;
    return DL_OK;
  }
  for (; sb->same > 0; sb->same--) /* another run: those before it packed */
    if (pack(&sb->b, (const char *)sb->first.b, sb->first.n)) return DL_ENOMEM;
  sb->same = -1;
  return pack(&sb->b, t, n);
}

/* The form's slots, from the name's first sight. */
static int first_sight(dform *x, size_t runs) {
  if (runs > INT32_MAX || !(x->slot = calloc(runs + 1, sizeof *x->slot))) return DL_ENOMEM;
  x->nslots = (int)runs;
  return DL_OK;
}

void dldb__digits_add(dldb__digits *d, int form, const char *text, const uint32_t *runs,
                      size_t nruns) {
  if (!d || d->failed) return;
  if (form == DLDB__NO_FORM || grow(d, form)) {
    fail(d);
    return;
  }
  dform *x = &d->form[form];
  if (x->nslots < 0 && first_sight(x, nruns)) {
    fail(d);
    return;
  }
  if (nruns != (size_t)x->nslots) {
    fail(d);
    return;
  }
  for (size_t s = 0; s < nruns; s++)
    if (runs[2 * s + 1] > DLDB__DIGITS_RUN_MAX ||
        add_run(&x->slot[s], text + runs[2 * s], runs[2 * s + 1])) {
      fail(d);
      return;
    }
  d->form_of[d->n] = (uint16_t)form;
  d->has[d->n++] = 0;
  if (++x->names % CHUNK || !x->nslots) return;
  if (flush_form(d, form, CHUNK)) fail(d);
}

void dldb__digits_has(dldb__digits *d, int kk, size_t h) {
  if (d && !d->failed && h < d->n) d->has[h] |= (uint8_t)(1u << kk);
}

/* For kind kk and each form of which the kind has some names but not all,
 * the bitset of those it has, queued: those forms' names grouped by form
 * (a counting sort of the names), then each form's bits a chunk at a
 * time. DL_OK or DL_ENOMEM. */
static int put_has(dldb__digits *d, int kk) {
  int64_t *some = calloc(d->nform + 1, sizeof *some), *at = calloc(d->nform + 1, sizeof *at);
  uint8_t *bits = calloc(CHUNK / 8, 1);
  uint32_t *name = NULL;
  int rc = some && at && bits ? DL_OK : DL_ENOMEM;
  for (size_t h = 0; rc == DL_OK && h < d->n; h++) some[d->form_of[h]] += d->has[h] >> kk & 1;
  int64_t total = 0;
  for (size_t f = 0; rc == DL_OK && f < d->nform; f++) {
    at[f] = total;
    if (some[f] && some[f] < d->form[f].names) total += d->form[f].names;
    else some[f] = 0; /* none to write */
  }
  if (rc == DL_OK && total && !(name = malloc((size_t)total * sizeof *name))) rc = DL_ENOMEM;
  for (size_t h = 0; rc == DL_OK && total && h < d->n; h++)
    if (some[d->form_of[h]]) name[at[d->form_of[h]]++] = (uint32_t)h;
  for (size_t f = 0, b = 0; rc == DL_OK && total && f < d->nform; b = (size_t)at[f++]) {
    if (!some[f]) continue;
    for (int64_t j = 0; rc == DL_OK && j < d->form[f].names; j++) {
      if (d->has[name[b + (size_t)j]] >> kk & 1) bits[j % CHUNK / 8] |= (uint8_t)(1u << (j % 8));
      if ((j + 1) % CHUNK && j + 1 < d->form[f].names) continue;
      int64_t m = j % CHUNK + 1;
      rc = queue_row(d, kk ? DLDB_STATS_NVTX_GPU_PROJ : DLDB_STATS_NVTX, (int)f, 0, j / CHUNK, m,
                     bits, (size_t)(m + 7) / 8);
      memset(bits, 0, CHUNK / 8);
    }
  }
  free(some);
  free(at);
  free(bits);
  free(name);
  return rc;
}

int dldb__digits_close(dldb__digits **dp, int keep, char *err, size_t errlen) {
  dldb__digits *d = *dp;
  if (!d) return DL_OK;
  int rc = DL_OK;
  for (size_t f = 0; keep && !d->failed && rc == DL_OK && f < d->nform; f++)
    if (d->form[f].nslots > 0 && d->form[f].names % CHUNK)
      rc = flush_form(d, (int)f, d->form[f].names % CHUNK);
  for (int kk = 0; keep && !d->failed && rc == DL_OK && kk < 2; kk++) rc = put_has(d, kk);
  /* short of memory: the aggregation goes without runs */
  rc = keep && !d->failed && rc == DL_OK ? write_rows(d, err, errlen) : DL_OK;
  fail(d);
  free(d);
  *dp = NULL;
  return rc;
}
