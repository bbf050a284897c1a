#!/usr/bin/env bash
# The analysis's in-place sort on 2 * KERNELS GPU events in time order
# followed by a block of memory-operation events (bench/sort_events.c).
# Usage: bench/sort_events.sh [KERNELS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
kernels=${1:-5000000}
build=${2:-build/release}
mkdir -p "$build/bench"
cc -O2 -Wall -Wextra -Ianalysis -Idb -Icommon -o "$build/bench/sort_events" \
  bench/sort_events.c analysis/dla_sort.c -lsqlite3
"$build/bench/sort_events" "$kernels"
