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
    libboost1.81-dev libboost-filesystem1.81-dev libboost-url1.81-dev
    nlohmann-json3-dev libexpected-dev librange-v3-dev
    libssl-dev ca-certificates libjq-dev libsqlite3-dev
    libcli11-dev catch2 libbenchmark-dev
    python3 openssl
    libre2-dev
)
# The test build links with lld: a sanitizer build's test program links in a third of ld.bfd's time.
if [ "$for_tests" = 1 ]; then
    packages+=(lld)
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
# The official provider SDKs whose types check the fixtures, at the versions package-lock.json pins; the
# lock file copied into node_modules says which versions are there.
sdk_dir="$root/tests/sdk_types"
if [ "$for_tests" = 1 ] \
        && ! cmp -s "$sdk_dir/package-lock.json" "$sdk_dir/node_modules/.reagent-package-lock.json"; then
    echo "setup: installing the provider SDKs for the fixture type check (npm ci in tests/sdk_types)"
    (cd "$sdk_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$sdk_dir/package-lock.json" "$sdk_dir/node_modules/.reagent-package-lock.json"
fi
# The real MCP peers (reference servers, the official SDK and conformance suite, Node 22 for the suite),
# pinned by tests/peers/mcp/package-lock.json, installed the same way.
mcp_dir="$root/tests/peers/mcp"
if [ "$for_tests" = 1 ] \
        && ! cmp -s "$mcp_dir/package-lock.json" "$mcp_dir/node_modules/.reagent-package-lock.json"; then
    echo "setup: installing the MCP test peers (npm ci in tests/peers/mcp)"
    (cd "$mcp_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$mcp_dir/package-lock.json" "$mcp_dir/node_modules/.reagent-package-lock.json"
fi
# The A2A interop peers (the official JavaScript SDK and express, its server's peer dependency), pinned by
# tests/peers/a2a/package-lock.json, installed the same way; they run on the Node 22 of the MCP peers.
a2a_dir="$root/tests/peers/a2a"
if [ "$for_tests" = 1 ] \
        && ! cmp -s "$a2a_dir/package-lock.json" "$a2a_dir/node_modules/.reagent-package-lock.json"; then
    echo "setup: installing the A2A test peers (npm ci in tests/peers/a2a)"
    (cd "$a2a_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$a2a_dir/package-lock.json" "$a2a_dir/node_modules/.reagent-package-lock.json"
fi
# OpenTelemetry's JavaScript packages, whose protobuf root decodes what the telemetry tests encode, pinned by
# tests/peers/otel/package-lock.json, installed the same way.
otel_dir="$root/tests/peers/otel"
if [ "$for_tests" = 1 ] \
        && ! cmp -s "$otel_dir/package-lock.json" "$otel_dir/node_modules/.reagent-package-lock.json"; then
    echo "setup: installing the OpenTelemetry test peers (npm ci in tests/peers/otel)"
    (cd "$otel_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$otel_dir/package-lock.json" "$otel_dir/node_modules/.reagent-package-lock.json"
fi
echo "setup: dependencies ready"
