#!/bin/sh
# kineto_import.sh - Kineto JSON import speed and peak memory at growing
# trace sizes, against the target of a 2 GB trace imported at >= 100 MB/s
# in under 512 MB (figures in docs/performance.md "Kineto import").
#
#   bench/kineto_import.sh [COPIES...]      (default: 1 10 60)
#
# Builds a release tree in build-h9-rel, generates BASE x COPIES traces
# (bench/kineto_gen.py; BASE = the HTA A100 control trace, 34.8 MB of JSON)
# in $BENCH_DIR (default /tmp/kineto-bench), and for each size reports:
#   parse+write: bench/kineto_import.c (dli_kineto_import only, no analysis)
#   dlprof: the whole `dlprof --database` (import, analysis, commit, report)
#   python: `python3 -c 'import json,sys; json.load(open(sys.argv[1]))'`
#           (skipped above PY_MAX_MB, default 400: it needs ~10x the file in RAM)
# with wall time, MB/s of JSON and peak RSS from /usr/bin/time.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build-h9-rel}
DIR=${BENCH_DIR:-/tmp/kineto-bench}
SHARED=${DL_SHARED_DIR:-$ROOT/../shared}
BASE=$SHARED/traces/kineto/hta/trace_diff_control_control.json.gz
PY_MAX_MB=${PY_MAX_MB:-400}
[ -f "$BASE" ] || { echo "SKIP: $BASE not found"; exit 77; }
mkdir -p "$DIR"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDL_WERROR=ON -DDL_SHARED_DIR="$SHARED" >/dev/null
cmake --build "$BUILD" --target dlprof dli dldb dl_common -j2 >/dev/null
cc -O2 -D_GNU_SOURCE -DDL_VERSION='"bench"' -I"$ROOT/import" -I"$ROOT/db" -I"$ROOT/common" \
  "$ROOT/bench/kineto_import.c" "$BUILD/import/libdli.a" "$BUILD/db/libdldb.a" \
  "$BUILD/common/libdl_common.a" -lsqlite3 -lz -lm -o "$DIR/kineto_import"
measure() { # label, file, command...
  label=$1; file=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/err.txt" || { cat "$DIR/err.txt"; return 1; }
  mb=$(( $(stat -c %s "$file") / 1000000 ))
  set -- $(cat "$DIR/time.txt")
  awk -v l="$label" -v mb="$mb" -v s="$1" -v kb="$2" \
    'BEGIN { printf "%-12s %6d MB  %8.2f s  %7.1f MB/s  peak RSS %6.0f MB\n", l, mb, s, (s > 0 ? mb / s : 0), kb / 1024 }'
}
for n in ${*:-1 10 60}; do
  f=$DIR/trace_x$n.json
  [ -f "$f" ] || python3 "$ROOT/bench/kineto_gen.py" "$BASE" "$n" "$f"
  echo "== ${n}x"
  measure parse+write "$f" "$DIR/kineto_import" "$f" "$DIR/x$n.sqlite"
  rm -rf "$DIR/out" && mkdir -p "$DIR/out"
  measure dlprof "$f" "$BUILD/cli/dlprof" --database="$f" --output_path="$DIR/out" -v quiet
  if [ $(( $(stat -c %s "$f") / 1000000 )) -le "$PY_MAX_MB" ]; then
    measure python "$f" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f"
  else
    echo "python       skipped (file above PY_MAX_MB=$PY_MAX_MB)"
  fi
done
