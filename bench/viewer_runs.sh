#!/usr/bin/env bash
# Many runs on one port (dlprofviewer DIR). In a folder of N copies of one
# dldb (NVIDIA's no_relu from ../shared unless DB is given) it measures:
#   - start: from exec to the "running at" line, and to the first answer of
#     /api/v1/health (the server serving), five times each;
#   - the first /api/v1/runs (it opens every run once for its columns) and
#     a second one (a stat per folder and per file);
#   - each run's dashboard: the endpoints the page asks for when it opens a
#     run's dashboard, in order, for every run of the folder in turn: first
#     (cold: the run's answers not cached, its handles closed by the runs
#     used since) and at once again (warm: a reload of the page); against
#     the same on a viewer serving that one database alone, started afresh
#     for each of 10 loads, so that its first load is cold too. ROUNDS
#     rounds, each a fresh folder viewer and 10 fresh single ones, which
#     goes first alternating; each round's medians give a ratio, and the
#     ratio quoted is the median of the rounds'.
# Prints the figures, the machine and the commit; docs/performance.md
# quotes them with this command.
# Usage: bench/viewer_runs.sh BUILD_DIR [N] [DB] [ROUNDS]   (ROUNDS: 5)
#   BUILD_DIR holds server/dlprofviewer (Release: cmake -S . -B build/rel
#   -DCMAKE_BUILD_TYPE=Release -DDL_TESTS=OFF && cmake --build build/rel
#   --target dlprofviewer).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: bench/viewer_runs.sh BUILD_DIR [N] [DB] [ROUNDS]}
n=${2:-100}
db=${3:-../shared/traces/dlprof/no_relu/dlprof_dldb.sqlite}
rounds=${4:-5}
viewer=$build/server/dlprofviewer
[[ -x $viewer ]] || { echo "no $viewer: build dlprofviewer in $build first" >&2; exit 1; }
[[ -f $db ]] || { echo "no database $db" >&2; exit 1; }
work=$(mktemp -d /tmp/viewer_runs.XXXXXX)
trap 'rm -rf "$work"' EXIT
for i in $(seq -w 1 "$n"); do cp "$db" "$work/run_$i.sqlite"; done
echo "folder: $n copies of $db ($(du -sh "$work" | cut -f1))"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uptime | sed 's/.*load average/load average/')"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- server web || echo ' (with local changes)')"
python3 - "$viewer" "$work" "$db" "$rounds" <<'EOF'
import http.client, json, os, statistics, subprocess, sys, time

viewer, folder, single = sys.argv[1:4]
rounds = int(sys.argv[4])

# What the page asks for when it opens a run's dashboard (web/js/app.js,
# web/js/views/dashboard.js), in order.
DASHBOARD = ["info", "version", "system_config", "reports", "gpu_names?limit=1000",
             "iterations_all?limit=1000", "iterations_profiled?limit=1000", "performance_summary",
             "domain_model_gpu_utilization", "resource_usage_breakdown", "kernel_summary",
             "tc_utilization", "op_summary", "op_nodes?sort=gpu_time&order=desc&limit=10",
             "expert_systems?limit=1000"]

def start(args):
    t0 = time.perf_counter()
    p = subprocess.Popen([viewer, "--port", "0", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    t_line = time.perf_counter() - t0
    port = int(line.rsplit(":", 1)[1].strip().strip("/"))
    conn = http.client.HTTPConnection("127.0.0.1", port)
    while True:
        try:
            conn.request("GET", "/api/v1/health")
            r = conn.getresponse()
            r.read()
            break
        except OSError:
            conn = http.client.HTTPConnection("127.0.0.1", port)
    return p, conn, t_line, time.perf_counter() - t0

def get(conn, path):
    conn.request("GET", "/api/v1/" + path)
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        raise SystemExit(f"{path}: HTTP {r.status} {body[:200]!r}")
    return body

def dashboard(conn, run):
    t0 = time.perf_counter()
    for ep in DASHBOARD:
        sep = "&" if "?" in ep else "?"
        get(conn, ep + (f"{sep}run={run}" if run else ""))
    return time.perf_counter() - t0

def stop(p):
    p.terminate()
    p.wait()

ms = lambda s: f"{s * 1000:.1f} ms"
def summary(xs):
    return f"median {ms(statistics.median(xs))}, best {ms(min(xs))}, worst {ms(max(xs))}"

lines, health = [], []
for _ in range(5):
    p, conn, a, b = start([folder])
    lines.append(a)
    health.append(b)
    stop(p)
print(f"start, folder of {len(os.listdir(folder))} dldbs: URL line {summary(lines)}; health answered {summary(health)}")

p, conn, _, _ = start([folder])
t0 = time.perf_counter()
runs = json.loads(get(conn, "runs"))["rows"]
t_first = time.perf_counter() - t0
t0 = time.perf_counter()
get(conn, "runs")
t_again = time.perf_counter() - t0
stop(p)
print(f"/api/v1/runs: first {ms(t_first)} ({len(runs)} rows, each file opened once), again {ms(t_again)}")

def folder_round():
    """Every run of a fresh folder viewer, cold then warm: the medians."""
    p, conn, _, _ = start([folder])
    cold, warm = [], []
    for r in runs:
        cold.append(dashboard(conn, r["run"]))
        warm.append(dashboard(conn, r["run"]))
    stop(p)
    return statistics.median(cold), statistics.median(warm)

def alone_round():
    """The one database on 10 fresh viewers, cold then warm: the medians."""
    cold, warm = [], []
    for _ in range(10):
        p, conn, _, _ = start([single])
        cold.append(dashboard(conn, None))
        warm.append(dashboard(conn, None))
        stop(p)
    return statistics.median(cold), statistics.median(warm)

# Rounds alternate which side goes first, so that the machine's load moves
# both alike; each round gives a ratio, and the figures are their medians.
fc, fw, ac, aw, rc, rw = [], [], [], [], [], []
for k in range(rounds):
    sides = (folder_round, alone_round) if k % 2 == 0 else (alone_round, folder_round)
    res = {f: f() for f in sides}
    (c1, w1), (c2, w2) = res[folder_round], res[alone_round]
    fc.append(c1); fw.append(w1); ac.append(c2); aw.append(w2)
    rc.append(c1 / c2); rw.append(w1 / w2)
    print(f"round {k + 1}: folder cold {ms(c1)}, alone cold {ms(c2)} ({c1 / c2:.2f}); "
          f"folder warm {ms(w1)}, alone warm {ms(w2)} ({w1 / w2:.2f})")
print(f"dashboard endpoints ({len(DASHBOARD)} requests), medians of {rounds} rounds:")
print(f"  a run of the folder, cold: {summary(fc)}; one database alone, cold: {summary(ac)}")
print(f"  a run of the folder, warm: {summary(fw)}; one database alone, warm: {summary(aw)}")
print(f"folder / alone (median of the rounds' ratios): cold {statistics.median(rc):.2f} "
      f"(from {min(rc):.2f} to {max(rc):.2f}), warm {statistics.median(rw):.2f} "
      f"(from {min(rw):.2f} to {max(rw):.2f})")
ok = statistics.median(health) < 2.0
print(f"start under 2 s: {'yes' if ok else 'NO'}")
sys.exit(0 if ok else 1)
EOF
