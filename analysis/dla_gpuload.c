/*
 * dla_gpuload.c - GPU work: kernels and memory ops read into c->k, c->m
 * and c->kcfg, each joined to its launching call; then (once the op nodes
 * are built) the op of GPU work of no known op instance; and the GPUs of
 * the profile.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "dla_gpuload.h"
#include "dla_internal.h"
#include "dla_tc.h"
#include "dldb_scan.h"

typedef struct gpu_loader {
  dla_ctx *c;
  const dla_corr *corr;
  dl_map *tc_cache;
  dl_map *cfg_of;           /* hash of a launch configuration -> c->kcfg index */
  int rc;
  dla_tick *l;               /* progress */
} gpu_loader;

static uint64_t kcfg_hash(const dldb_scan_gpu_op *g) {
  uint64_t h = (uint64_t)g->long_name_id * 0x9E3779B97F4A7C15ull ^ (uint64_t)g->short_name_id;
  h = (h ^ (uint32_t)g->device_id) * 0x100000001B3ull;
  for (int i = 0; i < 3; i++) {
    h = (h ^ (uint32_t)g->grid[i]) * 0x100000001B3ull;
    h = (h ^ (uint32_t)g->block[i]) * 0x100000001B3ull;
  }
  return h;
}

/* The grid's blocks (0: a dimension is not positive), at most UINT32_MAX. */
static uint32_t grid_blocks(const int32_t *grid) {
  uint64_t n = 1;
  for (int i = 0; i < 3; i++) {
    if (grid[i] <= 0) return 0;
    if (n > UINT32_MAX / (uint64_t)grid[i]) return UINT32_MAX;
    n *= (uint64_t)grid[i];
  }
  return (uint32_t)n;
}

/* The index in c->kcfg of kernel g's launch configuration (added when new). */
static int kcfg_index(gpu_loader *l, const dldb_scan_gpu_op *g, int32_t *out) {
  dla_ctx *c = l->c;
  uint64_t h = kcfg_hash(g);
  for (;;) {
    int64_t v = dl_map_get(l->cfg_of, h);
    if (v < 0) break;
    const dla_kcfg *k = &c->kcfg[v];
    if (k->long_id == g->long_name_id && k->short_id == g->short_name_id &&
        k->device == g->device_id &&
        !memcmp(k->grid, g->grid, sizeof k->grid) && !memcmp(k->block, g->block, sizeof k->block)) {
      *out = (int32_t)v;
      return DL_OK;
    }
    h = h * 0x9E3779B97F4A7C15ull + 1; /* another configuration with that hash */
  }
  if (c->nkcfg >= INT32_MAX || DLA_GROW(c->kcfg, c->nkcfg, c->kcfgcap)) return DL_ENOMEM;
  dla_kcfg *k = &c->kcfg[c->nkcfg];
  k->long_id = (int32_t)g->long_name_id;
  k->short_id = (int32_t)g->short_name_id;
  memcpy(k->grid, g->grid, sizeof k->grid);
  memcpy(k->block, g->block, sizeof k->block);
  k->blocks = grid_blocks(g->grid);
  k->device = (int32_t)g->device_id;
  int64_t tc = dl_map_get(l->tc_cache, (uint64_t)g->long_name_id);
  if (tc < 0) {
    tc = dla_tc_uses(dla_tc_classify(dldb_writer_string(c->w, g->long_name_id)));
    if (dl_map_put(l->tc_cache, (uint64_t)g->long_name_id, tc)) return DL_ENOMEM;
  }
  k->tc = (int8_t)tc;
  if (dl_map_put(l->cfg_of, h, (int64_t)c->nkcfg)) return DL_ENOMEM;
  *out = (int32_t)c->nkcfg++;
  return DL_OK;
}

/* The op instance and op of GPU work launched by call ai (-1: not found):
 * the instance owning the call's innermost range, else the call itself
 * (dla__call_inst); work of no known call goes to the shared unknown op. */
static int gpu_owner(dla_ctx *c, int64_t ai, int64_t gpu_start, int32_t *inst, int32_t *op) {
  *inst = dla__call_inst(c, (int32_t)ai);
  if (*inst >= 0) {
    *op = (size_t)*inst < c->nr ? c->r[*inst].op : dla__call_own_op(c, (int32_t)ai);
    return DL_OK;
  }
  return dla__op_for_call(c, ai >= 0 ? c->a[ai].name_id : 0, -1, gpu_start, op);
}

static int load_gpu_op(void *ctx, const dldb_scan_gpu_op *g) {
  gpu_loader *l = ctx;
  dla_ctx *c = l->c;
  dla__tick(l->l);
  int64_t ai = dla__corr_get(l->corr, g->pid, g->correlation_id);
  const dla_api *a = ai >= 0 ? &c->a[ai] : NULL;
  if (g->kind != 0) {
    if (DLA_GROW(c->m, c->nm, c->mcap)) return DL_ENOMEM;
    dla_mem *m = &c->m[c->nm++];
    m->start = g->gpu_start_ns;
    m->end = g->gpu_end_ns < g->gpu_start_ns ? g->gpu_start_ns : g->gpu_end_ns;
    m->device = g->device_id;
    m->name_key = a ? a->name_id : g->kind == 1 ? -1 - g->copy_kind : -100;
    m->iter = 0;
    m->bytes = g->bytes;
    m->api_dur = a ? dla__api_dur(c, a) : 0;
    m->kind = (int8_t)g->kind;
    m->copy_kind = (int8_t)g->copy_kind;
    m->src_kind = (int8_t)g->src_kind;
    m->dst_kind = (int8_t)(g->kind == 2 ? g->mem_kind : g->dst_kind);
    m->range = a ? a->range : -1;
    m->api = (int32_t)ai;
    m->inst = m->op = -1; /* gpu_owners */
    return DL_OK;
  }
  if (g->id < 0 || g->id > INT32_MAX || g->short_name_id < 0 || g->short_name_id > INT32_MAX ||
      g->long_name_id < 0 || g->long_name_id > INT32_MAX || g->device_id < INT32_MIN ||
      g->device_id > INT32_MAX)
    return dl_err(c->err, c->errlen, DL_ECORRUPT,
                  "dla_aggregate: kernel %lld has string ids %lld and %lld, device %d",
                  (long long)g->id, (long long)g->short_name_id, (long long)g->long_name_id,
                  (int)g->device_id);
  if (DLA_GROW(c->k, c->nk, c->kcap)) return DL_ENOMEM;
  if (c->nk == 0) c->kid0 = g->id;
  if (!c->kid && g->id != c->kid0 + (int64_t)c->nk) { /* not dense: every id kept from here */
    c->kidcap = c->kcap;
    if (!(c->kid = malloc(c->kidcap * sizeof *c->kid))) return DL_ENOMEM;
    for (size_t j = 0; j < c->nk; j++) c->kid[j] = (int32_t)(c->kid0 + (int64_t)j);
  }
  if (c->kid) {
    if (DLA_GROW(c->kid, c->nk, c->kidcap)) return DL_ENOMEM;
    c->kid[c->nk] = (int32_t)g->id;
  }
  dla_kern *k = &c->k[c->nk];
  int32_t cfg;
  uint32_t dur;
  if (kcfg_index(l, g, &cfg)) return DL_ENOMEM;
  int64_t d = g->gpu_end_ns < g->gpu_start_ns
                  ? 0
                  : (int64_t)((uint64_t)g->gpu_end_ns - (uint64_t)g->gpu_start_ns);
  if (g->gpu_end_ns < g->gpu_start_ns || d < 0) c->kdur_clamped = 1;
  if (dla__put_dur(&dur, d, (int32_t)c->nk, &c->klong, &c->nklong, &c->klongcap)) return DL_ENOMEM;
  c->nk++;
  k->cfg = cfg;
  k->dur = dur;
  k->gpu_start = g->gpu_start_ns;
  k->api = (int32_t)ai;
  return DL_OK;
}

/* The op of each kernel and the op instance and op of each memory op, in
 * that order (ops of GPU work of no known call are made as they come). */
static int gpu_owners(dla_ctx *c) {
  int rc = DL_OK;
  int32_t inst, op = -1;
  c->nocall_op = -1;
  for (size_t i = 0; rc == DL_OK && i < c->nk; i++) {
    const dla_kern *k = &c->k[i];
    if (k->api >= 0 && dla__call_op(c, k->api) >= 0) continue; /* dla__kern_op derives it */
    rc = gpu_owner(c, k->api, k->gpu_start, &inst, &op);
    c->nocall_op = op; /* one op for them all (dla__op_for_call's key "\002-1") */
  }
  for (size_t i = 0; rc == DL_OK && i < c->nm; i++)
    rc = gpu_owner(c, c->m[i].api, c->m[i].start, &c->m[i].inst, &c->m[i].op);
  return rc;
}


/* An AMD GPU by its name: ROCm's "AMD Instinct MI300X", "AMD Radeon Graphics" (an MI250's
 * Kineto name), "Radeon PRO W7900". */
static int gpu_is_amd(const char *name) {
  return strncasecmp(name, "AMD ", 4) == 0 || strcasestr(name, "radeon") != NULL ||
         strcasestr(name, "instinct") != NULL;
}

static int load_gpu_id(void *ctx, const dldb_scan_gpu *g) {
  dla_ctx *c = ctx;
  c->ngpus_listed++;
  c->ngpus_amd += gpu_is_amd(g->name);
  if (c->ngpus < DLA_MAX_GPUS) {
    c->gpu_mem[c->ngpus] = g->memory_bytes;
    c->gpu_sms[c->ngpus] = g->sm_count > 0 ? g->sm_count : 0;
    c->gpu_ids[c->ngpus++] = g->device_id;
  }
  return 0;
}

/* The devices of kernels that the gpus table lacks, in the order of their
 * first kernel (the configurations are in the order of their first launch). */
static void add_kernel_devices(dla_ctx *c) {
  for (size_t i = 0; i < c->nkcfg; i++) {
    int g = 0;
    while (g < c->ngpus && c->gpu_ids[g] != c->kcfg[i].device) g++;
    if (g == c->ngpus && c->ngpus < DLA_MAX_GPUS) c->gpu_ids[c->ngpus++] = c->kcfg[i].device;
  }
}


int dla__gpu_scan(dla_ctx *c, const dla_corr *corr) {
  dla_tick t = {.c = c};
  dl_map tc_cache, cfg_of;
  dl_map_init(&tc_cache);
  dl_map_init(&cfg_of);
  gpu_loader gl = {.c = c, .corr = corr, .tc_cache = &tc_cache, .cfg_of = &cfg_of, .l = &t};
  int rc = dla__tick_start(&t, "loading kernels", "kernels", (void **)&c->k, &c->kcap,
                           sizeof *c->k,
                           dldb_scan_estimate(c->w, "memcpys") + dldb_scan_estimate(c->w, "memsets"));
  if (rc == DL_OK) rc = dldb_scan_gpu_ops(c->w, load_gpu_op, &gl, c->err, c->errlen);
  dl_map_free(&cfg_of);
  dl_map_free(&tc_cache);
  return rc;
}

int dla__gpu_work(dla_ctx *c) {
  dla__progress(c, "loading kernels", 0, (int64_t)(c->nk + c->nm));
  int rc = gpu_owners(c);
  if (rc) return rc;
  dla__progress(c, "loading kernels", (int64_t)(c->nk + c->nm), (int64_t)(c->nk + c->nm));
#ifdef __GLIBC__
  malloc_trim(0); /* what the loading thread freed stays in its arena otherwise */
#endif
  if ((rc = dldb_scan_gpus(c->w, load_gpu_id, c, c->err, c->errlen))) return rc;
  add_kernel_devices(c);
  return DL_OK;
}
