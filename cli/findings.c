/*
 * findings.c - the expert findings of `dlprof APP` on stdout (findings.h).
 */
#include "findings.h"

#include <stdlib.h>
#include <string.h>

/* DLProf's words for a profile without a key op, and what dlprof APP says. */
static const char no_key_dlprof[] = "key op  not found";
static const char no_key_said[] = "no key op was set (--key_op), so the whole profile is one "
                                  "iteration";

int dlprof_findings_sink(void *ctx, const char *buf, size_t len) {
  dlprof_findings *f = ctx;
  if (f->len + len + 1 > f->cap) {
    size_t cap = (f->len + len + 1) * 2;
    char *t = realloc(f->text, cap);
    if (!t) return 1;
    f->text = t;
    f->cap = cap;
  }
  memcpy(f->text + f->len, buf, len);
  f->len += len;
  f->text[f->len] = '\0';
  return 0;
}

void dlprof_findings_print(dlprof_findings *f, FILE *out) {
  const char *p = f->text ? f->text : "";
  for (const char *hit; (hit = strstr(p, no_key_dlprof)); p = hit + sizeof no_key_dlprof - 1) {
    fwrite(p, 1, (size_t)(hit - p), out);
    fputs(no_key_said, out);
  }
  fputs(p, out);
  fflush(out);
  free(f->text);
  memset(f, 0, sizeof *f);
}
