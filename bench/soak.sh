#!/usr/bin/env bash
# Soak test of dlprofviewer: wrk for 60 s with 256 connections
# against a mix of endpoints (bench/soak.lua) on a generated dldb with over a
# million kernel instances, after a 15 s warm-up with the same mix. Passes
# when wrk reports no failed request (no socket error, no non-2xx answer),
# the server is still up and answers, and its RSS, sampled every second, is
# flat: the mean of the last 10 s within 10% of the mean of the first 10 s.
# Prints the figures and the machine's load; docs/reliability.md quotes them.
# Usage: bench/soak.sh [SECONDS] [CONNECTIONS]
# Environment: BUILD_DIR (default build/release), ITERS (default 2100),
# CACHE_MB (passed as --cache-mb when set).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
conns=${2:-256}
iters=${ITERS:-2100}
build=${BUILD_DIR:-build/release}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDL_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target dlprofviewer dlsample >/dev/null
mkdir -p "$build/bench"
db=$build/bench/viewer_${iters}x500.sqlite
[[ -f $db ]] || "$build/tools/dlsample" --iterations "$iters" --kernels-per-iter 500 --force "$db"
echo "database: $db ($(du -h "$db" | cut -f1))"
echo "machine: $(nproc) CPUs, $(uptime | sed 's/.*load average/load average/')"

log=$build/bench/soak-server.log
args=(--port 0)
[[ -n ${CACHE_MB:-} ]] && args+=(--cache-mb "$CACHE_MB")
: >"$log" # emptied before the start, so the wait finds this run's URL only
"$build/server/dlprofviewer" "${args[@]}" "$db" >>"$log" 2>&1 &
pid=$!
sampler=
trap 'kill $pid $sampler 2>/dev/null || true' EXIT
for _ in $(seq 300); do grep -q "running at" "$log" && break; sleep 0.1; done
base=$(grep -o 'http://[^ ]*' "$log" | head -1)
base=${base%/}
echo "server: $base (pid $pid, ${args[*]})"

export SOAK_ITERS=$iters
echo "warm-up: wrk -t2 -c$conns -d15s -s bench/soak.lua"
wrk -t2 -c"$conns" -d15s -s bench/soak.lua "$base" | grep -E "Requests/sec|Non-2xx|Socket errors" || true

rss=$build/bench/soak-rss.txt
: >"$rss"
(while kill -0 $pid 2>/dev/null; do
   awk '/VmRSS/ {print $2}' /proc/$pid/status >>"$rss"
   sleep 1
 done) &
sampler=$!
echo "run: wrk -t2 -c$conns -d${secs}s --latency -s bench/soak.lua $base"
out=$(wrk -t2 -c"$conns" -d"${secs}s" --latency -s bench/soak.lua "$base")
kill $sampler 2>/dev/null || true
echo "$out" | grep -E "Latency|Requests/sec|requests in|Non-2xx|Socket errors|  50%|  99%"

fail=0
if grep -qE "Non-2xx|Socket errors" <<<"$out"; then
  echo "FAIL: failed requests (above)"
  fail=1
fi
if ! kill -0 $pid 2>/dev/null; then
  echo "FAIL: the server died"; tail -5 "$log"; exit 1
fi
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/v1/health")
[[ $code == 200 ]] || { echo "FAIL: health answers $code after the run"; fail=1; }
n=$(wc -l <"$rss")
read -r first last peak < <(awk -v n="$n" '
  NR <= 10 { f += $1; nf++ } NR > n - 10 { l += $1; nl++ } $1 > p { p = $1 }
  END { printf "%.0f %.0f %.0f\n", f / nf, l / nl, p }' "$rss")
awk -v f="$first" -v l="$last" -v p="$peak" -v n="$n" 'BEGIN {
  d = (l - f) / f * 100
  printf "RSS (%d samples, 1 s apart): first 10 s %.1f MB, last 10 s %.1f MB (%+.1f%%), peak %.1f MB\n",
         n, f / 1024, l / 1024, d, p / 1024 }'
if ! awk -v f="$first" -v l="$last" 'BEGIN { d = (l - f) / f; exit !(d <= 0.10 && d >= -0.10) }'; then
  echo "FAIL: RSS not flat within 10%"
  fail=1
fi
kill -TERM $pid
wait $pid && echo "server exit: 0" || { echo "FAIL: server exit $?"; fail=1; }
echo "machine after: $(uptime | sed 's/.*load average/load average/')"
[[ $fail == 0 ]] && echo "PASS" || { echo "FAIL"; exit 1; }
