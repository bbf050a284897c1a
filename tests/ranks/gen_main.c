/* ranks_gen: writes a synthetic job (ranks_gen.h) into DIR.
 * Usage: ranks_gen DIR [RANKS [ITERS]] */
#include <stdio.h>
#include <stdlib.h>

#include "ranks_gen.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ranks_gen DIR [RANKS [ITERS]]\n");
    return 2;
  }
  rg_params p;
  rg_defaults(&p);
  if (argc > 2) p.ranks = atoi(argv[2]);
  if (argc > 3) p.iters = atoi(argv[3]);
  if (p.ranks < 1 || p.iters < 1) return 2;
  if (rg_write(&p, argv[1])) {
    perror(argv[1]);
    return 1;
  }
  return 0;
}
