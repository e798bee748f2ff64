#!/bin/sh
# Quick start, command 1: install what is missing, build, and run attn-tutor.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
./build/attn-tutor
