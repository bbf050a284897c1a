#!/usr/bin/env bash
# sqlite_floor.sh - what SQLite alone takes, in its own shell, to write the
# rows that a dldb of bench/nsys_gen's export holds (db/schema.sql, the
# writer's pragmas), with no import, no analysis and no binding: the floor
# under `dlprof --database` on one writer. docs/performance.md quotes it.
#
#   bench/sqlite_floor.sh [--packed] [KERNELS] [FILE]   (default 10000000, /tmp/floor.sqlite)
#
# --packed: the raw ranges and calls as blobs of 1000 records each (40 bytes
# a record, the size of the analysis's own records) instead of a row each,
# to weigh that option; the rest unchanged.
#
# Rows, scaled from nsys_gen's 10 M export (bench/nsys_import.sh): 1.074
# NVTX ranges a kernel, each with its own emit_nvtx text (about 100 bytes,
# `seq = N`), 1.003 API calls a kernel, the kernels, one aggr_kernels row a
# kernel, and the two NVTX statistics rows of a distinct text
# (aggr_nvtx_runs kinds 6 and 7). FLOOR_BY_OP=1 adds the index of
# aggr_kernels by op that older dldbs have.
# Needs a sqlite3 shell with generate_series (3.39 or later).
set -euo pipefail
cd "$(dirname "$0")/.."
packed=0
if [ "${1:-}" = --packed ]; then packed=1; shift; fi
n=${1:-10000000}
f=${2:-/tmp/floor.sqlite}
case $n in '' | *[!0-9]*) echo "sqlite_floor.sh: KERNELS must be a number: $n" >&2; exit 2 ;; esac
ranges=$((n * 1074 / 1000))
calls=$((n * 1003 / 1000))
by_op=''
if [ "${FLOOR_BY_OP:-0}" = 1 ]; then
  by_op='.print aggr_kernels_by_op
BEGIN;
CREATE INDEX aggr_kernels_by_op ON aggr_kernels(aggr_id, op_idx, iter_value);
COMMIT;'
fi
raw_rows() {
  if [ $packed = 1 ]; then
    cat <<SQL
CREATE TABLE packed_ranges (first_id INTEGER PRIMARY KEY, n INTEGER NOT NULL, records BLOB NOT NULL);
CREATE TABLE packed_calls (first_id INTEGER PRIMARY KEY, n INTEGER NOT NULL, records BLOB NOT NULL);
.print packed_ranges: $ranges in blobs of 1000
BEGIN;
INSERT INTO packed_ranges SELECT value, 1000, zeroblob(40000) FROM generate_series(1, $ranges, 1000);
COMMIT;
.print packed_calls: $calls in blobs of 1000
BEGIN;
INSERT INTO packed_calls SELECT value, 1000, zeroblob(40000) FROM generate_series(1, $calls, 1000);
COMMIT;
SQL
  else
    cat <<SQL
.print nvtx_ranges: $ranges
BEGIN;
INSERT INTO nvtx_ranges (id, kind, domain_id, name_id, start_ns, end_ns, pid, tid, end_tid, parent_id)
  SELECT value, 1, 0, value + 10, 1000 * value, 1000 * value + 700, 4242, 4243, 4243, NULL
  FROM generate_series(1, $ranges);
COMMIT;
.print cuda_api_calls: $calls
BEGIN;
INSERT INTO cuda_api_calls SELECT value, 0, 2, 1000 * value + 10, 1000 * value + 15, 4242, 4243, value, 0
  FROM generate_series(1, $calls);
COMMIT;
SQL
  fi
}
rm -f "$f"
{
  # The writer's pragmas (db/dldb_write.c); FLOOR_PRAGMAS replaces them.
  echo "${FLOOR_PRAGMAS:-PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA page_size=8192; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;}"
  cat db/schema.sql
  cat <<SQL
INSERT INTO strings VALUES (1, 'NVTX'), (2, 'cudaLaunchKernel'), (3, 'volta_sgemm_128x64_nn'), (4, 'void volta_sgemm_128x64_nn<float>(int)');
INSERT INTO domains VALUES (0, 1);
INSERT INTO aggregations VALUES (1, 0, 1, 1000, 1000, 'Optimizer.step#SGD.step', '', '', 0, 0, 0, 1, 1, 'v1');
.timer on
.print strings: $ranges distinct range texts
BEGIN;
INSERT INTO strings SELECT value + 10, 'CudnnConvolutionBackward0, seq = ' || value || ', op_id = ' || (2 * value)
  || ', sizes = [[64, 256, 56, 56], [64, 256, 1, 1]], input_op_ids = [' || (2 * value - 2) || ']'
  FROM generate_series(1, $ranges);
COMMIT;
$(raw_rows)
.print kernels: $n
BEGIN;
INSERT INTO kernels SELECT value, 3, 4, 0, 1, 7, 1000 * value + 20, 1000 * value + 620, value, 4242,
  128, 1, 1, 256, 1, 1, 64, 0, 0
  FROM generate_series(1, $n);
COMMIT;
.print aggr_kernels: $n
BEGIN;
INSERT INTO aggr_kernels SELECT 1, value / 1000, value, value % 997, 0, 1000 * value + 10, 5
  FROM generate_series(1, $n);
COMMIT;
$by_op
.print aggr_nvtx_runs: 2 x $ranges
BEGIN;
INSERT INTO aggr_nvtx_runs SELECT 1, 6, value, 2 * (value + 10), 1, 700, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL FROM generate_series(1, $ranges);
INSERT INTO aggr_nvtx_runs SELECT 1, 7, value, 2 * (value + 10), 1, 600, NULL, NULL, NULL, NULL,
  700, 1, 2, 0 FROM generate_series(1, $ranges);
COMMIT;
SQL
} | /usr/bin/time -f "sqlite_floor.sh: $n kernels: %e s wall, %U + %S s CPU, %M KB peak RSS" sqlite3 "$f"
ls -l "$f"
