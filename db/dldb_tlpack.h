/*
 * dldb_tlpack.h - the packed form of the timeline's blocks (db/ only;
 * writer: dldb_tlwrite.c, reader: dldb_timeline.c). A track's events, in
 * (start, dur, id) order, are stored DLDB_TL_BLOCK at a time in one row of
 * dl_timeline_blocks (level 0); its bins, on a grid of bin_ns << 2 (level -
 * 1) ns per level >= 1, the same way. Integers are LEB128 varints, signed
 * ones zigzagged. Nothing here reads or writes SQLite.
 *
 * An event's tag says what it is and its name: in a GPU stream, name x 4 +
 * DLDB_TL_KERNEL / _MEMCPY / _MEMSET / _NCCL (x: the kernel's short name's
 * strings id, the memcpy's copy kind, 0 for a memset); in a CPU thread,
 * ranges or Python track, the strings id; in the iterations track, the
 * iteration.
 */
#ifndef DLDB_TLPACK_H
#define DLDB_TLPACK_H

#include <stddef.h>
#include <stdint.h>

#define DLDB_TL_BLOCK 1024   /* events or bins in one block */
#define DLDB_TL_PER_BIN 16   /* the finest bins hold this many events on average */
#define DLDB_TL_MIN_EVENTS 4096 /* tracks with fewer events have no bins */
#define DLDB_TL_TOP_BINS 64  /* the coarsest level has at most about this many bins */
#define DLDB_TL_ITEM_MAX 60  /* bytes an item takes at most (5 varints of 10) */

enum { DLDB_TL_KERNEL, DLDB_TL_MEMCPY, DLDB_TL_MEMSET, DLDB_TL_NCCL };

/* One event, in memory. */
typedef struct dldb_tl_rec {
  int64_t start, dur, id, tag;
} dldb_tl_rec;

/* One bin of a grid: [index x g, (index + 1) x g). busy: the union of the
 * events clipped to it; count: the events that start in it; best: the
 * longest part of one of them inside it, tag its tag (-1: none). */
typedef struct dldb_tl_bin {
  int64_t index, busy, count, best, tag;
} dldb_tl_bin;

/* The bin of t on a grid of g ns (floor division). */
static inline int64_t dldb_tl_bin_of(int64_t t, int64_t g) {
  int64_t q = t / g;
  return (t % g != 0 && t < 0) ? q - 1 : q;
}

/* Appends one item to buf (room for DLDB_TL_ITEM_MAX bytes); prev: the
 * block's previous item, zeroed before the first. Returns the bytes written. */
size_t dldb_tl_put_event(unsigned char *buf, dldb_tl_rec *prev, const dldb_tl_rec *e);
size_t dldb_tl_put_bin(unsigned char *buf, dldb_tl_bin *prev, const dldb_tl_bin *b);

/* Reads one item at *pos of [p, p + n), prev as above; 0, or -1 when the
 * bytes end early or a varint runs over (a damaged block). */
int dldb_tl_get_event(const unsigned char *p, size_t n, size_t *pos, dldb_tl_rec *prev);
int dldb_tl_get_bin(const unsigned char *p, size_t n, size_t *pos, dldb_tl_bin *prev);

#endif
