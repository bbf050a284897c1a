/*
 * kname.c - demangled and short kernel names (kname.h).
 * "void at::native::vectorized_elementwise_kernel<4, F>(int, F)" has the
 * short name "vectorized_elementwise_kernel"; the short name comes from
 * common/dl_kname.c, which the Nsight Systems importer shares (CUTLASS's
 * wrapper kernels are named for the kernel type they launch).
 */
#include "kname.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dl_kname.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static char *demangle(const char *s) {
  static demangle_fn fn;
  static int looked;
  if (strncmp(s, "_Z", 2) != 0) return NULL;
  if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
    void *p = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    __atomic_store_n(&fn, (demangle_fn)p, __ATOMIC_RELAXED);
    __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  }
  demangle_fn f = __atomic_load_n(&fn, __ATOMIC_RELAXED);
  int status = 0;
  char *out = f ? f(s, NULL, NULL, &status) : NULL;
  if (status != 0) {
    free(out);
    return NULL;
  }
  return out;
}

int dlc_kname(const char *mangled, char **long_name, char **short_name) {
  if (!mangled) mangled = "";
  char *lng = demangle(mangled);
  if (!lng) lng = strdup(mangled);
  char *shrt = lng ? dl_kname_short(lng) : NULL;
  if (!lng || !shrt) {
    free(lng);
    free(shrt);
    *long_name = *short_name = NULL;
    return DL_ENOMEM;
  }
  *long_name = lng;
  *short_name = shrt;
  return DL_OK;
}
