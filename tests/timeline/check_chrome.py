#!/usr/bin/env python3
"""check_chrome.py TRACE.json - loads a Chrome trace with Python's json and
checks the Trace Event Format's fields of every event: complete events
("X": name, cat, numeric pid, tid, ts and dur >= 0) and metadata ("M":
process_name / thread_name with args.name). Prints {"kernels": N, "events":
M} (N: events of cat "kernel"); exits 1 naming the first bad event."""
import json
import sys

def main(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    assert isinstance(events, list), "traceEvents is not a list"
    kernels = 0
    for i, e in enumerate(events):
        where = f"event {i}: {json.dumps(e)[:200]}"
        assert e.get("ph") in ("X", "M"), where
        assert isinstance(e.get("pid"), int), where
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "thread_name"), where
            assert isinstance(e["args"]["name"], str), where
            continue
        assert isinstance(e.get("tid"), int) and isinstance(e.get("name"), str), where
        assert isinstance(e.get("cat"), str), where
        assert isinstance(e.get("ts"), (int, float)), where
        assert isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, where
        kernels += e["cat"] == "kernel"
    print(json.dumps({"kernels": kernels, "events": len(events)}))

if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except (AssertionError, KeyError, ValueError) as e:
        print(f"check_chrome: {sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(1)
