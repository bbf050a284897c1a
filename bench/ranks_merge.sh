#!/bin/sh
# ranks_merge.sh - the cluster recipe on one machine: a synthetic job
# (tests/ranks/ranks_gen.c) imported one rank at a time, JOBS imports at
# once (as each node of a cluster imports its own ranks), then the folder of
# per-rank dldbs merged by dlprof --database=DIR; wall time of the imports,
# wall time and peak RSS of the merge (import, analysis, commit), and the
# size of the traces and of the dldbs (figures in docs/performance.md
# "Ranks").
#
#   bench/ranks_merge.sh BUILD RANKS ITERS
#
# BUILD holds cli/dlprof (a Release build). ITERS sets each rank's trace
# size (about 1.6 KB per iteration). JOBS (default 2) imports run at once;
# the job is written to $BENCH_DIR (default /tmp/ranks-merge) and its traces
# are removed once imported.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$1
RANKS=$2
ITERS=$3
DIR=${BENCH_DIR:-/tmp/ranks-merge}
JOBS=${JOBS:-2}
[ -x "$BUILD/cli/dlprof" ] || { echo "ranks_merge: $BUILD/cli/dlprof: not built" >&2; exit 1; }
rm -rf "$DIR"
mkdir -p "$DIR/job" "$DIR/dldbs" "$DIR/out" "$DIR/merged"
cc -O2 -I"$ROOT/tests/ranks" "$ROOT/tests/ranks/ranks_gen.c" "$ROOT/tests/ranks/gen_main.c" \
  -o "$DIR/ranks_gen"
"$DIR/ranks_gen" "$DIR/job" "$RANKS" "$ITERS"
json_mb=$(du -sm "$DIR/job" | cut -f1)
per_rank_mb=$(du -sm "$DIR/job/rank-0.pt.trace.json" | cut -f1)
# one rank: its trace into its own folder, the dldb into dldbs/, the trace gone
cat >"$DIR/one.sh" <<EOS
#!/bin/sh
set -e
r=\$(basename "\$1" .pt.trace.json)
mkdir -p "$DIR/out/\$r"
"$BUILD/cli/dlprof" --database="\$1" --output_path="$DIR/out/\$r" --force=true -v quiet >/dev/null
mv "$DIR/out/\$r/dlprof_dldb.sqlite" "$DIR/dldbs/\$r.sqlite"
rm -rf "$DIR/out/\$r" "\$1"
EOS
chmod +x "$DIR/one.sh"
t0=$(date +%s.%N)
ls "$DIR"/job/*.pt.trace.json | xargs -P "$JOBS" -n 1 "$DIR/one.sh"
t1=$(date +%s.%N)
dldb_mb=$(du -sm "$DIR/dldbs" | cut -f1)
/usr/bin/time -f '%e %M' -o "$DIR/time.merge" "$BUILD/cli/dlprof" --database="$DIR/dldbs" \
  --output_path="$DIR/merged" --force=true -v quiet >/dev/null
read -r wall kb <"$DIR/time.merge"
merged_mb=$(du -sm "$DIR/merged/dlprof_dldb.sqlite" | cut -f1)
echo "ranks  iters  trace/rank(MB)  traces(MB)  imports wall(s, $JOBS at once)  dldbs(MB)  merge wall(s)  merge peak RSS(MB)  merged dldb(MB)"
echo "$RANKS  $ITERS  $per_rank_mb  $json_mb  $(echo "$t1 - $t0" | bc)  $dldb_mb  $wall  $((kb / 1024))  $merged_mb"
