/* dldb_chunks.h - the stored orders kept a chunk of places a row, as JSON
 * arrays (db/schema.sql aggr_dl_group_orders, aggr_dl_kernel_dur_chunks):
 * written by dldb_gplaces.c and dldb_kdchunks.c, read by dldb_gopage.c
 * and dldb_kdpage.c. Internal to db/. */
#ifndef DLDB_CHUNKS_H
#define DLDB_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

/* Places a chunk row holds: chunk c has places c * 128.. of its order.
 * db/schema.sql's views over the chunks (json_each) state the same
 * number. */
#define DLDB_GO_CHUNK 128
#define DLDB_KD_CHUNK 128

/* v in decimal at p, as JSON has it: the bytes written (at most 20). */
static inline size_t dldb__put_int(char *p, int64_t v) {
  char d[20];
  size_t n = 0, k = 0;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do d[n++] = (char)('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0) p[k++] = '-';
  while (n) p[k++] = d[--n];
  return k;
}

#endif
