#!/bin/sh
# The test command's other builds (make test runs this after the native build and its tests):
#   clang  clang++ without OpenMP and without Google Benchmark: build everything, run CTest
#   arm64  cross-built with Debian's g++-aarch64-linux-gnu, run under qemu-aarch64: attn-tutor
#          verify, then CTest (every test, through the emulator)
# Usage: tools/ci-extra.sh [clang] [arm64]   (neither: both). JOBS=N builds with N jobs (default 2).
set -eu
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
CLANG_BUILD=${CLANG_BUILD:-build-clang}
ARM64_BUILD=${ARM64_BUILD:-build-arm64}
launcher=""
command -v ccache >/dev/null 2>&1 && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
steps=${*:-clang arm64}

elapsed() { echo "== $1: $(( $(date +%s) - $2 )) s"; }

for step in $steps; do
  start=$(date +%s)
  case "$step" in
    clang)
      echo "== clang++ $(clang++ -dumpversion), no OpenMP, no Google Benchmark ($CLANG_BUILD)"
      CXX=clang++ cmake -S . -B "$CLANG_BUILD" -DCMAKE_BUILD_TYPE=Release $launcher \
        -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON >/dev/null
      cmake --build "$CLANG_BUILD" -j"$JOBS"
      "$CLANG_BUILD/attn-tutor" --version
      (cd "$CLANG_BUILD" && ctest --output-on-failure --no-tests=error -j"$JOBS")
      ;;
    arm64)
      echo "== arm64: aarch64-linux-gnu-g++ $(aarch64-linux-gnu-g++ -dumpversion), run under qemu-aarch64 ($ARM64_BUILD)"
      cmake -S . -B "$ARM64_BUILD" -DCMAKE_BUILD_TYPE=Release $launcher \
        -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake >/dev/null
      cmake --build "$ARM64_BUILD" -j"$JOBS"
      "$ARM64_BUILD/attn-tutor-emulated" --version
      verified=$("$ARM64_BUILD/attn-tutor-emulated" verify)  # a failed check stops here (set -e)
      printf '%s\n' "$verified" | tail -n 1
      (cd "$ARM64_BUILD" && ctest --output-on-failure --no-tests=error -j"$JOBS")
      ;;
    *)
      echo "ci-extra.sh: unknown step '$step'; use clang, arm64 or both" >&2
      exit 2
      ;;
  esac
  elapsed "$step" "$start"
done
