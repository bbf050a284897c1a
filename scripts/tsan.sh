#!/usr/bin/env bash
# Runs dlprof under ThreadSanitizer on real traces from ../shared/traces: the
# analysis loads the API calls and kernels on a second thread while it builds
# the op nodes, reads the NVTX ranges on another, and writes the NVTX
# statistics while a third sorts them; the imports read on one thread and
# write on the other; the NVTX name order, merged on a second thread while
# the timeline is written; its unit test, whose small budgets spill the name
# parts from a second thread while the next part is read; and the analysis's unit tests, among them the kernel groups' duration
# orders sorted on a second thread while the launch sequence is written.
# Any TSan report fails the script (exit 1). Builds a
# Debug tree with -fsanitize=thread in build/tsan first (TSan and ASan do
# not mix). Not part of CI: it takes a minute or two on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
traces="$(cd .. && pwd)/shared/traces"
[ -d "$traces" ] || { echo "tsan.sh: $traces not found" >&2; exit 1; }
cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=Debug -DDL_SANITIZE=OFF -DDL_TESTS=ON \
  -DCMAKE_C_FLAGS="-fsanitize=thread -g" >/dev/null
cmake --build build/tsan -j"$(nproc)" --target dlprof test_nvtxorder test_dla >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
n=0
run() { # run NAME dlprof-arguments...: fails on a TSan report
  local name=$1
  shift
  n=$((n + 1))
  mkdir -p "$out/$n"
  echo "tsan.sh: $name" >&2
  if ! build/tsan/cli/dlprof --output_path="$out/$n" -v quiet "$@" >"$out/log" 2>&1; then
    cat "$out/log" >&2
    exit 1
  fi
}
run "the w_Relu export" --database="$traces/dlprof/w_Relu/nsys_profile.sqlite"
run "its dldb re-aggregated" --database="$out/1/dlprof_dldb.sqlite" --key_op=linear --force=true
run "a 4-GPU export" --database="$traces/nsys/nsys2024.5_a100x4_cloverleaf.sqlite"
run "a PyTorch profiler trace" \
  --database="$traces/kineto/resnet50_v100/worker0.1623143089861.pt.trace.json.gz"
echo "tsan.sh: the NVTX name order in spilled parts" >&2
mkdir -p "$out/order"
if ! build/tsan/tests/analysis/test_nvtxorder "$out/order" >"$out/log" 2>&1; then
  cat "$out/log" >&2
  exit 1
fi
echo "tsan.sh: the analysis's unit tests" >&2
mkdir -p "$out/unit"
if ! build/tsan/tests/analysis/test_dla "$out/unit" >"$out/log" 2>&1; then
  cat "$out/log" >&2
  exit 1
fi
echo "tsan.sh: clean" >&2
