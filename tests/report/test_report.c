/*
 * test_report.c - report/ (dlr_*) against NVIDIA DLProf 1.8's own CSVs.
 *
 * For both DLProf databases in DL_SHARED_DIR/traces/dlprof, each CSV report
 * is parsed and compared cell by cell with the CSV DLProf wrote from the
 * same database. Columns that no 1.8 view carries (docs/compat.md, "Columns
 * not derivable") are compared only where we print something; every such
 * header must be named in docs/compat.md. Also: JSON parses and has the
 * CSV's row count, unknown names, failing sinks, quoting of hostile names
 * (a copy of no_relu in the build dir with edited dictionary strings), and
 * columns filled from an optional view_dl_* view.
 */
#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../test.h"
#include "dldb.h"
#include "dlr.h"

/* ---- helpers ---------------------------------------------------------------- */

typedef struct membuf {
  char *s;
  size_t len, cap;
  int calls;
  int fail_at; /* >0: the fail_at-th call fails */
} membuf;

static int mem_sink(void *ctx, const char *buf, size_t len) {
  membuf *m = ctx;
  m->calls++;
  if (m->fail_at > 0 && m->calls >= m->fail_at) return -1;
  if (m->len + len + 1 > m->cap) {
    size_t cap = (m->len + len + 1) * 2;
    char *s = realloc(m->s, cap);
    if (!s) return -1;
    m->s = s;
    m->cap = cap;
  }
  memcpy(m->s + m->len, buf, len);
  m->len += len;
  m->s[m->len] = '\0';
  return 0;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  fclose(f);
  if (s) {
    s[n] = '\0';
    if (len) *len = (size_t)n;
  }
  return s;
}

/* A parsed CSV: rows of cells (RFC 4180: quotes, doubled quotes, CR/LF
 * inside quotes). quoted[r][c] tells whether the cell was quoted. */
typedef struct csv {
  int nrows;
  int *ncells;
  char ***cells;
  char **quoted;
} csv;

static void csv_free(csv *c) {
  for (int r = 0; r < c->nrows; r++) {
    for (int k = 0; k < c->ncells[r]; k++) free(c->cells[r][k]);
    free(c->cells[r]);
    free(c->quoted[r]);
  }
  free(c->cells);
  free(c->quoted);
  free(c->ncells);
  memset(c, 0, sizeof *c);
}

static void csv_push_cell(csv *c, const char *s, size_t n, int quoted) {
  int r = c->nrows - 1;
  int k = c->ncells[r]++;
  c->cells[r] = realloc(c->cells[r], sizeof(char *) * (size_t)(k + 1));
  c->quoted[r] = realloc(c->quoted[r], (size_t)(k + 1));
  c->cells[r][k] = strndup(s, n);
  c->quoted[r][k] = (char)quoted;
}

static void csv_new_row(csv *c) {
  int r = c->nrows++;
  c->ncells = realloc(c->ncells, sizeof(int) * (size_t)c->nrows);
  c->cells = realloc(c->cells, sizeof(char **) * (size_t)c->nrows);
  c->quoted = realloc(c->quoted, sizeof(char *) * (size_t)c->nrows);
  c->ncells[r] = 0;
  c->cells[r] = NULL;
  c->quoted[r] = NULL;
}

/* Returns 0, or -1 on malformed input (stray quote). A blank line is a row
 * with one empty cell. */
static int csv_parse(const char *s, csv *c) {
  memset(c, 0, sizeof *c);
  size_t n = strlen(s);
  char *cell = malloc(n + 1);
  size_t i = 0;
  while (i < n) {
    csv_new_row(c);
    for (;;) {
      size_t len = 0;
      int quoted = 0;
      if (s[i] == '"') {
        quoted = 1;
        i++;
        for (;;) {
          if (i >= n) {
            free(cell);
            return -1;
          }
          if (s[i] == '"') {
            if (i + 1 < n && s[i + 1] == '"') {
              cell[len++] = '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          cell[len++] = s[i++];
        }
        if (i < n && s[i] != ',' && s[i] != '\n') {
          free(cell);
          return -1;
        }
      } else {
        while (i < n && s[i] != ',' && s[i] != '\n') {
          if (s[i] == '"') {
            free(cell);
            return -1;
          }
          cell[len++] = s[i++];
        }
      }
      csv_push_cell(c, cell, len, quoted);
      if (i >= n) break;
      if (s[i] == ',') {
        i++;
        continue;
      }
      i++; /* '\n' */
      break;
    }
  }
  free(cell);
  return 0;
}

/* ---- fixtures ------------------------------------------------------------- */

static const char *TRACES = DL_SHARED_DIR "/traces/dlprof";
static const struct {
  const char *dir, *db;
} DBS[] = {{"no_relu", "dlprof_dldb.sqlite"}, {"w_Relu", "dlprof_dldb_1.sqlite"}};

static char *compat_md;

/* Columns that no DLProf 1.8 view carries (docs/compat.md): compared only
 * where we print a value. NULL report: any report. */
static const struct {
  const char *report, *header;
} PARTIAL[] = {
    {"iteration", "GPU Start Time (ns)"}, {"iteration", "API Call Time (ns)"},
    {"iteration", "Input Shapes"},        {"iteration", "Parameters"},
    {"iteration", "Output Shapes"},       {"iteration", "Long Kernel Name"},
    {"kernel", "Total API Time (ns)"},    {"kernel", "Avg API Time (ns)"},
    {"kernel", "Min API Time (ns)"},      {"kernel", "Max API Time (ns)"},
    {"summary", "CPU Time (ns)"}, /* the All Kernels block */
    {"detail", "Min CPU Time (ns)"},      {"detail", "Max CPU Time (ns)"},
    {"detail", "Min GPU Time (ns)"},      {"detail", "Max GPU Time (ns)"},
    {"detail", "Min CPU Overhead (ns)"},  {"detail", "Max CPU Overhead (ns)"},
    {"detail", "Min GPU Idle (ns)"},      {"detail", "Max GPU Idle (ns)"},
    {"group_node", "Avg. CPU Time (ns)"}, {"group_node", "Min CPU Time (ns)"},
    {"group_node", "Max CPU Time (ns)"},  {"group_node", "Avg. GPU Time (ns)"},
    {"group_node", "Min GPU Time (ns)"},  {"group_node", "Max GPU Time (ns)"},
    {"group_node", "Avg. CPU Overhead (ns)"}, {"group_node", "Min CPU Overhead (ns)"},
    {"group_node", "Max CPU Overhead (ns)"},  {"group_node", "Avg. GPU Idle (ns)"},
    {"group_node", "Min GPU Idle (ns)"},  {"group_node", "Max GPU Idle (ns)"},
};

static int is_partial(const char *report, const char *header) {
  for (size_t i = 0; i < sizeof PARTIAL / sizeof PARTIAL[0]; i++)
    if (strcmp(PARTIAL[i].report, report) == 0 && strcmp(PARTIAL[i].header, header) == 0)
      return 1;
  return 0;
}

static dldb *open_db(const char *path, dldb_info *info) {
  char err[512] = "";
  dldb *db = NULL;
  if (dldb_open_ro(path, &db, info, err, sizeof err) != DL_OK) {
    fprintf(stderr, "open %s: %s\n", path, err);
    return NULL;
  }
  return db;
}

static int gen(dldb *db, const dldb_info *info, const char *name, dlr_format fmt, membuf *m) {
  char err[512] = "";
  memset(m, 0, sizeof *m);
  int rc = dlr_write(db, name, fmt, info->default_aggr_id, info->default_domain, mem_sink, m,
                     err, sizeof err);
  if (rc != DL_OK) fprintf(stderr, "dlr_write %s: %d %s\n", name, rc, err);
  if (!m->s) m->s = calloc(1, 1);
  return rc;
}

/* Compares our CSV with DLProf's, cell by cell. Returns 0 when equal up to
 * the PARTIAL columns; *extra_rows receives how many rows we have beyond
 * DLProf's (allowed only where the caller says). */
static int compare_csv(const char *what, const char *report, const char *ours,
                       const char *theirs, int *extra_rows, int *identical) {
  csv a, b;
  int bad = 0;
  ASSERT_OK(csv_parse(ours, &a));
  ASSERT_OK(csv_parse(theirs, &b));
  *identical = strcmp(ours, theirs) == 0;
  *extra_rows = a.nrows - b.nrows;
  const char *const *hdr = NULL; /* the current header row (tables) */
  int nhdr = 0;
  for (int r = 0; r < b.nrows && !bad; r++) {
    if (r >= a.nrows) {
      fprintf(stderr, "%s: row %d missing (we have %d rows)\n", what, r + 1, a.nrows);
      bad = 1;
      break;
    }
    /* A header row: the row after a title when it has several cells. */
    if (r > 0 && b.ncells[r] > 1 && b.ncells[r - 1] == 1 &&
        (r == 1 || (b.ncells[r - 2] == 1 && b.cells[r - 2][0][0] == '\0'))) {
      hdr = (const char *const *)b.cells[r];
      nhdr = b.ncells[r];
    }
    if (a.ncells[r] != b.ncells[r]) {
      fprintf(stderr, "%s: row %d has %d cells, DLProf's %d\n", what, r + 1, a.ncells[r],
              b.ncells[r]);
      bad = 1;
      break;
    }
    for (int c = 0; c < b.ncells[r]; c++) {
      const char *h = hdr && c < nhdr && r > 0 && hdr != (const char *const *)b.cells[r]
                          ? hdr[c]
                          : NULL;
      if (h && is_partial(report, h)) {
        if (!strstr(compat_md, h)) {
          fprintf(stderr, "%s: column \"%s\" is not in docs/compat.md\n", what, h);
          bad = 1;
        }
        if (a.cells[r][c][0] == '\0') continue; /* not derivable here: empty */
      }
      if (strcmp(a.cells[r][c], b.cells[r][c]) != 0 || a.quoted[r][c] != b.quoted[r][c]) {
        fprintf(stderr, "%s: row %d column %d (%s): ours %s\"%s\", DLProf's %s\"%s\"\n", what,
                r + 1, c + 1, h ? h : "-", a.quoted[r][c] ? "quoted " : "", a.cells[r][c],
                b.quoted[r][c] ? "quoted " : "", b.cells[r][c]);
        bad = 1;
        break;
      }
    }
  }
  csv_free(&a);
  csv_free(&b);
  return bad;
}

/* Rows of data in a CSV report: all rows but titles, headers and blanks
 * (for the summary: rows with an empty first cell are block headers). */
static int csv_data_rows(const char *s, int sections) {
  csv c;
  if (csv_parse(s, &c) != 0) return -1;
  int n = 0;
  for (int r = 0; r < c.nrows; r++) {
    if (c.ncells[r] == 1) continue; /* titles and blank lines */
    if (!sections && r == 1) continue; /* the header */
    if (sections && c.cells[r][0][0] == '\0') continue;
    n++;
  }
  csv_free(&c);
  return n;
}

static int json_rows(const char *s, const char *report) {
  cJSON *j = cJSON_Parse(s);
  if (!j) return -1;
  int n = -1;
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "report");
  const cJSON *aggr = cJSON_GetObjectItemCaseSensitive(j, "aggr_id");
  const cJSON *dom = cJSON_GetObjectItemCaseSensitive(j, "domain");
  if (cJSON_IsString(name) && strcmp(name->valuestring, report) == 0 && cJSON_IsNumber(aggr) &&
      cJSON_IsString(dom)) {
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(j, "rows");
    const cJSON *sects = cJSON_GetObjectItemCaseSensitive(j, "sections");
    if (cJSON_IsArray(rows)) {
      n = cJSON_GetArraySize(rows);
    } else if (cJSON_IsArray(sects)) {
      n = 0;
      const cJSON *sec;
      cJSON_ArrayForEach(sec, sects) {
        n += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sec, "rows"));
      }
    }
  }
  cJSON_Delete(j);
  return n;
}

/* ---- tests ------------------------------------------------------------------- */

static int test_names(void) {
  ASSERT_EQ(dlr_report_count(), 8);
  static const char *const names[] = {"summary", "detail", "iteration", "kernel",
                                      "tensor", "op_type", "group_node", "expert_systems"};
  static const char *const files[] = {"dlprof_summary",     "dlprof_detailed",
                                      "dlprof_iteration",   "dlprof_kernel",
                                      "dlprof_tensor_core", "dlprof_op_type",
                                      "dlprof_group_op",    "dlprof_expert_systems"};
  for (int i = 0; i < 8; i++) {
    char b[64];
    ASSERT_STR_EQ(dlr_report_name(i), names[i]);
    snprintf(b, sizeof b, "%s.csv", files[i]);
    ASSERT_STR_EQ(dlr_report_file(names[i], DLR_CSV), b);
    snprintf(b, sizeof b, "%s.json", files[i]);
    ASSERT_STR_EQ(dlr_report_file(names[i], DLR_JSON), b);
  }
  ASSERT_NULL(dlr_report_name(8));
  ASSERT_NULL(dlr_report_name(-1));
  ASSERT_NULL(dlr_report_file("nope", DLR_CSV));
  ASSERT_NULL(dlr_report_file(NULL, DLR_CSV));
  char err[256] = "";
  membuf m = {0};
  ASSERT_EQ(dlr_write(NULL, "nope", DLR_CSV, 1, "default-domain", mem_sink, &m, err, sizeof err),
            DL_ENOTFOUND);
  ASSERT_CONTAINS(err, "nope");
  return 0;
}

/* Every report of both databases against DLProf's CSV, and its JSON. */
static int test_against_dlprof(void) {
  for (size_t d = 0; d < sizeof DBS / sizeof DBS[0]; d++) {
    char path[1024];
    dldb_info info;
    snprintf(path, sizeof path, "%s/%s/%s", TRACES, DBS[d].dir, DBS[d].db);
    dldb *db = open_db(path, &info);
    ASSERT_NOT_NULL(db);
    for (int i = 0; i < dlr_report_count(); i++) {
      const char *name = dlr_report_name(i);
      char what[256], golden[1024];
      membuf csvm, jsonm;
      snprintf(what, sizeof what, "%s %s", DBS[d].dir, name);
      snprintf(golden, sizeof golden, "%s/%s/%s", TRACES, DBS[d].dir,
               dlr_report_file(name, DLR_CSV));
      char *theirs = read_file(golden, NULL);
      ASSERT_NOT_NULL(theirs);
      ASSERT_OK(gen(db, &info, name, DLR_CSV, &csvm));
      int extra = 0, same = 0;
      int bad = compare_csv(what, name, csvm.s, theirs, &extra, &same);
      free(theirs);
      /* The no_relu dldb holds a fifth expert finding (batch_size_detector)
       * that DLProf's CSV beside it lacks (docs/compat.md). */
      int allowed = strcmp(name, "expert_systems") == 0 && strcmp(DBS[d].dir, "no_relu") == 0;
      if (extra != (allowed ? 1 : 0)) {
        fprintf(stderr, "%s: %d rows more than DLProf's\n", what, extra);
        bad = 1;
      }
      if (allowed) ASSERT_CONTAINS(csvm.s, "GPU Memory is underutilized");
      printf("%-8s %-15s %s\n", DBS[d].dir, name,
             bad ? "DIFFERS" : same ? "identical to DLProf's CSV" : "equal on derivable cells");
      if (bad) {
        free(csvm.s);
        dldb_close(&db);
        return 1;
      }
      ASSERT_OK(gen(db, &info, name, DLR_JSON, &jsonm));
      int is_summary = strcmp(name, "summary") == 0;
      int nj = json_rows(jsonm.s, name), nc = csv_data_rows(csvm.s, is_summary);
      if (nj != nc) fprintf(stderr, "%s: JSON rows %d, CSV rows %d\n", what, nj, nc);
      ASSERT(nj >= 0);
      ASSERT_EQ(nj, nc);
      /* numbers are JSON numbers, the GPU count too (NVIDIA's view has it as text) */
      if (is_summary) ASSERT_CONTAINS(jsonm.s, "{\"name\":\"GPU Count\",\"value\":1}");
      free(csvm.s);
      free(jsonm.s);
    }
    dldb_close(&db);
  }
  return 0;
}

static int test_failing_sink(void) {
  char path[1024], err[256];
  dldb_info info;
  snprintf(path, sizeof path, "%s/%s/%s", TRACES, DBS[0].dir, DBS[0].db);
  dldb *db = open_db(path, &info);
  ASSERT_NOT_NULL(db);
  for (int i = 0; i < dlr_report_count(); i++) {
    for (int f = 0; f < 2; f++) {
      membuf m = {.fail_at = 1};
      err[0] = '\0';
      int rc = dlr_write(db, dlr_report_name(i), (dlr_format)f, info.default_aggr_id,
                         info.default_domain, mem_sink, &m, err, sizeof err);
      free(m.s);
      ASSERT_EQ(rc, DL_EIO);
      ASSERT_CONTAINS(err, "sink");
    }
  }
  /* The database handle still works afterwards. */
  membuf m;
  ASSERT_OK(gen(db, &info, "kernel", DLR_CSV, &m));
  free(m.s);
  dldb_close(&db);
  return 0;
}

/* Unknown aggregation or domain: DL_ENOTFOUND, nothing written. */
static int test_unknown_aggr_domain(void) {
  char path[1024], err[256] = "";
  dldb_info info;
  snprintf(path, sizeof path, "%s/%s/%s", TRACES, DBS[0].dir, DBS[0].db);
  dldb *db = open_db(path, &info);
  ASSERT_NOT_NULL(db);
  membuf m = {0};
  ASSERT_EQ(dlr_write(db, "detail", DLR_CSV, 99, info.default_domain, mem_sink, &m, err,
                      sizeof err),
            DL_ENOTFOUND);
  ASSERT_CONTAINS(err, "99");
  ASSERT_EQ(dlr_write(db, "detail", DLR_JSON, info.default_aggr_id, "no-such-domain", mem_sink,
                      &m, err, sizeof err),
            DL_ENOTFOUND);
  ASSERT_CONTAINS(err, "no-such-domain");
  ASSERT_EQ(dlr_write(db, "no_such_report", DLR_CSV, info.default_aggr_id, info.default_domain,
                      mem_sink, &m, err, sizeof err),
            DL_ENOTFOUND);
  ASSERT_EQ(m.calls, 0);
  dldb_close(&db);
  return 0;
}

/* Edits a copy of no_relu: strings of table dictionary, and an extra view. */
static int make_copy(const char *copy, const char *const *sql, int n) {
  char from[1024];
  snprintf(from, sizeof from, "%s/%s/%s", TRACES, DBS[0].dir, DBS[0].db);
  remove(copy);
  ASSERT_OK(test_copy_file(from, copy));
  chmod(copy, 0644);
  sqlite3 *s = NULL;
  ASSERT_EQ(sqlite3_open(copy, &s), SQLITE_OK);
  for (int i = 0; i < n; i++) {
    char *msg = NULL;
    if (sqlite3_exec(s, sql[i], NULL, NULL, &msg) != SQLITE_OK) {
      fprintf(stderr, "%s: %s\n", sql[i], msg ? msg : "?");
      sqlite3_free(msg);
      sqlite3_close(s);
      return 1;
    }
  }
  sqlite3_close(s);
  return 0;
}

#define EVIL_TYPE "con\"v,2d\n<b>&amp;</b>"
#define EVIL_KERNEL "gemv2N \"k\",\r\n<script>alert(1)</script>"
#define EVIL_DTYPE "float,32"

static const char *find_cell(const csv *c, const char *first, int col) {
  for (int r = 0; r < c->nrows; r++)
    if (c->ncells[r] > col && strcmp(c->cells[r][0], first) == 0) return c->cells[r][col];
  return NULL;
}

static int test_quoting(void) {
  char copy[1024];
  snprintf(copy, sizeof copy, "%s/quoting_dldb.sqlite", DL_TEST_TMP);
  static const char *const sql[] = {
      "UPDATE dictionary SET string = '" "con\"v,2d\n<b>&amp;</b>" "' WHERE string = 'conv2d'",
      "UPDATE dictionary SET string = 'gemv2N \"k\",' || char(13, 10) || "
      "'<script>alert(1)</script>' WHERE string = 'gemv2N_kernel'",
      "UPDATE dictionary SET string = 'float,32' WHERE string = 'float32'",
      "UPDATE read_only_ops SET op_id = '=HYPERLINK(\"http://x\",\"y\")' WHERE op_id = 'UNIFORM__1'",
      "UPDATE read_only_ops SET op_id = '@SUM(A1)' WHERE op_id = 'UNIFORM__2'",
  };
  ASSERT_OK(make_copy(copy, sql, 5));
  dldb_info info;
  dldb *db = open_db(copy, &info);
  ASSERT_NOT_NULL(db);
  membuf m;
  csv c;

  /* detail: Op Type (always quoted), Data Type (quoted because of the comma) */
  ASSERT_OK(gen(db, &info, "detail", DLR_CSV, &m));
  ASSERT_CONTAINS(m.s, ",\"con\"\"v,2d\n<b>&amp;</b>\",");
  ASSERT_CONTAINS(m.s, ",\"float,32\",");
  ASSERT_OK(csv_parse(m.s, &c));
  ASSERT_STR_EQ(find_cell(&c, "CONV2D_1", 3), EVIL_TYPE);
  ASSERT_STR_EQ(find_cell(&c, "CONV2D_1", 23), EVIL_DTYPE);
  ASSERT_EQ(c.ncells[2], 25);
  /* op names a spreadsheet would run as formulas start with a ' */
  ASSERT_NOT_NULL(find_cell(&c, "'=HYPERLINK(\"http://x\",\"y\")", 1));
  ASSERT_NOT_NULL(find_cell(&c, "'@SUM(A1)", 1));
  for (int r = 0; r < c.nrows; r++)
    for (int k = 0; k < c.ncells[r]; k++) ASSERT(c.cells[r][k][0] != '=' && c.cells[r][k][0] != '@');
  csv_free(&c);
  free(m.s);

  /* kernel: the kernel name with CR LF, quotes, comma and HTML */
  ASSERT_OK(gen(db, &info, "kernel", DLR_CSV, &m));
  ASSERT_OK(csv_parse(m.s, &c));
  int found = 0;
  for (int r = 2; r < c.nrows; r++) {
    ASSERT_EQ(c.ncells[r], 13);
    if (strcmp(c.cells[r][0], EVIL_KERNEL) == 0) found++;
  }
  ASSERT_EQ(found, 2); /* CONV2D_1 and CONV2D_2 */
  csv_free(&c);
  free(m.s);

  /* tensor: the name inside the ", "-joined list, the list quoted as one cell */
  ASSERT_OK(gen(db, &info, "tensor", DLR_CSV, &m));
  ASSERT_OK(csv_parse(m.s, &c));
  ASSERT_CONTAINS(find_cell(&c, "CONV2D_1", 13), EVIL_KERNEL);
  ASSERT_STR_EQ(find_cell(&c, "CONV2D_1", 3), EVIL_TYPE);
  csv_free(&c);
  free(m.s);

  /* op_type and iteration parse back to the same strings */
  ASSERT_OK(gen(db, &info, "op_type", DLR_CSV, &m));
  ASSERT_OK(csv_parse(m.s, &c));
  ASSERT_NOT_NULL(find_cell(&c, EVIL_TYPE, 1));
  csv_free(&c);
  free(m.s);
  ASSERT_OK(gen(db, &info, "iteration", DLR_CSV, &m));
  ASSERT_OK(csv_parse(m.s, &c));
  for (int r = 2; r < c.nrows; r++) {
    ASSERT_EQ(c.ncells[r], 23);
    if (strcmp(c.cells[r][1], "CONV2D_1") == 0) ASSERT_STR_EQ(c.cells[r][4], EVIL_TYPE);
  }
  csv_free(&c);
  free(m.s);

  /* JSON carries the strings unchanged */
  ASSERT_OK(gen(db, &info, "detail", DLR_JSON, &m));
  cJSON *j = cJSON_Parse(m.s);
  ASSERT_NOT_NULL(j);
  const cJSON *row;
  found = 0;
  cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(j, "rows")) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(row, "Op Type");
    if (cJSON_IsString(t) && strcmp(t->valuestring, EVIL_TYPE) == 0) found++;
  }
  cJSON_Delete(j);
  free(m.s);
  ASSERT_EQ(found, 2);
  dldb_close(&db);
  remove(copy);
  return 0;
}

/* A column that 1.8 lacks, filled by our superset view when present. */
static int test_extra_view(void) {
  char copy[1024];
  snprintf(copy, sizeof copy, "%s/extra_dldb.sqlite", DL_TEST_TMP);
  static const char *const sql[] = {
      "CREATE VIEW view_dl_kernel_summaries AS SELECT *, 1000 * calls AS api_time_sum, "
      "1000.0 AS api_time_avg, 1000 AS api_time_min, 1000 AS api_time_max "
      "FROM view_kernel_summaries",
      "CREATE VIEW view_dl_kernel_summary AS SELECT *, 11 AS total_cpu_time, "
      "0 AS using_tc_cpu_time, 5 AS memory_cpu_time, 6 AS other_cpu_time "
      "FROM view_kernel_summary",
  };
  ASSERT_OK(make_copy(copy, sql, 2));
  dldb_info info;
  dldb *db = open_db(copy, &info);
  ASSERT_NOT_NULL(db);
  membuf m;
  csv c;
  ASSERT_OK(gen(db, &info, "kernel", DLR_CSV, &m));
  ASSERT_OK(csv_parse(m.s, &c));
  /* "fft2d_r2c_32x32" of CONV2D_1: 4 calls */
  int seen = 0;
  for (int r = 2; r < c.nrows; r++) {
    if (strcmp(c.cells[r][0], "fft2d_r2c_32x32") || strcmp(c.cells[r][1], "CONV2D_1")) continue;
    ASSERT_STR_EQ(c.cells[r][9], "4000");
    ASSERT_STR_EQ(c.cells[r][10], "1000.0");
    ASSERT_STR_EQ(c.cells[r][11], "1000");
    ASSERT_STR_EQ(c.cells[r][12], "1000");
    seen = 1;
  }
  ASSERT(seen);
  csv_free(&c);
  free(m.s);
  ASSERT_OK(gen(db, &info, "summary", DLR_CSV, &m));
  ASSERT_CONTAINS(m.s, "\nAll kernels,352000,11,28\n");
  ASSERT_CONTAINS(m.s, "\nMemory,43040,5,3\n");
  free(m.s);
  dldb_close(&db);
  remove(copy);
  return 0;
}

int main(void) {
  RUN(test_names);
  char probe[1024];
  snprintf(probe, sizeof probe, "%s/%s/%s", TRACES, DBS[0].dir, DBS[0].db);
  struct stat st;
  if (stat(probe, &st) != 0) {
    char why[1200];
    snprintf(why, sizeof why, "no DLProf traces at %s", probe);
    SKIP(why);
  }
  compat_md = read_file(DL_COMPAT_MD, NULL);
  if (!compat_md) {
    fprintf(stderr, "cannot read %s\n", DL_COMPAT_MD);
    return 1;
  }
  RUN(test_against_dlprof);
  RUN(test_failing_sink);
  RUN(test_unknown_aggr_domain);
  RUN(test_quoting);
  RUN(test_extra_view);
  free(compat_md);
  TEST_DONE();
}
