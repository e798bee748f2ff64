# make        install what is missing, build, list the lessons
# make test   build and run every test (doctest via CTest, then `attn-tutor verify`), then the same
#             tests built with clang++ without OpenMP and Google Benchmark, and cross-built for arm64
#             and run under qemu-aarch64 (tools/ci-extra.sh; also `make test-clang`, `make test-arm64`),
#             then the WebAssembly build against the native one (make test-web)
# make web    the WebAssembly build with Debian's emscripten into $(WEB_BUILD): the node CLI
#             (attn-tutor.js), the page's module (attn-tutor-web.js) and the npm package
#             $(WEB_BUILD)/npm/attn-tutor-VERSION.tgz (npm install -g it, or npx it)
# make test-web  the npm package installed into a scratch prefix must print the native bytes
#             (tests/web/run.sh)
# make bench  time every lesson in one process, then the attention kernels (Google Benchmark);
#             not part of the tests. `attn-tutor bench` is the annotated comparison of the four forms.
# make install  the binary, man page and bash completion (PREFIX via cmake -DCMAKE_INSTALL_PREFIX)
# make sanitize  build with AddressSanitizer + UndefinedBehaviorSanitizer in $(SANITIZE_BUILD) and run
#             every test there; not part of make test.
# make fuzz   libFuzzer on the --inputs and check parsers (clang), FUZZ_SECONDS per target (default
#             60); not part of make test. tools/fuzz.sh installs libFuzzer if it is missing.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SANITIZE_BUILD ?= build-sanitize
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SANITIZE_CMAKE_ARGS ?=
FUZZ_SECONDS ?= 60
FUZZ_BUILD ?= build-fuzz
WEB_BUILD ?= build-web
# ccache, when installed (tools/install-deps.sh installs it), with paths taken relative to this checkout so
# that a fresh clone in another folder (CI) reuses what an earlier build compiled.
LAUNCHER := $(if $(shell command -v ccache 2>/dev/null),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR := $(CURDIR)

.PHONY: all deps build test test-clang test-arm64 web test-web bench install clean sanitize fuzz
all: build
	./$(BUILD)/attn-tutor

deps:
	@sh tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

test: build web
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j$(JOBS)
	JOBS=$(JOBS) sh tools/ci-extra.sh clang arm64
	JOBS=$(JOBS) sh tests/web/run.sh $(BUILD) $(WEB_BUILD)

# emcmake passes CMake emscripten's toolchain file (cmake/web.cmake says what is built).
web: deps
	@command -v emcmake >/dev/null 2>&1 || { echo "attn-tutor: error: make web needs emscripten, nodejs and npm: run sh tools/install-deps.sh (Debian), or install emscripten and node 18+ another way" >&2; exit 2; }
	@emcmake cmake -S . -B $(WEB_BUILD) -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) >/dev/null
	@cmake --build $(WEB_BUILD) -j$(JOBS)

test-web: build web
	JOBS=$(JOBS) sh tests/web/run.sh $(BUILD) $(WEB_BUILD)

test-clang: deps
	JOBS=$(JOBS) sh tools/ci-extra.sh clang

test-arm64: deps
	JOBS=$(JOBS) sh tools/ci-extra.sh arm64

install: build
	cmake --install $(BUILD)

bench: build
	./$(BUILD)/attn_bench_lessons
	@if [ -x ./$(BUILD)/attn_bench_kernels ]; then ./$(BUILD)/attn_bench_kernels; \
	else echo "attn_bench_kernels not built: Google Benchmark (libbenchmark-dev) is not installed"; fi

# Debug information and -O1 keep the reports readable; -ffp-contract=off still applies (CMakeLists.txt).
sanitize: deps
	@cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
	  -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS)" -DCMAKE_EXE_LINKER_FLAGS="$(SANITIZE_FLAGS)" $(SANITIZE_CMAKE_ARGS) >/dev/null
	@cmake --build $(SANITIZE_BUILD) -j$(JOBS)
	cd $(SANITIZE_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure --no-tests=error -j$(JOBS)

fuzz:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD=$(FUZZ_BUILD) sh tools/fuzz.sh

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(FUZZ_BUILD) $(WEB_BUILD) build-clang build-arm64
