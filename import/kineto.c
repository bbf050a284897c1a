/*
 * kineto.c - the PyTorch profiler (Kineto) JSON importer (see dli_kineto.h).
 *
 * One pass per file over kjson tokens: the top-level object's members are
 * handled as they come (deviceProperties and distributedInfo precede
 * traceEvents in every generation seen; baseTimeNanoseconds follows it),
 * and each event object of traceEvents is read into a fixed scratch record
 * and handed at its closing brace to a second thread that writes it
 * (kpipe.h: in order, at most 4 MB in flight; the parser waits until all
 * is written before it handles anything else). Nothing of the trace is
 * kept except the device table and counters.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <zlib.h>

#include "dldb_write.h"
#include "dldb_write_pyframe.h"
#include "dli_kineto.h"
#include "dldb_ranks.h"
#include "kjson.h"
#include "kpipe.h"
#include "kstack.h"

#define MAX_DEVS 64
#define DIMS_CAP 1024
#define CONCRETE_CAP 256
#define TYPES_CAP 64
#define ARG_SLOTS_LOG2 6
#define ARG_SLOTS (1u << ARG_SLOTS_LOG2)

enum cat { C_NONE, C_OP, C_ANNOT, C_GPU_ANNOT, C_RUNTIME, C_DRIVER, C_KERNEL, C_MEMCPY,
           C_MEMSET, C_SYNC, C_PYTHON, C_TRACE, C_OTHER };

typedef struct kdev {
  int id, cc_major, cc_minor, sm_count;
  int64_t mem;
  char name[128];
} kdev;

/* One event, as read. The members up to `name` are its fixed part: reset
 * per event (the buffers after it only get an empty string) and copied
 * whole into the pipeline's records. */
typedef struct kev {
  char ph;
  int cat, cat_capital;
  int name_cut;            /* the name was cut at DLI_MAX_NAME_BYTES */
  int legacy_cpu;          /* "pid": "CPU functions" (the autograd profiler's format) */
  int64_t pid, tid, ts, dur;
  int pid_ok, tid_ok, tid_str, ts_ok, dur_ok;
  int64_t corr, device, stream, context, regs, smem, bytes, seq, fwd_tid;
  int corr_ok, device_ok, stream_ok, seq_ok, fwd_ok;
  int32_t grid[3], block[3];
  double bpsm, occ;
  char dtype[16];
  int64_t coll_in, coll_out, coll_group; /* an NCCL kernel's "In/Out msg nelems", "Group size" */
  int coll_args;                         /* which of them were read (COLL_* bits) */
  int64_t py_id, py_parent;              /* a python_function's "Python id", "Python parent id" */
  int py_id_ok, py_parent_ok;
  char coll_name[24], coll_dtype[24];    /* its "Collective name" and "dtype" */
  char *name;              /* name_len bytes and a NUL */
  size_t name_len, name_cap;
  char *stack;             /* "Call stack" (with_stack=True), stack_len bytes and a NUL */
  size_t stack_len, stack_cap;
  char dims[DIMS_CAP];
  char concrete[CONCRETE_CAP]; /* "Concrete Inputs": kept in the text of convolutions only */
  char mname[256];
} kev;

#define KEV_FIXED offsetof(kev, name)

/* The texts of an event as emit() reads them: in the pipeline's record,
 * each with its length and a NUL (put_event, write_event). */
typedef enum { T_NAME, T_DIMS, T_CONCRETE, T_MNAME, T_STACK, T_COUNT } ktext_part;
typedef struct ktext {
  const char *s[T_COUNT];
  uint32_t n[T_COUNT];
} ktext;

typedef struct kimp {
  const char *path;          /* the file being read */
  const dli_opts *opts;      /* its progress callback (may be NULL) */
  dldb_writer *w;
  dldb_occ_writer *occ;
  dli_kineto_stats *st;
  char *err;
  size_t errlen;
  int multi, file_index, rank, rank_known, events_started;
  int proc_index;            /* the process (worker) of the file: its cycles share it */
  int cycle;                 /* 1: the file is a later cycle of its process */
  int64_t shift_ns;          /* added to the file's times: a later cycle follows the last */
  int64_t file_end_ns;       /* the latest end of the file's events, shifted */
  int64_t file_unknown;      /* its events of unknown kinds */
  int64_t file_legacy;       /* its events in the autograd profiler's format */
  kdev devs[MAX_DEVS];
  int ndev;
  int32_t used[MAX_DEVS];    /* local device ids with GPU events */
  int nused, used_overflow;
  int64_t file_gpu_events;
  char cuda_runtime[32];
  char cuda_driver[32];      /* cuda_driver_version: the CUDA driver API version (12.9), not
                                the driver's (575.51.03) */
  char driver[32];           /* the driver's version, where the trace carries it */
  char backend[32];
  int64_t base_ns;
  kstack *stacks;            /* python_function frames and the ops without a Call stack */
  kev ev;                    /* the event being parsed (parsing thread) */
  kev wev;                   /* the fixed part of the event being written (kpipe's thread) */
  kpipe *pipe;               /* parsed events on their way to emit() */
  int64_t names_cut;         /* names longer than DLI_MAX_NAME_BYTES */
  char *text;                /* range text scratch */
  size_t text_cap;
  /* dli_kineto_import_mem: the one input is these bytes, and events go to
   * emit() on this thread through rec (no kpipe) */
  const unsigned char *mem;
  size_t mem_n, mem_at;
  char *rec;
  size_t rec_cap;
  struct { const char *key; size_t n; uint32_t sig; int id; } args[ARG_SLOTS]; /* arg_id */
} kimp;

/* ---- Input ---------------------------------------------------------------- */

static long gz_read(void *ctx, void *buf, size_t len) {
  if (len > INT_MAX) len = INT_MAX;
  int n = gzread((gzFile)ctx, buf, (unsigned)len);
  return n < 0 ? -1 : n;
}

/* Reads k->mem (dli_kineto_import_mem). */
static long mem_read(void *ctx, void *buf, size_t len) {
  kimp *k = ctx;
  size_t n = k->mem_n - k->mem_at < len ? k->mem_n - k->mem_at : len;
  memcpy(buf, k->mem + k->mem_at, n);
  k->mem_at += n;
  return (long)n;
}

static int open_input(const char *path, gzFile *gz, kjson **j, char *err, size_t errlen) {
  *gz = gzopen(path, "rb");
  if (!*gz) return dl_err(err, errlen, DL_EIO, "%s: cannot open: %s", path, strerror(errno));
  gzbuffer(*gz, 1u << 16); /* reads of >= 128 KB (kjson asks 256 KB) skip its buffer */
  *j = kjson_open(gz_read, *gz);
  if (!*j) {
    gzclose(*gz);
    *gz = NULL;
    return dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", path);
  }
  return DL_OK;
}

static int json_error(const char *path, kjson *j, char *err, size_t errlen) {
  return dl_err(err, errlen, DL_EFORMAT, "%s: not valid JSON: %s", path, kjson_error(j));
}

static int is_execution_trace_key(const char *k) {
  return strcmp(k, "nodes") == 0 || strcmp(k, "schema") == 0;
}

static int reject_et(const char *path, char *err, size_t errlen) {
  return dl_err(err, errlen, DL_EFORMAT,
                "%s: a PyTorch Execution Trace (top-level \"schema\" and \"nodes\"), not a "
                "profiler trace: it has no timings to analyse; record with torch.profiler "
                "(e.g. on_trace_ready=torch.profiler.tensorboard_trace_handler) and pass "
                "that *.pt.trace.json file",
                path);
}

static int reject_other(const char *path, char *err, size_t errlen) {
  return dl_err(err, errlen, DL_EFORMAT,
                "%s: JSON, but not a PyTorch profiler (Kineto) trace: no \"traceEvents\" "
                "array",
                path);
}

/* ---- Directories -------------------------------------------------------- */

static int has_suffix(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

static int trace_name(const char *name) {
  return name[0] != '.' && (has_suffix(name, ".json") || has_suffix(name, ".json.gz"));
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The trace files of a directory, sorted; *n = 0 when none. Free with
 * free_list. */
static char **list_dir(const char *path, size_t *n) {
  DIR *d = opendir(path);
  char **v = NULL;
  size_t cap = 0;
  *n = 0;
  if (!d) return NULL;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!trace_name(e->d_name)) continue;
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    char *full = malloc(len);
    if (!full) break;
    snprintf(full, len, "%s/%s", path, e->d_name);
    struct stat sb;
    if (stat(full, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      free(full);
      continue;
    }
    if (*n == cap) {
      size_t ncap = cap ? cap * 2 : 16;
      char **nv = realloc(v, ncap * sizeof *nv);
      if (!nv) {
        free(full);
        break;
      }
      v = nv;
      cap = ncap;
    }
    v[(*n)++] = full;
  }
  closedir(d);
  if (*n > 1) qsort(v, *n, sizeof *v, cmp_str);
  return v;
}

static void free_list(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* tensorboard_trace_handler names its files <worker>.<timestamp>.pt.trace.json
 * (.gz), the timestamp in ms (PyTorch 1.x) or ns (time.time_ns(), PyTorch
 * 2.x: 19 digits): the files of one worker are the cycles of one process. A
 * file named otherwise is a process of its own. Sets the worker's name (the
 * whole file name when it has no such form) and the timestamp (0 without
 * one). */
static void trace_worker(const char *path, char *worker, size_t cap, int64_t *ms) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(worker, cap, "%s", base);
  *ms = 0;
  char *suf = strstr(worker, ".pt.trace.json");
  if (!suf || (strcmp(suf, ".pt.trace.json") != 0 && strcmp(suf, ".pt.trace.json.gz") != 0))
    return;
  char *dot = suf;
  while (dot > worker && dot[-1] >= '0' && dot[-1] <= '9') dot--;
  if (dot == suf || dot == worker || dot[-1] != '.' || suf - dot > 19) return;
  errno = 0;
  long long t = strtoll(dot, NULL, 10);
  if (errno == ERANGE) return;
  *ms = t;
  dot[-1] = '\0';
}

typedef struct tfile {
  char *path;
  char worker[256];
  int64_t ms;
} tfile;

static int cmp_tfile(const void *a, const void *b) {
  const tfile *x = a, *y = b;
  int c = strcmp(x->worker, y->worker);
  if (c) return c;
  if (x->ms != y->ms) return x->ms < y->ms ? -1 : 1;
  return strcmp(x->path, y->path);
}

/* Orders a directory's files by worker, then timestamp: the cycles of a
 * process follow each other. */
static int order_by_worker(char **v, size_t n) {
  tfile *t = malloc((n + 1) * sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < n; i++) {
    t[i].path = v[i];
    trace_worker(v[i], t[i].worker, sizeof t[i].worker, &t[i].ms);
  }
  qsort(t, n, sizeof *t, cmp_tfile);
  for (size_t i = 0; i < n; i++) v[i] = t[i].path;
  free(t);
  return 0;
}

static int same_worker(const char *a, const char *b) {
  char wa[256], wb[256];
  int64_t ms;
  trace_worker(a, wa, sizeof wa, &ms);
  trace_worker(b, wb, sizeof wb, &ms);
  return strcmp(wa, wb) == 0;
}

static int is_dir(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int dli_kineto_is_trace_dir(const char *path) {
  size_t n;
  char **v = list_dir(path, &n);
  free_list(v, n);
  return n > 0;
}

/* The error for an input whose first value is no JSON object or array: a
 * gzip file that holds something else is not called JSON. */
static int reject_not_trace(const char *path, gzFile gz, char *err, size_t errlen) {
  if (gz && !gzdirect(gz))
    return dl_err(err, errlen, DL_EFORMAT,
                  "%s: gzip-compressed, but what it holds is not a JSON trace", path);
  return dl_err(err, errlen, DL_EFORMAT, "%s: JSON, but not a PyTorch profiler trace", path);
}

/* ---- Origin ------------------------------------------------------------- */

#define ORIGIN_EVENTS 4096

/* The minimum "ts" of the first events of one file (reading every event
 * would cost a second parse of the file: a later event that starts before
 * this origin moves every time at the end of the import instead,
 * dldb_writer_rebase). */
static int file_origin(const char *path, int64_t *origin, int *found, char *err, size_t errlen) {
  gzFile gz = NULL;
  kjson *j = NULL;
  int rc = open_input(path, &gz, &j, err, errlen);
  if (rc) return rc;
  kj_tok t = kjson_next(j);
  int in_events = 0, seen = 0;
  if (t == KJ_ARR) {
    in_events = 1;
  } else if (t == KJ_OBJ) {
    for (;;) {
      t = kjson_next(j);
      if (t == KJ_OBJ_END || t == KJ_ERROR || t == KJ_EOF) break;
      if (t != KJ_KEY) continue;
      if (is_execution_trace_key(kjson_text(j))) {
        rc = reject_et(path, err, errlen);
        goto out;
      }
      int ev = strcmp(kjson_text(j), "traceEvents") == 0;
      t = kjson_next(j);
      if (ev && t == KJ_ARR) {
        in_events = 1;
        break;
      }
      if (kjson_skip(j, t) == KJ_ERROR) {
        t = KJ_ERROR;
        break;
      }
    }
  }
  if (t == KJ_ERROR) {
    rc = json_error(path, j, err, errlen);
    goto out;
  }
  if (!in_events) {
    rc = t == KJ_OBJ_END || t == KJ_OBJ ? reject_other(path, err, errlen)
                                        : reject_not_trace(path, gz, err, errlen);
    goto out;
  }
  /* events: objects at depth d+1; the "ts" member of each */
  int edepth = kjson_depth(j) + 1;
  while (seen < ORIGIN_EVENTS) {
    t = kjson_next(j);
    if (t == KJ_ERROR || t == KJ_EOF) break;
    /* the end of the events array, not of an array inside an event
     * ("Input Dims", "grid", ...) */
    if (t == KJ_ARR_END && kjson_depth(j) < edepth) break;
    if (t == KJ_KEY && kjson_depth(j) == edepth && strcmp(kjson_text(j), "ts") == 0) {
      t = kjson_next(j);
      int64_t ns;
      if (t == KJ_NUM && kjson_us_to_ns(kjson_text(j), &ns)) {
        if (!*found || ns < *origin) *origin = ns;
        *found = 1;
        seen++;
      }
    }
  }
  if (t == KJ_ERROR && !seen) rc = json_error(path, j, err, errlen);
out:
  kjson_free(&j);
  gzclose(gz);
  return rc;
}

int dli_kineto_origin(const char *path, int64_t *origin_ns, char *err, size_t errlen) {
  int found = 0, rc = DL_OK;
  *origin_ns = 0;
  if (is_dir(path)) {
    size_t n;
    char **v = list_dir(path, &n);
    if (n == 0)
      rc = dl_err(err, errlen, DL_ENOTFOUND, "%s: no *.json or *.json.gz traces in the directory",
                  path);
    for (size_t i = 0; rc == DL_OK && i < n; i++) rc = file_origin(v[i], origin_ns, &found, err, errlen);
    free_list(v, n);
  } else {
    rc = file_origin(path, origin_ns, &found, err, errlen);
  }
  return rc;
}

/* ---- Events -------------------------------------------------------------- */

static void note(kimp *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(kimp *k, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  size_t n = strlen(k->st->notes);
  if (n + 3 >= sizeof k->st->notes) return;
  snprintf(k->st->notes + n, sizeof k->st->notes - n, "%s%s", n ? "; " : "", line);
}

static int map_cat(const char *s, int *capital) {
  *capital = s[0] >= 'A' && s[0] <= 'Z';
  static const struct { const char *name; int cat; } cats[] = {
      {"cpu_op", C_OP},           {"operator", C_OP},
      {"user_annotation", C_ANNOT}, {"gpu_user_annotation", C_GPU_ANNOT},
      {"cuda_runtime", C_RUNTIME}, {"runtime", C_RUNTIME},
      {"cuda_driver", C_DRIVER},   {"kernel", C_KERNEL},
      {"gpu_memcpy", C_MEMCPY},    {"memcpy", C_MEMCPY},
      {"gpu_memset", C_MEMSET},    {"memset", C_MEMSET},
      {"cuda_sync", C_SYNC},       {"python_function", C_PYTHON},
      {"trace", C_TRACE},
  };
  int first = tolower((unsigned char)s[0]);
  for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)
    if (cats[i].name[0] == first && strcasecmp(s, cats[i].name) == 0) return cats[i].cat;
  return C_OTHER;
}

/* pid/tid: a number, a numeric string ("24572"), or "stream 7". */
static int parse_id(kjson *j, kj_tok t, int64_t *v, int *is_str) {
  *is_str = t == KJ_STR;
  if (t == KJ_NUM) return kjson_int64(kjson_text(j), v);
  if (t != KJ_STR) return 0;
  const char *s = kjson_text(j);
  if (strncmp(s, "stream ", 7) == 0) s += 7;
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (end == s || *end || errno) return 0;
  *v = x;
  return 1;
}

static int read_int(kjson *j, kj_tok t, int64_t *v) {
  if (t == KJ_NUM) return kjson_int64(kjson_text(j), v);
  if (t == KJ_STR) return kjson_int64(kjson_text(j), v);
  return 0;
}

static double read_real(kjson *j, kj_tok t) {
  if (t == KJ_NUM || t == KJ_STR) return kjson_double(kjson_text(j));
  return NAN;
}

static kj_tok read_xyz(kjson *j, kj_tok t, int32_t out[3]) {
  if (t != KJ_ARR) return kjson_skip(j, t);
  int i = 0;
  for (;;) {
    kj_tok k = kjson_next(j);
    if (k == KJ_ARR_END || k == KJ_ERROR) return k;
    int64_t v;
    if (k == KJ_NUM && i < 3 && kjson_int64(kjson_text(j), &v)) out[i] = (int32_t)v;
    i++;
    if (kjson_skip(j, k) == KJ_ERROR) return KJ_ERROR;
  }
}

/* The data type of an op from its "Input type" list: the first float type. */
static const char *float_type(const char *t, size_t n) {
  static const struct { const char *in; size_t n; const char *out; } map[] = {
      {"float", 5, "float32"},          {"double", 6, "float64"},
      {"c10::Half", 9, "float16"},      {"Half", 4, "float16"},
      {"c10::BFloat16", 13, "bfloat16"}, {"BFloat16", 8, "bfloat16"},
      {"c10::Float8_e4m3fn", 18, "float8"}, {"c10::Float8_e5m2", 16, "float8"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) /* the length first: cheap */
    if (map[i].n == n && memcmp(t, map[i].in, n) == 0) return map[i].out;
  return NULL;
}

static kj_tok read_types(kjson *j, kj_tok t, char *dtype, size_t cap) {
  if (t != KJ_ARR) return kjson_skip(j, t);
  for (;;) {
    kj_tok k = kjson_next(j);
    if (k == KJ_ARR_END || k == KJ_ERROR) return k;
    if (k == KJ_STR && !dtype[0]) {
      const char *f = float_type(kjson_text(j), kjson_clen(j));
      if (f && strlen(f) < cap) memcpy(dtype, f, strlen(f) + 1); /* once per op: no printf */
    }
    if (kjson_skip(j, k) == KJ_ERROR) return KJ_ERROR;
  }
}

/* *buf (capacity *cap) = the n bytes at s and a NUL; 0, or -1 when out of
 * memory. */
static int set_buf(char **buf, size_t *cap, size_t *len, const char *s, size_t n) {
  if (n + 1 > *cap) {
    size_t c = *cap ? *cap : 256;
    while (c < n + 1) c *= 2;
    char *p = realloc(*buf, c);
    if (!p) return -1;
    *buf = p;
    *cap = c;
  }
  memcpy(*buf, s, n);
  (*buf)[n] = '\0';
  *len = n;
  return 0;
}

static int set_name(kev *e, const char *s, size_t n) {
  return set_buf(&e->name, &e->name_cap, &e->name_len, s, n);
}

/* The longest call stack kept: whole frames ("a;b;c", innermost first) up
 * to this many bytes; a trace's stacks are a few KB. */
#define MAX_STACK_BYTES 16384

static int set_stack(kev *e, const char *s, size_t n) {
  if (n > MAX_STACK_BYTES) {
    n = MAX_STACK_BYTES;
    while (n > 0 && s[n] != ';') n--;
  }
  return set_buf(&e->stack, &e->stack_cap, &e->stack_len, s, n);
}

/* The "args" members read; the others are skipped. */
enum {
  A_NONE, A_CORR, A_DEVICE, A_STREAM, A_CONTEXT, A_REGS, A_SMEM, A_BYTES, A_BPSM, A_OCC,
  A_THEO_OCC, A_GRID, A_BLOCK, A_SEQ, A_FWD, A_DIMS, A_TYPES, A_NAME, A_STACK, A_CONCRETE,
  A_COLL_NAME, A_COLL_IN, A_COLL_OUT, A_COLL_GROUP, A_COLL_DTYPE, A_PY_ID, A_PY_PARENT
};
enum { COLL_IN = 1, COLL_OUT = 2, COLL_GROUP = 4, COLL_NAME = 8, COLL_DTYPE = 16 };

/* A key's length, first and last byte in one word, and its slot in the
 * lookup table of the "args" members read (most members are not: one
 * probe rejects them). */
static uint32_t key_sig(const char *key, size_t n) {
  return n == 0 ? 0 : (uint32_t)(n & 0xFFFF) << 16 | (uint32_t)(unsigned char)key[0] << 8 |
                          (unsigned char)key[n - 1];
}

static unsigned sig_slot(uint32_t sig) { return (sig * 2654435761u) >> (32 - ARG_SLOTS_LOG2); }

static const struct { const char *key; int id; } arg_keys[] = {
    {"correlation", A_CORR},         {"device", A_DEVICE},
    {"stream", A_STREAM},            {"context", A_CONTEXT},
    {"registers per thread", A_REGS}, {"shared memory", A_SMEM},
    {"bytes", A_BYTES},              {"blocks per SM", A_BPSM},
    {"est. achieved occupancy %", A_OCC}, {"theoretical occupancy %", A_THEO_OCC},
    {"grid", A_GRID},                {"block", A_BLOCK},
    {"Sequence number", A_SEQ},      {"Fwd thread id", A_FWD},
    {"Input Dims", A_DIMS},          {"Input type", A_TYPES},
    {"name", A_NAME},                {"Call stack", A_STACK},
    {"Concrete Inputs", A_CONCRETE}, {"Collective name", A_COLL_NAME},
    {"In msg nelems", A_COLL_IN},    {"Out msg nelems", A_COLL_OUT},
    {"Group size", A_COLL_GROUP},    {"dtype", A_COLL_DTYPE},
    {"Python id", A_PY_ID},          {"Python parent id", A_PY_PARENT},
};

/* Fills the table (open addressing, linear probing; an empty slot has id 0). */
static void arg_table_init(kimp *k) {
  memset(k->args, 0, sizeof k->args);
  for (size_t i = 0; i < sizeof arg_keys / sizeof arg_keys[0]; i++) {
    size_t n = strlen(arg_keys[i].key);
    uint32_t sig = key_sig(arg_keys[i].key, n);
    unsigned at = sig_slot(sig);
    while (k->args[at].id) at = (at + 1) & (ARG_SLOTS - 1);
    k->args[at].sig = sig;
    k->args[at].n = n;
    k->args[at].key = arg_keys[i].key;
    k->args[at].id = arg_keys[i].id;
  }
}

static int arg_id(const kimp *k, const char *key, size_t n) {
  uint32_t sig = key_sig(key, n);
  for (unsigned at = sig_slot(sig); k->args[at].id; at = (at + 1) & (ARG_SLOTS - 1))
    if (k->args[at].sig == sig && k->args[at].n == n && memcmp(k->args[at].key, key, n) == 0)
      return k->args[at].id;
  return A_NONE;
}

/* kjson_skip without a call for the scalars that most member values are. */
static kj_tok skip_value(kjson *j, kj_tok t) {
  return t == KJ_OBJ || t == KJ_ARR ? kjson_skip(j, t) : t;
}

static kj_tok read_args(kimp *k, kjson *j) {
  kev *e = &k->ev;
  for (;;) {
    kj_tok t = kjson_next(j);
    if (t == KJ_OBJ_END || t == KJ_ERROR) return t;
    if (t != KJ_KEY) return KJ_ERROR;
    int id = arg_id(k, kjson_text(j), kjson_clen(j)); /* a "\u0000" ends the key */
    t = kjson_next(j);
    if (t == KJ_ERROR) return t;
    int64_t v;
    switch (id) {
    case A_CORR: e->corr_ok = read_int(j, t, &e->corr); break;
    case A_DEVICE: e->device_ok = read_int(j, t, &e->device); break;
    case A_STREAM: e->stream_ok = read_int(j, t, &e->stream); break;
    case A_CONTEXT: if (read_int(j, t, &v)) e->context = v; break;
    case A_REGS: if (read_int(j, t, &v)) e->regs = v; break;
    case A_SMEM: if (read_int(j, t, &v)) e->smem = v; break;
    case A_BYTES: if (read_int(j, t, &v)) e->bytes = v; break;
    case A_BPSM: e->bpsm = read_real(j, t); break;
    case A_OCC: e->occ = read_real(j, t); break;
    case A_THEO_OCC: if (isnan(e->occ)) e->occ = read_real(j, t); break;
    case A_GRID: t = read_xyz(j, t, e->grid); break;
    case A_BLOCK: t = read_xyz(j, t, e->block); break;
    case A_SEQ: e->seq_ok = read_int(j, t, &e->seq); break;
    case A_FWD: e->fwd_ok = read_int(j, t, &e->fwd_tid); break;
    case A_DIMS: t = kjson_render(j, t, e->dims, sizeof e->dims); break;
    case A_TYPES: t = read_types(j, t, e->dtype, sizeof e->dtype); break;
    case A_CONCRETE: t = kjson_render(j, t, e->concrete, sizeof e->concrete); break;
    case A_NAME:
      if (t == KJ_STR) snprintf(e->mname, sizeof e->mname, "%s", kjson_text(j));
      break;
    case A_STACK:
      /* optional: a stack that finds no memory is left out */
      if (t == KJ_STR) (void)set_stack(e, kjson_text(j), kjson_clen(j));
      break;
    case A_PY_ID: e->py_id_ok = read_int(j, t, &e->py_id); break;
    case A_PY_PARENT: e->py_parent_ok = read_int(j, t, &e->py_parent); break;
    case A_COLL_IN: if (read_int(j, t, &e->coll_in)) e->coll_args |= COLL_IN; break;
    case A_COLL_OUT: if (read_int(j, t, &e->coll_out)) e->coll_args |= COLL_OUT; break;
    case A_COLL_GROUP: if (read_int(j, t, &e->coll_group)) e->coll_args |= COLL_GROUP; break;
    case A_COLL_NAME:
    case A_COLL_DTYPE:
      if (t == KJ_STR) {
        int nm = id == A_COLL_NAME;
        if (nm) snprintf(e->coll_name, sizeof e->coll_name, "%s", kjson_text(j));
        else snprintf(e->coll_dtype, sizeof e->coll_dtype, "%s", kjson_text(j));
        e->coll_args |= nm ? COLL_NAME : COLL_DTYPE;
      }
      break;
    default: break;
    }
    if (skip_value(j, t) == KJ_ERROR) return KJ_ERROR;
  }
}

static void ev_reset(kev *e) {
  memset(e, 0, KEV_FIXED); /* not the 1.3 KB of buffers, once per event */
  e->name_len = e->stack_len = 0;
  if (e->name) e->name[0] = '\0';
  if (e->stack) e->stack[0] = '\0';
  e->dims[0] = e->concrete[0] = e->mname[0] = '\0';
  e->bpsm = e->occ = NAN;
}

/* Remapped ids keep processes (ranks) of one profile apart; the cycles of
 * one process share its threads. */
static int64_t map_tid(const kimp *k, int64_t tid) {
  return k->multi ? ((int64_t)k->proc_index << 32) | (tid & 0xFFFFFFFF) : tid;
}
static int64_t map_pid(const kimp *k, int64_t pid) {
  return k->multi ? ((int64_t)k->proc_index << 22) | (pid & 0x3FFFFF) : pid;
}
/* CUDA calls and GPU activity join on (pid, correlation id): one pid per file. */
static int64_t file_pid(const kimp *k) { return k->file_index; }
static int32_t map_dev(const kimp *k, int64_t dev) {
  return (int32_t)(k->multi ? (int64_t)k->rank * 100 + dev : dev);
}

static void mark_used(kimp *k, int64_t dev) {
  for (int i = 0; i < k->nused; i++)
    if (k->used[i] == dev) return;
  if (k->nused < MAX_DEVS) k->used[k->nused++] = (int32_t)dev;
  else k->used_overflow = 1;
}

static const kdev *find_dev(const kimp *k, int64_t dev) {
  for (int i = 0; i < k->ndev; i++)
    if (k->devs[i].id == dev) return &k->devs[i];
  return NULL;
}

static char *put_text(char *p, const char *s, size_t n) {
  memcpy(p, s, n);
  return p + n;
}

/* v >= 0 in decimal. */
static char *put_int(char *p, int64_t v) {
  char d[24];
  int n = 0;
  do d[n++] = (char)('0' + v % 10); while ((v /= 10) > 0);
  while (n) *p++ = d[--n];
  return p;
}

static int range_text(kimp *k, const kev *e, const ktext *x) {
  size_t need = x->n[T_NAME] + sizeof e->dims + sizeof e->concrete + 144;
  if (need > k->text_cap) {
    char *p = realloc(k->text, need);
    if (!p) return -1;
    k->text = p;
    k->text_cap = need;
  }
  /* need covers every part: the name, dims (bounded by its array), two
   * numbers of at most 20 digits, dtype (< 32), concrete inputs (bounded) and the
   * labels */
  char *p = k->text;
  p = put_text(p, x->s[T_NAME], x->n[T_NAME]);
  if (e->seq_ok && e->seq >= 0) p = put_int(put_text(p, ", seq = ", 8), e->seq);
  if (e->fwd_ok && e->fwd_tid > 0) p = put_int(put_text(p, ", fwd_tid = ", 12), e->fwd_tid);
  if (x->n[T_DIMS] && strcmp(x->s[T_DIMS], "[]") != 0)
    p = put_text(put_text(p, ", sizes = ", 10), x->s[T_DIMS], x->n[T_DIMS]);
  if (e->dtype[0]) p = put_text(put_text(p, ", dtype = ", 10), e->dtype, strlen(e->dtype));
  /* a convolution's model needs its strides, padding, dilation and groups */
  if (x->n[T_CONCRETE] && strstr(x->s[T_NAME], "conv"))
    p = put_text(put_text(p, ", concrete = ", 13), x->s[T_CONCRETE], x->n[T_CONCRETE]);
  *p = '\0';
  return 0;
}

/* Memcpy kind from "Memcpy HtoD (Pageable -> Device)" (CUPTI enums). */
static void memcpy_kinds(const char *name, int *copy, int *src, int *dst) {
  static const struct { const char *tag; int kind; } kinds[] = {
      {"HtoD", 1}, {"DtoH", 2}, {"HtoA", 3}, {"AtoH", 4}, {"AtoA", 5}, {"AtoD", 6},
      {"DtoA", 7}, {"DtoD", 8}, {"HtoH", 9}, {"PtoP", 10},
  };
  static const struct { const char *tag; int kind; } mem[] = {
      {"Pageable", 1}, {"Pinned", 2}, {"Device", 3}, {"Array", 4}, {"Managed", 5},
  };
  *copy = *src = *dst = 0;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strstr(name, kinds[i].tag)) {
      *copy = kinds[i].kind;
      break;
    }
  const char *open = strchr(name, '('), *arrow = strstr(name, "->");
  for (size_t i = 0; open && arrow && i < sizeof mem / sizeof mem[0]; i++) {
    const char *p = strstr(open, mem[i].tag);
    if (p && p < arrow) *src = mem[i].kind;
    if (p && p > arrow) *dst = mem[i].kind;
    if (p && p < arrow && (p = strstr(arrow, mem[i].tag)) != NULL) *dst = mem[i].kind;
  }
}

/* The bytes of n elements of a PyTorch dtype as NCCL's arguments name it
 * (c10's ScalarType names), -1: unknown. */
static int64_t coll_bytes(const char *dtype, int64_t n) {
  static const struct { const char *name; int size; } sizes[] = {
      {"Float", 4}, {"BFloat16", 2}, {"Half", 2}, {"Double", 8}, {"Int", 4}, {"Long", 8},
      {"Short", 2}, {"Char", 1}, {"Byte", 1}, {"Bool", 1}, {"Float8_e4m3fn", 1},
      {"Float8_e5m2", 1}, {"ComplexFloat", 8}, {"ComplexDouble", 16}, {"ComplexHalf", 4},
  };
  for (size_t i = 0; n >= 0 && n <= INT64_MAX / 16 && i < sizeof sizes / sizeof sizes[0]; i++)
    if (strcmp(dtype, sizes[i].name) == 0) return n * sizes[i].size;
  return -1;
}

/* The collective arguments of the kernel just written (dldb_ranks.h). */
static int emit_coll(kimp *k, const kev *e) {
  dldb_kernel_coll c = {
      .collective = e->coll_args & COLL_NAME ? e->coll_name : NULL,
      .dtype = e->coll_args & COLL_DTYPE ? e->coll_dtype : NULL,
      .in_bytes = e->coll_args & COLL_IN ? coll_bytes(e->coll_dtype, e->coll_in) : -1,
      .out_bytes = e->coll_args & COLL_OUT ? coll_bytes(e->coll_dtype, e->coll_out) : -1,
      .group_size = e->coll_args & COLL_GROUP && e->coll_group > 0 && e->coll_group <= INT32_MAX
                        ? (int32_t)e->coll_group : 0};
  return dldb_write_kernel_coll(k->w, &c, k->err, k->errlen);
}

/* A python_function event as a Python frame of the timeline. */
static int emit_frame(kimp *k, const kev *e, const char *name, int64_t ts, int64_t end) {
  dldb_py_frame f = {.name = name, .start_ns = ts, .end_ns = end, .pid = map_pid(k, e->pid),
                     .tid = map_tid(k, e->tid), .python_id = e->py_id,
                     .parent_python_id = e->py_parent, .has_python_id = e->py_id_ok,
                     .has_parent_python_id = e->py_parent_ok};
  return dldb_write_py_frame(k->w, &f, k->err, k->errlen);
}

/* 1 if name holds "nccl" in any case (ASCII, as strcasestr): once per
 * kernel, whose names are long and hold many an 'n', so each candidate is
 * checked in place rather than by a call. A byte that is 0 fails its
 * compare, so no byte past the name's NUL is read. */
static int has_nccl(const char *name) {
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    if ((p[0] | 0x20) == 'n' && (p[1] | 0x20) == 'c' && (p[2] | 0x20) == 'c' &&
        (p[3] | 0x20) == 'l')
      return 1;
  return 0;
}

/* The trace's generation: capitalized categories are older Kineto's. */
static int old_generation(const kev *e) {
  return e->cat_capital && e->cat != C_OTHER && e->cat != C_TRACE;
}

/* 1 if write_event and emit would do nothing with the event: neither a
 * complete event ('X') nor metadata ('M'), so flow arrows ('s', 'f') and
 * instants, a third of a trace's events, are not handed to the writing
 * thread. */
static int ignored(const kev *e) {
  return e->ph != 'X' && e->ph != 'M' && !e->name_cut && !old_generation(e);
}

static int emit(kimp *k, const kev *e, const ktext *x) {
  const char *name = x->s[T_NAME];
  if (old_generation(e)) k->st->generation = 1;
  if (e->ph == 'M') {
    if (strcmp(name, "thread_name") == 0 && e->pid_ok && e->tid_ok && x->n[T_MNAME]) {
      dldb_thread t = {.pid = map_pid(k, e->pid), .tid = map_tid(k, e->tid), .name = x->s[T_MNAME]};
      k->st->threads++;
      return dldb_write_thread(k->w, &t, k->err, k->errlen);
    }
    return DL_OK;
  }
  if (e->ph != 'X') return DL_OK;
  k->st->events++;
  if (e->cat == C_OTHER || e->cat == C_NONE) { /* neither read nor known to be left out */
    k->file_unknown++;
    return DL_OK;
  }
  if (!e->ts_ok || !e->dur_ok || e->dur < 0) {
    k->st->skipped++;
    return DL_OK;
  }
  if (e->legacy_cpu) k->file_legacy++;
  int64_t ts = e->ts + k->shift_ns, end = ts + e->dur;
  if (end > k->file_end_ns) k->file_end_ns = end;
  switch (e->cat) {
  case C_OP:
  case C_ANNOT: {
    if (!e->pid_ok || !e->tid_ok) {
      k->st->skipped++;
      return DL_OK;
    }
    if (range_text(k, e, x)) return dl_err(k->err, k->errlen, DL_ENOMEM, "%s: out of memory", k->path);
    dldb_nvtx_range r = {.kind = DLDB_NVTX_PUSHPOP, .name = k->text, .start_ns = ts,
                         .end_ns = end, .pid = map_pid(k, e->pid), .tid = map_tid(k, e->tid)};
    k->st->ranges++;
    int64_t id;
    int rc = dldb_write_nvtx_range(k->w, &r, &id, k->err, k->errlen);
    if (rc == DL_OK && x->n[T_STACK])
      rc = dldb_write_range_stack(k->w, id, x->s[T_STACK], 0, k->err, k->errlen);
    else if (rc == DL_OK && kstack_range(k->stacks, id, r.pid, r.tid, r.start_ns, r.end_ns))
      rc = dl_err(k->err, k->errlen, DL_ENOMEM, "%s: out of memory", k->path);
    return rc;
  }
  case C_RUNTIME:
  case C_DRIVER: {
    if (!e->tid_ok) {
      k->st->skipped++;
      return DL_OK;
    }
    dldb_api_call a = {.api_kind = e->cat == C_DRIVER ? DLDB_API_DRIVER : DLDB_API_RUNTIME,
                       .name = name, .start_ns = ts, .end_ns = end, .pid = file_pid(k),
                       .tid = map_tid(k, e->tid), .correlation_id = e->corr_ok ? e->corr : -1};
    k->st->api_calls++;
    return dldb_write_api_call(k->w, &a, k->err, k->errlen);
  }
  case C_KERNEL:
  case C_MEMCPY:
  case C_MEMSET: {
    int64_t dev = e->device_ok ? e->device : e->pid_ok ? e->pid : 0;
    int64_t stream = e->stream_ok ? e->stream : e->tid_ok ? e->tid : 0;
    int64_t corr = e->corr_ok ? e->corr : -1;
    mark_used(k, dev);
    k->file_gpu_events++;
    if (e->cat == C_KERNEL) {
      dldb_kernel kr = {.short_name = name, .long_name = name, .device_id = map_dev(k, dev),
                        .context_id = (int32_t)e->context, .stream_id = (int32_t)stream,
                        .gpu_start_ns = ts, .gpu_end_ns = end, .correlation_id = corr,
                        .pid = file_pid(k), .registers_per_thread = (int32_t)e->regs,
                        .static_smem_bytes = (int32_t)e->smem};
      memcpy(kr.grid, e->grid, sizeof kr.grid);
      memcpy(kr.block, e->block, sizeof kr.block);
      int rc = dldb_write_kernel(k->w, &kr, k->err, k->errlen);
      if (rc == DL_OK && e->coll_args) rc = emit_coll(k, e);
      if (rc) return rc;
      k->st->kernels++;
      if (has_nccl(name)) k->st->nccl_kernels++;
      double bpsm = e->bpsm;
      if (isnan(bpsm)) {
        const kdev *d = find_dev(k, dev);
        double blocks = (double)e->grid[0] * e->grid[1] * e->grid[2];
        if (d && d->sm_count > 0 && blocks > 0) bpsm = blocks / d->sm_count;
      }
      return dldb_occ_write(k->occ, bpsm, e->occ, k->err, k->errlen);
    }
    if (e->cat == C_MEMCPY) {
      dldb_memcpy m = {.bytes = e->bytes, .device_id = map_dev(k, dev),
                       .stream_id = (int32_t)stream, .gpu_start_ns = ts, .gpu_end_ns = end,
                       .correlation_id = corr, .pid = file_pid(k)};
      memcpy_kinds(name, &m.copy_kind, &m.src_kind, &m.dst_kind);
      k->st->memcpys++;
      return dldb_write_memcpy(k->w, &m, k->err, k->errlen);
    }
    dldb_memset m = {.bytes = e->bytes, .mem_kind = strstr(name, "Device") ? 3 : 0,
                     .device_id = map_dev(k, dev), .stream_id = (int32_t)stream,
                     .gpu_start_ns = ts, .gpu_end_ns = end, .correlation_id = corr,
                     .pid = file_pid(k)};
    k->st->memsets++;
    return dldb_write_memset(k->w, &m, k->err, k->errlen);
  }
  case C_GPU_ANNOT:
    k->st->gpu_annotations++;
    return DL_OK;
  case C_PYTHON:
    k->st->python_events++;
    if (!e->pid_ok || !e->tid_ok) return DL_OK;
    if (kstack_frame(k->stacks, map_pid(k, e->pid), map_tid(k, e->tid), ts, end, name))
      return dl_err(k->err, k->errlen, DL_ENOMEM, "%s: out of memory", k->path);
    return emit_frame(k, e, name, ts, end);
  default:
    return DL_OK;
  }
}

/* ---- Events through the pipeline: parsed here, written on kpipe's thread --- */

static int write_event(void *ctx, const void *rec, size_t len);

/* A record: the fixed part of the event, the lengths of its texts, then
 * its name, dims, concrete inputs, thread name and call stack, each with
 * its NUL. */
static int put_event(kimp *k, const kev *e) {
  /* names are C strings from here on (as the writer stores them): a "\u0000"
   * inside one ends it; the name and the stack were read up to it
   * (kjson_clen) */
  const char *s[T_COUNT] = {e->name ? e->name : "", e->dims, e->concrete, e->mname,
                            e->stack ? e->stack : ""};
  uint32_t n[T_COUNT];
  size_t len = KEV_FIXED + sizeof n;
  for (int i = 0; i < T_COUNT; i++) {
    /* a name is cut, a stack bounded: far below 4 GB */
    size_t l = i == T_NAME ? e->name_len : i == T_STACK ? e->stack_len : strlen(s[i]);
    n[i] = (uint32_t)l;
    len += l + 1;
  }
  int rc = DL_OK;
  char *r;
  if (k->mem) { /* no second thread: the record is written at once */
    if (len > k->rec_cap) {
      char *p = realloc(k->rec, len);
      if (!p) return dl_err(k->err, k->errlen, DL_ENOMEM, "%s: out of memory", k->path);
      k->rec = p;
      k->rec_cap = len;
    }
    r = k->rec;
  } else if (!(r = kpipe_reserve(k->pipe, len, &rc))) {
    return rc;
  }
  char *rec = r;
  memcpy(r, e, KEV_FIXED);
  r += KEV_FIXED;
  memcpy(r, n, sizeof n);
  r += sizeof n;
  for (int i = 0; i < T_COUNT; i++) {
    memcpy(r, s[i], n[i]);
    r[n[i]] = '\0';
    r += n[i] + 1;
  }
  return k->mem ? write_event(k, rec, len) : kpipe_commit(k->pipe, len);
}

/* kpipe's callback: the record's fixed part back into an event, its texts
 * read in place, then emit(). */
static int write_event(void *ctx, const void *rec, size_t len) {
  kimp *k = ctx;
  kev *e = &k->wev;
  const char *r = rec;
  ktext x;
  (void)len;
  memcpy(e, r, KEV_FIXED);
  r += KEV_FIXED;
  memcpy(x.n, r, sizeof x.n);
  r += sizeof x.n;
  for (int i = 0; i < T_COUNT; i++) {
    x.s[i] = r;
    r += x.n[i] + 1;
  }
  if (e->name_cut && !k->names_cut++)
    note(k, "%s: names longer than %d bytes cut", k->path, DLI_MAX_NAME_BYTES);
  return emit(k, e, &x);
}

/* The event members read: 1 ph, 2 cat, 3 name, 4 pid, 5 tid, 6 ts, 7 dur,
 * 8 args; 0 any other. A key of at most 4 bytes is one word to compare
 * (its bytes up to the NUL: a "\u0000" ends a key). */
#define W4(a, b, c, d) \
  ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
static int member_id(const char *key) {
  static const struct { uint32_t w; int id; } members[] = {
      {W4('p', 'h', 0, 0), 1},   {W4('c', 'a', 't', 0), 2},   {W4('n', 'a', 'm', 'e'), 3},
      {W4('p', 'i', 'd', 0), 4}, {W4('t', 'i', 'd', 0), 5},   {W4('t', 's', 0, 0), 6},
      {W4('d', 'u', 'r', 0), 7}, {W4('a', 'r', 'g', 's'), 8},
  };
  uint32_t w = 0;
  int n = 0;
  for (; n < 5 && key[n]; n++) w |= (uint32_t)(unsigned char)key[n] << (8 * (n & 3));
  if (n > 4) return 0;
  for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
    if (members[i].w == w) return members[i].id;
  return 0;
}
#undef W4

/* Reads one event object (after its '{') and writes it. */
static int read_event(kimp *k, kjson *j) {
  kev *e = &k->ev;
  ev_reset(e);
  for (;;) {
    kj_tok t = kjson_next(j);
    if (t == KJ_OBJ_END) break;
    if (t != KJ_KEY) return t == KJ_ERROR ? DL_ECORRUPT : DL_EFORMAT;
    int which = member_id(kjson_text(j));
    t = kjson_next(j);
    if (t == KJ_ERROR) return DL_ECORRUPT;
    int is_str;
    switch (which) {
    case 1: if (t == KJ_STR) e->ph = kjson_text(j)[0]; break;
    case 2: if (t == KJ_STR) e->cat = map_cat(kjson_text(j), &e->cat_capital); break;
    case 3:
      if (t == KJ_STR) {
        size_t n = kjson_clen(j);
        if (n > DLI_MAX_NAME_BYTES) { /* cut at a UTF-8 character, as dli.h says */
          n = DLI_MAX_NAME_BYTES;
          while (n > 0 && ((unsigned char)kjson_text(j)[n] & 0xC0) == 0x80) n--;
          e->name_cut = 1;
        }
        if (set_name(e, kjson_text(j), n)) return DL_ENOMEM;
      }
      break;
    case 4:
      e->pid_ok = parse_id(j, t, &e->pid, &is_str);
      e->legacy_cpu = t == KJ_STR && strcmp(kjson_text(j), "CPU functions") == 0;
      break;
    case 5: e->tid_ok = parse_id(j, t, &e->tid, &e->tid_str); break;
    case 6: e->ts_ok = t == KJ_NUM && kjson_us_to_ns(kjson_text(j), &e->ts); break;
    case 7: e->dur_ok = t == KJ_NUM && kjson_us_to_ns(kjson_text(j), &e->dur); break;
    case 8:
      if (t == KJ_OBJ) t = read_args(k, j);
      else t = kjson_skip(j, t);
      break;
    default: break;
    }
    if (skip_value(j, t) == KJ_ERROR) return DL_ECORRUPT;
  }
  /* the autograd profiler's events (no "cat", "pid": "CPU functions") are ops
   * of one process */
  if (e->cat == C_NONE && e->legacy_cpu) {
    e->cat = C_OP;
    e->pid = 0;
    e->pid_ok = 1;
  }
  return ignored(e) ? DL_OK : put_event(k, e);
}

static kj_tok read_devices(kimp *k, kjson *j, kj_tok t) {
  if (t != KJ_ARR) return kjson_skip(j, t);
  for (;;) {
    t = kjson_next(j);
    if (t == KJ_ARR_END || t == KJ_ERROR) return t;
    if (t != KJ_OBJ) {
      if (kjson_skip(j, t) == KJ_ERROR) return KJ_ERROR;
      continue;
    }
    kdev d = {.id = -1};
    for (;;) {
      t = kjson_next(j);
      if (t == KJ_OBJ_END || t == KJ_ERROR) break;
      char key[64];
      snprintf(key, sizeof key, "%s", kjson_text(j));
      t = kjson_next(j);
      int64_t v = 0;
      int have = read_int(j, t, &v);
      if (!strcmp(key, "id") && have) d.id = (int)v;
      else if (!strcmp(key, "name") && t == KJ_STR) snprintf(d.name, sizeof d.name, "%s", kjson_text(j));
      else if ((!strcmp(key, "computeMajor") || !strcmp(key, "major")) && have) d.cc_major = (int)v;
      else if ((!strcmp(key, "computeMinor") || !strcmp(key, "minor")) && have) d.cc_minor = (int)v;
      else if ((!strcmp(key, "numSms") || !strcmp(key, "multiProcessorCount")) && have) d.sm_count = (int)v;
      else if (!strcmp(key, "totalGlobalMem") && have) d.mem = v;
      if (kjson_skip(j, t) == KJ_ERROR) return KJ_ERROR;
    }
    if (t == KJ_ERROR) return t;
    if (d.id >= 0 && k->ndev < MAX_DEVS) k->devs[k->ndev++] = d;
  }
}

static kj_tok read_distributed(kimp *k, kjson *j, kj_tok t) {
  if (t != KJ_OBJ) return kjson_skip(j, t);
  for (;;) {
    t = kjson_next(j);
    if (t == KJ_OBJ_END || t == KJ_ERROR) return t;
    char key[64];
    snprintf(key, sizeof key, "%s", kjson_text(j));
    t = kjson_next(j);
    int64_t v;
    if (!strcmp(key, "rank") && read_int(j, t, &v) && v >= 0 && v < 1000000) {
      if (!k->events_started) k->rank = (int)v;
      else if (v != k->rank) note(k, "%s: distributedInfo after the events: rank %lld shown as %d",
                                  k->path, (long long)v, k->rank);
      k->rank_known = 1;
    } else if (!strcmp(key, "world_size") && read_int(j, t, &v)) {
      k->st->world_size = (int)v;
    } else if (!strcmp(key, "backend") && t == KJ_STR) {
      snprintf(k->backend, sizeof k->backend, "%s", kjson_text(j));
    }
    if (kjson_skip(j, t) == KJ_ERROR) return KJ_ERROR;
  }
}

static void read_version(kjson *j, kj_tok t, char *out, size_t cap) {
  int64_t v;
  if (t == KJ_NUM && kjson_int64(kjson_text(j), &v) && v > 0)
    snprintf(out, cap, "%lld.%lld", (long long)(v / 1000), (long long)(v % 1000 / 10));
  else if (t == KJ_STR)
    snprintf(out, cap, "%s", kjson_text(j));
}

/* "575.51.03": digits and dots, with a dot (a driver version, not "N/A"). */
static int is_driver_version(const char *s) {
  int dots = 0;
  if (!s || !(*s >= '0' && *s <= '9')) return 0;
  for (; *s; s++) {
    if (*s == '.') dots++;
    else if (!(*s >= '0' && *s <= '9')) return 0;
  }
  return dots > 0;
}

/* The top-level "metadata" object some harnesses add (TraceLens's H100
 * traces): the driver's version is its `nvidia_driver_version`, at any depth
 * (torch.utils.collect_env's field, under system.torch_env_info there).
 * Kineto's own cuda_driver_version is the CUDA driver API version. */
static kj_tok read_metadata(kimp *k, kjson *j, kj_tok t) {
  if (t != KJ_OBJ && t != KJ_ARR) return kjson_skip(j, t);
  int base = kjson_depth(j) - 1, want = 0;
  for (;;) {
    t = kjson_next(j);
    if (t == KJ_ERROR || t == KJ_EOF) return KJ_ERROR;
    if ((t == KJ_OBJ_END || t == KJ_ARR_END) && kjson_depth(j) <= base) return t;
    if (t == KJ_KEY) {
      want = !strcmp(kjson_text(j), "nvidia_driver_version");
      continue;
    }
    if (want && t == KJ_STR && !k->driver[0] && is_driver_version(kjson_text(j)) &&
        kjson_len(j) < sizeof k->driver)
      snprintf(k->driver, sizeof k->driver, "%s", kjson_text(j));
    want = 0;
  }
}

/* The host of a file named as torch.profiler.tensorboard_trace_handler's
 * default worker name makes it, "<host>_<pid>.<time>.pt.trace.json"
 * (socket.gethostname(), os.getpid()): the text before the last '_' of the
 * name's first part when digits follow it; "" otherwise. */
static void host_of_path(const char *path, char *out, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strcspn(base, ".");
  const char *us = NULL;
  for (const char *c = base; c < base + len; c++)
    if (*c == '_') us = c;
  out[0] = '\0';
  if (!us || us == base || us + 1 == base + len || (size_t)(us - base) >= n) return;
  for (const char *c = us + 1; c < base + len; c++)
    if (!isdigit((unsigned char)*c)) return;
  memcpy(out, base, (size_t)(us - base));
  out[us - base] = '\0';
}

/* GPU rows of one file: the devices it used (all it lists when it used none). */
static int write_gpus(kimp *k) {
  int64_t list[MAX_DEVS];
  int n = 0;
  if (k->nused) {
    for (int i = 0; i < k->nused; i++) list[n++] = k->used[i];
  } else {
    for (int i = 0; i < k->ndev; i++) list[n++] = k->devs[i].id;
  }
  for (int i = 0; i < n; i++) {
    const kdev *d = find_dev(k, list[i]);
    char hw[160], name[192];
    if (d && d->name[0]) snprintf(hw, sizeof hw, "%s", d->name);
    else snprintf(hw, sizeof hw, "GPU %lld", (long long)list[i]);
    int ranked = k->multi || k->rank_known; /* "rank R, GPU D (name)" (docs/dldb.md) */
    if (!ranked) snprintf(name, sizeof name, "%s", hw);
    else if (d && d->name[0])
      snprintf(name, sizeof name, "rank %d, GPU %lld (%s)", k->rank, (long long)list[i], hw);
    else snprintf(name, sizeof name, "rank %d, GPU %lld", k->rank, (long long)list[i]);
    dldb_gpu g = {.device_id = map_dev(k, list[i]), .name = name,
                  .cc_major = d ? d->cc_major : 0, .cc_minor = d ? d->cc_minor : 0,
                  .sm_count = d ? d->sm_count : 0, .memory_bytes = d ? d->mem : 0};
    int rc = dldb_write_gpu(k->w, &g, k->err, k->errlen);
    char host[256];
    host_of_path(k->path, host, sizeof host);
    dldb_gpu_rank gr = {.device_id = g.device_id, .rank = k->rank, .local_device = (int32_t)list[i],
                        .world_size = k->st->world_size, .host = host[0] ? host : NULL};
    if (!rc && ranked) rc = dldb_write_gpu_rank(k->w, &gr, k->err, k->errlen);
    if (rc) return rc;
    if (!k->cycle) k->st->gpus++; /* a later cycle's GPUs are its process's */
  }
  return DL_OK;
}

/* Bytes of the file read so far against its size (compressed bytes for a
 * gzip file), through dli_opts.progress. */
static void file_progress(const kimp *k, gzFile gz, int64_t size, int end) {
  if (!k->opts || !k->opts->progress) return;
  int64_t done = end ? size : gz ? (int64_t)gzoffset(gz) : 0;
  if (done < 0) done = 0;
  k->opts->progress(k->opts->progress_ctx, "trace bytes", done, size);
}

/* Imports one file. */
static int import_file(kimp *k) {
  gzFile gz = NULL;
  kjson *j = NULL;
  int rc = DL_OK;
  if (k->mem && !(j = kjson_open(mem_read, k)))
    return dl_err(k->err, k->errlen, DL_ENOMEM, "%s: out of memory", k->path);
  if (!k->mem && (rc = open_input(k->path, &gz, &j, k->err, k->errlen))) return rc;
  struct stat sb;
  int64_t size = k->mem ? (int64_t)k->mem_n : stat(k->path, &sb) == 0 ? (int64_t)sb.st_size : 0;
  file_progress(k, gz, size, 0);
  int saw_events = 0, saw_dist = 0, truncated = 0, gen3 = 0;
  int64_t events_before = k->st->events;
  kj_tok t = kjson_next(j);
  int top_array = t == KJ_ARR;
  if (t == KJ_ERROR) {
    rc = json_error(k->path, j, k->err, k->errlen);
    goto out;
  }
  if (t != KJ_OBJ && t != KJ_ARR) {
    rc = reject_not_trace(k->path, gz, k->err, k->errlen);
    goto out;
  }
  for (;;) {
    int events_now = top_array;
    if (!top_array) {
      t = kjson_next(j);
      if (t == KJ_OBJ_END || t == KJ_ERROR || t == KJ_EOF) break;
      const char *key = kjson_text(j);
      if (is_execution_trace_key(key) && !saw_events) {
        rc = reject_et(k->path, k->err, k->errlen);
        goto out;
      }
      char kb[64];
      snprintf(kb, sizeof kb, "%s", key);
      t = kjson_next(j);
      if (t == KJ_ERROR) break;
      if (!strcmp(kb, "traceEvents") && t == KJ_ARR) events_now = 1;
      else if (!strcmp(kb, "deviceProperties") || !strcmp(kb, "computeProperties"))
        t = read_devices(k, j, t);
      else if (!strcmp(kb, "distributedInfo")) {
        saw_dist = 1;
        t = read_distributed(k, j, t);
      } else if (!strcmp(kb, "baseTimeNanoseconds")) {
        gen3 = 1;
        int64_t v;
        if (t == KJ_NUM && kjson_int64(kjson_text(j), &v)) k->base_ns = v;
      } else if (!strcmp(kb, "cuda_runtime_version"))
        read_version(j, t, k->cuda_runtime, sizeof k->cuda_runtime);
      else if (!strcmp(kb, "cuda_driver_version"))
        read_version(j, t, k->cuda_driver, sizeof k->cuda_driver);
      else if (!strcmp(kb, "metadata"))
        t = read_metadata(k, j, t);
      else
        t = kjson_skip(j, t);
      if (t == KJ_ERROR) break;
    }
    if (events_now) {
      saw_events = 1;
      k->events_started = 1;
      if (!k->mem && !k->pipe && (rc = kpipe_start(&k->pipe, write_event, k)) != DL_OK) {
        rc = dl_err(k->err, k->errlen, rc, "%s: out of memory", k->path);
        goto out;
      }
      int erc = DL_OK;
      for (int64_t n = 1;; n++) {
        t = kjson_next(j);
        if (t == KJ_ARR_END || t == KJ_ERROR) break;
        if (t != KJ_OBJ) {
          if ((t = kjson_skip(j, t)) == KJ_ERROR) break;
          continue;
        }
        if ((erc = read_event(k, j)) != DL_OK) break;
        if (n % 65536 == 0) file_progress(k, gz, size, 0);
      }
      /* every event parsed is written before anything else is touched */
      if ((rc = kpipe_flush(k->pipe)) != DL_OK) goto out;
      if (erc == DL_ECORRUPT) {
        t = KJ_ERROR;
      } else if (erc == DL_EFORMAT) {
        rc = json_error(k->path, j, k->err, k->errlen);
        goto out;
      } else if (erc != DL_OK) {
        rc = erc;
        if (!k->err[0]) dl_err(k->err, k->errlen, rc, "%s: %s", k->path, dl_strerror(rc));
        goto out;
      }
      if (t == KJ_ERROR) break;
      if (top_array) break;
    }
  }
  if (t == KJ_ERROR) {
    /* Keep what a truncated or damaged file gave (Kineto killed mid-write). */
    if (k->st->events > events_before) {
      truncated = 1;
      note(k, "%s: %s; kept the %lld events before it", k->path, kjson_error(j),
           (long long)(k->st->events - events_before));
    } else {
      rc = json_error(k->path, j, k->err, k->errlen);
      goto out;
    }
  }
  if (!saw_events) {
    rc = reject_other(k->path, k->err, k->errlen);
    goto out;
  }
  (void)truncated;
  k->st->generation = k->st->generation == 1 ? 1 : gen3 ? 3 : 2; /* 0: import_all */
  k->st->repairs += (int64_t)kjson_repairs(j);
  if (!saw_dist && !k->file_legacy && !k->cycle) { /* the autograd profiler never writes one */
    k->st->missing_distributed_info++;
    note(k, "%s: no distributedInfo, taken as rank %d", k->path, k->rank);
  }
  if (k->file_gpu_events == 0 && !k->cycle) {
    k->st->ranks_without_gpu++;
    note(k, "%s: rank %d has no GPU activity (no kernel, memcpy or memset events)", k->path,
         k->rank);
  }
  rc = write_gpus(k);
out:
  if (k->pipe) {
    int prc = kpipe_stop(&k->pipe);
    if (rc == DL_OK) rc = prc;
  }
  if (rc == DL_OK) file_progress(k, gz, size, 1);
  kjson_free(&j);
  if (gz) gzclose(gz);
  return rc;
}

/* One note on how a directory's files were grouped: the files of a worker
 * are the cycles of one process, in timestamp order; workers are ranks. */
static void group_note(kimp *k, const char *path, char **files, size_t n) {
  char line[400];
  size_t len = 0, procs = 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && same_worker(files[i - 1], files[i])) continue;
    size_t m = 1;
    while (i + m < n && same_worker(files[i + m - 1], files[i + m])) m++;
    char worker[256];
    int64_t ms;
    trace_worker(files[i], worker, sizeof worker, &ms);
    if (len < sizeof line)
      len += (size_t)snprintf(line + len, sizeof line - len, "%s%s: %zu %s", procs ? ", " : "",
                              worker, m, m > 1 ? "cycles in timestamp order" : "file");
    procs++;
  }
  k->multi = procs > 1;
  note(k, "%s: %zu file%s as %zu process%s (rank%s): %s", path, n, n > 1 ? "s" : "", procs,
       procs > 1 ? "es" : "", procs > 1 ? "s" : "", line);
}

/* A later cycle of a process: its times move to start where the cycle
 * before it ended when they would overlap it (the autograd profiler's
 * times count from each cycle's start). */
static int cycle_shift(kimp *k, int64_t prev_end) {
  int64_t first = 0;
  int found = 0;
  int rc = file_origin(k->path, &first, &found, k->err, k->errlen);
  k->shift_ns = rc == DL_OK && found && prev_end != INT64_MIN && first < prev_end
                    ? prev_end - first : 0;
  return rc;
}

static void set_meta(kimp *k, const char *key, const char *value) {
  if (k->err[0] == '\0') dldb_write_meta(k->w, key, value, NULL, 0);
}

/* Imports path (a file or a directory of traces; with k->mem, the bytes
 * named path) into k->w, set up by kimp_init. */
static int import_all(kimp *k, const char *path) {
  dldb_writer *w = k->w;
  const dli_opts *opts = k->opts;
  char *err = k->err;
  size_t errlen = k->errlen;
  char **files = NULL;
  size_t nfiles = 0;
  char one[PATH_MAX];
  int rc;
  if (!k->mem && is_dir(path)) {
    files = list_dir(path, &nfiles);
    if (nfiles == 0) {
      rc = dl_err(err, errlen, DL_ENOTFOUND, "%s: no *.json or *.json.gz traces in the directory",
                  path);
      goto out;
    }
    if (order_by_worker(files, nfiles)) {
      rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", path);
      goto out;
    }
    group_note(k, path, files, nfiles);
  } else {
    snprintf(one, sizeof one, "%s", path);
    nfiles = 1;
  }
  if ((rc = dldb_occ_writer_open(w, &k->occ, err, errlen))) goto out;
  if (!(k->stacks = kstack_new())) {
    rc = dl_err(err, errlen, DL_ENOMEM, "%s: out of memory", path);
    goto out;
  }
  char ranks[256] = "";
  size_t rl = 0;
  int64_t proc_end = INT64_MIN;
  k->proc_index = -1;
  for (size_t i = 0; i < nfiles; i++) {
    k->path = files ? files[i] : one;
    int next_cycle = files && i > 0 && same_worker(files[i - 1], files[i]);
    if (!next_cycle) {
      k->proc_index++;
      proc_end = INT64_MIN;
    }
    k->file_index = (int)i;
    k->rank = k->proc_index;
    k->rank_known = 0;
    k->events_started = 0;
    k->ndev = k->nused = 0;
    k->file_gpu_events = k->file_unknown = k->file_legacy = 0;
    k->file_end_ns = INT64_MIN;
    k->shift_ns = 0;
    k->cycle = next_cycle;
    if (next_cycle && (rc = cycle_shift(k, proc_end))) goto out;
    if ((rc = import_file(k))) goto out;
    if (k->file_end_ns > proc_end) proc_end = k->file_end_ns;
    if (k->file_unknown)
      note(k, "%s: %lld event%s of unknown kinds ignored", k->path, (long long)k->file_unknown,
           k->file_unknown > 1 ? "s" : "");
    if (k->file_legacy) k->st->generation = 0;
    k->st->files++;
    if (next_cycle) continue;
    k->st->ranks++;
    int wrote = snprintf(ranks + rl, sizeof ranks - rl, "%s%d", rl ? "," : "", k->rank);
    if (wrote > 0 && (size_t)wrote < sizeof ranks - rl) rl += (size_t)wrote;
  }
  if (k->st->kernels + k->st->memcpys + k->st->memsets + k->st->ranges + k->st->api_calls == 0) {
    rc = dl_err(err, errlen, DL_EFORMAT,
                "%s: the profiler trace holds no ops, CUDA calls or GPU activity", path);
    goto out;
  }
  if (k->st->kernels + k->st->memcpys + k->st->memsets == 0)
    note(k, "no GPU activity in the trace: CPU ops only");
  if ((rc = kstack_write(k->stacks, w, &k->st->stacks, err, errlen))) goto out;
  kstack_free(&k->stacks); /* its memory back before the analysis */
  dldb_sysconfig sc = {.num_gpus = (int)k->st->gpus, .cpu_model = "",
                       .driver_version = k->driver, .framework = "PyTorch",
                       .cuda_version = k->cuda_runtime, .cudnn_version = "", .nsys_version = "",
                       .dlprof_version = "v" DL_VERSION, .dlprof_build = "",
                       .profile_name = opts && opts->profile_name ? opts->profile_name : "",
                       .mode_string = opts && opts->mode ? opts->mode : "pytorch",
                       .original_command = opts && opts->command ? opts->command : ""};
  if ((rc = dldb_write_sysconfig(w, &sc, err, errlen))) goto out;
  char buf[64];
  if ((rc = dldb_write_meta(w, "source_format", "kineto-json", err, errlen))) goto out;
  snprintf(buf, sizeof buf, "%d", k->st->generation);
  set_meta(k, "kineto_generation", buf);
  set_meta(k, "kineto_ranks", ranks);
  snprintf(buf, sizeof buf, "%d", k->st->world_size);
  set_meta(k, "kineto_world_size", buf);
  if (k->backend[0]) set_meta(k, "kineto_backend", k->backend);
  /* not the driver's version (read_only_system_config.driver_version) */
  if (k->cuda_driver[0]) set_meta(k, "kineto_cuda_driver_version", k->cuda_driver);
  if (k->base_ns) {
    snprintf(buf, sizeof buf, "%lld", (long long)k->base_ns);
    set_meta(k, "kineto_base_time_ns", buf);
  }
  set_meta(k, "kineto_notes", k->st->notes);
  /* the origin is the earliest of each file's first events: a later event
   * may start before it */
  rc = dldb_writer_rebase(w, err, errlen);
out:
  dldb_occ_writer_close(&k->occ);
  kstack_free(&k->stacks);
  free(k->ev.name);
  free(k->ev.stack);
  free(k->text);
  free(k->rec);
  free_list(files, files ? nfiles : 0);
  return rc;
}

static void kimp_init(kimp *k, const dli_opts *opts, dldb_writer *w, dli_kineto_stats *stats,
                      char *err, size_t errlen) {
  memset(k, 0, sizeof *k);
  k->w = w;
  k->opts = opts;
  k->st = stats;
  memset(k->st, 0, sizeof *k->st);
  k->err = err;
  k->errlen = errlen;
  if (err && errlen) err[0] = '\0';
  arg_table_init(k);
}

int dli_kineto_import(const char *path, const dli_opts *opts, dldb_writer *w,
                      dli_kineto_stats *stats, char *err, size_t errlen) {
  dli_kineto_stats local;
  kimp k;
  kimp_init(&k, opts, w, stats ? stats : &local, err, errlen);
  return import_all(&k, path);
}

int dli_kineto_import_mem(const void *data, size_t size, const char *name, const dli_opts *opts,
                          dldb_writer *w, dli_kineto_stats *stats, char *err, size_t errlen) {
  static const unsigned char empty[1];
  dli_kineto_stats local;
  kimp k;
  kimp_init(&k, opts, w, stats ? stats : &local, err, errlen);
  k.mem = size ? data : empty;
  k.mem_n = size;
  return import_all(&k, name ? name : "<memory>");
}
