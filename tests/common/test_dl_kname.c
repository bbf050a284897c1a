/*
 * test_dl_kname.c - kernel short names (common/dl_kname.h): the plain rule
 * that Nsight Systems' shortName follows, CUTLASS's three wrapper kernels
 * named for the kernel type they launch, and malformed names, every prefix
 * of a real one included, read from heap copies of their exact size so that
 * ASan sees any read past the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_kname.h"
#include "test.h"

/* dl_kname_short(name) on an exact-size heap copy of name. */
static char *short_of(const char *name) {
  size_t n = strlen(name);
  char *copy = malloc(n + 1);
  if (!copy) return NULL;
  memcpy(copy, name, n + 1);
  char *out = dl_kname_short(copy);
  free(copy);
  return out;
}

static int expect_short(const char *name, const char *want) {
  char *got = short_of(name);
  int ok = got && strcmp(got, want) == 0;
  if (!ok)
    fprintf(stderr, "short name of \"%s\": \"%s\", want \"%s\"\n", name, got ? got : "(null)",
            want);
  free(got);
  return ok ? 0 : 1;
}

/* From the CUTLASS SGEMM export (nsys2023.2_cutlass_sgemm.sqlite), shortened. */
#define SGEMM                                                                                  \
  "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined<" \
  "cutlass::gemm::GemmShape<(int)128, (int)128, (int)32>, float, cutlass::layout::RowMajor, "  \
  "(int)1>, cutlass::epilogue::threadblock::Epilogue<cutlass::gemm::GemmShape<(int)128, "      \
  "(int)128, (int)32>, (int)1, (bool)0>, cutlass::gemm::threadblock::"                         \
  "GemmIdentityThreadblockSwizzle<(int)1>, (bool)0>>(cutlass::gemm::kernel::Gemm<cutlass::"    \
  "gemm::threadblock::MmaPipelined<cutlass::gemm::GemmShape<(int)128, (int)128, (int)32>, "    \
  "float, cutlass::layout::RowMajor, (int)1>, (bool)0>::Params)"

#define CUBLAS_AMPERE "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8"

static int test_wrappers(void) {
  ASSERT_OK(expect_short(SGEMM, "Gemm"));
  ASSERT_OK(expect_short("void cutlass::Kernel2<" CUBLAS_AMPERE ">(" CUBLAS_AMPERE "::Params)",
                         CUBLAS_AMPERE));
  ASSERT_OK(expect_short("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<"
                         "cute::tuple<int, int, int, int>, cutlass::gemm::collective::"
                         "CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<"
                         "(int)4, cute::tuple<cute::C<(int)1>>>, float>, void>>(cutlass::gemm::"
                         "kernel::GemmUniversal<cute::tuple<int, int, int, int>, void>::Params)",
                         "GemmUniversal"));
  /* the named-struct form, without a return type, with two arguments */
  ASSERT_OK(expect_short("cutlass::Kernel<" CUBLAS_AMPERE ">(" CUBLAS_AMPERE "::Params)",
                         CUBLAS_AMPERE));
  ASSERT_OK(expect_short("void cutlass::Kernel< cutlass::gemm::kernel::GemmBatched<float> , int>"
                         "(int)",
                         "GemmBatched"));
  ASSERT_OK(expect_short("void cutlass::Kernel<(anonymous namespace)::MyGemm<float>>((anonymous "
                         "namespace)::MyGemm<float>::Params)",
                         "MyGemm"));
  ASSERT_OK(expect_short("void cutlass::Kernel<struct Foo>(Foo::Params)", "Foo"));
  size_t off = 99, len = 99;
  ASSERT_EQ(dl_kname_cutlass_span(SGEMM, &off, &len), 1);
  ASSERT_EQ(len, 4);
  ASSERT_OK(strncmp(SGEMM + off, "Gemm<", 5));
  return 0;
}

/* Everything else keeps the bare function name. */
static int test_plain(void) {
  ASSERT_OK(expect_short("void at::native::vectorized_elementwise_kernel<4, F>(int, F)",
                         "vectorized_elementwise_kernel"));
  ASSERT_OK(expect_short("volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn"));
  ASSERT_OK(expect_short("vectorAddKernel(const float *, const float *, float *, int)",
                         "vectorAddKernel"));
  ASSERT_OK(expect_short("(anonymous namespace)::softmax_warp_forward(float *)",
                         "softmax_warp_forward"));
  ASSERT_OK(expect_short("void (anonymous namespace)::elementwise_kernel<128, 4>(int)",
                         "elementwise_kernel"));
  /* not a wrapper: another scope, another name, a wrapper's own scope */
  ASSERT_OK(expect_short("void foo::Kernel<Gemm>(Gemm::Params)", "Kernel"));
  ASSERT_OK(expect_short("void mycutlass::Kernel<Gemm>(Gemm::Params)", "Kernel"));
  ASSERT_OK(expect_short("void cutlass::Kernel3<Gemm>(Gemm::Params)", "Kernel3"));
  ASSERT_OK(expect_short("void cutlass::reference::device::kernel::TensorFillRandom<float>(int)",
                         "TensorFillRandom"));
  /* a wrapper whose first argument has no usable name */
  ASSERT_OK(expect_short("void cutlass::Kernel<(int)4>(int)", "Kernel"));
  ASSERT_OK(expect_short("void cutlass::Kernel<>(int)", "Kernel"));
  ASSERT_OK(expect_short("void cutlass::Kernel<float *>(int)", "Kernel"));
  ASSERT_OK(expect_short("Kernel", "Kernel"));
  ASSERT_OK(expect_short("", ""));
  size_t off = 7, len = 7;
  ASSERT_EQ(dl_kname_cutlass_span("void foo::Kernel<Gemm>(int)", &off, &len), 0);
  ASSERT_EQ(off, 7); /* untouched */
  dl_kname_short_span("", &off, &len);
  ASSERT_EQ(off, 0);
  ASSERT_EQ(len, 0);
  return 0;
}

/* Brackets that do not balance: the plain rule, as before the CUTLASS rule. */
static int test_unbalanced(void) {
  ASSERT_OK(expect_short("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<float>(P)",
                         "Kernel<cutlass::gemm::kernel::Gemm<float>(P)"));
  ASSERT_OK(expect_short("void cutlass::Kernel>Gemm>(P)", "Kernel>Gemm>(P)"));
  ASSERT_OK(expect_short("void cutlass::Kernel<Gemm>>(P)", "Kernel<Gemm>>(P)"));
  ASSERT_OK(expect_short("cutlass::Kernel<", "Kernel<"));
  ASSERT_OK(expect_short(">>>", ">>>"));
  ASSERT_OK(expect_short("<<<", "<<<"));
  ASSERT_OK(expect_short("(", "("));
  ASSERT_OK(expect_short("f(", "f"));
  return 0;
}

/* Every prefix of a real name (a name cut anywhere) stays inside itself. */
static int test_prefixes(void) {
  static const char *const names[] = {
      SGEMM, "void cutlass::Kernel2<" CUBLAS_AMPERE ">(" CUBLAS_AMPERE "::Params)",
      "void (anonymous namespace)::elementwise_kernel<128, 4>((anonymous namespace)::F)", NULL};
  for (int k = 0; names[k]; k++) {
    size_t n = strlen(names[k]);
    for (size_t cut = 0; cut <= n; cut++) {
      char *p = malloc(cut + 1);
      ASSERT_NOT_NULL(p);
      memcpy(p, names[k], cut);
      p[cut] = '\0';
      size_t off = 0, len = 0;
      dl_kname_short_span(p, &off, &len);
      free(p);
      ASSERT(off <= cut && len <= cut - off);
      ASSERT(cut == 0 || len > 0);
    }
  }
  return 0;
}

static int test_is_wrapper(void) {
  ASSERT_EQ(dl_kname_is_wrapper("Kernel"), 1);
  ASSERT_EQ(dl_kname_is_wrapper("Kernel2"), 1);
  ASSERT_EQ(dl_kname_is_wrapper("device_kernel"), 1);
  ASSERT_EQ(dl_kname_is_wrapper("kernel"), 0);
  ASSERT_EQ(dl_kname_is_wrapper("Kernel3"), 0);
  ASSERT_EQ(dl_kname_is_wrapper("device_kernel2"), 0);
  ASSERT_EQ(dl_kname_is_wrapper(""), 0);
  return 0;
}

int main(void) {
  RUN(test_wrappers);
  RUN(test_plain);
  RUN(test_unbalanced);
  RUN(test_prefixes);
  RUN(test_is_wrapper);
  TEST_DONE();
}
