/*
 * kstack.c - Python call stacks from python_function events (kstack.h).
 *
 * Frames and ranges are sorted by (pid, tid, start, end descending), then
 * swept together per thread with a stack of open frames: a frame is pushed
 * once the frames on the stack that do not enclose it are popped, and a
 * range's stack starts at the topmost frame on the stack that encloses it. Frames nest on a thread, so the top is the innermost enclosing frame,
 * and the whole chain follows from each frame's parent. A chain's text is
 * built and interned once per innermost frame.
 */
#include "kstack.h"

#include <stdlib.h>
#include <string.h>

#include "dl_map.h"

/* The longest stack stored: whole frames, innermost first, up to this many
 * bytes (the Kineto importer keeps the old argument to the same length). */
#define KSTACK_MAX_BYTES 16384

typedef struct kframe {
  int64_t pid, tid, start, end;
  uint32_t name;   /* index into names */
  int32_t parent;  /* the enclosing frame (after sorting), -1: none */
  int64_t text_id; /* strings id of its chain, 0: not made yet, -1: none */
} kframe;

typedef struct krange {
  int64_t id, pid, tid, start, end;
} krange;

struct kstack {
  kframe *f;
  size_t nf, fcap;
  krange *r;
  size_t nr, rcap;
  char **names;    /* each distinct frame name, copied once */
  size_t nnames, ncap;
  dl_smap index;   /* name -> its index in names (keys: the copies) */
};

kstack *kstack_new(void) {
  kstack *s = calloc(1, sizeof(kstack));
  if (s) dl_smap_init(&s->index);
  return s;
}

void kstack_free(kstack **ps) {
  kstack *s = *ps;
  if (!s) return;
  free(s->f);
  free(s->r);
  for (size_t i = 0; i < s->nnames; i++) free(s->names[i]);
  free(s->names);
  dl_smap_free(&s->index);
  free(s);
  *ps = NULL;
}


/* The index of name in names, copied once. 0, or -1 when out of memory. */
static int intern(kstack *s, const char *name, uint32_t *out) {
  int64_t i = dl_smap_get(&s->index, name);
  if (i >= 0) {
    *out = (uint32_t)i;
    return 0;
  }
  if (s->nnames >= UINT32_MAX ||
      dl_grow((void **)&s->names, &s->ncap, s->nnames + 1, sizeof *s->names))
    return -1;
  char *copy = strdup(name);
  if (!copy) return -1;
  if (dl_smap_put(&s->index, copy, (int64_t)s->nnames)) {
    free(copy);
    return -1;
  }
  s->names[s->nnames] = copy;
  *out = (uint32_t)s->nnames++;
  return 0;
}

int kstack_frame(kstack *s, int64_t pid, int64_t tid, int64_t start, int64_t end,
                 const char *name) {
  uint32_t off;
  if (s->nf >= INT32_MAX || dl_grow((void **)&s->f, &s->fcap, s->nf + 1, sizeof *s->f) ||
      intern(s, name ? name : "", &off))
    return DL_ENOMEM;
  s->f[s->nf++] = (kframe){pid, tid, start, end < start ? start : end, off, -1, 0};
  return DL_OK;
}

int kstack_range(kstack *s, int64_t range_id, int64_t pid, int64_t tid, int64_t start,
                 int64_t end) {
  if (dl_grow((void **)&s->r, &s->rcap, s->nr + 1, sizeof *s->r)) return DL_ENOMEM;
  s->r[s->nr++] = (krange){range_id, pid, tid, start, end < start ? start : end};
  return DL_OK;
}

/* (pid, tid, start, end descending): outer before inner. */
#define CMP_KEY(a, b)                                                        \
  ((a)->pid != (b)->pid     ? ((a)->pid < (b)->pid ? -1 : 1)                 \
   : (a)->tid != (b)->tid   ? ((a)->tid < (b)->tid ? -1 : 1)                 \
   : (a)->start != (b)->start ? ((a)->start < (b)->start ? -1 : 1)          \
   : (a)->end != (b)->end   ? ((a)->end > (b)->end ? -1 : 1)                 \
                            : 0)

static int cmp_frame(const void *x, const void *y) {
  const kframe *a = x, *b = y;
  return CMP_KEY(a, b);
}

static int cmp_range(const void *x, const void *y) {
  const krange *a = x, *b = y;
  return CMP_KEY(a, b);
}

static int same_thread(const kframe *f, int64_t pid, int64_t tid) {
  return f->pid == pid && f->tid == tid;
}

/* The strings id of frame i's chain ("inner;...;outer"), made once. */
static int chain_id(kstack *s, int32_t i, dldb_writer *w, char *buf, int64_t *id, char *err,
                    size_t errlen) {
  kframe *f = &s->f[i];
  if (f->text_id) {
    *id = f->text_id;
    return DL_OK;
  }
  size_t len = 0;
  for (int32_t x = i; x >= 0; x = s->f[x].parent) {
    const char *name = s->names[s->f[x].name];
    size_t n = strlen(name);
    if (len + n + 2 > KSTACK_MAX_BYTES) break; /* whole frames only */
    if (len) buf[len++] = ';';
    memcpy(buf + len, name, n);
    len += n;
  }
  buf[len] = '\0';
  int rc = len ? dldb_writer_intern(w, buf, id, err, errlen) : DL_OK;
  if (!len) *id = -1;
  if (rc == DL_OK) f->text_id = *id;
  return rc;
}

int kstack_write(kstack *s, dldb_writer *w, int64_t *n, char *err, size_t errlen) {
  *n = 0;
  if (!s->nf || !s->nr) return DL_OK;
  qsort(s->f, s->nf, sizeof *s->f, cmp_frame);
  qsort(s->r, s->nr, sizeof *s->r, cmp_range);
  int32_t *stack = malloc(s->nf * sizeof *stack);
  char *buf = malloc(KSTACK_MAX_BYTES);
  int rc = stack && buf ? DL_OK : DL_ENOMEM;
  size_t sp = 0, fi = 0;
  for (size_t i = 0; rc == DL_OK && i < s->nr; i++) {
    const krange *r = &s->r[i];
    if (i == 0 || r->pid != s->r[i - 1].pid || r->tid != s->r[i - 1].tid) sp = 0;
    /* the frames of earlier threads, then this thread's up to the range */
    while (fi < s->nf && CMP_KEY(&s->f[fi], r) < 0 && !same_thread(&s->f[fi], r->pid, r->tid))
      fi++;
    for (; fi < s->nf && same_thread(&s->f[fi], r->pid, r->tid) && s->f[fi].start <= r->start;
         fi++) {
      kframe *f = &s->f[fi];
      while (sp && s->f[stack[sp - 1]].end < f->end) sp--;
      f->parent = sp ? stack[sp - 1] : -1;
      stack[sp++] = (int32_t)fi;
    }
    size_t k = sp; /* the innermost frame enclosing the range (the stack stays for
                    * the frames that follow: a range that outlasts a frame by the
                    * trace's rounding must not cut it) */
    while (k && s->f[stack[k - 1]].end < r->end) k--;
    if (!k) continue;
    int64_t id;
    if ((rc = chain_id(s, stack[k - 1], w, buf, &id, err, errlen)) != DL_OK) break;
    if (id <= 0) continue;
    if ((rc = dldb_write_range_stack(w, r->id, NULL, id, err, errlen)) != DL_OK) break;
    (*n)++;
  }
  free(stack);
  free(buf);
  return rc;
}
