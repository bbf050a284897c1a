/*
 * dla_tc.c - the tensor-core pattern table (version DLA_TC_RULES_VERSION).
 * Steps follow formats.md F: tensor-core markers, then CUDA-core markers,
 * then Triton templates, then GEMM-like words (low-precision float GEMMs
 * have no CUDA-core path). Never match bare bf16/fp16/half/tf32/umma/gmma.
 * On AMD GPUs "tensor core" stands for the matrix cores (MFMA/WMMA).
 */
#include "dla_tc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Step 1: tensor-core markers (lower case substrings; '#' stands for one or
 * more decimal digits and must not be followed by a digit). */
static const char *const tc_markers[] = {
    /* PyProf / tb_plugin legacy list, xprof's addition */
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
    "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm",
    "c1688", "i16832",
    /* integer MMA, Ampere+ */
    "imma", "16832", "tensorop", "wmma", "xmma",
    /* Hopper, Blackwell */
    "gmmawarp", "wgmma", "sm90_64x", "ummawarp", "sm100_mma", "tcgen05",
    /* cuBLASLt Hopper/Blackwell */
    "nvjet",
    /* attention */
    "flash_fwd", "flash_bwd", "flashattn", "fmha", "_sdpa",
    /* AMD matrix cores: the MFMA/WMMA instruction token of Tensile (rocBLAS,
     * MI<m>x<n>x<k>x<b>) and TensileLite (hipBLASLt, MI<m>x<n>x<b>) names,
     * only there when the kernel uses it ("Cijk_..._MT64x16x16_MI16x16x1_SN_";
     * "_MIN"/"_MIWT1_1" don't match); Composable Kernel's XDLOPs (= MFMA)
     * path ("ck::kernel_gemm_xdl_cshuffle_v3", "..._xdlops_v2r3"); the
     * instruction itself ("WarpGemmMfma...") */
    "_mi#x#x#", "_xdl", "mfma",
};

/* Step 2: CUDA-core GEMM markers. */
static const char *const cuda_core_markers[] = {
    "sgemm", "dgemm", "simt", "gemv", "winograd", "scudnn",
};

/* Step 3: GEMM-like words, and the low-precision formats that imply TC. */
static const char *const gemm_words[] = {
    "gemm", "conv", "matmul", "_mm_", "fused_mm", "bmm", "addmm",
    "attention", "attn", "fprop", "dgrad", "wgrad",
};
static const char *const low_precision[] = {"fp8", "e4m3", "e5m2", "fp4"};
/* Words that contain a GEMM-like word but name no GEMM, blanked before
 * step 3: the FBGEMM library's namespace on all its kernels
 * ("fbgemm_gpu::_float_to_hfp8_gpu"), and "conv" inside conversions. */
static const char *const not_gemm_words[] = {"fbgemm", "convert", "convers"};
/* Low-precision kernels that quantize or convert rather than multiply: with
 * a GEMM-like word they stay "eligible, unknown", not TC. */
static const char *const low_precision_not_mma[] = {
    "quantize", "qparam", "_to_float", "elementwise_kernel", "reduce_kernel",
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* 1 if s starts with pat, '#' in pat matching one or more digits. */
static int starts_with_pat(const char *s, const char *pat) {
  for (; *pat; pat++) {
    if (*pat == '#') {
      if (!isdigit((unsigned char)*s)) return 0;
      while (isdigit((unsigned char)*s)) s++;
    } else if (*s++ != *pat) {
      return 0;
    }
  }
  return 1;
}

/* 1 if s contains pat (see starts_with_pat). */
static int has_pat(const char *s, const char *pat) {
  size_t lit = strcspn(pat, "#");
  if (!pat[lit]) return strstr(s, pat) != NULL;
  for (; *s; s++)
    if (strncmp(s, pat, lit) == 0 && starts_with_pat(s, pat)) return 1;
  return 0;
}

static int any_of(const char *s, const char *const *pats, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (has_pat(s, pats[i])) return 1;
  return 0;
}

/* Overwrites each occurrence of the plain patterns in s with spaces. */
static void blank_all(char *s, const char *const *pats, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (char *p = s; (p = strstr(p, pats[i]));) {
      size_t k = strlen(pats[i]);
      memset(p, ' ', k);
      p += k;
    }
}

dla_tc_class dla_tc_classify(const char *kernel_name) {
  if (!kernel_name) return DLA_TC_NOT_GEMM;
  char stackbuf[512];
  size_t n = strlen(kernel_name);
  char *low = n < sizeof stackbuf ? stackbuf : malloc(n + 1);
  if (!low) return DLA_TC_NOT_GEMM;
  for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)kernel_name[i]);
  dla_tc_class c;
  if (any_of(low, tc_markers, N_OF(tc_markers)))
    c = DLA_TC_USES;
  else if (any_of(low, cuda_core_markers, N_OF(cuda_core_markers)))
    c = DLA_TC_CUDA_CORE;
  else if (strncmp(low, "triton_tem_", 11) == 0)
    c = DLA_TC_GEMM_UNKNOWN;
  else if (strncmp(low, "triton_poi_", 11) == 0 || strncmp(low, "triton_red_", 11) == 0 ||
           strncmp(low, "triton_per_", 11) == 0)
    c = DLA_TC_NOT_GEMM;
  else {
    blank_all(low, not_gemm_words, N_OF(not_gemm_words));
    if (!any_of(low, gemm_words, N_OF(gemm_words)))
      c = DLA_TC_NOT_GEMM;
    else if (any_of(low, low_precision, N_OF(low_precision)) &&
             !any_of(low, low_precision_not_mma, N_OF(low_precision_not_mma)))
      c = DLA_TC_USES;
    else
      c = DLA_TC_GEMM_UNKNOWN;
  }
  if (low != stackbuf) free(low);
  return c;
}

int dla_tc_uses(dla_tc_class c) { return c == DLA_TC_USES; }

/* Exact op names (after stripping "aten::" and backward-name digits). */
static const char *const eligible_ops[] = {
    /* PyTorch (tb_plugin TC_OP_Allowlist, autocast lower-precision list) */
    "_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "convolution", "cudnn_convolution",
    "cudnn_convolution_transpose", "prelu", "addmm", "addmm_", "addmv", "addr", "matmul", "mm",
    "mv", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot",
    "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "lstm_cell", "gru_cell", "rnn_tanh_cell",
    "rnn_relu_cell", "einsum", "linalg_vecdot", "_scaled_dot_product_flash_attention",
    "scaled_dot_product_attention", "cudnn_convolution_backward",
    "cudnn_convolution_backward_input", "cudnn_convolution_backward_weight",
    "cudnn_convolution_transpose_backward", "cudnn_convolution_transpose_backward_input",
    "cudnn_convolution_transpose_backward_weight", "convolution_backward",
    /* autograd backward Functions (trailing digits stripped) */
    "CudnnConvolutionBackward", "ConvolutionBackward", "BmmBackward", "MmBackward",
    "AddmmBackward", "AddmvBackward", "MvBackward", "AddbmmBackward", "BaddbmmBackward",
    "CudnnConvolutionTransposeBackward",
    /* TensorFlow AMP allow-list */
    "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D", "Conv3DBackpropFilterV2",
    "Conv3DBackpropInputV2", "MatMul", "BatchMatMul", "BatchMatMulV2", "Einsum", "CudnnRNN",
    "CudnnRNNV2", "CudnnRNNV3", "BlockLSTM", "BlockLSTMV2", "LSTMBlockCell", "GRUBlockCell",
    "FusedConv2DBiasActivation",
};

int dla_tc_op_eligible(const char *op_type) {
  if (!op_type) return 0;
  if (strncmp(op_type, "aten::", 6) == 0) op_type += 6;
  size_t n = strlen(op_type);
  /* "AddmmBackward0" -> "AddmmBackward" */
  size_t m = n;
  while (m > 0 && isdigit((unsigned char)op_type[m - 1])) m--;
  for (size_t i = 0; i < N_OF(eligible_ops); i++) {
    size_t k = strlen(eligible_ops[i]);
    if (strncmp(op_type, eligible_ops[i], k) != 0) continue;
    if (k == n) return 1;
    if (k == m && m >= 8 && strncmp(op_type + m - 8, "Backward", 8) == 0) return 1;
  }
  return 0;
}
