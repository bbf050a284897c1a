#!/usr/bin/env bash
# Two dlprof builds on the same generated PyTorch profiler trace, alternated
# (A B, then B A, ...): the whole `dlprof --database=TRACE` (import,
# aggregation, summary report) under /usr/bin/time, each run's wall time, CPU
# time, peak RSS and MB/s of JSON. The trace is the HTA A100 control trace
# repeated COPIES times (bench/kineto_gen.py, made in $BENCH_DIR when
# missing). Alternating tells more than one run of each on a shared VM.
# Usage: bench/kineto_ab.sh BUILD_A BUILD_B [COPIES] [PAIRS]
#   BUILD_*: build directories holding cli/dlprof (Release); COPIES: default
#   10 (310 MB of JSON); PAIRS: default 3.
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?usage: bench/kineto_ab.sh BUILD_A BUILD_B [COPIES] [PAIRS]} b=${2:?build B}
copies=${3:-10} pairs=${4:-3}
for d in "$a" "$b"; do
  [[ -x $d/cli/dlprof ]] || { echo "kineto_ab.sh: $d/cli/dlprof: no such program" >&2; exit 1; }
done
dir=${BENCH_DIR:-/tmp/kineto-bench}
base=${DL_SHARED_DIR:-$(cd .. && pwd)/shared}/traces/kineto/hta/trace_diff_control_control.json.gz
[[ -f $base ]] || { echo "kineto_ab.sh: $base not found" >&2; exit 1; }
mkdir -p "$dir"
trace=$dir/trace_x$copies.json
[[ -f $trace ]] || python3 bench/kineto_gen.py "$base" "$copies" "$trace"
mb=$(( $(stat -c %s "$trace") / 1000000 ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One run of build $2, labelled $1: wall, CPU, peak RSS, MB/s.
run() {
  rm -rf "$out/run" && mkdir -p "$out/run"
  sync
  /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$2/cli/dlprof" --database="$trace" \
    --output_path="$out/run" -v quiet >/dev/null
  read -r wall user sys rss <"$out/time.txt"
  awk -v l="$1" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v mb="$mb" \
    'BEGIN { printf "%s: %.2f s wall, %.2f + %.2f s CPU, %d KB, %.0f MB/s\n", l, w, u, s, r, mb / w }'
}

echo "trace: $trace ($mb MB)"
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then
    run "A $a" "$a"; run "B $b" "$b"
  else
    run "B $b" "$b"; run "A $a" "$a"
  fi
done
