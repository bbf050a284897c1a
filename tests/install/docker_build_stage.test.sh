#!/usr/bin/env bash
# tests/install/docker_build_stage.test.sh - docker/Dockerfile without a
# Docker engine:
#  1. every file a stage COPYs from the build context exists, and
#     docker/Dockerfile.dockerignore does not leave it out;
#  2. the build stage runs here: its ENV paths move under a temporary root,
#     COPY copies the context (the source tree less the ignore file's
#     patterns), each RUN runs with /bin/sh in its WORKDIR. Any other
#     instruction in the build stage fails the test (teach it first);
#  3. every `COPY --from=build` source exists in what the build stage made,
#     and the installed programs run.
# The context lacks node_modules, which the build stage's npm ci fetches; to
# run offline, the test copies web/node_modules in when the source tree has it.
# Environment: WORK.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
dockerfile=$src/docker/Dockerfile
ignore=$src/docker/Dockerfile.dockerignore
work=${WORK:?}/docker
rm -rf "$work"
mkdir -p "$work/ctx" "$work/root"
root=$work/root

# Instructions, one a line: continuation lines joined, comments dropped.
mapfile -t instr < <(sed -e '/^[[:space:]]*#/d' "$dockerfile" |
  awk '{ if (sub(/\\[[:space:]]*$/, "")) { buf = buf $0 " "; next } print buf $0; buf = "" }' |
  sed -e '/^[[:space:]]*$/d')

# The context: every file under the source tree that the ignore file keeps.
mapfile -t patterns < <(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$ignore")
ignored() { # PATH (relative): 0 when a pattern leaves it out
  local p f=$1
  for p in "${patterns[@]}"; do
    if [[ $p == '**/'* ]]; then
      p=${p#'**/'}
      # shellcheck disable=SC2053
      [[ $f == $p || $f == $p/* || $f == */$p || $f == */$p/* ]] && return 0
    else
      # shellcheck disable=SC2053
      [[ $f == $p || $f == $p/* ]] && return 0
    fi
  done
  return 1
}
n=0
while IFS= read -r -d '' f; do
  f=${f#./}
  ignored "$f" && continue
  mkdir -p "$work/ctx/$(dirname "$f")"
  cp -p "$src/$f" "$work/ctx/$f"
  n=$((n + 1))
done < <(cd "$src" && find . \( -name .git -o -name 'build*' -path './build*' -o -name node_modules \) -prune -o \( -type f -o -type l \) -print0)
note "context: $n files"

# 1. COPY sources from the context
stage='' copies=0
for line in "${instr[@]}"; do
  read -r -a w <<<"$line"
  case ${w[0]^^} in
    FROM) stage=${w[-1]} ;;
    COPY)
      [[ ${w[1]} == --from=* ]] && continue
      for s in "${w[@]:1:${#w[@]}-2}"; do
        [[ $s == --* ]] && continue
        [[ -e $src/$s ]] || fail "stage $stage: COPY $s: no such file in the repository"
        [[ $s == . ]] || ! ignored "$s" || fail "stage $stage: COPY $s: left out by $ignore"
        copies=$((copies + 1))
      done ;;
  esac
done
note "every COPY source from the context exists and is kept ($copies)"
# docker/compose.yaml builds a stage of this Dockerfile
target=$(sed -n 's/^ *target: *//p' "$src/docker/compose.yaml")
grep -qiE "^FROM .* AS $target\$" "$dockerfile" || fail "compose.yaml: no stage '$target' in the Dockerfile"
grep -q '^ *dockerfile: docker/Dockerfile$' "$src/docker/compose.yaml" || fail "compose.yaml: not docker/Dockerfile"
note "compose.yaml builds stage '$target'"

# 2. the build stage
[[ -d $src/web/node_modules ]] && cp -a "$src/web/node_modules" "$work/ctx/web/"
in_build=0 cwd=$root ran=0
envs=()
for line in "${instr[@]}"; do
  read -r -a w <<<"$line"
  if [[ ${w[0]^^} == FROM ]]; then
    [[ ${line,,} == *" as build" ]] && in_build=1 || in_build=0
    continue
  fi
  ((in_build)) || continue
  rest=${line#*[[:space:]]}
  case ${w[0]^^} in
    ARG) ;;
    ENV)
      for kv in "${w[@]:1}"; do
        [[ $kv == *=* ]] || fail "ENV $kv: use KEY=VALUE"
        v=${kv#*=}
        [[ $v == /* ]] && v=$root$v
        envs+=("${kv%%=*}=$v")
      done ;;
    WORKDIR) cwd=$root$rest; mkdir -p "$cwd" ;;
    COPY)
      dest=${w[-1]}
      [[ $dest == /* ]] || dest=${cwd#"$root"}/$dest
      mkdir -p "$root$dest"
      for s in "${w[@]:1:${#w[@]}-2}"; do cp -a "$work/ctx/$s/." "$root$dest/" 2>/dev/null || cp -a "$work/ctx/$s" "$root$dest/"; done ;;
    RUN)
      note "RUN $rest  (in ${cwd#"$root"}, with ${envs[*]})"
      (cd "$cwd" && env "${envs[@]}" /bin/sh -c "$rest") >"$work/run$ran.log" 2>&1 ||
        { tail -50 "$work/run$ran.log"; fail "RUN $rest"; }
      ran=$((ran + 1)) ;;
    *) fail "build stage: ${w[0]} is not handled by this test" ;;
  esac
done
((ran > 0)) || fail "no RUN step in the build stage"
note "the build stage's $ran RUN step(s) passed"

# 3. COPY --from=build sources
for line in "${instr[@]}"; do
  read -r -a w <<<"$line"
  [[ ${w[0]^^} == COPY && ${w[1]} == --from=build ]] || continue
  for s in "${w[@]:2:${#w[@]}-3}"; do
    [[ -e $root$s ]] || fail "COPY --from=build $s: the build stage did not make it"
    note "build stage made $s"
  done
done
prefix=$(printf '%s\n' "${envs[@]}" | sed -n 's/^DLPROF_PREFIX=//p')
"$prefix/bin/dlprofviewer" --version || fail "installed dlprofviewer"
"$prefix/bin/dlprof" --version || fail "installed dlprof"
if [[ -f $prefix/lib/dlprof/libdlprof_collector.so ]]; then
  ! ldd "$prefix/lib/dlprof/libdlprof_collector.so" | grep 'not found' || fail "the collector misses a library"
  note "collector installed, its libraries resolve"
fi
echo PASS
