#!/usr/bin/env bash
# tests/install/manpages.test.sh - docs/man/*.1 against the programs'
# --help: every option --help names is in the man page, and the man page
# names no option --help lacks. Environment: DLPROF, DLPROFVIEWER, MAN_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

options() { grep -oE '(^|[ ,\[|])--?[a-zA-Z][a-zA-Z0-9_-]*' | sed -E 's/^[ ,\[|]//' | sort -u; }
status=0
for prog in "$DLPROF" "$DLPROFVIEWER"; do
  name=$(basename "$prog")
  page=$MAN_DIR/$name.1
  [[ -f $page ]] || fail "$page is missing"
  in_help=$("$prog" --help | options)
  # roff: \- is a hyphen; the comment lines and example blocks are not options
  in_page=$(sed -e '/^\.\\"/d' -e '/^\.nf/,/^\.fi/d' -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page" | options)
  missing=$(comm -23 <(echo "$in_help") <(echo "$in_page"))
  extra=$(comm -13 <(echo "$in_help") <(echo "$in_page"))
  if [[ -n $missing ]]; then echo "FAIL: $page lacks $(tr "\n" " " <<<"$missing")" >&2; status=1; fi
  if [[ -n $extra ]]; then echo "FAIL: $page names $(tr "\n" " " <<<"$extra"), which $name --help does not" >&2; status=1; fi
  if command -v man >/dev/null && man --help 2>&1 | grep -q -- '--warnings'; then
    warn=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null || true)
    [[ -z $warn ]] || { echo "FAIL: $page: $warn" >&2; status=1; }
  fi
  ((status)) || note "$name: $(echo "$in_help" | wc -l) options, all in $page"
done
exit "$status"
