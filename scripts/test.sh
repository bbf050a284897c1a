#!/usr/bin/env bash
# Builds everything with ASan, UBSan and -Werror, and runs every test
# (C unit tests, HTTP tests against a real dlprofviewer, browser tests in
# headless Chromium). Installs missing dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build/test
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DDL_SANITIZE=ON -DDL_WERROR=ON \
      -DDL_SHARED_DIR="$(cd .. && pwd)/shared" >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@"
