# shellcheck shell=bash disable=SC2034  # STOP_RC is read by the tests
# tests/install/lib.sh - helpers of the install and docker tests (bash).
# Sourced; each test prints what it checks and fails with a message.

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*"; }

# http_get PORT PATH BODY_FILE: prints the status code; the body goes to BODY_FILE.
# bash's /dev/tcp, HTTP/1.0: no curl needed (the images have none either).
http_get() {
  local port=$1 path=$2 body=$3 line code
  exec 5<>"/dev/tcp/127.0.0.1/$port" || { echo 000; return; }
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$path" >&5
  IFS= read -r -t 10 line <&5 || line=
  code=$(printf '%s' "$line" | awk '{print $2}')
  while IFS= read -r -t 10 line <&5; do [[ $line == $'\r' || -z $line ]] && break; done
  cat <&5 >"$body"
  exec 5<&-
  echo "${code:-000}"
}

# wait_url FILE TIMEOUT_S: waits for "running at http://..." lines in FILE;
# prints the URLs, one a line, once COUNT (default 1) are there.
wait_url() {
  local file=$1 timeout=$2 count=${3:-1} i
  for ((i = 0; i < timeout * 10; i++)); do
    if (($(grep -c 'running at http://' "$file" 2>/dev/null || true) >= count)); then
      grep -o 'running at http://[^ ]*' "$file" | sed 's/^running at //'
      return 0
    fi
    sleep 0.1
  done
  return 1
}

url_port() { local u=${1#http://}; u=${u%%/*}; echo "${u##*:}"; }
# The URL's query (?token=...), if any, to add to other paths.
url_query() { case $1 in *\?*) echo "?${1#*\?}" ;; esac; }

# free_port: a TCP port free on 127.0.0.1 just now (node, a build dependency).
free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# stop PID: SIGTERM, then sets STOP_RC to its exit status (waits at most 20 s;
# not in $(...): only this shell can wait for its children).
stop() {
  local pid=$1 i
  STOP_RC=0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  wait "$pid" || STOP_RC=$?
}
