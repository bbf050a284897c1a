#!/usr/bin/env bash
# Nsight Systems import benchmark: `dlprof --database=EXPORT` on a
# generated export (bench/nsys_gen.c: schema 3.13 layout, a PyTorch training
# loop with KERNELS kernels, their cudaLaunchKernel calls by correlation id,
# emit_nvtx ranges with distinct texts, memcpys, memsets), Release build.
# Prints wall time and peak RSS of the import + aggregation + commit (the
# reports are left to --reports' default, the summary CSV). docs/performance.md
# quotes these figures with this command. The phases come from the progress
# lines of --verbosity=detailed, each stamped with the seconds since the start.
# Usage: bench/nsys_import.sh [KERNELS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
kernels=${1:-10000000}
build=${2:-build/release}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target dlprof >/dev/null
mkdir -p "$build/bench"
cc -O2 -Wall -Wextra -o "$build/bench/nsys_gen" bench/nsys_gen.c -lsqlite3
export_db=$build/bench/nsys_${kernels}.sqlite
if [[ ! -f $export_db ]]; then
  "$build/bench/nsys_gen" --kernels "$kernels" "$export_db"
fi
echo "export: $export_db ($(du -h "$export_db" | cut -f1))"
out=$build/bench/nsys_out
rm -rf "$out" && mkdir -p "$out"
# Each progress line (a phase's start and end, every 5 s between) gets the
# seconds since the start; /usr/bin/time's report comes last.
start=$(date +%s.%N)
set +e
/usr/bin/time -v "$build/cli/dlprof" --database="$export_db" --output_path="$out" \
  --key_op="Optimizer.step#SGD.step" --verbosity=detailed 2>&1 >/dev/null |
  while IFS= read -r line; do
    awk -v now="$(date +%s.%N)" -v t0="$start" -v l="$line" 'BEGIN { printf "%7.1f s  %s\n", now - t0, l }'
  done >"$out/time.txt"
status=${PIPESTATUS[0]}
set -e
if [[ $status -ne 0 ]]; then
  cat "$out/time.txt"
  exit 1
fi
echo "phases (seconds since the start; a phase runs until the next one starts):"
grep -E "s  dlprof: ([^:]*: 0%|read |aggregating|writing [^ ]*$)" "$out/time.txt" || true
grep -E "Elapsed \(wall clock\)|Maximum resident set size|User time|System time" "$out/time.txt"
echo "dldb: $(du -h "$out/dlprof_dldb.sqlite" | cut -f1)"
# The targets, for 10 M kernels: under 60 s, under 1 GB of peak RSS
# (10^9 bytes; /usr/bin/time reports KiB).
awk -F': ' -v kernels="$kernels" '
  /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = p[n] + 60 * p[n - 1] + (n > 2 ? 3600 * p[n - 2] : 0) }
  /Maximum resident set size/ { rss = $2 * 1024 }
  END {
    printf "targets (for 10 M kernels; this run: %d): wall %.1f s < 60 s: %s; peak RSS %.3f GB < 1 GB: %s\n",
           kernels, wall, wall < 60 ? "met" : "NOT met", rss / 1e9, rss < 1e9 ? "met" : "NOT met"
  }' "$out/time.txt"
