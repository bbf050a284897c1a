/* dldb_chunks.h - the stored orders kept a chunk of places a row, as JSON
 * arrays (db/schema.sql aggr_dl_group_orders, aggr_dl_kernel_dur_chunks,
 * aggr_dl_kernel_seq_chunks, aggr_dl_kernel_dseq_chunks): written by
 * dldb_gplaces.c and dldb_pchunks.c, read by dldb_gopage.c, dldb_kdpage.c
 * and dldb_kpage.c. Internal to db/. */
#ifndef DLDB_CHUNKS_H
#define DLDB_CHUNKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Places a chunk row holds: chunk c has places c * 128.. of its order.
 * db/schema.sql's views over the chunks (json_each) state the same
 * number. */
#define DLDB_GO_CHUNK 128
#define DLDB_PAIR_CHUNK 128 /* the chunks of [a, b] pairs (dldb_pchunks.c) */

/* v in decimal at p, as JSON has it: the bytes written (at most 20). Two
 * digits a step from a table: tens of millions of numbers at scale. */
static inline size_t dldb__put_int(char *p, int64_t v) {
  static const char two[201] = "00010203040506070809101112131415161718192021222324"
                               "25262728293031323334353637383940414243444546474849"
                               "50515253545556575859606162636465666768697071727374"
                               "75767778798081828384858687888990919293949596979899";
  char d[20];
  size_t n = sizeof d, k = 0;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  for (; u >= 100; u /= 100) {
    n -= 2;
    memcpy(d + n, two + 2 * (u % 100), 2);
  }
  if (u >= 10) {
    n -= 2;
    memcpy(d + n, two + 2 * u, 2);
  } else {
    d[--n] = (char)('0' + u);
  }
  if (v < 0) p[k++] = '-';
  memcpy(p + k, d + n, sizeof d - n);
  return k + sizeof d - n;
}

/* Reads a chunk of pairs "[[a,b],...]" (as dldb_pchunks.c writes it, at
 * most DLDB_PAIR_CHUNK pairs) into pair: their number, or -1 when s is not
 * such a chunk. */
static inline int dldb__pairs_parse(const char *s, int64_t (*pair)[2]) {
  int k = 0;
  if (!s || *s++ != '[') return -1;
  if (*s == ']') return s[1] ? -1 : 0;
  for (;;) {
    char *end = NULL;
    if (k == DLDB_PAIR_CHUNK || *s++ != '[') return -1;
    pair[k][0] = strtoll(s, &end, 10);
    if (end == s || *end != ',') return -1;
    s = end + 1;
    pair[k][1] = strtoll(s, &end, 10);
    if (end == s || *end != ']') return -1;
    s = end + 1;
    k++;
    if (*s == ']') return s[1] ? -1 : k;
    if (*s++ != ',') return -1;
  }
}

#endif
