#!/bin/sh
# cmake --install into a scratch prefix puts the binary, the man page and the bash completion in place,
# the man page parses, and the completion offers the lessons.
set -eu
build="$1"
shift  # the rest: the emulator that runs a cross-built binary (qemu-aarch64 -L ...), if any
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/attn-tutor"
test -f "$prefix/share/man/man1/attn-tutor.1"
test -f "$prefix/share/bash-completion/completions/attn-tutor"
"$@" "$prefix/bin/attn-tutor" --version | grep -q attn-tutor
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man -l "$prefix/share/man/man1/attn-tutor.1" 2>/dev/null | grep -q "causal-mask"
fi
out=$(bash -c ". '$prefix/share/bash-completion/completions/attn-tutor'; COMP_WORDS=(attn-tutor ca); COMP_CWORD=1; _attn_tutor; echo \"\${COMPREPLY[*]}\"")
[ "$out" = "causal-mask" ] || { echo "completion gave '$out'"; exit 1; }
echo "install layout ok"
