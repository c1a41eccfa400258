# Compiler settings shared by every reagent target, carried by the internal `reagent_options` target.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

add_library(reagent_options INTERFACE)
target_compile_options(reagent_options INTERFACE -Wall -Wextra -Wpedantic)
if(REAGENT_WARNINGS_AS_ERRORS)
    target_compile_options(reagent_options INTERFACE -Werror)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # Asio's coroutine machinery trips g++ 12's -Wmaybe-uninitialized false positives at -O2.
    target_compile_options(reagent_options INTERFACE -Wno-maybe-uninitialized)
endif()

if(REAGENT_SANITIZE)
    set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        # clang 14 cannot compile coroutines under -fsanitize=function.
        list(APPEND _san -fno-sanitize=function)
    endif()
    target_compile_options(reagent_options INTERFACE ${_san})
    target_link_options(reagent_options INTERFACE ${_san})
endif()
