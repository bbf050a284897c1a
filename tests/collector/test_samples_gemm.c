/*
 * test_samples_gemm - `dlprof samples/gemm_nvtx` on a GPU: the application
 * exits 0 through dlprof, the dldb holds its kernels (cuBLAS FP32 and FP16
 * GEMMs, its own kernels), its copies, its NVTX ranges and the external
 * correlations that tie the kernels to them, and the analysis attributes
 * GPU work to the GEMM ops; with --nsys_profile_range=true only the loop
 * between cudaProfilerStart and Stop is recorded (the warm-up is not).
 *
 * Where there is no GPU (nvidia-smi absent, or cudaGetDeviceCount fails in
 * `gemm_nvtx --device-check`) it says so and exits 77 (skipped).
 *
 * Usage: test_samples_gemm DLPROF GEMM_NVTX WORKDIR
 */
#include "ctest_util.h"
#include "test.h"

static const char *dlprof, *sample, *dir;

enum { ITERS = 20 };

static int on_path(const char *prog) {
  const char *path = getenv("PATH");
  char buf[4096], file[4400];
  snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
  for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
    snprintf(file, sizeof file, "%s/%s", d, prog);
    if (access(file, X_OK) == 0) return 1;
  }
  return 0;
}

static int run_dlprof(const char *name, const char *extra, int *status) {
  char out[4200], nameopt[256], errp[4300], iters[16];
  snprintf(out, sizeof out, "--output_path=%s", dir);
  snprintf(nameopt, sizeof nameopt, "--profile_name=%s", name);
  snprintf(errp, sizeof errp, "%s/%s.err", dir, name);
  snprintf(iters, sizeof iters, "%d", ITERS);
  char *argv[] = {(char *)dlprof, out, nameopt, "--force=true", "--mode=simple",
                  "--key_op=iteration", (char *)extra, (char *)sample, iters, "512", NULL};
  if (!extra) memmove(&argv[6], &argv[7], 4 * sizeof *argv);
  int ws = wait_for(spawn(argv, NULL, errp), 300000);
  if (ws == -1 || !WIFEXITED(ws)) return -1;
  *status = WEXITSTATUS(ws);
  fprintf(stderr, "--- dlprof %s stderr:\n%s", name, slurp(errp));
  return 0;
}

static int64_t named(const char *db, const char *name) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id "
           "WHERE s.value = '%s'",
           name);
  return q_int(db, sql);
}

static int test_profile(void) {
  char db[4300];
  int status = -1;
  snprintf(db, sizeof db, "%s/gemm_dldb.sqlite", dir);
  ASSERT_OK(run_dlprof("gemm", NULL, &status));
  ASSERT_EQ(status, 0);
  char errp[4300];
  snprintf(errp, sizeof errp, "%s/gemm.err", dir);
  ASSERT(strstr(slurp(errp), "no GPU activity") == NULL);
  ASSERT(q_int(db, "SELECT count(*) FROM gpus") >= 1);
  /* per step: sgemm, 2 casts, the FP16 GEMM, relu (cuBLAS may add kernels) */
  ASSERT(q_int(db, "SELECT count(*) FROM kernels") >= 5 * (ITERS + 1));
  ASSERT(q_int(db, "SELECT count(*) FROM memcpys WHERE copy_kind = 1") >= ITERS + 2);
  ASSERT(q_int(db, "SELECT count(*) FROM memcpys WHERE copy_kind = 2") >= ITERS + 1);
  ASSERT(q_int(db, "SELECT count(*) FROM cuda_api_calls") > 0);
  ASSERT_EQ(named(db, "iteration"), ITERS);
  ASSERT_EQ(named(db, "gemm_fp16"), ITERS + 1);
  ASSERT(q_int(db, "SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.long_name_id "
                   "WHERE s.value LIKE '%relu%'") >= ITERS + 1);
  /* the exact links from the NVTX push/pop external correlation ids */
  ASSERT(q_int(db, "SELECT count(*) FROM cupti_external_correlations") > 0);
  ASSERT(q_int(db, "SELECT kernel_calls FROM view_op_nodes WHERE op_node_name = 'gemm_fp16'") >=
         3 * (ITERS + 1));
  fprintf(stderr, "tensor-core kernels: %lld\n",
          (long long)q_int(db, "SELECT count(*) FROM view_iteration_kernels WHERE uses_tc = 1"));
  return 0;
}

static int test_profiler_range(void) {
  char db[4300];
  int status = -1;
  snprintf(db, sizeof db, "%s/gemm_range_dldb.sqlite", dir);
  ASSERT_OK(run_dlprof("gemm_range", "--nsys_profile_range=true", &status));
  ASSERT_EQ(status, 0);
  /* the GPU is described though its context was made before the range */
  ASSERT(q_int(db, "SELECT count(*) FROM gpus") >= 1);
  ASSERT_EQ(named(db, "warmup"), 0);
  ASSERT_EQ(named(db, "setup"), 0);
  ASSERT_EQ(named(db, "iteration"), ITERS);
  ASSERT(q_int(db, "SELECT count(*) FROM kernels") >= 5 * ITERS);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_samples_gemm DLPROF GEMM_NVTX WORKDIR\n");
    return 2;
  }
  dlprof = argv[1];
  sample = argv[2];
  dir = argv[3];
  if (!on_path("nvidia-smi")) {
    printf("SKIP: no GPU here: nvidia-smi is not on PATH (samples_gemm_nvtx profiles a CUDA "
           "application and needs an NVIDIA GPU and driver)\n");
    return 77;
  }
  char *probe[] = {(char *)sample, "--device-check", NULL};
  int ws = wait_for(spawn(probe, NULL, NULL), 60000);
  if (ws == -1 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
    printf("SKIP: no usable GPU: `gemm_nvtx --device-check` failed (cudaGetDeviceCount; see "
           "above)\n");
    return 77;
  }
  RUN(test_profile);
  RUN(test_profiler_range);
  TEST_DONE();
}
