#!/usr/bin/env bash
# Two dlprof builds on the same generated Nsight Systems export, alternated
# (A B, then B A, ...), with bench/nsys_import.sh's dlprof command: wall
# time, CPU time, peak RSS and the seconds of each phase (from the progress
# lines of --verbosity=detailed). On a shared VM the speed moves between
# runs by more than many changes gain; alternating, and reading the phases
# a change touches, tells more than one run of each (docs/performance.md).
# Each run's dldb is deleted, and `sync` run, before the next one. One
# run of B comes first and is not counted: on the VMs here a script's first
# run was its slowest by far (docs/performance.md), and A, which opens the
# alternation, paid for it.
# Usage: bench/nsys_ab.sh BUILD_A BUILD_B [KERNELS] [PAIRS]
#   BUILD_*: build directories holding cli/dlprof (Release), e.g. a
#   worktree's (git worktree add /tmp/base REV; cmake ... -B /tmp/base/b)
#   KERNELS: the export's size (default 1000000; made by nsys_import.sh's
#   generator when missing, under BUILD_A/bench); PAIRS: default 2.
#   WARMUP=0: no uncounted first run.
#   A_ENV, B_ENV: NAME=VALUE settings each run of A (B) gets, e.g. one build
#   against itself with the export's rows stepped by SQLite instead of read
#   from its pages: B_ENV=NSYS_SCAN=sqlite bench/nsys_ab.sh build/rel build/rel
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1 b=$2 kernels=${3:-1000000} pairs=${4:-2}
for d in "$a" "$b"; do
  [[ -x $d/cli/dlprof ]] || { echo "nsys_ab.sh: $d/cli/dlprof: no such program" >&2; exit 1; }
done
mkdir -p "$a/bench"
export_db=$a/bench/nsys_${kernels}.sqlite
if [[ ! -f $export_db ]]; then
  cc -O2 -Wall -Wextra -o "$a/bench/nsys_gen" bench/nsys_gen.c -lsqlite3
  "$a/bench/nsys_gen" --kernels "$kernels" "$export_db"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One run of build $2 with environment settings $3, labelled $1: a line of
# figures, then its phases.
run() {
  local label=$1 build=$2 start
  local -a settings
  read -ra settings <<<"${3:-}"
  rm -rf "$out/run" && mkdir -p "$out/run"
  sync
  start=$(date +%s.%N)
  env "${settings[@]}" /usr/bin/time -v "$build/cli/dlprof" --database="$export_db" --output_path="$out/run" \
    --key_op="Optimizer.step#SGD.step" --verbosity=detailed 2>&1 >/dev/null |
    while IFS= read -r line; do
      awk -v now="$(date +%s.%N)" -v t0="$start" -v l="$line" \
        'BEGIN { printf "%.1f\t%s\n", now - t0, l }'
    done >"$out/time.txt"
  awk -F'\t' -v label="$label" '
    /Elapsed \(wall clock\)/ { v = $0; sub(/.*\): /, "", v); n = split(v, p, ":")
                               wall = p[n] + 60 * p[n - 1] + (n > 2 ? 3600 * p[n - 2] : 0) }
    /User time/ { v = $0; sub(/.*: /, "", v); user = v }
    /System time/ { v = $0; sub(/.*: /, "", v); sys = v }
    /Maximum resident set size/ { v = $0; sub(/.*: /, "", v); rss = v }
    /dlprof: [^:]*: 0%|dlprof: aggregating|dlprof: writing [^ ]*$/ {
      if ($2 ~ /memory copies|memsets/) next
      if (name != "") ph[++k] = sprintf("  %-56s %6.1f s", name, $1 - at)
      name = $2; sub(/^dlprof: /, "", name); sub(/: 0%.*/, "", name); at = $1
    }
    END {
      printf "%s: %.1f s wall, %s + %s s CPU, %s KB\n", label, wall, user, sys, rss
      for (i = 1; i <= k; i++) print ph[i]
    }' "$out/time.txt"
}

echo "export: $export_db"
if [[ ${WARMUP:-1} != 0 ]]; then
  warm=$(run "warm-up, not counted: B $b ${B_ENV:-}" "$b" "${B_ENV:-}")
  echo "${warm%%$'\n'*}"
fi
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then
    run "A $a ${A_ENV:-}" "$a" "${A_ENV:-}"; run "B $b ${B_ENV:-}" "$b" "${B_ENV:-}"
  else
    run "B $b ${B_ENV:-}" "$b" "${B_ENV:-}"; run "A $a ${A_ENV:-}" "$a" "${A_ENV:-}"
  fi
done
