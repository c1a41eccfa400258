#!/usr/bin/env bash
# Checks the formatting of every C++ file (clang-format, .clang-format), then builds reagent twice:
# - clang, Release without optimisation, warnings as errors: the libraries, the CLI, the examples (run as
#   tests), the benchmarks and the public-header check; then an install consumed by an out-of-tree
#   project (find_package);
# - g++ with AddressSanitizer + UndefinedBehaviorSanitizer, warnings as errors: every test, run once, here.
# The tests run once, under the sanitizers: running them in the Release build as well took a third of a cold
# run (docs/benchmarks.md, "CI time").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh --tests
# ccache may reuse objects built in another checkout of the same sources (CI builds in a fresh clone).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

# Each step says how long the run has taken so far, so a slow phase shows in CI's log.
step() { printf '\n== %s (at %d min %02d s)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }
# Tests run two at a time: most of a test's time is spent waiting on peers, processes and timers.
jobs="${REAGENT_TEST_JOBS:-2}"
# Both builds link with lld (a sanitizer build's test program: 15 s with ld.bfd, 5 s with lld).
lld=-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld

step "format: every C++ file as .clang-format says"
# A violation fails the run; fix it with: git ls-files '*.cpp' '*.hpp' '*.h' | xargs clang-format -i
git ls-files -z -- '*.cpp' '*.hpp' '*.h' | xargs -0 clang-format --dry-run --Werror

step "clang: the libraries, the CLI, the benchmarks, the header check; the examples run"
# The Release configuration (NDEBUG) without optimisation: this build checks that the code compiles,
# warning-free, with a second compiler and that the examples run; -O3 takes nearly twice as long to
# compile and checks nothing more here. Benchmarks are measured in an optimised build (docs/benchmarks.md).
cmake -S . -B build/clang-check -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG" \
    -DCMAKE_CXX_COMPILER=clang++ -DREAGENT_WARNINGS_AS_ERRORS=ON -DREAGENT_BUILD_TESTS=OFF \
    -DREAGENT_BUILD_BENCHMARKS=ON "$lld" > /dev/null
cmake --build build/clang-check -j2
ctest --test-dir build/clang-check --output-on-failure --parallel "$jobs"

step "install and build an out-of-tree consumer"
rm -rf build/install build/consumer
cmake --install build/clang-check --prefix build/install > /dev/null
cmake -S tests/consumer -B build/consumer -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_PREFIX_PATH="$root/build/install" > /dev/null
cmake --build build/consumer -j2
ctest --test-dir build/consumer --output-on-failure

step "g++ with AddressSanitizer and UndefinedBehaviorSanitizer: every test"
# Line tables only (-g1): the sanitizers' reports keep their file:line frames, and a compile takes a quarter
# less time than with full debug information.
cmake -S . -B build/gcc-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
    -DCMAKE_CXX_COMPILER=g++ -DREAGENT_SANITIZE=ON -DREAGENT_WARNINGS_AS_ERRORS=ON -DREAGENT_CHECK_HEADERS=OFF \
    -DREAGENT_BUILD_EXAMPLES=OFF "$lld" > /dev/null
# The build lists each test program's cases by running it: no leak check at those exits (a second each).
ASAN_OPTIONS=detect_leaks=0 cmake --build build/gcc-asan -j2
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build/gcc-asan --output-on-failure --parallel "$jobs"
step "done"
