# Every dependency comes from Debian 12 packages; scripts/setup.sh installs them.
find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS filesystem url iostreams)
find_package(nlohmann_json 3.11 REQUIRED CONFIG)
find_package(tl-expected REQUIRED CONFIG)
find_package(Threads REQUIRED)
# TLS for the HTTP client (libssl-dev); only libs/http/src/tls_stream.cpp includes it.
find_package(OpenSSL REQUIRED)
# Episodic memory (libs/memory/src/episodic_store.cpp): libsqlite3-dev.
find_package(SQLite3 REQUIRED)
# libpq, for the PostgreSQL run store (libs/durable).
find_package(PostgreSQL REQUIRED)

# RE2, the linear-time regex engine for patterns from models and servers (libs/tools: LinearRegex).
# Debian's libre2-dev ships a pkg-config file only, no CMake package.
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
# poppler's C++ binding, for the text of PDFs (libs/documents/src/pdf_text.cpp only): libpoppler-cpp-dev
# ships a pkg-config file only, no CMake package.
pkg_check_modules(POPPLER_CPP REQUIRED IMPORTED_TARGET poppler-cpp)

# valijson is used only inside the tools library (never in a public header). Debian's libvalijson-dev
# drags in ~70 unrelated packages, so setup.sh may unpack just its headers into .deps/.
find_package(valijson CONFIG QUIET)
if(NOT valijson_FOUND)
    find_package(valijson CONFIG REQUIRED
        HINTS ${PROJECT_SOURCE_DIR}/.deps/valijson/usr/share/cmake/valijson)
endif()

if(REAGENT_BUILD_APPS)
    find_package(CLI11 REQUIRED CONFIG)
endif()
if(REAGENT_BUILD_TESTS)
    find_package(Catch2 2 REQUIRED CONFIG)
endif()
if(REAGENT_BUILD_BENCHMARKS)
    find_package(benchmark REQUIRED CONFIG)
endif()
