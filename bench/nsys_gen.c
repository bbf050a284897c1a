/*
 * nsys_gen - writes a synthetic Nsight Systems SQLite export (schema 3.13,
 * nsys 2024.5 table and column layout, formats.md B) of a PyTorch training
 * loop, for the `dlprof --database` benchmark (bench/nsys_import.sh).
 *
 * Usage: nsys_gen [--kernels N] [--kernels-per-iter K] [--seed S] [--shared-texts] OUT.sqlite
 *
 * --shared-texts leaves "seq = N" and the op ids out of the range texts, so
 * that each op's texts repeat from iteration to iteration (as markers
 * without emit_nvtx's counters do): a few dozen distinct texts instead of
 * one per range (the dldb of 10 M kernels has 35 strings in all). It
 * measures what distinct texts cost; backward ranges are then not paired
 * with their forward op (no seq).
 *
 * One process, one GPU (A100), a main thread that launches everything and a
 * data-loader worker thread. Each iteration: a DataLoader range on the
 * worker with an input cudaMemcpyAsync (HtoD), forward ops and their
 * backward ops as emit_nvtx ranges ("aten::conv2d, seq = N, sizes = ..." -
 * unique texts, as real emit_nvtx traces are), some with a nested inner op,
 * each launching 1-4 kernels through cudaLaunchKernel (correlation ids),
 * the optimizer (zero_grad with a memset, step with multi-tensor kernels:
 * the key op "Optimizer.step#SGD.step") and a cudaStreamSynchronize outside
 * every range. Kernels run on one stream, queued behind their launch.
 * Exactly N kernel rows; deterministic for a seed. The file is built at
 * OUT.tmp and renamed when complete.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t rnext(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static int64_t jit(int64_t base, int pct) { /* base +- pct % */
  int64_t span = base * pct / 100;
  return base - span + (int64_t)(rnext() % (uint64_t)(2 * span + 1));
}

static const char *const ddl =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);"
    "CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, "
    " name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);"
    "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
    "CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
    "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, "
    " busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, "
    " memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT, "
    " luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, ctrlDevPath TEXT, "
    " revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER, "
    " maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, "
    " maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, "
    " asyncEngines INTEGER, maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER, "
    " maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER, "
    " maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER, "
    " computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
    " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
    " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, "
    " launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, "
    " gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, "
    " blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, "
    " staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, "
    " localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, "
    " gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, "
    " sharedMemoryLimitConfig INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    " eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, "
    " nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
    " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
    " bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, "
    " srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, "
    " dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, "
    " graphNodeId INTEGER, virtualAddress INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
    " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
    " value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);"
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
    " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, "
    " endGlobalTid INTEGER, textId INTEGER REFERENCES StringIds(id), domainId INTEGER, "
    " uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, "
    " int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);";

typedef struct kdef {
  const char *shrt, *lng;
  int64_t dur;
  int grid, block, regs;
} kdef;

static const kdef kernels[] = {
    {"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
     "warpsize2x2x1_g1_tensor16x8x16_kernel",
     "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
     "warpsize2x2x1_g1_tensor16x8x16_kernel",
     180000, 784, 256, 168},
    {"cudnn::bn_fw_tr_1C11_kernel_NCHW",
     "void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, int, 512, true, 1>(cudnnTensorStruct, "
     "__half const*, cudnnTensorStruct, __half*, float const*, float const*, float, float, "
     "float*, float*, float*, float*, float, float)",
     45000, 256, 512, 40},
    {"vectorized_elementwise_kernel",
     "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
     "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
     "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#14}::"
     "operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >(int, "
     "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, "
     "c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
     "const::{lambda()#14}::operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, "
     "2>)",
     22000, 1024, 128, 24},
    {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_64x3_nn",
     "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_64x3_nn", 60000, 32, 256, 232},
    {"sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
     "warpsize2x2x1_g1_tensor16x8x16_kernel",
     "sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
     "warpsize2x2x1_g1_tensor16x8x16_kernel",
     200000, 784, 256, 168},
    {"sm80_xmma_wgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
     "warpsize2x2x1_g1_tensor16x8x16_kernel",
     "sm80_xmma_wgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
     "warpsize2x2x1_g1_tensor16x8x16_kernel",
     210000, 392, 256, 168},
    {"cudnn::bn_bw_1C11_kernel_new",
     "void cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 512, true, 1>(__half, __half, "
     "__half, __half, cudnnTensorStruct, __half const*, cudnnTensorStruct, __half const*, "
     "cudnnTensorStruct, __half*, float const*, float*, float*, float const*, float const*, "
     "float)",
     60000, 256, 512, 48},
    {"elementwise_kernel",
     "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::"
     "threshold_kernel_impl<c10::Half>(at::TensorIteratorBase&, c10::Half, c10::Half)::"
     "{lambda(c10::Half, c10::Half)#1}>(at::TensorIteratorBase&, at::native::"
     "threshold_kernel_impl<c10::Half>(at::TensorIteratorBase&, c10::Half, c10::Half)::"
     "{lambda(c10::Half, c10::Half)#1} const&)::{lambda(int)#1}>(int, at::native::"
     "gpu_kernel_impl<at::native::threshold_kernel_impl<c10::Half>(at::TensorIteratorBase&, "
     "c10::Half, c10::Half)::{lambda(c10::Half, c10::Half)#1}>(at::TensorIteratorBase&, "
     "at::native::threshold_kernel_impl<c10::Half>(at::TensorIteratorBase&, c10::Half, "
     "c10::Half)::{lambda(c10::Half, c10::Half)#1} const&)::{lambda(int)#1})",
     25000, 1024, 128, 20},
    {"multi_tensor_apply_kernel",
     "void multi_tensor_apply_kernel<TensorListMetadata<3>, SGDFunctor<float, float>, float*, "
     "float, float, float, bool, bool, bool, float, float>(long, int volatile*, "
     "TensorListMetadata<3>, SGDFunctor<float, float>, float*, float, float, float, bool, bool, "
     "bool, float, float)",
     35000, 320, 512, 32},
};
enum { K_CONV, K_BN, K_CLAMP, K_GEMM, K_DGRAD, K_WGRAD, K_BNBW, K_RELUBW, K_SGD, NK };

/* forward op: outer emit_nvtx name, inner name (or NULL), kernels, backward name + kernels */
typedef struct opdef {
  const char *name, *inner, *shape;
  int k[3], nk;
  const char *bwd;
  int bk[3], nbk;
} opdef;

static const opdef ops[] = {
    {"aten::conv2d", "aten::cudnn_convolution", "[[64, 256, 56, 56], [64, 256, 1, 1]]",
     {K_CONV}, 1, "CudnnConvolutionBackward0", {K_DGRAD, K_WGRAD}, 2},
    {"aten::batch_norm", "aten::cudnn_batch_norm", "[[64, 64, 56, 56], [64], [64]]", {K_BN}, 1,
     "CudnnBatchNormBackward0", {K_BNBW}, 1},
    {"aten::relu_", NULL, "[[64, 64, 56, 56]]", {K_CLAMP}, 1, "ReluBackward0", {K_RELUBW}, 1},
    {"aten::linear", "aten::addmm", "[[64, 2048], [1000, 2048], [1000]]", {K_GEMM}, 1,
     "AddmmBackward0", {K_GEMM, K_GEMM, K_CLAMP}, 3},
};
enum { NOPS = sizeof ops / sizeof *ops };

enum { PID = 31337, TID_MAIN = 31337, TID_LOADER = 31390 };
#define GLOBAL(pid, tid) (((int64_t)1 << 48) | ((int64_t)(pid) << 24) | (int64_t)(tid))

typedef struct gen {
  sqlite3 *db;
  sqlite3_stmt *kern, *api, *nvtx, *mcpy, *mset;
  int64_t kmax, kdone, corr, cpu, gpu, seq, grid_id;
  int64_t sid_api_launch, sid_api_memcpy, sid_api_memset, sid_api_sync;
  int64_t sid_kshort[NK], sid_klong[NK];
  int shared_texts;   /* --shared-texts */
} gen;

static int check(gen *g, int rc, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "nsys_gen: %s: %s\n", what, sqlite3_errmsg(g->db));
    exit(1);
  }
  return rc;
}

static void step(gen *g, sqlite3_stmt *st, const char *what) {
  check(g, sqlite3_step(st), what);
  sqlite3_reset(st);
}

static int64_t add_string(gen *g, int64_t id, const char *s) {
  sqlite3_stmt *st;
  check(g, sqlite3_prepare_v2(g->db, "INSERT INTO StringIds VALUES (?1, ?2)", -1, &st, NULL),
        "prepare");
  sqlite3_bind_int64(st, 1, id);
  sqlite3_bind_text(st, 2, s, -1, SQLITE_STATIC);
  step(g, st, "StringIds");
  sqlite3_finalize(st);
  return id;
}

static int64_t api(gen *g, int64_t name, int64_t dur) {
  int64_t start = g->cpu;
  g->cpu += jit(dur, 30);
  sqlite3_bind_int64(g->api, 1, start);
  sqlite3_bind_int64(g->api, 2, g->cpu);
  sqlite3_bind_int64(g->api, 3, GLOBAL(PID, TID_MAIN));
  sqlite3_bind_int64(g->api, 4, ++g->corr);
  sqlite3_bind_int64(g->api, 5, name);
  step(g, g->api, "RUNTIME");
  g->cpu += jit(1500, 50);
  return start;
}

/* one kernel launch: API call on the CPU, kernel queued on the stream */
static void launch(gen *g, int k) {
  if (g->kdone >= g->kmax) return;
  int64_t start = api(g, g->sid_api_launch, 5000);
  int64_t s = g->gpu > start + 4000 ? g->gpu : start + 4000;
  s += jit(1200, 50);
  g->gpu = s + jit(kernels[k].dur, 10);
  sqlite3_stmt *st = g->kern;
  sqlite3_bind_int64(st, 1, s);
  sqlite3_bind_int64(st, 2, g->gpu);
  sqlite3_bind_int64(st, 3, g->corr);
  sqlite3_bind_int64(st, 4, GLOBAL(PID, 0));
  sqlite3_bind_int64(st, 5, g->sid_klong[k]);
  sqlite3_bind_int64(st, 6, g->sid_kshort[k]);
  sqlite3_bind_int(st, 7, kernels[k].regs);
  sqlite3_bind_int(st, 8, kernels[k].grid);
  sqlite3_bind_int(st, 9, kernels[k].block);
  sqlite3_bind_int64(st, 10, ++g->grid_id);
  step(g, st, "KERNEL");
  g->kdone++;
}

static void range(gen *g, int64_t start, int64_t end, const char *text, int tid) {
  sqlite3_stmt *st = g->nvtx;
  sqlite3_bind_int64(st, 1, start);
  sqlite3_bind_int64(st, 2, end);
  sqlite3_bind_text(st, 3, text, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 4, GLOBAL(PID, tid));
  step(g, st, "NVTX_EVENTS");
}

static void memop(gen *g, sqlite3_stmt *st, int64_t api_name, int64_t bytes, int64_t dur) {
  int64_t start = api(g, api_name, 9000);
  int64_t s = (g->gpu > start + 3000 ? g->gpu : start + 3000) + jit(1000, 50);
  g->gpu = s + jit(dur, 10);
  sqlite3_bind_int64(st, 1, s);
  sqlite3_bind_int64(st, 2, g->gpu);
  sqlite3_bind_int64(st, 3, g->corr);
  sqlite3_bind_int64(st, 4, GLOBAL(PID, 0));
  sqlite3_bind_int64(st, 5, bytes);
  step(g, st, "MEMCPY/MEMSET");
}

/* One op instance: outer range, optional inner range, its kernels. */
static void op(gen *g, const char *name, const char *inner, const char *shape, const int *ks,
               int nk) {
  char text[512], itext[512];
  int64_t seq = g->seq++;
  int64_t start = g->cpu;
  g->cpu += jit(3000, 40);
  if (g->shared_texts)
    snprintf(text, sizeof text, "%s, sizes = %s", name, shape);
  else
    snprintf(text, sizeof text, "%s, seq = %lld, op_id = %lld, sizes = %s, input_op_ids = [%lld]",
             name, (long long)seq, (long long)(seq * 2 + 1), shape, (long long)(seq * 2 - 1));
  int64_t istart = g->cpu;
  for (int i = 0; i < nk; i++) launch(g, ks[i]);
  int64_t iend = g->cpu;
  g->cpu += jit(2000, 40);
  range(g, start, g->cpu, text, TID_MAIN);
  if (inner) {
    if (g->shared_texts)
      snprintf(itext, sizeof itext, "%s, sizes = %s", inner, shape);
    else
      snprintf(itext, sizeof itext, "%s, op_id = %lld, sizes = %s", inner,
               (long long)(seq * 2 + 2), shape);
    range(g, istart, iend, itext, TID_MAIN);
  }
  g->cpu += jit(1500, 50);
}

static void iteration(gen *g, int64_t per_iter) {
  static const int sgd[1] = {K_SGD};
  /* data loading on the worker thread; the main thread waits for it */
  int64_t dl = g->cpu;
  g->cpu += jit(300000, 20);
  range(g, dl, g->cpu, "DataLoader.__next__", TID_LOADER);
  memop(g, g->mcpy, g->sid_api_memcpy, 64 * 3 * 224 * 224 * 2, 250000);
  /* forward and backward, about per_iter kernels */
  int nfwd = (int)(per_iter * 4 / 10);
  if (nfwd < 1) nfwd = 1;
  int *seqop = malloc((size_t)nfwd * sizeof *seqop);
  int n = 0;
  int64_t k0 = g->kdone;
  for (; n < nfwd && g->kdone - k0 < per_iter * 4 / 10; n++) {
    int o = n % 8 == 7 ? 3 : n % 3;
    seqop[n] = o;
    op(g, ops[o].name, ops[o].inner, ops[o].shape, ops[o].k, ops[o].nk);
  }
  for (int i = n - 1; i >= 0 && g->kdone - k0 < per_iter - 2; i--) {
    const opdef *d = &ops[seqop[i]];
    op(g, d->bwd, NULL, d->shape, d->bk, d->nbk);
  }
  free(seqop);
  /* optimizer: zero_grad (memset), step (the key op) */
  int64_t z = g->cpu;
  memop(g, g->mset, g->sid_api_memset, 25 << 20, 40000);
  range(g, z, g->cpu, "Optimizer.zero_grad#SGD.zero_grad", TID_MAIN);
  int64_t s = g->cpu;
  g->cpu += 2000;
  while (g->kdone - k0 < per_iter && g->kdone < g->kmax) launch(g, sgd[0]);
  g->cpu += 2000;
  range(g, s, g->cpu, "Optimizer.step#SGD.step", TID_MAIN);
  /* loss.item(): a synchronisation outside every range */
  int64_t sync = g->cpu;
  int64_t wait = g->gpu > sync ? g->gpu - sync : 0;
  api(g, g->sid_api_sync, wait + 3000);
}

int main(int argc, char **argv) {
  int64_t nkern = 10000000, per_iter = 1000;
  int shared_texts = 0;
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--kernels") && i + 1 < argc) nkern = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--kernels-per-iter") && i + 1 < argc) per_iter = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng ^= (uint64_t)atoll(argv[++i]) * 2654435761u;
    else if (!strcmp(argv[i], "--shared-texts")) shared_texts = 1;
    else if (argv[i][0] != '-' && !out) out = argv[i];
    else {
      fprintf(stderr, "usage: nsys_gen [--kernels N] [--kernels-per-iter K] [--seed S] "
                      "[--shared-texts] OUT.sqlite\n");
      return 2;
    }
  }
  if (!out || nkern < 1 || per_iter < 10) {
    fprintf(stderr, "usage: nsys_gen [--kernels N] [--kernels-per-iter K>=10] [--seed S] OUT.sqlite\n");
    return 2;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", out);
  remove(tmp);
  gen g = {.kmax = nkern, .cpu = 1000000000, .seq = 1, .shared_texts = shared_texts};
  g.gpu = g.cpu;
  if (sqlite3_open(tmp, &g.db) != SQLITE_OK) {
    fprintf(stderr, "nsys_gen: cannot create %s\n", tmp);
    return 1;
  }
  check(&g, sqlite3_exec(g.db, "PRAGMA page_size=4096; PRAGMA journal_mode=OFF; "
                               "PRAGMA synchronous=OFF; PRAGMA cache_size=-32768; BEGIN",
                         NULL, NULL, NULL), "pragmas");
  check(&g, sqlite3_exec(g.db, ddl, NULL, NULL, NULL), "schema");
  check(&g, sqlite3_exec(g.db,
      "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'),"
      "('EXPORT_PRODUCT_VERSION', '2024.5.1.113'), ('EXPORT_SCHEMA_VERSION', '3.13.2'),"
      "('EXPORT_SCHEMA_VERSION_MAJOR', '3'), ('EXPORT_SCHEMA_VERSION_MINOR', '13'),"
      "('EXPORT_SCHEMA_VERSION_MICRO', '2'), ('EXPORT_PARAM_LAZY', 'true');"
      "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'Base', 'CpuDescription', 1, "
      " 'AMD EPYC 7763 64-Core Processor'), (0, 'Base', 'NvDriverVersion', 2, '53510402'),"
      " (0, 'Base', 'CudaDriverVersion', 3, '12020');"
      "INSERT INTO PROCESSES VALUES (281608277442560, 31337, 'python');"
      "INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, cuDevice, "
      " computeMajor, computeMinor, threadsPerWarp) VALUES (0, 0, 'NVIDIA A100-SXM4-80GB', "
      " 85899345920, 108, 0, 8, 0, 32);",
      NULL, NULL, NULL), "fixed rows");
  int64_t sid = 1;
  add_string(&g, sid++, "[Unknown]");
  int64_t tmain = add_string(&g, sid++, "python"), tload = add_string(&g, sid++, "pt_data_worker");
  g.sid_api_launch = add_string(&g, sid++, "cudaLaunchKernel_v7000");
  g.sid_api_memcpy = add_string(&g, sid++, "cudaMemcpyAsync_v3020");
  g.sid_api_memset = add_string(&g, sid++, "cudaMemsetAsync_v3020");
  g.sid_api_sync = add_string(&g, sid++, "cudaStreamSynchronize_v3020");
  for (int k = 0; k < NK; k++) {
    g.sid_kshort[k] = add_string(&g, sid++, kernels[k].shrt);
    g.sid_klong[k] = strcmp(kernels[k].shrt, kernels[k].lng) ? add_string(&g, sid++, kernels[k].lng)
                                                             : g.sid_kshort[k];
  }
  char sql[256];
  snprintf(sql, sizeof sql, "INSERT INTO ThreadNames VALUES (%lld, 0, %lld), (%lld, 0, %lld)",
           (long long)tmain, (long long)GLOBAL(PID, TID_MAIN), (long long)tload,
           (long long)GLOBAL(PID, TID_LOADER));
  check(&g, sqlite3_exec(g.db, sql, NULL, NULL, NULL), "ThreadNames");
  check(&g, sqlite3_prepare_v2(g.db,
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, 0, 1, NULL, 7, ?3, ?4, ?5, ?6, "
      "NULL, 1, 0, ?7, ?8, 1, 1, ?9, 1, 1, 0, 49152, 0, 0, ?10, 0, NULL, 0)",
      -1, &g.kern, NULL), "prepare kernel");
  check(&g, sqlite3_prepare_v2(g.db,
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 0, ?3, ?4, ?5, 0, NULL)", -1,
      &g.api, NULL), "prepare runtime");
  check(&g, sqlite3_prepare_v2(g.db,
      "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, text, "
      "globalTid, endGlobalTid, domainId) VALUES (?1, ?2, 59, NULL, 0, 4283674524, ?3, ?4, "
      "NULL, 0)", -1, &g.nvtx, NULL), "prepare nvtx");
  check(&g, sqlite3_prepare_v2(g.db,
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, "
      "correlationId, globalPid, bytes, copyKind, srcKind, dstKind, srcDeviceId, dstDeviceId) "
      "VALUES (?1, ?2, 0, 1, 7, ?3, ?4, ?5, 1, 1, 2, 0, 0)", -1, &g.mcpy, NULL), "prepare memcpy");
  check(&g, sqlite3_prepare_v2(g.db,
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?1, ?2, 0, 1, NULL, 7, ?3, ?4, 0, ?5, "
      "NULL, 2)", -1, &g.mset, NULL), "prepare memset");
  int64_t iters = 0;
  while (g.kdone < g.kmax) {
    iteration(&g, per_iter);
    if (++iters % 1000 == 0) {
      check(&g, sqlite3_exec(g.db, "COMMIT; BEGIN", NULL, NULL, NULL), "commit");
      fprintf(stderr, "nsys_gen: %lld kernels\n", (long long)g.kdone);
    }
  }
  sqlite3_finalize(g.kern);
  sqlite3_finalize(g.api);
  sqlite3_finalize(g.nvtx);
  sqlite3_finalize(g.mcpy);
  sqlite3_finalize(g.mset);
  check(&g, sqlite3_exec(g.db, "COMMIT", NULL, NULL, NULL), "commit");
  sqlite3_close(g.db);
  if (rename(tmp, out) != 0) {
    perror("nsys_gen: rename");
    return 1;
  }
  fprintf(stderr, "nsys_gen: %s: %lld kernels, %lld API calls, %lld iterations, %lld op ranges\n",
          out, (long long)g.kdone, (long long)g.corr, (long long)iters, (long long)(g.seq - 1));
  return 0;
}
