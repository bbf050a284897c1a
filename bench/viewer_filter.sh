#!/usr/bin/env bash
# The viewer's name filter and name order on the NVTX statistics
# (view_dl_stats_nvtx and view_dl_stats_nvtx_gpu_proj: a row per distinct
# range text, 10.7 M rows in
# the dldb of bench/nsys_import.sh's 10 M export). Starts dlprofviewer on
# DLDB without its answer cache and prints the time of each request, in this
# order (a later request may reuse what an earlier one counted or read:
# that is what a user paging through a filter gets). The last requests: a
# deep page by name, a filter by name descending, a deep filtered page,
# filters with digits (a run at the end, inside, at the start, digits only,
# two runs; the names' digit runs answer them where the dldb has them, else
# they read every row), then sorts by a numeric column in each direction
# (those that no row order bounds read the zone maps, where the dldb has
# them). docs/performance.md quotes it.
# Usage: bench/viewer_filter.sh DLDB [BUILD_DIR]   (BUILD_DIR: build/release)
#   NO_BUILD=1 uses BUILD_DIR's dlprofviewer as it is (another tree's).
#   e.g. bench/nsys_import.sh 10000000 build/release &&
#        bench/viewer_filter.sh build/release/bench/nsys_out/dlprof_dldb.sqlite
set -euo pipefail
[[ $# -ge 1 && -f $1 ]] || { echo "usage: viewer_filter.sh DLDB [BUILD_DIR]" >&2; exit 1; }
db=$1
build=${2:-build/release}
cd "$(dirname "$0")/.."
[[ -n ${NO_BUILD:-} ]] || cmake --build "$build" -j"$(nproc)" --target dlprofviewer >/dev/null
log=$(mktemp)
"$build/server/dlprofviewer" --port 0 --cache-mb 0 "$db" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 600); do grep -q "running at" "$log" && break; sleep 0.1; done
base=$(grep -o 'http://[^ ]*' "$log" | head -1)
base=${base%/}
[[ -n $base ]] || { cat "$log" >&2; exit 1; }
echo "dldb: $db ($(du -h "$db" | cut -f1))"
printf '%9s  %-12s %s\n' seconds filtered request
for u in \
  "dl_stats_nvtx?limit=50" \
  "dl_stats_nvtx?limit=50&filter=conv" \
  "dl_stats_nvtx?limit=50&filter=conv&offset=50" \
  "dl_stats_nvtx?limit=50&filter=conv&offset=100" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=avg&order=desc" \
  "dl_stats_nvtx?limit=50&filter=xyzzy" \
  "dl_stats_nvtx_gpu_proj?limit=50&filter=relu" \
  "dl_stats_nvtx_gpu_proj?limit=50&filter=relu&offset=50" \
  "dl_stats_nvtx?limit=50&sort=name" \
  "dl_stats_nvtx?limit=50&sort=name&order=desc" \
  "dl_stats_nvtx_gpu_proj?limit=50&sort=name" \
  "dl_stats_nvtx?limit=50&sort=name&offset=5000000" \
  "dl_stats_nvtx?limit=50&filter=conv&sort=name&order=desc" \
  "dl_stats_nvtx?limit=50&filter=conv&offset=3000000" \
  "dl_stats_nvtx?limit=50&filter=seq%20%3D%2012345" \
  "dl_stats_nvtx?limit=50&filter=seq%20%3D%2012345%2C" \
  "dl_stats_nvtx?limit=50&filter=345%2C%20op_id" \
  "dl_stats_nvtx?limit=50&filter=12345" \
  "dl_stats_nvtx?limit=50&filter=12345&offset=100" \
  "dl_stats_nvtx?limit=50&filter=Backward0%2C%20seq%20%3D%2077" \
  "dl_stats_nvtx_gpu_proj?limit=50&filter=seq%20%3D%2012345&sort=name" \
  "dl_stats_nvtx?limit=50&filter=12345&sort=avg&order=desc" \
  "dl_stats_nvtx?limit=50&filter=Data&sort=name" \
  "dl_stats_nvtx?limit=50&filter=Data&sort=name&order=desc" \
  "dl_stats_nvtx?limit=50&filter=Data&sort=avg&order=desc" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=avg&order=desc&offset=5000" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=max&order=desc" \
  "dl_stats_nvtx?limit=50&filter=conv&sort=time_pct&order=desc" \
  "dl_stats_nvtx?limit=50&filter=conv&sort=time_pct&order=asc" \
  "dl_stats_nvtx?limit=50&sort=stddev&order=desc" \
  "dl_stats_nvtx_gpu_proj?limit=50&filter=relu&sort=proj_avg&order=desc" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=avg&order=asc" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=instances&order=desc" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=instances&order=asc" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=min&order=asc" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=max&order=asc" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=med&order=asc" \
  "dl_stats_nvtx?limit=50&filter=Conv&sort=avg&order=asc&offset=5000" \
  "dl_stats_nvtx?limit=50&filter=Data&sort=avg&order=asc" \
  "dl_stats_nvtx?limit=50&sort=stddev&order=asc" \
  "dl_stats_nvtx?limit=50&sort=instances&order=desc" \
  "dl_stats_nvtx_gpu_proj?limit=50&filter=relu&sort=proj_avg&order=asc" \
  "dl_stats_nvtx_gpu_proj?limit=50&sort=total_gpu_ops&order=desc" \
  "dl_stats_nvtx_gpu_proj?limit=50&filter=relu&sort=avg_num_child&order=asc"; do
  out=$(curl -s -w '\n%{http_code} %{time_total}' "$base/api/v1/$u")
  read -r code secs <<<"$(tail -n1 <<<"$out")"
  [[ $code == 200 ]] || { echo "HTTP $code for $u: $(head -c 300 <<<"$out")" >&2; exit 1; }
  filtered=$(head -n1 <<<"$out" | grep -o '"filtered":[0-9]*' | cut -d: -f2)
  printf '%9.2f  %-12s %s\n' "$secs" "$filtered" "$u"
done
