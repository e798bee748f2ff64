# The WebAssembly build's dependencies (included from CMakeLists.txt under emcmake). CLI11, Eigen and
# nlohmann/json are header-only: their headers come from where Debian (or Homebrew) put them, but
# through folders that hold only them, never -I/usr/include (whose glibc headers would shadow the
# emscripten sysroot's). No doctest, threads, OpenMP or Google Benchmark: the web build has no tests
# of its own (tests/web/ runs the native tests' commands against it) and no threads.
set(ATTN_HEADER_ROOTS /usr/include /usr/local/include /opt/homebrew/include)
function(attn_header_folder VAR FILE)
  find_path(${VAR} ${FILE} PATHS ${ATTN_HEADER_ROOTS} NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(NOT ${VAR})
    message(FATAL_ERROR "attn-tutor web build: ${FILE} not found under ${ATTN_HEADER_ROOTS}; "
                        "install libcli11-dev, libeigen3-dev and nlohmann-json3-dev (tools/install-deps.sh)")
  endif()
endfunction()
attn_header_folder(ATTN_CLI11_ROOT CLI/CLI.hpp)
attn_header_folder(ATTN_JSON_ROOT nlohmann/json.hpp)
attn_header_folder(ATTN_EIGEN_ROOT eigen3/Eigen/Core)

# CLI/ and nlohmann/ sit directly in /usr/include: link each into a folder of its own.
set(ATTN_WEB_HEADERS ${CMAKE_BINARY_DIR}/web-headers)
file(MAKE_DIRECTORY ${ATTN_WEB_HEADERS}/cli11 ${ATTN_WEB_HEADERS}/json)
file(CREATE_LINK ${ATTN_CLI11_ROOT}/CLI ${ATTN_WEB_HEADERS}/cli11/CLI SYMBOLIC)
file(CREATE_LINK ${ATTN_JSON_ROOT}/nlohmann ${ATTN_WEB_HEADERS}/json/nlohmann SYMBOLIC)

add_library(CLI11::CLI11 INTERFACE IMPORTED)
set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ATTN_WEB_HEADERS}/cli11)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ATTN_WEB_HEADERS}/json)
add_library(Eigen3::Eigen INTERFACE IMPORTED)
set_target_properties(Eigen3::Eigen PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ATTN_EIGEN_ROOT}/eigen3)
add_library(Threads::Threads INTERFACE IMPORTED)  # no threads: lib/fast runs every parallel loop on one

# C++ exceptions as WebAssembly exceptions (without it every throw aborts); node >= 17 and every
# current browser run them.
add_compile_options(-fwasm-exceptions)
add_link_options(-fwasm-exceptions)
# emcc runs its JavaScript optimizer with the machine's node, which finds Debian's acorn only here.
if(EXISTS /usr/share/nodejs/acorn)
  set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
endif()
