# The WebAssembly build (make web, under emcmake): the same app/ sources linked twice, no lesson logic
# of its own.
#   attn-tutor.js      the node CLI: files through node's own filesystem (NODERAWFS, relative to the
#                      working directory), the wasm inlined (one file: no fetch of a .wasm by node),
#                      exit codes through process.exit. Packed into build-web/npm/attn-tutor-VERSION.tgz.
#   attn-tutor-web.js  the module the page loads (MODULARIZE, an in-memory filesystem), beside its
#                      attn-tutor-web.wasm: one fresh instance per command, as a process: callMain with
#                      the arguments, the exit code through the `quit` hook, stdout and stderr through
#                      byte callbacks, every atexit flush run (EXIT_RUNTIME). tests/web/module_run.js is
#                      the reference use.
#   attn-tutor.html    the page (web/page/): one file with the module, its wasm and the page's script
#                      and style inlined, opened from file:// or any static host, no network request.
set(ATTN_WEB_COMMON_LINK
  -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=64MB -sMAXIMUM_MEMORY=4GB  # the cost limits admit 768 MiB
  -sTOTAL_STACK=8MB)       # as a Linux main thread
target_compile_definitions(attn-tutor PRIVATE ATTN_NODE_CLI=1)  # app/node_process.cpp: argv from the OS
target_link_options(attn-tutor PRIVATE ${ATTN_WEB_COMMON_LINK} -sSINGLE_FILE=1
  -sENVIRONMENT=node -sNODERAWFS=1 -sEXIT_RUNTIME=1 --post-js ${CMAKE_SOURCE_DIR}/web/node/node_process.js)
set_property(TARGET attn-tutor APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/web/node/node_process.js)

add_executable(attn-tutor-web ${ATTN_APP_SOURCES})
target_link_libraries(attn-tutor-web PRIVATE attn_features CLI11::CLI11)
target_link_options(attn-tutor-web PRIVATE ${ATTN_WEB_COMMON_LINK}
  -sENVIRONMENT=web,node -sMODULARIZE=1 -sEXPORT_NAME=createAttnTutor -sINVOKE_RUN=0 -sEXIT_RUNTIME=1
  -sFORCE_FILESYSTEM=1 "-sEXPORTED_RUNTIME_METHODS=['callMain','FS']")

# The page: its wasm is compiled once and instantiated per command (web/page/page.js), so the module
# is not SINGLE_FILE; web/page/build_page.js inlines both, with the Content-Security-Policy.
find_program(ATTN_NODE NAMES node nodejs REQUIRED)
set(ATTN_PAGE_SOURCES ${CMAKE_SOURCE_DIR}/web/page/page.html ${CMAKE_SOURCE_DIR}/web/page/page.css
    ${CMAKE_SOURCE_DIR}/web/page/commands.js ${CMAKE_SOURCE_DIR}/web/page/form.js ${CMAKE_SOURCE_DIR}/web/page/pictures.js
    ${CMAKE_SOURCE_DIR}/web/page/page.js ${CMAKE_SOURCE_DIR}/web/page/build_page.js)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/attn-tutor.html
  COMMAND ${ATTN_NODE} ${CMAKE_SOURCE_DIR}/web/page/build_page.js ${CMAKE_SOURCE_DIR}/web/page
          $<TARGET_FILE:attn-tutor-web> ${CMAKE_BINARY_DIR}/attn-tutor-web.wasm ${PROJECT_VERSION}
          ${CMAKE_BINARY_DIR}/attn-tutor.html
  DEPENDS attn-tutor-web ${ATTN_PAGE_SOURCES}
  COMMENT "Putting the page together: attn-tutor.html")
add_custom_target(attn_page ALL DEPENDS ${CMAKE_BINARY_DIR}/attn-tutor.html)

# The npm package: web/npm/ (package.json, README, the bin script) plus the node CLI as lib/attn-tutor.js.
find_program(ATTN_NPM npm)
if(NOT ATTN_NPM)
  message(FATAL_ERROR "attn-tutor web build: npm not found; install nodejs and npm (tools/install-deps.sh installs them on Debian)")
endif()
set(ATTN_NPM_DIR ${CMAKE_BINARY_DIR}/npm)
set(ATTN_NPM_TGZ ${ATTN_NPM_DIR}/attn-tutor-${PROJECT_VERSION}.tgz)
configure_file(${CMAKE_SOURCE_DIR}/web/npm/package.json.in ${ATTN_NPM_DIR}/package.json @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/web/npm/README.md ${ATTN_NPM_DIR}/README.md @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/web/npm/bin/attn-tutor.js ${ATTN_NPM_DIR}/bin/attn-tutor.js COPYONLY)
add_custom_command(OUTPUT ${ATTN_NPM_TGZ}
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:attn-tutor> ${ATTN_NPM_DIR}/lib/attn-tutor.js
  COMMAND ${CMAKE_COMMAND} -E env npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
          npm_config_cache=${CMAKE_BINARY_DIR}/npm-cache ${ATTN_NPM} pack --silent >/dev/null
  WORKING_DIRECTORY ${ATTN_NPM_DIR}
  DEPENDS attn-tutor ${ATTN_NPM_DIR}/package.json ${ATTN_NPM_DIR}/README.md ${ATTN_NPM_DIR}/bin/attn-tutor.js
  COMMENT "Packing the npm package attn-tutor-${PROJECT_VERSION}.tgz")
add_custom_target(attn_npm ALL DEPENDS ${ATTN_NPM_TGZ})
