#!/usr/bin/env bash
# fuzz_long.sh HARNESS SECONDS [BUILD_DIR] - a long fuzzing run for
# docs/reliability.md: builds the libFuzzer harnesses with clang in BUILD_DIR
# (default build-fuzz, a DL_FUZZ=ON build) when needed, runs HARNESS
# (end to end: kineto, nsys, dldb; parsers in memory: kjson, kevents,
# nsysscan, dldbread; the viewer's requests: params; "all" runs the eight,
# two at a time) for SECONDS each, niced, on one core each, and prints one
# line per harness (for "all", again as a summary at the end):
#   fuzz HARNESS: N runs in S s, R runs/s, C crashes, corpus K inputs
# The corpus stays in BUILD_DIR/fuzz/corpus/HARNESS and grows from run to
# run; crash inputs land in BUILD_DIR/fuzz/crashes/HARNESS/ (exit 1).
# Reproduce one with: BUILD_DIR/fuzz/fuzz_HARNESS CRASH_FILE
set -euo pipefail
h=${1:?usage: fuzz_long.sh HARNESS|all SECONDS [BUILD_DIR]} secs=${2:?seconds}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${3:-$root/build-fuzz}
shared=${DL_SHARED_DIR:-$root/../shared}
if [[ ! -f $build/CMakeCache.txt ]]; then
  CC=${CC:-clang} cmake -S "$root" -B "$build" -DDL_FUZZ=ON -DDL_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
nice -n 19 cmake --build "$build" -j"$(nproc)" --target fuzz_all >/dev/null
if [[ $h == all ]]; then
  # two at a time (two cores); each run's line is kept and all are printed
  # again at the end, in this order
  status=0 out=$(mktemp -d)
  for pair in "kineto nsys" "dldb params" "kjson kevents" "nsysscan dldbread"; do
    pids=()
    for x in $pair; do
      "$root/fuzz/run.sh" "$x" "$secs" "$build" "$shared" >"$out/$x" & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || status=1; done
    for x in $pair; do cat "$out/$x"; done
  done
  echo "== summary: $secs s each, build $build"
  for x in kineto nsys dldb params kjson kevents nsysscan dldbread; do grep "^fuzz $x:" "$out/$x" || echo "fuzz $x: no result"; done
  rm -rf "$out"
  exit $status
fi
exec "$root/fuzz/run.sh" "$h" "$secs" "$build" "$shared"
