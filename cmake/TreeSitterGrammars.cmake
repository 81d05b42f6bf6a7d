# The tree-sitter C and C++ grammars (issue 15: no-build mode, prefilter). Debian ships the
# tree-sitter runtime (libtree-sitter-dev, ABI 13-14) but no grammars, so the configure step
# fetches the npm packages with `npm pack` into the build folder, never the source tree, and
# nothing third-party is committed. The versions are pinned: tree-sitter-c 0.24 and later are
# generated for ABI 15, which Debian 12's runtime refuses to load.
#
# The tarballs stay in ${HOTSCAN_GRAMMAR_DIR}, so a rebuild or a re-configure does not run npm
# again. Offline: put the two .tgz files there by hand (or point HOTSCAN_GRAMMAR_DIR at a folder
# that holds them) and configure again.
set(HOTSCAN_TS_C_VERSION 0.23.6)
set(HOTSCAN_TS_CPP_VERSION 0.23.4)
set(HOTSCAN_GRAMMAR_DIR ${CMAKE_BINARY_DIR}/tree-sitter-grammars CACHE PATH
    "Folder holding the npm tarballs of tree-sitter-c and tree-sitter-cpp (fetched with npm pack when absent)")

function(hotscan_fetch_grammar name version out_src)
  set(tgz ${HOTSCAN_GRAMMAR_DIR}/${name}-${version}.tgz)
  set(url https://registry.npmjs.org/${name}/-/${name}-${version}.tgz)
  if(NOT EXISTS ${tgz})
    file(MAKE_DIRECTORY ${HOTSCAN_GRAMMAR_DIR})
    find_program(HOTSCAN_NPM npm)
    if(NOT HOTSCAN_NPM)
      message(FATAL_ERROR "hotscan needs the tree-sitter grammar ${name} ${version}, fetched with npm, "
              "which was not found.\n"
              "Install it (Debian 12: apt-get install nodejs npm, or run: bash .ci/setup), or download\n"
              "  ${url}\ninto ${HOTSCAN_GRAMMAR_DIR}/ and configure again.")
    endif()
    message(STATUS "tree-sitter: npm pack ${name}@${version} into ${HOTSCAN_GRAMMAR_DIR}")
    execute_process(COMMAND ${HOTSCAN_NPM} pack --silent --prefer-offline ${name}@${version}
                    WORKING_DIRECTORY ${HOTSCAN_GRAMMAR_DIR}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT EXISTS ${tgz})
      file(REMOVE ${tgz})
      message(FATAL_ERROR "hotscan: `npm pack ${name}@${version}` failed (exit ${rc}) in ${HOTSCAN_GRAMMAR_DIR}:\n"
              "${err}\n"
              "The grammar comes from the npm registry: check the network (or npm's proxy settings),\n"
              "or download\n  ${url}\ninto ${HOTSCAN_GRAMMAR_DIR}/ by hand and configure again.")
    endif()
  endif()
  set(dest ${CMAKE_BINARY_DIR}/tree-sitter-grammars/${name}-${version})
  if(NOT EXISTS ${dest}/package/src/parser.c OR ${tgz} IS_NEWER_THAN ${dest}/package/src/parser.c)
    file(REMOVE_RECURSE ${dest})
    file(ARCHIVE_EXTRACT INPUT ${tgz} DESTINATION ${dest} PATTERNS package/src package/LICENSE)
    if(NOT EXISTS ${dest}/package/src/parser.c)
      message(FATAL_ERROR "hotscan: ${tgz} holds no package/src/parser.c; delete it and configure again")
    endif()
  endif()
  set(${out_src} ${dest}/package/src PARENT_SCOPE)
endfunction()

hotscan_fetch_grammar(tree-sitter-c ${HOTSCAN_TS_C_VERSION} HOTSCAN_TS_C_SRC)
hotscan_fetch_grammar(tree-sitter-cpp ${HOTSCAN_TS_CPP_VERSION} HOTSCAN_TS_CPP_SRC)
message(STATUS "tree-sitter grammars: c ${HOTSCAN_TS_C_VERSION}, cpp ${HOTSCAN_TS_CPP_VERSION} (${HOTSCAN_GRAMMAR_DIR})")

# Generated code: compiled without the project's warning flags (and without sanitizers or
# fuzzer coverage, which would only slow parsing down), optimized whatever the build type,
# since a Debug parser.c is several times slower.
foreach(lang c cpp)
  if(lang STREQUAL "c")
    set(src ${HOTSCAN_TS_C_SRC})
  else()
    set(src ${HOTSCAN_TS_CPP_SRC})
  endif()
  set(files ${src}/parser.c)
  if(EXISTS ${src}/scanner.c)
    list(APPEND files ${src}/scanner.c)
  endif()
  add_library(hotscan_ts_${lang} STATIC ${files})
  target_include_directories(hotscan_ts_${lang} PRIVATE ${src})
  set_target_properties(hotscan_ts_${lang} PROPERTIES COMPILE_OPTIONS "-w;-O2;-fPIC" C_STANDARD 11)
endforeach()
