#!/usr/bin/env bash
# The work two dlprof builds do on the same inputs, counted by Cachegrind
# (instructions, data references, simulated D1 and last-level cache misses,
# all threads): counts that the load of a shared VM does not move, where the
# wall time of bench/nsys_ab.sh and bench/kineto_ab.sh moves by more than
# most changes gain. Two inputs: a generated Nsight Systems export of KERNELS
# kernels (bench/nsys_gen.c) and the HTA A100 control trace once
# (bench/kineto_gen.py), each run as its benchmark runs it. Cachegrind does
# not see the disk: the wall-time A/B scripts still measure that.
# Usage: bench/cost_ab.sh BUILD_A BUILD_B [KERNELS]
#   BUILD_*: build directories holding cli/dlprof (Release); KERNELS:
#   default 200000 (about 13 G instructions and 2 minutes a run).
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?usage: bench/cost_ab.sh BUILD_A BUILD_B [KERNELS]} b=${2:?build B}
kernels=${3:-200000}
for d in "$a" "$b"; do
  [[ -x $d/cli/dlprof ]] || { echo "cost_ab.sh: $d/cli/dlprof: no such program" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "cost_ab.sh: valgrind not found" >&2; exit 1; }
dir=${BENCH_DIR:-/tmp/cost-bench}
mkdir -p "$dir"
nsys=$dir/nsys_${kernels}.sqlite
if [[ ! -f $nsys ]]; then
  cc -O2 -Wall -Wextra -o "$dir/nsys_gen" bench/nsys_gen.c -lsqlite3
  "$dir/nsys_gen" --kernels "$kernels" "$nsys" >/dev/null
fi
kin=$dir/trace_x1.json
shared=${DL_SHARED_DIR:-$(cd .. && pwd)/shared}
[[ -f $kin ]] || python3 bench/kineto_gen.py \
  "$shared/traces/kineto/hta/trace_diff_control_control.json.gz" 1 "$kin"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# counts BUILD ARGS...: "Ir Dr D1miss LLmiss" of one dlprof run.
counts() {
  local build=$1; shift
  rm -rf "$out/run" && mkdir -p "$out/run"
  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
    "$build/cli/dlprof" "$@" --output_path="$out/run" 2>&1 >/dev/null |
    awk '/ I *refs:/ {ir=$4} / D *refs:/ {dr=$4} / D1 *misses:/ {d1=$4}
         / LL misses:/ {ll=$4} END {gsub(",", "", ir); gsub(",", "", dr);
         gsub(",", "", d1); gsub(",", "", ll); print ir, dr, d1, ll}'
}

# compare NAME ARGS...: both builds' counts and A/B.
compare() {
  local name=$1; shift
  local ca cb
  ca=$(counts "$a" "$@")
  cb=$(counts "$b" "$@")
  awk -v n="$name" -v a="$ca" -v b="$cb" 'BEGIN {
    split(a, x, " "); split(b, y, " ");
    split("instructions data-refs D1-misses LL-misses", k, " ");
    printf "%s\n", n;
    for (i = 1; i <= 4; i++)
      printf "  %-13s A %15.0f  B %15.0f  A/B %.4f\n", k[i], x[i], y[i],
             y[i] ? x[i] / y[i] : 0;
  }'
}

echo "A: $a"
echo "B: $b"
compare "nsys export, $kernels kernels" --database="$nsys" \
  --key_op="Optimizer.step#SGD.step"
compare "PyTorch trace, HTA control x1 (31 MB)" --database="$kin"
