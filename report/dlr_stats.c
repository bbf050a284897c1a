/*
 * dlr_stats.c - our nsys-stats-style reports, under Nsight
 * Systems' report names (cuda_api_sum, cuda_gpu_kern_sum, ...) and with
 * its column headers and order (peers.md C.1), each from one
 * view_dl_stats_* view. Times in ns, averages, medians, standard
 * deviations and percentages with one decimal in CSV (full values in JSON),
 * sizes in MB (10^6 bytes, three decimals in CSV) as nsys prints them.
 */
#include <stdio.h>
#include <string.h>

#include "dlr_internal.h"
#include "dlr_stats.h"


/* Cell types, one character per column: i integer, r one-decimal real,
 * s string, m bytes as MB. */
typedef struct stat_report {
  const char *name;  /* --reports name (nsys stats') */
  const char *title; /* nsys stats' display name */
  const char *view;
  const char *sort;  /* view column; descending when desc */
  int desc;
  const dlr_col *cols;
  const char *const *fields; /* view columns, in cols' order */
  const char *types;
  int ncols;
} stat_report;

#define TIME_COLS(count)                                                                          \
  {"Time (%)", 0, NULL}, {"Total Time (ns)", 0, NULL}, {count, 0, NULL}, {"Avg (ns)", 0, NULL},   \
      {"Med (ns)", 0, NULL}, {"Min (ns)", 0, NULL}, {"Max (ns)", 0, NULL},                        \
      {"StdDev (ns)", 0, NULL}
#define TIME_FIELDS(count) "time_pct", "total_time", count, "avg", "med", "min", "max", "stddev"

static const dlr_col API_COLS[] = {TIME_COLS("Num Calls"), {"Name", 1, NULL}};
static const char *const API_FIELDS[] = {TIME_FIELDS("num_calls"), "name"};
static const dlr_col KERN_COLS[] = {TIME_COLS("Instances"), {"Name", 1, NULL}};
static const char *const KERN_FIELDS[] = {TIME_FIELDS("instances"), "name"};
static const dlr_col KGB_COLS[] = {TIME_COLS("Instances"), {"GridXYZ", 1, NULL},
                                   {"BlockXYZ", 1, NULL}, {"Name", 1, NULL}};
static const char *const KGB_FIELDS[] = {TIME_FIELDS("instances"), "grid", "block", "name"};
static const dlr_col MEMT_COLS[] = {TIME_COLS("Count"), {"Operation", 1, NULL}};
static const char *const MEMT_FIELDS[] = {TIME_FIELDS("count"), "name"};
static const dlr_col MEMS_COLS[] = {{"Total (MB)", 0, NULL}, {"Count", 0, NULL},
                                    {"Avg (MB)", 0, NULL},   {"Med (MB)", 0, NULL},
                                    {"Min (MB)", 0, NULL},   {"Max (MB)", 0, NULL},
                                    {"StdDev (MB)", 0, NULL}, {"Operation", 1, NULL}};
static const char *const MEMS_FIELDS[] = {"total_bytes", "count",     "avg_bytes",    "med_bytes",
                                          "min_bytes",   "max_bytes", "stddev_bytes", "name"};
static const dlr_col NVTX_COLS[] = {TIME_COLS("Instances"), {"Style", 1, NULL}, {"Range", 1, NULL}};
static const char *const NVTX_FIELDS[] = {TIME_FIELDS("instances"), "style", "name"};
static const dlr_col PROJ_COLS[] = {
    {"Range", 1, NULL},           {"Style", 1, NULL},           {"Total Proj Time (ns)", 0, NULL},
    {"Total Range Time (ns)", 0, NULL}, {"Range Instances", 0, NULL}, {"Proj Avg (ns)", 0, NULL},
    {"Proj Med (ns)", 0, NULL},   {"Proj Min (ns)", 0, NULL},   {"Proj Max (ns)", 0, NULL},
    {"Proj StdDev (ns)", 0, NULL}, {"Total GPU Ops", 0, NULL},  {"Avg GPU Ops", 0, NULL},
    {"Avg Range Lvl", 0, NULL},   {"Avg Num Child", 0, NULL}};
static const char *const PROJ_FIELDS[] = {
    "name",     "style",    "total_proj_time", "total_range_time", "range_instances",
    "proj_avg", "proj_med", "proj_min",        "proj_max",         "proj_stddev",
    "total_gpu_ops", "avg_gpu_ops", "avg_range_level", "avg_num_child"};

#define T8 "riirriir" /* Time %, Total, count, Avg, Med, Min, Max, StdDev */
#define N(a) ((int)(sizeof a / sizeof a[0]))
#define R(name, title, view, sort, desc, cols, fields, types)                                     \
  {name, title, view, sort, desc, cols, fields, types, N(cols)}

static const stat_report REPORTS[] = {
    R("cuda_api_sum", "CUDA API Summary", "view_dl_stats_cuda_api", "row_idx", 0, API_COLS,
      API_FIELDS, T8 "s"),
    R("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", "view_dl_stats_kernels", "row_idx", 0,
      KERN_COLS, KERN_FIELDS, T8 "s"),
    R("cuda_gpu_kern_gb_sum", "CUDA GPU Kernel/Grid/Block Summary", "view_dl_stats_kernel_configs",
      "row_idx", 0, KGB_COLS, KGB_FIELDS, T8 "sss"),
    R("cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", "view_dl_stats_memory",
      "row_idx", 0, MEMT_COLS, MEMT_FIELDS, T8 "s"),
    R("cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)", "view_dl_stats_memory",
      "total_bytes", 1, MEMS_COLS, MEMS_FIELDS, "mimmmmms"),
    R("osrt_sum", "OS Runtime Summary", "view_dl_stats_osrt", "row_idx", 0, API_COLS, API_FIELDS,
      T8 "s"),
    R("nvtx_sum", "NVTX Range Summary", "view_dl_stats_nvtx", "row_idx", 0, NVTX_COLS,
      NVTX_FIELDS, T8 "ss"),
    R("nvtx_gpu_proj_sum", "NVTX GPU Projection Summary", "view_dl_stats_nvtx_gpu_proj",
      "row_idx", 0, PROJ_COLS, PROJ_FIELDS, "ssiiirriirirrr"),
};
#define NSTATS N(REPORTS)

static const stat_report *find(const char *name) {
  for (int i = 0; name && i < NSTATS; i++)
    if (!strcmp(REPORTS[i].name, name)) return &REPORTS[i];
  return NULL;
}

int dlr_stats_count(void) { return NSTATS; }

const char *dlr_stats_name(int i) { return i >= 0 && i < NSTATS ? REPORTS[i].name : NULL; }

const char *dlr_stats_view(const char *name) {
  const stat_report *r = find(name);
  return r ? r->view : NULL;
}

static const char *const FILES[][2] = {
    {"dlprof_cuda_api_sum.csv", "dlprof_cuda_api_sum.json"},
    {"dlprof_cuda_gpu_kern_sum.csv", "dlprof_cuda_gpu_kern_sum.json"},
    {"dlprof_cuda_gpu_kern_gb_sum.csv", "dlprof_cuda_gpu_kern_gb_sum.json"},
    {"dlprof_cuda_gpu_mem_time_sum.csv", "dlprof_cuda_gpu_mem_time_sum.json"},
    {"dlprof_cuda_gpu_mem_size_sum.csv", "dlprof_cuda_gpu_mem_size_sum.json"},
    {"dlprof_osrt_sum.csv", "dlprof_osrt_sum.json"},
    {"dlprof_nvtx_sum.csv", "dlprof_nvtx_sum.json"},
    {"dlprof_nvtx_gpu_proj_sum.csv", "dlprof_nvtx_gpu_proj_sum.json"},
};

const char *dlr_stats_file(const char *name, dlr_format fmt) {
  const stat_report *r = find(name);
  if (!r || (fmt != DLR_CSV && fmt != DLR_JSON)) return NULL;
  return FILES[r - REPORTS][fmt == DLR_JSON];
}

typedef struct stat_ctx {
  dlr_out *o;
  const stat_report *r;
  dlr_fields f;
} stat_ctx;

static int stat_row(void *ctx, const dldb_row *row) {
  stat_ctx *c = ctx;
  dlr_fields_resolve(&c->f, row);
  for (int i = 0; i < c->r->ncols; i++) {
    switch (c->r->types[i]) {
    case 'i':
      dlr_cell_int(c->o, &c->f, row, i);
      break;
    case 'r':
      dlr_cell_real1(c->o, &c->f, row, i);
      break;
    case 's':
      dlr_cell_str(c->o, &c->f, row, i);
      break;
    default: /* 'm': bytes as MB */
      if (!dlr_has(&c->f, row, i)) {
        dlr_out_null(c->o);
      } else if (c->o->fmt == DLR_CSV) {
        char b[64];
        snprintf(b, sizeof b, "%.3f", dlr_real(&c->f, row, i) / 1e6);
        dlr_out_str(c->o, b);
      } else {
        dlr_out_real1(c->o, dlr_real(&c->f, row, i) / 1e6);
      }
    }
  }
  return dlr_out_end_row(c->o);
}

int dlr_stats_write(dldb *db, dlr_out *o, const char *name, int64_t aggr_id, const char *domain) {
  const stat_report *r = find(name);
  if (!r) return dlr_out_fail(o, DL_ENOTFOUND);
  if (!dldb_has_view(db, r->view)) {
    dl_err(o->err, o->errlen, DL_ENOTFOUND,
           "report %s: the database has no %s (it was written by NVIDIA DLProf or an older "
           "dlprof; run dlprof --database on the profile again)",
           name, r->view);
    return dlr_out_fail(o, DL_ENOTFOUND);
  }
  stat_ctx c = {.o = o, .r = r};
  int rc = dlr_out_section(o, r->title, r->cols, r->ncols, 1);
  if (rc != DL_OK) return rc;
  dlr_fields_init(&c.f, r->fields, r->ncols);
  dldb_query q;
  dlr_query_init(&q, r->view, aggr_id, domain, r->sort);
  q.desc = r->desc;
  q.tiebreak[0] = "row_idx";
  char err[256];
  rc = dldb_query_rows(db, &q, stat_row, &c, err, sizeof err);
  if (rc == DL_OK) rc = o->rc;
  if (rc != DL_OK && o->rc == DL_OK) {
    dl_err(o->err, o->errlen, rc, "report %s: %s", name, err);
    dlr_out_fail(o, rc);
  }
  return rc;
}
