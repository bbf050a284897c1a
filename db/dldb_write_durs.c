/*
 * dldb_write_durs.c - the launches by duration from the caller's sorted
 * rows (dldb_write_durs.h), a chunk at a time (dldb_pchunks.c).
 */
#include "dldb_write_durs.h"

#include "dldb_write_internal.h"

int dldb_aggr_kernel_durs_begin(dldb_writer *w) {
  if (!w->in_aggr || !dldb__has_table(w, "aggr_dl_kernel_dur_chunks") ||
      dldb__pc_begin(w, DLDB__PC_KDUR, NULL, 0) != DL_OK)
    return 0;
  w->durs_by_caller = 1;
  return 1;
}

int dldb_aggr_kernel_dur(dldb_writer *w, int64_t aggr_id, int64_t dur_ns, int64_t api_start_ns,
                         int64_t kernel_id, char *err, size_t errlen) {
  (void)kernel_id; /* the order's last key: the rows come in it */
  if (!w->in_aggr || !w->durs_by_caller || aggr_id != w->aggr_id)
    return dl_err(err, errlen, DL_EINVAL, "dldb_aggr_kernel_dur: no open aggregation");
  return dldb__pc_add(w, DLDB__PC_KDUR, 0, -1, dur_ns, api_start_ns, err, errlen);
}
