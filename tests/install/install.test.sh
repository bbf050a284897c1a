#!/usr/bin/env bash
# tests/install/install.test.sh - `cmake --install` into a temporary prefix,
# then both programs from there, run from an empty directory: dlprofviewer
# (--version, a dldb served on --port 0: /api/v1/health and /), dlprof
# (--version, --database of a real Nsight Systems export from DL_SHARED_DIR,
# skipped with a message when absent; `dlprof APP` of the NVTX-only test app
# with the installed collector, which needs no GPU). The prefix is then moved
# elsewhere and dlprof run again: nothing points back at the build tree.
#
# Environment (tests/install/CMakeLists.txt): CMAKE, BUILD_DIR, WORK,
# DLSAMPLE, DL_SHARED_DIR, NVTX_TEST_APP (empty: no collector in this build).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

work=${WORK:?}/install
rm -rf "$work"
mkdir -p "$work/empty" "$work/out"
prefix=$work/prefix

note "cmake --install $BUILD_DIR --prefix $prefix"
"$CMAKE" --install "$BUILD_DIR" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
files=(bin/dlprof bin/dlprofviewer share/man/man1/dlprof.1 share/man/man1/dlprofviewer.1 share/doc/dlprof/LICENSE)
[[ -n $NVTX_TEST_APP ]] && files+=(lib/dlprof/libdlprof_collector.so)
for f in "${files[@]}"; do [[ -f $prefix/$f ]] || fail "$f was not installed"; done
note "installed: ${files[*]}"

for f in "$prefix"/bin/* "$prefix"/lib/dlprof/*; do
  [[ -e $f ]] || continue
  if readelf -d "$f" 2>/dev/null | grep -E 'R(UN)?PATH' | grep -qF "$BUILD_DIR"; then
    fail "$f keeps a RUNPATH into the build tree"
  fi
done

cd "$work/empty" # no source or build tree around
export PATH=$prefix/bin:$PATH

v=$(dlprofviewer --version) || fail "dlprofviewer --version"
[[ $v == "dlprofviewer "[0-9]* ]] || fail "dlprofviewer --version said '$v'"
v=$(dlprof --version) || fail "dlprof --version"
[[ $v == "dlprof "[0-9]* ]] || fail "dlprof --version said '$v'"
note "versions: $(dlprof --version), $(dlprofviewer --version)"

# serve DLDB: the installed viewer on a free port; GET /api/v1/health and /.
# Each start gets its own log, made empty here before the viewer starts: the
# child truncates a `>"$log" &` redirection only when it runs, so wait_url
# could read a reused log first and find the previous viewer's URL.
serve() {
  local db=$1 log err pid url port q code
  log=$(mktemp "$work/viewer-out.XXXXXX") err=$(mktemp "$work/viewer-err.XXXXXX")
  dlprofviewer --port 0 "$db" >"$log" 2>"$err" &
  pid=$!
  url=$(wait_url "$log" 30) || { cat "$err"; fail "dlprofviewer printed no URL for $db"; }
  port=$(url_port "$url") q=$(url_query "$url")
  code=$(http_get "$port" "/api/v1/health$q" "$work/health.json")
  [[ $code == 200 ]] || fail "/api/v1/health: HTTP $code"
  grep -q '"status"' "$work/health.json" || fail "/api/v1/health: $(cat "$work/health.json")"
  code=$(http_get "$port" "/$q" "$work/index.html")
  [[ $code == 200 ]] || fail "/: HTTP $code"
  grep -qi '<html' "$work/index.html" || fail "/ is not the page (embedded assets)"
  stop "$pid"; code=$STOP_RC
  [[ $code == 0 ]] || fail "dlprofviewer exited $code after SIGTERM"
  note "served $db at $url: health and page OK, stopped cleanly"
}

"$DLSAMPLE" --iterations 5 --force "$work/sample_dldb.sqlite" >/dev/null
serve "$work/sample_dldb.sqlite"

nsys=$DL_SHARED_DIR/traces/dlprof/w_Relu/nsys_profile.sqlite
if [[ -f $nsys ]]; then
  dlprof --database="$nsys" --output_path="$work/out" --profile_name=relu --force=true \
    --verbosity=quiet || fail "dlprof --database=$nsys"
  [[ -f $work/out/relu_dldb.sqlite && -f $work/out/relu_summary.csv ]] ||
    fail "dlprof --database wrote no dldb or summary: $(ls "$work/out")"
  note "dlprof --database imported $nsys"
  serve "$work/out/relu_dldb.sqlite"
else
  note "skipped the --database import: $nsys is absent (DL_SHARED_DIR=$DL_SHARED_DIR)"
fi

# profile_app DLPROF PREFIX: dlprof APP with the collector found from the prefix.
profile_app() {
  local bin=$1 pre=$2 err=$work/profile.err rc=0
  "$bin" --output_path="$work/out" --profile_name=nvtx --mode=simple --force=true \
    "$NVTX_TEST_APP" all 0 2>"$err" >/dev/null || rc=$?
  [[ $rc == 0 ]] || { cat "$err"; fail "dlprof $NVTX_TEST_APP exited $rc"; }
  grep -qF "(collector $(readlink -f "$pre/lib/dlprof/libdlprof_collector.so"))" "$err" ||
    { cat "$err"; fail "dlprof did not use the installed collector under $pre"; }
  [[ -f $work/out/nvtx_dldb.sqlite ]] || fail "no nvtx_dldb.sqlite"
  note "dlprof APP recorded with $pre/lib/dlprof/libdlprof_collector.so"
}

if [[ -n $NVTX_TEST_APP ]]; then
  unset DLPROF_COLLECTOR_LIB
  profile_app dlprof "$prefix"
  mv "$prefix" "$work/moved" # relocatable: the collector is found relative to dlprof
  profile_app "$work/moved/bin/dlprof" "$work/moved"
  "$work/moved/bin/dlprofviewer" --version >/dev/null || fail "moved dlprofviewer"
else
  note "skipped dlprof APP: this build has no collector (no CUPTI/NVTX3)"
fi
echo "PASS"
