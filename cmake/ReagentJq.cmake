# Declares the IMPORTED target reagent_jq for libjq (jq 1.6 has no CMake package or pkg-config file).
# Only the reagent-jq helper executable links it (libs/transform); the shared libjq brings libonig itself.
if(NOT TARGET reagent_jq)
    find_library(REAGENT_JQ_LIBRARY NAMES jq REQUIRED)
    find_path(REAGENT_JQ_INCLUDE_DIR NAMES jq.h REQUIRED)
    add_library(reagent_jq UNKNOWN IMPORTED)
    set_target_properties(reagent_jq PROPERTIES
        IMPORTED_LOCATION "${REAGENT_JQ_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${REAGENT_JQ_INCLUDE_DIR}")
endif()
