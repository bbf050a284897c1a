/*
 * dldb_write_durs.c - aggr_dl_kernel_durs from sorted rows
 * (dldb_write_durs.h), through the writer's batch of that table.
 */
#include "dldb_write_durs.h"

#include "dldb_write_internal.h"

int dldb_aggr_kernel_durs_begin(dldb_writer *w) {
  if (!w->in_aggr || !dldb__has_table(w, "aggr_dl_kernel_durs")) return 0;
  w->durs_by_caller = 1;
  return 1;
}

int dldb_aggr_kernel_dur(dldb_writer *w, int64_t aggr_id, int64_t dur_ns, int64_t api_start_ns,
                         int64_t kernel_id, char *err, size_t errlen) {
  if (!w->in_aggr || !w->durs_by_caller)
    return dl_err(err, errlen, DL_EINVAL, "dldb_aggr_kernel_dur: no open aggregation");
  const dldb__cell row[] = {DLDB__I(aggr_id), DLDB__I(dur_ns), DLDB__I(api_start_ns),
                            DLDB__I(kernel_id)};
  return dldb__batch_row(w, DLDB__B_KDURS, row, err, errlen, "dldb_aggr_kernel_dur");
}
