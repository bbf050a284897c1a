#!/usr/bin/env bash
# common/dl_sqlpage.c's scan of a generated Nsight Systems export of
# KERNELS kernels (bench/sqlpage_scan.c), warm: best of 3 a table.
# Usage: bench/sqlpage_scan.sh [KERNELS] [BUILD_DIR]
#   SCAN_SRC: another dl_sqlpage.c to build it with (e.g. a base commit's,
#   from `git show REV:common/dl_sqlpage.c > /tmp/base.c`), to compare.
set -euo pipefail
cd "$(dirname "$0")/.."
kernels=${1:-10000000}
build=${2:-build/release}
mkdir -p "$build/bench"
export_db=$build/bench/nsys_${kernels}.sqlite
if [[ ! -f $export_db ]]; then
  cc -O2 -Wall -Wextra -o "$build/bench/nsys_gen" bench/nsys_gen.c -lsqlite3
  "$build/bench/nsys_gen" --kernels "$kernels" "$export_db"
fi
cc -O2 -Wall -Wextra -Icommon -o "$build/bench/sqlpage_scan" bench/sqlpage_scan.c \
  "${SCAN_SRC:-common/dl_sqlpage.c}" common/dl.c -lsqlite3
cat "$export_db" >/dev/null # the page cache warm
"$build/bench/sqlpage_scan" "$export_db"
