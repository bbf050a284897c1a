#!/usr/bin/env bash
# Makes every dldb that dlprof can make from ../shared/traces (each Nsight
# Systems export, each PyTorch trace and folder, two of ours aggregated
# again, a generated 1 M-kernel export) with the dlprof of
# BUILD, into OUT/<name>/, and, given BASE (the OUT of another build), compares
# every view of each with bench/compare_views.py. Used to show that a change
# leaves every output as it was.
#
#   bench/views_all.sh BUILD OUT [BASE]
#
# Exit status 1 if a dldb could not be made or a view differs from BASE.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: bench/views_all.sh BUILD OUT [BASE]}
out=${2:?usage: bench/views_all.sh BUILD OUT [BASE]}
base=${3:-}
traces=$(cd .. && pwd)/shared/traces
dlprof=$build/cli/dlprof
[[ -x $dlprof ]] || { echo "views_all: $dlprof: not built" >&2; exit 1; }
mkdir -p "$out"

fail=0
# make NAME ARGS...: dlprof ARGS into OUT/NAME (the reports too).
make_one() {
  local name=$1; shift
  rm -rf "${out:?}/$name" && mkdir -p "$out/$name"
  if ! "$dlprof" "$@" --output_path="$out/$name" --reports=all --formats=csv,json \
       --force=true >"$out/$name/log.txt" 2>&1; then
    echo "views_all: $name: dlprof failed: $(tail -1 "$out/$name/log.txt")" >&2
    fail=1
  fi
}

make_one nsys_w_relu --database="$traces/dlprof/w_Relu/nsys_profile.sqlite"
make_one nsys_cutlass --database="$traces/nsys/nsys2023.2_cutlass_sgemm.sqlite"
make_one nsys_cloverleaf --database="$traces/nsys/nsys2024.5_a100x4_cloverleaf.sqlite"
for f in "$traces"/kineto/hta/*.json.gz "$traces"/kineto/tracelens_h100/*.json.gz \
         "$traces"/kineto/resnet50_num_workers_4/*.json.gz; do
  name=kineto_$(basename "$f" .json.gz)
  case $name in *execution_trace*) continue ;; esac
  make_one "$name" --database="$f"
done
make_one kineto_resnet50_v100_dir --database="$traces/kineto/resnet50_v100"
# Aggregated again, on copies: ours (NVIDIA's dldbs are refused: they hold no
# raw records to aggregate).
reaggr() {
  local name=reaggr_$1 src=$out/$1/dlprof_dldb.sqlite; shift
  mkdir -p "$out/src_$name" && cp "$src" "$out/src_$name/in.sqlite"
  make_one "$name" --database="$out/src_$name/in.sqlite" "$@"
  cp "$out/src_$name/in.sqlite" "$out/$name/dlprof_dldb.sqlite" # aggregated in place
}
reaggr kineto_trace_diff_control_control --iter_start=1 --iter_stop=3
reaggr nsys_w_relu --key_op=conv2d
# A generated 1 M-kernel export (bench/nsys_gen.c).
gen=$out/nsys_gen
[[ -x $gen ]] || cc -O2 -o "$gen" bench/nsys_gen.c -lsqlite3
[[ -f $out/nsys_1m.sqlite ]] || "$gen" --kernels 1000000 "$out/nsys_1m.sqlite" >/dev/null
make_one nsys_1m --database="$out/nsys_1m.sqlite" --key_op="Optimizer.step#SGD.step"

if [[ -n $base ]]; then
  for d in "$out"/*/; do
    name=$(basename "$d")
    [[ -f $d/dlprof_dldb.sqlite ]] || continue
    if [[ ! -f $base/$name/dlprof_dldb.sqlite ]]; then
      echo "MISSING $name in $base"; fail=1; continue
    fi
    r=$(bench/compare_views.py "$base/$name/dlprof_dldb.sqlite" "$d/dlprof_dldb.sqlite" 2>&1) || true
    # The run's start time and command line differ between any two runs.
    other=$(grep -v '^same' <<<"$r" | grep -vE '^DIFF view_(aggregations|system_config) ' || true)
    if [[ -z $other ]]; then
      echo "same $name ($(grep -c '^same' <<<"$r") views; the run's date and command aside)"
    else
      echo "DIFF $name:"; sed 's/^/  /' <<<"$other"
      fail=1
    fi
    # The reports, byte for byte (CSV and JSON), but the summary's run facts.
    for rep in "$d"/dlprof_*.csv "$d"/dlprof_*.json; do
      [[ -f $rep ]] || continue
      b=$base/$name/$(basename "$rep")
      if [[ ! -f $b ]]; then echo "MISSING report $name/$(basename "$rep")"; fail=1
      elif ! cmp -s "$b" "$rep"; then
        if ! diff <(grep -vE 'Profile Date|Command|Date|date|Path|path|command' "$b") \
                  <(grep -vE 'Profile Date|Command|Date|date|Path|path|command' "$rep") >/dev/null; then
          echo "DIFF report $name/$(basename "$rep")"; fail=1
        fi
      fi
    done
  done
fi
exit $fail
