/* dl_csv.c - the CSV field encoder (see dl_csv.h). */
#include "dl_csv.h"

#include <string.h>

#include "dl.h"

void dl_csv_field(dl_csv_put_fn put, void *ctx, const char *s, int quote, int guard) {
  const char *g = guard && dl_csv_formula_like(s) ? "'" : "";
  if (!quote && !s[strcspn(s, ",\"\r\n")]) {
    put(ctx, g, strlen(g));
    put(ctx, s, strlen(s));
    return;
  }
  put(ctx, "\"", 1);
  put(ctx, g, strlen(g));
  for (const char *q; (q = strchr(s, '"')); s = q + 1) {
    put(ctx, s, (size_t)(q - s));
    put(ctx, "\"\"", 2); /* the quote, doubled */
  }
  put(ctx, s, strlen(s));
  put(ctx, "\"", 1);
}
