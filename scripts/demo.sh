#!/usr/bin/env bash
# Installs missing dependencies, builds dlprof and dlprofviewer, generates a
# sample profile (a ResNet-50-like mixed-precision training run) and serves it
# at http://127.0.0.1:8000/. Extra arguments go to dlprofviewer, e.g.
# `scripts/demo.sh --bind 0.0.0.0 --port 8080`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build/release
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDL_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target dlprofviewer dlsample
mkdir -p sample
"$build/tools/dlsample" --force sample/dlprof_dldb.sqlite
exec "$build/server/dlprofviewer" "$@" sample/dlprof_dldb.sqlite
