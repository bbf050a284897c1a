/*
 * test_perfmodel.c - the perf models (analysis/dla_perfmodel.c) and GPU
 * peaks (analysis/dla_peaks.c): hand-computed cases, then every row of
 * TraceLens's own GEMM, SDPA, convolution, elementwise and normalization
 * tables for the two H100 traces of ../shared/traces/kineto/tracelens_h100
 * (FLOPs of GEMM, attention and convolution within 1 %, GEMM bytes within
 * 1 %, elementwise and normalization bytes within 5 %).
 *
 * Then dlprof on those traces and on w_Relu (NVIDIA DLProf op markers):
 * view_dl_op_shapes against TraceLens (same calls, FLOPs within 1 % or
 * bytes within 5 %, TFLOP/s within 5 %) and against hand computations.
 *
 * Usage: test_perfmodel SHARED_DIR DLPROF WORK_DIR (the trace parts are
 * skipped, 77, naming the path, when the traces are absent).
 */
#include <math.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include "dla_peaks.h"
#include "dla_perfmodel.h"
#include "dla_rules_tc.h"
#include "test.h"

static const char *shared_dir, *dlprof_bin, *work_dir;

static int model(const char *name, const char *dims, const char *dtype, const char *cc,
                 dla_pm_result *r) {
  dla_pm_shapes s;
  if (dla_pm_parse_shapes(dims, &s)) return -1;
  return (int)dla_perf_model(name, &s, dtype, cc, r);
}

static int test_parse(void) {
  dla_pm_shapes s;
  ASSERT_OK(dla_pm_parse_shapes("[[4, 197, 768], [768], [], [[1, 2], [3]], 5]", &s));
  ASSERT_EQ(s.n, 5);
  ASSERT_EQ(s.nd[0], 3);
  ASSERT_EQ(s.d[0][2], 768);
  ASSERT_EQ(s.nd[2], 0);
  ASSERT_EQ(s.nd[3], -1);
  ASSERT_EQ(s.nd[4], -1);
  ASSERT(dla_pm_parse_shapes("[[1, 2]", &s) != 0);
  ASSERT(dla_pm_parse_shapes("sizes", &s) != 0);
  char buf[32];
  ASSERT_OK(dla_pm_concrete_item("['', '[16, 16]', 'False']", 1, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "[16, 16]");
  ASSERT_OK(dla_pm_concrete_item("[\"\", \"1\"]", 1, buf, sizeof buf));
  ASSERT_STR_EQ(buf, "1");
  ASSERT(dla_pm_concrete_item("['', '1']", 0, buf, sizeof buf) != 0);
  ASSERT_EQ(dla_pm_bpe("c10::BFloat16"), 2);
  ASSERT_EQ(dla_pm_bpe("float32"), 4);
  ASSERT_EQ(dla_pm_bpe("nonsense"), 0);
  return 0;
}

/* Hand computations. */
static int test_models(void) {
  dla_pm_result r;
  /* mm 64x32 @ 32x16, fp32: 2*64*16*32 FLOPs; (64*32 + 32*16 + 64*16) * 4 bytes */
  ASSERT_EQ(model("aten::mm", "[[64, 32], [32, 16]]", "float", NULL, &r), DLA_PM_GEMM);
  ASSERT_NEAR(r.flops, 65536, 0);
  ASSERT_NEAR(r.bytes, 14336, 0);
  /* linear: X (2, 10, 8), W (4, 8), bias (4): M 20, N 4, K 8 */
  ASSERT_EQ(model("aten::linear", "[[2, 10, 8], [4, 8], [4]]", "bfloat16", NULL, &r),
            DLA_PM_GEMM);
  ASSERT_NEAR(r.flops, 2 * 20 * 4 * 8 + 20 * 4, 0);
  ASSERT_EQ(r.m, 20);
  /* bmm batch 3 */
  ASSERT_EQ(model("aten::bmm", "[[3, 5, 7], [3, 7, 2]]", "float16", NULL, &r), DLA_PM_GEMM);
  ASSERT_NEAR(r.flops, 3 * 2 * 5 * 2 * 7, 0);
  /* conv2d 3x3, stride 2, pad 1, groups 2: 8x8 -> 4x4 */
  ASSERT_EQ(model("aten::conv2d", "[[1, 4, 8, 8], [6, 2, 3, 3], [], [], [], [], []]", "float",
                  "['', '', '', '[2, 2]', '[1, 1]', '[1, 1]', '2']", &r),
            DLA_PM_CONV);
  ASSERT_NEAR(r.flops, 2.0 * 1 * 6 * 16 * 2 * 9, 0);
  ASSERT_EQ(r.n, 3);
  /* a convolution without its strides has no model */
  ASSERT_EQ(model("aten::conv2d", "[[1, 4, 8, 8], [6, 2, 3, 3]]", "float", NULL, &r),
            DLA_PM_NONE);
  /* causal attention, N_q = N_kv = 4: 10 pairs of 16 */
  ASSERT_EQ(model("aten::_scaled_dot_product_flash_attention",
                  "[[1, 2, 4, 8], [1, 2, 4, 8], [1, 2, 4, 8], [], [], [], []]", "bfloat16",
                  "['', '', '', '0.', 'True', 'False', '']", &r),
            DLA_PM_SDPA);
  ASSERT_NEAR(r.flops, 2.0 * 2 * 10 * 16, 0);
  ASSERT_EQ(model("aten::frobnicate", "[[4]]", "float", NULL, &r), DLA_PM_NONE);
  ASSERT_STR_EQ(r.family_name, "no model");
  ASSERT_NEAR(dla_pm_busbw_factor("nccl:all_reduce", 8), 1.75, 1e-12);
  ASSERT_NEAR(dla_pm_busbw_factor("nccl:all_gather", 4), 0.75, 1e-12);
  return 0;
}

static int test_peaks(void) {
  const dla_peak *p = dla_peak_find("NVIDIA H100 80GB HBM3", 90);
  ASSERT_NOT_NULL(p);
  ASSERT_NEAR(dla_peak_flops(p, "bfloat16", 1), 989.4e12, 1e12);
  ASSERT_NEAR(p->mem_tbps, 3.35, 1e-9);
  ASSERT_NOT_NULL(p->source);
  ASSERT_NOT_NULL(dla_peak_find("NVIDIA A100-SXM4-40GB", 80));
  ASSERT_NOT_NULL(dla_peak_find("AMD Instinct MI300X", -1));
  ASSERT_NULL(dla_peak_find("Imaginary GPU 9000", 99));
  return 0;
}

/* The Tensor Core rule on hand-made facts: the time saved by hand. */
static int test_tc_rule(void) {
  static dla_facts f;
  memset(&f, 0, sizeof f);
  static const int64_t iters[2] = {10000000, 10000000}; /* 10 ms steps */
  f.iter_durations = iters;
  f.n_iter_durations = 2;
  dla_tc_fact a = {.op_name = "aten::linear", .dims = "[[4000, 1000], [1000, 1000], [1000]]",
                   .dtype = "float32", .fix_type = "TF32", .gpu_name = "H100 SXM5",
                   .reason = DLA_TC_FP32, .m = 4000, .n = 1000, .k = 1000,
                   .calls_per_iter = 2, .gpu_ns_per_iter = 1e6, .flops = 8.004e9,
                   .bytes = 2.4e7, .peak_now = 67e12, .peak_tc = 494.7e12, .mem_bw = 3.35e12};
  /* on Tensor Cores: 1 ms * 67 / 494.7 = 135.436 us; its bytes: 2 * 24 MB at 3.35 TB/s =
   * 14.328 us; saved 1000 - 135.436 = 864.564 us */
  ASSERT_NEAR(dla_tc_saved_ns(&a), 1e6 - 1e6 * 67.0 / 494.7, 1e-6);
  ASSERT_NEAR(dla_tc_saved_ns(&a), 864564.4, 0.1);
  /* bfloat16 with K = 1001: memory-bound fix (its bytes take longer than its math) */
  dla_tc_fact b = a;
  b.op_name = "aten::mm";
  b.dtype = "bfloat16";
  b.fix_type = "bfloat16";
  b.reason = DLA_TC_ALIGN;
  b.k = 1001;
  b.gpu_ns_per_iter = 400e3;
  b.peak_now = 67e12;
  b.peak_tc = 989.4e12;
  b.bytes = 5e8; /* 2 * 500 MB at 3.35 TB/s = 298.507 us > 400 us * 67 / 989.4 */
  ASSERT_NEAR(dla_tc_saved_ns(&b), 400e3 - 2 * 5e8 / 3.35e12 * 1e9, 1e-3);
  /* too small: 50 us of a 10 ms step (0.5 % < 1 %) saves less than the threshold */
  dla_tc_fact c = a;
  c.op_name = "aten::bmm";
  c.gpu_ns_per_iter = 50e3;
  f.tc[0] = c;
  f.tc[1] = b;
  f.tc[2] = a;
  f.n_tc = 3;
  dla_finding out[4];
  memset(out, 0, sizeof out);
  size_t n = dla__rule_tensor_core_shapes(&f, out, 4);
  ASSERT_EQ(n, 2);
  /* the largest saving first */
  ASSERT_CONTAINS(out[0].problem, "aten::linear");
  ASSERT_CONTAINS(out[0].problem, "save an estimated 864.6 us per iteration");
  ASSERT_CONTAINS(out[0].problem, "1000.0 us per iteration at 16.01 TFLOP/s");
  ASSERT_CONTAINS(out[0].recommendation, "allow_tf32");
  ASSERT_CONTAINS(out[1].problem, "aten::mm");
  ASSERT_CONTAINS(out[1].problem, "save an estimated 101.5 us per iteration");
  ASSERT_CONTAINS(out[1].recommendation, "4000 x 1000 x 1008");
  /* through the rule table too */
  dla_finding all[64];
  size_t na = dla_rules_run(&f, all, 64), seen = 0;
  for (size_t i = 0; i < na; i++)
    seen += strcmp(all[i].rule_id, "tensor_core_shapes_detector") == 0;
  ASSERT_EQ(seen, 2);
  return 0;
}

/* ---- TraceLens's tables ------------------------------------------------ */

/* The next CSV field of *p (quotes removed, "" unescaped) into out; 1 when
 * the record continues, 0 at its end, -1 at the end of the file. */
static int csv_field(const char **p, char *out, size_t cap) {
  const char *s = *p;
  size_t n = 0;
  if (!*s) return -1;
  if (*s == '"') {
    for (s++; *s; s++) {
      if (*s == '"' && s[1] == '"') s++;
      else if (*s == '"') { s++; break; }
      if (n + 1 < cap) out[n++] = *s;
    }
  } else {
    while (*s && *s != ',' && *s != '\n' && *s != '\r') {
      if (n + 1 < cap) out[n++] = *s;
      s++;
    }
  }
  out[n] = '\0';
  int more = *s == ',';
  if (*s == '\r') s++;
  if (*s) s++;
  *p = s;
  return more;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (b) b[n] = '\0';
  fclose(f);
  return b;
}

enum { C_NAME, C_DIMS, C_TYPES, C_CONCRETE, C_GFLOPS, C_MB, C_TFLOPS, C_COUNT, NCOLS };
static const char *const col_names[NCOLS] = {"name", "Input Dims_first", "Input type_first",
                                            "Concrete Inputs_first", "GFLOPS_first",
                                            "Data Moved (MB)_first", "TFLOPS/s_mean",
                                            "name_count"};
#define FIELD_CAP 8192
#define MAX_FIELDS 64

/* A TraceLens row: the columns of col_names. */
typedef struct tl_row {
  const char *f[NCOLS];
  double flops, bytes, tflops; /* FLOPs and bytes per call (MiB converted), TFLOP/s mean */
  int64_t count;
} tl_row;

/* Calls fn with every row of dir/table (a missing table has none); fn's
 * nonzero return ends it and is returned. *rows counts them. */
static int each_row(const char *dir, const char *table, int (*fn)(void *, const tl_row *),
                    void *ctx, int *rows) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, table);
  char *text = slurp(path);
  if (!text) return 0;
  static char f[MAX_FIELDS][FIELD_CAP];
  int col[NCOLS], nf = 0, rc = 0, more;
  const char *p = text;
  do more = csv_field(&p, f[nf < MAX_FIELDS - 1 ? nf++ : nf], FIELD_CAP); while (more == 1);
  for (int c = 0; c < NCOLS; c++) {
    col[c] = -1;
    for (int i = 0; i < nf; i++)
      if (strcmp(f[i], col_names[c]) == 0) col[c] = i;
    if (col[c] < 0) {
      fprintf(stderr, "%s: no column %s\n", path, col_names[c]);
      rc = 1;
    }
  }
  while (rc == 0 && *p) {
    nf = 0;
    do more = csv_field(&p, f[nf < MAX_FIELDS - 1 ? nf++ : nf], FIELD_CAP); while (more == 1);
    if (nf < NCOLS) break;
    tl_row r;
    for (int c = 0; c < NCOLS; c++) r.f[c] = f[col[c]];
    r.flops = atof(f[col[C_GFLOPS]]) * 1e9;
    r.bytes = atof(f[col[C_MB]]) * 1048576.0; /* TraceLens's MB are MiB */
    r.tflops = atof(f[col[C_TFLOPS]]);
    r.count = atoll(f[col[C_COUNT]]);
    rc = fn(ctx, &r);
    if (rc) fprintf(stderr, "%s: %s %s: off\n", path, r.f[C_NAME], r.f[C_DIMS]);
    (*rows)++;
  }
  free(text);
  return rc;
}

/* The first quoted item of a Python list repr: "['c10::BFloat16', ...]". */
static void first_type(const char *types, char *out, size_t cap) {
  out[0] = '\0';
  const char *a = strchr(types, '\'');
  const char *b = a ? strchr(a + 1, '\'') : NULL;
  if (a && b && (size_t)(b - a) < cap) snprintf(out, cap, "%.*s", (int)(b - a - 1), a + 1);
}

static double rel(double got, double want) {
  return want != 0 ? fabs(got - want) / fabs(want) : fabs(got);
}

typedef struct tol { const char *table; double ftol, btol; } tol;

/* The model of a TraceLens row against its FLOPs and bytes. */
static int check_model(void *ctx, const tl_row *t) {
  const tol *tl = ctx;
  char dtype[64];
  first_type(t->f[C_TYPES], dtype, sizeof dtype);
  dla_pm_result r;
  int fam = model(t->f[C_NAME], t->f[C_DIMS], dtype, t->f[C_CONCRETE], &r);
  printf("%-22s %-45s %-40.40s flops %.6g/%.6g bytes %.6g/%.6g\n", tl->table, t->f[C_NAME],
         t->f[C_DIMS], r.flops, t->flops, r.bytes, t->bytes);
  return fam == DLA_PM_NONE || rel(r.flops, t->flops) > tl->ftol ||
         rel(r.bytes, t->bytes) > tl->btol;
}

static const char *const traces[] = {"Falconsai_nsfw_image_detection__1016002",
                                     "gaunernst_bert-small-uncased__1016001"};
/* table, FLOPs tolerance, bytes tolerance (1.0: not checked) */
static const tol tables[] = {
    {"GEMM.csv", 0.01, 0.01},          {"SDPA_fwd.csv", 0.01, 0.01},
    {"CONV_fwd.csv", 0.01, 0.01},      {"BinaryElementwise.csv", 1.0, 0.05},
    {"Normalization.csv", 1.0, 0.05},
};

static void csv_dir(size_t t, char *dir, size_t cap) {
  snprintf(dir, cap, "%s/traces/kineto/tracelens_h100/%s_perf_report_csvs", shared_dir,
           traces[t]);
}

static int test_tracelens(void) {
  int rows = 0;
  for (size_t t = 0; t < 2; t++) {
    char dir[1024];
    csv_dir(t, dir, sizeof dir);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
      ASSERT_OK(each_row(dir, tables[i].table, check_model, (void *)&tables[i], &rows));
  }
  ASSERT(rows >= 20); /* both traces' tables were read */
  return 0;
}

/* ---- view_dl_op_shapes of dlprof's run on the traces ------------------- */

/* Runs dlprof on trace into WORK/name; the dldb's path into db. */
static int run_dlprof(const char *trace, const char *name, char *db, size_t cap) {
  char dir[1200], cmd[4096];
  snprintf(dir, sizeof dir, "%s/%s", work_dir, name);
  snprintf(db, cap, "%s/dlprof_dldb.sqlite", dir);
  snprintf(cmd, sizeof cmd, "'%s' --database='%s' --output_path='%s' --force=true >/dev/null 2>&1",
           dlprof_bin, trace, dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

typedef struct view_ctx {
  sqlite3 *db;
  const char *model; /* the family our row must have */
  int by_flops;      /* match on FLOPs (1 %) and check TFLOP/s; else on bytes (5 %) */
} view_ctx;

/* A TraceLens row has its row in view_dl_op_shapes: same family and calls,
 * FLOPs within 1 % (or bytes within 5 %), TFLOP/s within 5 %. */
static int check_view(void *ctx, const tl_row *t) {
  const view_ctx *v = ctx;
  /* TraceLens models ops nested in others too; ours are the op nodes (the
   * outermost ops): the bias add_ inside Falconsai's convolution has no
   * row of its own (native_layer_norm, inside layer_norm, matches its row) */
  if (strcmp(t->f[C_NAME], "aten::add_") == 0 &&
      strcmp(t->f[C_DIMS], "[[4, 768, 14, 14], [1, 768, 1, 1], []]") == 0)
    return 0;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(v->db,
                         "SELECT op_node_name, input_dims, flops, bytes, tflops_per_s "
                         "FROM view_dl_op_shapes WHERE model = ?1 AND calls = ?2",
                         -1, &st, NULL) != SQLITE_OK)
    return 1;
  sqlite3_bind_text(st, 1, v->model, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, t->count);
  /* the closest row: FLOPs (or bytes) nearest TraceLens's */
  double best = INFINITY, best_tf = NAN;
  char name[256] = "", dims[256] = "";
  while (sqlite3_step(st) == SQLITE_ROW) {
    double e = v->by_flops ? rel(sqlite3_column_double(st, 2), t->flops)
                           : rel(sqlite3_column_double(st, 3), t->bytes);
    if (e >= best) continue;
    best = e;
    best_tf = sqlite3_column_double(st, 4);
    snprintf(name, sizeof name, "%s", (const char *)sqlite3_column_text(st, 0));
    snprintf(dims, sizeof dims, "%s", (const char *)sqlite3_column_text(st, 1));
  }
  int found = best <= (v->by_flops ? 0.01 : 0.05) && rel(best_tf, t->tflops) <= 0.05;
  printf("%-40s %-40.40s calls %lld off by %.3f %%, TFLOP/s %.4g/%.4g%s\n", name, dims,
         (long long)t->count, 100 * best, best_tf, t->tflops, found ? "" : " (off)");
  sqlite3_finalize(st);
  return !found;
}

static int test_view_tracelens(void) {
  static const struct { const char *table, *model; int by_flops; } checks[] = {
      {"GEMM.csv", "GEMM", 1}, {"SDPA_fwd.csv", "attention", 1},
      {"CONV_fwd.csv", "convolution", 1}, {"BinaryElementwise.csv", "elementwise", 0},
      {"Normalization.csv", "normalization", 0},
  };
  int rows = 0;
  for (size_t t = 0; t < 2; t++) {
    char trace[1200], db[1300], dir[1024];
    snprintf(trace, sizeof trace, "%s/traces/kineto/tracelens_h100/%s.json.gz", shared_dir,
             traces[t]);
    ASSERT_OK(run_dlprof(trace, traces[t], db, sizeof db));
    view_ctx v = {.db = NULL};
    ASSERT_EQ(sqlite3_open_v2(db, &v.db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    csv_dir(t, dir, sizeof dir);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof checks / sizeof checks[0]; i++) {
      v.model = checks[i].model;
      v.by_flops = checks[i].by_flops;
      rc = each_row(dir, checks[i].table, check_view, &v, &rows);
    }
    sqlite3_close(v.db);
    ASSERT_OK(rc);
  }
  ASSERT(rows >= 20);
  return 0;
}

static double q1(sqlite3 *h, const char *sql) {
  sqlite3_stmt *st = NULL;
  double v = NAN;
  if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* The bert trace (one iteration): its model FLOPs are the rows' FLOPs *
 * calls, per op type too; FLOP utilization = FLOPs / duration / the H100's
 * bfloat16 peak (989.4 TFLOP/s, the type of the most FLOPs). */
static int test_view_flops(void) {
  char trace[1200], db[1300];
  snprintf(trace, sizeof trace, "%s/traces/kineto/tracelens_h100/%s.json.gz", shared_dir,
           traces[1]);
  ASSERT_OK(run_dlprof(trace, "bert_flops", db, sizeof db));
  sqlite3 *h = NULL;
  ASSERT_EQ(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  double rows = q1(h, "SELECT sum(flops * calls) FROM view_dl_op_shapes WHERE flops IS NOT NULL");
  double gemm = q1(h, "SELECT sum(flops * calls) FROM view_dl_op_shapes WHERE model = 'GEMM'");
  double iters = q1(h, "SELECT sum(flops) FROM view_dl_iteration_flops");
  double types = q1(h, "SELECT sum(flops) FROM view_dl_op_type_flops");
  double linear = q1(h, "SELECT flops FROM view_dl_op_type_flops WHERE op_node_type = 'linear'");
  double dur = q1(h, "SELECT duration FROM view_dl_iteration_flops WHERE iter_value = 0");
  double peak = q1(h, "SELECT peak_tflops_per_s FROM view_dl_iteration_flops WHERE iter_value = 0");
  double mfu = q1(h, "SELECT mfu_pct FROM view_dl_iteration_flops WHERE iter_value = 0");
  double n = q1(h, "SELECT count(*) FROM view_dl_iteration_flops");
  sqlite3_close(h);
  ASSERT_EQ(n, 1);
  ASSERT(rows > 8e9); /* 26 linear layers, 4 attentions, ... */
  ASSERT_NEAR(iters, rows, rows * 1e-12);
  ASSERT_NEAR(types, rows, rows * 1e-12);
  ASSERT_NEAR(linear, gemm, gemm * 1e-12);
  ASSERT_NEAR(peak, 989.4, 1e-9);
  ASSERT(dur > 0);
  ASSERT_NEAR(mfu, 100.0 * rows / dur / 1e3 / 989.4, 1e-9);
  return 0;
}

/* w_Relu: NVIDIA DLProf's op markers give the convolutions and linear
 * layers their shapes; FLOPs by hand: conv 2*N*K*P*Q*C*R*S, linear
 * 2*M*N*K + M*N. */
static int test_view_w_relu(void) {
  char trace[1200], db[1300];
  snprintf(trace, sizeof trace, "%s/traces/dlprof/w_Relu/nsys_profile.sqlite", shared_dir);
  ASSERT_OK(run_dlprof(trace, "w_Relu", db, sizeof db));
  sqlite3 *h = NULL;
  ASSERT_EQ(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  static const struct { const char *type, *dims; double flops; } want[] = {
      {"conv2d", "[[32, 3, 32, 32], [6, 3, 3, 3], [6]]", 2.0 * 32 * 6 * 30 * 30 * 3 * 3 * 3},
      {"conv2d", "[[32, 6, 15, 15], [16, 6, 5, 5], [16]]", 2.0 * 32 * 16 * 11 * 11 * 6 * 5 * 5},
      {"linear", "[[32, 400], [120, 400], [120]]", 2.0 * 32 * 120 * 400 + 32 * 120},
      {"linear", "[[32, 120], [84, 120], [84]]", 2.0 * 32 * 84 * 120 + 32 * 84},
      {"linear", "[[32, 84], [10, 84], [10]]", 2.0 * 32 * 10 * 84 + 32 * 10},
  };
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < sizeof want / sizeof want[0]; i++) {
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(h,
                       "SELECT flops, input_types, bound FROM view_dl_op_shapes "
                       "WHERE op_node_type = ?1 AND input_dims = ?2",
                       -1, &st, NULL);
    sqlite3_bind_text(st, 1, want[i].type, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, want[i].dims, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) {
      fprintf(stderr, "w_Relu: no row %s %s\n", want[i].type, want[i].dims);
      rc = 1;
    } else if (sqlite3_column_double(st, 0) != want[i].flops ||
               strcmp((const char *)sqlite3_column_text(st, 1), "float32") != 0 ||
               strcmp((const char *)sqlite3_column_text(st, 2), "unknown GPU") != 0) {
      fprintf(stderr, "w_Relu: %s %s: %.9g FLOPs, %s, %s\n", want[i].type, want[i].dims,
              sqlite3_column_double(st, 0), sqlite3_column_text(st, 1),
              sqlite3_column_text(st, 2)); /* an RTX 2070 SUPER: not in the peaks */
      rc = 1;
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  ASSERT_OK(rc);
  return 0;
}

int main(int argc, char **argv) {
  shared_dir = argc > 1 ? argv[1] : "";
  dlprof_bin = argc > 2 ? argv[2] : NULL; /* NULL: the models' tests only */
  work_dir = argc > 3 ? argv[3] : ".";
  RUN(test_parse);
  RUN(test_models);
  RUN(test_peaks);
  RUN(test_tc_rule);
  char probe[1024];
  snprintf(probe, sizeof probe,
           "%s/traces/kineto/tracelens_h100/gaunernst_bert-small-uncased__1016001_perf_report_csvs/GEMM.csv",
           shared_dir);
  FILE *f = fopen(probe, "r");
  if (f) {
    fclose(f);
    RUN(test_tracelens);
    if (dlprof_bin) {
      RUN(test_view_tracelens);
      RUN(test_view_w_relu);
      RUN(test_view_flops);
    }
    TEST_DONE();
  }
  if (test__failed) TEST_DONE();
  fprintf(stderr, "%s not found\n", probe);
  SKIP("the TraceLens tables of the H100 traces are absent");
}
