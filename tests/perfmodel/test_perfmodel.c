/*
 * test_perfmodel.c - the perf models (analysis/dla_perfmodel.c) and GPU
 * peaks (analysis/dla_peaks.c): hand-computed cases, then every row of
 * TraceLens's own GEMM, SDPA, convolution, elementwise and normalization
 * tables for the two H100 traces of ../shared/traces/kineto/tracelens_h100
 * (FLOPs of GEMM, attention and convolution within 1 %, GEMM bytes within
 * 1 %, elementwise and normalization bytes within 5 %).
 *
 * Usage: test_perfmodel SHARED_DIR (the TraceLens part is skipped, 77,
 * naming the path, when the traces are absent).
 */
#include <math.h>

#include "dla_peaks.h"
#include "dla_perfmodel.h"
#include "test.h"

static const char *shared_dir;

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

enum { C_NAME, C_DIMS, C_TYPES, C_CONCRETE, C_GFLOPS, C_MB, NCOLS };
static const char *const col_names[NCOLS] = {"name", "Input Dims_first", "Input type_first",
                                            "Concrete Inputs_first", "GFLOPS_first",
                                            "Data Moved (MB)_first"};
#define FIELD_CAP 8192
#define MAX_FIELDS 64

/* The first quoted item of a Python list repr: "['c10::BFloat16', ...]". */
static void first_type(const char *types, char *out, size_t cap) {
  out[0] = '\0';
  const char *a = strchr(types, '\'');
  const char *b = a ? strchr(a + 1, '\'') : NULL;
  if (a && b && (size_t)(b - a) < cap) snprintf(out, cap, "%.*s", (int)(b - a - 1), a + 1);
}

/* Checks every row of one table; *rows counts them. */
static int check_table(const char *dir, const char *table, double flops_tol, double bytes_tol,
                       int *rows) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, table);
  char *text = slurp(path);
  if (!text) return 0; /* the trace has no such table */
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
    char dtype[64];
    first_type(f[col[C_TYPES]], dtype, sizeof dtype);
    dla_pm_result r;
    int fam = model(f[col[C_NAME]], f[col[C_DIMS]], dtype, f[col[C_CONCRETE]], &r);
    double want_flops = atof(f[col[C_GFLOPS]]) * 1e9;
    double want_bytes = atof(f[col[C_MB]]) * 1048576.0; /* TraceLens's MB are MiB */
    double ef = want_flops > 0 ? fabs(r.flops - want_flops) / want_flops : fabs(r.flops);
    double eb = want_bytes > 0 ? fabs(r.bytes - want_bytes) / want_bytes : fabs(r.bytes);
    printf("%-10s %-45s %-40.40s flops %.6g/%.6g (%.3f%%) bytes %.6g/%.6g (%.3f%%)\n",
           table, f[col[C_NAME]], f[col[C_DIMS]], r.flops, want_flops, 100 * ef, r.bytes,
           want_bytes, 100 * eb);
    if (fam == DLA_PM_NONE || ef > flops_tol || eb > bytes_tol) {
      fprintf(stderr, "%s: %s %s: off\n", path, f[col[C_NAME]], f[col[C_DIMS]]);
      rc = 1;
    }
    (*rows)++;
  }
  free(text);
  return rc;
}

static int test_tracelens(void) {
  static const char *const traces[] = {"Falconsai_nsfw_image_detection__1016002",
                                       "gaunernst_bert-small-uncased__1016001"};
  /* table, FLOPs tolerance, bytes tolerance (1.0: not checked) */
  static const struct { const char *table; double ftol, btol; } tables[] = {
      {"GEMM.csv", 0.01, 0.01},          {"SDPA_fwd.csv", 0.01, 0.01},
      {"CONV_fwd.csv", 0.01, 0.01},      {"BinaryElementwise.csv", 1.0, 0.05},
      {"Normalization.csv", 1.0, 0.05},
  };
  int rows = 0;
  for (size_t t = 0; t < 2; t++) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/traces/kineto/tracelens_h100/%s_perf_report_csvs", shared_dir,
             traces[t]);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
      ASSERT_OK(check_table(dir, tables[i].table, tables[i].ftol, tables[i].btol, &rows));
  }
  ASSERT(rows >= 20); /* both traces' tables were read */
  return 0;
}

int main(int argc, char **argv) {
  shared_dir = argc > 1 ? argv[1] : "";
  RUN(test_parse);
  RUN(test_models);
  RUN(test_peaks);
  char probe[1024];
  snprintf(probe, sizeof probe,
           "%s/traces/kineto/tracelens_h100/gaunernst_bert-small-uncased__1016001_perf_report_csvs/GEMM.csv",
           shared_dir);
  FILE *f = fopen(probe, "r");
  if (f) {
    fclose(f);
    RUN(test_tracelens);
    TEST_DONE();
  }
  if (test__failed) TEST_DONE();
  fprintf(stderr, "%s not found\n", probe);
  SKIP("the TraceLens tables of the H100 traces are absent");
}
