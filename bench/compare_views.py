#!/usr/bin/env python3
"""Compares two dldb files view by view: each view's rows (in the view's own
order) hashed, with the row counts. Used to check that a change of the
analysis or of the schema leaves every view's rows as they were
(docs/performance.md quotes its runs). view_aggregations and
view_system_config hold the run's start time and command line, so they
differ between any two runs.

Usage: bench/compare_views.py A.sqlite B.sqlite [VIEW ...]
Exit status 1 if a view differs or is missing from one file.
"""
import hashlib
import sqlite3
import sys


def views(db):
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")]


def digest(db, view):
    h, n = hashlib.md5(), 0
    for row in db.execute(f'SELECT * FROM "{view}"'):
        h.update(repr(row).encode())
        n += 1
    return h.hexdigest(), n


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    a = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    b = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
    only = set(sys.argv[3:])
    va, vb = views(a), views(b)
    differ = 0
    for v in sorted(set(va) | set(vb)):
        if only and v not in only:
            continue
        if v not in va or v not in vb:
            print(f"MISSING {v} (in {'B' if v in vb else 'A'} only)")
            differ = 1
            continue
        (ha, na), (hb, nb) = digest(a, v), digest(b, v)
        print(f"{'same' if ha == hb else 'DIFF'} {v} {na} {nb}")
        differ |= ha != hb
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
