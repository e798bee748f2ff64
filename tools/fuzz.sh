#!/bin/sh
# make fuzz: builds the libFuzzer targets of the --inputs and check parsers and of the Python and
# HTML escapers with clang
# (-fsanitize=fuzzer,address,undefined) into $FUZZ_BUILD and runs each for $FUZZ_SECONDS seconds.
# Exit 1 on any finding (the crashing input is left in $FUZZ_BUILD/findings/). Not part of the tests.
# libFuzzer comes with clang's compiler-rt (Debian: libclang-rt-14-dev); it is installed here on
# demand, so it is no build dependency of attn-tutor itself.
set -eu
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
FUZZ_BUILD="${FUZZ_BUILD:-build-fuzz}"
FUZZ_CXX="${FUZZ_CXX:-clang++}"
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

if ! command -v "$FUZZ_CXX" >/dev/null 2>&1; then
  echo "attn-tutor: error: $FUZZ_CXX not found; install clang (apt-get install clang) or set FUZZ_CXX" >&2
  exit 2
fi
mkdir -p "$FUZZ_BUILD"
probe="$FUZZ_BUILD/probe"
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe.cpp"
if ! "$FUZZ_CXX" -fsanitize=fuzzer "$probe.cpp" -o "$probe" 2>/dev/null; then
  version=$("$FUZZ_CXX" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
  pkg="libclang-rt-${version:-14}-dev"
  echo "attn-tutor: libFuzzer is missing; installing $pkg"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "attn-tutor: error: libFuzzer is missing; install $pkg as root" >&2; exit 2; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$pkg"
fi

FLAGS="-std=c++17 -g -O1 -ffp-contract=off -fno-fast-math -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -I$here/lib -I$here"
# The parsers and what they use: no lessons, no CLI.
CORE="lib/core/inputs.cpp lib/core/safe_json.cpp lib/core/safe_text.cpp lib/core/bounded_read.cpp lib/core/tensor.cpp
  lib/core/generator.cpp lib/core/random_ops.cpp lib/core/torch_exp.cpp"
# lessons/mistake_ids.h, which the check parser's headers include, made as the build makes it (a script run
# takes its working directory for its source and build folders: a copy of the table there).
mkdir -p "$FUZZ_BUILD/gen/lessons"
cp lessons/mistakes.txt "$FUZZ_BUILD/gen/lessons/"
(cd "$FUZZ_BUILD/gen" && cmake -P "$here/cmake/mistake_ids.cmake")
FLAGS="$FLAGS -I$FUZZ_BUILD/gen/generated"
echo "attn-tutor: building the fuzz targets in $FUZZ_BUILD"
# shellcheck disable=SC2086
"$FUZZ_CXX" $FLAGS tests/fuzz/fuzz_inputs.cpp $CORE -o "$FUZZ_BUILD/fuzz_inputs"
# shellcheck disable=SC2086
"$FUZZ_CXX" $FLAGS tests/fuzz/fuzz_check.cpp features/check/learner_export.cpp features/check/trace_parse.cpp $CORE -o "$FUZZ_BUILD/fuzz_check"
# The escapers: py_str's literal reads back to the input, html_escape leaves no raw markup; float text
# reads back.
# shellcheck disable=SC2086
"$FUZZ_CXX" $FLAGS -I$here/tests tests/fuzz/fuzz_escapers.cpp lib/core/py_repr.cpp lib/core/shortest_decimal.cpp lib/core/safe_text.cpp \
  lib/notebook/html_escape.cpp \
  -o "$FUZZ_BUILD/fuzz_escapers"

# Working corpora: the seeds of tests/fuzz/corpus and the check fixtures, grown by each run.
mkdir -p "$FUZZ_BUILD/corpus/inputs" "$FUZZ_BUILD/corpus/check" "$FUZZ_BUILD/corpus/escapers" "$FUZZ_BUILD/findings"
cp tests/fuzz/corpus/inputs/*.json tests/fixtures/snapshot_inputs.json "$FUZZ_BUILD/corpus/inputs/"
cp tests/fixtures/mistakes/*.json "$FUZZ_BUILD/corpus/check/"
cp tests/fuzz/corpus/escapers/* "$FUZZ_BUILD/corpus/escapers/"

status=0
for target in inputs check escapers; do
  echo "attn-tutor: fuzzing fuzz_$target for $FUZZ_SECONDS s"
  if ! "$FUZZ_BUILD/fuzz_$target" "$FUZZ_BUILD/corpus/$target" -dict=tests/fuzz/json.dict \
       -max_total_time="$FUZZ_SECONDS" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$FUZZ_BUILD/findings/$target-" >"$FUZZ_BUILD/fuzz_$target.log" 2>&1; then
    echo "attn-tutor: fuzz_$target found a problem; see $FUZZ_BUILD/fuzz_$target.log and $FUZZ_BUILD/findings/" >&2
    tail -n 30 "$FUZZ_BUILD/fuzz_$target.log" >&2
    status=1
  else
    grep -E '^stat::number_of_executed_runs|^Done' "$FUZZ_BUILD/fuzz_$target.log" | sed "s/^/  fuzz_$target: /"
  fi
done
[ "$status" -eq 0 ] && echo "attn-tutor: fuzzing found nothing"
exit "$status"
