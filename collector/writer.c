/*
 * writer.c - the writer thread (writer.h).
 *
 * Lock order: only `mu` (the queue, flush counters); SQLite is used by the
 * writer thread alone (or by the only thread before dlc_writer_start).
 * The thread sleeps in poll() on a pipe so that a signal handler can wake
 * it (write() is async-signal-safe; pthread_cond_signal is not).
 */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dl_map.h"
#include "dldb_write_live.h"
#include "kname.h"

/* ---- Maps of the writer's state (common/dl_map) --------------------------- */

typedef struct open_range {
  int ended;                      /* 1: only the end is known yet */
  dlc_nvtx_begin b;               /* name NULL (name_id); domain from keep_domain */
  int64_t name_id;                /* b.name's interned id */
  int64_t end_ns, end_tid;
} open_range;

/* Pointer values in a dl_map: user-space addresses on 64-bit Linux are
 * below 2^63, so a pointer stored as int64 is never the map's -1 (none). */
static void *map_ptr(const dl_map *m, uint64_t k) {
  int64_t v = dl_map_get(m, k);
  return v < 0 ? NULL : (void *)(intptr_t)v;
}

static int map_put_ptr(dl_map *m, uint64_t k, void *p) {
  return dl_map_put(m, k, (int64_t)(intptr_t)p);
}

/* Frees every pointer value of m, then m. */
static void map_free_ptrs(dl_map *m) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->vals[i] >= 0) free((void *)(intptr_t)m->vals[i]);
  dl_map_free(m);
}

/* ---- The writer -------------------------------------------------------- */

/* A kernel name's demangled and short forms, interned once per name (the
 * rows then carry only the ids). */
typedef struct kname_pair {
  char *long_name, *short_name;
  int64_t long_id, short_id;
} kname_pair;

struct dlc_writer {
  dlc_writer_opts o;
  dldb_live *live;
  /* queue and wake-ups */
  pthread_mutex_t mu;
  dlc_batch *head, *tail;
  size_t queued;
  int pipe_rd, pipe_wr;
  pthread_t thread;
  int started;
  atomic_int stop, failed, final_started, final_done;
  atomic_int ack_fd;
  uint64_t flush_req, flush_done; /* under mu */
  pthread_cond_t flushed;
  /* writer-thread state */
  dl_map open;                    /* range id -> open_range (owned) */
  dl_map threads;                 /* tid -> 1 once written */
  dl_map knames;                  /* interned kernel-name pointer -> kname_pair (owned) */
  dl_map api_names;               /* API name pointer (static) -> string id */
  dl_map domains;                 /* domain name's string id -> its copy (owned) */
  int64_t last_tid;               /* the thread of the last API call (written) */
  dl_map ctx_dev;                 /* context id -> device id */
  int64_t last_commit_ns;
  dlc_writer_stats st;
  atomic_llong dropped_batches, dropped_records;
  char err[512];
};

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t real_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Records the first failure, tells on_error once. Returns -1. */
static int fail(dlc_writer *w, const char *msg) {
  int expected = 0;
  if (atomic_compare_exchange_strong(&w->failed, &expected, 1)) {
    snprintf(w->err, sizeof w->err, "%s", msg);
    if (w->o.on_error) w->o.on_error(w->o.ctx, w->err);
  }
  return -1;
}

static void wake(dlc_writer *w) {
  char c = 'w';
  if (w->pipe_wr >= 0) {
    ssize_t r = write(w->pipe_wr, &c, 1); /* a full pipe already means "wake" */
    (void)r;
  }
}

int dlc_writer_open(const char *path, const dlc_writer_opts *o, dlc_writer **out,
                    uint64_t *first_id, char *err, size_t errlen) {
  dlc_writer *w = calloc(1, sizeof *w);
  int64_t first = 1;
  int rc;
  *out = NULL;
  if (!w) return dl_err(err, errlen, DL_ENOMEM, "dlc_writer_open: out of memory");
  if (o) w->o = *o;
  if (w->o.commit_ms <= 0) w->o.commit_ms = 200;
  if (w->o.poll_ms <= 0) w->o.poll_ms = 20;
  if (!w->o.max_queued) w->o.max_queued = 64;
  w->pipe_rd = w->pipe_wr = -1;
  atomic_init(&w->ack_fd, -1);
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->flushed, NULL);
  if ((rc = dldb_live_open(path, &w->live, &first, err, errlen))) goto out;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    rc = dl_err(err, errlen, DL_EIO, "dlc_writer_open: pipe: %s", strerror(errno));
    goto out;
  }
  w->pipe_rd = fds[0];
  w->pipe_wr = fds[1];
  w->last_commit_ns = mono_ns();
out:
  if (rc) {
    dldb_live_close(&w->live, NULL, 0);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->flushed);
    free(w);
    return rc;
  }
  if (first_id) *first_id = (uint64_t)first;
  *out = w;
  return DL_OK;
}

/* ---- Writing records ----------------------------------------------------- */

static int write_thread(dlc_writer *w, int64_t tid, const char *name) {
  char buf[64] = "", path[64];
  if (!name) {
    if (tid == w->last_tid && tid) return 0;
    if (dl_map_get(&w->threads, (uint64_t)tid) >= 0) {
      w->last_tid = tid;
      return 0;
    }
    snprintf(path, sizeof path, "/proc/self/task/%lld/comm", (long long)tid);
    FILE *f = fopen(path, "re");
    if (f) {
      if (fgets(buf, sizeof buf, f)) buf[strcspn(buf, "\n")] = '\0';
      fclose(f);
    }
    name = buf[0] ? buf : NULL;
  }
  if (dl_map_put(&w->threads, (uint64_t)tid, 1)) return fail(w, "out of memory");
  dldb_thread t = {.pid = w->o.pid, .tid = tid, .name = name};
  char err[256];
  if (dldb_write_thread(dldb_live_writer(w->live), &t, err, sizeof err)) return fail(w, err);
  return 0;
}

static int write_range(dlc_writer *w, const dlc_nvtx_begin *b, int64_t name_id,
                       int64_t end_ns, int64_t end_tid) {
  char err[256];
  static const int kinds[] = {[DLC_RANGE_PUSHPOP] = DLDB_NVTX_PUSHPOP,
                              [DLC_RANGE_STARTEND] = DLDB_NVTX_STARTEND,
                              [DLC_RANGE_MARK] = DLDB_NVTX_MARK};
  dldb_nvtx_range r = {
      .kind = kinds[b->range_kind], .domain = b->domain, .name = b->name, .name_id = name_id,
      .start_ns = b->t_ns, .end_ns = end_ns, .pid = w->o.pid, .tid = b->tid,
      .end_tid = end_tid, .parent_id = (int64_t)b->parent_id, .category = (int32_t)b->category,
      .color = b->color, .payload_kind = b->payload_kind, .payload_int = b->payload_int,
      .payload_real = b->payload_real};
  if (write_thread(w, b->tid, NULL)) return -1;
  if (dldb_live_nvtx_range(w->live, (int64_t)b->id, &r, err, sizeof err)) return fail(w, err);
  w->st.ranges++;
  return 0;
}

/* Interns s in the dldb writer's string table: its id (> 0), 0 on failure
 * (reported). Past the writer's memory budget a string is not kept in
 * memory (dldb_writer_string would hand out a reused buffer): open ranges
 * keep the id of their name, and domain names are copied (keep_domain). */
static int64_t keep_id(dlc_writer *w, const char *s) {
  int64_t sid = 0;
  char err[256];
  if (dldb_writer_intern(dldb_live_writer(w->live), s, &sid, err, sizeof err)) {
    fail(w, err);
    return 0;
  }
  return sid;
}

/* A copy of a domain name that lives as long as the writer (NULL: the
 * default domain, or a failure, reported). */
static const char *keep_domain(dlc_writer *w, const char *s) {
  if (!s) return NULL;
  int64_t id = keep_id(w, s);
  if (!id) return NULL;
  const char *kept = map_ptr(&w->domains, (uint64_t)id);
  if (kept) return kept;
  char *copy = strdup(s);
  if (!copy || map_put_ptr(&w->domains, (uint64_t)id, copy)) {
    free(copy);
    fail(w, "out of memory");
    return NULL;
  }
  return copy;
}

static int nvtx_begin(dlc_writer *w, const dlc_nvtx_begin *b) {
  if (b->range_kind == DLC_RANGE_MARK) return write_range(w, b, 0, b->t_ns, b->tid);
  open_range *ended = map_ptr(&w->open, b->id);
  if (ended && ended->ended) { /* its end came first */
    open_range *o = ended;
    int rc = write_range(w, b, 0, o->end_ns, o->end_tid);
    dl_map_del(&w->open, b->id);
    free(o);
    return rc;
  }
  open_range *o = calloc(1, sizeof *o);
  if (!o) return fail(w, "out of memory");
  o->b = *b;
  o->b.name = NULL; /* by id: o->name_id */
  o->name_id = keep_id(w, b->name);
  o->b.domain = keep_domain(w, b->domain);
  if (!o->name_id || (b->domain && !o->b.domain) || map_put_ptr(&w->open, b->id, o)) {
    free(o);
    return fail(w, "out of memory");
  }
  return 0;
}

static int nvtx_end(dlc_writer *w, const dlc_nvtx_end *e) {
  open_range *o = map_ptr(&w->open, e->id);
  if (!o) { /* the begin is in another thread's ring not drained yet */
    o = calloc(1, sizeof *o);
    if (!o || map_put_ptr(&w->open, e->id, o)) {
      free(o);
      return fail(w, "out of memory");
    }
    o->ended = 1;
    o->end_ns = e->t_ns;
    o->end_tid = e->tid;
    return 0;
  }
  if (o->ended) return 0; /* a second end: ignore */
  int rc = write_range(w, &o->b, o->name_id, e->t_ns, e->tid);
  dl_map_del(&w->open, e->id);
  free(o);
  return rc;
}

static int write_kernel(dlc_writer *w, const dlc_kernel *k) {
  char err[256];
  kname_pair *p = map_ptr(&w->knames, (uint64_t)(uintptr_t)k->name);
  if (!p) {
    if (!(p = calloc(1, sizeof *p)) || dlc_kname(k->name, &p->long_name, &p->short_name) ||
        map_put_ptr(&w->knames, (uint64_t)(uintptr_t)k->name, p)) {
      if (p) free(p->long_name), free(p->short_name);
      free(p);
      return fail(w, "out of memory");
    }
    dldb_writer *dw = dldb_live_writer(w->live);
    if (dldb_writer_intern(dw, p->short_name, &p->short_id, err, sizeof err) ||
        dldb_writer_intern(dw, p->long_name, &p->long_id, err, sizeof err))
      return fail(w, err);
  }
  dldb_kernel r = {.short_name_id = p->short_id, .long_name_id = p->long_id,
                   .device_id = k->device_id, .context_id = k->context_id,
                   .stream_id = k->stream_id, .gpu_start_ns = k->start_ns,
                   .gpu_end_ns = k->end_ns, .correlation_id = k->correlation_id,
                   .pid = w->o.pid, .registers_per_thread = k->registers_per_thread,
                   .static_smem_bytes = k->static_smem_bytes,
                   .dynamic_smem_bytes = k->dynamic_smem_bytes};
  memcpy(r.grid, k->grid, sizeof r.grid);
  memcpy(r.block, k->block, sizeof r.block);
  if (dldb_live_kernel(w->live, &r, err, sizeof err)) return fail(w, err);
  return 0;
}

/* The string id of an API name (static strings: cached by pointer). */
static int api_name_id(dlc_writer *w, const char *name, int64_t *id) {
  char err[256];
  int64_t known = name ? dl_map_get(&w->api_names, (uint64_t)(uintptr_t)name) : -1;
  if (known >= 0) {
    *id = known;
    return 0;
  }
  if (dldb_writer_intern(dldb_live_writer(w->live), name, id, err, sizeof err))
    return fail(w, err);
  if (name && dl_map_put(&w->api_names, (uint64_t)(uintptr_t)name, *id))
    return fail(w, "out of memory");
  return 0;
}

int dlc_writer_put(dlc_writer *w, const dlc_record *r) {
  char err[256];
  dldb_writer *dw = dldb_live_writer(w->live);
  int rc = 0;
  if (atomic_load(&w->failed)) return -1;
  switch (r->kind) {
  case DLC_KERNEL: rc = write_kernel(w, &r->u.kernel); break;
  case DLC_MEMCPY: {
    const dlc_memcpy *m = &r->u.memcpy;
    dldb_memcpy d = {.copy_kind = m->copy_kind, .src_kind = m->src_kind,
                     .dst_kind = m->dst_kind, .bytes = m->bytes, .device_id = m->device_id,
                     .stream_id = m->stream_id, .gpu_start_ns = m->start_ns,
                     .gpu_end_ns = m->end_ns, .correlation_id = m->correlation_id,
                     .pid = w->o.pid};
    if (dldb_write_memcpy(dw, &d, err, sizeof err)) rc = fail(w, err);
    break;
  }
  case DLC_MEMSET: {
    const dlc_memset *m = &r->u.memset;
    dldb_memset d = {.value = m->value, .bytes = m->bytes, .mem_kind = m->mem_kind,
                     .device_id = m->device_id, .stream_id = m->stream_id,
                     .gpu_start_ns = m->start_ns, .gpu_end_ns = m->end_ns,
                     .correlation_id = m->correlation_id, .pid = w->o.pid};
    if (dldb_write_memset(dw, &d, err, sizeof err)) rc = fail(w, err);
    break;
  }
  case DLC_API: {
    const dlc_api *a = &r->u.api;
    dldb_api_call d = {.api_kind = a->driver ? DLDB_API_DRIVER : DLDB_API_RUNTIME,
                       .start_ns = a->start_ns, .end_ns = a->end_ns,
                       .pid = a->pid ? a->pid : w->o.pid, .tid = a->tid,
                       .correlation_id = a->correlation_id, .return_value = a->return_value};
    if (write_thread(w, a->tid, NULL) || api_name_id(w, a->name, &d.name_id)) rc = -1;
    else if (dldb_live_api_call(w->live, &d, err, sizeof err)) rc = fail(w, err);
    break;
  }
  case DLC_DEVICE: {
    const dlc_device *v = &r->u.device;
    dldb_gpu g = {.device_id = v->id, .name = v->name, .cc_major = v->cc_major,
                  .cc_minor = v->cc_minor, .sm_count = v->sm_count,
                  .memory_bytes = v->memory_bytes};
    if (dldb_write_gpu(dw, &g, err, sizeof err)) rc = fail(w, err);
    break;
  }
  case DLC_CONTEXT: {
    const dlc_context *c = &r->u.context;
    if (dl_map_put(&w->ctx_dev, (uint64_t)c->context_id, (int64_t)c->device_id))
      rc = fail(w, "out of memory");
    else if (dldb_live_context(w->live, c->context_id, c->device_id, c->null_stream_id, err,
                               sizeof err))
      rc = fail(w, err);
    break;
  }
  case DLC_SYNC: {
    const dlc_sync *s = &r->u.sync;
    int64_t dev = dl_map_get(&w->ctx_dev, (uint64_t)s->context_id);
    dldb_sync d = {.sync_type = s->type,
                   .device_id = dev >= 0 ? (int32_t)dev : 0,
                   .stream_id = s->stream_id, .event_id = s->event_id,
                   .start_ns = s->start_ns, .end_ns = s->end_ns,
                   .correlation_id = s->correlation_id, .pid = w->o.pid};
    if (dldb_write_sync(dw, &d, err, sizeof err)) rc = fail(w, err);
    break;
  }
  case DLC_OVERHEAD: {
    const dlc_overhead *o = &r->u.overhead;
    if (dldb_live_overhead(w->live, o->overhead_kind, o->object_kind, o->start_ns, o->end_ns,
                           err, sizeof err))
      rc = fail(w, err);
    break;
  }
  case DLC_EXTCORR: {
    const dlc_extcorr *e = &r->u.extcorr;
    if (dldb_live_external_correlation(w->live, e->correlation_id, e->external_kind,
                                       e->external_id, err, sizeof err))
      rc = fail(w, err);
    break;
  }
  case DLC_NVTX_BEGIN: rc = nvtx_begin(w, &r->u.begin); break;
  case DLC_NVTX_END: rc = nvtx_end(w, &r->u.end); break;
  case DLC_THREAD_NAME: rc = write_thread(w, r->u.thread.tid, r->u.thread.name); break;
  case DLC_CATEGORY: {
    const dlc_category *c = &r->u.category;
    if (dldb_live_category(w->live, c->domain ? c->domain : "default-domain", c->category,
                           c->name, err, sizeof err))
      rc = fail(w, err);
    break;
  }
  default: break;
  }
  if (rc == 0) w->st.records++;
  return rc;
}

/* ---- The thread ----------------------------------------------------------- */

static int commit(dlc_writer *w) {
  char err[256];
  if (atomic_load(&w->failed)) return -1;
  if (dldb_live_commit(w->live, err, sizeof err)) return fail(w, err);
  w->st.commits++;
  w->last_commit_ns = mono_ns();
  return 0;
}

static void drop_batch(dlc_writer *w, dlc_batch *b) {
  atomic_fetch_add(&w->dropped_batches, 1);
  atomic_fetch_add(&w->dropped_records, (long long)b->n);
  dlc_batch_free(b);
}

/* One round: the queued batches, then the source; commits when due. */
static void round_once(dlc_writer *w, int force_commit) {
  pthread_mutex_lock(&w->mu);
  dlc_batch *b = w->head;
  w->head = w->tail = NULL;
  w->queued = 0;
  pthread_mutex_unlock(&w->mu);
  while (b) {
    dlc_batch *next = b->next;
    if (atomic_load(&w->failed)) {
      drop_batch(w, b);
    } else {
      for (size_t i = 0; i < b->n; i++)
        if (dlc_writer_put(w, &b->recs[i])) break;
      dlc_batch_free(b);
    }
    b = next;
  }
  if (w->o.source && !atomic_load(&w->failed)) w->o.source(w->o.ctx, w);
  if (force_commit || mono_ns() - w->last_commit_ns >= w->o.commit_ms * 1000000) commit(w);
}

/* The final round: flushes producers, writes open ranges, commits. */
static void final_round(dlc_writer *w, int64_t end_ns) {
  if (atomic_exchange(&w->final_started, 1)) return;
  if (w->o.before_final) w->o.before_final(w->o.ctx); /* may submit: no cap now */
  round_once(w, 0);
  atomic_store(&w->final_done, 1);
  for (size_t i = 0; i < w->open.cap; i++) {
    if (w->open.vals[i] < 0) continue;
    open_range *o = (open_range *)(intptr_t)w->open.vals[i];
    if (o->ended) w->st.unmatched_ends++;
    else if (end_ns > 0 && !atomic_load(&w->failed))
      write_range(w, &o->b, o->name_id, end_ns, o->b.tid);
  }
  map_free_ptrs(&w->open);
  commit(w);
}

static void *thread_main(void *arg) {
  dlc_writer *w = arg;
  struct pollfd pfd = {.fd = w->pipe_rd, .events = POLLIN};
  while (!atomic_load(&w->stop)) {
    char buf[64];
    int final = 0;
    poll(&pfd, 1, (int)w->o.poll_ms);
    ssize_t n;
    while ((n = read(w->pipe_rd, buf, sizeof buf)) > 0)
      for (ssize_t i = 0; i < n; i++) final |= buf[i] == 'F';
    pthread_mutex_lock(&w->mu);
    uint64_t req = w->flush_req;
    pthread_mutex_unlock(&w->mu);
    if (final) {
      final_round(w, real_ns());
      int fd = atomic_exchange(&w->ack_fd, -1);
      if (fd >= 0) {
        char c = 'a';
        ssize_t r = write(fd, &c, 1);
        (void)r;
      }
    } else {
      round_once(w, req != w->flush_done);
    }
    pthread_mutex_lock(&w->mu);
    w->flush_done = req;
    pthread_cond_broadcast(&w->flushed);
    pthread_mutex_unlock(&w->mu);
  }
  return NULL;
}

int dlc_writer_start(dlc_writer *w, char *err, size_t errlen) {
  int e = pthread_create(&w->thread, NULL, thread_main, w);
  if (e) return dl_err(err, errlen, DL_EIO, "dlc_writer_start: %s", strerror(e));
  w->started = 1;
  return DL_OK;
}

int dlc_writer_submit(dlc_writer *w, dlc_batch *b) {
  if (!b) return DL_OK;
  if (atomic_load(&w->failed) || atomic_load(&w->final_done)) {
    drop_batch(w, b);
    return DL_EINVAL;
  }
  pthread_mutex_lock(&w->mu);
  int full = w->queued >= w->o.max_queued && !atomic_load(&w->final_started);
  if (!full) {
    b->next = NULL;
    if (w->tail) w->tail->next = b;
    else w->head = b;
    w->tail = b;
    w->queued++;
  }
  pthread_mutex_unlock(&w->mu);
  if (full) {
    drop_batch(w, b);
    return DL_ENOMEM;
  }
  wake(w);
  return DL_OK;
}

int dlc_writer_flush(dlc_writer *w, int timeout_ms) {
  if (!w->started) {
    round_once(w, 1);
    return atomic_load(&w->failed) ? DL_EIO : DL_OK;
  }
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += timeout_ms / 1000;
  until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
  if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
  int rc = DL_OK;
  pthread_mutex_lock(&w->mu);
  uint64_t want = ++w->flush_req;
  pthread_mutex_unlock(&w->mu);
  wake(w);
  pthread_mutex_lock(&w->mu);
  while (w->flush_done < want && rc == DL_OK)
    if (pthread_cond_timedwait(&w->flushed, &w->mu, &until) == ETIMEDOUT) rc = DL_EIO;
  pthread_mutex_unlock(&w->mu);
  return atomic_load(&w->failed) ? DL_EIO : rc;
}

void dlc_writer_signal(dlc_writer *w, int final, int ack_fd) {
  char c = final ? 'F' : 'w';
  if (final) atomic_store(&w->ack_fd, ack_fd);
  if (w->pipe_wr >= 0) {
    ssize_t r = write(w->pipe_wr, &c, 1);
    (void)r;
  }
}

int dlc_writer_close(dlc_writer **pw, int64_t end_ns, dlc_writer_stats *st, char *err,
                     size_t errlen) {
  dlc_writer *w = pw ? *pw : NULL;
  if (!w) return DL_OK;
  if (w->started) {
    atomic_store(&w->stop, 1);
    wake(w);
    pthread_join(w->thread, NULL);
  }
  /* *pw stays set through the final round: before_final's producers (the
   * CUPTI flush at exit) submit through it */
  final_round(w, end_ns);
  *pw = NULL;
  int rc = atomic_load(&w->failed) ? dl_err(err, errlen, DL_EIO, "%s", w->err) : DL_OK;
  char cerr[256];
  if (dldb_live_close(&w->live, cerr, sizeof cerr) && rc == DL_OK)
    rc = dl_err(err, errlen, DL_EDB, "%s", cerr);
  /* batches submitted after the final round */
  for (dlc_batch *b = w->head, *next; b; b = next) {
    next = b->next;
    drop_batch(w, b);
  }
  w->st.dropped_batches = atomic_load(&w->dropped_batches);
  w->st.dropped_records = atomic_load(&w->dropped_records);
  if (st) *st = w->st;
  for (size_t i = 0; i < w->knames.cap; i++) {
    if (w->knames.vals[i] < 0) continue;
    kname_pair *p = (kname_pair *)(intptr_t)w->knames.vals[i];
    free(p->long_name), free(p->short_name);
  }
  map_free_ptrs(&w->knames);
  dl_map_free(&w->threads);
  dl_map_free(&w->api_names);
  map_free_ptrs(&w->domains);
  dl_map_free(&w->ctx_dev);
  map_free_ptrs(&w->open);
  close(w->pipe_rd);
  close(w->pipe_wr);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->flushed);
  free(w);
  return rc;
}

/* ---- Batches (record.h) ----------------------------------------------------- */

dlc_batch *dlc_batch_new(size_t cap) {
  dlc_batch *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  if (!(b->recs = malloc((cap ? cap : 1) * sizeof *b->recs))) {
    free(b);
    return NULL;
  }
  b->cap = cap ? cap : 1;
  return b;
}

void dlc_batch_free(dlc_batch *b) {
  if (!b) return;
  free(b->recs);
  free(b);
}
