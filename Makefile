# make        install what is missing, build, list the lessons
# make test   build and run every test (doctest via CTest, then `attn-tutor verify`), then the same
#             tests built with clang++ without OpenMP and Google Benchmark, and cross-built for arm64
#             and run under qemu-aarch64 (tools/ci-extra.sh; also `make test-clang`, `make test-arm64`)
# make bench  time every lesson in one process, then the attention kernels (Google Benchmark);
#             not part of the tests. `attn-tutor bench` is the annotated comparison of the four forms.
# make install  the binary, man page and bash completion (PREFIX via cmake -DCMAKE_INSTALL_PREFIX)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build test test-clang test-arm64 bench install clean
all: build
	./$(BUILD)/attn-tutor

deps:
	@sh tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j$(JOBS)
	JOBS=$(JOBS) sh tools/ci-extra.sh clang arm64

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

clean:
	rm -rf $(BUILD) build-clang build-arm64
