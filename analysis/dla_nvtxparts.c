/*
 * dla_nvtxparts.c - the NVTX names' texts in parts (see dla_nvtxparts.h).
 *
 * The first part may take the whole room: names that fit it are sorted in
 * memory and nothing is spilled. When it is full it is sorted and spilled
 * here, unless the names read to half the room showed that they will not
 * all fit (their bytes a name times the names): then the first part is
 * handed on at half the room like the others. From then on the room is
 * two parts of half its size: the second thread spills one while this one
 * reads the texts into the other and sorts them (the read and sort overlap
 * the spill's writing), and this one waits for it before handing it the
 * next. The thread touches only its part, its sorted entries and the
 * spill, which this one touches only once it has joined the thread.
 */
#include "dla_nvtxparts.h"

#include <stdlib.h>
#include <string.h>

#include "dl.h"

struct dla_nvtx_span {
  uint32_t off, len;
};

void dla__nvtx_parts_init(dla_nvtx_parts *s, size_t room, size_t names) {
  memset(s, 0, sizeof *s);
  s->room = s->limit = room;
  s->names = names;
}

/* Part b's names sorted by text (*out, b->count of them); last: its text
 * places are freed once in the entries (the part is not read again). */
static int part_sorted(dla_nvtx_part *b, int last, dla_nvtx_ent **out) {
  dla_nvtx_ent *v = malloc((b->count + 1) * sizeof *v);
  *out = v;
  if (!v) return DL_ENOMEM;
  for (size_t j = 0; j < b->count; j++)
    v[j] = (dla_nvtx_ent){.i = (uint32_t)(b->first + j), .off = b->at[j].off, .len = b->at[j].len};
  if (last) {
    free(b->at);
    b->at = NULL;
    b->atcap = 0;
  }
  return dla__nvtx_sort(v, b->count, b->text);
}

/* Sorts part b and spills it. */
static int spill(dla_nvtx_spill **sp, dla_nvtx_part *b) {
  dla_nvtx_ent *v = NULL;
  int rc = part_sorted(b, 0, &v);
  if (rc == DL_OK) rc = dla__nvtx_spill_part(sp, v, b->count, b->text);
  free(v);
  return rc;
}

/* The second thread: spills the part not being read, in the order this
 * one sorted it into s->sorted (cur is fixed while it runs). */
static void *spill_thread(void *arg) {
  dla_nvtx_parts *s = arg;
  dla_nvtx_part *b = &s->p[!s->cur];
  s->th_rc = dla__nvtx_spill_part(&s->spill, s->sorted, b->count, b->text);
  free(s->sorted);
  s->sorted = NULL;
  return NULL;
}

/* Waits for the part being spilled; its result. */
static int settle(dla_nvtx_parts *s) {
  if (!s->busy) return DL_OK;
  pthread_join(s->th, NULL);
  s->busy = 0;
  return s->th_rc;
}

/* The part being read is full: spill it and start the next. */
static int hand_on(dla_nvtx_parts *s) {
  dla_nvtx_part *b = &s->p[s->cur];
  size_t next = b->first + b->count;
  int rc = DL_OK;
  if (!s->halves) { /* the first, the whole room: here, then two halves of it */
    rc = spill(&s->spill, b);
    s->halves = 1;
    s->limit = s->room / 2;
    free(b->text);
    free(b->at);
    *b = (dla_nvtx_part){0};
  } else {
    dla_nvtx_ent *v = NULL;
    rc = part_sorted(b, 0, &v); /* while the thread writes the part before */
    int th = settle(s);
    if (rc || th) {
      free(v);
      return rc ? rc : th;
    }
    s->cur = !s->cur; /* the thread spills the other part: !cur */
    s->th_rc = DL_OK;
    s->sorted = v;
    s->busy = pthread_create(&s->th, NULL, spill_thread, s) == 0;
    if (!s->busy) spill_thread(s); /* no thread: in turn */
    if (!s->busy) rc = s->th_rc;
    b = &s->p[s->cur];
  }
  b->first = next;
  b->count = b->used = 0;
  return rc;
}

/* Whether the first part, as it reaches half the room (once), shows that
 * the names will not fit one part: its bytes a name times the names. */
static int will_spill(dla_nvtx_parts *s, const dla_nvtx_part *b, size_t len) {
  size_t bytes = b->used + b->count * DLA_NVTX_PART_PER_NAME;
  if (s->halves || s->guessed || !s->names || !b->count ||
      bytes + len + DLA_NVTX_PART_PER_NAME <= s->room / 2)
    return 0;
  s->guessed = 1;
  return (double)bytes / (double)b->count * (double)s->names > (double)s->room;
}

int dla__nvtx_parts_add(void *ctx, size_t i, const char *t, size_t len) {
  dla_nvtx_parts *s = ctx;
  dla_nvtx_part *b = &s->p[s->cur];
  (void)i; /* first + count: the texts come in index order */
  if (will_spill(s, b, len)) { /* this part is a half: spilled on the thread */
    s->halves = 1;
    s->limit = s->room / 2;
  }
  if (b->used + len + (b->count + 1) * DLA_NVTX_PART_PER_NAME > s->limit) {
    if (!b->count) return DLA_NVTX_PARTS_OVER; /* one name over a part */
    int rc = hand_on(s);
    if (rc) return rc;
    b = &s->p[s->cur];
    if (b->used + len + DLA_NVTX_PART_PER_NAME > s->limit) return DLA_NVTX_PARTS_OVER;
  }
  if (!b->text || b->used + len > b->cap) { /* a block even for empty names */
    size_t nc = b->cap ? b->cap : 1 << 20;
    while (nc < b->used + len) nc *= 2;
    if (nc > s->limit) nc = s->limit;
    char *p = realloc(b->text, nc);
    if (!p) return DL_ENOMEM;
    b->text = p;
    b->cap = nc;
  }
  if (b->count == b->atcap && dl_grow((void **)&b->at, &b->atcap, b->count + 1, sizeof *b->at))
    return DL_ENOMEM;
  memcpy(b->text + b->used, t, len);
  b->at[b->count++] = (struct dla_nvtx_span){(uint32_t)b->used, (uint32_t)len};
  b->used += len;
  return DL_OK;
}

/* Frees part b's memory. */
static void part_free(dla_nvtx_part *b) {
  free(b->text);
  free(b->at);
  *b = (dla_nvtx_part){0};
}

int dla__nvtx_parts_emit(dla_nvtx_parts *s, dla_nvtx_merge_fn fn, void *ctx) {
  int rc = settle(s);
  dla_nvtx_part *b = &s->p[s->cur];
  if (rc == DL_OK && !s->spill) { /* one part: in memory */
    dla_nvtx_ent *v = NULL;
    rc = part_sorted(b, 1, &v);
    for (size_t j = 0; rc == DL_OK && j < b->count; j++) {
      const char *t = b->text + v[j].off;
      int same = j && v[j].len == v[j - 1].len && memcmp(t, b->text + v[j - 1].off, v[j].len) == 0;
      rc = fn(ctx, v[j].i, t, v[j].len, same);
    }
    free(v);
    return rc;
  }
  if (rc == DL_OK && b->count) rc = spill(&s->spill, b);
  part_free(&s->p[0]); /* the merge's buffers instead */
  part_free(&s->p[1]);
  if (rc == DL_OK) rc = dla__nvtx_spill_merge(s->spill, s->room, fn, ctx);
  return rc;
}

void dla__nvtx_parts_free(dla_nvtx_parts *s) {
  settle(s);
  free(s->sorted);
  s->sorted = NULL;
  dla__nvtx_spill_close(&s->spill);
  part_free(&s->p[0]);
  part_free(&s->p[1]);
}
