#!/usr/bin/env bash
# Does a list request cost more on a bigger profile? dlprofviewer without its
# answer cache (--cache-mb 0) serves a SMALL and a LARGE dldb (e.g. of 200 MB
# and 1 GB Kineto traces, bench/kineto_gen.py); every request of a fixed set
# is made on both, alternately, on viewers started afresh for each round:
#   - the big views (iteration_kernels, iteration_op_kernels, iteration_ops):
#     sorted by each column (in the direction the page sorts it first:
#     numbers descending, text ascending), filtered by a name that matches
#     and one that does not, a middle and the last page of the default order;
#     per iteration (what the Kernels by Iteration and Kernels by Op pages
#     ask: the middle iteration and its biggest op), per kernel name (the
#     Statistics page's launches of a kernel) and over the whole aggregation;
#   - op_nodes, kernel_summaries, group_ops sorted, filtered and paged;
#     group_ops both as one list and as the Group Ops page asks for it: the
#     top rows of its tree (top=1; a group's children are parent=NAME).
# "first": the request's first answer in that viewer (nothing of it counted
# or cached yet; the round's earlier requests may have read the same pages);
# "again": the same request at once again. Medians over the rounds; the
# ratio LARGE / SMALL of the first answers' medians, and the requests over
# 2x. docs/performance.md quotes it.
# Usage: bench/viewer_scale.sh BUILD_DIR SMALL.sqlite LARGE.sqlite [ROUNDS] [MATCH]
#   BUILD_DIR holds server/dlprofviewer (Release); ROUNDS: 3; MATCH: the
#   filter that matches (default "gemm"). VIEWS=a,b (environment): only
#   those endpoints' requests; ONLY=REGEX: only the requests whose name
#   (as printed) it finds.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: bench/viewer_scale.sh BUILD_DIR SMALL LARGE [ROUNDS] [MATCH]}
small=${2:?small dldb}
large=${3:?large dldb}
rounds=${4:-3}
match=${5:-gemm}
viewer=$build/server/dlprofviewer
[[ -x $viewer ]] || { echo "no $viewer: build dlprofviewer in $build first" >&2; exit 1; }
echo "small: $small ($(du -h "$small" | cut -f1)), large: $large ($(du -h "$large" | cut -f1))"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uptime | sed 's/.*load average/load average/')"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- server db || echo ' (with local changes)')"
python3 - "$viewer" "$small" "$large" "$rounds" "$match" <<'EOF'
import http.client, json, os, statistics, subprocess, sys, time, urllib.parse

viewer, small, large, rounds, match = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]

def start(db):
    p = subprocess.Popen([viewer, "--port", "0", "--cache-mb", "0", db], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    port = int(line.rsplit(":", 1)[1].strip().strip("/"))
    while True:  # the URL line comes before the database is open and checked
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port)
            conn.request("GET", "/api/v1/health")
            conn.getresponse().read()
            conn.close()
            return p, port
        except OSError:
            time.sleep(0.01)

def get(port, path):
    """One request on a connection of its own (the server closes idle ones
    while the other viewer answers); the time includes the connect."""
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("GET", "/api/v1/" + path)
    r = conn.getresponse()
    body = r.read()
    dt = time.perf_counter() - t0
    conn.close()
    if r.status != 200:
        raise SystemExit(f"{path}: HTTP {r.status} {body[:300]!r}")
    return json.loads(body), dt

def numeric(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)

def requests_for(conn):
    """The requests, with the values each database gives them (its middle
    iteration, that iteration's biggest op, its most launched kernel)."""
    its, _ = get(conn, "iterations_profiled?limit=1000&sort=iter_value&order=asc")
    mid = its["rows"][len(its["rows"]) // 2]["iter_value"]
    op, _ = get(conn, f"iteration_ops?iter_value={mid}&sort=total_count&order=desc&limit=1")
    op = op["rows"][0]["op_node_id"]
    kn, _ = get(conn, "kernel_summaries?sort=calls&order=desc&limit=1")
    kn = kn["rows"][0]["kernel_name"]
    scopes = {
        "iteration_kernels": [("iter", {"iter_value": mid}), ("name", {"kernel_name": kn}), ("all", {})],
        "iteration_op_kernels": [("iter+op", {"iter_value": mid, "op_node_id": op}), ("all", {})],
        "iteration_ops": [("iter", {"iter_value": mid}), ("all", {})],
        "op_nodes": [("all", {})],
        "kernel_summaries": [("all", {})],
        "group_ops": [("all", {}), ("top", {"top": 1})],
    }
    only = [v for v in os.environ.get("VIEWS", "").split(",") if v]
    if only:
        scopes = {v: ss for v, ss in scopes.items() if v in only}
    out = []
    for view, ss in scopes.items():
        for label, eq in ss:
            base = dict(eq, limit=100)
            first, _ = get(conn, view + "?" + urllib.parse.urlencode(dict(base, limit=1)))
            row = first["rows"][0] if first["rows"] else {}
            for col, v in row.items():
                if col in ("aggr_id", "domain_name") or col in eq:
                    continue
                out.append((f"{view} [{label}] sort={col}",
                            dict(base, sort=col, order="desc" if numeric(v) else "asc")))
            for f in (match, "xyzzy"):
                out.append((f"{view} [{label}] filter={f}", dict(base, filter=f)))
            n = first["filtered"]
            out.append((f"{view} [{label}] middle page", dict(base, offset=max(0, n // 2))))
            out.append((f"{view} [{label}] last page", dict(base, offset=max(0, n - 100))))
    return out

# The requests are named by what they ask; their values come from each database.
names, params = {}, {}
for key, db in (("small", small), ("large", large)):
    p, conn = start(db)
    reqs = requests_for(conn)
    p.terminate(); p.wait()
    params[key] = [urllib.parse.urlencode(q) for _, q in reqs]
    names[key] = [n for n, _ in reqs]
    view_of = [n.split(" ")[0] for n, _ in reqs]
common = [n for n in names["small"] if n in set(names["large"])]
if os.environ.get("ONLY"):
    import re
    common = [n for n in common if re.search(os.environ["ONLY"], n)]
idx = {k: {n: i for i, n in enumerate(names[k])} for k in names}
view = {n: n.split(" ")[0] for n in common}

first = {k: {n: [] for n in common} for k in names}
again = {k: {n: [] for n in common} for k in names}
start_s = {k: [] for k in names}
for rnd in range(rounds):
    order = ("small", "large") if rnd % 2 == 0 else ("large", "small")
    vs = {}
    for k in order:
        t0 = time.perf_counter()
        vs[k] = start(small if k == "small" else large)
        start_s[k].append(time.perf_counter() - t0)
    for n in common:
        for k in order:
            conn = vs[k][1]
            path = view[n] + "?" + params[k][idx[k][n]]
            first[k][n].append(get(conn, path)[1])
            again[k][n].append(get(conn, path)[1])
    for k in order:
        vs[k][0].terminate(); vs[k][0].wait()

med = statistics.median
ms = lambda s: f"{s * 1000:8.1f}"
print(f"rounds: {rounds} (small and large alternated, fresh viewers each round)")
print(f"start to first answer: small {ms(med(start_s['small']))} ms, large {ms(med(start_s['large']))} ms")
print(f"{'request (/api/v1/...)':58s} {'small first':>11s} {'large first':>11s} {'ratio':>6s} {'small again':>11s} {'large again':>11s}")
over, worst_large = [], 0.0
for n in common:
    s, l = med(first["small"][n]), med(first["large"][n])
    r = l / s if s > 0 else float("inf")
    worst_large = max(worst_large, l)
    flag = "  OVER 2x" if r > 2 else ""
    if r > 2:
        over.append(n)
    print(f"{n[:58]:58s} {ms(s):>11s} {ms(l):>11s} {r:6.2f} {ms(med(again['small'][n])):>11s} {ms(med(again['large'][n])):>11s}{flag}")
print(f"{len(common)} requests, {len(over)} over 2x on the large one; the slowest first answer on the large one: {worst_large * 1000:.1f} ms")
for n in over:
    print(f"  over 2x: {n}")
EOF
