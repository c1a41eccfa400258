#!/usr/bin/env bash
# Installs everything reagent needs to build and test, from Debian 12's packages. Safe to run again:
# it installs only what is missing. With --tests it also installs what only the tests need: Node.js and
# the provider SDKs whose types check the fixtures (tests/sdk_types).
set -euo pipefail
for_tests=0
if [ "${1:-}" = "--tests" ]; then for_tests=1; fi
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
    g++ clang clang-format cmake ninja-build ccache
    libboost1.81-dev libboost-filesystem1.81-dev libboost-url1.81-dev libboost-iostreams1.81-dev
    nlohmann-json3-dev libexpected-dev librange-v3-dev
    libssl-dev ca-certificates libjq-dev libsqlite3-dev libpq-dev libpoppler-cpp-dev
    libcli11-dev catch2 libbenchmark-dev
    python3 openssl
    libre2-dev
)
# The test build links with lld: a sanitizer build's test program links in a third of ld.bfd's time.
# The PostgreSQL run store's tests start a private cluster of Debian's server (tests/peers/postgres); the
# packaged cluster is never started.
if [ "$for_tests" = 1 ]; then
    packages+=(lld postgresql-15)
fi
# The SDK type check of the provider fixtures (tests/sdk_types) runs on Node.js: Debian's unless one is
# on the PATH already.
if [ "$for_tests" = 1 ] && { ! command -v node > /dev/null || ! command -v npm > /dev/null; }; then
    packages+=(nodejs npm)
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
updated=0
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    updated=1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# valijson is header-only, but Debian's libvalijson-dev depends on ~70 packages (Qt, Poco, ...) that reagent
# never uses. Unless it is installed already, unpack just its headers and CMake package into .deps/.
valijson_config="$root/.deps/valijson/usr/share/cmake/valijson/valijsonConfig.cmake"
if ! dpkg-query -W -f='${Status}' libvalijson-dev 2>/dev/null | grep -q "install ok installed" \
        && [ ! -f "$valijson_config" ]; then
    echo "setup: unpacking libvalijson-dev into .deps/valijson"
    download=$(mktemp -d)
    chmod 777 "$download"
    if ! (cd "$download" && apt-get download -qq libvalijson-dev 2>/dev/null); then
        [ "$updated" = 1 ] || $sudo apt-get update -qq
        (cd "$download" && apt-get download -qq libvalijson-dev)
    fi
    mkdir -p "$root/.deps/valijson"
    dpkg-deb -x "$download"/libvalijson-dev_*.deb "$root/.deps/valijson"
    rm -rf "$download"
fi
# npm packages for the tests, each set pinned by its directory's package-lock.json and installed with
# `npm ci` when the lock differs from the copy kept in node_modules (which says which versions are there).
install_pinned() {  # DIRECTORY WHAT
    local dir="$root/$1"
    if [ "$for_tests" = 1 ] \
            && ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.reagent-package-lock.json"; then
        echo "setup: installing $2 (npm ci in $1)"
        (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
        cp "$dir/package-lock.json" "$dir/node_modules/.reagent-package-lock.json"
    fi
}
# The official provider SDKs whose types check the fixtures.
install_pinned tests/sdk_types "the provider SDKs for the fixture type check"
# The real MCP peers (reference servers, the official SDK and conformance suite, Node 22 for the suite).
install_pinned tests/peers/mcp "the MCP test peers"
# The A2A interop peers (the official JavaScript SDK and express, its server's peer dependency); they run on
# the Node 22 of the MCP peers.
install_pinned tests/peers/a2a "the A2A test peers"
# OpenTelemetry's JavaScript packages, whose protobuf root decodes what the telemetry tests encode.
install_pinned tests/peers/otel "the OpenTelemetry test peers"
echo "setup: dependencies ready"
