#!/usr/bin/env bash
# What memory costs on this machine, apart from dlprof (bench/fresh_pages.c):
# fresh anonymous pages, fresh page-cache pages, both written again, and a
# file written and read past the page cache (O_DIRECT).
# Usage: bench/fresh_pages.sh [MIB] [DIR]  (default 1024 MiB, in /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCH_DIR:-/tmp}/fresh_pages
cc -O2 -Wall -Wextra -o "$out" bench/fresh_pages.c
"$out" "${1:-1024}" "${2:-/tmp}"
