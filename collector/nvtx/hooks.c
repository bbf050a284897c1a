/*
 * hooks.c - NVTX through injection: InitializeInjectionNvtx2 and the
 * handlers it installs (formats.md E.1).
 *
 * Each NVTX instance (every DSO with the header-only nvtx3 has one) calls
 * InitializeInjectionNvtx2 once; we fill its CORE and CORE2 tables with
 * the same handlers. A handler stamps the time, keeps the per-thread,
 * per-domain push/pop stack (so that push and pop return NVTX's levels),
 * and appends one small event to the calling thread's ring (ring.h); the
 * writer thread drains the rings (dlc_nvtx_drain) into dlc_records. Range
 * ids come from one process-wide counter and become the rows' ids.
 *
 * Domain and registered-string handles are our own heap objects, kept in
 * lists for the life of the process (NVTX may use a handle at any time).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "../core.h"
#include "../record.h"
#include "ring.h"

#define DLC_EXPORT __attribute__((visibility("default")))

enum { EV_BEGIN = 1, EV_END, EV_THREAD, EV_CATEGORY };
enum { RING_BYTES = 4 << 20, NAME_MAX_BYTES = 4096, MAX_DOMAINS = 32 };

typedef struct dlc_domain {
  char *name;
  struct dlc_domain *next;
} dlc_domain;

typedef struct dlc_rstring {
  char *s;
  struct dlc_rstring *next;
} dlc_rstring;

typedef struct ev_begin {
  dlc_ring_hdr h;
  uint64_t id, parent;
  const dlc_domain *domain;
  int64_t t;
  uint32_t category, color;
  int32_t range_kind, payload_kind;
  int64_t payload_int;
  double payload_real;
  char name[];
} ev_begin;

typedef struct ev_end {
  dlc_ring_hdr h;
  uint64_t id;
  int64_t t;
} ev_end;

typedef struct ev_named { /* EV_THREAD (x = tid), EV_CATEGORY (x = category) */
  dlc_ring_hdr h;
  const dlc_domain *domain;
  int64_t x;
  char name[];
} ev_named;

typedef struct dstack {
  const dlc_domain *domain;
  uint64_t *ids;
  int n, cap;
} dstack;

typedef struct tstate {
  dlc_ring *ring;
  int64_t tid;
  int nstacks;
  dstack stacks[MAX_DOMAINS];
} tstate;

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static dlc_ring *rings;           /* all rings, under reg_mu */
static dlc_domain *domains;       /* under reg_mu */
static dlc_rstring *rstrings;     /* under reg_mu */
static pthread_key_t tkey;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread tstate *tls;
static __thread int tls_gone;
static atomic_int note_overflow;

/* ---- Per-thread state -------------------------------------------------- */

static void thread_gone(void *p) {
  tstate *ts = p;
  for (int i = 0; i < ts->nstacks; i++) free(ts->stacks[i].ids);
  if (ts->ring) atomic_store(&ts->ring->dead, 1); /* the writer frees it */
  free(ts);
  tls = NULL;
  tls_gone = 1;
}

static void make_key(void) { pthread_key_create(&tkey, thread_gone); }

static tstate *thread_state(void) {
  tstate *ts = tls;
  if (ts) return ts;
  if (tls_gone) return NULL;
  if (!(ts = calloc(1, sizeof *ts))) return NULL;
  ts->tid = (int64_t)syscall(SYS_gettid);
  if (!(ts->ring = dlc_ring_new(RING_BYTES, ts->tid))) {
    free(ts);
    dlc_core_fail("out of memory for NVTX events; not recording");
    return NULL;
  }
  pthread_once(&key_once, make_key);
  pthread_setspecific(tkey, ts);
  pthread_mutex_lock(&reg_mu);
  ts->ring->next = rings;
  rings = ts->ring;
  pthread_mutex_unlock(&reg_mu);
  tls = ts;
  return ts;
}

static dstack *stack_of(tstate *ts, const dlc_domain *d) {
  for (int i = 0; i < ts->nstacks; i++)
    if (ts->stacks[i].domain == d) return &ts->stacks[i];
  if (ts->nstacks == MAX_DOMAINS) return NULL;
  dstack *s = &ts->stacks[ts->nstacks++];
  s->domain = d;
  return s;
}

/* ---- Messages ------------------------------------------------------------- */

/* Writes s (UTF-32 on Linux) as UTF-8 into out (cap bytes), NUL-ended. */
static void wide_to_utf8(const wchar_t *s, char *out, size_t cap) {
  size_t n = 0;
  for (; s && *s && n + 5 < cap; s++) {
    uint32_t c = (uint32_t)*s;
    if (c < 0x80) {
      out[n++] = (char)c;
    } else if (c < 0x800) {
      out[n++] = (char)(0xC0 | (c >> 6));
      out[n++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out[n++] = (char)(0xE0 | (c >> 12));
      out[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
      out[n++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x110000) {
      out[n++] = (char)(0xF0 | (c >> 18));
      out[n++] = (char)(0x80 | ((c >> 12) & 0x3F));
      out[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
      out[n++] = (char)(0x80 | (c & 0x3F));
    }
  }
  out[n] = '\0';
}

/* The ASCII/UTF-8 text of an attribute's message; wide text goes to buf. */
static const char *message_of(const nvtxEventAttributes_t *a, char *buf, size_t cap) {
  if (!a) return "";
  switch (a->messageType) {
  case NVTX_MESSAGE_TYPE_ASCII: return a->message.ascii ? a->message.ascii : "";
  case NVTX_MESSAGE_TYPE_UNICODE: wide_to_utf8(a->message.unicode, buf, cap); return buf;
  case NVTX_MESSAGE_TYPE_REGISTERED: {
    const dlc_rstring *r = (const dlc_rstring *)a->message.registered;
    return r && r->s ? r->s : "";
  }
  default: return "";
  }
}

/* ---- Events ----------------------------------------------------------------- */

static uint64_t begin(int kind, const dlc_domain *d, const nvtxEventAttributes_t *a,
                      const char *text, tstate *ts, uint64_t parent, int64_t t) {
  char wbuf[NAME_MAX_BYTES];
  const char *name = text ? text : message_of(a, wbuf, sizeof wbuf);
  size_t n = strnlen(name, NAME_MAX_BYTES - 1);
  ev_begin *e = dlc_ring_reserve(ts->ring, sizeof *e + n + 1);
  if (!e) {
    dlc_core_note(&note_overflow, "NVTX events are being dropped: the writer cannot keep up");
    return 0;
  }
  uint64_t id = dlc_core_next_id();
  e->h.type = EV_BEGIN;
  e->id = id;
  e->parent = parent;
  e->domain = d;
  e->t = t;
  e->range_kind = kind;
  e->category = 0;
  e->color = 0;
  e->payload_kind = DLC_PAYLOAD_NONE;
  if (a) {
    e->category = a->category;
    e->color = a->colorType == NVTX_COLOR_ARGB ? a->color : 0;
    switch (a->payloadType) {
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
      e->payload_kind = DLC_PAYLOAD_INT, e->payload_int = (int64_t)a->payload.ullValue; break;
    case NVTX_PAYLOAD_TYPE_INT64:
      e->payload_kind = DLC_PAYLOAD_INT, e->payload_int = a->payload.llValue; break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
      e->payload_kind = DLC_PAYLOAD_INT, e->payload_int = a->payload.uiValue; break;
    case NVTX_PAYLOAD_TYPE_INT32:
      e->payload_kind = DLC_PAYLOAD_INT, e->payload_int = a->payload.iValue; break;
    case NVTX_PAYLOAD_TYPE_DOUBLE:
      e->payload_kind = DLC_PAYLOAD_REAL, e->payload_real = a->payload.dValue; break;
    case NVTX_PAYLOAD_TYPE_FLOAT:
      e->payload_kind = DLC_PAYLOAD_REAL, e->payload_real = a->payload.fValue; break;
    default: break;
    }
  }
  memcpy(e->name, name, n);
  e->name[n] = '\0';
  dlc_ring_publish(ts->ring, e);
  return id;
}

static void end(tstate *ts, uint64_t id, int64_t t) {
  ev_end *e = dlc_ring_reserve(ts->ring, sizeof *e);
  if (!e) return;
  e->h.type = EV_END;
  e->id = id;
  e->t = t;
  dlc_ring_publish(ts->ring, e);
}

static void named(int type, const dlc_domain *d, int64_t x, const char *name) {
  tstate *ts = thread_state();
  if (!ts || !name) return;
  size_t n = strnlen(name, NAME_MAX_BYTES - 1);
  ev_named *e = dlc_ring_reserve(ts->ring, sizeof *e + n + 1);
  if (!e) return;
  e->h.type = (uint32_t)type;
  e->domain = d;
  e->x = x;
  memcpy(e->name, name, n);
  e->name[n] = '\0';
  dlc_ring_publish(ts->ring, e);
}

/* ---- Handlers ----------------------------------------------------------------- */

static int push(const dlc_domain *d, const nvtxEventAttributes_t *a, const char *text) {
  if (!dlc_core_active()) return -2; /* NVTX's "no tool" answer */
  tstate *ts = thread_state();
  dstack *s = ts ? stack_of(ts, d) : NULL;
  if (!s) return -2;
  if (s->n == s->cap) {
    int ncap = s->cap ? s->cap * 2 : 16;
    uint64_t *ids = realloc(s->ids, (size_t)ncap * sizeof *ids);
    if (!ids) return -2;
    s->ids = ids;
    s->cap = ncap;
  }
  int64_t t = dlc_now_ns();
  uint64_t id = 0;
  if (dlc_core_recording(t)) {
    uint64_t parent = 0;
    for (int i = s->n - 1; i >= 0 && !parent; i--) parent = s->ids[i];
    id = begin(DLC_RANGE_PUSHPOP, d, a, text, ts, parent, t);
    void (*ext)(uint64_t) = atomic_load_explicit(&dlc_extcorr_push, memory_order_relaxed);
    if (id && ext) ext(id);
  }
  s->ids[s->n++] = id;
  return s->n - 1;
}

static int pop(const dlc_domain *d) {
  tstate *ts = tls;
  if (!ts || !dlc_core_active()) return -2;
  dstack *s = stack_of(ts, d);
  if (!s || s->n == 0) return -1;
  uint64_t id = s->ids[--s->n];
  if (id) {
    end(ts, id, dlc_now_ns());
    void (*ext)(void) = atomic_load_explicit(&dlc_extcorr_pop, memory_order_relaxed);
    if (ext) ext();
  }
  return s->n;
}

static nvtxRangeId_t start(const dlc_domain *d, const nvtxEventAttributes_t *a,
                           const char *text) {
  if (!dlc_core_active()) return 0;
  int64_t t = dlc_now_ns();
  tstate *ts = thread_state();
  if (!ts || !dlc_core_recording(t)) return 0;
  return begin(DLC_RANGE_STARTEND, d, a, text, ts, 0, t);
}

static void stop(nvtxRangeId_t id) {
  if (!id || !dlc_core_active()) return;
  tstate *ts = thread_state();
  if (ts) end(ts, id, dlc_now_ns());
}

static void mark(const dlc_domain *d, const nvtxEventAttributes_t *a, const char *text) {
  if (!dlc_core_active()) return;
  int64_t t = dlc_now_ns();
  tstate *ts = thread_state();
  if (ts && dlc_core_recording(t)) begin(DLC_RANGE_MARK, d, a, text, ts, 0, t);
}

static void NVTX_API h_MarkEx(const nvtxEventAttributes_t *a) { mark(NULL, a, NULL); }
static void NVTX_API h_MarkA(const char *m) { mark(NULL, NULL, m ? m : ""); }
static void NVTX_API h_MarkW(const wchar_t *m) {
  char buf[NAME_MAX_BYTES];
  wide_to_utf8(m, buf, sizeof buf);
  mark(NULL, NULL, buf);
}
static nvtxRangeId_t NVTX_API h_RangeStartEx(const nvtxEventAttributes_t *a) {
  return start(NULL, a, NULL);
}
static nvtxRangeId_t NVTX_API h_RangeStartA(const char *m) { return start(NULL, NULL, m ? m : ""); }
static nvtxRangeId_t NVTX_API h_RangeStartW(const wchar_t *m) {
  char buf[NAME_MAX_BYTES];
  wide_to_utf8(m, buf, sizeof buf);
  return start(NULL, NULL, buf);
}
static void NVTX_API h_RangeEnd(nvtxRangeId_t id) { stop(id); }
static int NVTX_API h_RangePushEx(const nvtxEventAttributes_t *a) { return push(NULL, a, NULL); }
static int NVTX_API h_RangePushA(const char *m) { return push(NULL, NULL, m ? m : ""); }
static int NVTX_API h_RangePushW(const wchar_t *m) {
  char buf[NAME_MAX_BYTES];
  wide_to_utf8(m, buf, sizeof buf);
  return push(NULL, NULL, buf);
}
static int NVTX_API h_RangePop(void) { return pop(NULL); }
static void NVTX_API h_NameCategoryA(uint32_t c, const char *name) {
  if (dlc_core_active()) named(EV_CATEGORY, NULL, c, name);
}
static void NVTX_API h_NameCategoryW(uint32_t c, const wchar_t *name) {
  char buf[NAME_MAX_BYTES];
  wide_to_utf8(name, buf, sizeof buf);
  h_NameCategoryA(c, buf);
}
static void NVTX_API h_NameOsThreadA(uint32_t tid, const char *name) {
  if (dlc_core_active()) named(EV_THREAD, NULL, tid, name);
}
static void NVTX_API h_NameOsThreadW(uint32_t tid, const wchar_t *name) {
  char buf[NAME_MAX_BYTES];
  wide_to_utf8(name, buf, sizeof buf);
  h_NameOsThreadA(tid, buf);
}

static void NVTX_API h_DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  mark((const dlc_domain *)d, a, NULL);
}
static nvtxRangeId_t NVTX_API h_DomainRangeStartEx(nvtxDomainHandle_t d,
                                                   const nvtxEventAttributes_t *a) {
  return start((const dlc_domain *)d, a, NULL);
}
static void NVTX_API h_DomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  (void)d;
  stop(id);
}
static int NVTX_API h_DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  return push((const dlc_domain *)d, a, NULL);
}
static int NVTX_API h_DomainRangePop(nvtxDomainHandle_t d) { return pop((const dlc_domain *)d); }
static void NVTX_API h_DomainNameCategoryA(nvtxDomainHandle_t d, uint32_t c, const char *name) {
  if (dlc_core_active()) named(EV_CATEGORY, (const dlc_domain *)d, c, name);
}
static void NVTX_API h_DomainNameCategoryW(nvtxDomainHandle_t d, uint32_t c,
                                           const wchar_t *name) {
  char buf[NAME_MAX_BYTES];
  wide_to_utf8(name, buf, sizeof buf);
  h_DomainNameCategoryA(d, c, buf);
}
static nvtxStringHandle_t NVTX_API h_DomainRegisterStringA(nvtxDomainHandle_t d,
                                                           const char *s) {
  (void)d;
  dlc_rstring *r = calloc(1, sizeof *r);
  if (!r || !(r->s = strdup(s ? s : ""))) {
    free(r);
    return NULL;
  }
  pthread_mutex_lock(&reg_mu);
  r->next = rstrings;
  rstrings = r;
  pthread_mutex_unlock(&reg_mu);
  return (nvtxStringHandle_t)r;
}
static nvtxStringHandle_t NVTX_API h_DomainRegisterStringW(nvtxDomainHandle_t d,
                                                           const wchar_t *s) {
  char buf[NAME_MAX_BYTES];
  wide_to_utf8(s, buf, sizeof buf);
  return h_DomainRegisterStringA(d, buf);
}
static nvtxDomainHandle_t NVTX_API h_DomainCreateA(const char *name) {
  pthread_mutex_lock(&reg_mu);
  dlc_domain *d = domains;
  for (; d; d = d->next)
    if (strcmp(d->name, name ? name : "") == 0) break;
  if (!d && (d = calloc(1, sizeof *d)) != NULL) {
    if ((d->name = strdup(name ? name : ""))) {
      d->next = domains;
      domains = d;
    } else {
      free(d);
      d = NULL;
    }
  }
  pthread_mutex_unlock(&reg_mu);
  return (nvtxDomainHandle_t)d;
}
static nvtxDomainHandle_t NVTX_API h_DomainCreateW(const wchar_t *name) {
  char buf[NAME_MAX_BYTES];
  wide_to_utf8(name, buf, sizeof buf);
  return h_DomainCreateA(buf);
}
static void NVTX_API h_DomainDestroy(nvtxDomainHandle_t d) { (void)d; /* handles stay valid */ }

/* ---- Draining (writer thread) --------------------------------------------------- */

typedef struct drain_ctx {
  dlc_writer *w;
  int64_t tid;
} drain_ctx;

static void on_event(void *ctx, const dlc_ring_hdr *h) {
  drain_ctx *c = ctx;
  dlc_record r;
  memset(&r, 0, sizeof r);
  switch (h->type) {
  case EV_BEGIN: {
    const ev_begin *e = (const ev_begin *)h;
    r.kind = DLC_NVTX_BEGIN;
    r.u.begin = (dlc_nvtx_begin){
        .range_kind = e->range_kind, .id = e->id, .parent_id = e->parent,
        .domain = e->domain ? e->domain->name : NULL, .name = e->name, .t_ns = e->t,
        .tid = c->tid, .category = e->category, .color = e->color,
        .payload_kind = e->payload_kind, .payload_int = e->payload_int,
        .payload_real = e->payload_real};
    break;
  }
  case EV_END: {
    const ev_end *e = (const ev_end *)h;
    r.kind = DLC_NVTX_END;
    r.u.end = (dlc_nvtx_end){.id = e->id, .t_ns = e->t, .tid = c->tid};
    break;
  }
  case EV_THREAD: {
    const ev_named *e = (const ev_named *)h;
    r.kind = DLC_THREAD_NAME;
    r.u.thread = (dlc_thread_name){.tid = e->x, .name = e->name};
    break;
  }
  case EV_CATEGORY: {
    const ev_named *e = (const ev_named *)h;
    r.kind = DLC_CATEGORY;
    r.u.category = (dlc_category){.domain = e->domain ? e->domain->name : NULL,
                                  .category = (uint32_t)e->x, .name = e->name};
    break;
  }
  default: return;
  }
  dlc_writer_put(c->w, &r);
}

/* Drains every ring; frees the rings of exited threads once empty. */
static void drain(void *unused, dlc_writer *w) {
  (void)unused;
  pthread_mutex_lock(&reg_mu);
  dlc_ring *list = rings;
  pthread_mutex_unlock(&reg_mu);
  /* Rings are only ever prepended, so the list from `list` on is stable
   * while we walk it; unlinking happens below under the lock. */
  for (dlc_ring *r = list; r; r = r->next) {
    drain_ctx c = {.w = w, .tid = r->tid};
    dlc_ring_drain(r, on_event, &c);
  }
  pthread_mutex_lock(&reg_mu);
  for (dlc_ring **p = &rings; *p;) {
    dlc_ring *r = *p;
    if (atomic_load(&r->dead) &&
        atomic_load(&r->head) == atomic_load(&r->tail)) {
      *p = r->next;
      dlc_ring_free(&r);
    } else {
      p = &r->next;
    }
  }
  pthread_mutex_unlock(&reg_mu);
}

/* ---- Attaching ------------------------------------------------------------------ */

static void fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module,
                 const NvtxFunctionPointer *handlers, unsigned count) {
  NvtxFunctionTable table = NULL;
  unsigned size = 0;
  if (!cb->GetModuleFunctionTable(module, &table, &size) || !table) return;
  for (unsigned i = 1; i < count && i < size; i++)
    if (handlers[i] && table[i]) *table[i] = handlers[i];
}

#define H(f) ((NvtxFunctionPointer)(f))

DLC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table);
DLC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  static const NvtxFunctionPointer core[NVTX_CBID_CORE_SIZE] = {
      [NVTX_CBID_CORE_MarkEx] = H(h_MarkEx),
      [NVTX_CBID_CORE_MarkA] = H(h_MarkA),
      [NVTX_CBID_CORE_MarkW] = H(h_MarkW),
      [NVTX_CBID_CORE_RangeStartEx] = H(h_RangeStartEx),
      [NVTX_CBID_CORE_RangeStartA] = H(h_RangeStartA),
      [NVTX_CBID_CORE_RangeStartW] = H(h_RangeStartW),
      [NVTX_CBID_CORE_RangeEnd] = H(h_RangeEnd),
      [NVTX_CBID_CORE_RangePushEx] = H(h_RangePushEx),
      [NVTX_CBID_CORE_RangePushA] = H(h_RangePushA),
      [NVTX_CBID_CORE_RangePushW] = H(h_RangePushW),
      [NVTX_CBID_CORE_RangePop] = H(h_RangePop),
      [NVTX_CBID_CORE_NameCategoryA] = H(h_NameCategoryA),
      [NVTX_CBID_CORE_NameCategoryW] = H(h_NameCategoryW),
      [NVTX_CBID_CORE_NameOsThreadA] = H(h_NameOsThreadA),
      [NVTX_CBID_CORE_NameOsThreadW] = H(h_NameOsThreadW),
  };
  static const NvtxFunctionPointer core2[NVTX_CBID_CORE2_SIZE] = {
      [NVTX_CBID_CORE2_DomainMarkEx] = H(h_DomainMarkEx),
      [NVTX_CBID_CORE2_DomainRangeStartEx] = H(h_DomainRangeStartEx),
      [NVTX_CBID_CORE2_DomainRangeEnd] = H(h_DomainRangeEnd),
      [NVTX_CBID_CORE2_DomainRangePushEx] = H(h_DomainRangePushEx),
      [NVTX_CBID_CORE2_DomainRangePop] = H(h_DomainRangePop),
      [NVTX_CBID_CORE2_DomainNameCategoryA] = H(h_DomainNameCategoryA),
      [NVTX_CBID_CORE2_DomainNameCategoryW] = H(h_DomainNameCategoryW),
      [NVTX_CBID_CORE2_DomainRegisterStringA] = H(h_DomainRegisterStringA),
      [NVTX_CBID_CORE2_DomainRegisterStringW] = H(h_DomainRegisterStringW),
      [NVTX_CBID_CORE2_DomainCreateA] = H(h_DomainCreateA),
      [NVTX_CBID_CORE2_DomainCreateW] = H(h_DomainCreateW),
      [NVTX_CBID_CORE2_DomainDestroy] = H(h_DomainDestroy),
  };
  if (!get_table) return 0;
  const NvtxExportTableCallbacks *cb = get_table(NVTX_ETID_CALLBACKS);
  if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable) return 0;
  dlc_core_set_nvtx_source(drain);
  if (!dlc_core_init()) return 0; /* stays a no-op: nothing recorded, nothing paid */
  fill(cb, NVTX_CB_MODULE_CORE, core, NVTX_CBID_CORE_SIZE);
  fill(cb, NVTX_CB_MODULE_CORE2, core2, NVTX_CBID_CORE2_SIZE);
  return 1;
}
