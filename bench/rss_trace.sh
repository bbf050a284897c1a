#!/usr/bin/env bash
# Peak RSS and CPU per phase of one dlprof run: VmRSS and the process's
# CPU time (utime + stime, all threads) sampled every 0.25 s from /proc,
# phases from the progress lines of --verbosity=detailed (a phase runs
# until the next one starts). "cores" is the phase's CPU seconds over its
# wall seconds: 1.0 means one core busy. docs/performance.md quotes it.
# Usage: bench/rss_trace.sh DLPROF [DLPROF ARGS...]
#   e.g. bench/rss_trace.sh build/release/cli/dlprof \
#          --database=build/release/bench/nsys_10000000.sqlite \
#          --output_path=/tmp/rss --key_op="Optimizer.step#SGD.step"
set -euo pipefail
[[ $# -ge 1 && -x $1 ]] || { echo "usage: rss_trace.sh DLPROF [ARGS...]" >&2; exit 1; }
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
start=$(date +%s%N)
stamp() { echo $((($(date +%s%N) - start) / 1000000)); } # ms since the start
"$@" --verbosity=detailed 2> >(while IFS= read -r line; do echo "$(stamp) P $line"; done \
  >"$log/phases") >/dev/null &
pid=$!
while kill -0 $pid 2>/dev/null; do
  rss=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status 2>/dev/null || true)
  # utime and stime are fields 14 and 15 of /proc/PID/stat, after the
  # command name in parentheses (which may hold spaces)
  cpu=$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null | awk '{ print $12 + $13 }' || true)
  [[ -n $rss && -n $cpu ]] && echo "$(stamp) R $rss $cpu"
  sleep 0.25
done >"$log/samples"
status=0
wait $pid || status=$?
sleep 0.5 # the last progress lines
if [[ $status -ne 0 ]]; then
  sed 's/^[0-9]* P //' "$log/phases" >&2
  exit "$status"
fi
hz=$(getconf CLK_TCK)
sort -n -k1,1 "$log/samples" "$log/phases" | awk -v hz="$hz" '
  function flush(t) {
    if (ph == "") return
    wall = (t - at) / 1000
    printf "%-45s %8.1f s  max %8d KB  %5.2f cores\n", ph, wall, mx,
      (wall > 0 ? (cpu - cpu_at) / hz / wall : 0)
  }
  / P dlprof: ([^:]*: 0%|aggregating|writing [^ ]*$)/ {
    if ($0 ~ /memory copies|memsets/) next
    flush($1)
    ph = $0; sub(/.* P dlprof: /, "", ph); sub(/: 0%.*/, "", ph); at = $1; mx = 0; cpu_at = cpu
  }
  / R / {
    if ($3 + 0 > mx) mx = $3 + 0
    if ($3 + 0 > peak) peak = $3 + 0
    last = $1; cpu = $4 + 0
  }
  END { flush(last > at ? last : at); printf "peak %d KB (VmRSS samples)\n", peak }'
