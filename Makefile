# make        install what is missing, build, list the lessons
# make test   build and run every test (doctest via CTest, then `attn-tutor verify`)
# make bench  time every lesson in one process, then the attention kernels (Google Benchmark);
#             not part of the tests. `attn-tutor bench` is the annotated comparison of the four forms.
# make install  the binary, man page and bash completion (PREFIX via cmake -DCMAKE_INSTALL_PREFIX)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build test bench install clean
all: build
	./$(BUILD)/attn-tutor

deps:
	@sh tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j$(JOBS)

install: build
	cmake --install $(BUILD)

bench: build
	./$(BUILD)/attn_bench_lessons
	./$(BUILD)/attn_bench_kernels

clean:
	rm -rf $(BUILD)
