#!/bin/sh
# ranks_import.sh - dlprof --database on a folder of synthetic per-rank
# Kineto traces (tests/ranks/ranks_gen.c: a data-parallel job with a
# straggler and a late rank) at growing rank counts: wall time and peak
# RSS of the whole import, analysis (ranks phase included) and commit
# (figures in docs/performance.md "Ranks").
#
#   bench/ranks_import.sh BUILD [RANKS...]   (default ranks: 8 64 256 1024)
#
# BUILD holds cli/dlprof (a Release build). ITERS (default 20) iterations
# per rank; the jobs are written to $BENCH_DIR (default /tmp/ranks-bench).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$1
shift
DIR=${BENCH_DIR:-/tmp/ranks-bench}
ITERS=${ITERS:-20}
[ -x "$BUILD/cli/dlprof" ] || { echo "ranks_import: $BUILD/cli/dlprof: not built" >&2; exit 1; }
mkdir -p "$DIR"
cc -O2 -I"$ROOT/tests/ranks" "$ROOT/tests/ranks/ranks_gen.c" "$ROOT/tests/ranks/gen_main.c" \
  -o "$DIR/ranks_gen"
[ $# -gt 0 ] || set -- 8 64 256 1024
echo "ranks  iters  JSON(MB)  wall(s)  peak RSS(MB)"
for n in "$@"; do
  job=$DIR/job$n
  rm -rf "$job" "$DIR/out$n"
  mkdir -p "$job" "$DIR/out$n"
  "$DIR/ranks_gen" "$job" "$n" "$ITERS"
  mb=$(du -sm "$job" | cut -f1)
  /usr/bin/time -f '%e %M' -o "$DIR/time$n" "$BUILD/cli/dlprof" --database="$job" \
    --output_path="$DIR/out$n" --force=true -v quiet >/dev/null 2>&1
  read -r wall kb <"$DIR/time$n"
  echo "$n  $ITERS  $mb  $wall  $((kb / 1024))"
done
