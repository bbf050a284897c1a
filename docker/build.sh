#!/usr/bin/env bash
# docker/build.sh BUILD_DIR PREFIX - the Docker build stage's only step
# (docker/Dockerfile), also run on the host by tests/install (docker_build_stage):
# the README's dependency script (build part), a Release build without tests,
# and `cmake --install` into PREFIX (bin/dlprof, bin/dlprofviewer,
# lib/dlprof/libdlprof_collector.so when CUPTI is there, share/man/man1/).
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR PREFIX" >&2; exit 2; }
build=$1 prefix=$2
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDL_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$prefix"
cmake --build "$build" -j"$(nproc)"
cmake --install "$build" --strip
