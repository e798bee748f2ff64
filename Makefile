# make        install what is missing, build, list the lessons
# make test   build and run every test (doctest via CTest, then `attn-tutor verify`)
# make bench  time every lesson in one process (not part of the tests)
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

clean:
	rm -rf $(BUILD)
