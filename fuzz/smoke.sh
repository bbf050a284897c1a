#!/usr/bin/env bash
# smoke.sh CLANG BUILD_DIR SECONDS [SHARED_DIR] - CI's short fuzzing run
# (the ctest fuzz_smoke): builds the harnesses with CLANG in BUILD_DIR (a
# DL_FUZZ=ON build of its own, reused between runs) and runs each of the
# eight harnesses for SECONDS, two at a time. Fails on any crash, leak,
# sanitizer report or timeout (the input is kept in
# BUILD_DIR/fuzz/crashes/HARNESS/).
set -euo pipefail
clang=$1 build=$2 secs=$3 shared=${4:-}
src=$(cd "$(dirname "$0")/.." && pwd)
CC=$clang cmake -S "$src" -B "$build" -DDL_FUZZ=ON -DDL_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j"$(nproc)" --target fuzz_all >"$build.build.log" 2>&1 ||
  { tail -40 "$build.build.log" >&2; exit 1; }
status=0
for pair in "kineto nsys" "dldb params" "kjson kevents" "nsysscan dldbread"; do
  pids=()
  for h in $pair; do
    "$src/fuzz/run.sh" "$h" "$secs" "$build" $shared & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
done
exit $status
