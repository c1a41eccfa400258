# reagent_peer_process: starting and stopping the loopback peers (tests/peers/*.py) as child processes
# (tests/support/peer_process.cpp, Boost.Process v2), for the integration tests and the benchmarks that run
# against them. Defined once, by whichever of the two asks first.
function(reagent_peer_process_library)
    if(TARGET reagent_peer_process)
        return()
    endif()
    find_program(REAGENT_PYTHON3 NAMES python3 HINTS /usr/bin)
    find_program(REAGENT_OPENSSL NAMES openssl HINTS /usr/bin)
    add_library(reagent_peer_process STATIC ${PROJECT_SOURCE_DIR}/tests/support/peer_process.cpp)
    target_include_directories(reagent_peer_process PUBLIC ${PROJECT_SOURCE_DIR}/tests/support)
    target_link_libraries(reagent_peer_process PUBLIC Boost::headers Boost::filesystem PRIVATE reagent_options)
    target_compile_definitions(reagent_peer_process PRIVATE
        REAGENT_PYTHON3="${REAGENT_PYTHON3}"
        REAGENT_OPENSSL="${REAGENT_OPENSSL}"
        REAGENT_PEERS_DIR="${PROJECT_SOURCE_DIR}/tests/peers")
endfunction()
