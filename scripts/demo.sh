#!/usr/bin/env bash
# Builds the reagent CLI and runs it on its offline demo provider (no API key, no network).
# Usage: scripts/demo.sh ["PROMPT"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
    -DREAGENT_BUILD_TESTS=OFF > /dev/null
cmake --build build/release -j2 --target reagent_cli
prompt=${1:-"What is (17 + 25) * 3? Also count the words in this question."}
exec build/release/apps/reagent/reagent run "$prompt"
