/*
 * dla_shapes.c - the op shapes phase (see dla_shapes.h): op instances
 * grouped by op and input shapes, their GPU time, perf models and the GPU
 * peaks.
 */
#include "dla_shapes.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_map.h"
#include "dla_internal.h"
#include "dla_opname.h"
#include "dla_peaks.h"
#include "dla_perffacts.h"
#include "dldb_aggr_shapes.h"
#include "dldb_scan.h"

#define DIMS_CAP 2048
#define CONCRETE_CAP 512

/* What one instance's text says: op name, dims, dtype, concrete inputs. */
typedef struct inst_text {
  char name[256];
  char dims[DIMS_CAP];
  char dtype[32];
  char concrete[CONCRETE_CAP];
} inst_text;

/* The bracketed list starting at p ("[[...], ...]") into out; 0, or -1
 * when it is cut short or does not fit. */
static int copy_list(const char *p, char *out, size_t cap) {
  int depth = 0;
  size_t n = 0;
  do {
    if (!*p || n + 1 >= cap) return -1;
    depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
    out[n++] = *p++;
  } while (depth > 0);
  out[n] = '\0';
  return 0;
}

/* emit_nvtx and the PyTorch profiler import: "name, seq = 1, sizes =
 * [[...]], dtype = float32" and, for a convolution, ", concrete = [...]"
 * (its concrete inputs). 0, or -1 without sizes. */
static int read_sizes_text(const char *text, inst_text *t) {
  const char *s = strstr(text, ", sizes = [");
  if (!s || copy_list(s + 10, t->dims, sizeof t->dims)) return -1;
  const char *cc = strstr(s, ", concrete = [");
  if (cc && copy_list(cc + 13, t->concrete, sizeof t->concrete)) t->concrete[0] = '\0';
  const char *comma = strstr(text, ", ");
  snprintf(t->name, sizeof t->name, "%.*s", (int)(comma - text), text);
  const char *d = strstr(s, ", dtype = ");
  if (d) {
    d += 10;
    size_t n = strcspn(d, ", ");
    snprintf(t->dtype, sizeof t->dtype, "%.*s", (int)n, d);
  }
  return 0;
}

/* The value of a named DLProf marker arg ({'name': 'stride', ...,
 * 'value': (2, 2)}) as a list "[2, 2]", or "" when absent. */
static void marker_arg(const char *args, const char *name, char *out, size_t cap) {
  char key[64];
  out[0] = '\0';
  snprintf(key, sizeof key, "'name': '%s'", name);
  const char *p = strstr(args, key);
  const char *v = p ? strstr(p, "'value': ") : NULL;
  const char *end = p ? strchr(p, '}') : NULL;
  if (!v || (end && v > end)) return;
  v += 9;
  size_t n = 0;
  for (; *v && *v != '}' && n + 2 < cap; v++) {
    if (*v == '(') out[n++] = '[';
    else if (*v == ')') out[n++] = ']';
    else if (*v != '\'') out[n++] = *v;
  }
  while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == ',')) n--;
  out[n] = '\0';
}

/* NVIDIA's DLProf op markers: {'mod': ..., 'op': 'conv2d', 'args': [{...,
 * 'shape': (32, 3, 32, 32), 'dtype': 'float32'}, ...]}: a shape per
 * tensor arg ([] for others); stride, padding, dilation and groups from
 * named args, else PyTorch's defaults (a marker lists the arguments the
 * call passed). 0, or -1 when text is not a marker with tensor args. */
static int read_marker(const char *text, inst_text *t) {
  dla_dlprof_op m;
  if (dla_dlprof_op_parse(text, &m) || !m.args) return -1;
  snprintf(t->name, sizeof t->name, "%s", m.op);
  snprintf(t->dtype, sizeof t->dtype, "%s", m.data_type);
  size_t n = 0;
  int tensors = 0;
  t->dims[n++] = '[';
  for (const char *p = strchr(m.args, '{'); p; p = strchr(p + 1, '{')) {
    const char *end = strchr(p, '}');
    const char *s = strstr(p, "'shape': (");
    char one[256] = "";
    if (s && (!end || s < end)) {
      size_t k = 0;
      for (s += 10; *s && *s != ')' && k + 2 < sizeof one; s++)
        if (*s != ' ' || k) one[k++] = *s;
      while (k > 0 && (one[k - 1] == ',' || one[k - 1] == ' ')) k--;
      one[k] = '\0';
      tensors++;
    }
    int w = snprintf(t->dims + n, sizeof t->dims - n, "%s[%s]", n > 1 ? ", " : "", one);
    if (w < 0 || (size_t)w >= sizeof t->dims - n) return -1;
    n += (size_t)w;
  }
  if (n + 2 > sizeof t->dims || !tensors) return -1;
  t->dims[n++] = ']';
  t->dims[n] = '\0';
  static const struct { const char *name, *dflt; } conv[] = {
      {"stride", "1"}, {"padding", "0"}, {"dilation", "1"}, {"groups", "1"}};
  n = (size_t)snprintf(t->concrete, sizeof t->concrete, "['', '', ''");
  for (size_t i = 0; i < 4; i++) {
    char v[64];
    marker_arg(m.args, conv[i].name, v, sizeof v);
    n += (size_t)snprintf(t->concrete + n, sizeof t->concrete - n, ", '%s'",
                          v[0] ? v : conv[i].dflt);
  }
  snprintf(t->concrete + n, sizeof t->concrete - n, "]");
  return 0;
}

static int read_text(const char *text, inst_text *t) {
  memset(t, 0, sizeof *t);
  if (!text) return -1;
  if (text[0] == '{') return read_marker(text, t);
  return read_sizes_text(text, t);
}

/* The row of (op, dims, dtype), made on first sight. -1 when out of memory. */
static int32_t row_for(dla_ctx *c, dl_smap *by_key, int32_t op, const inst_text *t) {
  dla_shapes *s = c->shapes;
  char key[DIMS_CAP + 96];
  snprintf(key, sizeof key, "%d\037%s\037%s", (int)op, t->dims, t->dtype);
  int64_t found = dl_smap_get(by_key, key);
  if (found >= 0) return (int32_t)found;
  if (DLA_GROW(s->v, s->n, s->cap)) return -1;
  dla_shape_row *r = &s->v[s->n];
  memset(r, 0, sizeof *r);
  r->op = op;
  r->device = -1;
  if (!(r->dims = strdup(t->dims)) || !(r->key = strdup(key)) || !(r->name = strdup(t->name))) {
    free(r->dims);
    free(r->key);
    return -1;
  }
  snprintf(r->dtype, sizeof r->dtype, "%s", t->dtype[0] ? t->dtype : c->ops[op].data_type);
  dla_pm_shapes in;
  if (dla_pm_parse_shapes(t->dims, &in) == 0)
    dla_perf_model(t->name, &in, r->dtype, t->concrete[0] ? t->concrete : NULL, &r->pm);
  else
    dla_perf_model("", NULL, NULL, NULL, &r->pm);
  if (dl_smap_put(by_key, r->key, (int64_t)s->n)) {
    free(r->dims);
    free(r->key);
    free(r->name);
    return -1;
  }
  return (int32_t)s->n++;
}

/* Adds each modelled instance's FLOPs to its iteration. */
static int sum_iter_flops(dla_ctx *c, const int32_t *row_of) {
  dla_shapes *s = c->shapes;
  if (c->niter <= 0 || c->iter_stop < c->iter_start) return DL_OK;
  s->n_iter_flops = c->iter_stop - c->iter_start + 1;
  if (!(s->iter_flops = calloc((size_t)s->n_iter_flops, sizeof *s->iter_flops))) return DL_ENOMEM;
  for (size_t i = 0; i < c->nr; i++) {
    if (row_of[i] < 0 || s->v[row_of[i]].pm.family == DLA_PM_NONE) continue;
    int64_t it = dla__iter_of(c, c->r[i].start) - c->iter_start;
    if (it >= 0 && it < s->n_iter_flops) s->iter_flops[it] += s->v[row_of[i]].pm.flops;
  }
  return DL_OK;
}

/* The peak model FLOP utilization is measured against: that of the data
 * type (and Tensor Core use) of the rows with the most FLOPs, NaN when
 * their GPU is unknown. */
static double mfu_peak(const dla_shapes *s) {
  const dla_shape_row *top = NULL;
  for (size_t i = 0; i < s->n; i++) {
    const dla_shape_row *r = &s->v[i];
    if (r->pm.family == DLA_PM_NONE) continue;
    if (!top || r->pm.flops * (double)r->calls > top->pm.flops * (double)top->calls) top = r;
  }
  return top && !isnan(top->peak_tflops) ? top->peak_tflops : NAN;
}

/* A small direct-mapped cache of (op, name id) -> row: instances of one
 * op with one text share a row, and their text is read once while it
 * stays in the cache; texts unique per instance (emit_nvtx's seq) cost no
 * more memory than the cache. */
#define SEEN_SLOTS 4096
typedef struct seen_slot {
  uint64_t key;                /* (op, name id) + 1; 0: empty */
  int32_t row;                 /* -1: no shapes */
} seen_slot;

/* What a sizes text's row is keyed by, found in place: its dims list and
 * dtype as read_sizes_text copies them (the dtype cut as its buffer cuts
 * it), so that texts unique per instance that share a row (emit_nvtx's
 * seq and op_id differ) find it without being copied or formatted. */
typedef struct sizes_key {
  const char *dims, *dtype;
  size_t ndims, ndtype;
} sizes_key;

/* strstr(s, needle) for a needle starting with ',' (of len bytes): the
 * texts' commas are few, glibc's generic strstr slower on short texts. */
static const char *find_comma(const char *s, const char *needle, size_t len) {
  for (const char *p = strchr(s, ','); p; p = strchr(p + 1, ','))
    if (strncmp(p, needle, len) == 0) return p;
  return NULL;
}

/* 0, or -1 when read_sizes_text would find no sizes. */
static int find_sizes_key(const char *text, sizes_key *k) {
  const char *s = find_comma(text, ", sizes = [", 11);
  if (!s) return -1;
  const char *p = s + 10;
  size_t n = 0;
  int depth = 0;
  do { /* copy_list's walk */
    if (!p[n] || n + 1 >= DIMS_CAP) return -1;
    depth += p[n] == '[' ? 1 : p[n] == ']' ? -1 : 0;
    n++;
  } while (depth > 0);
  k->dims = p;
  k->ndims = n;
  const char *d = find_comma(s, ", dtype = ", 10);
  k->dtype = d ? d + 10 : "";
  k->ndtype = d ? strcspn(k->dtype, ", ") : 0;
  if (k->ndtype > sizeof ((inst_text *)0)->dtype - 1) k->ndtype = sizeof ((inst_text *)0)->dtype - 1;
  return 0;
}

static uint64_t sizes_hash(int32_t op, const sizes_key *k) {
  uint64_t h = (1469598103934665603ull ^ (uint32_t)op) * 1099511628211ull;
  for (size_t i = 0; i < k->ndims; i++) h = (h ^ (unsigned char)k->dims[i]) * 1099511628211ull;
  h = (h ^ 0x1f) * 1099511628211ull;
  for (size_t i = 0; i < k->ndtype; i++) h = (h ^ (unsigned char)k->dtype[i]) * 1099511628211ull;
  return h;
}

/* Whether row r's key (row_for's "op\037dims\037dtype") is op's with k. */
static int sizes_match(const dla_shape_row *r, int32_t op, const sizes_key *k) {
  if (r->op != op) return 0;
  const char *p = strchr(r->key, '\037');
  if (!p || strncmp(p + 1, k->dims, k->ndims) != 0 || p[1 + k->ndims] != '\037') return 0;
  p += 2 + k->ndims;
  return strncmp(p, k->dtype, k->ndtype) == 0 && p[k->ndtype] == '\0';
}

/* The rows of sizes texts by sizes_hash (a clash: the next hash). */
typedef struct sizes_rows {
  dl_map by_hash;
  const dla_shapes *s;
} sizes_rows;

/* The row of op with k; -1: none yet (*h: where to add it). */
static int32_t sizes_find(const sizes_rows *sr, int32_t op, const sizes_key *k, uint64_t *h) {
  int64_t v;
  for (*h = sizes_hash(op, k); (v = dl_map_get(&sr->by_hash, *h)) >= 0;
       *h = *h * 0x9E3779B97F4A7C15ull + 1)
    if (sizes_match(&sr->s->v[v], op, k)) return (int32_t)v;
  return -1;
}

/* The row of range r's text (-1: no shapes); -2 when out of memory. */
static int32_t row_of_text(dla_ctx *c, dl_smap *by_key, sizes_rows *sr, inst_text *t,
                           const dla_range *r) {
  const char *text = dldb_writer_string(c->w, r->name_id);
  sizes_key k;
  uint64_t h = 0;
  int sized = text && text[0] != '{' && find_sizes_key(text, &k) == 0;
  if (text && text[0] != '{' && !sized) return -1; /* read_sizes_text: no sizes */
  int32_t row = sized ? sizes_find(sr, r->op, &k, &h) : -1;
  if (row >= 0) return row;
  if (read_text(text, t)) return -1;
  if ((row = row_for(c, by_key, r->op, t)) < 0) return -2;
  if (sized && dl_map_put(&sr->by_hash, h, row)) return -2;
  return row;
}

/* Instances to rows: row_of[i] for range i (-1: no shapes). */
static int group_instances(dla_ctx *c, int32_t *row_of) {
  dl_smap by_key;
  dl_smap_init(&by_key);
  sizes_rows sr = {.s = c->shapes};
  dl_map_init(&sr.by_hash);
  int rc = DL_OK;
  inst_text *t = malloc(sizeof *t);
  seen_slot *seen = calloc(SEEN_SLOTS, sizeof *seen);
  if (!t || !seen) rc = DL_ENOMEM;
  for (size_t i = 0; rc == DL_OK && i < c->nr; i++) {
    const dla_range *r = &c->r[i];
    row_of[i] = -1;
    if (r->role != DLA_ROLE_INST || r->op < 0 || !dla__in_window(c, r->start)) continue;
    uint64_t key = ((uint64_t)(uint32_t)r->op << 32 | (uint32_t)r->name_id) + 1;
    seen_slot *slot = &seen[(key * 0x9E3779B97F4A7C15ull) >> 52]; /* 12 bits: SEEN_SLOTS */
    int32_t row = -1;
    if (slot->key == key) {
      row = slot->row;
    } else {
      if ((row = row_of_text(c, &by_key, &sr, t, r)) == -2) {
        rc = DL_ENOMEM;
        break;
      }
      *slot = (seen_slot){.key = key, .row = row};
    }
    if (row >= 0) c->shapes->v[row].calls++, row_of[i] = row;
  }
  free(t);
  free(seen);
  dl_map_free(&sr.by_hash);
  dl_smap_free(&by_key);
  return rc;
}

/* GPU time of the rows: kernels and memory operations by the instance of
 * their launching call. */
static void sum_gpu_time(dla_ctx *c, const int32_t *row_of) {
  for (size_t i = 0; i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    int32_t inst = dla__call_inst(c, k->api);
    if (inst < 0 || (size_t)inst >= c->nr || row_of[inst] < 0 || !dla__kern_in_aggr(c, k))
      continue;
    dla_shape_row *r = &c->shapes->v[row_of[inst]];
    r->gpu_time += dla__kern_dur(c, k);
    if (dla__kern_tc(c, k)) r->tc_gpu_time += dla__kern_dur(c, k);
    if (r->device < 0) r->device = dla__kern_device(c, k);
  }
  for (size_t i = 0; i < c->nm; i++) {
    const dla_mem *m = &c->m[i];
    if (m->inst < 0 || (size_t)m->inst >= c->nr || row_of[m->inst] < 0) continue;
    if (!dla__in_window(c, m->api >= 0 ? c->a[m->api].start : m->start)) continue;
    dla_shape_row *r = &c->shapes->v[row_of[m->inst]];
    r->gpu_time += m->end - m->start;
    if (r->device < 0) r->device = m->device;
  }
}

/* The GPU names of the gpus table, by device id. */
typedef struct gpu_names {
  int32_t id[DLA_MAX_GPUS];
  const dla_peak *peak[DLA_MAX_GPUS];
  int32_t sms[DLA_MAX_GPUS];
  int n;
} gpu_names;

static int note_gpu(void *ctx, const dldb_scan_gpu *g) {
  gpu_names *gn = ctx;
  if (gn->n < DLA_MAX_GPUS) {
    gn->id[gn->n] = g->device_id;
    gn->sms[gn->n] = g->sm_count;
    gn->peak[gn->n++] = dla_peak_find(g->name, -1);
  }
  return 0;
}

/* The index of a device in gn, -1 when unknown (a single GPU: that one). */
static int gpu_of(const gpu_names *gn, int32_t device) {
  for (int i = 0; i < gn->n; i++)
    if (gn->id[i] == device) return i;
  return gn->n == 1 ? 0 : -1;
}

/* Achieved figures, roofline and bound of a row. */
static void rate(dla_shape_row *r, const dla_peak *p) {
  r->tflops_per_s = r->tb_per_s = r->intensity = NAN;
  r->peak_tflops = r->peak_tb_per_s = r->roofline_tflops_per_s = r->pct_of_roofline = NAN;
  r->bound = NULL;
  if (r->pm.family == DLA_PM_NONE) return;
  if (r->gpu_time > 0) {
    r->tflops_per_s = r->pm.flops * (double)r->calls / (double)r->gpu_time / 1e3;
    r->tb_per_s = r->pm.bytes * (double)r->calls / (double)r->gpu_time / 1e3;
  }
  if (r->pm.bytes > 0) r->intensity = r->pm.flops / r->pm.bytes;
  double pf = dla_peak_flops(p, r->dtype, r->pm.tensor_core_math);
  double pb = dla_peak_bytes_per_s(p);
  if (!p || pf <= 0 || pb <= 0 || isnan(r->intensity)) {
    /* no peaks for the GPU, or none for the data type (unknown: no bytes either) */
    r->bound = p ? "unknown type" : "unknown GPU";
    r->gpu_name = p ? p->name : NULL;
    return;
  }
  r->gpu_name = p->name;
  r->peak = p;
  r->peak_tflops = pf / 1e12;
  r->peak_tb_per_s = pb / 1e12;
  double roof = fmin(pf, r->intensity * pb);
  r->roofline_tflops_per_s = roof / 1e12;
  r->bound = r->intensity * pb < pf ? "memory" : "compute";
  if (!isnan(r->tflops_per_s) && roof > 0) {
    /* a row without FLOPs (a copy) is measured against the bandwidth */
    r->pct_of_roofline = r->pm.flops > 0 ? 100.0 * r->tflops_per_s * 1e12 / roof
                                         : 100.0 * r->tb_per_s * 1e12 / pb;
  }
}

/* ---- The grouping on a thread of its own ---------------------------------- */

/* A copy of the context that holds the writer, with an error buffer of its
 * own; row_of: the grouping's result. The phases the thread runs beside
 * make no op (c->ops stays where it is) and write no field of the ranges. */
struct dla_shapes_ahead {
  dla_ctx own;
  int32_t *row_of;
  pthread_t th;
  int rc;
  char err[512];
};

static void *group_main(void *arg) {
  struct dla_shapes_ahead *a = arg;
  a->rc = group_instances(&a->own, a->row_of);
  return NULL;
}

static int shapes_new(dla_ctx *c) {
  if (c->shapes) return DL_OK;
  if (!(c->shapes = calloc(1, sizeof *c->shapes))) return DL_ENOMEM;
  c->shapes->mfu_peak_tflops = NAN;
  return DL_OK;
}

int dla__shapes_ahead(dla_ctx *c) {
  if (c->nr == 0 || shapes_new(c) != DL_OK) return DL_OK; /* dla__shapes_run's to do */
  struct dla_shapes_ahead *a = calloc(1, sizeof *a);
  int32_t *row_of = a ? malloc(c->nr * sizeof *row_of) : NULL;
  if (row_of) {
    a->own = *c;
    a->own.err = a->err;
    a->own.errlen = sizeof a->err;
    a->row_of = row_of;
  }
  if (!row_of || pthread_create(&a->th, NULL, group_main, a) != 0) {
    free(row_of);
    free(a);
    return DL_OK;
  }
  c->shapes_ahead = a;
  c->w = NULL; /* the thread's until the join */
  return DL_OK;
}

/* Joins the grouping: the writer back in c->w, its result in *row_of (the
 * caller's to free), its error line in c->err when `report`. */
static int shapes_join(dla_ctx *c, int32_t **row_of, int report) {
  struct dla_shapes_ahead *a = c->shapes_ahead;
  pthread_join(a->th, NULL);
  c->w = a->own.w;
  c->shapes_ahead = NULL;
  int rc = a->rc;
  if (report && rc && a->err[0]) dl_err(c->err, c->errlen, rc, "%s", a->err);
  *row_of = a->row_of;
  free(a);
  return rc;
}

/* Part of "analysing the timeline" (dla_iter.c starts it, the rules end
 * it): progress phases do not nest, so this one reports none of its own. */
int dla__shapes_run(dla_ctx *c) {
  int32_t *row_of = NULL;
  int rc = DL_OK;
  if (c->shapes_ahead) {
    rc = shapes_join(c, &row_of, 1);
  } else {
    if (shapes_new(c) != DL_OK) return DL_ENOMEM;
    if (c->nr == 0) return DL_OK;
    if (!(row_of = malloc(c->nr * sizeof *row_of))) return DL_ENOMEM;
    rc = group_instances(c, row_of);
  }
  if (rc == DL_OK) sum_gpu_time(c, row_of);
  if (rc == DL_OK) rc = sum_iter_flops(c, row_of);
  gpu_names *gn = calloc(1, sizeof *gn);
  if (rc == DL_OK && !gn) rc = DL_ENOMEM;
  if (rc == DL_OK) rc = dldb_scan_gpus(c->w, note_gpu, gn, c->err, c->errlen);
  for (size_t i = 0; rc == DL_OK && i < c->shapes->n; i++) {
    dla_shape_row *r = &c->shapes->v[i];
    int g = gpu_of(gn, r->device);
    r->sms = g >= 0 ? gn->sms[g] : 0;
    rate(r, g >= 0 ? gn->peak[g] : NULL);
  }
  c->shapes->mfu_peak_tflops = mfu_peak(c->shapes);
  if (rc == DL_OK) rc = dla__perffacts_chains(c, row_of);
  free(gn);
  free(row_of);
  return rc;
}

int dla__shapes_write(dla_ctx *c, int64_t aggr_id) {
  if (!c->shapes || !c->shapes->n || !dldb_dl_has_op_shapes(c->w)) return DL_OK;
  dldb_dl_op_shape_row *w = calloc(c->shapes->n, sizeof *w);
  if (!w) return DL_ENOMEM;
  for (size_t i = 0; i < c->shapes->n; i++) {
    const dla_shape_row *r = &c->shapes->v[i];
    int known = r->pm.family != DLA_PM_NONE;
    w[i] = (dldb_dl_op_shape_row){
        .row_idx = (int64_t)i, .op_idx = r->op, .input_dims = r->dims, .input_types = r->dtype,
        .model = r->pm.family_name, .calls = r->calls, .gpu_time = r->gpu_time,
        .device_id = r->device, .flops = known ? r->pm.flops : NAN,
        .bytes = known ? r->pm.bytes : NAN, .tflops_per_s = r->tflops_per_s,
        .tb_per_s = r->tb_per_s, .intensity = r->intensity, .peak_tflops = r->peak_tflops,
        .peak_tb_per_s = r->peak_tb_per_s, .roofline_tflops_per_s = r->roofline_tflops_per_s,
        .pct_of_roofline = r->pct_of_roofline, .bound = r->bound, .gpu_name = r->gpu_name};
  }
  int rc = dldb_aggr_dl_op_shapes(c->w, aggr_id, w, c->shapes->n, c->err, c->errlen);
  free(w);
  if (rc == DL_OK && c->shapes->iter_flops)
    rc = dldb_aggr_dl_iter_flops(c->w, aggr_id, c->iter_start, c->shapes->iter_flops,
                                 (size_t)c->shapes->n_iter_flops, c->shapes->mfu_peak_tflops,
                                 c->err, c->errlen);
  return rc;
}

void dla__shapes_free(dla_ctx *c) {
  int32_t *row_of = NULL;
  if (c->shapes_ahead) shapes_join(c, &row_of, 0); /* a phase before the join failed: its error */
  free(row_of);
  if (!c->shapes) return;
  for (size_t i = 0; i < c->shapes->n; i++) {
    free(c->shapes->v[i].dims);
    free(c->shapes->v[i].key);
    free(c->shapes->v[i].name);
  }
  free(c->shapes->v);
  free(c->shapes->iter_flops);
  free(c->shapes);
  c->shapes = NULL;
}

/* The Tensor Core fact of row r, 0; -1 when it has none. */
static int tc_fact(const dla_shape_row *r, double niter, dla_tc_fact *t) {
  if ((r->pm.family != DLA_PM_GEMM && r->pm.family != DLA_PM_CONV) || !r->peak ||
      r->gpu_time <= 0 || r->tc_gpu_time > 0)
    return -1;
  memset(t, 0, sizeof *t);
  int bpe = dla_pm_bpe(r->dtype);
  if (bpe == 4 && strcmp(r->dtype, "int") != 0) {
    t->reason = DLA_TC_FP32;
    int tf32 = dla_peak_flops(r->peak, "float32", 1) > 0;
    t->fix_type = tf32 ? "TF32" : "FP16 (AMP)";
    t->peak_tc = dla_peak_flops(r->peak, tf32 ? "float32" : "float16", 1);
  } else if (bpe == 2 && (r->pm.m % 8 || r->pm.n % 8 || r->pm.k % 8)) {
    t->reason = DLA_TC_ALIGN;
    t->fix_type = r->dtype;
    t->peak_tc = dla_peak_flops(r->peak, r->dtype, 1);
  } else {
    return -1;
  }
  t->peak_now = dla_peak_flops(r->peak, r->dtype, 0);
  if (t->peak_tc <= 0 || t->peak_now <= 0) return -1;
  t->op_name = r->name;
  t->dims = r->dims;
  t->dtype = r->dtype;
  t->gpu_name = r->peak->name;
  t->m = r->pm.m;
  t->n = r->pm.n;
  t->k = r->pm.k;
  t->calls_per_iter = (double)r->calls / niter;
  t->gpu_ns_per_iter = (double)r->gpu_time / niter;
  t->flops = r->pm.flops;
  t->bytes = r->pm.bytes;
  t->mem_bw = dla_peak_bytes_per_s(r->peak);
  return 0;
}

void dla__shapes_facts(const dla_ctx *c, dla_facts *f) {
  f->n_tc = f->n_attn = f->n_fuse = f->n_small_gemm = 0;
  if (!c->shapes) return;
  double niter = c->iter_stop >= c->iter_start ? (double)(c->iter_stop - c->iter_start + 1) : 1;
  f->n_attn = c->shapes->n_attn;
  memcpy(f->attn, c->shapes->attn, sizeof f->attn);
  f->n_fuse = c->shapes->n_fuse;
  memcpy(f->fuse, c->shapes->fuse, sizeof f->fuse);
  dla__perffacts_small_gemms(c, niter, f);
  for (size_t i = 0; i < c->shapes->n; i++) {
    dla_tc_fact t;
    if (tc_fact(&c->shapes->v[i], niter, &t)) continue;
    int k = f->n_tc < DLA_MAX_TC_FACTS ? f->n_tc++ : DLA_MAX_TC_FACTS - 1;
    if (k == DLA_MAX_TC_FACTS - 1 && f->tc[k].gpu_ns_per_iter >= t.gpu_ns_per_iter &&
        f->n_tc == DLA_MAX_TC_FACTS)
      continue; /* full, and smaller than the smallest kept */
    while (k > 0 && f->tc[k - 1].gpu_ns_per_iter < t.gpu_ns_per_iter) f->tc[k] = f->tc[k - 1], k--;
    f->tc[k] = t;
  }
}
