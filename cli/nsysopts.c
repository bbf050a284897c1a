/* nsysopts.c - Nsight Systems options mapped onto the collector's
 * (nsysopts.h). */
#include "nsysopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { N_TRACE, N_SAMPLE, N_DELAY, N_DURATION, N_RANGE } nsys_id;

/* The options that map; each takes a value. */
static const struct { const char *name; nsys_id id; } known[] = {
    {"-t", N_TRACE},    {"--trace", N_TRACE},       {"-s", N_SAMPLE},
    {"--sample", N_SAMPLE}, {"-y", N_DELAY},        {"--delay", N_DELAY},
    {"-d", N_DURATION}, {"--duration", N_DURATION}, {"-c", N_RANGE},
    {"--capture-range", N_RANGE},
};

/* -t values the collector records (cuBLAS's and cuDNN's work as CUDA kernels). */
static const char *const traces[] = {"cuda", "nvtx", "cublas", "cudnn"};

static void add_ignored(dlprof_nsysopts *o, const char *what, const char *why) {
  size_t n = strlen(o->ignored);
  snprintf(o->ignored + n, sizeof o->ignored - n, "%s%s (%s)", n ? "; " : "", what, why);
}

static int seconds(const char *v, int64_t *out) {
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (errno || end == v || *end || n < 0 || n > 1000000000) return -1;
  *out = n;
  return 0;
}

static void trace_list(dlprof_nsysopts *o, const char *v) {
  char buf[256], what[300];
  snprintf(buf, sizeof buf, "%s", v);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int rec = 0;
    for (size_t i = 0; i < sizeof traces / sizeof *traces; i++)
      if (!strcmp(traces[i], t)) rec = 1;
    if (rec) continue;
    snprintf(what, sizeof what, "-t %s", t);
    add_ignored(o, what, "the collector records CUDA activity and NVTX ranges only");
  }
}

static int apply(dlprof_nsysopts *o, nsys_id id, const char *name, const char *v, char *err,
                 size_t errlen) {
  char what[300];
  switch (id) {
  case N_TRACE: trace_list(o, v); return 0;
  case N_SAMPLE:
    if (strcmp(v, "none")) {
      snprintf(what, sizeof what, "%s %s", name, v);
      add_ignored(o, what, "the collector does not sample CPUs");
    }
    return 0;
  case N_DELAY:
  case N_DURATION:
    if (seconds(v, id == N_DELAY ? &o->delay_s : &o->duration_s)) {
      snprintf(err, errlen, "--nsys_options: %s: expected a number of seconds >= 0, got '%s'",
               name, v);
      return -1;
    }
    return 0;
  case N_RANGE:
    if (!strcmp(v, "cudaProfilerApi")) o->profile_range = 1;
    else if (!strcmp(v, "none")) o->profile_range = 0;
    else {
      snprintf(what, sizeof what, "%s %s", name, v);
      add_ignored(o, what, "only cudaProfilerApi ranges are recorded");
    }
    return 0;
  }
  return 0;
}

int dlprof_nsysopts_parse(const char *s, dlprof_nsysopts *out, char *err, size_t errlen) {
  char buf[2048];
  char *tok[256];
  int n = 0;
  memset(out, 0, sizeof *out);
  out->delay_s = out->duration_s = -1;
  out->profile_range = -1;
  snprintf(buf, sizeof buf, "%s", s);
  for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t && n < 256;
       t = strtok_r(NULL, " \t", &save))
    tok[n++] = t;
  for (int i = 0; i < n; i++) {
    char *eq = strchr(tok[i], '=');
    if (eq) *eq = '\0';
    int idx = -1;
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
      if (!strcmp(known[k].name, tok[i])) idx = (int)k;
    const char *name = tok[i], *value = eq ? eq + 1 : NULL;
    if (idx >= 0 && !value && i + 1 < n) value = tok[++i];
    if (idx < 0 || !value) {
      if (eq) *eq = '=';
      add_ignored(out, name, "Nsight Systems is not run: the collector records instead");
      continue;
    }
    if (apply(out, known[idx].id, name, value, err, errlen)) return -1;
  }
  return 0;
}
