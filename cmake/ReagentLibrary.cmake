# reagent_add_library(<component> SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...] [UNITY_ALONE ...])
# Declares reagent_<component> (alias reagent::<component>) with public headers under
# libs/<component>/include and registers it for installation in the reagentTargets export set. Its
# sources are compiled in unity batches (reagent_unity_build), except those in UNITY_ALONE.
function(reagent_add_library component)
    cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS;UNITY_ALONE" ${ARGN})
    set(target reagent_${component})
    add_library(${target} ${ARG_SOURCES})
    add_library(reagent::${component} ALIAS ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${component} OUTPUT_NAME reagent_${component})
    target_include_directories(${target} PUBLIC
        $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
        $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_compile_features(${target} PUBLIC cxx_std_20)
    target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE $<BUILD_INTERFACE:reagent_options>)
    foreach(dep IN LISTS ARG_PRIVATE_DEPS)
        # Private, header-only dependencies stay out of the exported link interface.
        target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:${dep}>)
    endforeach()
    reagent_unity_build(${target} ${ARG_UNITY_ALONE})
    set_property(GLOBAL APPEND PROPERTY REAGENT_COMPONENTS ${target})
endfunction()
