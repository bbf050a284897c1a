#!/usr/bin/env bash
# timeline.sh - latency of the timeline's endpoints on one dldb.
#
# Usage: bench/timeline.sh BUILD DLDB [N]
# BUILD holds server/dlprofviewer (Release); DLDB a dldb with the timeline
# views (a big one: bench/nsys_gen.c's export through dlprof). Serves DLDB
# with the answer cache off, then times with curl, N times each (default 20):
# the tracks list (first page); for every track the whole profile, a tenth
# of it and a 1/1000th of it at width 1500; and the details and links of
# the first kernel of each GPU stream's thousandth (dl_timeline_event).
# Prints p50, p99 and max per kind of request (ms) and the machine.
set -euo pipefail
build=${1:?usage: bench/timeline.sh BUILD DLDB [N]}
db=${2:?usage: bench/timeline.sh BUILD DLDB [N]}
n=${3:-20}
viewer=$build/server/dlprofviewer
out=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$out"' EXIT
"$viewer" --port 0 --cache-mb 0 "$db" > "$out/log" 2>&1 &
pid=$!
for _ in $(seq 1200); do grep -q "running at" "$out/log" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^dlprofviewer running at \(http:[^ ]*\)$/\1/p' "$out/log" | head -1)
url=${url%/}
t() { curl -s -o /dev/null -w '%{time_total}\n' "$url$1"; }
curl -s "$url/api/v1/dl_timeline_tracks?limit=1000" > "$out/tracks.json"
for _ in $(seq "$n"); do t "/api/v1/dl_timeline_tracks" >> "$out/list"; done
python3 - "$out/tracks.json" > "$out/windows" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
lo = min(r["first_start"] for r in rows); hi = max(r["last_end"] for r in rows)
for r in rows:
    span = hi - lo
    for name, s, e in (("whole", lo, hi + 1), ("tenth", lo + span // 2, lo + span // 2 + span // 10),
                       ("thousandth", lo + span // 2, lo + span // 2 + span // 1000)):
        print(name, r["kind"], f"/api/v1/dl_timeline?track_id={r['track_id']}&start={s}&end={e}&width=1500")
    s = lo + span // 2
    print("probe", r["kind"], f"/api/v1/dl_timeline?track_id={r['track_id']}&start={s}&end={s + span // 100000 + 1}&width=10000")
PY
while read -r kind tk path; do
  [[ $kind == probe && $tk == gpu_stream ]] || continue
  id=$(curl -s "$url$path" | python3 -c 'import json,sys; e=[x for x in json.load(sys.stdin).get("events", []) if x["category"] == "kernel"]; print(e[0]["event_id"] if e else "")')
  [[ -n $id ]] && echo "event kernel /api/v1/dl_timeline_event?category=kernel&event_id=$id" >> "$out/windows"
done < <(cat "$out/windows")
grep -v '^probe ' "$out/windows" > "$out/timed" || true
mv "$out/timed" "$out/windows"
while read -r kind tk path; do
  for _ in $(seq "$n"); do t "$path" >> "$out/w_${kind}_$tk"; done
done < "$out/windows"
python3 - "$out" <<'PY'
import glob, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "list")) + glob.glob(os.path.join(sys.argv[1], "w_*"))):
    v = sorted(float(x) * 1000 for x in open(f))
    p = lambda q: v[min(len(v) - 1, int(q * len(v)))]
    print(f"{os.path.basename(f):24s} n={len(v):4d} p50={p(0.5):8.1f} ms p99={p(0.99):8.1f} ms max={v[-1]:8.1f} ms")
PY
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
