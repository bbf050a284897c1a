#!/usr/bin/env bash
# The sort of NVTX names by text on NAMES emit_nvtx-like names
# (bench/nvtx_sort.c; a 10 M-kernel export's spilled parts hold about
# 1.2 M names each).
# Usage: bench/nvtx_sort.sh [NAMES] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
names=${1:-2000000}
build=${2:-build/release}
mkdir -p "$build/bench"
cc -O2 -Wall -Wextra -Ianalysis -Idb -Icommon -o "$build/bench/nvtx_sort" \
  bench/nvtx_sort.c analysis/dla_nvtxsort.c
"$build/bench/nvtx_sort" "$names"
