#!/usr/bin/env bash
# The structure rules of docs/contributing.md, measured by
# scripts/structure.py: first on a fixture with one planted circle of three
# files, a member and a prototype that are no uses, a 153-line function and
# a long function under tests/ (not measured), which must be reported
# exactly so; then on the source tree, which must have no circle of three
# or more files and no function over 150 lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
script=$root/scripts/structure.py
command -v ctags >/dev/null || { echo "structure: ctags (Universal Ctags) not found"; exit 1; }

set +e
got=$(python3 "$script" "$here/fixture")
rc=$?
set -e
want='circle of 3: lib/a.c, lib/b.c, lib/c.c
  lib/a.c -> lib/b.c: b_step
  lib/b.c -> lib/c.c: c_leaf
  lib/c.c -> lib/a.c: a_run
long function: lib/long.c:3 long_fn: 153 lines
structure: 10 files, 4 dependencies, 1 circles of 3 or more, 1 functions over 150 lines (longest 153)'
if [[ $rc -ne 1 || $got != "$want" ]]; then
  echo "structure: the fixture was measured wrongly (exit $rc):"
  diff <(echo "$want") <(echo "$got") || true
  exit 1
fi
echo "structure: fixture measured as planted"
python3 "$script" "$root"
