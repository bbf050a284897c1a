/* json.c - dldb rows to cJSON (see json.h). */
#include "json.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *dlv_json_int(int64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "%" PRId64, v);
  return cJSON_CreateRaw(buf);
}

cJSON *dlv_json_real(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

cJSON *dlv_json_value(const dldb_row *row, int i) {
  switch (dldb_row_type(row, i)) {
  case DLDB_COL_INTEGER: return dlv_json_int(dldb_row_int(row, i));
  case DLDB_COL_REAL: return dlv_json_real(dldb_row_real(row, i));
  case DLDB_COL_TEXT: return cJSON_CreateString(dldb_row_text(row, i));
  default: return cJSON_CreateNull();
  }
}

cJSON *dlv_json_row(const dldb_row *row) {
  cJSON *obj = cJSON_CreateObject();
  for (int i = 0; obj && i < dldb_row_count(row); i++) {
    cJSON *v = dlv_json_value(row, i);
    if (!v || !cJSON_AddItemToObject(obj, dldb_row_name(row, i), v)) {
      cJSON_Delete(v);
      cJSON_Delete(obj);
      return NULL;
    }
  }
  return obj;
}

int dlv_json_rows_append(void *ctx, const dldb_row *row) {
  dlv_json_rows *rows = ctx;
  cJSON *obj = dlv_json_row(row);
  if (!obj || !cJSON_AddItemToArray(rows->array, obj)) {
    cJSON_Delete(obj);
    rows->failed = 1;
    return 1;
  }
  return 0;
}

/* ---- JSON text, written directly ---------------------------------------- */

static int jbuf_grow(dlv_jbuf *b, size_t need) {
  if (b->oom) return -1;
  if (b->len + need + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + need + 1) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    b->oom = 1;
    return -1;
  }
  b->s = s;
  b->cap = cap;
  return 0;
}

void dlv_jbuf_raw(dlv_jbuf *b, const char *s, size_t n) {
  if (jbuf_grow(b, n) != 0) return;
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void dlv_jbuf_lit(dlv_jbuf *b, const char *s) { dlv_jbuf_raw(b, s, strlen(s)); }

/* 1 for the bytes a JSON string must escape. */
static int needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

void dlv_jbuf_str(dlv_jbuf *b, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  dlv_jbuf_raw(b, "\"", 1);
  for (;;) {
    const unsigned char *run = p;
    while (*p && !needs_escape(*p)) p++;
    if (p > run) dlv_jbuf_raw(b, (const char *)run, (size_t)(p - run));
    if (!*p) break;
    char esc[8];
    switch (*p) {
    case '"': dlv_jbuf_raw(b, "\\\"", 2); break;
    case '\\': dlv_jbuf_raw(b, "\\\\", 2); break;
    case '\b': dlv_jbuf_raw(b, "\\b", 2); break;
    case '\f': dlv_jbuf_raw(b, "\\f", 2); break;
    case '\n': dlv_jbuf_raw(b, "\\n", 2); break;
    case '\r': dlv_jbuf_raw(b, "\\r", 2); break;
    case '\t': dlv_jbuf_raw(b, "\\t", 2); break;
    default:
      snprintf(esc, sizeof esc, "\\u%04x", *p);
      dlv_jbuf_raw(b, esc, 6);
      break;
    }
    p++;
  }
  dlv_jbuf_raw(b, "\"", 1);
}

void dlv_jbuf_int(dlv_jbuf *b, int64_t v) {
  char buf[24], *e = buf + sizeof buf, *p = e;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) *--p = '-';
  dlv_jbuf_raw(b, p, (size_t)(e - p));
}

void dlv_jbuf_real(dlv_jbuf *b, double v) {
  char buf[32];
  if (!isfinite(v)) {
    dlv_jbuf_raw(b, "null", 4);
    return;
  }
  /* cJSON 1.7: 15 digits unless they read back further than DBL_EPSILON away */
  int n = snprintf(buf, sizeof buf, "%1.15g", v);
  double back = strtod(buf, NULL), max = fabs(back) > fabs(v) ? fabs(back) : fabs(v);
  if (!(fabs(back - v) <= max * DBL_EPSILON)) n = snprintf(buf, sizeof buf, "%1.17g", v);
  dlv_jbuf_raw(b, buf, (size_t)n);
}

void dlv_jbuf_value(dlv_jbuf *b, const dldb_row *row, int i) {
  switch (dldb_row_type(row, i)) {
  case DLDB_COL_INTEGER: dlv_jbuf_int(b, dldb_row_int(row, i)); break;
  case DLDB_COL_REAL: dlv_jbuf_real(b, dldb_row_real(row, i)); break;
  case DLDB_COL_TEXT: dlv_jbuf_str(b, dldb_row_text(row, i)); break;
  default: dlv_jbuf_raw(b, "null", 4); break;
  }
}

void dlv_jbuf_row(dlv_jbuf *b, const dldb_row *row) {
  int n = dldb_row_count(row);
  dlv_jbuf_raw(b, "{", 1);
  for (int i = 0; i < n; i++) {
    if (i) dlv_jbuf_raw(b, ",", 1);
    dlv_jbuf_str(b, dldb_row_name(row, i));
    dlv_jbuf_raw(b, ":", 1);
    dlv_jbuf_value(b, row, i);
  }
  dlv_jbuf_raw(b, "}", 1);
}

char *dlv_jbuf_take(dlv_jbuf *b, size_t *len) {
  char *s = b->oom ? NULL : b->s;
  if (!s) s = b->oom ? NULL : calloc(1, 1);
  if (len) *len = s ? b->len : 0;
  if (b->oom) free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
  return s;
}

void dlv_jbuf_free(dlv_jbuf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}

int dlv_jbuf_rows_append(void *ctx, const dldb_row *row) {
  dlv_jbuf_rows *r = ctx;
  if (r->n++) dlv_jbuf_raw(r->buf, ",", 1);
  dlv_jbuf_row(r->buf, row);
  return r->buf->oom;
}
