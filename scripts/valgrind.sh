#!/usr/bin/env bash
# Runs dlprof and dlprofviewer under valgrind's memcheck on real traces from
# ../shared/traces: an Nsight Systems export (every report), a re-aggregation
# of the dldb it wrote, a PyTorch profiler trace, bad input, and the viewer
# answering API and page requests, also after the file was replaced. Any error or leak (definite, indirect or
# possible) fails the script. Builds a non-sanitized Debug tree in
# build/vg first (valgrind and ASan do not mix). Not part of CI: it takes a
# few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
traces="$(cd .. && pwd)/shared/traces"
[ -d "$traces" ] || { echo "valgrind.sh: $traces not found" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed (scripts/install-deps.sh)" >&2; exit 1; }
cmake -S . -B build/vg -DCMAKE_BUILD_TYPE=Debug -DDL_SANITIZE=OFF -DDL_TESTS=OFF >/dev/null
cmake --build build/vg -j"$(nproc)" --target dlprof dlprofviewer >/dev/null
vg=(valgrind -q --error-exitcode=9 --leak-check=full "--errors-for-leak-kinds=definite,indirect,possible")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
step() { echo "valgrind.sh: $*" >&2; }

step "dlprof on the w_Relu export, every report"
"${vg[@]}" build/vg/cli/dlprof --database="$traces/dlprof/w_Relu/nsys_profile.sqlite" \
  --output_path="$out" --reports=all --formats=csv,json -v detailed >/dev/null 2>"$out/log" ||
  { cat "$out/log" >&2; exit 1; }
step "dlprof re-aggregating that dldb"
"${vg[@]}" build/vg/cli/dlprof --database="$out/dlprof_dldb.sqlite" --output_path="$out" \
  --key_op=linear --force=true -v quiet
step "dlprof on a PyTorch profiler trace"
mkdir "$out/k"
"${vg[@]}" build/vg/cli/dlprof \
  --database="$traces/kineto/resnet50_v100/worker0.1623143089861.pt.trace.json.gz" \
  --output_path="$out/k" --reports=all -v quiet
step "dlprof on bad input (an error, exit 1, no leak)"
set +e
"${vg[@]}" build/vg/cli/dlprof --database="$traces/nsys/empty_export.sqlite" \
  --output_path="$out/k" -v quiet 2>/dev/null
rc=$?
set -e
[ "$rc" = 1 ] || { echo "valgrind.sh: expected exit 1 on the empty export, got $rc" >&2; exit 1; }

step "dlprofviewer answering requests"
"${vg[@]}" build/vg/server/dlprofviewer --port 0 "$out/dlprof_dldb.sqlite" >"$out/viewer.log" 2>&1 &
viewer=$!
url=
for _ in $(seq 1 300); do
  url=$(grep -o 'http://[0-9.:]*' "$out/viewer.log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] || { cat "$out/viewer.log" >&2; kill "$viewer"; exit 1; }
for p in / /api/v1/health /api/v1/op_nodes /api/v1/kernel_summaries?limit=5 \
         "/api/v1/op_nodes?filter=conv&sort=gpu_time&order=desc" /api/v1/iterations_all \
         "/api/v1/group_ops?sort=level&offset=3&limit=50" \
         "/api/v1/group_ops?top=1&sort=gpu_time_sum&order=desc" \
         "/api/v1/iteration_kernels?sort=kernel_duration&order=desc&offset=10&limit=20" \
         "/api/v1/iteration_kernels?sort=kernel_name&offset=3&limit=20" \
         "/api/v1/iteration_kernels?sort=kernel_duration&filter=e&offset=2&limit=20" \
         "/api/v1/iteration_ops?sort=total_gpu_time&order=desc&offset=5&limit=3" \
         "/api/v1/iteration_ops?sort=tc_count&offset=7&limit=3" \
         /api/v1/reports/summary.csv /api/v1/nope; do
  code=$(curl -s -o /dev/null -w "%{http_code}" "$url$p")
  step "  GET $p: $code"
done
step "  the database replaced by a new aggregation, then by a file that is no dldb"
build/vg/cli/dlprof --database="$out/dlprof_dldb.sqlite" --output_path="$out" --iter_start=0 \
  --iter_stop=0 --force=true -v quiet
for p in /api/v1/aggregations /api/v1/op_nodes; do
  code=$(curl -s -o /dev/null -w "%{http_code}" "$url$p")
  step "  GET $p: $code"
done
echo "not a database" >"$out/bad" && mv "$out/bad" "$out/dlprof_dldb.sqlite"
for p in /api/v1/op_nodes /api/v1/info; do
  code=$(curl -s -o /dev/null -w "%{http_code}" "$url$p")
  step "  GET $p: $code"
done
kill -INT "$viewer"
set +e
wait "$viewer"
rc=$?
set -e
if [ "$rc" = 9 ]; then cat "$out/viewer.log" >&2; exit 1; fi
if grep -q '^==[0-9]*==' "$out/viewer.log"; then cat "$out/viewer.log" >&2; exit 1; fi
step "clean"
