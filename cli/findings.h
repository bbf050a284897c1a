/*
 * findings.h - the expert findings of `dlprof APP` on stdout. They are
 * gathered while the pipeline writes them and printed once it is done, with
 * DLProf's text for a profile without a key op ("key op  not found", an
 * empty name) saying what happened instead; the dldb and the reports keep
 * DLProf's text. Owns the gathered text until dlprof_findings_print.
 */
#ifndef DLPROF_FINDINGS_H
#define DLPROF_FINDINGS_H

#include <stddef.h>
#include <stdio.h>

typedef struct dlprof_findings {
  char *text;
  size_t len, cap;
} dlprof_findings;

/* A dlp_opts.findings sink: appends buf to ctx (a dlprof_findings). 0, or
 * 1 when out of memory. */
int dlprof_findings_sink(void *ctx, const char *buf, size_t len);

/* Prints the gathered findings to out and frees them. */
void dlprof_findings_print(dlprof_findings *f, FILE *out);

#endif
