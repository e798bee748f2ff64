#!/bin/sh
# The C++ sources as .clang-format writes them (clang-format 14, Debian 12's: another version may lay
# some lines out otherwise). Fix: clang-format-14 -i FILE.
set -eu
cd "$1"
find app lib lessons features tests bench \( -name '*.cpp' -o -name '*.h' \) -print | sort | xargs "$2" --dry-run --Werror
