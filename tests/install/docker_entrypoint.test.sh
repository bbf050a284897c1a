#!/usr/bin/env bash
# tests/install/docker_entrypoint.test.sh - docker/entrypoint.sh on each of
# its paths, on the host: no arguments (usage); a command (exec'd: same pid,
# its exit status); the base image's entrypoint chained first; a database
# (dlprofviewer --bind 0.0.0.0 on DLPROFVIEWER_PORT, exec'd, healthy per
# docker/healthcheck.sh, stops on SIGTERM); a missing database; a folder of
# databases (one viewer for all, its runs listed, a file added later
# listed too); as root, the drop to DLPROFVIEWER_USER.
# Environment: DLPROF, DLPROFVIEWER, DLSAMPLE, WORK.
# shellcheck disable=SC2015,SC2016  # A && B || fail on purpose; $$ for the child
set -euo pipefail
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
entry=$src/docker/entrypoint.sh
health=$src/docker/healthcheck.sh
work=${WORK:?}/entrypoint
rm -rf "$work"
mkdir -p "$work/bin" "$work/dbs"
ln -s "$DLPROF" "$work/bin/dlprof"
ln -s "$DLPROFVIEWER" "$work/bin/dlprofviewer"
export PATH=$work/bin:$PATH
export DLPROFVIEWER_STATE_DIR=$work/state
unset DLPROF_BASE_ENTRYPOINT DLPROF_ENTRYPOINT_CHAINED DLPROFVIEWER_TOKEN DLPROFVIEWER_BIND
# As root the viewer drops to DLPROFVIEWER_USER (dlprof in the images, absent here).
[[ $(id -u) == 0 ]] && export DLPROFVIEWER_USER=root

# 1. no arguments: the usage
"$entry" | grep -q 'docker run IMAGE DLDB' || fail "no usage without arguments"
note "no arguments: usage"

# 2. a command is exec'd: the same pid, its exit status, its output
rc=0
"$entry" sh -c 'echo $$ >"$0"; exit 7' "$work/pid" & pid=$!
wait "$pid" || rc=$?
[[ $rc == 7 ]] || fail "command: exit status $rc, not 7"
[[ $(cat "$work/pid") == "$pid" ]] || fail "command was not exec'd (pid $(cat "$work/pid"), not $pid)"
[[ $("$entry" dlprof --version) == "dlprof "* ]] || fail "entrypoint dlprof --version"
note "command: exec'd (pid $pid), exit status 7 kept; dlprof --version runs"

# 3. the base image's entrypoint runs first, around this one
printf '#!/bin/sh\necho base >"%s"\nexec "$@"\n' "$work/base.ran" >"$work/base.sh"
chmod +x "$work/base.sh"
out=$(DLPROF_BASE_ENTRYPOINT=$work/base.sh "$entry" echo hello)
[[ $out == hello && -f $work/base.ran ]] || fail "base entrypoint not chained (out '$out')"
note "DLPROF_BASE_ENTRYPOINT ran first"

"$DLSAMPLE" --iterations 5 --force "$work/dbs/a_dldb.sqlite" >/dev/null
cp "$work/dbs/a_dldb.sqlite" "$work/dbs/b_dldb.sqlite"
echo "not a dldb" >"$work/dbs/nsys_profile.sqlite" # not listed by the folder mode

# 4. a database: dlprofviewer on 0.0.0.0:$DLPROFVIEWER_PORT, exec'd
port=$(free_port)
DLPROFVIEWER_PORT=$port "$entry" "$work/dbs/a_dldb.sqlite" >"$work/a.out" 2>"$work/a.err" & pid=$!
url=$(wait_url "$work/a.out" 30) || { cat "$work/a.err"; fail "no URL from the viewer"; }
[[ $(url_port "$url") == "$port" ]] || fail "viewer on $url, not port $port"
[[ $(readlink "/proc/$pid/exe") == "$(readlink -f "$DLPROFVIEWER")" ]] || fail "the viewer was not exec'd"
tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- '--bind 0.0.0.0' || fail "not bound to 0.0.0.0"
code=$(http_get "$port" "/api/v1/health$(url_query "$url")" "$work/h.json")
[[ $code == 200 ]] || fail "health: HTTP $code"
"$health" || fail "docker/healthcheck.sh failed on a serving viewer"
stop "$pid"; rc=$STOP_RC
[[ $rc == 0 ]] || fail "viewer exit status $rc after SIGTERM"
if "$health" 2>/dev/null; then fail "docker/healthcheck.sh passed with the viewer stopped"; fi
note "database: dlprofviewer exec'd on 0.0.0.0:$port ($url), healthy, stopped with 0; unhealthy once stopped"

# 5. a missing database: dlprofviewer's error, not "command not found"
rc=0
DLPROFVIEWER_PORT=0 "$entry" "$work/nope.sqlite" >/dev/null 2>"$work/nope.err" || rc=$?
[[ $rc == 1 ]] && grep -q '^dlprofviewer:' "$work/nope.err" || fail "missing database: exit $rc, $(cat "$work/nope.err")"
"$entry" --help | grep -q 'usage: dlprofviewer' || fail "options go to dlprofviewer"
note "missing database: dlprofviewer's error, exit 1; options first reach dlprofviewer"

# 6. a folder: one viewer on DLPROFVIEWER_PORT serves every dldb under it
rm -rf "$DLPROFVIEWER_STATE_DIR"
port=$(free_port)
DLPROFVIEWER_PORT=$port "$entry" "$work/dbs" >"$work/dir.out" 2>"$work/dir.err" & pid=$!
url=$(wait_url "$work/dir.out" 30) || { cat "$work/dir.err"; fail "folder: no URL from the viewer"; }
[[ $(url_port "$url") == "$port" ]] || fail "folder: viewer on $url, not port $port"
[[ $(readlink "/proc/$pid/exe") == "$(readlink -f "$DLPROFVIEWER")" ]] || fail "folder: the viewer was not exec'd"
code=$(http_get "$port" "/api/v1/runs$(url_query "$url")" "$work/runs.json")
[[ $code == 200 ]] || fail "folder: runs HTTP $code"
runs=$(grep -o '"path":"[^"]*"' "$work/runs.json" | tr '\n' ' ')
[[ $runs == '"path":"a_dldb.sqlite" "path":"b_dldb.sqlite" ' ]] || fail "folder: runs $runs"
cp "$work/dbs/a_dldb.sqlite" "$work/dbs/c_dldb.sqlite"
http_get "$port" "/api/v1/runs$(url_query "$url")" "$work/runs.json" >/dev/null
grep -q '"path":"c_dldb.sqlite"' "$work/runs.json" || fail "folder: a dldb copied in is not listed"
"$health" || fail "folder: docker/healthcheck.sh failed"
sleep 0.5
[[ $(grep -c 'running at' "$work/dir.out") == 1 ]] || fail "folder: not exactly 1 viewer"
stop "$pid"; rc=$STOP_RC
[[ $rc == 0 ]] || fail "folder: exit status $rc after SIGTERM"
rm -f "$work/dbs/c_dldb.sqlite"
note "folder: one viewer on $port lists a and b (nsys_profile.sqlite not), then c copied in; stopped with 0"

# 7. as root: the viewer drops to DLPROFVIEWER_USER
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$DLPROFVIEWER" 2>/dev/null &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$work/dbs/a_dldb.sqlite" 2>/dev/null; then
  rc=0
  DLPROFVIEWER_USER=no-such-user-h7 "$entry" "$work/dbs/a_dldb.sqlite" 2>"$work/u.err" || rc=$?
  [[ $rc == 1 ]] && grep -q 'does not exist' "$work/u.err" || fail "unknown DLPROFVIEWER_USER: exit $rc"
  DLPROFVIEWER_USER=nobody DLPROFVIEWER_PORT=0 "$entry" "$work/dbs/a_dldb.sqlite" >"$work/n.out" 2>"$work/n.err" & pid=$!
  wait_url "$work/n.out" 30 >/dev/null || { cat "$work/n.err"; fail "no URL from the viewer as nobody"; }
  uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
  [[ $uid == "$(id -u nobody)" ]] || fail "the viewer runs as uid $uid, not nobody"
  stop "$pid"; rc=$STOP_RC
  [[ $rc == 0 ]] || fail "viewer as nobody: exit status $rc"
  note "root: the viewer ran as nobody (uid $uid); an unknown user is refused"
else
  note "skipped the privilege drop: not root, or nobody cannot reach the build tree"
fi
echo PASS
