/* dldb_nvtxtop.h - the best k rows of a walk over the NVTX statistics rows
 * by a numeric column (dldb_nvtxpage.c, dldb_nvtxzpage.c): a heap of the k
 * best so far, the worst on top, in the views' order: by value (descending
 * or ascending), equal values by row_idx ascending. Internal to db/.
 * Ownership: a dldb__top owns its heap; free with dldb__top_free. */
#ifndef DLDB_NVTXTOP_H
#define DLDB_NVTXTOP_H

#include <stdint.h>

/* A row: its value (long double holds every int64 and double exactly, so
 * integers and reals compare as SQLite compares them). */
typedef struct dldb__trow {
  long double x;
  int64_t row;
} dldb__trow;

typedef struct dldb__top {
  dldb__trow *h;
  int64_t n, k;
  int desc;
} dldb__top;

/* A heap of at most k rows (k >= 0). DL_OK or DL_ENOMEM. */
int dldb__top_init(dldb__top *t, int64_t k, int desc);
void dldb__top_free(dldb__top *t);

/* 1 when a comes before b in the page. */
int dldb__top_before(const dldb__top *t, const dldb__trow *a, const dldb__trow *b);

/* Keeps r when it is among the k best so far. */
void dldb__top_add(dldb__top *t, dldb__trow r);

/* 1 when the heap is full and a row of value x and row_idx at least row
 * cannot enter it. */
int dldb__top_beaten(const dldb__top *t, long double x, int64_t row);

/* Sorts the rows kept into page order (the heap is spent). */
void dldb__top_sort(dldb__top *t);

#endif
