#!/usr/bin/env bash
# The whole `dlprof --database=TRACE` (import, aggregation, summary report)
# against Python's json.load of the same file, alternated in one run: the
# acceptance figure of the Kineto import (docs/performance.md "Kineto
# import"): median dlprof time / median json.load time, and each one's peak
# RSS (/usr/bin/time -v's "Maximum resident set size"); the same ratio of
# CPU time (user + system) beside it, which a shared VM's load moves less.
#
#   bench/kineto_ratio.sh BUILD [COPIES] [REPEATS]
#
# BUILD: a Release build directory holding cli/dlprof. COPIES: the HTA A100
# control trace repeated this many times (bench/kineto_gen.py, made in
# $BENCH_DIR, default /tmp/kineto-bench, when missing): 13 is 404 MB, 65 is
# 2.0 GB; default 13. REPEATS: pairs (dlprof then json.load, then the other
# order), default 3. PYTHON: the interpreter (default /usr/bin/python3).
# Prints the load average before and after: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: bench/kineto_ratio.sh BUILD [COPIES] [REPEATS]}
copies=${2:-13} repeats=${3:-3}
py=${PYTHON:-/usr/bin/python3}
[[ -x $build/cli/dlprof ]] || { echo "kineto_ratio.sh: $build/cli/dlprof: no such program" >&2; exit 1; }
dir=${BENCH_DIR:-/tmp/kineto-bench}
base=${DL_SHARED_DIR:-$(cd .. && pwd)/shared}/traces/kineto/hta/trace_diff_control_control.json.gz
[[ -f $base ]] || { echo "kineto_ratio.sh: $base not found" >&2; exit 1; }
mkdir -p "$dir"
trace=$dir/trace_x$copies.json
[[ -f $trace ]] || python3 bench/kineto_gen.py "$base" "$copies" "$trace"
mb=$(( $(stat -c %s "$trace") / 1000000 ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One timed run, labelled $1, of the command after it: appends "wall rss_kb"
# to $out/$1.txt and prints the run.
timed() {
  local label=$1; shift
  sync
  /usr/bin/time -v -o "$out/time.txt" "$@" >/dev/null
  local wall rss cpu
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
           for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$out/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time.txt")
  cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 } END { print s }' "$out/time.txt")
  echo "$wall $rss $cpu" >>"$out/$label.txt"
  printf '%-9s %7.2f s  CPU %7.2f s  peak RSS %6d MB\n' "$label" "$wall" "$cpu" $((rss / 1024))
}
run_dlprof() {
  rm -rf "$out/run" && mkdir -p "$out/run"
  timed dlprof "$build/cli/dlprof" --database="$trace" --output_path="$out/run" -v quiet
}
run_json() { timed json.load "$py" -c 'import json, sys; json.load(open(sys.argv[1]))' "$trace"; }

echo "trace: $trace ($mb MB), $repeats pairs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= repeats; i++)); do
  if ((i % 2)); then run_dlprof; run_json; else run_json; run_dlprof; fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
  print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
d=$(median "$out/dlprof.txt" 1) p=$(median "$out/json.load.txt" 1)
drss=$(sort -n -k2 "$out/dlprof.txt" | tail -1 | awk '{ printf "%d", $2 / 1024 }')
prss=$(sort -n -k2 "$out/json.load.txt" | tail -1 | awk '{ printf "%d", $2 / 1024 }')
dc=$(median "$out/dlprof.txt" 3) pc=$(median "$out/json.load.txt" 3)
awk -v d="$d" -v p="$p" -v mb="$mb" -v dr="$drss" -v pr="$prss" -v dc="$dc" -v pc="$pc" 'BEGIN {
  printf "median dlprof %.2f s (%.0f MB/s, peak RSS <= %d MB), json.load %.2f s (%d MB): ratio %.3f\n",
         d, mb / d, dr, p, pr, d / p
  printf "median CPU time: dlprof %.2f s, json.load %.2f s: ratio %.3f\n", dc, pc, dc / pc }'
