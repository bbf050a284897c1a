#!/usr/bin/env bash
# run.sh HARNESS SECONDS BUILD_DIR [SHARED_DIR] - runs one libFuzzer harness
# (kineto, nsys, dldb, params, kjson, kevents, nsysscan, dldbread) of a
# DL_FUZZ=ON build for SECONDS, on one core, niced. The corpus lives in BUILD_DIR/fuzz/corpus/HARNESS (seeded by
# seed_corpus.sh on first use, then grown by the fuzzer) and crashes go to
# BUILD_DIR/fuzz/crashes/HARNESS/. Prints libFuzzer's last status line and
# "fuzz HARNESS: N runs in S s, R runs/s, C crashes, corpus K inputs"
# (exit 0 when C is 0; else exit 1, with the report on stderr).
set -euo pipefail
h=$1 secs=$2 build=$3 shared=${4:-}
src=$(cd "$(dirname "$0")" && pwd)
bin=$build/fuzz/fuzz_$h
[[ -x $bin ]] || { echo "run.sh: $bin is not built (cmake --build $build --target fuzz_all)" >&2; exit 2; }
corpus=$build/fuzz/corpus/$h crashes=$build/fuzz/crashes/$h log=$build/fuzz/$h.log
mkdir -p "$crashes"
if [[ ! -d $corpus ]] || [[ -z $(ls -A "$corpus") ]]; then
  DL_FUZZ_DLPROF=$build/cli/dlprof "$src/seed_corpus.sh" "$h" "$corpus" ${shared:+"$shared"}
fi
# the parser harnesses get short inputs (many a second); the end-to-end ones
# whole small traces
case $h in
  kineto) opts=(-max_len=65536 -dict="$src/kineto.dict") ;;
  kjson) opts=(-max_len=8192 -dict="$src/kineto.dict") ;;
  kevents) opts=(-max_len=16384 -dict="$src/kineto.dict") ;;
  nsys|dldb) opts=(-max_len=262144) ;;
  nsysscan|dldbread) opts=(-max_len=262144 -dict="$src/sqlite.dict") ;;
  params) opts=(-max_len=4096) ;;
esac
# leaks are checked at exit of each input by LeakSanitizer (detect_leaks=1)
touch "$log.start" # crash inputs newer than this are this run's
set +e
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  nice -n 19 "$bin" "${opts[@]}" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" >"$log" 2>&1
rc=$?
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
took=$(sed -n 's/^stat::.*//; s/.*Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
took=${took:-$secs}
rate=$(( ${runs:-0} / (took > 0 ? took : 1) ))
ncrash=$(find "$crashes" -maxdepth 1 -type f -newer "$log.start" | wc -l)
grep -E '^#[0-9]+ +(DONE|pulse|REDUCE|NEW)' "$log" | tail -1 || true
line="fuzz $h: ${runs:-?} runs in $took s, $rate runs/s, $ncrash crashes, corpus $(ls "$corpus" | wc -l) inputs"
rm -f "$log.start"
if [[ $rc -ne 0 ]]; then
  echo "$line (FAILED, exit $rc; log $log, inputs in $crashes)"
  grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==|#[0-9]+ 0x' "$log" | head -30 >&2
  exit 1
fi
echo "$line"
