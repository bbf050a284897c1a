#!/usr/bin/env bash
# docker/healthcheck.sh - the images' HEALTHCHECK: GET /api/v1/health on every
# port docker/entrypoint.sh started a dlprofviewer on (DLPROFVIEWER_STATE_DIR),
# with the access token when there is one. Healthy when each answers 200; a
# 401 counts when the check has no token (one set by hand with --token), as
# the viewer is answering. Healthy, too, when no viewer was started (the
# container runs a command such as dlprof). No curl needed: bash's /dev/tcp.
set -uo pipefail
state=${DLPROFVIEWER_STATE_DIR:-/tmp/dlprofviewer}
[[ -r $state/ports ]] || exit 0
token=$(cat "$state/token" 2>/dev/null || true)
while read -r port; do
  [[ $port =~ ^[0-9]+$ && $port != 0 ]] || continue
  if ! exec 3<>"/dev/tcp/127.0.0.1/$port"; then
    echo "dlprofviewer on port $port: not listening" >&2
    exit 1
  fi
  printf 'GET /api/v1/health%s HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' \
    "${token:+?token=$token}" >&3
  line=
  IFS= read -r -t 10 line <&3
  exec 3<&-
  case $line in
    "HTTP/1."?" 200"*) ;;
    "HTTP/1."?" 401"*) [[ -z $token ]] || { echo "port $port: $line" >&2; exit 1; } ;;
    *) echo "dlprofviewer on port $port: ${line:-no answer}" >&2; exit 1 ;;
  esac
done <"$state/ports"
exit 0
