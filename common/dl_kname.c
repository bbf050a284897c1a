/*
 * dl_kname.c - a kernel's short name from its demangled name (dl_kname.h).
 *
 * The plain rule drops the parameter list (the first '(' at template depth
 * 0, past a leading "(anonymous namespace)"), then template argument lists
 * at depth 0 from the end, then the return type and the scopes. The CUTLASS
 * rule applies the same steps to the wrapper's first template argument.
 * Every scan stays inside [0, strlen(name)); brackets that do not balance
 * give a span the caller can use, never an index outside the string.
 */
#include "dl_kname.h"

#include <stdlib.h>
#include <string.h>

/* The qualified names of CUTLASS's kernel wrappers, and their bare names. */
static const char *const wrappers[] = {"cutlass::Kernel", "cutlass::Kernel2",
                                       "cutlass::device_kernel", NULL};
static const char *const wrapper_shorts[] = {"Kernel", "Kernel2", "device_kernel", NULL};

/* Where the parameter list of s[0, n) starts: the first '(' at template
 * depth 0 that is not s[0] nor "(anonymous namespace)"; n when none. */
static size_t params_at(const char *s, size_t n) {
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '<') depth++;
    else if (s[i] == '>') depth--;
    else if (s[i] == '(' && depth == 0 && i > 0 && strncmp(s + i, "(anonymous", 10) != 0)
      return i;
  }
  return n;
}

/* The '<' that opens the template argument list closed by s[end - 1] (a
 * '>'), searching no lower than b; b when it does not balance. */
static size_t open_of(const char *s, size_t b, size_t end) {
  int depth = 0;
  size_t i = end;
  while (i > b) {
    i--;
    if (s[i] == '>') depth++;
    else if (s[i] == '<' && --depth == 0) break;
  }
  return i;
}

/* Where the last word of s[b, end) starts: after the last space at depth 0
 * and, when scopes is set, after the last "::" at depth 0 too. */
static size_t last_word(const char *s, size_t b, size_t end, int scopes) {
  size_t start = b;
  int depth = 0;
  for (size_t i = b; i < end; i++) {
    if (s[i] == '<' || s[i] == '(') depth++;
    else if (s[i] == '>' || s[i] == ')') depth--;
    else if (depth == 0 && s[i] == ' ') start = i + 1;
    else if (scopes && depth == 0 && s[i] == ':' && i + 1 < end && s[i + 1] == ':') start = i + 2;
  }
  return start;
}

static int is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The CUTLASS rule on s, whose parameter list starts at end (params_at). */
static int cutlass_span(const char *s, size_t end, size_t *off, size_t *len) {
  if (end == 0 || s[end - 1] != '>') return 0;
  size_t close = end - 1, lt = open_of(s, 0, end);
  /* the function's qualified name, after a return type */
  size_t q = last_word(s, 0, lt, 0);
  int found = 0;
  for (int i = 0; wrappers[i] && !found; i++)
    found = lt - q == strlen(wrappers[i]) && memcmp(s + q, wrappers[i], lt - q) == 0;
  if (!found || s[lt] != '<') return 0;
  /* the first template argument: up to a ',' at depth 0 or the list's end */
  size_t a = lt + 1, z = a;
  int depth = 0;
  for (; z < close; z++) {
    if (s[z] == '<' || s[z] == '(') depth++;
    else if (s[z] == '>' || s[z] == ')') depth--;
    else if (s[z] == ',' && depth == 0) break;
  }
  while (a < z && s[a] == ' ') a++;
  while (z > a && s[z - 1] == ' ') z--;
  /* its bare name: no template arguments, scopes or keywords ("struct") */
  while (z > a && s[z - 1] == '>') z = open_of(s, a, z);
  size_t b = last_word(s, a, z, 1);
  if (b >= z || (s[b] >= '0' && s[b] <= '9')) return 0;
  for (size_t i = b; i < z; i++)
    if (!is_ident_char(s[i])) return 0;
  *off = b;
  *len = z - b;
  return 1;
}

void dl_kname_short_span(const char *name, size_t *off, size_t *len) {
  size_t n = strlen(name), end = params_at(name, n);
  if (cutlass_span(name, end, off, len)) return;
  while (end > 0 && name[end - 1] == '>') end = open_of(name, 0, end);
  size_t start = last_word(name, 0, end, 1);
  if (start >= end) start = 0, end = n;
  *off = start;
  *len = end - start;
}

char *dl_kname_short(const char *name) {
  size_t off, len;
  dl_kname_short_span(name, &off, &len);
  char *out = malloc(len + 1);
  if (out) {
    memcpy(out, name + off, len);
    out[len] = '\0';
  }
  return out;
}

int dl_kname_cutlass_span(const char *name, size_t *off, size_t *len) {
  return cutlass_span(name, params_at(name, strlen(name)), off, len);
}

int dl_kname_is_wrapper(const char *short_name) {
  if (short_name[0] != 'K' && short_name[0] != 'd') return 0; /* most names, at once */
  for (int i = 0; wrapper_shorts[i]; i++)
    if (strcmp(short_name, wrapper_shorts[i]) == 0) return 1;
  return 0;
}
