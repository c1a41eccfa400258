# `cmake --install` lays out headers, libraries and a CMake package so that consumers can write
# find_package(reagent CONFIG) and link reagent::reagent (or a single component such as reagent::tools).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(_components GLOBAL PROPERTY REAGENT_COMPONENTS)
install(TARGETS reagent ${_components} EXPORT reagentTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(target IN LISTS _components)
    get_target_property(_src ${target} SOURCE_DIR)
    install(DIRECTORY ${_src}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
# The umbrella header <reagent/reagent.hpp>.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/libs/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/reagent)
install(EXPORT reagentTargets NAMESPACE reagent:: DESTINATION ${_cmakedir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/reagentConfig.cmake.in
    ${PROJECT_BINARY_DIR}/reagentConfig.cmake INSTALL_DESTINATION ${_cmakedir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/reagentConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/reagentConfig.cmake ${PROJECT_BINARY_DIR}/reagentConfigVersion.cmake
    DESTINATION ${_cmakedir})
if(TARGET reagent_cli)
    install(TARGETS reagent_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
