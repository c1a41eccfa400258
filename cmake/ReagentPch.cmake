# Precompiled headers (g++): the third-party headers nearly every source includes (Asio's coroutine, timer
# and socket headers, nlohmann/json, tl::expected; Catch2 in the tests) take g++ 4–5 s to parse in each
# translation unit. A build compiles them once per kind, in a carrier target, and the libraries, the CLI and
# the test programs reuse that file (REUSE_FROM). The public-header check, the examples, the benchmarks and
# an installed reagent's consumers compile without it, so a header that forgets an include still fails.
#
# Not with clang: its precompiled file names the absolute path of the header it was made from and refuses
# to load when that path is gone, so one restored by ccache from another checkout (CI builds in a fresh
# clone) would break the build. g++'s file loads wherever it lies.
option(REAGENT_PRECOMPILED_HEADERS "Precompile the heavy third-party headers once per build (g++)" ON)

set(REAGENT_PCH_HEADERS
    <algorithm> <chrono> <functional> <map> <memory> <optional> <string> <string_view> <utility> <variant>
    <vector>
    <boost/asio/as_tuple.hpp> <boost/asio/bind_cancellation_slot.hpp> <boost/asio/cancellation_signal.hpp>
    <boost/asio/co_spawn.hpp> <boost/asio/deferred.hpp> <boost/asio/detached.hpp>
    <boost/asio/experimental/awaitable_operators.hpp> <boost/asio/experimental/parallel_group.hpp>
    <boost/asio/io_context.hpp> <boost/asio/ip/tcp.hpp> <boost/asio/post.hpp> <boost/asio/steady_timer.hpp>
    <boost/asio/this_coro.hpp> <boost/asio/use_awaitable.hpp> <boost/describe/enum.hpp>
    <nlohmann/json.hpp> <tl/expected.hpp>)

# The carrier of one kind (LIBRARY or TEST): an object library with nothing but the precompiled headers,
# compiled with exactly the flags of the targets that reuse it (reagent_options, no definitions: g++ accepts
# definitions the precompiled headers do not use, and -Winvalid-pch with -Werror fails a build that could
# not use the file).
function(_reagent_pch_carrier kind out)
    set(carrier reagent_pch_${kind})
    if(NOT TARGET ${carrier})
        set(source ${PROJECT_BINARY_DIR}/pch/${carrier}.cpp)
        file(CONFIGURE OUTPUT ${source} CONTENT "// The carrier of the ${kind} precompiled headers.\n")
        add_library(${carrier} OBJECT ${source})
        target_link_libraries(${carrier} PRIVATE reagent_options Boost::headers tl::expected
                                                 nlohmann_json::nlohmann_json)
        set(headers ${REAGENT_PCH_HEADERS})
        if(kind STREQUAL "test")
            target_link_libraries(${carrier} PRIVATE Catch2::Catch2)
            list(APPEND headers <catch2/catch.hpp>)
        endif()
        target_precompile_headers(${carrier} PRIVATE ${headers})
    endif()
    set(${out} ${carrier} PARENT_SCOPE)
endfunction()

# reagent_precompiled_headers(<target> LIBRARY|TEST): <target> reuses the precompiled headers of its kind
# (REAGENT_PRECOMPILED_HEADERS).
function(reagent_precompiled_headers target kind)
    if(NOT REAGENT_PRECOMPILED_HEADERS OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        return()
    endif()
    string(TOLOWER ${kind} kind)
    _reagent_pch_carrier(${kind} carrier)
    target_precompile_headers(${target} REUSE_FROM ${carrier})
endfunction()

find_program(REAGENT_ENV_PROGRAM env)
if(REAGENT_PRECOMPILED_HEADERS AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND REAGENT_ENV_PROGRAM AND CCACHE_PROGRAM
   AND CMAKE_CXX_COMPILER_LAUNCHER STREQUAL CCACHE_PROGRAM)
    # ccache caches a compile that uses a precompiled header only when told that the header's definitions
    # and time macros, and the fresh precompiled file's times, may be ignored: otherwise each one misses.
    set(CMAKE_CXX_COMPILER_LAUNCHER ${REAGENT_ENV_PROGRAM}
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime ${CCACHE_PROGRAM})
endif()
