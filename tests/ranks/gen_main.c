/* ranks_gen: writes a synthetic job (ranks_gen.h) into DIR: every rank's
 * trace, or rank RANK's alone; KERNELS: compute kernels per iteration.
 * Usage: ranks_gen DIR [RANKS [ITERS [KERNELS [RANK]]]] */
#include <stdio.h>
#include <stdlib.h>

#include "ranks_gen.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ranks_gen DIR [RANKS [ITERS [KERNELS [RANK]]]]\n");
    return 2;
  }
  rg_params p;
  rg_defaults(&p);
  if (argc > 2) p.ranks = atoi(argv[2]);
  if (argc > 3) p.iters = atoi(argv[3]);
  if (argc > 4) p.compute_kernels = atoi(argv[4]);
  int one = argc > 5 ? atoi(argv[5]) : -1;
  if (p.ranks < 1 || p.iters < 1 || p.compute_kernels < 1 || one >= p.ranks) return 2;
  if (one >= 0 ? rg_write_rank(&p, argv[1], one) : rg_write(&p, argv[1])) {
    perror(argv[1]);
    return 1;
  }
  return 0;
}
