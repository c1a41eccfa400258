# Compiler settings shared by every reagent target, carried by the internal `reagent_options` target.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

# Unity builds: the sources of a library or a test program are compiled in batches, so the heavy headers
# (Asio, Beast, nlohmann, Catch2) are parsed and their templates instantiated once per batch instead of once
# per file. A source whose file-local helpers share a name with another's is listed in its target's
# UNITY_ALONE (reagent_add_library, reagent_add_test) and compiled by itself.
option(REAGENT_UNITY_BUILD "Compile each library's and test program's sources in batches" ON)
set(REAGENT_UNITY_BATCH_SIZE 8 CACHE STRING "Sources per unity batch (REAGENT_UNITY_BUILD)")

# reagent_unity_build(<target> [<source>...]): batches <target>'s sources (REAGENT_UNITY_BUILD); the
# sources given are compiled alone. Call it in the directory that declares <target>.
function(reagent_unity_build target)
    if(NOT REAGENT_UNITY_BUILD)
        return()
    endif()
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${REAGENT_UNITY_BATCH_SIZE})
    if(ARGN)
        set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
endfunction()

add_library(reagent_options INTERFACE)
target_compile_options(reagent_options INTERFACE -Wall -Wextra -Wpedantic)
# Every target compiles and links with -pthread, as some dependencies ask of their users: one set of
# definitions (_REENTRANT) for all targets.
target_compile_options(reagent_options INTERFACE -pthread)
target_link_options(reagent_options INTERFACE -pthread)
if(REAGENT_WARNINGS_AS_ERRORS)
    target_compile_options(reagent_options INTERFACE -Werror)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # Asio's coroutine machinery trips g++ 12's -Wmaybe-uninitialized false positives at -O2.
    target_compile_options(reagent_options INTERFACE -Wno-maybe-uninitialized)
    if(REAGENT_UNITY_BUILD)
        # In a unity batch a source's file-local types sit in an included file, and g++ then warns for each
        # coroutine frame holding one (-Wsubobject-linkage): true of the batch, not of the code.
        target_compile_options(reagent_options INTERFACE -Wno-subobject-linkage)
    endif()
endif()

if(REAGENT_SANITIZE)
    set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        # clang 14 cannot compile coroutines under -fsanitize=function.
        list(APPEND _san -fno-sanitize=function)
    endif()
    target_compile_options(reagent_options INTERFACE ${_san})
    target_link_options(reagent_options INTERFACE ${_san})
    # Not position-independent: UBSan's per-check data makes a test program's .data ~140 MB, which as PIE
    # carries ~120 MB of relocations applied at every start (0.8 s of each test's 1.2 s under CTest).
    target_compile_options(reagent_options INTERFACE -fno-pie)
    target_link_options(reagent_options INTERFACE -no-pie)
endif()
