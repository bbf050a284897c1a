#!/usr/bin/env bash
# Peak RSS per phase of one dlprof run: VmRSS sampled every 0.25 s from
# /proc, phases from the progress lines of --verbosity=detailed (a phase
# runs until the next one starts). docs/performance.md quotes it.
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
  [[ -n $rss ]] && echo "$(stamp) R $rss"
  sleep 0.25
done >"$log/samples"
status=0
wait $pid || status=$?
sleep 0.5 # the last progress lines
if [[ $status -ne 0 ]]; then
  sed 's/^[0-9]* P //' "$log/phases" >&2
  exit "$status"
fi
sort -n -k1,1 "$log/samples" "$log/phases" | awk '
  function flush(t) {
    if (ph != "") printf "%-45s %8.1f s  max %8d KB\n", ph, (t - at) / 1000, mx
  }
  / P dlprof: ([^:]*: 0%|aggregating|writing [^ ]*$)/ {
    if ($0 ~ /memory copies|memsets/) next
    flush($1)
    ph = $0; sub(/.* P dlprof: /, "", ph); sub(/: 0%.*/, "", ph); at = $1; mx = 0
  }
  / R / { if ($3 + 0 > mx) mx = $3 + 0; if ($3 + 0 > peak) peak = $3 + 0; last = $1 }
  END { flush(last > at ? last : at); printf "peak %d KB (VmRSS samples)\n", peak }'
