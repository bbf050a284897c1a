/* csv.c - RFC 4180 CSV output (see csv.h). */
#include "csv.h"

#include "dl.h"
#include "dl_csv.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dlv_csv_init(dlv_csv *c, dlv_write_fn write, void *ctx) {
  c->write = write;
  c->ctx = ctx;
  c->rows = 0;
  c->failed = 0;
  c->len = 0;
}

int dlv_csv_flush(dlv_csv *c) {
  if (c->len && !c->failed && c->write(c->ctx, c->buf, c->len) != 0) c->failed = 1;
  c->len = 0;
  return c->failed ? -1 : 0;
}

static void put(dlv_csv *c, const char *s, size_t n) {
  while (n && !c->failed) {
    if (c->len == sizeof c->buf) dlv_csv_flush(c);
    size_t k = sizeof c->buf - c->len < n ? sizeof c->buf - c->len : n;
    memcpy(c->buf + c->len, s, k);
    c->len += k;
    s += k;
    n -= k;
  }
}

static void put_cb(void *c, const char *s, size_t n) { put(c, s, n); }

void dlv_csv_field(dlv_csv *c, const char *s, int first) {
  if (!first) put(c, ",", 1);
  dl_csv_field(put_cb, c, s, 0, 0);
}

void dlv_csv_text_field(dlv_csv *c, const char *s, int first) {
  if (!first) put(c, ",", 1);
  dl_csv_field(put_cb, c, s, 0, 1);
}

void dlv_format_real(char *buf, size_t len, double v) {
  if (!isfinite(v)) {
    snprintf(buf, len, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    return;
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, len, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

void dlv_csv_header(dlv_csv *c, const char *const *names, int n) {
  for (int i = 0; i < n; i++) dlv_csv_field(c, names[i], i == 0);
  put(c, "\r\n", 2);
  c->rows++;
}

int dlv_csv_row(void *csv, const dldb_row *row) {
  dlv_csv *c = csv;
  int n = dldb_row_count(row);
  for (int i = 0; i < n; i++) {
    char num[40];
    switch (dldb_row_type(row, i)) {
    case DLDB_COL_INTEGER:
      snprintf(num, sizeof num, "%" PRId64, dldb_row_int(row, i));
      dlv_csv_field(c, num, i == 0);
      break;
    case DLDB_COL_REAL:
      dlv_format_real(num, sizeof num, dldb_row_real(row, i));
      dlv_csv_field(c, num, i == 0);
      break;
    case DLDB_COL_TEXT: dlv_csv_text_field(c, dldb_row_text(row, i), i == 0); break;
    default: dlv_csv_field(c, "", i == 0); break;
    }
  }
  put(c, "\r\n", 2);
  c->rows++;
  return c->failed;
}
