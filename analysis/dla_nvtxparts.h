/*
 * dla_nvtxparts.h - the NVTX names' texts, read in index order, sorted and
 * handed on in text order within a memory budget (dla_nvtxorder.c's
 * names). While they fit one part, they stay in memory and are sorted
 * there; past it each full part is sorted and then spilled
 * (dla_nvtxspill.h) on a second thread while the next is read and sorted,
 * and the parts are merged at the end. analysis/ only.
 *
 * Memory: at most `room` bytes: a part's texts and DLA_NVTX_PART_PER_NAME
 * bytes a name (its text's place, its sort entry); two parts of half the
 * room each once one is spilled (from the start where the names read to
 * half the room show that all of them will not fit); the merge's buffers
 * in the room.
 * Ownership: a dla_nvtx_parts is the caller's (dla__nvtx_parts_free);
 * texts are copied.
 */
#ifndef DLA_NVTXPARTS_H
#define DLA_NVTXPARTS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "dla_nvtxspill.h"

enum { DLA_NVTX_PART_PER_NAME = 32, DLA_NVTX_PARTS_OVER = 1 };

typedef struct dla_nvtx_part {
  char *text; /* the texts, one after the other */
  size_t used, cap;
  struct dla_nvtx_span *at; /* by name, from index `first` on */
  size_t first, count, atcap;
} dla_nvtx_part;

typedef struct dla_nvtx_parts {
  size_t room;  /* bytes the parts may take */
  size_t limit; /* bytes the part being read may take */
  size_t names; /* names the adds bring (0: not known) */
  int halves;   /* the parts are half the room, spilled on the thread */
  int guessed;  /* the first part reached half the room: halves chosen or not */
  dla_nvtx_part p[2];
  int cur;      /* the part being read; the other is being spilled when busy */
  dla_nvtx_spill *spill;
  dla_nvtx_ent *sorted; /* the part being spilled, in order (the thread's) */
  pthread_t th;
  int busy, th_rc;
} dla_nvtx_parts;

/* An empty set of parts of room bytes (at least a few KiB), for `names`
 * names (0: not known). */
void dla__nvtx_parts_init(dla_nvtx_parts *s, size_t room, size_t names);

/* dldb_aggr_nvtx_texts' callback (ctx: the dla_nvtx_parts): name i's text
 * (i = 0, 1, ... in turn). DL_OK, DLA_NVTX_PARTS_OVER (one name exceeds
 * half the room), DL_ENOMEM, DL_EIO. */
int dla__nvtx_parts_add(void *ctx, size_t i, const char *text, size_t len);

/* Every name in text order to fn (dla_nvtx_merge_fn), after the last add.
 * DL_OK, DL_ENOMEM, DL_EIO or fn's return. */
int dla__nvtx_parts_emit(dla_nvtx_parts *s, dla_nvtx_merge_fn fn, void *ctx);

/* Waits for the second thread, removes the temporary file and frees. */
void dla__nvtx_parts_free(dla_nvtx_parts *s);

#endif
