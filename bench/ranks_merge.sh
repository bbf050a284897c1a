#!/bin/sh
# ranks_merge.sh - the cluster recipe on one machine: a synthetic job
# (tests/ranks/ranks_gen.c), each rank's trace written, imported alone and
# removed, JOBS ranks at once (as each node of a cluster imports its own
# ranks), then the folder of per-rank dldbs merged by dlprof
# --database=DIR; wall time of the imports, wall time and peak RSS of the
# merge (summaries of every rank, raw records of three, the analysis and
# the commit), and the size of the traces and of the dldbs (figures in
# docs/performance.md "Ranks").
#
#   bench/ranks_merge.sh BUILD RANKS ITERS [KERNELS]
#
# BUILD holds cli/dlprof (a Release build). ITERS and KERNELS (compute
# kernels per iteration, default 1) set each rank's trace size: about
# 1.6 KB per iteration and 0.35 KB per kernel (200 iterations of 290
# kernels: 20 MB). JOBS (default 2) ranks at once; MERGE_OPTS: more options
# of the merge (--detail_ranks=all: every rank's raw records). The job is
# written to $BENCH_DIR (default /tmp/ranks-merge); only JOBS traces exist
# at a time.
#
# IMPORTED=N (16 or more): ranks 0 to N-1 imported, the others' dldbs made
# by bench/ranks_clone.sh from an imported ordinary rank of their local
# device (the generator's ranks other than the straggler and the skewed one
# differ only in their ids: the clone equals the import in every table but
# the aggregation's date), for a machine too loaded to import every rank;
# the imports' wall is then that of the N.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$1
RANKS=$2
ITERS=$3
DIR=${BENCH_DIR:-/tmp/ranks-merge}
JOBS=${JOBS:-2}
[ -x "$BUILD/cli/dlprof" ] || { echo "ranks_merge: $BUILD/cli/dlprof: not built" >&2; exit 1; }
KERNELS=${4:-1}
rm -rf "$DIR"
mkdir -p "$DIR/job" "$DIR/dldbs" "$DIR/out" "$DIR/merged"
cc -O2 -I"$ROOT/tests/ranks" "$ROOT/tests/ranks/ranks_gen.c" "$ROOT/tests/ranks/gen_main.c" \
  -o "$DIR/ranks_gen"
"$DIR/ranks_gen" "$DIR/job" "$RANKS" "$ITERS" "$KERNELS" 0
per_rank_mb=$(du -sm "$DIR/job/rank-0.pt.trace.json" | cut -f1)
rm -f "$DIR/job/rank-0.pt.trace.json"
# one rank: its trace written, imported into its own folder, the dldb into
# dldbs/, the trace gone
cat >"$DIR/one.sh" <<EOS
#!/bin/sh
set -e
"$DIR/ranks_gen" "$DIR/job" "$RANKS" "$ITERS" "$KERNELS" "\$1"
t="$DIR/job/rank-\$1.pt.trace.json"
mkdir -p "$DIR/out/\$1"
"$BUILD/cli/dlprof" --database="\$t" --output_path="$DIR/out/\$1" --force=true -v quiet >/dev/null
mv "$DIR/out/\$1/dlprof_dldb.sqlite" "$DIR/dldbs/rank-\$1.sqlite"
rm -rf "$DIR/out/\$1" "\$t"
EOS
chmod +x "$DIR/one.sh"
IMPORTED=${IMPORTED:-$RANKS}
[ "$IMPORTED" -ge 16 ] || [ "$IMPORTED" -ge "$RANKS" ] ||
  { echo "ranks_merge: IMPORTED=$IMPORTED: 16 or more" >&2; exit 1; }
t0=$(date +%s.%N)
seq 0 $((IMPORTED - 1)) | xargs -P "$JOBS" -n 1 "$DIR/one.sh"
t1=$(date +%s.%N)
r=$IMPORTED
while [ "$r" -lt "$RANKS" ]; do # ranks 3 and 5 of a device: the imported 11 and 13
  k=$((r % 8)) && s=$k && { [ $k != 3 ] && [ $k != 5 ] || s=$((8 + k)); }
  "$ROOT/bench/ranks_clone.sh" "$DIR/dldbs/rank-$s.sqlite" "$s" "$DIR/dldbs/rank-$r.sqlite" "$r"
  r=$((r + 1))
done
json_mb=$((per_rank_mb * RANKS))
dldb_mb=$(du -sm "$DIR/dldbs" | cut -f1)
# shellcheck disable=SC2086
/usr/bin/time -f '%e %M' -o "$DIR/time.merge" "$BUILD/cli/dlprof" --database="$DIR/dldbs" \
  --output_path="$DIR/merged" --force=true -v quiet ${MERGE_OPTS:-} >/dev/null
read -r wall kb <"$DIR/time.merge"
merged_mb=$(du -sm "$DIR/merged/dlprof_dldb.sqlite" | cut -f1)
echo "ranks  iters  kernels/iter  trace/rank(MB)  traces(MB)  imports wall(s, $IMPORTED ranks, $JOBS at once)  dldbs(MB)  merge wall(s)  merge peak RSS(MB)  merged dldb(MB)"
echo "$RANKS  $ITERS  $KERNELS  $per_rank_mb  $json_mb  $(echo "$t1 - $t0" | bc)  $dldb_mb  $wall  $((kb / 1024))  $merged_mb"
