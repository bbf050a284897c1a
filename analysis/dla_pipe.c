/* dla_pipe.c - the analysis's batch pipe: common/dl_pipe.h's dl_pipe_run
 * (see dla_pipe.h). */
#include "dla_pipe.h"

int dla_pipe_run(size_t batch_bytes, int nslots, int (*prod)(void *pctx, dla_pipe *p),
                 void *pctx, int (*cons)(void *cctx, void *batch, size_t n), void *cctx) {
  return dl_pipe_run(batch_bytes, nslots, prod, pctx, cons, cctx);
}
