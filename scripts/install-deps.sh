#!/usr/bin/env bash
# Installs what building, running and testing need, and nothing else:
# Debian packages (compiler, CMake, civetweb, cJSON, SQLite, zlib, Chromium
# for page tests, wrk for benchmarks, valgrind, Universal Ctags and Python for
# the structure test, Debian's PyTorch for tests/pytorch, where the
# distribution has it) and the pinned npm packages
# of web/ (Chart.js) and tests/ (playwright-core). Safe to run again: it
# skips what is already there. Debian 12 and Ubuntu 24.04 (the Docker build
# stage, docker/Dockerfile) use the same package names; Ubuntu has no
# Chromium .deb, so the browser tests need DL_CHROMIUM there.
#
#   scripts/install-deps.sh            everything (the README's path)
#   scripts/install-deps.sh --build    what building needs (docker/build.sh)
#   scripts/install-deps.sh --runtime  only the shared libraries that dlprof and
#                                      dlprofviewer load (docker/Dockerfile)
set -euo pipefail
cd "$(dirname "$0")/.."

build_pkgs=(build-essential cmake pkg-config libcivetweb-dev libcjson-dev libsqlite3-dev
            zlib1g-dev nodejs npm)
runtime_pkgs=(libcivetweb1 libcjson1 libsqlite3-0 zlib1g)
test_pkgs=(sqlite3 chromium wrk valgrind universal-ctags python3)

mode=${1:-all}
case $mode in
  all) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}"); npm_dirs=(web tests) ;;
  --build) pkgs=("${build_pkgs[@]}"); npm_dirs=(web) ;;
  --runtime) pkgs=("${runtime_pkgs[@]}"); npm_dirs=() ;;
  *) echo "usage: $0 [--build|--runtime]" >&2; exit 2 ;;
esac

os_id=unknown
# shellcheck source=/dev/null
[[ -r /etc/os-release ]] && os_id=$(. /etc/os-release && echo "${ID:-unknown}")
if [[ $os_id == ubuntu ]]; then
  # Ubuntu's chromium package is a stub for the snap, which does not run in containers.
  tmp=(); for p in "${pkgs[@]}"; do [[ $p == chromium ]] || tmp+=("$p"); done
  pkgs=("${tmp[@]}")
  [[ $mode == all ]] && ! command -v chromium >/dev/null &&
    echo "install-deps: Ubuntu has no Chromium .deb; set DL_CHROMIUM to a Chromium for the browser tests" >&2
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# nodejs/npm may come from elsewhere (a newer Node on PATH is fine).
if command -v node >/dev/null && command -v npm >/dev/null; then
  tmp=(); for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || tmp+=("$p"); done
  missing=("${tmp[@]+"${tmp[@]}"}")
fi
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=; [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# tests/pytorch makes its traces with the distribution's PyTorch (python3-torch,
# for /usr/bin/python3): a large package that not every release or
# architecture has, so its absence only skips that test.
if [[ $mode == all ]] && ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
  echo "install-deps: installing python3-torch (tests/pytorch)" >&2
  sudo=; [[ $(id -u) -ne 0 ]] && sudo=sudo
  { $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      python3-torch >/dev/null; } ||
    echo "install-deps: python3-torch could not be installed; tests/pytorch will skip" >&2
fi

for d in "${npm_dirs[@]+"${npm_dirs[@]}"}"; do
  if [[ -f $d/package-lock.json ]]; then
    if [[ ! -d $d/node_modules ]] || [[ $d/package-lock.json -nt $d/node_modules ]]; then
      (cd "$d" && npm ci --no-audit --no-fund --loglevel=error) >&2
      touch "$d/node_modules"
    fi
  fi
done
