/*
 * kname.c - demangled and short kernel names (kname.h).
 * "void at::native::vectorized_elementwise_kernel<4, F>(int, F)" has the
 * short name "vectorized_elementwise_kernel": drop the parameter list and
 * template arguments at depth 0, the return type and the scopes.
 */
#include "kname.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"

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

/* The bare function name of a demangled signature, as a new string. */
static char *short_of(const char *s) {
  size_t n = strlen(s), end = n;
  int depth = 0;
  /* the parameter list: the first '(' at template depth 0 (skip a leading
   * "(anonymous namespace)") */
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '<') depth++;
    else if (s[i] == '>') depth--;
    else if (s[i] == '(' && depth == 0 && i > 0 && strncmp(s + i, "(anonymous", 10) != 0) {
      end = i;
      break;
    }
  }
  /* strip template arguments at depth 0 from the end */
  while (end > 0 && s[end - 1] == '>') {
    depth = 0;
    size_t i = end;
    while (i > 0) {
      i--;
      if (s[i] == '>') depth++;
      else if (s[i] == '<' && --depth == 0) break;
    }
    end = i;
  }
  /* the last scope or word */
  size_t start = 0;
  depth = 0;
  for (size_t i = 0; i < end; i++) {
    if (s[i] == '<' || s[i] == '(') depth++;
    else if (s[i] == '>' || s[i] == ')') depth--;
    else if (depth == 0 && s[i] == ' ') start = i + 1;
    else if (depth == 0 && s[i] == ':' && i + 1 < end && s[i + 1] == ':') start = i + 2;
  }
  if (start >= end) start = 0, end = n;
  char *out = malloc(end - start + 1);
  if (out) {
    memcpy(out, s + start, end - start);
    out[end - start] = '\0';
  }
  return out;
}

int dlc_kname(const char *mangled, char **long_name, char **short_name) {
  if (!mangled) mangled = "";
  char *lng = demangle(mangled);
  if (!lng) lng = strdup(mangled);
  char *shrt = lng ? short_of(lng) : NULL;
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
