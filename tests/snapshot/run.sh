#!/bin/sh
# The snapshot test: every command in commands.txt prints exactly what expected/NAME.out holds.
# Usage: run.sh ATTN_TUTOR [--update]. Kept while code moves, so a restructure changes no number.
set -u
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); update="${2:-}"
here=$(cd "$(dirname "$0")" && pwd)
fix=$(cd "$here/../fixtures" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$here/expected"
failed=0; passed=0
while IFS='	' read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  words=$(printf '%s' "$args" | sed "s|{FIX}|$fix|g; s|{TMP}|$tmp|g")
  rm -f "$tmp/out.html" "$tmp/out.json"
  got="$tmp/$name.got"
  # shellcheck disable=SC2086
  (cd "$tmp" && eval "LANG=C.UTF-8 LC_ALL= NO_COLOR= COLORTERM= COLUMNS= \"\$exe\" $words" >"$got" 2>"$got.err"; echo "exit $?" >>"$got")
  printf -- '--- stderr\n' >>"$got"; cat "$got.err" >>"$got"
  for f in out.html out.json; do
    if [ -f "$tmp/$f" ]; then printf -- '--- %s\n' "$f" >>"$got"; cat "$tmp/$f" >>"$got"; fi
  done
  sed "s|$tmp|{TMP}|g; s|$fix|{FIX}|g" "$got" >"$got.sed" && mv "$got.sed" "$got"  # no sed -i: BSD sed differs
  if [ "$update" = "--update" ]; then cp "$got" "$here/expected/$name.out"; passed=$((passed+1)); continue; fi
  if cmp -s "$got" "$here/expected/$name.out"; then passed=$((passed+1));
  else failed=$((failed+1)); echo "snapshot $name differs: attn-tutor $args"; diff "$here/expected/$name.out" "$got" | head -20; fi
done <"$here/commands.txt"
echo "snapshot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
