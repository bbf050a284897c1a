/*
 * dla_nvtxspill.h - NVTX names sorted a part at a time, each part spilled
 * to one temporary file, then merged into one order: the name order of
 * the NVTX statistics rows when their texts exceed the memory budget
 * (dla_nvtxorder.c). analysis/ only.
 *
 * The file is tmpfile()'s: it has no name, so it is gone when closed, and
 * when the process ends, on any path.
 * Ownership: a dla_nvtx_spill is the caller's (dla__nvtx_spill_close);
 * texts are borrowed for each call.
 */
#ifndef DLA_NVTXSPILL_H
#define DLA_NVTXSPILL_H

#include <stddef.h>
#include <stdint.h>

#include "dla_nvtxsort.h"

typedef struct dla_nvtx_spill dla_nvtx_spill;

/* Appends a part: v[0..n-1], sorted (dla__nvtx_sort), texts in text.
 * Opens *s (the file) on the first part. DL_OK, DL_ENOMEM or DL_EIO. */
int dla__nvtx_spill_part(dla_nvtx_spill **s, const dla_nvtx_ent *v, size_t n, const char *text);

/* Called for each name of every part in order: its index i, its text
 * (len bytes, borrowed for the call), same = 1 when the text equals the
 * name's before. A nonzero return ends the merge and is returned. */
typedef int (*dla_nvtx_merge_fn)(void *ctx, uint32_t i, const char *text, size_t len, int same);

/* Merges the parts, reading them through buffers of buf_bytes in all (a
 * few KiB a part at least). DL_OK, DL_ENOMEM, DL_EIO or fn's return. */
int dla__nvtx_spill_merge(dla_nvtx_spill *s, size_t buf_bytes, dla_nvtx_merge_fn fn, void *ctx);

/* Parts spilled so far (0 for NULL). */
size_t dla__nvtx_spill_parts(const dla_nvtx_spill *s);

/* Closes the file (removing it) and frees *s; NULL is fine. */
void dla__nvtx_spill_close(dla_nvtx_spill **s);

#endif
