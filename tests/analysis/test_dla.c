/*
 * test_dla - analysis: tensor-core patterns against a pinned name list, op
 * name parsing, attribution/iterations/breakdown on a hand-written raw
 * fixture with exact expected numbers, the streamed API-call attribution
 * against the sort-and-sweep it replaced, and each expert rule firing and not.
 * Usage: test_dla WORK_DIR
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dla.h"
#include "dla_internal.h"
#include "dla_tuning.h"
#include "dla_opname.h"
#include "dla_ranges.h"
#include "dl_pipe.h"
#include "dla_rules.h"
#include "dla_tc.h"
#include "dldb_scan.h"
#include "dldb_timeline.h"
#include "dldb_write.h"
#include "test.h"
#include "test_sql.h"

static const char *work_dir;

/* ---- Tensor-core patterns --------------------------------------------------- */

static int test_tc_patterns(void) {
  static const char *const yes[] = {
      "volta_h884gemm_64x64_ldg8_nn",
      "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn",
      "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
      "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16",
      "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8",
      "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)",
      "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel",
      "fmhaSm100aKernel_QkvE4m3OBfloat16H128",
      "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
      "void wmma_example<half>(half*, half*, float*)",
      "bmm_E4m3E4m3_Fp32_t128x64",
      "sm100_mma_gemm",
      "_ZN7cutlass6KernelINS_4gemm6kernel13GemmUniversalIwgmma",
      /* fp8 GEMMs: a GEMM-like word with an fp8 format */
      "GemmGatedActKernel_E4m3_E4m3_Fp32_tile128x128x256_epilogueTile128x128_mma128x128x32_"
      "cluster1x1x1_sm100a",
      "_kernel_matmul_fp8_row",
      "void fbgemm_gpu::f8f8bf16_rowwise_gemm_kernel<cutlass::float_e4m3_t>()",
      /* AMD matrix cores: hipBLASLt on an MI250 (amd_trace_mi250_minitoy_train_ROCm6_2) */
      "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_"
      "ASEM1_CLR1_CADS0_EPS0_GRVWA1_GRVWB1_GSUAMB_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_LPA0_"
      "LPB0_LPM0_LRVW1_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_"
      "NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS0_USFGROn1_VSn1_VWA1_VWB1_"
      "WSGRA0_WSGRB0_WS64_WG64_4_1",
      "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_"
      "ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_"
      "LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_"
      "NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS1_USFGROn1_VSn1_VWA1_"
      "VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1",
      /* rocBLAS Tensile (MI<m>x<n>x<k>x<b>), Composable Kernel XDLOPs */
      "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8_K1_MIWT2_2_WG32_8_1",
      "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::half_t>>()",
  };
  static const char *const no[] = {
      "volta_sgemm_128x64_nn",
      "implicit_convolve_sgemm",
      "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>()",
      "ampere_sgemm_128x64_nn",
      "gemv2T_kernel_val",
      "winograd_nonfused_fwd",
      "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<c10::Half>>()",
      "void at::native::elementwise_kernel<bf16_to_fp16_tf32>()",
      "compute_summary_kernel",
      "triton_poi_fused_add_0",
      "bn_fw_tr_1C11_kernel_NCHW",
      "multi_tensor_apply_kernel",
      "<script>alert(1)</script>",
      "",
      /* fp8 quantize/convert kernels of FBGEMM (trace_filter_sampled_rank-0/1):
       * "gemm" only in the fbgemm_gpu namespace */
      "void at::native::vectorized_elementwise_kernel<4, fbgemm_gpu::_float_to_hfp8_gpu(at::Tensor "
      "const&, long, long, double)::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
      "fbgemm_gpu::_float_to_hfp8_gpu(at::Tensor const&, long, long, double)::{lambda(float)#1}, "
      "at::detail::Array<char*, 2>)",
      "void at::native::vectorized_elementwise_kernel<4, fbgemm_gpu::_hfp8_to_float_gpu(at::Tensor "
      "const&, long, long)::{lambda(unsigned char)#1}, at::detail::Array<char*, 2> >(int, "
      "fbgemm_gpu::_hfp8_to_float_gpu(at::Tensor const&, long, long)::{lambda(unsigned char)#1}, "
      "at::detail::Array<char*, 2>)",
      "void fbgemm_gpu::(anonymous namespace)::_get_FP8_qparam_cuda_kernel<float>(float const*, "
      "int, int, unsigned char*, float*, bool)",
      "void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float "
      "const*, float const*, int, int, unsigned char*, bool)",
      "void fbgemm_gpu::(anonymous namespace)::_FP8rowwise_to_float_cuda_kernel<float>(unsigned "
      "char const*, int, int, float*, bool)",
      "convert_fp8_e4m3_to_bf16_kernel",
      /* "MI" not followed by <m>x<n>x<k>; a Tensile kernel without MFMA (gfx906) */
      "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
      "namespace)::clamp_min_scalar_kernel_impl(at::TensorIterator&, c10::Scalar)::{lambda()#1}"
      "::operator()() const::{lambda()#8}::operator()() const::{lambda(float)#1}, "
      "at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::"
      "clamp_min_scalar_kernel_impl(at::TensorIterator&, c10::Scalar)::{lambda()#1}::operator()"
      "() const::{lambda()#8}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, "
      "2>)",
      "Cijk_Ailk_Bjlk_DB_MT48x64x4_SE_APM1_AF0EM1_AF1EM1_AMAS3_ASBE01_ASEM1_BL1_DTL0_DVO0_EPS1_"
      "FL1_GRVW2_GSU1_ISA906_IU1_K1_KLA_LBSPP0_LPA0_LPB0_LDL1_MTSM64_MDA2_NLCA1_NLCB1_ONLL1_PBD0_"
      "PK0_PGR1_PLR0_RK1_SIA1_SU0_SUM0_SUS256_SRVW0_SVW4_SNLL0_TT6_4_TLDS0_USFGRO0_VAW1_VS1_VW2_"
      "WSGRA0_WSGRB0_WG8_16_1_WGM4",
      "kernel_MI16x16_MIN32x32x8",
  };
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (!dla_tc_uses(dla_tc_classify(yes[i]))) {
      fprintf(stderr, "expected TC: %s\n", yes[i]);
      return 1;
    }
  }
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    if (dla_tc_uses(dla_tc_classify(no[i]))) {
      fprintf(stderr, "expected no TC: %s\n", no[i]);
      return 1;
    }
  }
  ASSERT_EQ(dla_tc_classify("volta_sgemm_128x64_nn"), DLA_TC_CUDA_CORE);
  ASSERT_EQ(dla_tc_classify("triton_tem_fused_mm_0"), DLA_TC_GEMM_UNKNOWN);
  ASSERT_EQ(dla_tc_classify("my_custom_gemm_kernel"), DLA_TC_GEMM_UNKNOWN);
  ASSERT_EQ(dla_tc_classify("my_custom_fp8_gemm_kernel"), DLA_TC_USES);
  ASSERT_EQ(dla_tc_classify("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, "
                            "int const*, int*)"),
            DLA_TC_NOT_GEMM);
  /* quantize/convert/elementwise fp8 kernels with a GEMM-like word: not TC */
  ASSERT_EQ(dla_tc_classify("void fp8_quantize_gemm_input_kernel<float>()"), DLA_TC_GEMM_UNKNOWN);
  ASSERT_EQ(dla_tc_classify("void at::native::vectorized_elementwise_kernel<4, "
                            "at::native::_scaled_mm_out_cuda()::{lambda(c10::Float8_e4m3fn)#1}>()"),
            DLA_TC_GEMM_UNKNOWN);
  ASSERT_EQ(dla_tc_classify(NULL), DLA_TC_NOT_GEMM);
  ASSERT_STR_EQ(DLA_TC_RULES_VERSION, "dla-tc-2");
  ASSERT(dla_tc_op_eligible("conv2d"));
  ASSERT(dla_tc_op_eligible("aten::linear"));
  ASSERT(dla_tc_op_eligible("AddmmBackward0"));
  ASSERT(dla_tc_op_eligible("ConvolutionBackward0"));
  ASSERT(dla_tc_op_eligible("MatMul"));
  ASSERT(!dla_tc_op_eligible("relu_"));
  ASSERT(!dla_tc_op_eligible("conv2dx"));
  ASSERT(!dla_tc_op_eligible("Backward0"));
  ASSERT(!dla_tc_op_eligible(NULL));
  return 0;
}

static int test_opname(void) {
  dla_opname n;
  dla_opname_parse("aten::conv2d, seq = 3, sizes = [[8, 3, 32, 32], [6, 3, 3, 3], []]", &n);
  ASSERT_STR_EQ(n.path, "aten::conv2d");
  ASSERT_STR_EQ(n.type, "conv2d");
  ASSERT_EQ(n.seq, 3);
  ASSERT_STR_EQ(n.direction, "fprop");
  /* keys in any order, after values holding ", "; a longer key is not the
   * key; the first of two is */
  dla_opname_parse("aten::mm, sizes = [[2, 3], [3, 4]], seqx = 9, dtype = bfloat16, seq = 7, "
                   "seq = 8, dtype = float32",
                   &n);
  ASSERT_STR_EQ(n.path, "aten::mm");
  ASSERT_EQ(n.seq, 7);
  ASSERT_STR_EQ(n.data_type, "bfloat16");
  ASSERT_EQ(dla_opname_seq("aten::mm, sizes = [[2, 3]], seq = 11"), 11);
  ASSERT_EQ(dla_opname_seq("aten::mm, sizes = [[2, 3]]"), -1);
  ASSERT_EQ(dla_opname_seq("a, b"), -1);
  dla_opname_parse("/module/ResNet::forward/Conv2d::forward/conv2d, seq = 12, dtype = float16",
                   &n);
  ASSERT_STR_EQ(n.path, "/module/ResNet::forward/Conv2d::forward/conv2d");
  ASSERT_STR_EQ(n.type, "conv2d");
  ASSERT_STR_EQ(n.data_type, "float16");
  dla_opname_parse("/module/ResNet::backward/AddmmBackward0", &n);
  ASSERT_STR_EQ(n.type, "AddmmBackward0");
  ASSERT_STR_EQ(n.direction, "bprop");
  ASSERT_EQ(n.seq, -1);
  dla_opname_parse("/module/DataLoader::__next__/x", &n);
  ASSERT(n.is_dataloader);
  dla_opname_parse("a, b", &n); /* no key = value: the comma is part of the name */
  ASSERT_STR_EQ(n.path, "a, b");
  /* a key is lower-case ASCII, digits and '_' between ", " and " = " */
  static const char *const not_keys[] = {"aten::mm, Seq = 4", "x,seq = 3", "x, seq=3",
                                         "x, \xc3\xa9 = 1", "aten::mm, ", "x, seq =3", "x, = 2"};
  for (size_t i = 0; i < sizeof not_keys / sizeof *not_keys; i++) {
    dla_opname_parse(not_keys[i], &n);
    ASSERT_STR_EQ(n.path, not_keys[i]);
    ASSERT_EQ(n.seq, -1);
  }
  dla_opname_parse("x, seq=5, fwd_tid = 12, s_2 = [1, 2], seq = 6", &n);
  ASSERT_STR_EQ(n.path, "x, seq=5");
  ASSERT_EQ(n.seq, 6);
  ASSERT_EQ(n.fwd_tid, 12);
  /* '=' inside a value, or after a key that does not follow ", " */
  dla_opname_parse("a=b, k = x = y, z, w = 1 = 2, seq = 4, =, x = =", &n);
  ASSERT_STR_EQ(n.path, "a=b");
  ASSERT_EQ(n.seq, 4);
  dla_opname_parse("Conv2d::forward", &n);
  ASSERT_STR_EQ(n.type, "Conv2d::forward");
  /* a name with a '/' before digits only is no scope path (torch.compile's
   * region: frame/compile id): its type is the whole name, not "0" */
  dla_opname_parse("Torch-Compiled Region: 0/0", &n);
  ASSERT_STR_EQ(n.type, "Torch-Compiled Region: 0/0");
  /* DLProf's PyTorch markers (w_Relu's texts) */
  const char *scope =
      "{'traceMarker': ['dummy_network.py:42', 'm.py:1102', 'dummy_network.py:26'], "
      "'funcStack': '/<module>/dummy_network::_call_impl/Conv2d::_call_impl(2)/<lambda>/relu(3)'}";
  const char *mark = "{'mod': 'torch.nn.functional', 'op': 'conv2d', 'args': [{'name': '', "
                     "'type': 'tensor', 'shape': (32, 3, 32, 32), 'dtype': 'float32'}]}";
  ASSERT_EQ(dla_opname_kind(scope), DLA_TEXT_DLPROF_SCOPE);
  ASSERT_EQ(dla_opname_kind(mark), DLA_TEXT_DLPROF_OP);
  ASSERT_EQ(dla_opname_kind("{\"model_config\": {\"emit_nvtx\": true}}"), DLA_TEXT_CONFIG);
  ASSERT_EQ(dla_opname_kind("aten::empty"), DLA_TEXT_EMIT_NVTX);
  ASSERT_EQ(dla_opname_kind("AddmmBackward0, seq = 4"), DLA_TEXT_EMIT_NVTX);
  ASSERT_EQ(dla_opname_kind("Conv2d::forward"), DLA_TEXT_PLAIN);
  ASSERT_EQ(dla_opname_kind("{'other': 1}"), DLA_TEXT_PLAIN);
  ASSERT_EQ(dla_opname_kind("autograd::engine::evaluate_function: AddmmBackward0"),
            DLA_TEXT_WRAPPER);
  char path[256], stack[256];
  ASSERT_EQ(dla_dlprof_scope_parse(scope, path, sizeof path, stack, sizeof stack), 0);
  ASSERT_STR_EQ(path, "/module/dummy_network::_call_impl/Conv2d::_call_impl[2]/lambda/relu[3]");
  ASSERT_STR_EQ(stack, "dummy_network.py:42\nm.py:1102\ndummy_network.py:26");
  ASSERT_EQ(dla_dlprof_scope_parse(mark, path, sizeof path, stack, sizeof stack), -1);
  /* a PyTorch profiler "Call stack": innermost first, "file(line): function" */
  const char *ks = "/t/torch/nn/modules/conv.py(440): _conv_forward;/t/torch/nn/modules/conv.py(443): "
                   "forward; train.py(54): <module>";
  ASSERT_EQ(dla_kineto_stack(ks, stack, sizeof stack), 3);
  ASSERT_STR_EQ(stack, "train.py:54\n/t/torch/nn/modules/conv.py:443\n/t/torch/nn/modules/conv.py:440");
  /* the whole frames that fit, from the outermost */
  ASSERT_EQ(dla_kineto_stack(ks, stack, 45), 2);
  ASSERT_STR_EQ(stack, "train.py:54\n/t/torch/nn/modules/conv.py:443");
  ASSERT_EQ(dla_kineto_stack(ks, stack, 11), 0);
  ASSERT_STR_EQ(stack, "");
  /* other shapes kept; empty frames, "(" in a path, no line number */
  ASSERT_EQ(dla_kineto_stack(";a (x)/f.py(7): g;;<built-in method x>; ", stack, sizeof stack), 2);
  ASSERT_STR_EQ(stack, "<built-in method x>\na (x)/f.py:7");
  ASSERT_EQ(dla_kineto_stack("f.py(): g;h.py(12)", stack, sizeof stack), 2);
  ASSERT_STR_EQ(stack, "h.py(12)\nf.py(): g");
  ASSERT_EQ(dla_kineto_stack("", stack, sizeof stack), 0);
  ASSERT_EQ(dla_kineto_stack(NULL, stack, sizeof stack), 0);
  ASSERT_STR_EQ(stack, "");
  dla_dlprof_op m;
  ASSERT_EQ(dla_dlprof_op_parse(mark, &m), 0);
  ASSERT_STR_EQ(m.op, "conv2d");
  ASSERT_STR_EQ(m.mod, "torch.nn.functional");
  ASSERT_STR_EQ(m.data_type, "float32");
  ASSERT(m.args && m.args[0] == '[' && m.args[m.args_len - 1] == ']');
  ASSERT_EQ(dla_dlprof_op_parse("{'mod': 'torch', 'op': 'randn', 'args': []}", &m), 0);
  ASSERT_STR_EQ(m.data_type, "");
  ASSERT_EQ(dla_dlprof_op_parse("{'mod': 'torch', 'op': ", &m), -1); /* truncated */
  ASSERT_EQ(dla_dlprof_op_parse("{'op': 'x\\", &m), -1);
  dla_model_config cfg = {-1, -1, -1, -1, -1};
  dla_model_config_parse("{\"model_config\": {\"emit_nvtx\": true, "
                         "\"cudnn_benchmark_disabled\": true, \"num_workers\": 4}}",
                         &cfg);
  ASSERT_EQ(cfg.emit_nvtx, 1);
  ASSERT_EQ(cfg.cudnn_benchmark, 0);
  ASSERT_EQ(cfg.num_workers, 4);
  ASSERT_EQ(cfg.amp_enabled, -1);
  ASSERT_EQ(dla_opname_seq("aten::conv2d, seq = 12, op_id = 3"), 12);
  ASSERT_EQ(dla_opname_seq("aten::empty"), -1);
  ASSERT(dla_opname_is_backward("AddmmBackward0"));
  ASSERT(dla_opname_is_backward("/m/CudnnConvolutionBackward"));
  ASSERT(!dla_opname_is_backward("aten::convolution_backward"));
  ASSERT(!dla_opname_is_backward("Backward0"));
  char id[64];
  dla_opname_id_prefix("uniform_", id, sizeof id);
  ASSERT_STR_EQ(id, "UNIFORM_");
  dla_opname_id_prefix("<script>", id, sizeof id);
  ASSERT_STR_EQ(id, "_SCRIPT_");
  return 0;
}

/* ---- Raw fixture ------------------------------------------------------------- */

/* A small profile on one thread and one GPU (times in ns):
 *   ranges  R1 conv2d [100,400] > R2 inner_op [150,250]; R3 step [500,600];
 *           R4 relu_ [700,800]; R5 step [900,950]; R6 DataLoader [1000,1100]
 *   calls   corr1 [120,130] in R1 -> K1 sgemm [300,350]
 *           corr2 [200,210] in R2 -> K2 elementwise [360,380]
 *           corr3 [450,460] outside -> K3 [470,490]
 *           corr4 [520,530] in R3 -> K4 [540,560]
 *           corr5 [710,720] in R4 -> K5 xmma (TC) [730,800]
 *           corr6 cudaDeviceSynchronize [1200,1210] outside, no kernel
 *           corr7 cudaMemcpyAsync [610,615] outside -> memcpy [620,680]
 */
static int build_fixture(const char *path, const char *key_op, int64_t it0, int64_t it1,
                         int twice) {
  char err[256];
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  if (dldb_writer_create(path, &o, &w, err, sizeof err)) return -1;
  struct {
    const char *name;
    int64_t s, e;
  } ranges[] = {
      {"/m/A::forward/conv2d, seq = 0, dtype = float32", 100, 400},
      {"/m/A::forward/conv2d/inner_op", 150, 250},
      {"step", 500, 600},
      {"/m/B/relu_", 700, 800},
      {"step", 900, 950},
      {"DataLoader::next", 1000, 1100},
  };
  struct {
    const char *api;
    int64_t s, e, corr;
    const char *kernel;
    int64_t ks, ke;
  } calls[] = {
      {"cudaLaunchKernel_v7000", 120, 130, 1, "volta_sgemm_128x64_nn", 300, 350},
      {"cudaLaunchKernel_v7000", 200, 210, 2, "elementwise_kernel", 360, 380},
      {"cudaLaunchKernel_v7000", 450, 460, 3, "k3", 470, 490},
      {"cudaLaunchKernel_v7000", 520, 530, 4, "multi_tensor_apply_kernel", 540, 560},
      {"cudaLaunchKernel_v7000", 710, 720, 5, "sm80_xmma_fprop_implicit_gemm_f16", 730, 800},
      {"cudaDeviceSynchronize_v3020", 1200, 1210, 6, NULL, 0, 0},
      {"cudaMemcpyAsync_v3020", 610, 615, 7, NULL, 0, 0},
  };
  int rc = 0;
  dldb_gpu g = {.device_id = 0, .name = "GPU", .cc_major = 8, .sm_count = 108};
  rc |= dldb_write_gpu(w, &g, err, sizeof err);
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = ranges[i].name,
                         .start_ns = ranges[i].s, .end_ns = ranges[i].e, .pid = 1, .tid = 1};
    rc |= dldb_write_nvtx_range(w, &r, NULL, err, sizeof err);
  }
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    dldb_api_call a = {.name = calls[i].api, .start_ns = calls[i].s, .end_ns = calls[i].e,
                       .pid = 1, .tid = 1, .correlation_id = calls[i].corr};
    rc |= dldb_write_api_call(w, &a, err, sizeof err);
    if (!calls[i].kernel) continue;
    dldb_kernel k = {.short_name = calls[i].kernel, .device_id = 0, .stream_id = 7,
                     .gpu_start_ns = calls[i].ks, .gpu_end_ns = calls[i].ke,
                     .correlation_id = calls[i].corr, .pid = 1, .grid = {4, 2, 1},
                     .block = {128, 1, 1}};
    rc |= dldb_write_kernel(w, &k, err, sizeof err);
  }
  dldb_memcpy m = {.copy_kind = 1, .bytes = 1 << 20, .gpu_start_ns = 620, .gpu_end_ns = 680,
                   .correlation_id = 7, .pid = 1};
  rc |= dldb_write_memcpy(w, &m, err, sizeof err);
  dla_opts ao;
  dla_opts_init(&ao);
  ao.key_op = key_op;
  ao.iter_start = it0;
  ao.iter_stop = it1;
  ao.aggr_start = "2024-01-01 00:00:00";
  ao.host_name = "host";
  ao.user_name = "user";
  if (rc == 0) rc = dla_aggregate(w, &ao, NULL, err, sizeof err);
  if (rc == 0 && twice) {
    ao.iter_start = 1;
    ao.iter_stop = 1;
    rc = dla_aggregate(w, &ao, NULL, err, sizeof err);
  }
  if (rc) {
    fprintf(stderr, "fixture: %s\n", err);
    dldb_writer_abort(&w);
    return rc;
  }
  return dldb_writer_commit(&w, err, sizeof err);
}

static sqlite3 *open_ro(const char *path) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  return db;
}


static double q_real(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  double v = -999;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}

static char qbuf[1024];
static const char *q_text(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  qbuf[0] = '\0';
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    snprintf(qbuf, sizeof qbuf, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return qbuf;
}

static int test_fixture_attribution(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/fixture.sqlite", work_dir);
  ASSERT_OK(build_fixture(path, "step", -1, -1, 1));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  /* no index of kernels by op (it cost 11-14 s at 10 M kernels); each
   * aggregation's rows are there, and an op's kernels in an iteration are
   * found through the primary key. The kernel lists' own indexes (launch
   * order, sort keys) do not lead with the op. */
  ASSERT_STR_EQ(q_text(db, "PRAGMA integrity_check"), "ok");
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema s, pragma_index_info(s.name) i "
                      "WHERE s.type = 'index' AND s.tbl_name = 'aggr_kernels' AND "
                      "i.seqno <= 1 AND i.name = 'op_idx'"), 0);
  ASSERT(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND "
                   "name = 'aggr_kernels_by_time'") == 1);
  for (int a = 1; a <= 2; a++) {
    char q[256];
    snprintf(q, sizeof q, "SELECT count(*) FROM aggr_kernels WHERE aggr_id = %d", a);
    ASSERT(q_int(db, q) > 0);
  }
  {
    sqlite3_stmt *st = NULL;
    int seen = 0;
    ASSERT(sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN SELECT * FROM view_iteration_op_kernels "
                                  "WHERE aggr_id = 1 AND iter_value = 1 AND op_node_id = 'x'",
                              -1, &st, NULL) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
      const char *d = (const char *)sqlite3_column_text(st, 3);
      if (d && strstr(d, " ak ")) seen += strstr(d, "PRIMARY KEY (aggr_id=? AND iter_value=?") != NULL;
    }
    sqlite3_finalize(st);
    ASSERT_EQ(seen, 1);
  }
  /* iterations: 2 key-op instances -> 3 iterations */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_iterations_all WHERE aggr_id = 1"), 3);
  /* iterations cut at a key op's stops have no name of their own */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_dl_iteration_names"), 0);
  ASSERT_EQ(q_int(db, "SELECT stop_time FROM view_iterations_all WHERE aggr_id=1 AND iter_value=0"),
            600);
  ASSERT_EQ(q_int(db, "SELECT start_time FROM view_iterations_all WHERE aggr_id=1 AND iter_value=2"),
            950);
  ASSERT_EQ(q_int(db, "SELECT stop_time FROM view_iterations_all WHERE aggr_id=1 AND iter_value=2"),
            1210);
  ASSERT_EQ(q_int(db, "SELECT wall_clock_time FROM view_performance_summary WHERE aggr_id=1"),
            1210);
  ASSERT_STR_EQ(q_text(db, "SELECT key_node FROM view_performance_summary WHERE aggr_id=1"),
                "step");
  ASSERT_STR_EQ(q_text(db, "SELECT key_op FROM view_key_op_name WHERE aggr_id=1"), "step");
  ASSERT_EQ(q_int(db, "SELECT total_iterations FROM view_performance_summary WHERE aggr_id=1"), 3);
  /* kernel -> innermost range, via the launching call */
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_name FROM view_iteration_kernels WHERE aggr_id=1 AND "
                           "kernel_name='volta_sgemm_128x64_nn'"),
                "/m/A::forward/conv2d");
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_name FROM view_iteration_kernels WHERE aggr_id=1 AND "
                           "kernel_name='elementwise_kernel'"),
                "/m/A::forward/conv2d/inner_op");
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_name FROM view_iteration_kernels WHERE aggr_id=1 AND "
                           "kernel_name='k3'"),
                "unassociated_cudaLaunchKernel_v7000");
  ASSERT_EQ(q_int(db, "SELECT kernel_timestamp FROM view_iteration_kernels WHERE aggr_id=1 AND "
                      "kernel_name='volta_sgemm_128x64_nn'"),
            120);
  ASSERT_STR_EQ(q_text(db, "SELECT grid FROM view_iteration_kernels WHERE aggr_id=1 LIMIT 1"),
                "4, 2, 1");
  ASSERT_EQ(q_int(db, "SELECT iter_value FROM view_iteration_kernels WHERE aggr_id=1 AND "
                      "uses_tc=1"),
            1);
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_id FROM view_op_nodes WHERE aggr_id=1 AND "
                           "op_node_name='unassociated_cudaLaunchKernel_v7000'"),
                "CUDALAUNCHKERNEL_V7000_1");
  ASSERT_EQ(q_int(db, "SELECT num_calls FROM view_op_nodes WHERE aggr_id=1 AND "
                      "op_node_name='unassociated_cudaDeviceSynchronize_v3020'"),
            1);
  /* op metrics */
  ASSERT_EQ(q_int(db, "SELECT cpu_time FROM view_op_nodes WHERE aggr_id=1 AND "
                      "op_node_id='CONV2D_1'"),
            300);
  ASSERT_EQ(q_int(db, "SELECT gpu_time FROM view_op_nodes WHERE aggr_id=1 AND "
                      "op_node_id='CONV2D_1'"),
            50);
  ASSERT_EQ(q_int(db, "SELECT is_bad_data_type FROM view_op_nodes WHERE aggr_id=1 AND "
                      "op_node_id='CONV2D_1'"),
            1);
  ASSERT_EQ(q_int(db, "SELECT num_calls FROM view_op_nodes WHERE aggr_id=1 AND "
                      "op_node_name='step'"),
            2);
  ASSERT_EQ(q_int(db, "SELECT using_tc FROM view_op_nodes WHERE aggr_id=1 AND "
                      "op_node_name='/m/B/relu_'"),
            1);
  /* CPU overhead = CPU time not spent in CUDA API calls: 300 - 10, 100 - 10 */
  ASSERT_EQ(q_int(db, "SELECT cpu_overhead_sum FROM view_op_type_summary WHERE aggr_id=1 AND "
                      "op_node_type='conv2d'"),
            290);
  ASSERT_EQ(q_int(db, "SELECT cpu_overhead_sum FROM view_op_type_summary WHERE aggr_id=1 AND "
                      "op_node_type='inner_op'"),
            90);
  /* an unassociated call is its own op: overhead 0, its kernel's GPU time */
  ASSERT_EQ(q_int(db, "SELECT gpu_time FROM view_op_nodes WHERE aggr_id=1 AND "
                      "op_node_name='unassociated_cudaLaunchKernel_v7000'"),
            20);
  ASSERT_EQ(q_int(db, "SELECT cpu_overhead_sum FROM view_op_type_summary WHERE aggr_id=1 AND "
                      "op_node_type='cudaLaunchKernel_v7000'"),
            0);
  ASSERT_EQ(q_int(db, "SELECT calls FROM view_kernel_summaries WHERE aggr_id=1 AND "
                      "op_node_id='CONV2D_1'"),
            1);
  /* kernel summary: distinct names, kernels + memory */
  ASSERT_EQ(q_int(db, "SELECT total_gpu_time FROM view_kernel_summary WHERE aggr_id=1"), 240);
  ASSERT_EQ(q_int(db, "SELECT total_count FROM view_kernel_summary WHERE aggr_id=1"), 6);
  ASSERT_EQ(q_int(db, "SELECT using_tc_count FROM view_kernel_summary WHERE aggr_id=1"), 1);
  ASSERT_EQ(q_int(db, "SELECT other_count FROM view_kernel_summary WHERE aggr_id=1"), 4);
  ASSERT_EQ(q_int(db, "SELECT memory_gpu_time FROM view_kernel_summary WHERE aggr_id=1"), 60);
  /* breakdown: exact and summing to 100 */
  ASSERT_NEAR(q_real(db, "SELECT tc_duration_pct FROM view_resource_usage_breakdown "
                         "WHERE aggr_id=1"),
              100.0 * 70 / 1210, 1e-9);
  ASSERT_NEAR(q_real(db, "SELECT non_tc_duration_pct FROM view_resource_usage_breakdown "
                         "WHERE aggr_id=1"),
              100.0 * 110 / 1210, 1e-9);
  ASSERT_NEAR(q_real(db, "SELECT cpu_duration_pct FROM view_resource_usage_breakdown "
                         "WHERE aggr_id=1"),
              100.0 * 390 / 1210, 1e-9);
  ASSERT_NEAR(q_real(db, "SELECT dataloader_duration_pct FROM view_resource_usage_breakdown "
                         "WHERE aggr_id=1"),
              100.0 * 100 / 1210, 1e-9);
  ASSERT_NEAR(q_real(db, "SELECT tc_duration_pct + non_tc_duration_pct + memory_duration_pct + "
                         "dataloader_duration_pct + io_duration_pct + cpu_duration_pct + "
                         "other_duration_pct FROM view_resource_usage_breakdown WHERE aggr_id=1"),
              100.0, 1e-9);
  ASSERT_NEAR(q_real(db, "SELECT gpu_utilization FROM view_performance_summary WHERE aggr_id=1"),
              100.0 * 180 / 1210, 1e-9);
  /* per iteration */
  ASSERT_EQ(q_int(db, "SELECT cpu_duration FROM view_iterations_profiled WHERE aggr_id=1 AND "
                      "iter_value=0"),
            310);
  ASSERT_EQ(q_int(db, "SELECT other_duration FROM view_iterations_profiled WHERE aggr_id=1 AND "
                      "iter_value=1"),
            140);
  ASSERT_EQ(q_int(db, "SELECT tc_duration + non_tc_duration + memory_duration + "
                      "dataloader_duration + io_duration + cpu_duration + other_duration - "
                      "duration FROM view_iterations_profiled WHERE aggr_id=1 AND iter_value=2"),
            0);
  /* group tree */
  ASSERT_EQ(q_int(db, "SELECT level FROM view_group_ops WHERE aggr_id=1 AND row_full_name='/'"),
            1);
  ASSERT_STR_EQ(q_text(db, "SELECT row_trimmed_name FROM view_group_ops WHERE aggr_id=1 AND "
                           "row_full_name='/m/A::forward/'"),
                "A::forward");
  ASSERT_EQ(q_int(db, "SELECT level FROM view_group_ops WHERE aggr_id=1 AND "
                      "row_full_id='CONV2D_1'"),
            4);
  /* conv2d by its type, and the op whose kernel uses tensor cores: using
   * them makes an op eligible */
  ASSERT_EQ(q_int(db, "SELECT num_supported_leaf_ops FROM view_group_ops WHERE aggr_id=1 AND "
                      "row_full_name='/'"),
            2);
  /* second aggregation: iteration 1 only */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_aggregations"), 2);
  ASSERT_EQ(q_int(db, "SELECT wall_clock_time FROM view_performance_summary WHERE aggr_id=2"),
            350);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_iteration_kernels WHERE aggr_id=2"), 1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_iterations_profiled WHERE aggr_id=2"), 1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_iterations_all WHERE aggr_id=2"), 3);
  /* findings: AMP fires (conv2d float32, no TC) */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings WHERE aggr_id=1 AND "
                      "rule_id='amp_detector' AND javascript_function='ShowBadDataTypeOps'"),
            1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings WHERE aggr_id=1 AND "
                      "rule_id='no_iterations_detector'"),
            0);
  ASSERT_STR_EQ(q_text(db, "SELECT value FROM dl_meta WHERE key='tc_rules_version'"),
                "dla-tc-2");
  sqlite3_close(db);
  return 0;
}

/* A new dldb at work_dir/name (its path in path) with GPUs 0 .. ngpus - 1,
 * or NULL. */
static dldb_writer *new_writer(const char *name, int ngpus, char *path, size_t plen) {
  char err[512];
  snprintf(path, plen, "%s/%s", work_dir, name);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  if (dldb_writer_create(path, &o, &w, err, sizeof err)) return NULL;
  for (int d = 0; d < ngpus; d++) {
    dldb_gpu g = {.device_id = d, .name = "GPU", .cc_major = 8, .sm_count = 108};
    if (dldb_write_gpu(w, &g, err, sizeof err)) {
      dldb_writer_abort(&w);
      return NULL;
    }
  }
  return w;
}

/* Kernels whose ids are not dense (a dldb edited, or written by another
 * tool) keep their ids, and launches of one kernel with one grid on two
 * GPUs count on their own GPU: a kernel record holds neither its id nor
 * its device (dla_internal.h). */
static int test_kernel_ids_devices(void) {
  char path[1024], err[512];
  dldb_writer *w = new_writer("kids.sqlite", 2, path, sizeof path);
  ASSERT_NOT_NULL(w);
  dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = "/m/op", .start_ns = 100,
                       .end_ns = 1000, .pid = 1, .tid = 1};
  ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
  for (int i = 0; i < 4; i++) { /* kernel i on GPU i % 2, 10 * (i + 1) ns long */
    dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = 200 + 10 * i,
                       .end_ns = 205 + 10 * i, .pid = 1, .tid = 1, .correlation_id = i + 1};
    ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
    dldb_kernel k = {.short_name = "k", .device_id = i % 2, .stream_id = 7,
                     .gpu_start_ns = 300 + 100 * i, .gpu_end_ns = 310 + 110 * i,
                     .correlation_id = i + 1, .pid = 1, .grid = {4, 2, 1}, .block = {128, 1, 1}};
    ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  }
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  sqlite3 *db = NULL;
  ASSERT(sqlite3_open(path, &db) == SQLITE_OK);
  ASSERT(sqlite3_exec(db, "UPDATE kernels SET id = id * 10 + 5 WHERE id > 1", NULL, NULL, NULL) ==
         SQLITE_OK);
  sqlite3_close(db);
  ASSERT_OK(dldb_writer_open_existing(path, &w, err, sizeof err));
  dla_opts ao;
  dla_opts_init(&ao);
  ASSERT_OK(dla_aggregate(w, &ao, NULL, err, sizeof err));
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  db = open_ro(path);
  ASSERT_NOT_NULL(db);
  ASSERT_STR_EQ(q_text(db, "SELECT group_concat(kernel_id) FROM (SELECT kernel_id FROM "
                           "aggr_kernels WHERE aggr_id = 1 ORDER BY kernel_id)"),
                "1,25,35,45");
  /* GPU 0: kernels 0 and 2 (10 + 30 ns), GPU 1: kernels 1 and 3 (20 + 40 ns) */
  ASSERT_STR_EQ(q_text(db, "SELECT group_concat(device_id || ':' || kernel_time) FROM "
                           "(SELECT * FROM aggr_gpus WHERE aggr_id = 1 ORDER BY device_id)"),
                "0:40,1:60");
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_kernels WHERE aggr_id = 1 AND op_idx < 0"), 0);
  sqlite3_close(db);
  return 0;
}

/* Calls and kernels of 2^32 - 1 ns (4.3 s) or more keep their durations
 * apart from the others' 4 bytes (dla_internal.h): a call of 6 s launches a
 * kernel of 5 s; a call of exactly 2^32 - 1 ns a kernel of 2^32 - 2; a
 * kernel of 2^32 - 1 has no call (the op of GPU work of no known call). */
static int test_long_durations(void) {
  char path[1024], err[512];
  dldb_writer *w = new_writer("long.sqlite", 1, path, sizeof path);
  ASSERT_NOT_NULL(w);
  const int64_t G = 1000000000, L = 4294967295; /* L: UINT32_MAX ns */
  dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = "/m/op", .start_ns = 0,
                       .end_ns = 40 * G, .pid = 1, .tid = 1};
  ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
  struct { int64_t s, e; } calls[] = {{1 * G, 7 * G}, {19 * G, 19 * G + L}};
  struct { int64_t s, e, corr; } kernels[] = {
      {8 * G, 13 * G, 1}, {20 * G, 20 * G + L - 1, 2}, {30 * G, 30 * G + L, 99}};
  for (int i = 0; i < 2; i++) {
    dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = calls[i].s, .end_ns = calls[i].e,
                       .pid = 1, .tid = 1, .correlation_id = i + 1};
    ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
  }
  for (int i = 0; i < 3; i++) {
    dldb_kernel k = {.short_name = "k", .device_id = 0, .stream_id = 7,
                     .gpu_start_ns = kernels[i].s, .gpu_end_ns = kernels[i].e,
                     .correlation_id = kernels[i].corr, .pid = 1, .grid = {1, 1, 1},
                     .block = {1, 1, 1}};
    ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  }
  dla_opts ao;
  dla_opts_init(&ao);
  ASSERT_OK(dla_aggregate(w, &ao, NULL, err, sizeof err));
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  ASSERT_STR_EQ(q_text(db, "SELECT group_concat(coalesce(api_dur_ns, 'none')) FROM (SELECT "
                           "api_dur_ns FROM aggr_kernels WHERE aggr_id = 1 ORDER BY kernel_id)"),
                "6000000000,4294967295,none");
  ASSERT_EQ(q_int(db, "SELECT kernel_time FROM aggr_gpus WHERE aggr_id = 1"),
            5 * G + (L - 1) + L);
  ASSERT_EQ(q_int(db, "SELECT gpu_time FROM view_op_nodes WHERE op_node_name = '/m/op'"),
            5 * G + (L - 1));
  ASSERT_STR_EQ(q_text(db, "SELECT o.op_node_name FROM aggr_kernels k JOIN aggr_ops o ON "
                           "o.aggr_id = k.aggr_id AND o.op_idx = k.op_idx WHERE k.kernel_id = 3"),
                "unassociated_unknown_api");
  ASSERT_EQ(q_int(db, "SELECT total_time FROM view_dl_stats_cuda_api"), 6 * G + L);
  ASSERT_EQ(q_int(db, "SELECT max FROM view_dl_stats_cuda_api"), 6 * G);
  ASSERT_EQ(q_int(db, "SELECT total_time FROM view_dl_stats_kernels"), 5 * G + (L - 1) + L);
  ASSERT_EQ(q_int(db, "SELECT max FROM view_dl_stats_kernels"), 5 * G);
  sqlite3_close(db);
  return 0;
}

/* Backward ranges keep their seq in 4 bytes until they are paired; one
 * past that is read from its text again (dla_pytorch.c). */
static int test_big_seq(void) {
  char path[1024], err[512];
  dldb_writer *w = new_writer("bigseq.sqlite", 1, path, sizeof path);
  ASSERT_NOT_NULL(w);
  struct { const char *name; int64_t s, e, tid; } ranges[] = {
      {"aten::mul, seq = 5000000000, op_id = 3, sizes = [[2], [2]]", 100, 200, 1},
      {"MulBackward0, seq = 5000000000, op_id = 4", 300, 400, 2},
      {"AddBackward0, seq = 4294967295", 500, 600, 2}, /* UINT32_MAX: no forward */
  };
  for (int i = 0; i < 3; i++) {
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = ranges[i].name,
                         .start_ns = ranges[i].s, .end_ns = ranges[i].e, .pid = 1,
                         .tid = ranges[i].tid};
    ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
    dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = ranges[i].s + 10,
                       .end_ns = ranges[i].s + 20, .pid = 1, .tid = ranges[i].tid,
                       .correlation_id = i + 1};
    ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
    dldb_kernel k = {.short_name = "k", .device_id = 0, .stream_id = 7,
                     .gpu_start_ns = ranges[i].s + 30, .gpu_end_ns = ranges[i].s + 50,
                     .correlation_id = i + 1, .pid = 1, .grid = {1, 1, 1}, .block = {1, 1, 1}};
    ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  }
  dla_opts ao;
  dla_opts_init(&ao);
  ASSERT_OK(dla_aggregate(w, &ao, NULL, err, sizeof err));
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  /* the backward range is the bprop of the forward op: same name and type */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_nodes"), 3);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_nodes f JOIN view_op_nodes b ON "
                      "b.op_node_name = f.op_node_name AND b.op_node_type = f.op_node_type "
                      "WHERE f.direction = 'fprop' AND b.direction = 'bprop'"),
            1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_nodes WHERE op_node_type = 'MulBackward0'"),
            0);
  ASSERT_STR_EQ(q_text(db, "SELECT direction FROM view_op_nodes WHERE "
                           "op_node_type = 'AddBackward0'"),
                "bprop");
  sqlite3_close(db);
  return 0;
}

/* The kernel lists' groups, launch sequence, marks and duration orders
 * (written from the launches in memory, dla_write_kgroups.c and
 * dla_write_durs.c) equal what
 * the schema says of the written launches, computed here in SQL: launches
 * out of id order, pairs of launches at one time, one short name under two
 * long names (one group), two grids, two devices, two ops; more than two
 * marks; equal durations (launch order breaks the tie) and durations of
 * 2^32 - 1 ns or more, two in one group in the reverse of launch order. A
 * second file with a kernel that ends before it starts takes the writer's
 * own passes (dldb_kgroups.c, dldb_kgdurs.c, dldb_aggr.c): the same rows. The first
 * file's again with each group's duration order sorted on a second thread
 * (dla_tuning.kgroup_thread_min): the same rows. */
#define KG_LAUNCHES \
  "SELECT ak.op_idx o, k.short_name_id s, k.device_id d, k.grid_x gx, k.grid_y gy, " \
  "k.grid_z gz, k.block_x bx, k.block_y b_y, k.block_z bz, ak.uses_tc tc, ak.iter_value it, " \
  "ak.kernel_id kid, ak.api_start_ns t, row_number() OVER (ORDER BY ak.api_start_ns, " \
  "ak.iter_value, ak.kernel_id) - 1 AS place FROM aggr_kernels ak JOIN kernels k " \
  "ON k.id = ak.kernel_id WHERE ak.aggr_id = 1"
#define KG_GROUPS \
  "SELECT *, row_number() OVER (ORDER BY first) gid FROM (SELECT o, s, d, gx, gy, gz, bx, " \
  "b_y, bz, tc, min(place) first, count(*) calls FROM l GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)"
/* The stored orders of aggregation 1 as rows: each group's launches in
 * launch order, and in duration order. */
#define KG_SEQ \
  "SELECT q.group_id, q.chunk * 128 + j.key AS seq, j.value ->> 0 AS iter_value, " \
  "j.value ->> 1 AS kernel_id FROM aggr_dl_kernel_seq_chunks q, json_each(q.launches) j " \
  "WHERE q.aggr_id = 1"
#define KG_DSEQ \
  "SELECT d.group_id, d.chunk * 128 + j.key AS dseq, j.value ->> 0 AS gpu_dur_ns, " \
  "j.value ->> 1 AS seq FROM aggr_dl_kernel_dseq_chunks d, json_each(d.launches) j " \
  "WHERE d.aggr_id = 1"

/* Launch i's duration: 50-80 ns, or 2^32 - 1 ns and more for every 500th
 * (i = 7, 507, ...; i = 7 and 1507 are of one group). */
static int64_t kg_dur(int i, int n) {
  return i % 500 == 7 ? 4294967295 + (n - i) : 50 + i % 4 * 10;
}

static int kgroups_case(const char *name, int clamp, size_t thread_min) {
  char path[1024], err[512];
  dldb_writer *w = new_writer(name, 2, path, sizeof path);
  ASSERT_NOT_NULL(w);
  enum { N = 3000 };
  for (int t = 1; t <= 2; t++) {
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = t == 1 ? "/m/a" : "/m/b",
                         .start_ns = 0, .end_ns = 1000000, .pid = 1, .tid = t};
    ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
  }
  for (int i = 0; i < N; i++) {
    int64_t at = 1000 + (int64_t)((i * 7919) % N / 2) * 20; /* pairs launched at one time */
    dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = at, .end_ns = at + 5, .pid = 1,
                       .tid = 1 + i % 2, .correlation_id = i + 1};
    ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
  }
  for (int i = 0; i < N; i++) {
    static const char *const shorts[] = {"ka", "kb", "kc"};
    const char *lname = i % 3 ? NULL : i % 2 ? "ka(int)" : "ka(float)";
    int64_t s = 10000000 + 100 * (int64_t)i;
    dldb_kernel k = {.short_name = shorts[i % 3], .long_name = lname,
                     .device_id = i % 3 == 2 ? i / 6 % 2 : 0, .stream_id = 7, .gpu_start_ns = s,
                     .gpu_end_ns = clamp && i == N / 2 ? s - 1 : s + kg_dur(i, N),
                     .correlation_id = i + 1, .pid = 1,
                     .grid = {i % 3 == 1 ? 1 + i / 6 % 2 : 1, 1, 1}, .block = {32, 1, 1}};
    ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  }
  dla_opts ao;
  dla_opts_init(&ao);
  dla_tuning tune = {.kgroup_thread_min = thread_min};
  ASSERT_OK(dla__aggregate_tuned(w, &ao, &tune, NULL, err, sizeof err));
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_kernels WHERE aggr_id = 1"), N);
  /* ka: 2 ops; kb: 2 ops x 2 grids; kc: 2 ops x 2 devices */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_dl_kernel_groups WHERE aggr_id = 1"), 10);
  ASSERT_EQ(q_int(db, "WITH l AS (" KG_LAUNCHES "), g AS (" KG_GROUPS ") SELECT count(*) FROM g"),
            10);
  ASSERT_EQ(q_int(db, "WITH l AS (" KG_LAUNCHES "), g AS (" KG_GROUPS ") SELECT count(*) FROM "
                      "(SELECT g.gid, g.o, l.kid, g.tc, g.calls FROM g JOIN l ON l.place = "
                      "g.first EXCEPT SELECT group_id, op_idx, kernel_id, uses_tc, calls FROM "
                      "aggr_dl_kernel_groups WHERE aggr_id = 1)"),
            0);
  /* each group's launches, 128 a chunk: every chunk but a group's last full */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM (" KG_SEQ ")"), N);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_dl_kernel_groups g WHERE g.aggr_id = 1 AND "
                      "(SELECT count(*) FROM aggr_dl_kernel_seq_chunks c WHERE c.aggr_id = 1 AND "
                      "c.group_id = g.group_id) <> (g.calls + 127) / 128"),
            0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_dl_kernel_seq_chunks c JOIN "
                      "aggr_dl_kernel_groups g USING (aggr_id, group_id) WHERE c.aggr_id = 1 AND "
                      "json_array_length(c.launches) <> min(128, g.calls - c.chunk * 128)"),
            0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_dl_kernel_dseq_chunks c JOIN "
                      "aggr_dl_kernel_groups g USING (aggr_id, group_id) WHERE c.aggr_id = 1 AND "
                      "json_array_length(c.launches) <> min(128, g.calls - c.chunk * 128)"),
            0);
  ASSERT_EQ(q_int(db, "WITH l AS (" KG_LAUNCHES "), g AS (" KG_GROUPS ") SELECT count(*) FROM "
                      "(SELECT g.gid, row_number() OVER (PARTITION BY g.gid ORDER BY l.place) "
                      "- 1, l.it, l.kid FROM l JOIN g USING (o, s, d, gx, gy, gz, bx, b_y, bz, "
                      "tc) EXCEPT " KG_SEQ ")"),
            0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM (" KG_DSEQ ")"), N);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM (" KG_DSEQ ") WHERE gpu_dur_ns >= 4294967295"), 6);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT q.group_id, row_number() OVER (PARTITION BY "
                      "q.group_id ORDER BY k.gpu_end_ns - k.gpu_start_ns, q.seq) - 1, "
                      "k.gpu_end_ns - k.gpu_start_ns, q.seq FROM (" KG_SEQ ") q JOIN "
                      "kernels k ON k.id = q.kernel_id EXCEPT " KG_DSEQ ")"),
            0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT group_id, group_seq, kernel_timestamp FROM "
                      "view_dl_kernel_group_times WHERE aggr_id = 1 EXCEPT SELECT q.group_id, "
                      "q.seq, ak.api_start_ns FROM (" KG_SEQ ") q JOIN aggr_kernels ak ON "
                      "ak.aggr_id = 1 AND ak.iter_value = q.iter_value AND ak.kernel_id = "
                      "q.kernel_id)"),
            0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_dl_kernel_marks WHERE aggr_id = 1"), 3);
  ASSERT_EQ(q_int(db, "WITH l AS (" KG_LAUNCHES ") SELECT count(*) FROM (SELECT place, t FROM l "
                      "WHERE place % 1024 = 0 EXCEPT SELECT place, api_start_ns FROM "
                      "aggr_dl_kernel_marks WHERE aggr_id = 1)"),
            0);
  /* the launches by duration, 128 a chunk: the written ones in (duration,
   * launch time, kernel id) order, every chunk but the last full */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_dl_kernel_durations WHERE aggr_id = 1"), N);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_dl_kernel_dur_chunks WHERE aggr_id = 1 AND "
                      "json_array_length(launches) <> min(128, 3000 - chunk * 128)"),
            0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM (SELECT row_number() OVER (ORDER BY k.gpu_end_ns - "
                      "k.gpu_start_ns, ak.api_start_ns, ak.kernel_id) - 1, k.gpu_end_ns - "
                      "k.gpu_start_ns, ak.api_start_ns FROM aggr_kernels ak JOIN kernels k ON "
                      "k.id = ak.kernel_id WHERE ak.aggr_id = 1 EXCEPT SELECT c.chunk * 128 + "
                      "j.key, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]') FROM "
                      "aggr_dl_kernel_dur_chunks c, json_each(c.launches) j WHERE c.aggr_id = 1)"),
            0);
  sqlite3_close(db);
  return 0;
}

static int test_kernel_groups(void) {
  ASSERT_EQ(kgroups_case("kgroups.sqlite", 0, 0), 0);
  ASSERT_EQ(kgroups_case("kgroups_thread.sqlite", 0, 1), 0); /* every group's sort on a thread */
  ASSERT_EQ(kgroups_case("kgroups_clamped.sqlite", 1, 0), 0);
  return 0;
}

static int test_fixture_no_key_op(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/fixture_nokey.sqlite", work_dir);
  ASSERT_OK(build_fixture(path, "missing_op", -1, -1, 0));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_iterations_all"), 1);
  ASSERT_EQ(q_int(db, "SELECT stop_time FROM view_iterations_all"), 1210);
  ASSERT_STR_EQ(q_text(db, "SELECT key_node FROM view_performance_summary"), "");
  ASSERT_STR_EQ(q_text(db, "SELECT problem FROM view_expert_systems WHERE problem LIKE "
                           "'Unable to split%'"),
                "Unable to split profile into training iterations: key op missing_op not found");
  sqlite3_close(db);
  /* an empty iteration range is refused, and nothing is written */
  ASSERT(build_fixture(path, "step", 2, 1, 0) == DL_EINVAL);
  return 0;
}

/* ---- PyTorch fixture: DLProf markers, emit_nvtx, backward pairing --------------- */

/* Thread 1 (forward), times in ns:
 *   S1 scope [100,500] > M1 conv2d marker [110,490] > aten::conv2d seq 7 [120,480]
 *        > aten::cudnn_convolution seq 7 [130,470]; calls: 140-150 -> K1 [200,260],
 *        160-170 -> memset [250,300] (overlaps K1), 180-190 -> K2 [400,420]
 *   S2 scope (same funcStack) [600,700] > M2 conv2d marker with other shapes [610,690]
 *   S3 scope [800,900] > M3 (same text as M1) [810,890]
 *   C  {"model_config": {...}} [950,960]; calls 970-980 and 990-995 (synchronize) outside
 * Thread 2 (autograd): B1 "ConvolutionBackward0, seq = 7" [1000,1100], call 1010-1020 -> K3
 *   [1030,1090]; B2 "MulBackward0, seq = 99" (no forward) [1200,1300]. */
static int build_pytorch_fixture(const char *path) {
  char err[256];
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  if (dldb_writer_create(path, &o, &w, err, sizeof err)) return -1;
  static const char *const scope =
      "{'traceMarker': ['net.py:42', 'conv.py:443'], 'funcStack': "
      "'/<module>/Net::forward/Conv2d::_call_impl(2)/conv2d'}";
  static const char *const m1 =
      "{'mod': 'torch.nn.functional', 'op': 'conv2d', 'args': [{'name': '', 'type': "
      "'tensor', 'shape': (8, 3, 32, 32), 'dtype': 'float32'}]}";
  static const char *const m2 =
      "{'mod': 'torch.nn.functional', 'op': 'conv2d', 'args': [{'name': '', 'type': "
      "'tensor', 'shape': (8, 6, 15, 15), 'dtype': 'float32'}]}";
  struct {
    const char *name;
    int64_t s, e, tid;
  } ranges[] = {
      {scope, 100, 500, 1},
      {m1, 110, 490, 1},
      {"aten::conv2d, seq = 7", 120, 480, 1},
      {"aten::cudnn_convolution, seq = 7", 130, 470, 1},
      {scope, 600, 700, 1},
      {m2, 610, 690, 1},
      {scope, 800, 900, 1},
      {m1, 810, 890, 1},
      {"{\"model_config\": {\"emit_nvtx\": true, \"cudnn_benchmark\": false}}", 950, 960, 1},
      {"ConvolutionBackward0, seq = 7", 1000, 1100, 2},
      {"MulBackward0, seq = 99", 1200, 1300, 2},
  };
  int rc = 0;
  dldb_gpu g = {.device_id = 0, .name = "GPU", .cc_major = 7, .sm_count = 40};
  rc |= dldb_write_gpu(w, &g, err, sizeof err);
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = ranges[i].name,
                         .start_ns = ranges[i].s, .end_ns = ranges[i].e, .pid = 1,
                         .tid = ranges[i].tid};
    rc |= dldb_write_nvtx_range(w, &r, NULL, err, sizeof err);
  }
  struct {
    const char *api;
    int64_t s, e, corr, tid;
  } calls[] = {
      {"cudaLaunchKernel_v7000", 140, 150, 1, 1},    {"cudaMemsetAsync_v3020", 160, 170, 2, 1},
      {"cudaLaunchKernel_v7000", 180, 190, 3, 1},    {"cudaDeviceSynchronize_v3020", 970, 980, 4, 1},
      {"cudaDeviceSynchronize_v3020", 990, 995, 5, 1}, {"cudaLaunchKernel_v7000", 1010, 1020, 6, 2},
  };
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    dldb_api_call a = {.name = calls[i].api, .start_ns = calls[i].s, .end_ns = calls[i].e,
                       .pid = 1, .tid = calls[i].tid, .correlation_id = calls[i].corr};
    rc |= dldb_write_api_call(w, &a, err, sizeof err);
  }
  struct {
    const char *name;
    int64_t s, e, corr;
  } kernels[] = {
      {"implicit_convolve_sgemm", 200, 260, 1},
      {"add_kernel", 400, 420, 3},
      {"dgrad_sgemm", 1030, 1090, 6},
  };
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    dldb_kernel k = {.short_name = kernels[i].name, .device_id = 0, .stream_id = 7,
                     .gpu_start_ns = kernels[i].s, .gpu_end_ns = kernels[i].e,
                     .correlation_id = kernels[i].corr, .pid = 1, .grid = {1, 1, 1},
                     .block = {1, 1, 1}};
    rc |= dldb_write_kernel(w, &k, err, sizeof err);
  }
  dldb_memset ms = {.bytes = 4096, .mem_kind = 2, .gpu_start_ns = 250, .gpu_end_ns = 300,
                    .correlation_id = 2, .pid = 1};
  rc |= dldb_write_memset(w, &ms, err, sizeof err);
  dla_opts ao;
  dla_opts_init(&ao);
  ao.aggr_start = "2024-01-01 00:00:00";
  ao.host_name = "host";
  ao.user_name = "user";
  if (rc == 0) rc = dla_aggregate(w, &ao, NULL, err, sizeof err);
  if (rc) {
    fprintf(stderr, "pytorch fixture: %s\n", err);
    dldb_writer_abort(&w);
    return rc;
  }
  return dldb_writer_commit(&w, err, sizeof err);
}

static int test_pytorch_nodes(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/fixture_pytorch.sqlite", work_dir);
  ASSERT_OK(build_pytorch_fixture(path));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  /* nodes: CONV2D_1 (M1, 2 calls), CONV2D_2 (M2: other shapes), the bprop of CONV2D_1,
   * MulBackward0 (unpaired), 2 unassociated synchronize calls; no aten:: node */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_nodes"), 6);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_nodes WHERE op_node_name LIKE '%aten%'"), 0);
  const char *name = "/module/Net::forward/Conv2d::_call_impl[2]/conv2d";
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_name FROM view_op_nodes WHERE op_node_id='CONV2D_1'"),
                name);
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_name FROM view_op_nodes WHERE op_node_id='CONV2D_2'"),
                name);
  ASSERT_STR_EQ(q_text(db, "SELECT stack_trace FROM view_op_nodes WHERE op_node_id='CONV2D_1'"),
                "net.py:42\nconv.py:443");
  ASSERT_STR_EQ(q_text(db, "SELECT data_type FROM view_op_nodes WHERE op_node_id='CONV2D_1'"),
                "float32");
  ASSERT_EQ(q_int(db, "SELECT num_calls FROM view_op_nodes WHERE op_node_id='CONV2D_1'"), 2);
  ASSERT_EQ(q_int(db, "SELECT kernel_calls FROM view_op_nodes WHERE op_node_id='CONV2D_1'"), 2);
  /* CPU time = the op markers (380 + 80); GPU time = union of K1, the memset, K2 = 100 + 20;
   * GPU idle = span 200..420 - 120; overhead = CPU time - API call time */
  ASSERT_EQ(q_int(db, "SELECT cpu_time FROM view_op_nodes WHERE op_node_id='CONV2D_1'"), 460);
  ASSERT_EQ(q_int(db, "SELECT gpu_time FROM view_op_nodes WHERE op_node_id='CONV2D_1'"), 120);
  ASSERT_EQ(q_int(db, "SELECT gpu_idle_sum FROM view_op_type_summary WHERE "
                      "op_node_type='conv2d'"),
            100);
  ASSERT_EQ(q_int(db, "SELECT cpu_overhead_sum FROM view_op_type_summary WHERE "
                      "op_node_type='conv2d'"),
            (460 - 30) + 80 + (100 - 10)); /* CONV2D_1, CONV2D_2, bprop */
  /* backward: paired by seq on the other thread, same name and type, bprop */
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_name FROM view_op_nodes WHERE direction='bprop' AND "
                           "op_node_type='conv2d'"),
                name);
  ASSERT_EQ(q_int(db, "SELECT gpu_time FROM view_op_nodes WHERE direction='bprop' AND "
                      "op_node_type='conv2d'"),
            60);
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_id FROM view_op_nodes WHERE direction='bprop' AND "
                           "op_node_type='conv2d'"),
                "CONV2D_3");
  ASSERT_STR_EQ(q_text(db, "SELECT direction FROM view_op_nodes WHERE "
                           "op_node_type='MulBackward0'"),
                "bprop");
  /* one unassociated op per call, numbered in time order, overhead 0 */
  ASSERT_EQ(q_int(db, "SELECT cpu_time FROM view_op_nodes WHERE "
                      "op_node_id='CUDADEVICESYNCHRONIZE_V3020_1'"),
            10);
  ASSERT_EQ(q_int(db, "SELECT cpu_time FROM view_op_nodes WHERE "
                      "op_node_id='CUDADEVICESYNCHRONIZE_V3020_2'"),
            5);
  ASSERT_EQ(q_int(db, "SELECT cpu_overhead_sum FROM view_op_type_summary WHERE "
                      "op_node_type='cudaDeviceSynchronize_v3020'"),
            0);
  /* every kernel goes to its node */
  ASSERT_STR_EQ(q_text(db, "SELECT op_node_id FROM view_iteration_op_kernels WHERE "
                           "kernel_name='add_kernel'"),
                "CONV2D_1");
  /* findings: the model_config says cudnn benchmark is off and there are convolutions */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings WHERE "
                      "rule_id='cudnn_benchmark_detector'"),
            1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings WHERE rule_id='emit_nvtx_detector'"),
            0);
  sqlite3_close(db);
  return 0;
}

/* ---- Rules ------------------------------------------------------------------- */

static const int64_t steady[] = {100, 101, 99, 100, 102, 100};
static const int64_t varied[] = {900, 400, 100, 101, 99, 100, 102, 100, 20};

static void facts_quiet(dla_facts *f) {
  memset(f, 0, sizeof *f);
  f->key_op = "step";
  f->key_op_found = 1;
  f->total_iterations = 6;
  f->iter_start = 0;
  f->iter_stop = 5;
  f->iter_durations = steady;
  f->n_iter_durations = 6;
  f->pct[0] = 60;
  f->pct[1] = 20;
  f->pct[5] = 15;
  f->pct[6] = 5;
  f->gpu_utilization = 80;
  f->n_gpus = 1;
  f->gpu_util[0] = 80;
  f->gpu_kernels[0] = 10;
  f->kernel_gpu_time = 1000;
  f->mode = "pytorch";
  f->n_ranges = 40;
  f->n_emit_ranges = 30;
  f->n_dali_ops = 1;
  f->model_emit_nvtx = -1;
  f->model_cudnn_benchmark = -1;
}

static const dla_finding *find(const dla_finding *fd, size_t n, const char *id) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(fd[i].rule_id, id) == 0) return &fd[i];
  return NULL;
}

static int test_rules(void) {
  dla_facts f;
  dla_finding fd[16];
  facts_quiet(&f);
  ASSERT_EQ(dla_rules_run(&f, fd, 16), 0); /* nothing fires on a healthy run */
  static const char *const ids[] = {
      "amp_detector", "cudnn_benchmark_detector", "batch_size_detector",
      "underutilized_gpu_detector", "imbalanced_gpus_detector", "dataloader_detector",
      "bad_iteration_range_detector", "no_iterations_detector", "emit_nvtx_detector",
      "nsys_cuda_memcpy_sync", "nsys_cuda_memset_sync", "nsys_cuda_memcpy_async",
      "nsys_cuda_api_sync", "nsys_gpu_gaps", "nsys_gpu_time_util"};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) { /* in this order */
    size_t j = 0;
    while (j < dla_rules_count() && strcmp(dla_rules_id(j), ids[i])) j++;
    ASSERT(j < dla_rules_count());
    ASSERT(i == 0 || strcmp(dla_rules_id(j - 1), ids[i - 1]) == 0);
  }
  f.nsys_rules = 1; /* Nsight Systems' rules: quiet on a healthy run too */
  ASSERT_EQ(dla_rules_run(&f, fd, 16), 0);

  /* a cut-off last step, left out of the aggregation: said with its figures */
  facts_quiet(&f);
  f.total_iterations = 8;
  f.iter_start = 0;
  f.iter_stop = 6;
  f.cut_last_step = 1;
  f.cut_step_ns = 86083;
  f.step_median_ns = 9288291;
  f.cut_step_name = "ProfilerStep#9";
  ASSERT_EQ(dla_rules_run(&f, fd, 16), 1);
  ASSERT_STR_EQ(fd[0].rule_id, "cut_last_step_detector");
  ASSERT_STR_EQ(fd[0].problem, "The last iteration (7, ProfilerStep#9) was cut short by the end of "
                               "profiling: it lasts 0.086 ms and runs no GPU work, against a median "
                               "of 9.288 ms for the others (rule: under 10% of the median)");
  ASSERT_STR_EQ(fd[0].recommendation, "It is left out of the aggregation (iterations 0 to 6). To "
                                      "aggregate it too, rerun with the --database option and "
                                      "--iter_stop=7");
  f.cut_step_name = NULL; /* no name: the number alone */
  ASSERT_EQ(dla_rules_run(&f, fd, 16), 1);
  ASSERT(strncmp(fd[0].problem, "The last iteration (7) was cut short", 36) == 0);

  facts_quiet(&f);
  f.key_op_found = 0;
  f.key_op = "";
  size_t n = dla_rules_run(&f, fd, 16);
  ASSERT_NOT_NULL(find(fd, n, "no_iterations_detector"));
  ASSERT_STR_EQ(find(fd, n, "no_iterations_detector")->problem,
                "Unable to split profile into training iterations: no key op was set, so the "
                "whole profile is one iteration");

  facts_quiet(&f);
  f.iter_durations = varied;
  f.n_iter_durations = 9;
  f.iter_stop = 8;
  n = dla_rules_run(&f, fd, 16);
  const dla_finding *r = find(fd, n, "bad_iteration_range_detector");
  ASSERT_NOT_NULL(r);
  ASSERT_STR_EQ(r->js_function, "ShowBadIterationRange");
  ASSERT_STR_EQ(r->js_args, "{\"ideal_start\":2,\"ideal_stop\":7}");
  ASSERT_CONTAINS(r->recommendation, "--iter_start=2 --iter_stop=7");
  ASSERT_CONTAINS(r->problem, "range of 0 to 8");

  facts_quiet(&f);
  f.bad_data_type_ops = 5;
  f.bad_data_type_gpu_time = 620;
  n = dla_rules_run(&f, fd, 16);
  r = find(fd, n, "amp_detector");
  ASSERT_NOT_NULL(r);
  ASSERT_STR_EQ(r->problem, "5 ops were eligible to use tensor cores but none are using FP16");
  ASSERT_STR_EQ(r->js_function, "ShowBadDataTypeOps");
  ASSERT_CONTAINS(r->recommendation, "Try enabling AMP");

  facts_quiet(&f);
  f.gpu_utilization = 0.04;
  f.gpu_util[0] = 0.04;
  f.pct[0] = 0;
  f.pct[1] = 0.04;
  f.pct[5] = 78.86;
  f.pct[6] = 21.1;
  n = dla_rules_run(&f, fd, 16);
  r = find(fd, n, "underutilized_gpu_detector");
  ASSERT_NOT_NULL(r);
  ASSERT_STR_EQ(r->problem,
                "The GPU is underutilized: Only 0.0% of the profiled time is spent on GPU kernel "
                "operations");
  ASSERT_STR_EQ(r->recommendation, "CPU has the highest (non-GPU) usage at 78.9%. Consider "
                                   "swapping ops that are running on the CPU for equivalent GPU ops");
  f.gpu_utilization = DLA_UNDERUTILIZED_GPU_PCT; /* at the threshold: quiet */
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "underutilized_gpu_detector"));
  f.gpu_utilization = 0.04;
  f.pct[3] = 87.3;
  f.pct[5] = 1;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_CONTAINS(find(fd, n, "underutilized_gpu_detector")->recommendation,
                  "Dataloader has the highest (non-GPU) usage at 87.3%");
  ASSERT_NOT_NULL(find(fd, n, "dataloader_detector"));
  ASSERT_CONTAINS(find(fd, n, "dataloader_detector")->problem, "87.3% of the aggregated run");

  facts_quiet(&f);
  f.n_gpus = 2;
  f.gpu_ids[1] = 1;
  f.gpu_kernels[1] = 0;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_NOT_NULL(find(fd, n, "underutilized_gpu_detector"));
  ASSERT_STR_EQ(find(fd, n, "underutilized_gpu_detector")->problem,
                "The following GPU device IDs are not being used: 1");
  ASSERT_NULL(find(fd, n, "imbalanced_gpus_detector")); /* the unused one is not imbalanced */

  /* several GPUs: the utilization is their mean (idle ones included), and
   * the sentence says so (cloverleaf: 4 A100s, one busy) */
  facts_quiet(&f);
  f.n_gpus = 4;
  f.gpu_util[0] = 33.3;
  for (int g = 1; g < 4; g++) {
    f.gpu_ids[g] = g;
    f.gpu_util[g] = 0;
    f.gpu_kernels[g] = 0;
  }
  f.gpu_utilization = 8.325;
  f.pct[1] = 33.4;
  f.pct[6] = 65.6;
  f.gpu_activity = 1312;
  f.n_cpu_ranges = 10;
  n = dla_rules_run(&f, fd, 16);
  r = find(fd, n, "underutilized_gpu_detector");
  ASSERT_NOT_NULL(r);
  ASSERT_STR_EQ(r->problem,
                "The GPUs are underutilized: Only 8.3% of the profiled time, averaged over the 4 "
                "GPUs, is spent on GPU kernel operations (the busiest, GPU 0: 33.3%)");
  ASSERT_STR_EQ(r[1].problem, "The following GPU device IDs are not being used: 1, 2, 3");

  /* no GPU activity at all (a CPU-only Kineto trace whose deviceProperties
   * lists 8 GPUs): "No GPU activity" alone, not 0.0 % and 8 unused devices */
  facts_quiet(&f);
  f.n_gpus = 8;
  for (int g = 0; g < 8; g++) {
    f.gpu_ids[g] = g;
    f.gpu_util[g] = 0;
    f.gpu_kernels[g] = 0;
  }
  f.gpu_utilization = 0;
  f.pct[0] = f.pct[1] = 0;
  f.pct[5] = 99.9;
  f.pct[6] = 0.1;
  f.gpu_activity = 0;
  f.n_cpu_ranges = 2467;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_NOT_NULL(find(fd, n, "no_gpu_activity_detector"));
  ASSERT_NULL(find(fd, n, "underutilized_gpu_detector"));
  f.gpu_activity = 1; /* one kernel somewhere: the GPU rules speak again */
  n = dla_rules_run(&f, fd, 16);
  ASSERT_NULL(find(fd, n, "no_gpu_activity_detector"));
  ASSERT_NOT_NULL(find(fd, n, "underutilized_gpu_detector"));
  ASSERT_STR_EQ(find(fd, n, "underutilized_gpu_detector")[1].problem,
                "The following GPU device IDs are not being used: 0, 1, 2, 3, 4, 5, 6, 7");

  facts_quiet(&f);
  f.pct[3] = 9.9; /* just below the dataloader threshold */
  n = dla_rules_run(&f, fd, 16);
  ASSERT_NULL(find(fd, n, "dataloader_detector"));
  f.n_dali_ops = 0; /* DLProf: "No DALI ops detected" */
  n = dla_rules_run(&f, fd, 16);
  ASSERT_STR_EQ(find(fd, n, "dataloader_detector")->problem, "No DALI ops detected");
  f.mode = "simple";
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "dataloader_detector"));
  /* DALI runs on NVIDIA GPUs only: not advised where every GPU is AMD's */
  f.mode = NULL;
  f.amd_gpus = 1;
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "dataloader_detector"));
  f.pct[3] = 87.3;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_CONTAINS(find(fd, n, "dataloader_detector")->problem, "87.3% of the aggregated run");
  ASSERT(strstr(find(fd, n, "dataloader_detector")->recommendation, "DALI") == NULL);
  ASSERT_CONTAINS(find(fd, n, "dataloader_detector")->recommendation, "num_workers");

  /* cuDNN benchmark: only with evidence (model_config says off) and convolutions */
  facts_quiet(&f);
  f.n_conv_ops = 2;
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "cudnn_benchmark_detector"));
  f.model_cudnn_benchmark = 0;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_CONTAINS(find(fd, n, "cudnn_benchmark_detector")->problem,
                  "torch.backends.cudnn.benchmark was not enabled");
  f.n_conv_ops = 0;
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "cudnn_benchmark_detector"));

  /* batch size: where memory is known */
  facts_quiet(&f);
  f.gpu_mem_total = 8589934592LL;
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "batch_size_detector")); /* used unknown */
  f.gpu_mem_used = 2026635264LL;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_STR_EQ(find(fd, n, "batch_size_detector")->problem,
                "GPU Memory is underutilized: Only 23% of GPU Memory is used");
  ASSERT_STR_EQ(find(fd, n, "batch_size_detector")->recommendation,
                "Try increasing batch size by 4x to increase data throughput");
  f.gpu_mem_used = 6000000000LL;
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "batch_size_detector"));

  /* imbalanced GPUs */
  facts_quiet(&f);
  f.n_gpus = 2;
  f.gpu_ids[1] = 1;
  f.gpu_util[1] = 70; /* 80 vs 70: 12.5 % less, quiet */
  f.gpu_kernels[1] = 10;
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "imbalanced_gpus_detector"));
  f.gpu_util[1] = 40;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_CONTAINS(find(fd, n, "imbalanced_gpus_detector")->problem,
                  "GPU 0 runs kernels 80.0% of the time but GPU 1 only 40.0% (50% less");

  /* emit_nvtx missing (pytorch mode) */
  facts_quiet(&f);
  f.n_emit_ranges = 0;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_CONTAINS(find(fd, n, "emit_nvtx_detector")->problem, "0 of 40 NVTX ranges");
  f.mode = "simple";
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "emit_nvtx_detector"));

  /* bad iteration range: quiet on steady iterations */
  facts_quiet(&f);
  ASSERT_NULL(find(fd, dla_rules_run(&f, fd, 16), "bad_iteration_range_detector"));

  /* Nsight Systems' rules: only when asked, each with what it measured */
  facts_quiet(&f);
  f.sync_memcpy_n = 3;
  f.sync_memcpy_bytes = 3 << 20;
  f.sync_memcpy_ns = 1500000;
  f.sync_memset_n = 1;
  f.sync_memset_ns = 2000;
  f.pageable_memcpy_n = 11;
  f.pageable_memcpy_bytes = 640088;
  f.sync_calls_n = 13;
  f.sync_calls_ns = 161000;
  f.gpu_gaps_n = 2;
  f.gpu_gap_max_ns = 2239000000LL;
  f.low_util_chunks = 30;
  f.low_util_regions = 1;
  ASSERT_EQ(dla_rules_run(&f, fd, 16), 0); /* nsys_rules off */
  f.nsys_rules = 1;
  n = dla_rules_run(&f, fd, 16);
  ASSERT_EQ(n, 6);
  ASSERT_CONTAINS(find(fd, n, "nsys_cuda_memcpy_sync")->problem,
                  "3 synchronous memcpy calls moved 3145728 bytes in 1.500 ms");
  ASSERT_STR_EQ(find(fd, n, "nsys_cuda_memcpy_sync")->recommendation,
                "Use cudaMemcpy*Async() APIs instead.");
  ASSERT_CONTAINS(find(fd, n, "nsys_cuda_memset_sync")->problem, "1 synchronous memset");
  ASSERT_CONTAINS(find(fd, n, "nsys_cuda_memcpy_async")->problem, "11 asynchronous memcpy");
  ASSERT_CONTAINS(find(fd, n, "nsys_cuda_api_sync")->problem, "13 device or stream");
  ASSERT_CONTAINS(find(fd, n, "nsys_gpu_gaps")->problem, "idle 2 times for 500 ms or more");
  ASSERT_CONTAINS(find(fd, n, "nsys_gpu_time_util")->problem, "30 of 30 time chunks");
  return 0;
}

/* ---- DLProf's op shapes (iteration report) ------------------------------------ */

/* 0 when marker's shapes are (in, params, out); NULL expects NULL. */
static int shapes_are(const char *marker, const char *in, const char *params, const char *out) {
  dla_dlprof_op m;
  char *i = NULL, *p = NULL, *o = NULL;
  int bad = dla_dlprof_op_parse(marker, &m) != 0 || dla_dlprof_shapes(&m, &i, &p, &o) != 0;
  const char *want[3] = {in, params, out}, *got[3] = {i, p, o};
  for (int k = 0; k < 3 && !bad; k++) {
    bad = want[k] ? !got[k] || strcmp(want[k], got[k]) != 0 : got[k] != NULL;
    if (bad)
      fprintf(stderr, "  %s: cell %d is %s, want %s\n", marker, k, got[k] ? got[k] : "NULL",
              want[k] ? want[k] : "NULL");
  }
  free(i);
  free(p);
  free(o);
  return bad;
}

static int test_dlprof_shapes(void) {
  /* w_Relu's markers and the cells DLProf 1.8 printed for them */
  ASSERT_OK(shapes_are(
      "{'mod': 'torch.nn.functional', 'op': 'conv2d', 'args': [{'name': '', 'type': 'tensor', "
      "'shape': (32, 3, 32, 32), 'dtype': 'float32'}, {'name': '', 'type': 'tensor', 'shape': "
      "(6, 3, 3, 3), 'dtype': 'float32'}, {'name': '', 'type': 'tensor', 'shape': (6,), "
      "'dtype': 'float32'}]}",
      "<N:32, C:3, H:32, W:32>; <K:6, C:3, R:3, S:3>; <6>", "", "<N:32, K:6, P:30, Q:30>"));
  ASSERT_OK(shapes_are(
      "{'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': '', 'type': 'tensor', "
      "'shape': (32, 400), 'dtype': 'float32'}, {'name': '', 'type': 'tensor', 'shape': (120, "
      "400), 'dtype': 'float32'}, {'name': '', 'type': 'tensor', 'shape': (120,), 'dtype': "
      "'float32'}]}",
      "<N:32, K:400>; <M:120, K:400>; <120>", "", "<N:32, M:120>"));
  ASSERT_OK(shapes_are("{'mod': 'torch.nn.functional', 'op': 'relu', 'args': [{'name': '', "
                       "'type': 'tensor', 'shape': (32, 6, 30, 30), 'dtype': 'float32'}]}",
                       "<32, 6, 30, 30>", "", ""));
  ASSERT_OK(shapes_are("{'mod': 'torch', 'op': 'randn', 'args': []}", "", "", ""));
  /* a layout that does not fit the dimensions: plain; a 3-D linear input */
  ASSERT_OK(shapes_are("{'op': 'linear', 'args': [{'type': 'tensor', 'shape': (4, 8, 16)}, "
                       "{'type': 'tensor', 'shape': (32, 16)}]}",
                       "<4, 8, 16>; <M:32, K:16>", "", "<4, 8, 32>"));
  /* non-tensor args: parameters and a conv2d output are not known */
  ASSERT_OK(shapes_are("{'op': 'conv2d', 'args': [{'type': 'tensor', 'shape': (1, 3, 8, 8)}, "
                       "{'type': 'tensor', 'shape': (4, 3, 3, 3)}, {'name': 'stride', 'type': "
                       "'int', 'value': 2}]}",
                       "<N:1, C:3, H:8, W:8>; <K:4, C:3, R:3, S:3>", NULL, NULL));
  ASSERT_OK(shapes_are("{'op': 'add', 'args': [{'type': 'tensor', 'shape': ()}, 'junk']}", "<>",
                       NULL, ""));
  return 0;
}


/* ---- The in-place sort of big arrays ----------------------------------------- */

typedef struct sort_ev {
  int64_t t;
  int64_t id;
} sort_ev;

static long sort_cmps;

static int cmp_sort_ev(const void *x, const void *y) {
  const sort_ev *a = x, *b = y;
  sort_cmps++;
  return (a->t > b->t) - (a->t < b->t);
}

/* Arrays past qsort's copy limit (64 MB) are sorted in place. The
 * analysis's usual input, events in time order followed by a block of
 * others in time order (memory operations after the kernels), stays under
 * 40 comparisons an element; a median of the first, middle and last
 * elements went past that (its lopsided splits sent much of the array to
 * the heapsort; bench/sort_events.sh). A shuffled block at the end, and a
 * reversed array, are sorted too, each element once. */
/* dl_pipe: batches reach the consumer whole and in order, however many
 * slots (0: no thread); a consumer's error stops the producer and is the
 * one returned; a producer's error is returned after its batches. */
typedef struct pipe_case {
  int batches, fail_at, prod_rc, seen, bad;
} pipe_case;

static int pipe_prod(void *ctx, dl_pipe *p) {
  pipe_case *t = ctx;
  for (int i = 0; i < t->batches; i++) {
    int *b = dl_pipe_claim(p);
    if (!b) return DL_EIO;
    for (int j = 0; j < 100; j++) b[j] = i * 100 + j;
    int rc = dl_pipe_publish(p, (size_t)(i % 100) + 1);
    if (rc) return rc;
  }
  return t->prod_rc;
}

static int pipe_cons(void *ctx, void *batch, size_t n) {
  pipe_case *t = ctx;
  const int *b = batch;
  for (int j = 0; j < 100; j++) t->bad += b[j] != t->seen * 100 + j;
  t->bad += n != (size_t)(t->seen % 100) + 1;
  t->seen++;
  return t->seen == t->fail_at ? DL_EDB : DL_OK;
}

static int test_pipe(void) {
  const int slots[] = {0, 1, 4};
  for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
    pipe_case ok = {.batches = 3000};
    ASSERT_EQ(dl_pipe_run(100 * sizeof(int), slots[i], pipe_prod, &ok, pipe_cons, &ok), DL_OK);
    ASSERT_EQ(ok.seen, 3000);
    ASSERT_EQ(ok.bad, 0);
    pipe_case fail = {.batches = 3000, .fail_at = 10};
    ASSERT_EQ(dl_pipe_run(100 * sizeof(int), slots[i], pipe_prod, &fail, pipe_cons, &fail),
              DL_EDB);
    ASSERT_EQ(fail.seen, 10);
    ASSERT_EQ(fail.bad, 0);
    pipe_case perr = {.batches = 50, .prod_rc = DL_ENOMEM};
    ASSERT_EQ(dl_pipe_run(100 * sizeof(int), slots[i], pipe_prod, &perr, pipe_cons, &perr),
              DL_ENOMEM);
    ASSERT_EQ(perr.seen, 50);
    ASSERT_EQ(perr.bad, 0);
  }
  return 0;
}

static int test_sort_big(void) {
  enum { N = 4500000, TAIL = 20000 }; /* 72 MB */
  sort_ev *v = malloc(N * sizeof *v);
  ASSERT(v);
  for (int pattern = 0; pattern < 3; pattern++) {
    uint64_t x = 88172645463325252ull; /* xorshift: the same data every run */
    int64_t sum = 0;
    for (int64_t i = 0; i < N; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      if (pattern == 2) v[i].t = N - i;
      else if (i < N - TAIL) v[i].t = 10 * i + (int64_t)(x % 7);
      else if (pattern == 0) v[i].t = 10 * (N - TAIL) / TAIL * (i - (N - TAIL)); /* in order */
      else v[i].t = (int64_t)(x % (10 * (uint64_t)N));                            /* shuffled */
      v[i].id = i;
      sum += i;
    }
    sort_cmps = 0;
    dla__sort(v, N, sizeof *v, cmp_sort_ev);
    if (pattern == 0) ASSERT(sort_cmps < 40L * N);
    for (int64_t i = 1; i < N; i++) ASSERT(v[i - 1].t <= v[i].t);
    for (int64_t i = 0; i < N; i++) sum -= v[i].id; /* each element once */
    ASSERT_EQ(sum, 0);
  }
  free(v);
  return 0;
}

static int cmp_key(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* The sweep's in-place radix sort of its events against qsort: random keys
 * of every width (one byte to 62 bits: each level of the radix), sorted
 * runs with a late block, many equal keys, short arrays (insertion). */
static int test_sort_keys(void) {
  enum { N = 300000 };
  int64_t *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w);
  ASSERT(v && w);
  uint64_t x = 2463534242ull;
  size_t sizes[] = {0, 1, 2, 63, 64, 65, 1000, N};
  for (int pattern = 0; pattern < 5; pattern++)
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      size_t n = sizes[si];
      int bits = pattern == 0 ? 8 : pattern == 1 ? 33 : 62;
      for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t r = (int64_t)(x >> (64 - bits));
        if (pattern == 3) r = i < n - n / 10 ? (int64_t)i << 4 : (int64_t)(x >> 40); /* late block */
        if (pattern == 4) r = (int64_t)(x % 5) << 40;                                 /* equal keys */
        v[i] = w[i] = r;
      }
      dla__sort_keys(v, n);
      qsort(w, n, sizeof *w, cmp_key);
      ASSERT(n == 0 || memcmp(v, w, n * sizeof *v) == 0);
    }
  free(v);
  free(w);
  return 0;
}

/* ---- Streamed call attribution against the sort-and-sweep it replaced ------- */

static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;
/* Ranges written in time order with two threads interleaved, one thread's
 * ranges out of start order (an inner range before the range around it, as
 * exports ordered by end time have them), plus `extra` threads of one range
 * each: every kernel still goes to the innermost range of its launching
 * call. */
static int range_order_case(int extra) {
  char path[1024], err[256];
  snprintf(path, sizeof path, "%s/range_order_%d.sqlite", work_dir, extra);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  struct {
    const char *name;
    int64_t s, e, tid;
  } ranges[] = {
      {"t1_outer", 100, 500, 1}, {"t2_inner", 250, 350, 2},
      {"t1_inner", 200, 300, 1}, {"t2_outer", 240, 600, 2},
  };
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = ranges[i].name,
                         .start_ns = ranges[i].s, .end_ns = ranges[i].e, .pid = 1,
                         .tid = ranges[i].tid};
    ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
  }
  for (int i = 0; i < extra; i++) {
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = "x", .start_ns = 1000 - i % 7,
                         .end_ns = 1010, .pid = 1, .tid = 100 + i};
    ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
  }
  struct {
    int64_t t, tid;
    const char *kernel;
  } calls[] = {{210, 1, "k_t1_inner"}, {260, 2, "k_t2_inner"}, {400, 2, "k_t2_outer"},
               {450, 1, "k_t1_outer"}};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    int64_t corr = (int64_t)i + 1;
    dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = calls[i].t,
                       .end_ns = calls[i].t + 5, .pid = 1, .tid = calls[i].tid,
                       .correlation_id = corr};
    ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
    dldb_kernel k = {.short_name = calls[i].kernel, .gpu_start_ns = calls[i].t + 10,
                     .gpu_end_ns = calls[i].t + 20, .correlation_id = corr, .pid = 1,
                     .grid = {1, 1, 1}, .block = {1, 1, 1}};
    ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
  }
  dla_opts ao;
  dla_opts_init(&ao);
  ao.aggr_start = "2024-01-01 00:00:00";
  if (dla_aggregate(w, &ao, NULL, err, sizeof err)) {
    fprintf(stderr, "range order: %s\n", err);
    dldb_writer_abort(&w);
    return 1;
  }
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  static const char *const expect[][2] = {{"k_t1_inner", "t1_inner"},
                                          {"k_t2_inner", "t2_inner"},
                                          {"k_t2_outer", "t2_outer"},
                                          {"k_t1_outer", "t1_outer"}};
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT op_node_name FROM view_iteration_kernels WHERE aggr_id = 1 AND "
             "kernel_name = '%s'",
             expect[i][0]);
    ASSERT_STR_EQ(q_text(db, sql), expect[i][1]);
  }
  sqlite3_close(db);
  return 0;
}

static int test_range_order(void) {
  ASSERT_OK(range_order_case(0));
  ASSERT_OK(range_order_case(5000));
  return 0;
}

static uint64_t rnd(uint64_t n) {
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 7;
  rnd_state ^= rnd_state << 17;
  return rnd_state % n;
}

/* By (thread rank, start, end descending, name id): the analysis's order,
 * ties broken by the name so that two sorts of the same ranges compare. */
static const dla_ctx *rs_ctx;
static int cmp_rs(const void *x, const void *y) {
  const dla_range *a = x, *b = y;
  int k = dla__range_cmp_key(rs_ctx, a, dla__range_tk(rs_ctx, b), b->start, b->end);
  return k ? k : (a->name_id > b->name_id) - (a->name_id < b->name_id);
}

/* dla__ranges_sort on ranges of five threads in id order (each thread's
 * ranges mostly in time order, some out of it), the largest thread first,
 * in the middle, last or none larger, in runs or one by one: the same
 * ranges as a qsort of them, in its order (equal keys in either order). */
static int test_range_sort(void) {
  enum { NTHR = 5, N = 6000 };
  static const int weight[][NTHR] = {{90, 1, 2, 3, 4}, {1, 2, 90, 3, 4}, {5, 1, 2, 3, 90},
                                     {1, 1, 1, 1, 1}, {0, 0, 90, 0, 0}, {40, 0, 0, 0, 40}};
  dla_thread thr[NTHR];
  for (int t = 0; t < NTHR; t++) thr[t] = (dla_thread){.pid = 1, .tid = 10 + t, .tk = (uint32_t)t};
  dla_range *v = malloc(N * sizeof *v), *ref = malloc(N * sizeof *ref);
  ASSERT_NOT_NULL(v);
  ASSERT_NOT_NULL(ref);
  for (size_t wi = 0; wi < sizeof weight / sizeof weight[0]; wi++)
    for (int runs = 0; runs < 2; runs++) {
      int total = 0, t = 0, left = 0;
      for (int k = 0; k < NTHR; k++) total += weight[wi][k];
      int64_t clock[NTHR] = {0};
      for (size_t i = 0; i < N; i++) {
        if (!runs || left-- <= 0) { /* a thread by weight, for a run of ranges or one */
          int x = (int)rnd((uint64_t)total);
          for (t = 0; x >= weight[wi][t]; t++) x -= weight[wi][t];
          left = runs ? (int)rnd(50) : 0;
        }
        clock[t] += (int64_t)rnd(100);
        int64_t start = rnd(20) ? clock[t] : clock[t] - (int64_t)rnd(300); /* out of order */
        memset(&v[i], 0, sizeof v[i]);
        v[i].start = start;
        v[i].end = start + (int64_t)rnd(4) * 50;
        v[i].name_id = (int32_t)i;
        dla__range_set_th(&v[i], (uint32_t)t);
      }
      dla_ctx c;
      memset(&c, 0, sizeof c);
      c.thr = thr;
      c.nthr = c.ntk = NTHR;
      c.r = v;
      c.nr = N;
      memcpy(ref, v, N * sizeof *v);
      rs_ctx = &c;
      qsort(ref, N, sizeof *ref, cmp_rs);
      ASSERT_OK(dla__ranges_sort(&c));
      for (size_t i = 1; i < N; i++) /* the analysis's order */
        ASSERT(dla__range_cmp_key(&c, &v[i - 1], dla__range_tk(&c, &v[i]), v[i].start,
                                  v[i].end) <= 0);
      qsort(v, N, sizeof *v, cmp_rs); /* the same ranges */
      ASSERT(memcmp(v, ref, N * sizeof *v) == 0);
    }
  free(v);
  free(ref);
  return 0;
}

typedef struct tcall {
  int64_t tid, start, id;
} tcall;

/* The threads of the ranges being sorted (cmp_tr reads their ids). */
static const dla_thread *tr_threads;

static int cmp_tr(const void *x, const void *y) {
  const dla_range *a = x, *b = y;
  int64_t ta = tr_threads[dla__range_th(a)].tid, tb = tr_threads[dla__range_th(b)].tid;
  if (ta != tb) return ta < tb ? -1 : 1;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->end != b->end) return a->end > b->end ? -1 : 1;
  return 0;
}

static int cmp_tcall(const void *x, const void *y) {
  const tcall *a = x, *b = y;
  if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

typedef struct tload {
  dla_ctx *c;
  tcall *calls;
  size_t n;
} tload;

/* The index of thread (pid, tid) in c->thr, added at the end when new
 * (tsort_threads puts c->thr in the analysis's order). */
static uint32_t tthread(dla_ctx *c, int64_t pid, int64_t tid) {
  for (size_t i = 0; i < c->nthr; i++)
    if (c->thr[i].pid == pid && c->thr[i].tid == tid) return (uint32_t)i;
  c->thr[c->nthr] = (dla_thread){.pid = pid, .tid = tid};
  return (uint32_t)c->nthr++;
}

static int cmp_tthread(const void *x, const void *y) {
  const dla_thread *a = x, *b = y;
  if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
  return (a->pid > b->pid) - (a->pid < b->pid);
}

/* c->thr in (tid, pid) order with the ranks of their thread ids, as the
 * analysis's loader leaves them; the ranges renumbered. */
static void tsort_threads(dla_ctx *c) {
  dla_thread old[16];
  memcpy(old, c->thr, c->nthr * sizeof *old);
  qsort(c->thr, c->nthr, sizeof *c->thr, cmp_tthread);
  c->ntk = 0;
  for (size_t i = 0; i < c->nthr; i++) {
    if (i && c->thr[i].tid != c->thr[i - 1].tid) c->ntk++;
    c->thr[i].tk = c->ntk;
  }
  c->ntk++;
  for (size_t i = 0; i < c->nr; i++) {
    uint32_t th = dla__range_th(&c->r[i]);
    dla__range_set_th(&c->r[i], (uint32_t)dla__thread_of(c, old[th].pid, old[th].tid));
  }
}

static int tload_range(void *ctx, const dldb_scan_range *s) {
  dla_ctx *c = ctx;
  dla_range *r = &c->r[c->nr];
  memset(r, 0, sizeof *r);
  r->start = s->start_ns;
  r->end = s->end_ns;
  dla__range_set_th(r, tthread(c, s->pid, s->tid));
  r->name_id = (int32_t)s->name_id;
  r->op = -1;
  c->nr++;
  return 0;
}

static int tload_call(void *ctx, const dldb_scan_api *s) {
  tload *l = ctx;
  l->calls[l->n++] = (tcall){s->tid, s->start_ns, s->id};
  return 0;
}

/* Random nested, overlapping, touching and empty ranges on three threads
 * (thread 1 in two processes), calls on four threads in random order with
 * shuffled correlation ids: dla__load_calls must give every call the range
 * the old sweep (calls sorted by thread and start, a stack of open ranges)
 * gave, and index every (pid, correlation id). */
static int test_call_attribution(void) {
  char path[1024], err[512];
  snprintf(path, sizeof path, "%s/calls.dldb", work_dir);
  unlink(path);
  dldb_writer *w = NULL;
  ASSERT_OK(dldb_writer_create(path, NULL, &w, err, sizeof err));
  enum { NR_MAX = 12000, NCALLS = 5000 };
  size_t nranges = 0;
  for (int th = 0; th < 4; th++) { /* th 3: thread 1 of the second process */
    int64_t tid = th == 3 ? 1 : th + 1, pid = th == 3 ? 200 : 100, t = 0;
    int64_t open[64];
    int sp = 0;
    for (int step = 0; step < 3000 && nranges < NR_MAX; step++) {
      int64_t a = 0, b = 0;
      uint64_t act = rnd(10);
      if (act < 4 && sp < 64) {
        open[sp++] = t; /* push */
        if (rnd(4)) t += (int64_t)rnd(5);
        continue;
      }
      if (act < 8 && sp) {
        a = open[--sp]; /* pop: nested */
        b = t;
      } else {
        a = t - (int64_t)rnd(30); /* a range overlapping its neighbours */
        b = a + (int64_t)rnd(40);
        if (a < 0) a = 0;
      }
      t += (int64_t)rnd(4);
      dldb_nvtx_range r = {.kind = rnd(2) ? DLDB_NVTX_PUSHPOP : DLDB_NVTX_STARTEND,
                           .name = rnd(2) ? "a" : "b", .start_ns = a, .end_ns = b,
                           .pid = pid, .tid = tid};
      ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
      nranges++;
    }
  }
  int64_t *corr = malloc(NCALLS * sizeof *corr);
  ASSERT_NOT_NULL(corr);
  for (int i = 0; i < NCALLS; i++) corr[i] = i / 2 + 1; /* two processes: ids 1..N/2 each */
  for (int i = NCALLS - 1; i > 0; i--) { /* shuffled */
    int j = (int)rnd((uint64_t)i + 1);
    int64_t x = corr[i];
    corr[i] = corr[j];
    corr[j] = x;
  }
  int seen[2][NCALLS / 2 + 2];
  memset(seen, 0, sizeof seen);
  int64_t pid_of[NCALLS];
  for (int i = 0; i < NCALLS; i++) {
    int p = seen[0][corr[i]] ? 1 : 0; /* the first with an id goes to process 100 */
    seen[p][corr[i]] = 1;
    pid_of[i] = p ? 200 : 100;
    int64_t tid = (int64_t)rnd(4) + 1, t = (int64_t)rnd(4000);
    dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = t, .end_ns = t + (int64_t)rnd(3),
                       .pid = pid_of[i], .tid = tid, .correlation_id = corr[i]};
    ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
  }

  dla_opts o;
  dla_opts_init(&o);
  dla_ctx c;
  memset(&c, 0, sizeof c);
  c.w = w;
  c.o = &o;
  c.err = err;
  c.errlen = sizeof err;
  dl_smap_init(&c.op_by_path);
  ASSERT_OK(dldb_scan_domain(w, "default-domain", &c.domain_id, err, sizeof err));
  c.r = malloc((nranges + 1) * sizeof *c.r);
  ASSERT_NOT_NULL(c.r);
  dla_thread thr[16];
  c.thr = thr;
  ASSERT_OK(dldb_scan_ranges(w, c.domain_id, tload_range, &c, err, sizeof err));
  ASSERT_EQ(c.nr, nranges);
  ASSERT_EQ(c.nthr, 4);
  tsort_threads(&c);
  tr_threads = c.thr;
  qsort(c.r, c.nr, sizeof *c.r, cmp_tr);
  /* the calls load before the op nodes are built (beside it): which
   * ranges are instances is known only to dla__calls_ops */
  for (size_t i = 0; i < c.nr; i++) c.r[i].inst = -1;
  dla_corr *x = NULL;
  dla_calls_pending *pend = NULL;
  ASSERT_OK(dla__load_calls(&c, &x, &pend));
  ASSERT_EQ(c.na, NCALLS);
  for (size_t i = 0; i < c.nr; i++) c.r[i].inst = rnd(3) ? (int32_t)i : -1;
  ASSERT_OK(dla__calls_ops(&c, &pend));
  ASSERT_NULL(pend);

  /* the reference: the old sweep over calls sorted by (thread, start) */
  tload l = {.c = &c, .calls = malloc(NCALLS * sizeof *l.calls)};
  int32_t *stack = malloc((c.nr + 1) * sizeof *stack);
  ASSERT_NOT_NULL(l.calls);
  ASSERT_NOT_NULL(stack);
  ASSERT_OK(dldb_scan_api_calls(w, tload_call, &l, err, sizeof err));
  qsort(l.calls, l.n, sizeof *l.calls, cmp_tcall);
  size_t ri = 0, ai = 0, bad = 0, unassoc = 0;
  while (ai < l.n) {
    int64_t tid = l.calls[ai].tid;
    size_t sp = 0;
    while (ri < c.nr && thr[dla__range_th(&c.r[ri])].tid < tid) ri++;
    for (; ai < l.n && l.calls[ai].tid == tid; ai++) {
      int64_t t = l.calls[ai].start;
      while (ri < c.nr && thr[dla__range_th(&c.r[ri])].tid == tid && c.r[ri].start <= t) {
        while (sp && c.r[stack[sp - 1]].end < c.r[ri].start) sp--;
        stack[sp++] = (int32_t)ri++;
      }
      while (sp && c.r[stack[sp - 1]].end < t) sp--;
      int32_t want = sp ? stack[sp - 1] : -1;
      const dla_api *a = &c.a[l.calls[ai].id - 1]; /* c->a is in id order */
      if (a->range != want) bad++;
      int outside = want < 0 || c.r[want].inst < 0;
      if (outside != (dla__call_own_op(&c, (int32_t)(l.calls[ai].id - 1)) >= 0)) bad++;
      unassoc += outside;
    }
  }
  ASSERT_EQ(bad, 0);
  ASSERT(unassoc > 0 && unassoc < NCALLS); /* both kinds met */
  for (int i = 0; i < NCALLS; i++) ASSERT_EQ(dla__corr_get(x, pid_of[i], corr[i]), i);
  ASSERT_EQ(dla__corr_get(x, 100, NCALLS), -1);
  ASSERT_EQ(dla__corr_get(x, 300, 1), -1);

  free(stack);
  free(l.calls);
  free(corr);
  dla__corr_free(&x);
  for (size_t i = 0; i < c.nops; i++) {
    free(c.ops[i].key);
    free(c.ops[i].path);
    free(c.ops[i].type);
    free(c.ops[i].stack);
  }
  free(c.ops);
  dl_smap_free(&c.op_by_path);
  free(c.r);
  free(c.a);
  free(c.own);
  dldb_writer_abort(&w);
  return 0;
}

/* The time sweep cut into batches of time (dla_tuning.sweep_batch_events)
 * gives the breakdown of one batch, to the ns: a profile of 30 iterations
 * whose kernels (tensor-core and other, on two GPUs, overlapping), memory
 * copies, dataloader and op ranges cross many batch edges, aggregated with
 * the default (one batch) and with batches of at most 8 and 64 events;
 * the same for the GPU timeline (per GPU: busy, computation, memcpy, SM
 * efficiency), whose batches hold starts. */
/* write_sweep_profile's launches: each op's three in reverse launch order
 * (ids ascending, launch times descending), so that the index of the
 * launches by time needs entries set aside and merged back. */
static int sweep_late;

static int write_sweep_profile(dldb_writer *w) {
  char err[256];
  for (int g = 0; g < 2; g++) {
    dldb_gpu gpu = {.device_id = g, .name = "GPU", .cc_major = 8, .sm_count = 108};
    ASSERT_OK(dldb_write_gpu(w, &gpu, err, sizeof err));
  }
  rnd_state = 0x5EEDull;
  int64_t t = 1000, corr = 1;
  for (int it = 0; it < 30; it++) {
    int64_t it0 = t;
    dldb_nvtx_range dl = {.kind = DLDB_NVTX_PUSHPOP, .name = "DataLoader.__next__", .pid = 1,
                          .tid = 1, .start_ns = t, .end_ns = t + 200 + (int64_t)rnd(3000)};
    ASSERT_OK(dldb_write_nvtx_range(w, &dl, NULL, err, sizeof err));
    t = dl.end_ns + (int64_t)rnd(500);
    for (int op = 0; op < 12; op++) {
      int64_t os = t, oe = t + 2000 + (int64_t)rnd(4000);
      dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = op % 3 ? "conv" : "relu",
                           .pid = 1, .tid = 1, .start_ns = os, .end_ns = oe};
      ASSERT_OK(dldb_write_nvtx_range(w, &r, NULL, err, sizeof err));
      for (int k = 0; k < 3; k++, corr++) {
        int64_t cs = os + 100 + (sweep_late ? 2 - k : k) * 500 + (int64_t)rnd(300);
        dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = cs, .end_ns = cs + 50,
                           .pid = 1, .tid = 1, .correlation_id = corr};
        ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
        int64_t ks = cs + 30 + (int64_t)rnd(6000); /* queued: kernels overlap ranges and each other */
        if (rnd(7) == 0) {
          dldb_memcpy m = {.copy_kind = 1, .bytes = 4096, .gpu_start_ns = ks,
                           .gpu_end_ns = ks + 100 + (int64_t)rnd(900), .correlation_id = corr,
                           .pid = 1, .device_id = (int32_t)rnd(2)};
          ASSERT_OK(dldb_write_memcpy(w, &m, err, sizeof err));
          continue;
        }
        dldb_kernel kn = {.short_name = rnd(2) ? "volta_h884gemm_64x64_ldg8_nn" : "elementwise_kernel",
                          .device_id = (int32_t)rnd(2), .stream_id = 7,
                          .gpu_start_ns = ks, .gpu_end_ns = ks + 50 + (int64_t)rnd(5000),
                          .correlation_id = corr, .pid = 1, .grid = {4, 2, 1},
                          .block = {128, 1, 1}};
        ASSERT_OK(dldb_write_kernel(w, &kn, err, sizeof err));
      }
      t = oe + (int64_t)rnd(300);
    }
    dldb_nvtx_range st = {.kind = DLDB_NVTX_PUSHPOP, .name = "step", .pid = 1, .tid = 1,
                          .start_ns = t, .end_ns = t + 400};
    ASSERT_OK(dldb_write_nvtx_range(w, &st, NULL, err, sizeof err));
    t += 400 + (int64_t)rnd(2000);
    ASSERT(t > it0);
  }
  return 0;
}

static int test_sweep_batches(void) {
  char path[1024], err[256];
  snprintf(path, sizeof path, "%s/sweep_batches.sqlite", work_dir);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  ASSERT_EQ(write_sweep_profile(w), 0);
  static const size_t caps[] = {0, 8, 64};
  for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
    dla_opts ao;
    dla_opts_init(&ao);
    ao.key_op = "step";
    ao.aggr_start = "2024-01-01 00:00:00";
    ao.nsys_rules = 1; /* GPU gaps and low-utilization chunks: batched too */
    dla_tuning tune = {.sweep_batch_events = caps[i]};
    if (dla__aggregate_tuned(w, &ao, &tune, NULL, err, sizeof err)) {
      fprintf(stderr, "sweep batches: %s\n", err);
      dldb_writer_abort(&w);
      return 1;
    }
  }
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  /* every category has time, so a cut in the wrong place would show */
  ASSERT(q_real(db, "SELECT min(tc_duration), min(non_tc_duration), min(memory_duration), "
                    "min(dataloader_duration) FROM view_iterations_profiled WHERE aggr_id = 1") >= 0);
  ASSERT(q_int(db, "SELECT sum(tc_duration > 0) + sum(non_tc_duration > 0) + sum(memory_duration > 0) "
                   "+ sum(dataloader_duration > 0) + sum(cpu_duration > 0) "
                   "FROM view_iterations_profiled WHERE aggr_id = 1") >= 4 * 30);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_iterations_profiled WHERE aggr_id = 1"), 31);
  for (int a = 2; a <= 3; a++) {
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM view_iterations_profiled x JOIN view_iterations_profiled y "
             "ON y.aggr_id = %d AND y.iter_value = x.iter_value AND y.duration = x.duration AND "
             "y.tc_duration = x.tc_duration AND y.non_tc_duration = x.non_tc_duration AND "
             "y.memory_duration = x.memory_duration AND y.dataloader_duration = "
             "x.dataloader_duration AND y.io_duration = x.io_duration AND y.cpu_duration = "
             "x.cpu_duration AND y.other_duration = x.other_duration WHERE x.aggr_id = 1",
             a);
    ASSERT_EQ(q_int(db, sql), 31);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM view_resource_usage_breakdown x JOIN "
             "view_resource_usage_breakdown y ON y.aggr_id = %d AND "
             "y.tc_duration_pct = x.tc_duration_pct AND y.non_tc_duration_pct = "
             "x.non_tc_duration_pct AND y.memory_duration_pct = x.memory_duration_pct AND "
             "y.dataloader_duration_pct = x.dataloader_duration_pct AND y.cpu_duration_pct = "
             "x.cpu_duration_pct AND y.other_duration_pct = x.other_duration_pct "
             "WHERE x.aggr_id = 1",
             a);
    ASSERT_EQ(q_int(db, sql), 1);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM view_performance_summary x JOIN view_performance_summary y "
             "ON y.aggr_id = %d AND y.gpu_utilization = x.gpu_utilization WHERE x.aggr_id = 1",
             a);
    ASSERT_EQ(q_int(db, sql), 1);
    /* the GPU timeline: per GPU, and per iteration and GPU */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM view_dl_communication x JOIN view_dl_communication y "
             "ON y.aggr_id = %d AND y.device_id = x.device_id AND y.busy_time = x.busy_time AND "
             "y.computation_time = x.computation_time AND y.memcpy_time = x.memcpy_time AND "
             "y.exposed_memcpy_time = x.exposed_memcpy_time AND y.idle_time = x.idle_time "
             "WHERE x.aggr_id = 1",
             a);
    ASSERT_EQ(q_int(db, sql), 2);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM view_dl_gpu_efficiency x JOIN view_dl_gpu_efficiency y "
             "ON y.aggr_id = %d AND y.device_id = x.device_id AND y.kernel_busy_time = "
             "x.kernel_busy_time AND y.est_sm_efficiency = x.est_sm_efficiency "
             "WHERE x.aggr_id = 1",
             a);
    ASSERT_EQ(q_int(db, sql), 2);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM view_dl_iteration_efficiency x JOIN view_dl_iteration_efficiency y "
             "ON y.aggr_id = %d AND y.iter_value = x.iter_value AND y.device_id = x.device_id AND "
             "y.gpu_utilization = x.gpu_utilization AND y.est_sm_efficiency = x.est_sm_efficiency "
             "WHERE x.aggr_id = 1",
             a);
    ASSERT_EQ(q_int(db, sql), 2 * 31);
    /* the findings quote what they measured (low-utilization chunks) */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM view_expert_systems x JOIN view_expert_systems y "
             "ON y.aggr_id = %d AND y.problem = x.problem AND y.recommendation = x.recommendation "
             "WHERE x.aggr_id = 1",
             a);
    ASSERT_EQ(q_int(db, sql), q_int(db, "SELECT count(*) FROM view_expert_systems WHERE aggr_id = 1"));
  }
  ASSERT(q_int(db, "SELECT count(*) FROM view_expert_systems WHERE aggr_id = 1 AND problem LIKE "
                   "'%GPU utilization%'") == 1);
  sqlite3_close(db);
  return 0;
}

/* Aggregates w (key op "step"; the timeline inline or built ahead) with
 * env set to "sqlite" meanwhile (NULL: nothing set), then commits it; a
 * failure's message on stderr after what. */
static int sweep_aggregate(dldb_writer *w, int timeline_inline, const char *env,
                           const char *what) {
  char err[256];
  if (env) setenv(env, "sqlite", 1);
  dla_opts ao;
  dla_opts_init(&ao);
  ao.key_op = "step";
  ao.aggr_start = "2024-01-01 00:00:00";
  dla_tuning tune = {.timeline_inline = timeline_inline};
  int rc = dla__aggregate_tuned(w, &ao, &tune, NULL, err, sizeof err);
  if (env) unsetenv(env);
  if (rc) {
    fprintf(stderr, "%s: %s\n", what, err);
    dldb_writer_abort(&w);
    return 1;
  }
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  return 0;
}

/* File a read-only with file b attached as q, and every aggr_ and
 * dl_timeline_ table of the two compared row by row: how many tables, or
 * -1 where one differs (or a file does not open). */
static int same_files(const char *a, const char *b) {
  sqlite3 *db = open_ro(a);
  char *sql = sqlite3_mprintf("ATTACH %Q AS q", b);
  int tables = -1;
  if (db && sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK) {
    int aggr = same_tables(db, "q", "aggr\\_%");
    int tl = same_tables(db, "q", "dl\\_timeline\\_%");
    tables = aggr < 0 || tl < 0 ? -1 : aggr + tl;
  }
  sqlite3_free(sql);
  sqlite3_close(db);
  return tables;
}

/* The timeline's tracks built ahead on a second thread (dla_tlahead.c)
 * equal those the writer builds itself (dla_tuning.timeline_inline): two
 * files of the same profile (GPU streams with kernels and copies on two
 * GPUs, a CUDA API thread, op ranges), every row of both tables the same,
 * rowids too. */
static int test_timeline_ahead(void) {
  char path[2][1024], err[256];
  for (int i = 0; i < 2; i++) {
    snprintf(path[i], sizeof path[i], "%s/timeline_%s.sqlite", work_dir, i ? "ahead" : "inline");
    dldb_writer *w = NULL;
    dldb_write_opts o = {.force = 1, .producer = "test"};
    ASSERT_OK(dldb_writer_create(path[i], &o, &w, err, sizeof err));
    rnd_state = 0x5EEDull;
    ASSERT_EQ(write_sweep_profile(w), 0);
    if (sweep_aggregate(w, !i, NULL, "timeline ahead")) return 1;
  }
  sqlite3 *db = open_ro(path[1]);
  ASSERT_NOT_NULL(db);
  char sql[2048];
  snprintf(sql, sizeof sql, "ATTACH '%s' AS i", path[0]);
  ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  /* iterations, 4 GPU streams (2 GPUs, kernels and copies), API and range threads */
  ASSERT_EQ(q_int(db, "SELECT count(DISTINCT kind) FROM dl_timeline_tracks"), 4);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM dl_timeline_tracks"), 7);
  ASSERT(q_int(db, "SELECT count(*) FROM dl_timeline_blocks") >= 7);
  static const char *const tables[] = {"dl_timeline_tracks", "dl_timeline_blocks"};
  for (size_t t = 0; t < 2; t++) {
    snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM %s) - (SELECT count(*) FROM i.%s)",
             tables[t], tables[t]);
    ASSERT_EQ(q_int(db, sql), 0);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT rowid, * FROM %s EXCEPT SELECT rowid, * FROM i.%s)",
             tables[t], tables[t]);
    ASSERT_EQ(q_int(db, sql), 0);
  }
  sqlite3_close(db);
  return 0;
}

/* The raw tables read from the file's pages (dl_sqlpage.h) or stepped by
 * SQLite (DLDB_SCAN=sqlite) give the same aggregation and timeline: a
 * dldb aggregated again from its raw tables (no rows kept in memory), the
 * timeline built by the writer inside the aggregation and built ahead on a
 * reader connection; every aggr_ and dl_timeline_ table compared row by
 * row. */
static int test_pages_vs_sql(void) {
  char base[1024], path[4][1024], err[256];
  snprintf(base, sizeof base, "%s/pages_base.sqlite", work_dir);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(base, &o, &w, err, sizeof err));
  rnd_state = 0x5EEDull;
  ASSERT_EQ(write_sweep_profile(w), 0);
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  for (int i = 0; i < 4; i++) { /* i & 1: SQLite; i & 2: the timeline inline */
    snprintf(path[i], sizeof path[i], "%s/pages_%d.sqlite", work_dir, i);
    ASSERT_EQ(test_copy_file(base, path[i]), 0);
    ASSERT_OK(dldb_writer_open_existing(path[i], &w, err, sizeof err));
    if (sweep_aggregate(w, (i & 2) != 0, i & 1 ? "DLDB_SCAN" : NULL, "pages vs sql")) return 1;
  }
  for (int i = 0; i < 4; i += 2) {
    sqlite3 *db = open_ro(path[i]);
    ASSERT_NOT_NULL(db);
    ASSERT(q_int(db, "SELECT count(*) FROM aggr_kernels WHERE aggr_id = 1") > 500);
    ASSERT(q_int(db, "SELECT count(*) FROM dl_timeline_blocks") >= 7);
    sqlite3_close(db);
    int tables = same_files(path[i], path[i + 1]);
    if (tables < 0) fprintf(stderr, "pages vs sql: the timeline %s\n", i ? "inline" : "ahead");
    ASSERT(tables > 20);
  }
  return 0;
}

/* A new file's NVTX statistics rows and launches (aggr_kernels, with its
 * index by launch time) written as pages (dl_sqlbuild.h) or inserted by
 * SQLite (DLDB_WRITE=sqlite) give the same file: every aggr_ and
 * dl_timeline_ table row by row, with the timeline built inline and ahead
 * (a reader's connection may hold the file then: SQLite inserts them), and
 * with launches in and out of launch order; PRAGMA integrity_check (which
 * checks each index entry against its row) passes. Millions of names:
 * test_nvtxorder.c. */
static int test_bulk_vs_sql(void) {
  char path[8][1024], err[256];
  for (int i = 0; i < 8; i++) { /* i & 1: SQLite; i & 2: the timeline inline; i & 4: late */
    sweep_late = (i & 4) != 0;
    snprintf(path[i], sizeof path[i], "%s/bulk_%d.sqlite", work_dir, i);
    dldb_writer *w = NULL;
    dldb_write_opts o = {.force = 1, .producer = "test"};
    ASSERT_OK(dldb_writer_create(path[i], &o, &w, err, sizeof err));
    rnd_state = 0x5EEDull;
    ASSERT_EQ(write_sweep_profile(w), 0);
    if (sweep_aggregate(w, (i & 2) != 0, i & 1 ? "DLDB_WRITE" : NULL, "bulk vs sql")) return 1;
  }
  sweep_late = 0;
  for (int i = 0; i < 8; i += 2) {
    sqlite3 *db = open_ro(path[i]);
    ASSERT_NOT_NULL(db);
    char sql[2048];
    snprintf(sql, sizeof sql, "ATTACH '%s' AS q", path[i + 1]);
    ASSERT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    ASSERT(q_int(db, "SELECT count(*) FROM aggr_nvtx_runs WHERE kind = 6") > 0);
    ASSERT(q_int(db, "SELECT count(*) FROM aggr_nvtx_runs WHERE kind = 7") > 0);
    ASSERT(integrity_ok(db, "main"));
    ASSERT(integrity_ok(db, "q"));
    sqlite3_close(db);
    int tables = same_files(path[i], path[i + 1]);
    if (tables < 0)
      fprintf(stderr, "bulk vs sql: the timeline %s%s\n", i & 2 ? "inline" : "ahead",
              i & 4 ? ", launches out of order" : "");
    ASSERT(tables > 20);
  }
  return 0;
}

/* Each GPU stream's timeline events come back in (start, duration, id)
 * order whatever order the kernels were written in: stream 1 almost in
 * order (a few late ones, launches that share a start longest first: the
 * events set aside and merged back), stream 2 shuffled (the whole track
 * sorted). Compared event by event with SQLite's ORDER BY of the rows. */
typedef struct tl_seen {
  sqlite3_stmt *want; /* the stream's kernels in order */
  int64_t n;
  int bad;
} tl_seen;

static int tl_check_event(void *ctx, const dldb_tl_event *e) {
  tl_seen *s = ctx;
  if (sqlite3_step(s->want) != SQLITE_ROW || sqlite3_column_int64(s->want, 0) != e->start_ns ||
      sqlite3_column_int64(s->want, 1) != e->dur_ns ||
      sqlite3_column_int64(s->want, 2) != e->event_id) {
    if (!s->bad++)
      fprintf(stderr, "timeline order: event %lld is (%lld, %lld, id %lld)\n", (long long)s->n,
              (long long)e->start_ns, (long long)e->dur_ns, (long long)e->event_id);
  }
  s->n++;
  return 0;
}

typedef struct tl_streams {
  int64_t track[3]; /* by stream id 1, 2 */
} tl_streams;

static int tl_note_track(void *ctx, const dldb_tl_track_row *t) {
  tl_streams *s = ctx;
  if (strcmp(t->kind, "gpu_stream") == 0 && t->has_stream && t->stream_id >= 1 &&
      t->stream_id <= 2)
    s->track[t->stream_id] = t->track_id;
  return 0;
}

static int test_timeline_events_sorted(void) {
  char path[1024], err[256];
  snprintf(path, sizeof path, "%s/timeline_sorted.sqlite", work_dir);
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  ASSERT_OK(dldb_writer_create(path, &o, &w, err, sizeof err));
  dldb_gpu gpu = {.device_id = 0, .name = "GPU", .cc_major = 8, .sm_count = 108};
  ASSERT_OK(dldb_write_gpu(w, &gpu, err, sizeof err));
  enum { N = 4000 };
  int64_t start[2][N], dur[2][N];
  rnd_state = 0x7153ull;
  for (int i = 0; i < N; i++) { /* stream 1: in order but for 1 in 40 */
    start[0][i] = 10000 + 1000 * (int64_t)i;
    dur[0][i] = 100 + (int64_t)rnd(500);
    if (i % 40 == 39) start[0][i] -= 3000 + (int64_t)rnd(20000); /* late: behind several */
    if (i % 97 == 1) { /* the same start as the one before, longer first */
      start[0][i] = start[0][i - 1];
      dur[0][i] = dur[0][i - 1] > 1 ? dur[0][i - 1] - 1 : 0;
    }
    start[1][i] = 10000 + (int64_t)rnd(4000000); /* stream 2: any order */
    dur[1][i] = 100 + (int64_t)rnd(500);
  }
  dldb_nvtx_range it = {.kind = DLDB_NVTX_PUSHPOP, .name = "step", .pid = 1, .tid = 1,
                        .start_ns = 0, .end_ns = 5000000};
  ASSERT_OK(dldb_write_nvtx_range(w, &it, NULL, err, sizeof err));
  int64_t corr = 1;
  for (int i = 0; i < N; i++)
    for (int st = 0; st < 2; st++, corr++) {
      dldb_api_call a = {.name = "cudaLaunchKernel", .start_ns = 1000 + corr, .end_ns = 1001 + corr,
                         .pid = 1, .tid = 1, .correlation_id = corr};
      ASSERT_OK(dldb_write_api_call(w, &a, err, sizeof err));
      dldb_kernel k = {.short_name = "elementwise_kernel", .device_id = 0, .stream_id = st + 1,
                       .gpu_start_ns = start[st][i], .gpu_end_ns = start[st][i] + dur[st][i],
                       .correlation_id = corr, .pid = 1, .grid = {4, 2, 1}, .block = {128, 1, 1}};
      ASSERT_OK(dldb_write_kernel(w, &k, err, sizeof err));
    }
  dla_opts ao;
  dla_opts_init(&ao);
  ao.key_op = "step";
  ao.aggr_start = "2024-01-01 00:00:00";
  dla_tuning tune = {.timeline_inline = 1};
  if (dla__aggregate_tuned(w, &ao, &tune, NULL, err, sizeof err)) {
    fprintf(stderr, "timeline sorted: %s\n", err);
    dldb_writer_abort(&w);
    return 1;
  }
  ASSERT_OK(dldb_writer_commit(&w, err, sizeof err));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  /* the cases are what they claim: few of stream 1 out of order, many of stream 2 */
  static const char out_of_order[] =
      "SELECT count(*) FROM (SELECT gpu_start_ns < max(gpu_start_ns) OVER (ORDER BY id ROWS "
      "BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late FROM kernels WHERE stream_id = %d) "
      "WHERE late";
  char sql[512];
  snprintf(sql, sizeof sql, out_of_order, 1);
  int64_t late1 = q_int(db, sql);
  snprintf(sql, sizeof sql, out_of_order, 2);
  int64_t late2 = q_int(db, sql);
  ASSERT(late1 > 50 && late1 < N / 8);
  ASSERT(late2 > N / 8);
  dldb *r = NULL;
  ASSERT_OK(dldb_open_ro(path, &r, NULL, err, sizeof err));
  tl_streams ts = {{0}};
  ASSERT_OK(dldb_timeline_tracks(r, tl_note_track, &ts, err, sizeof err));
  for (int st = 1; st <= 2; st++) {
    ASSERT(ts.track[st] > 0);
    tl_seen seen = {0};
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT gpu_start_ns, gpu_end_ns - gpu_start_ns, id FROM kernels "
                                 "WHERE stream_id = ?1 ORDER BY 1, 2, 3",
                                 -1, &seen.want, NULL),
              SQLITE_OK);
    sqlite3_bind_int(seen.want, 1, st);
    ASSERT_OK(dldb_timeline_events(r, ts.track[st], INT64_MIN, INT64_MAX, tl_check_event, &seen,
                                   err, sizeof err));
    int more = sqlite3_step(seen.want) == SQLITE_ROW;
    sqlite3_finalize(seen.want);
    ASSERT_EQ(seen.bad, 0);
    ASSERT_EQ(more, 0);
    ASSERT_EQ(seen.n, N);
  }
  dldb_close(&r);
  sqlite3_close(db);
  return 0;
}

/* ---- Op CPU times: total and self, nesting on a whole-microsecond clock -- */

typedef struct trange {
  const char *name;
  int64_t s, e;
} trange;

/* A dldb of ranges on one thread, aggregated with key op key (spans: one
 * iteration per span, as for PyTorch traces). */
static int build_ranges(const char *path, const trange *v, size_t n, const char *key, int spans) {
  char err[256];
  dldb_writer *w = NULL;
  dldb_write_opts o = {.force = 1, .producer = "test"};
  if (dldb_writer_create(path, &o, &w, err, sizeof err)) return -1;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = v[i].name, .start_ns = v[i].s,
                         .end_ns = v[i].e, .pid = 1, .tid = 1};
    rc |= dldb_write_nvtx_range(w, &r, NULL, err, sizeof err);
  }
  dla_opts ao;
  dla_opts_init(&ao);
  ao.key_op = key;
  ao.key_op_spans = spans;
  ao.aggr_start = "2024-01-01 00:00:00";
  if (rc == 0) rc = dla_aggregate(w, &ao, NULL, err, sizeof err);
  if (rc) {
    fprintf(stderr, "ranges fixture: %s\n", err);
    dldb_writer_abort(&w);
    return rc;
  }
  return dldb_writer_commit(&w, err, sizeof err);
}

static int64_t op_time(sqlite3 *db, const char *col, const char *op) {
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT %s FROM view_op_cpu_times WHERE op_name = '%s'", col, op);
  return q_int(db, sql);
}

static int test_op_cpu_times(void) {
  char path[1024];
  /* nested user NVTX ranges (Nsight Systems, dlprof APP): self time leaves
   * out the ranges directly inside; the self times sum to the thread's time */
  static const trange nvtx[] = {
      {"train", 0, 1000}, {"forward", 100, 500}, {"layer", 150, 300}, {"backward", 600, 900},
  };
  snprintf(path, sizeof path, "%s/optimes_nvtx.sqlite", work_dir);
  ASSERT_OK(build_ranges(path, nvtx, 4, NULL, 0));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_cpu_times"), 4);
  ASSERT_EQ(op_time(db, "total_cpu_time", "train"), 1000);
  ASSERT_EQ(op_time(db, "self_cpu_time", "train"), 300);
  ASSERT_EQ(op_time(db, "self_cpu_time", "forward"), 250);
  ASSERT_EQ(op_time(db, "self_cpu_time", "layer"), 150);
  ASSERT_EQ(op_time(db, "self_cpu_time", "backward"), 300);
  ASSERT_EQ(q_int(db, "SELECT sum(self_cpu_time) FROM view_op_cpu_times"), 1000);
  ASSERT_EQ(q_int(db, "SELECT sum(calls) FROM view_op_cpu_times"), 4);
  sqlite3_close(db);
  /* a PyTorch trace on a whole-microsecond clock: aten::convolution ends
   * 1 us after its aten::conv2d and is still its call; aten::add_ is the
   * optimizer step's; ProfilerStep#N are the iterations, start to end, and
   * the 1 us between them is in neither */
  static const trange pt[] = {
      {"ProfilerStep#1", 0, 10000},
      {"aten::conv2d", 1000, 5000},
      {"aten::convolution", 2000, 6000},
      {"ConvolutionBackward0", 6000, 7000},
      {"aten::convolution_backward", 6000, 7000},
      {"Optimizer.step#SGD.step", 7000, 9000},
      {"aten::add_", 8000, 9000},
      {"ProfilerStep#2", 11000, 15000},
      {"user scope", 11000, 15000},
      {"aten::relu", 12000, 14000},
  };
  snprintf(path, sizeof path, "%s/optimes_pytorch.sqlite", work_dir);
  ASSERT_OK(build_ranges(path, pt, sizeof pt / sizeof pt[0], "ProfilerStep#", 1));
  db = open_ro(path);
  ASSERT_NOT_NULL(db);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_iterations_all"), 2);
  ASSERT_EQ(q_int(db, "SELECT duration FROM view_iterations_all WHERE iter_value = 0"), 10000);
  ASSERT_EQ(q_int(db, "SELECT duration FROM view_iterations_all WHERE iter_value = 1"), 4000);
  ASSERT_EQ(q_int(db, "SELECT wall_clock_time FROM view_performance_summary"), 14000);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_cpu_times WHERE op_name IN "
                      "('aten::convolution', 'aten::convolution_backward', 'aten::add_')"), 0);
  ASSERT_EQ(op_time(db, "total_cpu_time", "aten::conv2d"), 4000);
  ASSERT_EQ(op_time(db, "self_cpu_time", "aten::conv2d"), 4000);
  ASSERT_EQ(op_time(db, "self_cpu_time", "ConvolutionBackward0"), 1000);
  ASSERT_STR_EQ(q_text(db, "SELECT direction FROM view_op_cpu_times WHERE op_name = "
                           "'ConvolutionBackward0'"), "bprop");
  ASSERT_EQ(op_time(db, "self_cpu_time", "Optimizer.step#SGD.step"), 2000);
  /* a user range keeps the op inside it, and loses its time */
  ASSERT_EQ(op_time(db, "total_cpu_time", "user scope"), 4000);
  ASSERT_EQ(op_time(db, "self_cpu_time", "user scope"), 2000);
  ASSERT_EQ(op_time(db, "self_cpu_time", "aten::relu"), 2000);
  ASSERT(q_int(db, "SELECT sum(self_cpu_time) FROM view_op_cpu_times") <= 14000);
  /* no GPU activity: no op is tensor-core eligible */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_nodes WHERE tc_eligible"), 0);
  sqlite3_close(db);
  return 0;
}

/* Calls in an autograd engine wrapper on a whole-microsecond clock, after
 * its node: one that ends at most 1 us after the node's end may have run
 * inside it and is the node's (AccumulateGrad's add_, rounded past a node
 * of 0 us or of 1 us); one that ends later (the sum of validate_outputs
 * after AddmmBackward0, a mul 2 us after a node) is an op of its own. */
static int test_engine_rounding(void) {
  char path[1024];
  static const trange pt[] = {
      {"ProfilerStep#1", 0, 20000},
      {"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 1000, 2000},
      {"torch::autograd::AccumulateGrad", 1000, 1000},
      {"aten::add_", 2000, 2000},
      {"autograd::engine::evaluate_function: AddmmBackward0", 3000, 9000},
      {"AddmmBackward0", 3000, 6000},
      {"aten::mm", 4000, 5000},
      {"aten::sum", 7000, 8000},
      {"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 10000, 13000},
      {"torch::autograd::AccumulateGrad", 10000, 10000},
      {"aten::mul", 12000, 12000},
      {"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 14000, 17000},
      {"torch::autograd::AccumulateGrad", 14000, 15000},
      {"aten::add_", 16000, 16000},
      {"ProfilerStep#2", 21000, 22000},
  };
  snprintf(path, sizeof path, "%s/engine_rounding.sqlite", work_dir);
  ASSERT_OK(build_ranges(path, pt, sizeof pt / sizeof pt[0], "ProfilerStep#", 1));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_op_cpu_times WHERE op_name IN "
                      "('aten::add_', 'aten::mm')"), 0);
  ASSERT_EQ(q_int(db, "SELECT calls FROM view_op_cpu_times WHERE op_name = "
                      "'torch::autograd::AccumulateGrad'"), 3);
  ASSERT_EQ(q_int(db, "SELECT calls FROM view_op_cpu_times WHERE op_name = 'aten::sum' AND "
                      "direction = 'bprop'"), 1);
  ASSERT_EQ(q_int(db, "SELECT calls FROM view_op_cpu_times WHERE op_name = 'aten::mul' AND "
                      "direction = 'bprop'"), 1);
  ASSERT_EQ(op_time(db, "self_cpu_time", "AddmmBackward0"), 3000);
  sqlite3_close(db);
  return 0;
}

/* The cut-off last step against the median of the two steps before it: the
 * mean of the two (5.5 ms), not the upper one (6 ms). */
static int test_cut_step_median(void) {
  char path[1024];
  static const trange steps[] = {
      {"ProfilerStep#1", 0, 6000000},
      {"ProfilerStep#2", 6000000, 11000000},
      {"ProfilerStep#3", 11000000, 11010000},
  };
  snprintf(path, sizeof path, "%s/cut_median.sqlite", work_dir);
  ASSERT_OK(build_ranges(path, steps, 3, "ProfilerStep#", 1));
  sqlite3 *db = open_ro(path);
  ASSERT_NOT_NULL(db);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_expert_systems WHERE problem LIKE "
                      "'The last iteration (2, ProfilerStep#3) was cut short%against a median "
                      "of 5.500 ms%'"), 1);
  sqlite3_close(db);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_dla WORK_DIR\n");
    return 2;
  }
  work_dir = argv[1];
  RUN(test_tc_patterns);
  RUN(test_opname);
  RUN(test_dlprof_shapes);
  RUN(test_fixture_attribution);
  RUN(test_kernel_ids_devices);
  RUN(test_long_durations);
  RUN(test_kernel_groups);
  RUN(test_big_seq);
  RUN(test_call_attribution);
  RUN(test_range_order);
  RUN(test_range_sort);
  RUN(test_sweep_batches);
  RUN(test_timeline_ahead);
  RUN(test_pages_vs_sql);
  RUN(test_bulk_vs_sql);
  RUN(test_timeline_events_sorted);
  RUN(test_pipe);
  RUN(test_sort_big);
  RUN(test_sort_keys);
  RUN(test_fixture_no_key_op);
  RUN(test_pytorch_nodes);
  RUN(test_rules);
  RUN(test_op_cpu_times);
  RUN(test_engine_rounding);
  RUN(test_cut_step_median);
  TEST_DONE();
}
