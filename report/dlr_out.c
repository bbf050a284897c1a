/*
 * dlr_out.c - the CSV/JSON writer behind every report (see dlr_internal.h).
 *
 * CSV follows DLProf 1.8 byte for byte: LF line ends, a title line per
 * section, blank lines between sections, strings of "quoted" columns always
 * in double quotes (inner quotes doubled), other cells bare unless they hold
 * a comma, quote, CR or LF, averages and percentages with one decimal.
 * JSON is printed by cJSON only; the frame of a streamed table is cJSON's
 * own print of {"report":..,"rows":[]} cut before its closing "]}".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_csv.h"
#include "dlr_internal.h"

int dlr_out_fail(dlr_out *o, int rc) {
  if (o->rc == DL_OK) o->rc = rc;
  return o->rc;
}

static int nomem(dlr_out *o) {
  if (o->rc == DL_OK) {
    dl_err(o->err, o->errlen, DL_ENOMEM, "report %s: out of memory", o->report);
    o->rc = DL_ENOMEM;
  }
  return o->rc;
}

static void flush(dlr_out *o) {
  if (o->rc == DL_OK && o->len > 0) {
    if (o->sink(o->ctx, o->buf, o->len) != 0) {
      dl_err(o->err, o->errlen, DL_EIO, "report %s: the output sink failed", o->report);
      o->rc = DL_EIO;
    }
  }
  o->len = 0;
}

static void put(dlr_out *o, const char *s, size_t n) {
  while (o->rc == DL_OK && n > 0) {
    size_t room = sizeof(o->buf) - o->len;
    if (room == 0) {
      flush(o);
      continue;
    }
    size_t k = n < room ? n : room;
    memcpy(o->buf + o->len, s, k);
    o->len += k;
    s += k;
    n -= k;
  }
}

static void puts_(dlr_out *o, const char *s) { put(o, s, strlen(s)); }

static void put_cb(void *o, const char *s, size_t n) { put(o, s, n); }

/* A CSV field: quoted when the column is a quoted one or the text needs it;
 * text a spreadsheet would take for a formula gets a ' in front. */
static void put_field(dlr_out *o, const char *s, int quote) {
  dl_csv_field(put_cb, o, s, quote, 1);
}

void dlr_out_init(dlr_out *o, dlr_format fmt, const char *report, int64_t aggr_id,
                  const char *domain, int doc_sections, dlr_sink_fn sink, void *ctx, char *err,
                  size_t errlen) {
  memset(o, 0, offsetof(dlr_out, buf));
  o->fmt = fmt;
  o->sink = sink;
  o->ctx = ctx;
  o->err = err;
  o->errlen = errlen;
  o->report = report;
  o->aggr_id = aggr_id;
  o->domain = domain ? domain : "";
  o->streaming = !doc_sections;
}

/* {"report":..,"aggr_id":..,"domain":..} */
static cJSON *envelope(dlr_out *o) {
  cJSON *j = cJSON_CreateObject();
  if (!j || !cJSON_AddStringToObject(j, "report", o->report) ||
      !cJSON_AddNumberToObject(j, "aggr_id", (double)o->aggr_id) ||
      !cJSON_AddStringToObject(j, "domain", o->domain)) {
    cJSON_Delete(j);
    return NULL;
  }
  return j;
}

int dlr_out_section(dlr_out *o, const char *title, const dlr_col *cols, int ncols, int header) {
  if (o->rc) return o->rc;
  o->cols = cols;
  o->ncols = ncols;
  o->cell = 0;
  o->rows = 0;
  if (o->fmt == DLR_CSV) {
    if (o->sections > 0) puts_(o, "\n");
    puts_(o, title);
    puts_(o, "\n");
    if (header) {
      for (int i = 0; i < ncols; i++) {
        if (i) put(o, ",", 1);
        put_field(o, cols[i].header, 0);
      }
      puts_(o, "\n");
    }
  } else if (o->streaming) {
    /* One table: print the frame with an empty "rows" last, send all of it
     * but the closing "]}", then the rows as they come. */
    cJSON *j = envelope(o);
    char *s = NULL;
    if (!j || !cJSON_AddStringToObject(j, "title", title) || !cJSON_AddArrayToObject(j, "rows") ||
        !(s = cJSON_PrintUnformatted(j))) {
      cJSON_Delete(j);
      return nomem(o);
    }
    size_t n = strlen(s);
    if (n >= 3 && strcmp(s + n - 3, "[]}") == 0) {
      put(o, s, n - 2);
    } else {
      dl_err(o->err, o->errlen, DL_EINVAL, "report %s: unexpected JSON frame", o->report);
      dlr_out_fail(o, DL_EINVAL);
    }
    cJSON_free(s);
    cJSON_Delete(j);
  } else {
    if (!o->doc) {
      o->doc = envelope(o);
      if (!o->doc || !cJSON_AddArrayToObject(o->doc, "sections")) return nomem(o);
    }
    cJSON *sect = cJSON_CreateObject();
    if (!sect) return nomem(o);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(o->doc, "sections"), sect);
    if (!cJSON_AddStringToObject(sect, "title", title) ||
        !(o->sect_rows = cJSON_AddArrayToObject(sect, "rows")))
      return nomem(o);
  }
  o->sections++;
  return o->rc;
}

/* JSON: the current row object, created on its first cell. */
static cJSON *json_row(dlr_out *o) {
  if (!o->row && !(o->row = cJSON_CreateObject())) nomem(o);
  return o->row;
}

static const char *json_key(const dlr_out *o) {
  const dlr_col *c = &o->cols[o->cell];
  return c->key ? c->key : c->header;
}

static int cell_ok(dlr_out *o) {
  if (o->rc) return 0;
  if (o->cell >= o->ncols) {
    dl_err(o->err, o->errlen, DL_EINVAL, "report %s: too many cells in a row", o->report);
    dlr_out_fail(o, DL_EINVAL);
    return 0;
  }
  if (o->fmt == DLR_CSV && o->cell > 0) put(o, ",", 1);
  return 1;
}

static void json_add(dlr_out *o, cJSON *item) {
  cJSON *row = json_row(o);
  if (!item || !row) {
    cJSON_Delete(item);
    nomem(o);
    return;
  }
  cJSON_AddItemToObject(row, json_key(o), item);
}

void dlr_out_int(dlr_out *o, int64_t v) {
  if (!cell_ok(o)) return;
  if (o->fmt == DLR_CSV) {
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    puts_(o, b);
  } else {
    json_add(o, cJSON_CreateNumber((double)v));
  }
  o->cell++;
}

void dlr_out_real1(dlr_out *o, double v) {
  if (!cell_ok(o)) return;
  if (!isfinite(v)) {
    if (o->fmt == DLR_JSON) json_add(o, cJSON_CreateNull());
  } else if (o->fmt == DLR_CSV) {
    char b[64];
    snprintf(b, sizeof b, "%.1f", v);
    if (strcmp(b, "-0.0") == 0) strcpy(b, "0.0");
    puts_(o, b);
  } else {
    json_add(o, cJSON_CreateNumber(v));
  }
  o->cell++;
}

void dlr_out_str(dlr_out *o, const char *s) {
  if (!cell_ok(o)) return;
  if (!s) s = "";
  if (o->fmt == DLR_CSV)
    put_field(o, s, o->cols[o->cell].quote);
  else
    json_add(o, cJSON_CreateString(s));
  o->cell++;
}

void dlr_out_yesno(dlr_out *o, int yes) {
  if (!cell_ok(o)) return;
  if (o->fmt == DLR_CSV)
    puts_(o, yes ? "yes" : "no");
  else
    json_add(o, cJSON_CreateBool(yes));
  o->cell++;
}

void dlr_out_null(dlr_out *o) {
  if (!cell_ok(o)) return;
  if (o->fmt == DLR_JSON) json_add(o, cJSON_CreateNull());
  o->cell++;
}

int dlr_out_end_row(dlr_out *o) {
  while (o->rc == DL_OK && o->cell < o->ncols) dlr_out_null(o);
  if (o->rc) return o->rc;
  if (o->fmt == DLR_CSV) {
    put(o, "\n", 1);
  } else if (o->streaming) {
    char *s = json_row(o) ? cJSON_PrintUnformatted(o->row) : NULL;
    if (!s) return nomem(o);
    if (o->rows > 0) put(o, ",", 1);
    puts_(o, s);
    cJSON_free(s);
    cJSON_Delete(o->row);
    o->row = NULL;
  } else {
    if (!json_row(o)) return o->rc;
    cJSON_AddItemToArray(o->sect_rows, o->row);
    o->row = NULL;
  }
  o->rows++;
  o->cell = 0;
  return o->rc;
}

int dlr_out_finish(dlr_out *o) {
  if (o->rc == DL_OK && o->fmt == DLR_JSON) {
    if (o->streaming) {
      if (o->sections == 0) {
        dl_err(o->err, o->errlen, DL_EINVAL, "report %s: no table was written", o->report);
        dlr_out_fail(o, DL_EINVAL);
      }
      puts_(o, "]}\n");
    } else {
      char *s = o->doc ? cJSON_PrintUnformatted(o->doc) : NULL;
      if (!s) return nomem(o);
      puts_(o, s);
      puts_(o, "\n");
      cJSON_free(s);
    }
  }
  flush(o);
  dlr_out_free(o);
  return o->rc;
}

void dlr_out_free(dlr_out *o) {
  cJSON_Delete(o->row);
  o->row = NULL;
  cJSON_Delete(o->doc);
  o->doc = NULL;
  o->sect_rows = NULL;
}
