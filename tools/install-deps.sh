#!/bin/sh
# Installs the Debian 12 packages attn-tutor needs, and only those that are missing.
# ccache only speeds up rebuilds (make and tools/ci-extra.sh use it when it is there).
# chromium (headless), fonts-dejavu-core, fonts-noto-cjk (the Chinese page) and zlib1g-dev are for the tests: the HTML report is
# rendered and its screenshot decoded; python3 and python3-nbformat
# check that the --py and --ipynb exports parse and validate (no torch needed). libbenchmark-dev is for the kernel benchmarks (make bench);
# OpenMP, for attn-tutor bench's threads, comes with g++ (libgomp); without it the bench uses
# std::thread. make test also builds with clang (without OpenMP and Google Benchmark) and
# cross-builds for arm64, run under qemu-user: clang, g++-aarch64-linux-gnu, qemu-user, and
# zlib1g-dev:arm64 (Debian's multiarch: the arm64 architecture is added for it).
# emscripten and nodejs (npm where node came without it) are for make web, the WebAssembly build, and
# its tests (make test runs them); script(1), always there (bsdutils), gives those tests a terminal.
# Runs apt-get directly as root, through sudo otherwise.
set -eu
PACKAGES="g++ cmake make ccache libcli11-dev libeigen3-dev nlohmann-json3-dev doctest-dev libbenchmark-dev tmux chromium fonts-dejavu-core fonts-noto-cjk zlib1g-dev python3 python3-nbformat clang clang-format-14 g++-aarch64-linux-gnu qemu-user zlib1g-dev:arm64 emscripten nodejs"
missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
# Node from another source (NodeSource's nodejs) brings its own npm, and Debian's npm conflicts with it.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -z "$missing" ] && exit 0
echo "attn-tutor: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "attn-tutor: error: missing packages:$missing; run this as root or install sudo" >&2
  exit 2
fi
case "$missing" in
  *:arm64*)
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then $SUDO dpkg --add-architecture arm64; fi ;;
esac
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
