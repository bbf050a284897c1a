#!/bin/sh
# ranks_clone.sh - the per-rank dldb of rank R of a synthetic job
# (tests/ranks/ranks_gen.c) made from the imported dldb of its rank S of
# the same local device (S % 8 == R % 8), both neither the straggler nor
# the skewed rank: such ranks' traces differ only in the rank (its
# distributedInfo, process id 1000 + rank and file name), so the copy with
# those rewritten equals the import of R in every table but the
# aggregation's date. Used by bench/ranks_merge.sh (IMPORTED=N).
#
#   bench/ranks_clone.sh SRC_DLDB S DST_DLDB R
set -eu
src=$1 s=$2 dst=$3 r=$4
cp "$src" "$dst.tmp"
sqlite3 "$dst.tmp" <<SQL
BEGIN;
UPDATE aggr_dl_collectives SET last_rank = $r WHERE last_rank = $s;
UPDATE aggr_dl_ranks SET rank = $r;
UPDATE dl_gpu_ranks SET rank = $r;
UPDATE dl_meta SET value = '$r' WHERE key = 'kineto_ranks';
UPDATE dl_meta SET value = replace(value, 'rank-$s.pt', 'rank-$r.pt') WHERE key = 'source';
UPDATE dl_timeline_tracks SET pid = 1000 + $r WHERE pid = 1000 + $s;
UPDATE gpus SET gpu_name = replace(gpu_name, 'rank $s,', 'rank $r,');
UPDATE nvtx_ranges SET pid = 1000 + $r WHERE pid = 1000 + $s;
UPDATE read_only_system_config
   SET original_command = replace(replace(original_command, 'rank-$s.pt', 'rank-$r.pt'),
                                  'out/$s ', 'out/$r ');
COMMIT;
SQL
mv "$dst.tmp" "$dst"
