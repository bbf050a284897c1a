#!/usr/bin/env bash
# seed_corpus.sh HARNESS DIR [SHARED_DIR] - fills DIR with a seed corpus for
# one harness (kineto, nsys, dldb, params; kjson and kevents get kineto's
# plain JSON, nsysscan and dldbread nsys's and dldb's seeds and also their
# SQL text, which those harnesses build themselves): the small hand-written seeds of
# fuzz/seeds/ (SQL text is built into SQLite files here) and, when
# SHARED_DIR/traces exists, reduced copies of the real traces (decompressed
# and cut to 64 KiB for JSON; SQLite files trimmed to a few rows per table,
# page size 1024, vacuumed), and for dldb one written by $DL_FUZZ_DLPROF
# when set. Nothing is written into the repository.
set -euo pipefail
h=$1 dir=$2 shared=${3:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
src=$(cd "$(dirname "$0")" && pwd)
traces=$shared/traces
mkdir -p "$dir"

# SQL text -> SQLite file (small pages so that mutations hit structure).
sql_seed() { # SQL_FILE OUT
  rm -f "$2"
  { echo "PRAGMA page_size=1024;"; cat "$1"; } | sqlite3 -batch "$2" >/dev/null 2>&1 || rm -f "$2"
}

# A copy of an SQLite file with at most N rows per table, vacuumed.
trim_seed() { # DB OUT ROWS
  rm -f "$2"
  cp "$1" "$2"; chmod u+w "$2"
  local t
  for t in $(sqlite3 -batch "$2" "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"); do
    sqlite3 -batch "$2" "DELETE FROM \"$t\" WHERE rowid NOT IN (SELECT rowid FROM \"$t\" ORDER BY rowid LIMIT $3)" 2>/dev/null || true
  done
  sqlite3 -batch "$2" "PRAGMA journal_mode=DELETE; PRAGMA page_size=1024; VACUUM;" >/dev/null
}

case $h in
kjson|kevents) # the Kineto seeds, plain JSON only (these read no gzip)
  "$0" kineto "$dir" "$shared"
  rm -f "$dir"/*.gz ;;
nsysscan) # the Nsight seeds, and their SQL text (fuzz_sql.h builds it)
  "$0" nsys "$dir" "$shared"
  cp "$src"/seeds/nsys/*.sql "$dir"/ ;;
dldbread) # the dldb seeds, and their SQL text
  DL_FUZZ_DLPROF=${DL_FUZZ_DLPROF:-} "$0" dldb "$dir" "$shared"
  cp "$src/../tests/server/mini.dldb.sql" "$dir"/ ;;
kineto)
  cp "$src"/seeds/kineto/*.json "$dir"/
  if [[ -d $traces/kineto ]]; then
    while IFS= read -r f; do
      b=$(basename "$f"); b=${b%.gz}
      if [[ $f == *.gz ]]; then gzip -dc "$f"; else cat "$f"; fi | head -c 65536 >"$dir/shared_$b" || true
    done < <(find "$traces/kineto" -name '*.json' -o -name '*.json.gz' | sort)
    # one whole small trace, gzip as it is (the importer reads gzip too)
    cp "$traces/kineto/hta/triton_example_triton_example.json.gz" "$dir/shared_triton.json.gz" 2>/dev/null || true
  fi ;;
nsys)
  for f in "$src"/seeds/nsys/*.sql; do sql_seed "$f" "$dir/$(basename "${f%.sql}").sqlite"; done
  if [[ -d $traces/nsys ]]; then
    for f in "$traces"/nsys/*.sqlite "$traces"/dlprof/w_Relu/nsys_profile.sqlite; do
      [[ -f $f ]] && trim_seed "$f" "$dir/shared_$(basename "$f")" 25
    done
  fi ;;
dldb)
  sql_seed "$src/../tests/server/mini.dldb.sql" "$dir/mini_dldb.sqlite"
  # a dldb of ours, written by dlprof ($DL_FUZZ_DLPROF) from the small export
  if [[ -x ${DL_FUZZ_DLPROF:-} ]]; then
    tmp=$(mktemp -d)
    sql_seed "$src/seeds/nsys/small_export.sql" "$tmp/export.sqlite"
    if ASAN_OPTIONS=detect_leaks=0 "$DL_FUZZ_DLPROF" --database="$tmp/export.sqlite" \
         --output_path="$tmp" --key_op=aten::mm --verbosity=quiet; then
      trim_seed "$tmp/dlprof_dldb.sqlite" "$dir/ours_dldb.sqlite" 1000000
    fi
    rm -rf "$tmp"
  fi
  for f in "$src"/seeds/dldb/*.sql; do [[ -f $f ]] && sql_seed "$f" "$dir/$(basename "${f%.sql}").sqlite"; done
  if [[ -d $traces/dlprof ]]; then
    for f in "$traces"/dlprof/*/dlprof_dldb*.sqlite; do
      [[ -f $f ]] && trim_seed "$f" "$dir/shared_$(basename "$(dirname "$f")").sqlite" 12
    done
  fi ;;
params)
  cp "$src"/seeds/params/* "$dir"/ ;;
*) echo "seed_corpus.sh: unknown harness '$h' (kineto, nsys, dldb, params, kjson, kevents, nsysscan, dldbread)" >&2; exit 2 ;;
esac
