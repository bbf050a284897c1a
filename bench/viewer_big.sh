#!/usr/bin/env bash
# The viewer's list requests on one big dldb (the 10 M-kernel dldb of
# bench/nsys_import.sh 10000000, say): dlprofviewer without its answer cache
# (--cache-mb 0), started once, each request of a fixed list timed once by
# curl, in order (a later request may reuse what an earlier one counted or
# read: a user paging does). The lists: the whole aggregation's kernels in
# launch order (both directions, deep pages, name filters), sorted by
# duration (deep pages too), sorted by a column the kernel groups share
# (kernel name, grid, op; deep pages), the middle iteration's kernels (what
# Kernels by Iteration asks), its biggest op's kernels (Kernels by Op), the most
# launched kernel's launches (Statistics; in launch order, and by duration
# at its top and middle), that op's launches by duration, the iteration
# ops of the whole aggregation (sorted, a middle page), the ops, the Group
# Ops tree's top rows and the NVTX statistics (the first request, a filter
# that matches nothing, filters that match, the name order).
# Prints the start and each request's seconds, HTTP status and filtered
# rows. docs/performance.md quotes it.
# Usage: bench/viewer_big.sh DLDB [BUILD_DIR]   (BUILD_DIR: build/release)
set -euo pipefail
[[ $# -ge 1 && -f $1 ]] || { echo "usage: viewer_big.sh DLDB [BUILD_DIR]" >&2; exit 1; }
db=$1
build=${2:-build/release}
cd "$(dirname "$0")/.."
viewer=$build/server/dlprofviewer
[[ -x $viewer ]] || { echo "no $viewer: build dlprofviewer in $build first" >&2; exit 1; }
echo "dldb: $db ($(du -h "$db" | cut -f1)); commit $(git rev-parse --short HEAD); $(uptime | sed 's/.*load average/load average/')"
log=$(mktemp)
t0=$(date +%s.%N)
"$viewer" --port 0 --cache-mb 0 "$db" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 6000); do grep -q "running at" "$log" && break; sleep 0.05; done
base=$(grep -o 'http://[^ ]*' "$log" | head -1)
[[ -n $base ]] || { cat "$log" >&2; exit 1; }
until curl -sf -o /dev/null "${base}api/v1/health"; do sleep 0.05; done
echo "start to the first answer: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }
field() { grep -o "\"$1\":\"\\{0,1\\}[^,\"]*" | head -1 | sed 's/.*://; s/"//'; }
n=$(curl -s "${base}api/v1/iterations_profiled?limit=1" | grep -o '"total":[0-9]*' | cut -d: -f2)
mid=$(curl -s "${base}api/v1/iterations_profiled?limit=1&sort=iter_value&order=asc&offset=$((n / 2))" | field iter_value)
op=$(curl -s "${base}api/v1/iteration_ops?iter_value=$mid&sort=total_count&order=desc&limit=1" | field op_node_id)
kn=$(curl -s "${base}api/v1/kernel_summaries?sort=calls&order=desc&limit=1" | field kernel_name)
total=$(curl -s "${base}api/v1/iteration_kernels?limit=1" | grep -o '"total":[0-9]*' | cut -d: -f2)
kcalls=$(curl -s "${base}api/v1/iteration_kernels?limit=1&kernel_name=$(enc "$kn")" | grep -o '"total":[0-9]*' | cut -d: -f2)
nops=$(curl -s "${base}api/v1/iteration_ops?limit=1" | grep -o '"total":[0-9]*' | cut -d: -f2)
echo "middle iteration $mid, its biggest op $op, the most launched kernel $kn ($kcalls launches), $total kernels, $nops iteration ops"
printf '%9s  %4s  %-10s %s\n' seconds HTTP filtered "request (/api/v1/...)"
for u in \
  "iteration_kernels?limit=100" \
  "iteration_kernels?limit=100&order=desc" \
  "iteration_kernels?limit=100&offset=$((total / 2))" \
  "iteration_kernels?limit=100&offset=$((total - 100))" \
  "iteration_kernels?limit=100&filter=gemm" \
  "iteration_kernels?limit=100&filter=xyzzy" \
  "iteration_kernels?limit=100&sort=kernel_duration&order=desc" \
  "iteration_kernels?limit=100&sort=kernel_duration&order=desc&offset=$((total / 2))" \
  "iteration_kernels?limit=100&sort=kernel_duration&offset=$((total - 100))" \
  "iteration_op_kernels?limit=100&sort=kernel_duration&offset=$((total / 4))" \
  "iteration_kernels?limit=100&iter_value=$mid" \
  "iteration_kernels?limit=100&iter_value=$mid&sort=kernel_duration&order=desc" \
  "iteration_kernels?limit=100&iter_value=$mid&filter=gemm" \
  "iteration_kernels?limit=100&iter_value=$mid&offset=900" \
  "iteration_kernels?limit=100&kernel_name=$(enc "$kn")" \
  "iteration_kernels?limit=100&kernel_name=$(enc "$kn")&sort=kernel_duration&order=desc" \
  "iteration_kernels?limit=100&kernel_name=$(enc "$kn")&sort=kernel_duration&offset=$((kcalls / 2))" \
  "iteration_kernels?limit=100&filter=gemm&sort=kernel_duration&order=desc" \
  "iteration_kernels?limit=100&sort=kernel_name&offset=$((total / 2))" \
  "iteration_kernels?limit=100&sort=grid&order=desc&offset=$((total - 100))" \
  "iteration_op_kernels?limit=100&sort=op_node_id&filter=relu&offset=$((total / 8))" \
  "iteration_op_kernels?limit=100" \
  "iteration_op_kernels?limit=100&offset=$((total / 2))" \
  "iteration_op_kernels?limit=100&filter=relu" \
  "iteration_op_kernels?limit=100&iter_value=$mid&op_node_id=$(enc "$op")" \
  "iteration_op_kernels?limit=100&iter_value=$mid&op_node_id=$(enc "$op")&sort=kernel_duration&order=desc" \
  "iteration_op_kernels?limit=100&op_node_id=$(enc "$op")&sort=kernel_duration&order=desc" \
  "iteration_ops?limit=100&iter_value=$mid" \
  "iteration_ops?limit=100&sort=total_gpu_time&order=desc" \
  "iteration_ops?limit=100&offset=$((nops / 2))" \
  "iteration_ops?limit=100&sort=op_node_name" \
  "op_nodes?limit=100&filter=conv" \
  "group_ops?limit=100" \
  "group_ops?top=1&limit=100" \
  "dl_stats_nvtx?limit=50" \
  "dl_stats_nvtx?limit=50&filter=xyzzy" \
  "dl_stats_nvtx?limit=50&filter=conv" \
  "dl_stats_nvtx?limit=50&sort=name" \
  "dl_stats_nvtx_gpu_proj?limit=50&filter=relu"; do
  out=$(curl -s -m 900 -w '\n%{http_code} %{time_total}' "${base}api/v1/$u")
  read -r code secs <<<"$(tail -n1 <<<"$out")"
  filtered=$(head -n1 <<<"$out" | grep -o '"filtered":[0-9]*' | cut -d: -f2 || true)
  printf '%9.3f  %4s  %-10s %s\n' "$secs" "$code" "$filtered" "$u"
done
