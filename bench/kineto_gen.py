#!/usr/bin/env python3
"""kineto_gen.py - a large PyTorch profiler (Kineto) trace for benchmarks.

Usage: kineto_gen.py BASE.json[.gz] COPIES OUT.json

Writes BASE's traceEvents COPIES times, each copy shifted in time by the
base's span and with fresh correlation and External ids, so the result is
one longer run of the same training loop (ProfilerStep#N renumbered).
Streams the output; the base is parsed once.
"""
import gzip
import json
import re
import sys


def main():
    base, copies, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    opener = gzip.open if base.endswith(".gz") else open
    with opener(base, "rt", encoding="utf-8", errors="replace") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    ts = [e["ts"] for e in events if isinstance(e, dict) and isinstance(e.get("ts"), (int, float))]
    t0, t1 = min(ts), max(e["ts"] + e.get("dur", 0) for e in events
                           if isinstance(e, dict) and isinstance(e.get("ts"), (int, float)))
    span = int(t1 - t0) + 1000
    max_corr = max((e.get("args", {}).get("correlation", 0) for e in events if isinstance(e, dict)), default=0) + 1
    max_ext = max((e.get("args", {}).get("External id", 0) for e in events if isinstance(e, dict)
                   and isinstance(e.get("args", {}).get("External id", 0), int)), default=0) + 1
    steps = sorted({int(m.group(1)) for e in events if isinstance(e, dict)
                    for m in [re.match(r"ProfilerStep#(\d+)$", str(e.get("name", "")))] if m})
    nsteps = len(steps) or 1
    with open(out, "w", encoding="utf-8") as o:
        o.write("{\n")
        for k, v in doc.items():
            if k != "traceEvents":
                o.write(json.dumps(k) + ": " + json.dumps(v) + ",\n")
        o.write('"traceEvents": [\n')
        first = True
        for c in range(copies):
            for e in events:
                if not isinstance(e, dict):
                    continue
                if c and e.get("ph") == "M":
                    continue
                e2 = dict(e)
                if isinstance(e2.get("ts"), (int, float)):
                    e2["ts"] = e2["ts"] + c * span
                a = e2.get("args")
                if c and isinstance(a, dict):
                    a = dict(a)
                    if isinstance(a.get("correlation"), int):
                        a["correlation"] += c * max_corr
                    if isinstance(a.get("External id"), int):
                        a["External id"] += c * max_ext
                    e2["args"] = a
                if c:
                    m = re.match(r"ProfilerStep#(\d+)$", str(e2.get("name", "")))
                    if m:
                        e2["name"] = "ProfilerStep#%d" % (int(m.group(1)) + c * nsteps)
                o.write(("" if first else ",\n") + json.dumps(e2, separators=(", ", ": ")))
                first = False
        o.write("\n]}\n")


if __name__ == "__main__":
    main()
