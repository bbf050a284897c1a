/* dlr_chrome.c - the timeline as Chrome trace JSON (see dlr_chrome.h). */
#include "dlr_chrome.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dldb_timeline.h"

#define CHROME_BUF 65536
#define CHROME_T_MAX (INT64_C(1) << 61) /* the whole profile: [-T_MAX, T_MAX) */

/* A track as the trace names it: its process (a GPU, a host process, the
 * iterations) and its thread (the track). */
typedef struct ch_track {
  int64_t track_id, pid;
  char kind[16], name[96], process[48];
} ch_track;

typedef struct ch_out {
  dlr_sink_fn sink;
  void *ctx;
  int failed;
  size_t n;
  int first;         /* no event written yet */
  int oom;
  ch_track *t;       /* the tracks */
  size_t nt, cap;
  int64_t it_start, it_stop, win_start, win_end; /* iterations asked; the window */
  int found_start, found_stop;
  char buf[CHROME_BUF];
} ch_out;

static void flush(ch_out *o) {
  if (o->n && !o->failed && o->sink(o->ctx, o->buf, o->n)) o->failed = 1;
  o->n = 0;
}

static void put(ch_out *o, const char *s, size_t len) {
  while (len) {
    if (o->n == sizeof o->buf) flush(o);
    size_t k = sizeof o->buf - o->n < len ? sizeof o->buf - o->n : len;
    memcpy(o->buf + o->n, s, k);
    o->n += k;
    s += k;
    len -= k;
  }
}

static void lit(ch_out *o, const char *s) { put(o, s, strlen(s)); }

static void num(ch_out *o, int64_t v) {
  char b[24];
  int k = snprintf(b, sizeof b, "%lld", (long long)v);
  put(o, b, (size_t)k);
}

/* ns as µs with three decimals. */
static void usec(ch_out *o, int64_t ns) {
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char b[32];
  int k = snprintf(b, sizeof b, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
                   (unsigned long long)(a % 1000));
  put(o, b, (size_t)k);
}

/* The length of the UTF-8 sequence at s (1 to 4), 0 when it is not one. */
static int utf8_len(const unsigned char *s) {
  int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  return n;
}

/* A JSON string: quotes, backslashes and control characters escaped, a
 * byte that is not UTF-8 replaced by U+FFFD. */
static void str(ch_out *o, const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  lit(o, "\"");
  while (*s) {
    if (*s == '"' || *s == '\\') {
      char e[2] = {'\\', (char)*s++};
      put(o, e, 2);
    } else if (*s < 0x20) {
      char e[8];
      snprintf(e, sizeof e, "\\u%04x", *s++);
      put(o, e, 6);
    } else if (*s < 0x80) {
      put(o, (const char *)s++, 1);
    } else {
      int n = utf8_len(s);
      if (n) put(o, (const char *)s, (size_t)n);
      else lit(o, "\\ufffd");
      s += n ? n : 1;
    }
  }
  lit(o, "\"");
}

static void sep(ch_out *o) {
  lit(o, o->first ? "\n" : ",\n");
  o->first = 0;
}

/* ---- The tracks and their processes --------------------------------------- */

static int add_track(void *ctx, const dldb_tl_track_row *r) {
  ch_out *o = ctx;
  if (o->nt == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 16;
    ch_track *p = realloc(o->t, cap * sizeof *p);
    if (!p) return o->oom = 1;
    o->t = p;
    o->cap = cap;
  }
  ch_track *t = &o->t[o->nt++];
  memset(t, 0, sizeof *t);
  t->track_id = r->track_id;
  snprintf(t->kind, sizeof t->kind, "%s", r->kind);
  snprintf(t->name, sizeof t->name, "%s", r->name);
  if (!strcmp(r->kind, "iterations")) snprintf(t->process, sizeof t->process, "Iterations");
  else if (r->has_device) snprintf(t->process, sizeof t->process, "GPU %lld", (long long)r->device_id);
  else snprintf(t->process, sizeof t->process, "Process %lld", (long long)r->pid);
  return 0;
}

/* Numbers the processes 1, 2, ... in the order of their first track. */
static void number_processes(ch_out *o) {
  int64_t next = 1;
  for (size_t i = 0; i < o->nt; i++) {
    o->t[i].pid = 0;
    for (size_t j = 0; j < i && !o->t[i].pid; j++)
      if (!strcmp(o->t[j].process, o->t[i].process)) o->t[i].pid = o->t[j].pid;
    if (!o->t[i].pid) o->t[i].pid = next++;
  }
}

static void meta(ch_out *o, const char *what, int64_t pid, int64_t tid, const char *name) {
  sep(o);
  lit(o, "{\"ph\":\"M\",\"name\":\"");
  lit(o, what);
  lit(o, "\",\"pid\":");
  num(o, pid);
  if (tid >= 0) {
    lit(o, ",\"tid\":");
    num(o, tid);
  }
  lit(o, ",\"args\":{\"name\":");
  str(o, name);
  lit(o, "}}");
}

static void write_meta(ch_out *o) {
  for (size_t i = 0; i < o->nt; i++) {
    const ch_track *t = &o->t[i];
    int new_pid = 1;
    for (size_t j = 0; j < i; j++) new_pid &= o->t[j].pid != t->pid;
    if (new_pid) meta(o, "process_name", t->pid, -1, t->process);
    meta(o, "thread_name", t->pid, t->track_id, t->name);
  }
}

/* ---- The window ----------------------------------------------------------- */

/* Finds the asked iterations' bounds among the iterations track's events. */
static int iter_bound(void *ctx, const dldb_tl_event *e) {
  ch_out *o = ctx;
  long long it;
  if (sscanf(dldb_tl_event_name(e), "iteration %lld", &it) != 1) return 0;
  if (it == o->it_start || (o->it_start < 0 && !o->found_start)) {
    o->win_start = e->start_ns;
    o->found_start = 1;
  }
  if (it == o->it_stop || o->it_stop < 0) {
    o->win_end = e->start_ns + (e->dur_ns > 0 ? e->dur_ns : 1);
    o->found_stop = 1;
  }
  return 0;
}

static int window(dldb *db, ch_out *o, char *err, size_t errlen) {
  o->win_start = -CHROME_T_MAX;
  o->win_end = CHROME_T_MAX;
  if (o->it_start < 0 && o->it_stop < 0) return DL_OK;
  for (size_t i = 0; i < o->nt; i++) {
    if (strcmp(o->t[i].kind, "iterations")) continue;
    int rc = dldb_timeline_events(db, o->t[i].track_id, -CHROME_T_MAX, CHROME_T_MAX, iter_bound, o,
                                  err, errlen);
    if (rc) return rc;
  }
  if (!o->found_start || !o->found_stop || o->win_end <= o->win_start)
    return dl_err(err, errlen, DL_ENOTFOUND, "chrome trace: no iterations %lld to %lld",
                  (long long)o->it_start, (long long)o->it_stop);
  return DL_OK;
}

/* ---- The events ----------------------------------------------------------- */

typedef struct ch_track_ctx {
  ch_out *o;
  const ch_track *t;
} ch_track_ctx;

static int put_event(void *ctx, const dldb_tl_event *e) {
  ch_track_ctx *x = ctx;
  ch_out *o = x->o;
  sep(o);
  lit(o, "{\"ph\":\"X\",\"name\":");
  str(o, dldb_tl_event_name(e));
  lit(o, ",\"cat\":");
  str(o, e->category);
  lit(o, ",\"pid\":");
  num(o, x->t->pid);
  lit(o, ",\"tid\":");
  num(o, x->t->track_id);
  lit(o, ",\"ts\":");
  usec(o, e->start_ns);
  lit(o, ",\"dur\":");
  usec(o, e->dur_ns > 0 ? e->dur_ns : 0);
  lit(o, ",\"args\":{\"event_id\":");
  num(o, e->event_id);
  if (e->nccl) lit(o, ",\"nccl\":1");
  lit(o, "}}");
  return o->failed;
}

int dlr_chrome_write(dldb *db, int64_t iter_start, int64_t iter_stop, dlr_sink_fn sink, void *ctx,
                     char *err, size_t errlen) {
  ch_out *o = calloc(1, sizeof *o);
  if (!o) return dl_err(err, errlen, DL_ENOMEM, "chrome trace: out of memory");
  o->sink = sink;
  o->ctx = ctx;
  o->first = 1;
  o->it_start = iter_start;
  o->it_stop = iter_stop;
  int rc = dldb_timeline_tracks(db, add_track, o, err, errlen);
  if (rc == DL_OK && o->oom) rc = dl_err(err, errlen, DL_ENOMEM, "chrome trace: out of memory");
  if (rc == DL_OK) rc = window(db, o, err, errlen);
  if (rc == DL_OK) {
    number_processes(o);
    lit(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"dlprof\"},\"traceEvents\":[");
    write_meta(o);
    for (size_t i = 0; rc == DL_OK && i < o->nt && !o->failed; i++) {
      ch_track_ctx x = {o, &o->t[i]};
      rc = dldb_timeline_events(db, o->t[i].track_id, o->win_start, o->win_end, put_event, &x, err,
                                errlen);
    }
    lit(o, "\n]}\n");
    flush(o);
    if (rc == DL_OK && o->failed) rc = dl_err(err, errlen, DL_EIO, "chrome trace: write failed");
  }
  free(o->t);
  free(o);
  return rc;
}
