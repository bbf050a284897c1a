#!/usr/bin/env bash
# docker/entrypoint.sh - the images' entrypoint (docker/Dockerfile, docker/README.md).
#
#   entrypoint.sh DLDB [OPTIONS...]   serve a database: dlprofviewer --bind 0.0.0.0
#   entrypoint.sh -OPTION... DLDB     the same, options first (entrypoint.sh --help)
#   entrypoint.sh DIR [OPTIONS...]    serve every dldb under DIR (new ones appear without a
#                                     restart) with one dlprofviewer on DLPROFVIEWER_PORT:
#                                     a runs page, each run's dashboard, any two compared
#   entrypoint.sh COMMAND [ARGS...]   anything else is exec'd: dlprof python train.py
#
# A database is an existing regular file, or a name ending in .sqlite or .db
# (so that a missing one gets dlprofviewer's error, not "command not found").
# The viewer never runs as root: as root, it drops to DLPROFVIEWER_USER.
#
# Environment:
#   DLPROFVIEWER_BIND       address to listen on (0.0.0.0)
#   DLPROFVIEWER_PORT       port (8000; 0 picks a free one)
#   DLPROFVIEWER_TOKEN      the access token, when dlprofviewer has --token (random otherwise)
#   DLPROFVIEWER_USER       the user the viewer runs as when started as root (dlprof)
#   DLPROFVIEWER_STATE_DIR  where the ports and the token go for docker/healthcheck.sh
#                           (/tmp/dlprofviewer)
#   DLPROF_BASE_ENTRYPOINT  the base image's entrypoint, run first around this one
#                           (the NGC images' sets up CUDA forward compatibility)
set -euo pipefail

die() { echo "dlprof-entrypoint: $*" >&2; exit 1; }

if [[ -n ${DLPROF_BASE_ENTRYPOINT:-} && -x $DLPROF_BASE_ENTRYPOINT && -z ${DLPROF_ENTRYPOINT_CHAINED:-} ]]; then
  export DLPROF_ENTRYPOINT_CHAINED=1
  exec "$DLPROF_BASE_ENTRYPOINT" "$0" "$@"
fi

bind=${DLPROFVIEWER_BIND:-0.0.0.0}
port=${DLPROFVIEWER_PORT:-8000}
user=${DLPROFVIEWER_USER:-dlprof}
state=${DLPROFVIEWER_STATE_DIR:-/tmp/dlprofviewer}
[[ $port =~ ^[0-9]+$ ]] || die "DLPROFVIEWER_PORT must be a port number, not '$port'"

usage() {
  cat <<'USAGE'
usage: docker run IMAGE DLDB [dlprofviewer options]   serve a dldb on 0.0.0.0:8000
       docker run IMAGE DIR [dlprofviewer options]    serve every dldb under DIR on 0.0.0.0:8000
       docker run IMAGE COMMAND [ARGS...]             run a command, e.g. dlprof python train.py
See docker/README.md.
USAGE
}

is_database() { [[ -f $1 || $1 == *.sqlite || $1 == *.db ]]; }

# The prefix that runs the viewer as $user when this script runs as root.
drop=()
if [[ $(id -u) -eq 0 && $user != root ]]; then
  id "$user" >/dev/null 2>&1 || die "DLPROFVIEWER_USER=$user does not exist; set DLPROFVIEWER_USER=root to serve as root"
  drop=(setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups --)
fi

# Viewer options from the environment; the user's own options come after them
# and win (getopt: the last one counts), so read --port and --token back.
viewer_opts() { # ARGS...: sets opts, port, token
  local a prev='' has_token=0
  token=
  for a in "$@"; do
    case $prev in --port|-p) port=$a ;; --token) token=$a; has_token=1 ;; esac
    case $a in --port=*) port=${a#--port=} ;; --token=*) token=${a#--token=}; has_token=1 ;;
               --no-token) has_token=1 ;; esac
    prev=$a
  done
  opts=(--bind "$bind" --port "$port")
  if ((!has_token)) && dlprofviewer --help 2>&1 | grep -q -- '--token'; then
    token=${DLPROFVIEWER_TOKEN:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
    opts+=(--token "$token")
  fi
}

write_state() { # PORT...: what docker/healthcheck.sh checks
  mkdir -p "$state"
  (umask 077; printf '%s\n' "$token" >"$state/token.tmp" && mv -f "$state/token.tmp" "$state/token")
  printf '%s\n' "$@" >"$state/ports.tmp" && mv -f "$state/ports.tmp" "$state/ports"
}

check_readable() {
  if ((${#drop[@]})) && [[ -e $1 ]] && ! "${drop[@]}" test -r "$1"; then
    die "$user cannot read $1: make it readable (chmod a+r), or set DLPROFVIEWER_USER=root"
  fi
}

serve_folder() { # DIR [OPTIONS...]: one viewer, every dldb under DIR
  local dir=$1
  shift
  check_readable "$dir"
  viewer_opts "$@"
  write_state "$port"
  if [[ -n $token ]]; then
    echo "dlprof-entrypoint: from the host, open http://localhost:$port/?token=$token#/runs (with docker run -p $port:$port)" >&2
  fi
  exec "${drop[@]}" dlprofviewer "${opts[@]}" "$@" "$dir"
}

serve() { # DLDB-or-options...
  local db='' a
  for a in "$@"; do is_database "$a" && db=$a; done
  [[ -n $db ]] && check_readable "$db"
  viewer_opts "$@"
  write_state "$port"
  if [[ -n $token && -n $db ]]; then
    echo "dlprof-entrypoint: from the host, open http://localhost:$port/?token=$token (with docker run -p $port:$port)" >&2
  fi
  exec "${drop[@]}" dlprofviewer "${opts[@]}" "$@"
}

if [[ $# -eq 0 ]]; then
  usage
  exit 0
elif [[ -d $1 ]]; then
  serve_folder "$@"
elif [[ $1 == -* ]] || is_database "$1"; then
  serve "$@"
else
  exec "$@"
fi
