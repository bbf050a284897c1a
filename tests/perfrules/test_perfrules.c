/*
 * test_perfrules.c - the perf rules (analysis/dla_rules_perf.c): the time
 * each fix saves, on hand-made facts, then the whole path on a generated
 * PyTorch profiler trace (an H100, one 1 ms step): an attention computed
 * by parts, a chain of three elementwise ops and ten small GEMMs, whose
 * findings in view_expert_systems must quote the savings computed by hand
 * (dla_perffacts.c finds the chains and the small GEMMs).
 *
 * Usage: test_perfrules [DLPROF WORK_DIR] (without dlprof, the rules'
 * part only).
 */
#include <math.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include "dla_rules.h"
#include "dla_rules_perf.h"
#include "test.h"

static const char *dlprof_bin, *work_dir;

#define H100_BW 3.35e12    /* bytes/s: the H100 SXM5 row of dla_peaks.c */
#define H100_BF16 989.4e12 /* FLOP/s, bfloat16 on Tensor Cores */

static const int64_t one_ms[1] = {1000000};

static int test_attn_saved(void) {
  /* batch x heads 8, 256 x 256, head dim 64, bfloat16: the chain takes
   * 65 us, its products 40 us; a fused kernel moves Q, K, V and the output
   * (8 * 4 * 256 * 64 * 2 bytes = 1 MiB, 0.313 us at 3.35 TB/s), so it
   * takes the products' 40 us: 25 us saved per occurrence */
  dla_attn_fact a = {.qk_name = "aten::matmul",
                     .pv_name = "aten::matmul",
                     .dims = "[[2, 4, 256, 256], [], []]",
                     .dtype = "bfloat16",
                     .gpu_name = "H100 SXM5",
                     .batch = 8,
                     .nq = 256,
                     .nkv = 256,
                     .d = 64,
                     .dv = 64,
                     .n_ops = 4,
                     .per_iter = 2,
                     .chain_ns = 65e3,
                     .gemm_ns = 40e3,
                     .sdpa_bytes = 8.0 * 4 * 256 * 64 * 2,
                     .mem_bw = H100_BW};
  ASSERT_NEAR(dla_attn_saved_ns(&a), 2 * 25e3, 1e-9);
  /* bytes that take longer than the products: the fused kernel is
   * memory-bound, 200 MB at 3.35 TB/s = 59.701 us > 40 us: 5.299 us saved */
  dla_attn_fact b = a;
  b.per_iter = 1;
  b.sdpa_bytes = 2e8;
  ASSERT_NEAR(dla_attn_saved_ns(&b), 65e3 - 2e8 / H100_BW * 1e9, 1e-6);
  b.sdpa_bytes = 3e8; /* 89.6 us: slower than the chain, nothing saved */
  ASSERT_NEAR(dla_attn_saved_ns(&b), 0, 0);

  static dla_facts f;
  memset(&f, 0, sizeof f);
  f.iter_durations = one_ms;
  f.n_iter_durations = 1;
  f.attn[0] = b; /* saves nothing: no finding */
  f.attn[1] = a;
  f.n_attn = 2;
  dla_finding out[4];
  memset(out, 0, sizeof out);
  ASSERT_EQ(dla__rule_unfused_attention(&f, out, 4), 1);
  ASSERT_CONTAINS(out[0].problem, "4 ops 2.0 times per iteration: 130.0 us per iteration, "
                                  "80.0 us of it in the two products");
  ASSERT_CONTAINS(out[0].problem, "save an estimated 50.0 us per iteration");
  ASSERT_CONTAINS(out[0].recommendation, "scaled_dot_product_attention");
  ASSERT_STR_EQ(out[0].js_function, "ShowOpShapes");
  return 0;
}

static int test_fuse_saved(void) {
  /* three bfloat16 ops on 8388608 elements: two intermediates written and
   * read back, 2 * 2 * 8388608 * 2 = 67108864 bytes, 20.0325 us at
   * 3.35 TB/s (the chain takes 34 us) */
  dla_fuse_fact u = {.ops = "aten::mul -> aten::add -> aten::relu",
                     .dims = "[[8192, 1024]]",
                     .dtype = "bfloat16",
                     .gpu_name = "H100 SXM5",
                     .n_ops = 3,
                     .bpe = 2,
                     .elems = 8388608,
                     .per_iter = 1,
                     .chain_ns = 34e3,
                     .mem_bw = H100_BW};
  ASSERT_NEAR(dla_fuse_saved_ns(&u), 67108864 / H100_BW * 1e9, 1e-6);
  ASSERT_NEAR(dla_fuse_saved_ns(&u), 20032.5, 0.1);
  dla_fuse_fact v = u;
  v.chain_ns = 15e3; /* never more than the chain's own time */
  ASSERT_NEAR(dla_fuse_saved_ns(&v), 15e3, 0);
  v.n_ops = 1;
  ASSERT_NEAR(dla_fuse_saved_ns(&v), 0, 0);

  static dla_facts f;
  memset(&f, 0, sizeof f);
  f.iter_durations = one_ms;
  f.n_iter_durations = 1;
  dla_fuse_fact small = u;
  small.elems = 100000; /* 0.24 us: under 1 % of the 1 ms step */
  f.fuse[0] = small;
  f.fuse[1] = v = u;
  f.fuse[1].chain_ns = 15e3;
  f.fuse[2] = u;
  f.n_fuse = 3;
  dla_finding out[4];
  memset(out, 0, sizeof out);
  ASSERT_EQ(dla__rule_elementwise_fusion(&f, out, 4), 2);
  /* the largest saving first */
  ASSERT_CONTAINS(out[0].problem, "an estimated 20.0 us per iteration saved");
  ASSERT_CONTAINS(out[0].problem, "67.11 MB less moved per chain");
  ASSERT_CONTAINS(out[1].problem, "an estimated 15.0 us per iteration saved");
  ASSERT_CONTAINS(out[0].recommendation, "torch.compile");
  ASSERT_STR_EQ(out[1].js_function, "ShowOpShapes");
  return 0;
}

static int test_small_gemm_saved(void) {
  /* mm 64 x 64 x 64 bfloat16, 10 calls of 5 us: 524288 FLOPs and 24576
   * bytes per call; memory-bound (7.336 ns a call at 3.35 TB/s, 0.530 ns of
   * math); batched at 50 % of the roofline: 10 * 7.336 / 0.5 = 146.7 ns */
  dla_small_gemm_fact g = {.op_name = "aten::mm",
                           .dims = "[[64, 64], [64, 64]]",
                           .dtype = "bfloat16",
                           .gpu_name = "H100 SXM5",
                           .m = 64,
                           .n = 64,
                           .k = 64,
                           .batch = 1,
                           .tiles = 1,
                           .sms = 132,
                           .calls_per_iter = 10,
                           .gpu_ns_per_iter = 50e3,
                           .flops = 524288,
                           .bytes = 24576,
                           .peak_flops = H100_BF16,
                           .mem_bw = H100_BW,
                           .pct_of_roofline = 0.15};
  double batched = 10 * 24576 / H100_BW * 1e9 / 0.5;
  ASSERT_NEAR(dla_small_gemm_saved_ns(&g), 50e3 - batched, 1e-6);
  ASSERT_NEAR(dla_small_gemm_saved_ns(&g), 49853.3, 0.1);
  dla_small_gemm_fact h = g;
  h.peak_flops = 0; /* unknown peak: no estimate */
  ASSERT_NEAR(dla_small_gemm_saved_ns(&h), 0, 0);

  static dla_facts f;
  memset(&f, 0, sizeof f);
  f.iter_durations = one_ms;
  f.n_iter_durations = 1;
  f.small_gemm[0] = g;
  f.n_small_gemm = 1;
  dla_finding out[2];
  memset(out, 0, sizeof out);
  ASSERT_EQ(dla__rule_small_gemms(&f, out, 2), 1);
  ASSERT_CONTAINS(out[0].problem, "1 output tiles of 128 x 128 for 132 SMs");
  ASSERT_CONTAINS(out[0].problem, "an estimated 49.9 us per iteration would be saved");
  ASSERT_STR_EQ(out[0].js_function, "ShowOpShapes");
  /* through the rule table */
  dla_finding all[64];
  size_t na = dla_rules_run(&f, all, 64), seen = 0;
  for (size_t i = 0; i < na; i++) seen += strcmp(all[i].rule_id, "small_gemm_detector") == 0;
  ASSERT_EQ(seen, 1);
  return 0;
}

/* ---- a generated trace through dlprof ---------------------------------- */

/* One op of the generated trace: name, input dims, its kernel's time (us). */
typedef struct gen_op {
  const char *name, *dims;
  int kernel_us;
} gen_op;

static const gen_op gen_ops[] = {
    /* attention by parts: 20 + 10 + 15 + 20 us */
    {"aten::matmul", "[[2, 4, 256, 64], [2, 4, 64, 256]]", 20},
    {"aten::div", "[[2, 4, 256, 256], []]", 10},
    {"aten::softmax", "[[2, 4, 256, 256], [], []]", 15},
    {"aten::matmul", "[[2, 4, 256, 256], [2, 4, 256, 64]]", 20},
    /* an elementwise chain: 12 + 12 + 10 us */
    {"aten::mul", "[[8192, 1024], [8192, 1024]]", 12},
    {"aten::add", "[[8192, 1024], [8192, 1024], []]", 12},
    {"aten::relu", "[[8192, 1024]]", 10},
};

static int write_trace(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB "
        "HBM3\", \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
        "\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, "
        "\"tid\": 1, \"ts\": 0, \"dur\": 1000}",
        f);
  int n = (int)(sizeof gen_ops / sizeof gen_ops[0]);
  int gpu = 100; /* the next kernel's start, us */
  for (int i = 0; i < n + 10; i++) {
    /* ops 0..n-1 above, then ten 64 x 64 x 64 mm of 5 us */
    const gen_op mm = {"aten::mm", "[[64, 64], [64, 64]]", 5};
    const gen_op *o = i < n ? &gen_ops[i] : &mm;
    int ts = 10 + 5 * i;
    fprintf(f,
            ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, "
            "\"ts\": %d, \"dur\": 4, \"args\": {\"Input Dims\": %s, \"Input type\": "
            "[\"c10::BFloat16\", \"c10::BFloat16\"]}}",
            o->name, ts, o->dims);
    fprintf(f,
            ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
            "\"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": %d}}",
            ts + 1, i + 1);
    fprintf(f,
            ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_%d\", \"pid\": 0, "
            "\"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"correlation\": %d, \"device\": 0, "
            "\"stream\": 7}}",
            i, gpu, o->kernel_us, i + 1);
    gpu += o->kernel_us + 1;
  }
  fputs("\n]}\n", f);
  return fclose(f);
}

/* The problem of the finding that contains needle, into out ("" none). */
static void finding(sqlite3 *h, const char *needle, char *out, size_t cap) {
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  if (sqlite3_prepare_v2(h, "SELECT problem FROM view_expert_systems WHERE instr(problem, ?1)", -1,
                         &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_text(st, 1, needle, -1, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW)
    snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
}

static int count_findings(sqlite3 *h, const char *needle) {
  sqlite3_stmt *st = NULL;
  int n = -1;
  if (sqlite3_prepare_v2(h, "SELECT count(*) FROM view_expert_systems WHERE instr(problem, ?1)", -1,
                         &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, needle, -1, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return n;
}

static int test_generated_trace(void) {
  char trace[1100], dir[1100], db[1200], cmd[4096];
  snprintf(trace, sizeof trace, "%s/perfrules.pt.trace.json", work_dir);
  snprintf(dir, sizeof dir, "%s/perfrules", work_dir);
  snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", dir);
  ASSERT_OK(write_trace(trace));
  snprintf(cmd, sizeof cmd, "'%s' --database='%s' --output_path='%s' --force=true >/dev/null 2>&1",
           dlprof_bin, trace, dir);
  int st = system(cmd);
  ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  sqlite3 *h = NULL;
  ASSERT_EQ(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  char p[1024];
  /* attention: chain 65 us, products 40 us, fused bytes 1 MiB (0.3 us): 25 us */
  finding(h, "Attention runs unfused", p, sizeof p);
  printf("%s\n", p);
  ASSERT_CONTAINS(p, "aten::matmul, softmax and aten::matmul over scores [[2, 4, 256, 256], "
                     "[], []] (bfloat16, batch x heads 8, 256 x 256 keys, head dim 64)");
  ASSERT_CONTAINS(p, "4 ops 1.0 times per iteration: 65.0 us per iteration, 40.0 us of it");
  ASSERT_CONTAINS(p, "moves 1.05 MB per call (0.3 us at 3.35 TB/s on H100 SXM5)");
  ASSERT_CONTAINS(p, "save an estimated 25.0 us per iteration");
  /* the chain: 67108864 bytes at 3.35 TB/s = 20.03 us (the div inside the
   * attention is not part of a chain) */
  finding(h, "elementwise ops run one after another", p, sizeof p);
  printf("%s\n", p);
  ASSERT_CONTAINS(p, "3 elementwise ops run one after another on 8388608 elements "
                     "([[8192, 1024], [8192, 1024]], bfloat16): aten::mul -> aten::add -> "
                     "aten::relu, 1.0 times per iteration, 34.0 us per iteration");
  ASSERT_CONTAINS(p, "an estimated 20.0 us per iteration saved");
  /* ten mm of 5 us: 50 us less 146.7 ns batched */
  finding(h, "too small to fill the GPU", p, sizeof p);
  printf("%s\n", p);
  ASSERT_CONTAINS(p, "aten::mm [[64, 64], [64, 64]] (bfloat16, M x N x K = 64 x 64 x 64, "
                     "batch 1)");
  ASSERT_CONTAINS(p, "1 output tiles of 128 x 128 for 132 SMs");
  ASSERT_CONTAINS(p, "10.0 calls and 50.0 us per iteration");
  ASSERT_CONTAINS(p, "an estimated 49.9 us per iteration would be saved");
  /* the attention's products are small too (32 tiles), but run once per
   * iteration each: nothing to batch, one small-GEMM finding only */
  ASSERT_EQ(count_findings(h, "too small to fill the GPU"), 1);
  sqlite3_close(h);
  return 0;
}

int main(int argc, char **argv) {
  dlprof_bin = argc > 1 ? argv[1] : NULL;
  work_dir = argc > 2 ? argv[2] : ".";
  RUN(test_attn_saved);
  RUN(test_fuse_saved);
  RUN(test_small_gemm_saved);
  if (dlprof_bin) RUN(test_generated_trace);
  TEST_DONE();
}
