# Cross-build for arm64 Linux with Debian's g++-aarch64-linux-gnu; programs and tests run under
# qemu-user (qemu-aarch64). The header-only dependencies (CLI11, Eigen, nlohmann-json, doctest)
# are the host's: their CMake configs are found under /usr, their headers after the target's own.
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# The target's libraries: the cross toolchain's, and Debian's multiarch arm64 packages (zlib).
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_PREFIX_PATH /usr)
# Host headers (/usr/include) only after the target's, for the header-only libraries.
set(CMAKE_CXX_FLAGS_INIT "-idirafter /usr/include")

# Programs are linked statically: under qemu-user 7.2 (Debian 12) a dynamically linked arm64
# program hangs when it starts its first thread; a static one runs its threads (OpenMP too).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(ZLIB_USE_STATIC_LIBS ON)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgomp.a OUTPUT_VARIABLE ATTN_LIBGOMP_A
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(EXISTS "${ATTN_LIBGOMP_A}")
  set(OpenMP_gomp_LIBRARY "${ATTN_LIBGOMP_A}" CACHE FILEPATH "libgomp, static (cross build)")
endif()

# CTest, doctest's test discovery and the tests' own runs of attn-tutor go through qemu.
find_program(ATTN_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${ATTN_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
