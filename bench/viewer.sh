#!/usr/bin/env bash
# Viewer benchmark (dlprofviewer). On a generated dldb with at least
# one million kernel instances it measures, in one run:
#   - wrk throughput and p99 latency of /api/v1/performance_summary, of paged,
#     sorted list endpoints, and of a static asset (the reference), against a
#     viewer with its answer cache (the default) and one without
#     (--cache-mb 0), so both figures are on record;
#   - the server's peak RSS (VmHWM) after all of that;
#   - the time until the dashboard is fully rendered in headless Chromium.
# Prints the figures and the machine's load; docs/performance.md quotes them
# with this command.
# Usage: bench/viewer.sh [ITERATIONS] [KERNELS_PER_ITERATION] [SECONDS]
# Environment: BUILD_DIR (default build/release), SKIP_DEPS=1 to skip
# scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
iters=${1:-2100}
kpi=${2:-500}
secs=${3:-10}
build=${BUILD_DIR:-build/release}
[[ ${SKIP_DEPS:-0} == 1 ]] || scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDL_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target dlprofviewer dlsample >/dev/null
mkdir -p "$build/bench"
db=$build/bench/viewer_${iters}x${kpi}.sqlite
if [[ ! -f $db ]]; then
  /usr/bin/time -f "dlsample: %e s wall, %M KB peak RSS" \
    "$build/tools/dlsample" --iterations "$iters" --kernels-per-iter "$kpi" --force "$db"
fi
nk=$(sqlite3 "file:$db?mode=ro" "select count(*) from view_iteration_kernels where aggr_id=(select max(aggr_id) from view_aggregations)")
echo "database: $db ($(du -h "$db" | cut -f1)), $nk kernel instances"
if (( nk < 1000000 )); then
  echo "fewer than 1,000,000 kernel instances: use more iterations" >&2
  exit 1
fi
echo "machine: $(nproc) CPUs, $(uptime | sed 's/.*load average/load average/')"

mid=$((iters / 2))
names=(static performance_summary op_nodes_sorted iteration_kernels_sorted)
declare -A urls=(
  [static]="/js/api.js"
  [performance_summary]="/api/v1/performance_summary"
  [op_nodes_sorted]="/api/v1/op_nodes?sort=gpu_time&order=desc&limit=100&offset=20"
  [iteration_kernels_sorted]="/api/v1/iteration_kernels?iter_value=$mid&sort=kernel_duration&order=desc&limit=100"
)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# start_viewer LOG ARGS...: starts dlprofviewer, sets $pid and $base.
start_viewer() {
  local log=$1
  shift
  : >"$log" # emptied before the start: a late truncation by the child would
            # leave an earlier run's URL for the wait below to find
  "$build/server/dlprofviewer" --port 0 "$@" "$db" >>"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 300); do grep -q "running at" "$log" && break; sleep 0.1; done
  base=$(grep -o 'http://[^ ]*' "$log" | head -1)
  base=${base%/}
}

# run_wrk LABEL: wrk against every URL of $base; prints a table and ratios.
run_wrk() {
  local label=$1
  declare -A rps=()
  echo
  echo "== $label (server pid $pid, $base)"
  printf '%-26s %12s %10s %10s\n' endpoint "req/s" "p50" "p99"
  for name in "${names[@]}"; do
    local url="$base${urls[$name]}" out r p50 p99 errs code
    code=$(curl -s -o /dev/null -w '%{http_code}' "$url")
    [[ $code == 200 ]] || { echo "$name: HTTP $code for $url" >&2; exit 1; }
    out=$(wrk -t2 -c16 -d"${secs}s" --latency "$url")
    r=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
    p50=$(awk '$1=="50%" {print $2}' <<<"$out")
    p99=$(awk '$1=="99%" {print $2}' <<<"$out")
    errs=$(grep -E "Non-2xx|Socket errors" <<<"$out" || true)
    rps[$name]=$r
    printf '%-26s %12s %10s %10s %s\n' "$name" "$r" "$p50" "$p99" "$errs"
  done
  for name in "${names[@]:1}"; do
    awk -v a="${rps[$name]}" -v s="${rps[static]}" -v n="$name" \
      'BEGIN { printf "%-26s %.2f x the static asset'"'"'s throughput\n", n, a / s }'
  done
  echo "server peak RSS: $(awk '/VmHWM/ {printf "%.1f MB", $2/1024}' /proc/$pid/status)"
}

start_viewer "$build/bench/viewer-nocache.log" --cache-mb 0
run_wrk "without the answer cache (--cache-mb 0)"
echo -n "without the cache: "
node bench/dashboard_render.mjs "$base/" 5
kill "$pid"

start_viewer "$build/bench/viewer.log"
run_wrk "with the answer cache (default, 24 MB)"
echo -n "with the cache (first load fills it): "
node bench/dashboard_render.mjs "$base/" 5
echo "server peak RSS after page loads: $(awk '/VmHWM/ {printf "%.1f MB", $2/1024}' /proc/$pid/status)"
echo "machine after: $(uptime | sed 's/.*load average/load average/')"
